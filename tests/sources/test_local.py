"""repo2env/sources/local.py: merged PRs from a clone's first-parent history."""

from datetime import UTC, datetime

import git
import pytest

from repo2env.core.errors import InputError
from repo2env.core.gitrepo import open_repo, repo_ref
from repo2env.sources.local import list_pull_requests
from tests.helpers.repos import commit_files


def _prs(path, **kw):
    repo = open_repo(path)
    return list(list_pull_requests(repo, repo_ref(repo, path), **kw))


def test_demo_history_shapes(demo_repo):
    prs = _prs(demo_repo)
    assert [(p.number, p.shape) for p in prs] == [(5, "merge"), (4, "squash"), (3, "squash"), (2, "merge"),
                                                  (1, "merge")]
    repo = git.Repo(demo_repo)
    by_number = {p.number: p for p in prs}
    merge = repo.commit(by_number[1].head_commit)
    assert by_number[1].base_commit == merge.parents[0].hexsha
    assert by_number[1].title == "Raise ValueError when dividing by zero"
    assert by_number[1].body.endswith("Fixes #7")
    assert by_number[4].title == "Parse sizes with unit suffixes"
    assert by_number[4].base_commit == repo.commit(by_number[4].head_commit).parents[0].hexsha
    assert by_number[1].reference is None  # a local source gets no fabricated URL


def test_pr_filter_and_dates(demo_repo):
    assert [p.number for p in _prs(demo_repo, numbers=(4, 1))] == [4, 1]
    everything = _prs(demo_repo)
    cut = everything[2].merged_at
    assert [p.number for p in _prs(demo_repo, since=cut)] == [5, 4, 3]
    assert [p.number for p in _prs(demo_repo, until=cut)] == [3, 2, 1]


def test_unknown_pr_is_an_input_error(demo_repo):
    with pytest.raises(InputError, match=r"no merged pull request #999"):
        _prs(demo_repo, numbers=(999,))


def test_two_parent_merge_with_suffix_and_non_pr_merges(new_repo):
    repo = new_repo()
    commit_files(repo, "init", {"a.py": "1\n"})
    from tests.helpers.repos import git as g
    g(repo, "checkout", "-q", "-b", "feature")
    commit_files(repo, "work", {"a.py": "2\n"})
    g(repo, "checkout", "-q", "main")
    g(repo, "merge", "-q", "--no-ff", "feature", "-m", "Speed up parsing (#42)")
    g(repo, "checkout", "-q", "-b", "other")
    commit_files(repo, "other work", {"b.py": "1\n"})
    g(repo, "checkout", "-q", "main")
    g(repo, "merge", "-q", "--no-ff", "other", "-m", "Merge branch 'stable'")
    prs = _prs(repo)
    assert [(p.number, p.shape, p.title) for p in prs] == [(42, "merge", "Speed up parsing")]


def test_repo_ref_from_origin(new_repo):
    repo = new_repo("widgets")
    commit_files(repo, "init", {"a.py": "1\n"})
    from tests.helpers.repos import git as g
    g(repo, "remote", "add", "origin", "git@github.com:acme/widgets.git")
    ref = repo_ref(git.Repo(repo), repo)
    assert ref.slug == "acme/widgets" and ref.web_url == "https://github.com/acme/widgets"
    assert ref.task_prefix == "acme__widgets"
    commit_files(repo, "Fix a thing (#3)", {"a.py": "2\n"})
    assert _prs(repo)[0].reference == "https://github.com/acme/widgets/pull/3"


def test_merged_at_is_utc(demo_repo):
    assert all(p.merged_at.tzinfo == UTC for p in _prs(demo_repo))
    assert _prs(demo_repo)[0].merged_at > datetime(2025, 3, 1, tzinfo=UTC)


def test_a_thin_merge_message_gets_the_pull_requests_own_commit_messages(new_repo):
    """GitHub's merge button writes the PR's title and nothing of its description: the reasons are in the PR's
    own commits. A body under 20 words gets their messages, oldest first, without trailers, fix-ups, merges of
    the base branch or a subject equal to the title; a full body is left alone (a new user's PR #427 was
    skipped as instruction_too_thin with its commits explaining the bug)."""
    from tests.helpers.repos import git as g
    repo = new_repo()
    commit_files(repo, "init", {"a.py": "1\n"})
    g(repo, "checkout", "-q", "-b", "fix")
    commit_files(repo, "Handle empty input in parse\n\nparse('') raised IndexError; it should return None.\n\n"
                 "Signed-off-by: Dev <dev@example.org>\n", {"a.py": "2\n"})
    commit_files(repo, "fixup! Handle empty input in parse", {"a.py": "3\n"})
    commit_files(repo, "Fix empty input", {"a.py": "4\n"})
    commit_files(repo, "Add a changelog entry", {"CHANGES": "x\n"})
    g(repo, "checkout", "-q", "main")
    commit_files(repo, "main moves on", {"b.py": "1\n"})
    g(repo, "merge", "-q", "--no-ff", "fix", "-m", "Merge pull request #427 from dev/fix\n\nFix empty input")
    g(repo, "checkout", "-q", "-b", "long")
    commit_files(repo, "Some work", {"c.py": "1\n"})
    g(repo, "checkout", "-q", "main")
    long_body = " ".join(["word"] * 25)
    g(repo, "merge", "-q", "--no-ff", "long", "-m", f"Merge pull request #428 from dev/long\n\nTitle\n\n{long_body}")
    by_number = {p.number: p for p in _prs(repo)}
    assert by_number[427].title == "Fix empty input"
    assert by_number[427].body == ("Handle empty input in parse\n\nparse('') raised IndexError; it should return "
                                   "None.\n\nAdd a changelog entry")
    assert by_number[428].body == long_body
