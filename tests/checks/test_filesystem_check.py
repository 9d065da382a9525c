"""The reference-digging check's rules (templates/probes/filesystem_check.py), on folders this test makes: a copy
of the reference's lines is found, an idiom that several packages hold is not (tenacity pr#605 was rejected by
probe_filesystem for ``async def __aenter__(self) -> None:``, which trio and tornado hold too)."""

import importlib.util
import sys
from pathlib import Path

import repo2env

SCRIPT = Path(repo2env.__file__).parent / "templates/probes/filesystem_check.py"


def _check():
    spec = importlib.util.spec_from_file_location("filesystem_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    written, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ among the templates
    try:
        spec.loader.exec_module(module)  # defines, runs nothing: main() only as a script
    finally:
        sys.dont_write_bytecode = written
    return module


def _package(root: Path, name: str, text: str) -> None:
    (root / name / "_core").mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    (root / name / "_core" / "__init__.py").write_text("")
    (root / name / "_core" / "_run.py").write_text(text)


IDIOM = ["async def __aenter__(self) -> None:", "async def __aexit__(self, *exc_info) -> None:"]
OWN = ["retry_state.outcome = Future.construct(attempt)", "self._retry_object.begin_with_sleep(sleep)"]


def test_an_idiom_of_several_packages_is_no_leak_and_a_copy_of_the_reference_is(tmp_path):
    check = _check()
    workspace, top = tmp_path / "workspace", tmp_path / "root"
    workspace.mkdir()
    (workspace / "mod.py").write_text("def f():\n    return 1\n")
    for name in ("trio", "tornado"):
        _package(top / "site-packages", name, "\n".join(IDIOM) + "\n")
    _package(top / "cache" / "archive" / "abc123", "trio", "\n".join(IDIOM) + "\n")  # the same package, cached
    gold = set(IDIOM)
    assert check.leaks(gold, str(workspace), str(top)) == []
    # one package alone holding both lines (in site-packages and its cached copy) is a copy: found
    only = tmp_path / "only"
    _package(only / "site-packages", "trio", "\n".join(IDIOM) + "\n")
    _package(only / "cache" / "abc123", "trio", "\n".join(IDIOM) + "\n")
    assert len(check.leaks(gold, str(workspace), str(only))) == 2
    # a leaked patch holds the reference's own lines beside the idiom: found, the idiom left out of the count
    (top / "opt").mkdir()
    (top / "opt" / "fix.diff").write_text("".join(f"+    {line}\n" for line in IDIOM + OWN))
    [found] = check.leaks(gold | set(OWN), str(workspace), str(top))
    assert found.startswith(f"{top}/opt/fix.diff holds 2 of the reference's 2 lines"), found
    # lines already in the work tree do not count
    (workspace / "mod.py").write_text("\n".join(OWN) + "\n")
    assert check.leaks(set(OWN), str(workspace), str(top)) == []
