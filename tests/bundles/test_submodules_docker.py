"""A repository with a git submodule whose content the tests read: the submodule's files are in the task image
when the source clone has it initialised, the same task verifies in layout 1.0 and schema 1.3 (oracle 1.0, nop
0.0; the 1.3 snapshot step keeps the gitlink's directory), and a clone without the submodule gets a clear
per-candidate reason (``submodule_missing``) instead of a task that cannot pass."""

import subprocess

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.core.options import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.repos import commit_files, git, setuptools_pyproject

pytestmark = pytest.mark.docker

ADDER_BUGGY = "def add(a, b):\n    return a - b\n"
ADDER_FIXED = "def add(a, b):\n    return a + b\n"
TEST_VECTORS = '''\
from pathlib import Path

from adder import add

CASES = Path(__file__).resolve().parents[1] / "vectors" / "cases.txt"


def test_add_matches_the_shared_vectors():
    lines = CASES.read_text().split("\\n")
    rows = [line.split() for line in lines if line.strip()]
    assert rows, "the vectors submodule is empty"
    for a, b, expected in rows:
        assert add(int(a), int(b)) == int(expected)
'''


def _repo_with_submodule(root):
    vectors = root / "vectors-src"
    vectors.mkdir()
    git(vectors, "init", "-q", "--initial-branch=main")
    commit_files(vectors, "vectors", {"cases.txt": "2 3 5\n10 -4 6\n"})
    repo = root / "adder"
    repo.mkdir()
    git(repo, "init", "-q", "--initial-branch=main")
    commit_files(repo, "start", {"pyproject.toml": setuptools_pyproject("adder"), "adder/__init__.py": ADDER_BUGGY,
                                 "tests/__init__.py": "", "README.md": "adder\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", vectors.as_uri(), "vectors")
    git(repo, "commit", "-q", "-m", "Add the shared test vectors as a submodule",
        env={"GIT_AUTHOR_DATE": "2025-01-02T00:00:00Z", "GIT_COMMITTER_DATE": "2025-01-02T00:00:00Z"})
    git(repo, "checkout", "-q", "-b", "fix-add")
    commit_files(repo, "Fix add", {"adder/__init__.py": ADDER_FIXED, "tests/test_vectors.py": TEST_VECTORS},
                 date="2025-01-03T00:00:00Z")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "fix-add", "-m",
        "Merge pull request #1 from dana/fix-add\n\nadd() subtracted its second argument instead of adding it, so "
        "every sum that involves a non-zero second operand came out wrong.",
        env={"GIT_AUTHOR_DATE": "2025-01-04T00:00:00Z", "GIT_COMMITTER_DATE": "2025-01-04T00:00:00Z"})
    return repo


@pytest.fixture(scope="module")
def submodule_repo(tmp_path_factory):
    return _repo_with_submodule(tmp_path_factory.mktemp("submodules"))


@pytest.mark.parametrize("bundle_format", ["harbor-1.0", "harbor-1.3"])
def test_a_task_that_reads_a_submodule_verifies_in_both_layouts(docker_client, submodule_repo, tmp_path,
                                                                bundle_format):
    out = tmp_path / "tasks"
    summary = generate("pr_runtime", str(submodule_repo), GenerateOptions(out=out, format=bundle_format,
                                                                          probes=False))
    assert summary.verified == ["local__adder-1"], (summary.skipped, summary.rejected, summary.errors)
    meta = read_task_toml(out / "local__adder-1")["metadata"]["repo2env"]
    evaluation = meta["evaluation"]
    assert (evaluation["status"], evaluation["oracle_reward"], evaluation["nop_reward"]) == ("verified", 1.0, 0.0)
    assert meta["pr_runtime"]["fail_to_pass"] == ["tests/test_vectors.py::test_add_matches_the_shared_vectors"]
    sha = git(submodule_repo, "rev-parse", "HEAD:vectors").strip()
    assert meta["reproducibility"]["submodules"] == [{"path": "vectors", "commit": sha, "included": True}]


def test_a_clone_without_the_submodule_says_why_there_is_no_task(docker_client, submodule_repo, tmp_path):
    clone = tmp_path / "plain-clone"
    subprocess.run(["git", "clone", "-q", str(submodule_repo), str(clone)], check=True)  # no --recurse-submodules
    out = tmp_path / "tasks"
    summary = generate("pr_runtime", str(clone), GenerateOptions(out=out, probes=False))
    assert summary.verified == [] and dict(summary.skipped) == {"submodule_missing": 1}
    line = (tmp_path / "tasks.ledger.jsonl").read_text().strip().splitlines()[-1]
    assert "submodule vectors not initialised in the source clone" in line
