"""A history that reuses a PR number (``Merge pull request #1`` from 2022, ``... (#1)`` from 2025): the later PR,
skipped, never removes the verified bundle of the earlier one, on a full run or on a --limit 1 re-run."""

import pytest

from repo2env.core.options import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.repos import commit_files, git, setuptools_pyproject

pytestmark = pytest.mark.docker

BUGGY = "def double(x):\n    return x + x + 1\n"
FIXED = "def double(x):\n    return x + x\n"
TEST = "from dbl import double\n\n\ndef test_double():\n    assert double(2) == 4\n"


def _repo(root):
    repo = root / "dbl"
    repo.mkdir()
    git(repo, "init", "-q", "--initial-branch=main")
    commit_files(repo, "start", {"pyproject.toml": setuptools_pyproject("dbl"), "dbl/__init__.py": BUGGY,
                                 "tests/__init__.py": "", "README.md": "dbl\n"}, date="2022-01-01T00:00:00Z")
    git(repo, "checkout", "-q", "-b", "fix")
    commit_files(repo, "Fix double", {"dbl/__init__.py": FIXED, "tests/test_double.py": TEST},
                 date="2022-01-02T00:00:00Z")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "fix", "-m", "Merge pull request #1 from a/fix\n\ndouble(x) returned one more "
        "than twice its argument, so every caller that doubles a size got an off-by-one result.",
        env={"GIT_AUTHOR_DATE": "2022-01-03T00:00:00Z", "GIT_COMMITTER_DATE": "2022-01-03T00:00:00Z"})
    commit_files(repo, "Explain double in the README (#1)", {"README.md": "dbl doubles numbers\n"},
                 date="2025-01-01T00:00:00Z")
    return repo


def test_the_skipped_later_pr_keeps_the_earlier_verified_bundle(docker_client, tmp_path):
    repo = _repo(tmp_path)
    merge = git(repo, "rev-parse", "HEAD~1").strip()
    out = tmp_path / "tasks"
    first = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=False))
    fixed_id = f"local__dbl-1-{merge[:8]}"
    assert first.verified == [fixed_id] and dict(first.skipped) == {"docs_ci_only": 1}
    again = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=False, limit=1))  # the later PR only
    assert dict(again.skipped) == {"docs_ci_only": 1}
    assert (out / fixed_id / "task.toml").is_file()
