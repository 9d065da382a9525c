"""equivalence_tests: re-implement one function of the repository, graded by differential tests (Python).

Stages: discover functions at the commit (``repo2env.tasks.eqv.discover``) -> reproducible selection by seed ->
per function: task image at the commit -> cases and strength gate in a container (``repo2env.tasks.eqv.generation``:
stub fails, reference passes K times, enough mutants killed, the delegating stub fails) -> bundle (Harbor 1.0,
binary reward; ``repo2env.tasks.eqv.bundle``). The core runs the oracle/nop controls and publishes.

Pipeline options (``--pipeline-opt KEY=VALUE``): ``reference`` (``visible``, the default as in seed 004: the
original stays in the repository; ``hidden``: its body is removed from the image and the reference ships only in
``tests/``), ``seed`` (default 0), ``min_kill_rate`` (default 0.6), ``min_cases`` (default 10),
``min_lines``/``max_lines`` (function body size, default 3/40).
"""

import hashlib

from repo2env.pipeline import (
    GATE_BOXES,
    BuildContext,
    Draft,
    FunctionCandidate,
    GenerateOptions,
    InputError,
    Plan,
    RepoRef,
    Skip,
    build_eqv_task,
    choice,
    discover_functions,
    integer,
    open_source,
    parse_pipeline_opts,
    reject_pr_filters,
    resolve_commit,
    select_functions,
    share,
)

OPTIONS = {"reference": (choice("visible", "hidden"), "visible", "whether the agent sees the reference function"),
           "seed": (integer, 0, "seed of the generated cases and mutants"),
           "min_kill_rate": (share, 0.6, "share of mutants the generated cases must kill"),
           "min_cases": (integer, 10, "generated cases a task needs"),
           "min_lines": (integer, 3, "shortest function body, in lines"),
           "max_lines": (integer, 40, "longest function body, in lines")}


class EquivalenceTestsPipeline:
    """Functions of a revision as equivalence tasks: rewrite a function so that generated cases behave the same.

    The equivalence_tests pipeline plugin (see ``repo2env.pipeline.Pipeline``)."""

    name = "equivalence_tests"
    options = OPTIONS
    version = "0.1.0"
    formats = ("harbor-1.0", "harbor-1.3")

    def __init__(self) -> None:
        self._opts = parse_pipeline_opts({}, self.name, OPTIONS)
        self._commit = ""

    def plan(self, source: str, options: GenerateOptions) -> Plan:
        """Candidate functions at the tip of ``--branch`` (default HEAD), in seeded order, at most ``--limit``."""
        self._opts = parse_pipeline_opts(options.pipeline_opts, self.name, OPTIONS)
        reject_pr_filters(options, self.name)
        if options.numbers or options.since or options.until:
            raise InputError("--pr/--since/--until: equivalence_tests mines functions at one commit; use --branch")
        repo = open_source(source, branch=options.branch, github_url=options.github_url,
                           cache_dir=options.cache_dir, max_wait=options.github_max_wait).repo
        self._commit = resolve_commit(repo, options.branch or "HEAD")
        found = discover_functions(repo.path, self._commit, min_lines=self._opts["min_lines"],
                                   max_lines=self._opts["max_lines"])
        return Plan(repo=repo, candidates=select_functions(found, self._opts["seed"], options.limit),
                    empty_hint="no public module-level function of the package passes the size, signature and "
                               "purity rules; see repo2env/tasks/eqv/discover.py")

    def candidate_key(self, candidate: FunctionCandidate) -> str:
        return f"fn:{candidate.key}"

    def task_id(self, repo: RepoRef, candidate: FunctionCandidate) -> str:
        digest = hashlib.sha256(f"{self._commit}:{candidate.key}:{self._opts['reference']}".encode()).hexdigest()
        return f"{repo.task_prefix}-eqv-{digest[:8]}"

    def build(self, repo: RepoRef, fn: FunctionCandidate, ctx: BuildContext) -> Draft | Skip:
        return build_eqv_task(ctx, repo, self._commit, fn, task_id=self.task_id(repo, fn), pipeline=self.name,
                              version=self.version, opts=self._opts)

    def close(self) -> None:
        """The gate's container of this revision is removed (``GATE_BOXES``)."""
        GATE_BOXES.close()
