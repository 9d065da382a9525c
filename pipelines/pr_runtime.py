"""pr_runtime: merged pull requests whose own tests decide (FAIL_TO_PASS must pass, PASS_TO_PASS stay green).

Stages: list merged PRs -> split the PR diff -> static filters -> runtime task (environment, K test runs,
F2P/P2P, bundle). The core runs the oracle/nop controls and publishes.
"""

import re

from repo2env import gitrepo
from repo2env.errors import InputError
from repo2env.filters import static_skip_reason
from repo2env.models import PullRequest, RepoRef
from repo2env.patches import split_change
from repo2env.pipeline import BuildContext, Draft, GenerateOptions, Plan, Skip
from repo2env.runtime import RuntimeSpec, build_runtime_task
from repo2env.sources.local import list_pull_requests

_GITHUB_SLUG = re.compile(r"^(https?://github\.com/)?[\w.-]+/[\w.-]+/?$")


class PrRuntimePipeline:
    """The pr_runtime pipeline plugin (see ``repo2env.pipeline.Pipeline``)."""

    name = "pr_runtime"
    version = "0.1.0"

    def plan(self, source: str, options: GenerateOptions) -> Plan:
        """Merged PRs of a local clone (path or ``file://`` URL), newest first, at most ``options.limit``."""
        try:
            path = gitrepo.source_path(source)
        except InputError:
            if _GITHUB_SLUG.match(source):
                raise InputError(f"{source}: GitHub sources are not supported yet; clone the repository "
                                 "and pass the clone's path") from None
            raise
        repo = gitrepo.open_repo(path)
        ref = gitrepo.repo_ref(repo, path)
        prs = list(list_pull_requests(repo, ref, branch=options.branch, since=options.since,
                                      until=options.until, numbers=options.numbers))
        if options.limit is not None:
            prs = prs[: options.limit]
        return Plan(repo=ref, candidates=prs)

    def candidate_key(self, candidate: PullRequest) -> str:
        return f"pr#{candidate.number}"

    def task_id(self, repo: RepoRef, candidate: PullRequest) -> str:
        return f"{repo.task_prefix}-{candidate.number}"

    def build(self, repo: RepoRef, pr: PullRequest, ctx: BuildContext) -> Draft | Skip:
        ctx.report("split and filter")
        split = split_change(repo.path, pr.base_commit, pr.head_commit)
        reason = static_skip_reason(pr.title, split, max_source_files=ctx.options.max_source_files)
        if reason is not None:
            return Skip(reason)
        spec = RuntimeSpec(
            task_id=self.task_id(repo, pr), pipeline=self.name, pipeline_version=self.version,
            repo=repo, base_commit=pr.base_commit, head_commit=pr.head_commit, title=pr.title, body=pr.body,
            reference=pr.reference, split=split, pr_number=pr.number)
        return build_runtime_task(spec, ctx)
