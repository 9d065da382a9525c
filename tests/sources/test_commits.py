"""repo2env/sources/commits.py: walking a branch's commits, ranges and bad input."""

from datetime import UTC, datetime

import pytest

from repo2env.core import gitrepo
from repo2env.core.errors import InputError
from repo2env.sources.commits import list_commits
from tests.helpers.repos import EXPECTED_SKIPS, EXPECTED_TASKS, build_commit_repo


@pytest.fixture(scope="module")
def commit_repo(tmp_path_factory):
    path = tmp_path_factory.mktemp("commits") / "mathx"
    return path, build_commit_repo(path)


def _walk(path, **kw):
    repo = gitrepo.open_repo(path)
    return list(list_commits(repo, gitrepo.repo_ref(repo, path), **kw))


def test_first_parent_walk_newest_first_without_the_root(commit_repo):
    path, shas = commit_repo
    commits = _walk(path)
    keys = {sha: key for key, sha in shas.items()}
    assert [keys[c.sha] for c in commits] == ["vague", "fix_percent", "helpers_only", "merge", "short", "mean_empty",
                                              "bot", "typo_readme", "docs_type", "refactor", "fix_chunk"]
    assert set(keys[c.sha] for c in commits) == set(EXPECTED_TASKS) | set(EXPECTED_SKIPS)
    fix = next(c for c in commits if c.sha == shas["fix_chunk"])
    assert fix.parent_sha == shas["root"] and fix.subject == "Fix chunk() dropping the last chunk"
    assert fix.body.startswith("chunk([1, 2, 3, 4], 2)") and fix.reference is None and not fix.merge
    assert next(c for c in commits if c.sha == shas["merge"]).merge
    assert shas["side_commit"] in {c.sha for c in _walk(path, first_parent=False)}


def test_range_and_dates(commit_repo):
    path, shas = commit_repo
    assert [c.sha for c in _walk(path, rev=f"{shas['short']}..{shas['helpers_only']}")] == \
        [shas["helpers_only"], shas["merge"]]
    window = _walk(path, since=datetime(2025, 4, 1, 3, tzinfo=UTC), until=datetime(2025, 4, 1, 4, tzinfo=UTC))
    assert [c.sha for c in window] == [shas["docs_type"], shas["refactor"]]


def test_bad_branch_range_and_empty_range(commit_repo):
    path, shas = commit_repo
    with pytest.raises(InputError, match=r"no branch or revision 'nope'"):
        _walk(path, rev="nope")
    with pytest.raises(InputError, match=r"no range 'main..nope'"):
        _walk(path, rev="main..nope")
    with pytest.raises(InputError, match=r"main..main has no commits"):
        _walk(path, rev="main..main")


def test_shallow_clone_says_how_to_deepen(commit_repo, tmp_path):
    path, _ = commit_repo
    shallow = tmp_path / "shallow"
    import subprocess
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{path}", str(shallow)], check=True)
    with pytest.raises(InputError, match="fetch --unshallow"):
        gitrepo.open_repo(shallow)
