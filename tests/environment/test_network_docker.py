"""An install that needs a host this machine cannot reach stops the environment ladder at the first rung
(repo2env/environment/ladder.py NEEDS_NETWORK): no other Python or floor can change that."""

import json

import pytest

from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.repos import commit_files, git

pytestmark = pytest.mark.docker

PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "netpkg"
version = "0.1.0"
dependencies = ["widget @ https://codeload.github.com/acme/widget/archive/v1.0.tar.gz"]

[project.optional-dependencies]
test = ["pytest"]
"""


def test_a_build_that_needs_the_network_is_tried_once(docker_client, tmp_path):
    repo = tmp_path / "netpkg"
    repo.mkdir()
    git(repo, "init", "-q", "--initial-branch=main")
    commit_files(repo, "init", {"pyproject.toml": PYPROJECT, "netpkg/__init__.py": "def one():\n    return 2\n",
                                "tests/test_one.py": "from netpkg import one\n"})
    git(repo, "checkout", "-q", "-b", "fix")
    commit_files(repo, "One is one", {"netpkg/__init__.py": "def one():\n    return 1\n",
                                      "tests/test_one.py": "from netpkg import one\n\n\ndef test_one():\n"
                                                           "    assert one() == 1\n"})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "fix", "-m", "Merge pull request #1 from a/fix\n\nOne is one")
    out = tmp_path / "tasks"
    summary = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=False, runs_after=1))
    assert dict(summary.skipped) == {"env_build_failed": 1}
    entry = json.loads((tmp_path / "tasks.ledger.jsonl").read_text().splitlines()[-1])
    assert "needs a network host" in entry["detail"], entry["detail"]
    builds = [p for p in (tmp_path / "tasks.logs" / "local__netpkg-1").iterdir() if p.name.startswith("image-env")]
    assert len(builds) == 1  # one rung, not the whole ladder
