"""Where pull requests come from: a local clone's history (``local``) or GitHub through PyGithub (``github``).

``open_source`` picks one from the CLI source string: an existing path or ``file://`` URL is a local clone;
``org/repo`` or a GitHub URL is GitHub. Both give ``PullRequest`` records with the same meaning, so the pipelines
do not care which one they got. GitHub modules (and PyGithub) are imported only when GitHub is the source.
"""

import logging
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from pathlib import Path
from typing import Protocol

from repo2env.core import gitrepo
from repo2env.core.errors import InputError
from repo2env.core.options import PrFilters
from repo2env.core.records import PullRequest, RepoRef
from repo2env.sources.local import list_pull_requests

log = logging.getLogger("repo2env.sources")


@dataclass
class ProblemStatement:
    """The text an instruction is made from, and the issue numbers it came from (empty: the PR's own text)."""

    title: str
    body: str
    issue_numbers: tuple[int, ...] = ()


class RepoSource(Protocol):
    """A repository (``repo.path`` is a clone) with merged pull requests and, where the host has them, issues."""

    repo: RepoRef

    def pull_requests(self, *, since: datetime | None, until: datetime | None, numbers: tuple[int, ...],
                      limit: int | None, filters: PrFilters) -> list[PullRequest]:
        """Merged PRs, newest merge first, within [since, until] (UTC), at most ``limit``; ``numbers`` picks PRs
        (a missing or unmerged one raises ``InputError``)."""

    def problem_statement(self, pr: PullRequest) -> ProblemStatement:
        """The text a PR's instruction is made from: the issues it closes, else its own title and body."""

    def linked_issues(self, text: str) -> ProblemStatement | None:
        """The issues ``text`` closes ("Fixes #12") as a problem statement, or None (none, or no issue host)."""

    def stats(self) -> str | None: ...


class LocalSource:
    """A local clone: PRs from its first-parent history (``sources.local``); the text is the PR's own."""

    def __init__(self, path: Path, branch: str | None = None):
        self.git = gitrepo.open_repo(path)
        self.repo = gitrepo.repo_ref(self.git, path)
        self.branch = branch

    def __getstate__(self) -> dict:
        """Picklable (a build unit sent to a Ray worker): the open repository handle is left out and reopened."""
        return {"repo": self.repo, "branch": self.branch}

    def __setstate__(self, state: dict) -> None:
        self.repo, self.branch = state["repo"], state["branch"]
        self.git = gitrepo.open_repo(Path(self.repo.path))

    def pull_requests(self, *, since=None, until=None, numbers=(), limit=None, filters=PrFilters()):
        if filters.needs_api:
            raise InputError("--label/--exclude-label need a GitHub source (org/repo); a local clone has no labels")
        prs = list_pull_requests(self.git, self.repo, branch=self.branch, since=since, until=until, numbers=numbers)
        return list(islice(prs, limit))

    def problem_statement(self, pr: PullRequest) -> ProblemStatement:
        return ProblemStatement(pr.title, pr.body)

    def linked_issues(self, text: str) -> ProblemStatement | None:
        return None  # a local clone has no issue tracker

    def stats(self) -> str | None:
        return None


def is_local(source: str) -> bool:
    """True when ``source`` names a local clone: a ``file://`` URL, a path that exists, or one that looks like a
    path (including ``dir/name`` when ``dir`` exists here: a typo of a path, not a GitHub name)."""
    if not source.strip():
        raise InputError("the source is empty; pass a clone's path or org/repo")
    if source.startswith("file://") or Path(source).expanduser().exists():
        return True
    if source.startswith(("git@", "ssh://", "github.com/")):
        return False
    from repo2env.sources.github_spec import looks_like_github

    if looks_like_github(source) and not source.startswith(("https://", "http://")):
        return Path(source.split("/", 1)[0]).is_dir()
    return not looks_like_github(source)


def open_source(source: str, *, branch: str | None = None, github_url: str | None = None,
                   cache_dir: Path | None = None, max_wait: float = 3600.0) -> RepoSource:
    """The PR source ``source`` names. Local: ``InputError`` when it is not a clone. GitHub (PyGithub imported
    only then): the repository is looked up and its branch cloned or fetched into ``cache_dir``; errors are one
    line (``InputError``, ``RateLimited``, ``GitHubError``, ``GitError``)."""
    if is_local(source):
        if github_url:
            raise InputError(f"--github-url {github_url}: {source} is a local clone; drop --github-url or pass org/repo")
        return LocalSource(gitrepo.source_path(source), branch)
    from repo2env.sources.clone_cache import default_cache_dir
    from repo2env.sources.github import GitHubSource
    from repo2env.sources.github_spec import parse_github_source

    return GitHubSource(parse_github_source(source, github_url), cache_dir=cache_dir or default_cache_dir(),
                        branch=branch, max_wait=max_wait, report=log.info)
