"""Merged pull requests of a GitHub repository, listed with PyGithub; their code comes from a cached local clone.

Listing: ``GET /repos/{owner}/{name}/pulls?state=closed&sort=updated&direction=desc&base=<branch>``, paged to the
end of the history if need be. A PR's merge date is never later than its last update, so the walk stops as soon
as ``updated_at`` drops below ``--since`` or below the merge date of the ``--limit``-th newest PR already found.
Closed-unmerged PRs, drafts and bot authors (``type == "Bot"`` or a ``[bot]`` login) are left out unless asked.
Everything a PR record needs is in the list response, so no per-PR request is made.

Problem statement: the issues the PR body closes ("Fixes #12"), fetched lazily when a candidate survives the
static filters; without one, the PR's own title and body (as SWE-bench does).
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse

import github
import requests

from repo2env.core import gitrepo
from repo2env.core.errors import GitError, InputError
from repo2env.core.options import PrFilters
from repo2env.core.records import PullRequest, RepoRef
from repo2env.sources import ProblemStatement, clone_cache
from repo2env.sources.closing_refs import closing_refs
from repo2env.sources.github_api import (
    GitHubApi,
    GitHubError,
    RateLimited,
    WaitTooLong,
    connect,
    find_token,
    translate,
    web_host,
)
from repo2env.sources.github_spec import GitHubSpec

log = logging.getLogger("repo2env.github")

API_ERRORS = (github.GithubException, requests.exceptions.RequestException, WaitTooLong)
# What PyGithub raises when a server answers 200 with something that is not GitHub's JSON (an HTML page, ...)
SHAPE_ERRORS = (TypeError, AttributeError, KeyError, ValueError)


def _not_github(slug: str, api_url: str) -> GitHubError:
    return GitHubError(f"{slug}: {api_url} did not answer like the GitHub REST API; check --github-url (a GitHub "
                       "Enterprise API root ends in /api/v3)")


def _same_server(clone_url: str, api_url: str) -> bool:
    """Whether git may get the API token for ``clone_url``: same host and port as the API (github.com for
    api.github.com), over https, or http on the loopback interface."""
    clone, api = urlparse(clone_url), urlparse(api_url)
    api_netloc = "github.com" if api.netloc == "api.github.com" else api.netloc
    secure = clone.scheme == "https" or clone.hostname in ("127.0.0.1", "localhost", "::1")
    return secure and clone.netloc == api_netloc


@dataclass
class ListingCounts:
    """What the listing left out, by cause (for the summary)."""

    not_merged: int = 0
    drafts: int = 0
    bots: int = 0
    labels: int = 0
    other_base: int = 0
    extra: dict[str, int] = field(default_factory=dict)


def _is_bot(user) -> bool:
    if user is None:
        return False
    return user.type == "Bot" or user.login.endswith("[bot]")


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class GitHubSource:
    """A GitHub repository: its API record, a bare clone of its branch, its merged PRs and their linked issues.

    Raises ``InputError`` (bad token, no such repository, unknown branch), ``RateLimited`` and ``GitHubError`` with
    one-line messages; ``GitError`` when cloning fails.
    """

    def __init__(self, spec: GitHubSpec, *, cache_dir: Path, branch: str | None = None,
                 max_wait: float = 3600.0, report: Callable[[str], None] = lambda m: None):
        self.spec = spec
        self.api: GitHubApi = connect(spec.api_url, cache_dir=cache_dir / "http", token=find_token(web_host(spec.api_url)),
                                      max_wait=max_wait)
        self.counts = ListingCounts()
        try:
            self.gh_repo = self.api.client.get_repo(spec.slug)
            self.branch = branch or self.gh_repo.default_branch
            full_name, clone_url, html_url = self.gh_repo.full_name, self.gh_repo.clone_url, self.gh_repo.html_url
        except API_ERRORS as exc:
            raise translate(exc, spec.slug, self.api) from None
        except SHAPE_ERRORS:
            raise _not_github(spec.slug, spec.api_url) from None
        if not isinstance(clone_url, str) or not isinstance(full_name, str) or "/" not in full_name:
            raise _not_github(spec.slug, spec.api_url)
        self.clone_url = clone_url
        git_token = self.api.token if _same_server(clone_url, spec.api_url) else None
        if self.api.token and git_token is None:
            log.warning("not sending the token to %s (another server than the API's)", urlparse(clone_url).netloc)
        self.git_token = git_token
        dest = clone_cache.clone_path(cache_dir, urlparse(spec.api_url).netloc, *full_name.split("/", 1))
        try:
            clone_cache.update_clone(clone_url, dest, self.branch, token=git_token, report=report)
        except GitError as exc:
            if "couldn't find remote ref" in str(exc) or "invalid refspec" in str(exc):
                raise InputError(f"--branch {self.branch}: no such branch in {full_name}; pass an existing "
                                 "branch (an empty repository has none)") from None
            if "could not read Username" in str(exc) or "Authentication failed" in str(exc):
                raise InputError(f"{full_name}: git could not read the repository with this token; it needs "
                                 "read access to the repository contents") from None
            raise
        self.repo = RepoRef(slug=full_name, path=str(dest), web_url=html_url)

    # -- listing -------------------------------------------------------------------------------------------

    def pull_requests(self, *, since: datetime | None = None, until: datetime | None = None,
                      numbers: tuple[int, ...] = (), limit: int | None = None,
                      filters: PrFilters = PrFilters()) -> list[PullRequest]:
        """Merged PRs into the branch, newest merge first, within [since, until], at most ``limit``.
        ``numbers`` picks those PRs (each must be merged into the branch and within the dates, else
        ``InputError``)."""
        numbers = tuple(dict.fromkeys(numbers))
        want = limit
        while True:
            try:
                raw = self._by_number(numbers, since, until) if numbers else self._walk(since, until, want, filters)
            except API_ERRORS as exc:
                raise translate(exc, f"{self.spec.slug} pull requests", self.api) from None
            except SHAPE_ERRORS:
                raise _not_github(self.spec.slug, self.spec.api_url) from None
            raw.sort(key=lambda p: _utc(p.merged_at), reverse=True)
            resolved = self._resolve_commits(raw[:want] if want is not None else raw)
            # a PR whose merge commit is not on the branch is dropped: walk further (cached pages cost no quota)
            if numbers or want is None or len(resolved) >= limit or len(raw) < want:
                break
            want *= 2
        if numbers:
            missing = sorted(set(numbers) - {p.number for p in resolved})
            if missing:
                raise InputError(f"--pr {missing[0]}: the merge commit of #{missing[0]} is not on {self.branch} of "
                                 f"{self.spec.slug}; pass --branch with the branch it was merged into")
        return resolved[:limit] if limit is not None else resolved

    def _by_number(self, numbers: tuple[int, ...], since, until) -> list:
        found = []
        for number in numbers:
            try:
                pr = self.gh_repo.get_pull(number)
            except github.UnknownObjectException:
                raise InputError(f"--pr {number}: {self.spec.slug} has no pull request #{number}") from None
            if pr.merged_at is None:
                raise InputError(f"--pr {number}: pull request #{number} of {self.spec.slug} was not merged")
            merged = _utc(pr.merged_at)
            if (since and merged < since) or (until and merged > until):
                raise InputError(f"--pr {number}: #{number} was merged {merged:%Y-%m-%d}, outside --since/--until")
            found.append(pr)
        return found

    def _walk(self, since, until, limit, filters: PrFilters) -> list:
        self.counts = ListingCounts()
        found = []
        pulls = self.gh_repo.get_pulls(state="closed", sort="updated", direction="desc", base=self.branch)
        for pr in pulls:
            updated = _utc(pr.updated_at)
            if since and updated < since:
                break  # merged_at <= updated_at: nothing further down can be in range
            if limit is not None and len(found) >= limit:
                newest = sorted((_utc(p.merged_at) for p in found), reverse=True)
                if updated < newest[limit - 1]:
                    break  # nothing further down can displace the newest `limit`
            if self._keep(pr, since, until, filters):
                found.append(pr)
        return found

    def _keep(self, pr, since, until, filters: PrFilters) -> bool:
        counts = self.counts
        if pr.merged_at is None:
            counts.not_merged += 1
            return False
        merged = _utc(pr.merged_at)
        if (since and merged < since) or (until and merged > until):
            return False
        if pr.draft and not filters.include_drafts:
            counts.drafts += 1
            return False
        if _is_bot(pr.user) and not filters.include_bots:
            counts.bots += 1
            return False
        names = {label.name for label in pr.labels}
        if not set(filters.labels) <= names or names & set(filters.exclude_labels):
            counts.labels += 1
            return False
        return True

    def _resolve_commits(self, raw: list) -> list[PullRequest]:
        path = Path(self.repo.path)
        missing_heads = [pr.number for pr in raw if not clone_cache.has_commit(path, pr.head.sha)]
        clone_cache.fetch_pull_heads(self.clone_url, path, missing_heads, token=self.git_token)
        out = []
        for pr in raw:
            merge = pr.merge_commit_sha
            if not merge or not clone_cache.has_commit(path, merge):
                self.counts.extra["merge_commit_missing"] = self.counts.extra.get("merge_commit_missing", 0) + 1
                continue
            parents = gitrepo.run_git(path, "rev-list", "--parents", "-n", "1", merge).decode().split()[1:]
            if not parents:
                continue  # a root commit has no base
            base, head = parents[0], merge
            if clone_cache.has_commit(path, pr.head.sha):
                head = pr.head.sha
                base = gitrepo.run_git(path, "merge-base", parents[0], head).decode().strip()
            out.append(PullRequest(
                number=pr.number, title=pr.title or "", body=pr.body or "",
                author=pr.user.login if pr.user else "ghost", merged_at=_utc(pr.merged_at),
                base_commit=base, head_commit=head, merge_commit=merge,
                shape="merge" if len(parents) == 2 else "squash", reference=pr.html_url))
        return out

    # -- problem statement ---------------------------------------------------------------------------------

    def problem_statement(self, pr: PullRequest) -> ProblemStatement:
        """The issues the PR body closes, or the PR's own title and body when it closes none that can be read."""
        return self.linked_issues(pr.body) or ProblemStatement(pr.title, pr.body)

    def linked_issues(self, text: str) -> ProblemStatement | None:
        """The issues ``text`` closes: the first issue's title, its body, later issues as sections of the body.
        None when it closes none that can be read (missing issues and pull requests are passed over)."""
        owner, name = self.repo.slug.split("/", 1)
        issues = []
        for ref in closing_refs(text, owner, name):
            same = (ref.owner.lower(), ref.name.lower()) == (owner.lower(), name.lower())
            try:
                repo = self.gh_repo if same else self.api.client.get_repo(f"{ref.owner}/{ref.name}", lazy=True)
                issue = repo.get_issue(ref.number)
                if issue.pull_request is not None:
                    continue  # "fixes #N" naming another PR, not an issue
                issues.append((ref.number if same else None, issue.title or "", issue.body or ""))
            except API_ERRORS as exc:
                error = translate(exc, f"{self.spec.slug} issue {ref.owner}/{ref.name}#{ref.number}", self.api)
                if isinstance(error, RateLimited):
                    raise error from None
                # deleted (404/410), issues disabled, private elsewhere: the PR's own text is used instead
                log.warning("%s; using the PR's own text", error)
                continue
            except SHAPE_ERRORS:
                continue
        if not issues:
            return None
        title = issues[0][1]
        parts = [issues[0][2]] + [f"## {t}\n\n{b}" for _, t, b in issues[1:]]
        numbers = tuple(n for n, _, _ in issues if n is not None)
        return ProblemStatement(title, "\n\n".join(p for p in parts if p.strip()), numbers)

    def stats(self) -> str:
        """The API usage line for the summary, with what the listing left out."""
        c = self.counts
        left = {"unmerged": c.not_merged, "drafts": c.drafts, "bots": c.bots, "by label": c.labels, **c.extra}
        shown = ", ".join(f"{n} {k}" for k, n in left.items() if n)
        return self.api.stats.describe() + (f"; PRs left out: {shown}" if shown else "")
