"""repo_mutate's bug generators and mutant commits without Docker (repo2env/tasks/mutate/): each strategy's edit
on a known function, the rest of the file byte-for-byte, the sampling's determinism, and the same commits on
every run."""

import difflib
import subprocess

from repo2env.tasks.mutate import planted_mutations, revision_mutations
from repo2env.tasks.mutate.commits import mutant_commits, scratch_repo
from repo2env.tasks.mutate.strategies import STRATEGIES, function_mutations, is_mutable_file, still_parses
from tests.helpers.repos import commit_files

SOURCE = '''\
def clamp(x, lo, hi=10, strict=False):
    """Doc."""
    if x < lo:
        return lo
    if x > hi and not strict:
        return hi
    else:
        x = x + 3
    log(x, lo)
    return x if x in (1, 2) else x


class Box:
    def first(self, items):
        return items[0]
'''


def _changed(data: bytes, mutated: bytes) -> list[str]:
    return [line for line in difflib.unified_diff(data.decode().splitlines(), mutated.decode().splitlines(),
                                                  lineterm="", n=0) if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def test_each_strategy_makes_its_edit_and_nothing_else():
    data = SOURCE.encode()
    found = function_mutations("pkg/core.py", data)
    made = {(m.strategy, tuple(_changed(data, m.apply(data)))) for ms in found.values() for m in ms}
    expected = {
        ("flip_comparison", ("-    if x < lo:", "+    if x >= lo:")),
        ("flip_boolean", ("-    if x > hi and not strict:", "+    if x > hi or not strict:")),
        ("off_by_one", ("-        return items[0]", "+        return items[1]")),
        ("change_constant", ("-def clamp(x, lo, hi=10, strict=False):", "+def clamp(x, lo, hi=10, strict=True):")),
        ("change_constant", ("-        x = x + 3", "+        x = x + 6")),
        ("drop_statement", ("-    log(x, lo)",)),
        ("drop_branch", ("-    else:", "-        x = x + 3")),
        ("invert_condition", ("-    if x < lo:", "+    if not (x < lo):")),
        ("remove_early_return", ("-    if x < lo:", "-        return lo")),
        ("swap_arguments", ("-    log(x, lo)", "+    log(lo, x)")),
    }
    assert expected <= made
    assert {s for s, _ in made} == set(STRATEGIES)
    assert set(found) == {"clamp", "Box.first"}
    assert all(still_parses(m, data) for ms in found.values() for m in ms)


def test_mutable_files_are_the_packages_own_code():
    assert is_mutable_file("pkg/core.py") and is_mutable_file("src/pkg/a.py")
    for path in ("tests/test_core.py", "pkg/test_core.py", "pkg/core_test.py", "setup.py", "docs/conf.py",
                 "pkg/conftest.py", "pkg/data.json"):
        assert not is_mutable_file(path), path


def test_sampling_and_commits_are_the_same_on_every_run(new_repo, tmp_path):
    repo = new_repo("mut")
    revision = commit_files(repo, "init", {"pkg/core.py": SOURCE, "tests/test_core.py": "def test_x():\n    pass\n"})
    names = tuple(STRATEGIES)
    first = revision_mutations(str(repo), revision, names, 2, seed=7)
    assert first == revision_mutations(str(repo), revision, names, 2, seed=7)
    assert first != revision_mutations(str(repo), revision, names, 2, seed=8)
    assert len(first) == 3 and {c.mutation.function for c in first} == {"clamp", "Box.first"}  # Box.first has one
    scratch = scratch_repo(str(repo), tmp_path / "work" / "repo.git")
    bug, fix = mutant_commits(scratch, revision, first[0].mutation)
    assert (bug, fix) == mutant_commits(scratch, revision, first[0].mutation)
    git = ["git", "-C", scratch]
    assert subprocess.run(git + ["rev-parse", f"{fix}^{{tree}}"], capture_output=True, text=True).stdout == \
        subprocess.run(git + ["rev-parse", f"{revision}^{{tree}}"], capture_output=True, text=True).stdout
    assert subprocess.run(git + ["rev-parse", f"{bug}^"], capture_output=True, text=True).stdout.strip() == revision
    # the user's clone got no object and no ref
    assert subprocess.run(["git", "-C", str(repo), "cat-file", "-e", bug], capture_output=True).returncode != 0


def test_planted_bugs_name_their_enclosing_function(new_repo, tmp_path):
    import pytest

    from repo2env.core.errors import InputError

    repo = new_repo("planted")
    revision = commit_files(repo, "init", {"pkg/core.py": SOURCE})
    spec = tmp_path / "bugs.json"
    spec.write_text('[{"path": "pkg/core.py", "find": "items[0]", "replace": "items[-1]"}]')
    [found] = planted_mutations(spec, str(repo), revision)
    assert (found.mutation.function, found.mutation.line, found.mutation.strategy) == ("Box.first", 15, "planted")
    spec.write_text('[{"path": "pkg/core.py", "find": "nowhere", "replace": "x"}]')
    with pytest.raises(InputError, match="entry 0: 'nowhere' is not in pkg/core.py"):
        planted_mutations(spec, str(repo), revision)


NESTED = '''\
def search(query, reraise=False):
    found = []

    def _enter(value):
        if reraise:
            raise ValueError(value)
        return query(value)

    class Hit:
        def score(self):
            return 1 < 2

    found.append(_enter(1))
    return found
'''


def test_an_edit_inside_a_nested_function_or_class_is_made_once_by_the_innermost():
    """A nested ``def`` or ``class`` standing in the outer body is the inner function's to mutate: the outer one
    gets none of its edits, so no key is planned twice (two candidates of one key are one task id)."""
    data = NESTED.encode()
    found = function_mutations("pkg/search.py", data)
    keys = [m.key for ms in found.values() for m in ms]
    assert len(keys) == len(set(keys))
    inner = {"search._enter": "reraise", "search.Hit.score": "1 < 2"}
    for name, text in inner.items():
        start = NESTED.index(text)
        assert any(e.start >= start for m in found[name] for e in m.edits)
        assert not [m for m in found["search"] for e in m.edits if start <= e.start < start + len(text)], name
    assert not [m for m in found["search"] if m.strategy == "drop_statement" and b"def _enter" in
                data[m.edits[0].start:m.edits[0].end]]
