"""The GitHub source against a fake GitHub on 127.0.0.1 (tests/github_server.py), through the real PyGithub
client and real git over smart HTTP. The API facts come from GitHub's REST docs (pulls, issues, rate limits,
conditional requests)."""

import base64
import logging
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from repo2env.changes.patches import split_change
from repo2env.core import gitrepo
from repo2env.core.errors import InputError
from repo2env.languages.python.files import is_test_path
from repo2env.sources import PrFilters, open_source
from repo2env.sources.github import GitHubSource
from repo2env.sources.github_api import GitHubError, RateLimited
from repo2env.sources.github_spec import parse_github_source
from tests.helpers.github_server import ISSUE_7, TOKEN, Fault


def _open(server, cache, **kw) -> GitHubSource:
    return open_source("org/calc", github_url=server.url, cache_dir=cache, **kw)


def _api(server):
    return [s for s in server.log if not s.path.startswith("/git/")]


def _list(source, **kw):
    args = dict(since=None, until=None, numbers=(), limit=None, filters=PrFilters())
    args.update(kw)
    return source.pull_requests(**args)


def test_merged_prs_newest_first_without_unmerged_drafts_or_bots(fake_github, tmp_path):
    source = _open(fake_github, tmp_path / "cache")
    prs = _list(source)
    assert [p.number for p in prs] == [5, 4, 3, 2, 1]
    assert (source.counts.not_merged, source.counts.drafts, source.counts.bots) == (2, 0, 1)
    assert [p.reference for p in prs][0] == "https://github.com/org/calc/pull/5"
    assert source.repo.slug == "org/calc" and source.repo.task_prefix == "org__calc"
    # everything came from the repository record and one page of pulls: no request per PR
    assert [s.path for s in _api(fake_github)] == ["/repos/org/calc", "/repos/org/calc/pulls"]
    assert all(s.authorization == f"token {TOKEN}" for s in _api(fake_github))
    assert [p.number for p in _list(source, filters=PrFilters(include_bots=True))] == [5, 4, 3, 2, 9, 1]


def test_drafts_are_left_out_unless_included(fake_github, tmp_path):
    fake_github.pulls[:] = [dict(p, draft=True) if p["number"] == 4 else p for p in fake_github.pulls]
    source = _open(fake_github, tmp_path / "cache")
    assert 4 not in [p.number for p in _list(source)] and source.counts.drafts == 1
    assert 4 in [p.number for p in _list(source, filters=PrFilters(include_drafts=True))]


def test_same_changes_as_the_local_source(fake_github, demo_repo, tmp_path):
    """The PR diff is computed locally from the clone; for the demo (branches cut from the tip) GitHub's merge
    base equals the local first parent, so test patch and gold patch are byte-identical."""
    source = _open(fake_github, tmp_path / "cache")
    github = {p.number: p for p in _list(source)}
    local = {p.number: p for p in _list(open_source(str(demo_repo)))}
    assert github.keys() == local.keys()
    clone = github[1].model_dump()  # the clone path is the GitHub source's repo path
    for number, pr in github.items():
        assert pr.base_commit == local[number].base_commit
        assert pr.merge_commit == local[number].head_commit
        ours = split_change(source.repo.path, pr.base_commit, pr.head_commit, is_test_path)
        theirs = split_change(str(demo_repo), local[number].base_commit, local[number].head_commit,
                              is_test_path)
        assert (ours.test_patch, ours.gold_patch) == (theirs.test_patch, theirs.gold_patch), number
    # squash PRs: the head is the PR's own branch tip, fetched from refs/pull/N/head
    assert github[4].head_commit != local[4].head_commit and github[4].shape == "squash"
    assert clone["merge_commit"] == local[1].head_commit


def test_since_limit_and_paging_stop_early(fake_github, tmp_path):
    fake_github.max_per_page = 2  # 8 PRs: 4 pages
    source = _open(fake_github, tmp_path / "cache")
    prs = _list(source, since=datetime(2025, 3, 1, 15, tzinfo=UTC))
    assert [p.number for p in prs] == [5, 4, 3]
    assert sum(s.path.endswith("/pulls") for s in _api(fake_github)) == 2  # of 4 pages: PR #2 ends the walk
    fake_github.reset_log()
    assert [p.number for p in _list(source, limit=2)] == [5, 4]
    assert sum(s.path.endswith("/pulls") for s in _api(fake_github)) == 2
    assert [p.number for p in _list(source, until=datetime(2025, 3, 1, 16, tzinfo=UTC))] == [2, 1]


def test_pr_numbers(fake_github, tmp_path):
    source = _open(fake_github, tmp_path / "cache")
    assert [p.number for p in _list(source, numbers=(4, 1))] == [4, 1]
    with pytest.raises(InputError, match=r"--pr 6: pull request #6 of org/calc was not merged"):
        _list(source, numbers=(6,))
    with pytest.raises(InputError, match=r"--pr 77: org/calc has no pull request #77"):
        _list(source, numbers=(77,))


def test_linked_issue_is_the_problem_statement(fake_github, tmp_path):
    source = _open(fake_github, tmp_path / "cache")
    prs = {p.number: p for p in _list(source)}
    text = source.problem_statement(prs[1])
    assert (text.title, text.body, text.issue_numbers) == (*ISSUE_7, (7,))
    plain = source.problem_statement(prs[5])
    assert (plain.title, plain.issue_numbers) == ("Add slugify for report names", ())
    # "Fixes #2" names a pull request, not an issue: the PR's own text is kept
    fixes_pr = prs[5].model_copy(update={"body": "Fixes #2 and closes #404"})
    assert source.problem_statement(fixes_pr).title == "Add slugify for report names"


def test_second_run_is_answered_from_the_etag_cache(fake_github, tmp_path):
    first = _open(fake_github, tmp_path / "cache")
    first.problem_statement(_list(first)[-1])
    assert first.api.stats.requests == 3 and first.api.stats.not_modified == 0
    fake_github.reset_log()
    again = _open(fake_github, tmp_path / "cache")  # a new client, as in the next nightly run
    prs = _list(again)
    assert again.problem_statement(prs[-1]).issue_numbers == (7,)
    assert [s.status for s in _api(fake_github)] == [304, 304, 304]
    assert again.api.stats.quota_used == 0
    assert again.stats() == ("3 requests (3 not modified, 0 counted), quota remaining 4997; "
                             "PRs left out: 2 unmerged, 1 bots")


def test_rate_limits_and_5xx_are_waited_out_visibly(fake_github, tmp_path, caplog):
    reset = str(int(time.time()) + 2)
    fake_github.faults += [
        Fault("^/repos/org/calc$", 500),
        Fault("/pulls$", 403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset},
              {"message": "API rate limit exceeded for 127.0.0.1."}),
        Fault("/issues/7$", 429, {"Retry-After": "1"}, {"message": "You have exceeded a secondary rate limit."}),
    ]
    caplog.set_level(logging.WARNING, logger="repo2env.github")
    started = time.monotonic()
    source = _open(fake_github, tmp_path / "cache")
    prs = _list(source)
    assert source.problem_statement(prs[-1]).issue_numbers == (7,)
    assert [p.number for p in prs] == [5, 4, 3, 2, 1]
    waits = [r.getMessage() for r in caplog.records]
    assert any("answered HTTP 403: waiting" in w for w in waits) and any("answered HTTP 429: waiting 1 s" in w for w in waits)
    assert time.monotonic() - started >= 2


def test_exhausted_limit_bad_token_and_unknown_repo_are_one_line(fake_github, tmp_path, monkeypatch):
    reset = int(time.time()) + 7200
    fake_github.faults.append(Fault("^/repos/org/calc$", 403, {"X-RateLimit-Remaining": "0",
                                                               "X-RateLimit-Reset": str(reset)},
                                    {"message": "API rate limit exceeded for 127.0.0.1."}))
    with pytest.raises(RateLimited) as info:
        open_source("org/calc", github_url=fake_github.url, cache_dir=tmp_path / "c", max_wait=60)
    expected = datetime.fromtimestamp(reset, UTC).strftime("%H:%M UTC")
    assert str(info.value) == f"org/calc: GitHub API rate limit exhausted (resets at {expected}); run again after the reset, or raise --max-rate-wait"
    monkeypatch.setenv("GH_ENTERPRISE_TOKEN", "wrong-" + TOKEN)
    with pytest.raises(InputError) as info:
        _open(fake_github, tmp_path / "c")
    assert "rejected the token (401" in str(info.value) and TOKEN not in str(info.value)
    monkeypatch.setenv("GH_ENTERPRISE_TOKEN", TOKEN)
    with pytest.raises(InputError, match=r"org/nope: not found on 127.0.0.1 \(404"):
        open_source("org/nope", github_url=fake_github.url, cache_dir=tmp_path / "c")


def test_the_token_is_never_written(fake_github, tmp_path):
    cache = tmp_path / "cache"
    source = _open(fake_github, cache)
    source.problem_statement(_list(source)[-1])
    _open(fake_github, cache)  # a fetch into the existing clone
    basic = base64.b64encode(f"x-access-token:{TOKEN}".encode())
    written = [p for p in cache.rglob("*") if p.is_file()]
    assert any(p.name == "config" for p in written) and any(p.suffix == ".sqlite" for p in written)
    for path in written:
        data = path.read_bytes()
        assert TOKEN.encode() not in data and basic not in data, path
    config = gitrepo.run_git(source.repo.path, "config", "--list", "--local").decode()
    assert "extraheader" not in config.lower() and "127.0.0.1" in config
    # git really sent it, as a header: the server refuses clones without it
    assert all(s.authorization == "Basic " + basic.decode() for s in fake_github.log if s.path.startswith("/git/"))


def test_source_strings():
    assert parse_github_source("org/repo") == ("org", "repo", "https://api.github.com")
    assert parse_github_source("https://github.com/org/repo.git") == ("org", "repo", "https://api.github.com")
    ghe = parse_github_source("https://ghe.example.com/org/repo", "https://ghe.example.com/api/v3/")
    assert ghe == ("org", "repo", "https://ghe.example.com/api/v3")
    with pytest.raises(InputError, match="--github-url https://ghe.example.com/api/v3"):
        parse_github_source("https://ghe.example.com/org/repo")
    with pytest.raises(InputError, match="neither an existing clone nor a GitHub repository"):
        parse_github_source("https://github.com/org")


def test_bad_api_answers_and_urls_are_one_line_errors(fake_github, tmp_path):
    fake_github.faults.append(Fault("^/repos/org/calc$", 200, {}, {"unexpected": True}))
    with pytest.raises(GitHubError, match="did not answer like the GitHub REST API; check --github-url"):
        _open(fake_github, tmp_path / "c")
    for url in ("http://", "http://127.0.0.1:99999/api/v3", "ftp://x/api", "http://u:SECRET@127.0.0.1/api/v3"):
        with pytest.raises(InputError) as info:
            open_source("org/calc", github_url=url, cache_dir=tmp_path / "c")
        assert "SECRET" not in str(info.value) and "--github-url" in str(info.value)


def test_long_retry_after_is_refused_by_max_wait(fake_github, tmp_path):
    fake_github.faults.append(Fault("^/repos/org/calc$", 403, {"Retry-After": "60"},
                                    {"message": "You have exceeded a secondary rate limit."}))
    started = time.monotonic()
    with pytest.raises(RateLimited, match="asked to wait 60 s, more than --max-rate-wait"):
        open_source("org/calc", github_url=fake_github.url, cache_dir=tmp_path / "c", max_wait=5)
    assert time.monotonic() - started < 5


def test_a_broken_cache_or_clone_is_rebuilt(fake_github, tmp_path):
    cache = tmp_path / "cache"
    first = _open(fake_github, cache)
    sqlite = next((cache / "http").glob("*.sqlite"))
    sqlite.write_bytes(b"garbage")
    for pack in Path(first.repo.path, "objects", "pack").glob("*"):
        pack.unlink()
    again = _open(fake_github, cache)
    assert [p.number for p in _list(again)] == [5, 4, 3, 2, 1]
    assert sqlite.with_suffix(".corrupt").read_bytes() == b"garbage"


def test_unreadable_issue_falls_back_and_duplicate_prs_collapse(fake_github, tmp_path):
    fake_github.faults.append(Fault("/issues/7$", 410, {}, {"message": "Issues are disabled for this repo"}))
    source = _open(fake_github, tmp_path / "cache")
    prs = _list(source, numbers=(1, 1))
    assert [p.number for p in prs] == [1]
    assert source.problem_statement(prs[0]).title == "Raise ValueError when dividing by zero"
