"""commit_runtime: plain commits whose own tests decide (FAIL_TO_PASS must pass, PASS_TO_PASS stay green).

Stages: walk a branch's commits (local clone or GitHub clone) -> message filters -> split the commit's diff ->
change filters -> problem statement (linked issue or the commit message) -> runtime task (the machinery
pr_runtime uses, unchanged). The core runs the oracle/nop controls and publishes.

Pipeline options (``--pipeline-opt KEY=VALUE``): ``exclude_authors`` (comma-separated substrings of
``Name <email>``; replaces the default bot list), ``include_types`` (conventional types to keep, e.g.
``refactor,perf``), ``min_subject_chars`` (default 12), ``all_parents`` (``true``: walk every commit, not only
first parents).
"""

from dataclasses import replace
from itertools import islice

from repo2env.pipeline import (
    BuildContext,
    CommitCandidate,
    CommitFilterConfig,
    CommitRuntimeTests,
    Draft,
    GenerateOptions,
    InputError,
    Plan,
    RepoRef,
    RuntimeSpec,
    Skip,
    build_runtime_task,
    category_of,
    change_skip_reason,
    flag,
    list_commits,
    message_skip_reason,
    open_repo,
    open_source,
    parse_pipeline_opts,
    reject_pr_filters,
    some_of,
    split_at,
    strip_type,
    whole_number,
    words,
)

COMMIT_TYPES = ("feat", "fix", "docs", "chore", "ci", "style", "test", "tests", "build", "refactor", "perf", "revert")
OPTIONS = {"exclude_authors": (words, None, "substrings of 'Name <email>' that mark a bot's commits (default: "
                               "[bot], dependabot, renovate, pre-commit-ci, ...)"),
           "include_types": (some_of(*COMMIT_TYPES), None, "conventional-commit types kept although they are not "
                             "fixes, e.g. refactor,perf"),
           "min_subject_chars": (whole_number, None, "word characters a subject needs (default 12)"),
           "all_parents": (flag, False, "walk every parent, not only the first-parent history")}


def filter_config(opts: dict[str, str]) -> tuple[CommitFilterConfig, bool]:
    """The filter configuration and the all-parents flag from ``--pipeline-opt`` values (``InputError`` if bad)."""
    parsed = parse_pipeline_opts(opts, "commit_runtime", OPTIONS)
    kw = {k: v for k, v in parsed.items() if k != "all_parents" and v is not None}
    if "include_types" in kw:
        kw["include_types"] = tuple(t.lower() for t in kw["include_types"])
    return replace(CommitFilterConfig(), **kw), parsed["all_parents"]


class CommitRuntimePipeline:
    """Plain commits that fix something as runtime tasks, for repositories that commit fixes directly.

    The commit_runtime pipeline plugin (see ``repo2env.pipeline.Pipeline``)."""

    name = "commit_runtime"
    version = "0.1.0"
    options = OPTIONS
    formats = ("harbor-1.0", "harbor-1.3")

    def __init__(self) -> None:
        self._source = None
        self._filters = CommitFilterConfig()

    def plan(self, source: str, options: GenerateOptions) -> Plan:
        """Commits of ``--branch`` (a branch, or a range ``A..B``; default HEAD / the default branch), newest
        first, within --since/--until; ``--limit`` caps the candidates examined."""
        if options.numbers:
            raise InputError("--pr: commit_runtime mines plain commits; use --branch A..B or --since/--until")
        reject_pr_filters(options, self.name)
        self._filters, all_parents = filter_config(options.pipeline_opts)
        rev = options.branch
        branch = None if rev is None or ".." in rev else rev
        self._source = open_source(source, branch=branch, github_url=options.github_url,
                                   cache_dir=options.cache_dir, max_wait=options.github_max_wait)
        repo = self._source.repo
        commits = list_commits(open_repo(repo.path), repo, rev=rev, since=options.since, until=options.until,
                               first_parent=not all_parents)
        return Plan(repo=repo, candidates=list(islice(commits, options.limit)),
                    empty_hint="no commits with a parent in that range and date window; check --since and --until")

    def candidate_key(self, candidate: CommitCandidate) -> str:
        return f"commit:{candidate.sha[:12]}"

    def task_id(self, repo: RepoRef, candidate: CommitCandidate) -> str:
        return f"{repo.task_prefix}-{candidate.sha[:12]}"

    def screen(self, repo: RepoRef, commit: CommitCandidate, options: GenerateOptions) -> Skip | None:
        """The cheap filters (no Docker): the message's (merge, revert, release, type, author) and the change's
        (docs/CI only, no test change, too many source files)."""
        reason = message_skip_reason(commit, self._filters)
        if reason is None:
            split = split_at(repo, commit.parent_sha, commit.sha)
            reason = change_skip_reason(commit, split, max_source_files=options.max_source_files)
        return Skip(reason) if reason is not None else None

    def build(self, repo: RepoRef, commit: CommitCandidate, ctx: BuildContext) -> Draft | Skip:
        ctx.report("split and filter")
        skip = self.screen(repo, commit, ctx.options)
        if skip is not None:
            return skip
        split = split_at(repo, commit.parent_sha, commit.sha)
        ctx.report("problem statement")
        issue = self._source.linked_issues(f"{commit.subject}\n\n{commit.body}")
        title, body = (issue.title, issue.body) if issue else (strip_type(commit.subject), commit.body)
        spec = RuntimeSpec(
            task_id=self.task_id(repo, commit), pipeline=self.name, pipeline_version=self.version, repo=repo,
            base_commit=commit.parent_sha, head_commit=commit.sha, title=title, body=body,
            reference=commit.reference, split=split, tests_table=CommitRuntimeTests,
            category=category_of(commit.subject, commit.body),
            table_fields={"commit_sha": commit.sha, "parent_sha": commit.parent_sha,
                          "authored_at": commit.authored_at, "subject": commit.subject,
                          "issue_numbers": list(issue.issue_numbers) if issue else []})
        return build_runtime_task(spec, ctx)

    def stats(self) -> str | None:
        return self._source.stats() if self._source else None
