"""The twin trial end to end (repo2env/tasks/runtime.py ``_twin_trial``, ``verifier.py twins``): a FAIL_TO_PASS
test that closes with a helper call has no sure twin; generation runs the trial with the reference in place and
config.json's ``twins`` names the functions whose trial twin failed there, and only those."""

import json

import pytest

from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from repo2env.run.ledger import ledger_path
from tests.helpers.repos import commit_files, git, setuptools_pyproject

pytestmark = pytest.mark.docker

SIZES = "UNITS = {'B': 1, 'kB': 1000}\n\n\ndef to_bytes(text):\n    n, unit = text.split()\n    return int(n) * UNITS[unit]\n"
TESTS = """from units.sizes import to_bytes


def check(text, expected):
    assert to_bytes(text) == expected


def shown(value, label):
    assert value, label


def test_plain():
    assert to_bytes('2 B') == 2


def test_mib():
    check('3 MiB', 3 * 1024 ** 2)


def test_mib_shown():
    shown(to_bytes('1 MiB'), 'one mebibyte')
"""


def _generate(tmp_path, tests: str):
    repo = tmp_path / "units"
    repo.mkdir()
    git(repo, "init", "-q", "--initial-branch=main")
    commit_files(repo, "init", {"pyproject.toml": setuptools_pyproject("units"), "units/__init__.py": "",
                                "units/sizes.py": SIZES, "tests/test_sizes.py": tests.split("\n\n\ndef test_mib")[0]})
    git(repo, "checkout", "-q", "-b", "fix")
    commit_files(repo, "Mebibyte sizes", {
        "units/sizes.py": SIZES.replace("'kB': 1000}", "'kB': 1000, 'MiB': 1024 ** 2}"),
        "tests/test_sizes.py": tests})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "fix", "-m", "Merge pull request #1 from a/fix\n\nMebibyte sizes\n\n"
                                                     "to_bytes('3 MiB') raises KeyError: 'MiB'; it should give 3 MiB.")
    out = tmp_path / "tasks"
    return out, generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=False, runs_after=1))


def test_a_test_closing_with_a_helper_call_gets_the_twin_the_trial_proves(docker_client, tmp_path):
    out, summary = _generate(tmp_path, TESTS.split("\n\n\ndef test_mib_shown")[0] + "\n")
    assert summary.verified == ["local__units-1"], dict(summary.skipped)  # oracle 1.0 and nop 0.0, in Docker
    bundle = out / "local__units-1"
    assert json.loads((bundle / "tests/f2p.json").read_text()) == ["tests/test_sizes.py::test_mib"]
    config = json.loads((bundle / "tests/config.json").read_text())
    assert config["twins"] == ["tests/test_sizes.py::test_mib"]  # check('3 MiB', 6 * 1024 ** 2) fails


def test_a_task_with_a_test_no_twin_can_change_is_skipped(docker_client, tmp_path):
    """shown(..., 'one mebibyte') moved still passes with the reference: that test has no twin, and code that
    solved test_mib and forged test_mib_shown's report would score 1.0 (red team 7), so the candidate goes."""
    out, summary = _generate(tmp_path, TESTS)
    assert summary.verified == [] and not (out / "local__units-1").exists()
    assert dict(summary.skipped) == {"untwinned_fail_to_pass": 1}
    [row] = [json.loads(line) for line in ledger_path(out).read_text().splitlines()
             if json.loads(line).get("reason") == "untwinned_fail_to_pass"]
    assert row["detail"] == "no twin fails with the reference for tests/test_sizes.py::test_mib_shown", row
