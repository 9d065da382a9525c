"""The PASS_TO_PASS floor end to end (repo2env/tasks/widen.py): a PR whose own test file holds one test gets the
tests of the other file that exercises the changed module, and the grader runs and restores that file."""

import json
import tomllib

import pytest

from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.repos import commit_files, git, setuptools_pyproject

pytestmark = pytest.mark.docker

SIZES = "UNITS = {'B': 1, 'kB': 1000}\n\n\ndef to_bytes(text):\n    n, unit = text.split()\n    return int(n) * UNITS[unit]\n"
OTHER = "".join(f"\n\ndef test_plain_{n}():\n    assert to_bytes('{n} B') == {n}\n" for n in range(1, 7))


def test_few_pass_to_pass_are_widened_with_the_changed_modules_tests(docker_client, tmp_path):
    repo = tmp_path / "units"
    repo.mkdir()
    git(repo, "init", "-q", "--initial-branch=main")
    commit_files(repo, "init", {"pyproject.toml": setuptools_pyproject("units"), "units/__init__.py": "",
                                "units/sizes.py": SIZES, "tests/test_plain.py": "from units.sizes import to_bytes\n" + OTHER,
                                "tests/test_mib.py": "from units.sizes import to_bytes\n"})
    git(repo, "checkout", "-q", "-b", "fix")
    commit_files(repo, "Mebibyte sizes", {
        "units/sizes.py": SIZES.replace("'kB': 1000}", "'kB': 1000, 'MiB': 1024 ** 2}"),
        "tests/test_mib.py": "from units.sizes import to_bytes\n\n\ndef test_mib():\n    assert to_bytes('3 MiB') == 3 * 1024 ** 2\n"})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "fix", "-m", "Merge pull request #1 from a/fix\n\nMebibyte sizes")
    out = tmp_path / "tasks"
    summary = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=False, runs_after=1))
    assert summary.verified == ["local__units-1"], dict(summary.skipped)
    bundle = out / "local__units-1"
    p2p = json.loads((bundle / "tests/p2p.json").read_text())
    assert p2p == [f"tests/test_plain.py::test_plain_{n}" for n in range(1, 7)]
    table = tomllib.loads((bundle / "task.toml").read_text())["metadata"]["repo2env"]["pr_runtime"]
    assert table["pass_to_pass_widened"]["files"] == ["tests/test_plain.py"]
    assert table["pass_to_pass_widened"]["added"] == 6 and "fewer than 5" in table["pass_to_pass_widened"]["why"]
    config = json.loads((bundle / "tests/config.json").read_text())
    assert config["run_targets"] == ["tests/test_mib.py", "tests/test_plain.py"]
    assert "tests/test_plain.py" in config["overlay"]["write"]  # put back before grading, as every test file
    assert (bundle / "tests/overlay/tests/test_plain.py").read_text().startswith("from units.sizes import")
