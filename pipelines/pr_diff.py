"""pr_diff: merged pull requests scored by how close the agent's change comes to the merged diff (no test run).

Stages: list merged PRs (local clone or GitHub) -> split the diff -> static filters -> problem statement
(linked issue or the PR's text, leak-audited) -> reward calibration in-process (oracle 1.0, baseline for an
empty change) -> bundle: Harbor 1.0 with the environment at the base commit, or text-only
(``repo2env.tasks.diff``). The core runs the controls (Docker: the oracle must score 1.0 and the nop exactly the
baseline) and publishes.

Pipeline options (``--pipeline-opt KEY=VALUE``): ``emit_harbor_env`` (``true``/``false``; false writes
task.toml, instruction.md and solution/ only), ``weights`` (``name:weight,...`` over the components of
``repo2env.graders.diff_verifier``), ``min_changed_lines`` (non-test lines; default 2, as a one-line change makes an
all-or-nothing similarity).
"""

from repo2env.pipeline import (
    DEFAULT_DIFF_WEIGHTS,
    BuildContext,
    DiffSettings,
    Draft,
    GenerateOptions,
    Plan,
    PullRequest,
    PullRequestPipeline,
    RepoRef,
    Skip,
    build_diff_task,
    flag,
    parse_diff_weights,
    parse_pipeline_opts,
    screen_diff_task,
    whole_number,
)

OPTIONS = {"emit_harbor_env": (flag, True, "false writes text-only tasks (task.toml, instruction.md, solution/)"),
           "weights": (parse_diff_weights, DEFAULT_DIFF_WEIGHTS, "reward components' weights, e.g. "
                       "sequence:0.5,file_f1:0.3,judge:0.2"),
           "min_changed_lines": (whole_number, 2, "non-test changed lines a change needs")}


class PrDiffPipeline(PullRequestPipeline):
    """Merged pull requests as diff tasks: the agent's patch is scored against the gold patch, no tests run.

    The pr_diff pipeline plugin (see ``repo2env.pipeline.Pipeline``)."""

    name = "pr_diff"
    version = "0.1.0"
    options = OPTIONS

    def __init__(self) -> None:
        self._source = None
        self._settings = DiffSettings()

    def plan(self, source: str, options: GenerateOptions) -> Plan:
        """Merged PRs of ``source``, newest first, at most ``options.limit``."""
        opts = parse_pipeline_opts(options.pipeline_opts, self.name, OPTIONS)
        self._settings = DiffSettings(emit_env=opts["emit_harbor_env"], weights=dict(opts["weights"]),
                                      min_lines=opts["min_changed_lines"])
        return self.plan_prs(source, options)

    def screen(self, repo: RepoRef, pr: PullRequest, options: GenerateOptions) -> Skip | None:
        """The cheap filters (no Docker): revert or release titles, docs/CI-only changes, too many files, too
        few changed lines."""
        return screen_diff_task(repo, pr, options, self._settings)

    def build(self, repo: RepoRef, pr: PullRequest, ctx: BuildContext) -> Draft | Skip:
        return build_diff_task(ctx, repo, pr, self._source, task_id=self.task_id(repo, pr), pipeline=self.name,
                               version=self.version, settings=self._settings)
