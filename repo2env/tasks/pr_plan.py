"""Planning merged pull requests, for every pipeline whose candidates are PRs (pr_runtime, pr_diff)."""

from collections import Counter

from repo2env.core.options import GenerateOptions
from repo2env.core.records import Plan, PullRequest, RepoRef
from repo2env.sources import LocalSource, RepoSource, open_source

EMPTY_HINT = ("a local clone's commits count as PRs when they are 'Merge pull request #N from …' merges or subjects "
              "ending in '(#N)' on the first-parent history; check --branch, --since and --until")
GITHUB_EMPTY_HINT = ("no merged pull request into that branch within --since/--until passed the listing filters (see "
                     "'PRs left out'); check --branch, --label and --include-bots/--include-drafts")


class PullRequestPipeline:
    """Base for pipelines whose candidates are merged PRs: ledger keys ``pr#N``, task ids ``owner__name-N`` (as
    SWE-bench spells instance ids), and the source's usage line. A number that two PRs of the history share (a
    renamed or forked repository whose history holds both ``Merge pull request #250`` and ``... (#250)``) makes
    both ``pr#N@<sha12>`` and ``owner__name-N-<sha8>`` (the merge commit's), so that neither candidate's outcome
    touches the other's bundle. Subclasses plan with ``self.plan_prs``."""

    _source: RepoSource | None = None
    _reused: frozenset = frozenset()

    def plan_prs(self, source: str, options: GenerateOptions) -> Plan:
        """``plan_pull_requests``, keeping the source (for problem statements) and the reused numbers."""
        self._source, plan, self._reused = plan_pull_requests(source, options)
        return plan

    def candidate_key(self, candidate: PullRequest) -> str:
        if candidate.number in self._reused:
            return f"pr#{candidate.number}@{candidate.head_commit[:12]}"
        return f"pr#{candidate.number}"

    def task_id(self, repo: RepoRef, candidate: PullRequest) -> str:
        if candidate.number in self._reused:
            return f"{repo.task_prefix}-{candidate.number}-{candidate.head_commit[:8]}"
        return f"{repo.task_prefix}-{candidate.number}"

    def stats(self) -> str | None:
        return self._source.stats() if self._source else None


def plan_pull_requests(source: str, options: GenerateOptions) -> tuple[RepoSource, Plan, frozenset]:
    """Open ``source`` (a clone's path, ``file://`` URL, ``org/repo`` or GitHub URL) and list its merged PRs,
    newest first, at most ``options.limit``. Returns the source (for problem statements), the plan, and the PR
    numbers that more than one PR of the whole branch history carries (GitHub numbers PRs uniquely; a local
    history can repeat them: the whole history is read, so the ids do not depend on --limit or dates)."""
    repo_source = open_source(source, branch=options.branch, github_url=options.github_url,
                              cache_dir=options.cache_dir, max_wait=options.github_max_wait)
    prs = repo_source.pull_requests(since=options.since, until=options.until, numbers=options.numbers,
                                    limit=options.limit, filters=options.pr_filters)
    reused: frozenset = frozenset()
    if isinstance(repo_source, LocalSource):
        counts = Counter(pr.number for pr in repo_source.pull_requests())
        reused = frozenset(n for n, c in counts.items() if c > 1)
    hint = EMPTY_HINT if isinstance(repo_source, LocalSource) else GITHUB_EMPTY_HINT
    return repo_source, Plan(repo=repo_source.repo, candidates=prs, empty_hint=hint), reused
