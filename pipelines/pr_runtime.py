"""pr_runtime: merged pull requests whose own tests decide (FAIL_TO_PASS must pass, PASS_TO_PASS stay green).

Stages: list merged PRs (local clone or GitHub) -> split the diff by the language's test-file rule -> static
filters -> problem statement (linked issue or the PR's text) -> runtime task (``repo2env.tasks.runtime``: image,
K runs, selection, bundle). The core runs the oracle/nop controls and publishes.
"""

from repo2env.pipeline import (
    BuildContext,
    Draft,
    GenerateOptions,
    Plan,
    PrRuntimeTests,
    PullRequest,
    PullRequestPipeline,
    RepoRef,
    RuntimeSpec,
    Skip,
    SkipReason,
    build_runtime_task,
    category_of,
    is_bot_author,
    parse_pipeline_opts,
    split_at,
    static_skip_reason,
)


class PrRuntimePipeline(PullRequestPipeline):
    """Merged pull requests as runtime tasks: the agent fixes the code, the PR's own tests grade it (FAIL_TO_PASS, PASS_TO_PASS).

    The pr_runtime pipeline plugin (see ``repo2env.pipeline.Pipeline``)."""

    name = "pr_runtime"
    version = "0.2.0"
    options: dict = {}
    formats = ("harbor-1.0", "harbor-1.3")

    def __init__(self) -> None:
        self._source = None

    def plan(self, source: str, options: GenerateOptions) -> Plan:
        """Merged PRs of ``source`` (a clone's path, ``file://`` URL, ``org/repo`` or GitHub URL), newest first,
        at most ``options.limit``."""
        parse_pipeline_opts(options.pipeline_opts, self.name, {})
        return self.plan_prs(source, options)

    def screen(self, repo: RepoRef, pr: PullRequest, options: GenerateOptions) -> Skip | None:
        """The cheap filters (no Docker): a bot's PR (unless ``--include-bots``: a local clone's merge commits
        carry no account type, its author is matched as commit_runtime's is), revert or release titles,
        docs/CI-only changes, no test change, too many source files."""
        if not options.pr_filters.include_bots and is_bot_author(pr.author):
            return Skip(SkipReason.BOT_AUTHOR, pr.author)
        split = split_at(repo, pr.base_commit, pr.head_commit)
        reason = static_skip_reason(pr.title, split, max_source_files=options.max_source_files)
        return Skip(reason) if reason is not None else None

    def build(self, repo: RepoRef, pr: PullRequest, ctx: BuildContext) -> Draft | Skip:
        ctx.report("split and filter")
        skip = self.screen(repo, pr, ctx.options)
        if skip is not None:
            return skip
        split = split_at(repo, pr.base_commit, pr.head_commit)
        ctx.report("problem statement")
        text = self._source.problem_statement(pr)
        spec = RuntimeSpec(
            task_id=self.task_id(repo, pr), pipeline=self.name, pipeline_version=self.version,
            repo=repo, base_commit=pr.base_commit, head_commit=pr.head_commit, title=text.title, body=text.body,
            reference=pr.reference or f"{repo.slug}#{pr.number}", split=split, tests_table=PrRuntimeTests,
            category=category_of(pr.title, pr.body),
            table_fields={"pr_number": pr.number, "issue_numbers": list(text.issue_numbers),
                          "merged_at": pr.merged_at, "merge_commit": pr.merge_commit or pr.head_commit})
        return build_runtime_task(spec, ctx)
