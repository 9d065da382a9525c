"""Planning merged pull requests, for every pipeline whose candidates are PRs (pr_runtime, pr_diff)."""

from repo2env.core.options import GenerateOptions
from repo2env.core.records import Plan, PullRequest, RepoRef
from repo2env.sources import LocalSource, RepoSource, open_source

EMPTY_HINT = ("a local clone's commits count as PRs when they are 'Merge pull request #N from …' merges or subjects "
              "ending in '(#N)' on the first-parent history; check --branch, --since and --until")
GITHUB_EMPTY_HINT = ("no merged pull request into that branch within --since/--until passed the listing filters (see "
                     "'PRs left out'); check --branch, --label and --include-bots/--include-drafts")


class PullRequestPipeline:
    """Base for pipelines whose candidates are merged PRs: ledger keys ``pr#N``, task ids ``owner__name-N``, and
    the source's usage line. Subclasses set ``self._source`` in ``plan`` (with ``plan_pull_requests``)."""

    _source: RepoSource | None = None

    def candidate_key(self, candidate: PullRequest) -> str:
        return f"pr#{candidate.number}"

    def task_id(self, repo: RepoRef, candidate: PullRequest) -> str:
        return f"{repo.task_prefix}-{candidate.number}"

    def stats(self) -> str | None:
        return self._source.stats() if self._source else None


def plan_pull_requests(source: str, options: GenerateOptions) -> tuple[RepoSource, Plan]:
    """Open ``source`` (a clone's path, ``file://`` URL, ``org/repo`` or GitHub URL) and list its merged PRs,
    newest first, at most ``options.limit``. Returns the source (for problem statements) and the plan."""
    repo_source = open_source(source, branch=options.branch, github_url=options.github_url,
                              cache_dir=options.cache_dir, max_wait=options.github_max_wait)
    prs = repo_source.pull_requests(since=options.since, until=options.until, numbers=options.numbers,
                                    limit=options.limit, filters=options.pr_filters)
    hint = EMPTY_HINT if isinstance(repo_source, LocalSource) else GITHUB_EMPTY_HINT
    return repo_source, Plan(repo=repo_source.repo, candidates=prs, empty_hint=hint)
