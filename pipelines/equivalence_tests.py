"""equivalence_tests: re-implement one function of the repository, graded by differential tests (Python).

Stages: discover functions at the commit (``repo2env.eqv.discover``) -> reproducible selection by seed ->
per function: task image at the commit -> cases and strength gate in a container (``repo2env.eqv.generation``:
stub fails, reference passes K times, enough mutants killed, the delegating stub fails) -> bundle (Harbor 1.0,
binary reward). The core runs the oracle/nop controls and publishes.

Pipeline options (``--pipeline-opt KEY=VALUE``): ``reference`` (``visible``, the default as in seed 004: the
original stays in the repository; ``hidden``: its body is removed from the image and the reference ships only in
``tests/``), ``seed`` (default 0), ``min_kill_rate`` (default 0.6), ``min_cases`` (default 10),
``min_lines``/``max_lines`` (function body size, default 3/40).
"""

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

from repo2env import SPEC_VERSION, env_guard, gitrepo, images, templates
from repo2env.bundle import BundleStage
from repo2env.environment import build_task_image
from repo2env.eqv import harness, task_module
from repo2env.eqv.discover import FunctionCandidate, discover, select
from repo2env.eqv.generation import GateResult, run_gate
from repo2env.errors import InputError
from repo2env.hashing import content_hash
from repo2env.layout13 import SplitLayout
from repo2env.leak_audit import AuditContext, audit, remove_findings, rules_fired
from repo2env.metadata import (EquivalenceTable, Evaluation, LeakAuditRecord, Repo2EnvMetadata, RewardCalibration,
                               difficulty_bucket)
from repo2env.models import RepoRef
from repo2env.outcomes import EvaluationStatus, SkipReason
from repo2env.runtime import record_python_env
from repo2env.pipeline import BuildContext, Draft, GenerateOptions, Plan, Skip, reject_pr_filters
from repo2env.sources import open_source
from repo2env.task_toml import render_task_toml

_OPTS = {"reference", "seed", "min_kill_rate", "min_cases", "min_lines", "max_lines"}
VERIFIER_TIMEOUT_SEC = 300.0
AGENT_TIMEOUT_SEC = 1800.0


def parse_options(opts: dict[str, str]) -> dict:
    """Validated pipeline options with defaults. Raises ``InputError``."""
    unknown = set(opts) - _OPTS
    if unknown:
        raise InputError(f"--pipeline-opt {sorted(unknown)[0]}: equivalence_tests knows {', '.join(sorted(_OPTS))}")
    out = {"reference": opts.get("reference", "visible")}
    if out["reference"] not in ("visible", "hidden"):
        raise InputError(f"--pipeline-opt reference={out['reference']}: expected visible or hidden")
    for key, default, kind in (("seed", "0", int), ("min_kill_rate", "0.6", float), ("min_cases", "10", int),
                               ("min_lines", "3", int), ("max_lines", "40", int)):
        try:
            out[key] = kind(opts.get(key, default))
        except ValueError:
            raise InputError(f"--pipeline-opt {key}={opts[key]}: expected a {kind.__name__}") from None
    if not 0 <= out["min_kill_rate"] <= 1:
        raise InputError(f"--pipeline-opt min_kill_rate={out['min_kill_rate']}: expected a share between 0 and 1")
    return out


class EquivalenceTestsPipeline:
    """The equivalence_tests pipeline plugin (see ``repo2env.pipeline.Pipeline``)."""

    name = "equivalence_tests"
    version = "0.1.0"
    formats = ("harbor-1.0", "harbor-1.3")

    def __init__(self) -> None:
        self._opts = parse_options({})
        self._commit = ""

    def plan(self, source: str, options: GenerateOptions) -> Plan:
        """Candidate functions at the tip of ``--branch`` (default HEAD), in seeded order, at most ``--limit``."""
        self._opts = parse_options(options.pipeline_opts)
        reject_pr_filters(options, self.name)
        if options.numbers or options.since or options.until:
            raise InputError("--pr/--since/--until: equivalence_tests mines functions at one commit; use --branch")
        repo = open_source(source, branch=options.branch, github_url=options.github_url,
                           cache_dir=options.cache_dir, max_wait=options.github_max_wait).repo
        rev = options.branch or "HEAD"
        try:
            self._commit = gitrepo.run_git(repo.path, "rev-parse", "--verify", f"{rev}^{{commit}}").decode().strip()
        except Exception:
            raise InputError(f"{repo.path}: no branch or revision {rev!r}; pass an existing branch") from None
        found = discover(repo.path, self._commit, min_lines=self._opts["min_lines"], max_lines=self._opts["max_lines"])
        return Plan(repo=repo, candidates=select(found, self._opts["seed"], options.limit),
                    empty_hint="no public module-level function of the package passes the size, signature and "
                               "purity rules; see repo2env/eqv/discover.py")

    def candidate_key(self, candidate: FunctionCandidate) -> str:
        return f"fn:{candidate.key}"

    def task_id(self, repo: RepoRef, candidate: FunctionCandidate) -> str:
        digest = hashlib.sha256(f"{self._commit}:{candidate.key}:{self._opts['reference']}".encode()).hexdigest()
        return f"{repo.task_prefix}-eqv-{digest[:8]}"

    def build(self, repo: RepoRef, fn: FunctionCandidate, ctx: BuildContext) -> Draft | Skip:
        image = build_task_image(ctx, repo, self._commit)
        if isinstance(image, Skip):
            return image
        ctx.report("cases and strength gate")
        gate = run_gate(ctx.client, image.image_ref, repo.path, self._commit, fn, seed=self._opts["seed"])
        reason = self._gate_reason(gate)
        if reason is not None:
            return Skip(reason[0], reason[1])
        stage = BundleStage(ctx.options.out, self.task_id(repo, fn))
        try:
            return self._stage(stage, repo, fn, image, gate, ctx)
        except BaseException:
            stage.discard()
            raise

    def _gate_reason(self, gate: GateResult) -> tuple[SkipReason, str] | None:
        if not gate.deterministic:
            return SkipReason.NONDETERMINISTIC, "two runs of the reference disagreed"
        if gate.cases < self._opts["min_cases"]:
            return SkipReason.TOO_FEW_CASES, f"{gate.cases} comparable cases"
        if not gate.stub_fails:
            return SkipReason.STUB_PASSES, None
        if not gate.delegate_fails:
            return SkipReason.DELEGATION_PASSES, None
        if not all(gate.reference_passes):
            return SkipReason.REFERENCE_FAILS, f"runs: {gate.reference_passes}"
        if gate.kill_rate < self._opts["min_kill_rate"]:
            return SkipReason.WEAK_TESTS, f"kill rate {gate.kill_rate} ({gate.mutants_killed}/{gate.mutants_total})"
        return None

    def _stage(self, stage: BundleStage, repo: RepoRef, fn: FunctionCandidate, image, gate: GateResult,
               ctx: BuildContext) -> Draft:
        hidden = self._opts["reference"] == "hidden"
        task_id = self.task_id(repo, fn)
        start = {"task_module.py": task_module.stub(fn)}
        if hidden:
            start[fn.path] = task_module.strip_from_module(gitrepo.show_file(repo.path, self._commit, fn.path), fn)
        for rel, text in start.items():
            stage.write_text(f"environment/start/{rel}", text)
        stage.write_text("environment/Dockerfile", templates.render(
            "eqv_environment.Dockerfile", image_ref=image.image_ref, base_commit=self._commit,
            parent_flag="" if hidden else f"-p {self._commit}"))
        stage.write_text("environment/scrub_history.sh", templates.read("scrub_history.sh"), executable=True)
        stage.write_text("environment/docker-compose.yaml", templates.read("docker-compose.yaml"))
        stage.write_text("solution/task_module.py", task_module.reference_copy(fn))
        stage.write_text("solution/solve.sh", templates.read("eqv_solve.sh"), executable=True)
        stage.write_text("tests/test.sh", templates.render("test.sh", grader="eqv_harness.py"), executable=True)
        stage.write_bytes("tests/eqv_harness.py", Path(harness.__file__).read_bytes())
        stage.write_bytes("tests/env_guard.py", Path(env_guard.__file__).read_bytes())
        stage.write_text("tests/test_equivalence.py", templates.read("test_equivalence.py"))
        stage.write_text("tests/cases.json", gate.cases_json)
        stage.write_text("tests/reference.py", task_module.reference_copy(fn))
        stage.write_text("tests/eqv_config.json", json.dumps(
            {"workspace": "/workspace", "module": fn.module, "function": fn.name}, indent=1) + "\n")
        visibility = ("The original implementation was removed from the repository; its docstring, its callers "
                      "and its tests describe what it does." if hidden else
                      f"It must behave exactly like `{fn.module}.{fn.name}` in this repository.")
        docstring = f"\nIts docstring:\n\n```\n{fn.docstring}\n```\n" if fn.docstring else ""
        instruction = templates.render("eqv_instruction.md", function=fn.name, signature=fn.signature,
                                       visibility=visibility, module=fn.module, docstring=docstring)
        # The same audit as every pipeline: the body (not the signature or docstring, shown on purpose) must not
        # be in the instruction.
        doc_lines = {line.strip() for line in fn.docstring.splitlines() if line.strip()}
        body = [line for line in fn.source.splitlines()[1:]
                if line.strip() and not any(d in line for d in doc_lines)]
        findings = audit(instruction, AuditContext(gold_added_lines=body, web_url=repo.web_url))
        if findings:
            instruction = remove_findings(instruction, findings)
        leak = LeakAuditRecord(source="deterministic", rules_fired=rules_fired(findings),
                               action="spans_removed" if findings else "none")
        stage.write_text("instruction.md", instruction.rstrip("\n") + "\n")
        lines = fn.end_lineno - fn.lineno + 1
        difficulty = difficulty_bucket(lines, 1)
        meta = Repo2EnvMetadata(
            pipeline=self.name, pipeline_version=self.version, repo=repo.slug, ref=self._commit,
            reference=f"{repo.web_url}/blob/{self._commit}/{fn.path}#L{fn.lineno}-L{fn.end_lineno}"
            if repo.web_url else None,
            built_at=datetime.now(UTC).replace(microsecond=0), reward_kinds=["test_execution"],
            spec_version=SPEC_VERSION, content_hash=content_hash(stage.root),
            reward_calibration=RewardCalibration(changed_lines=lines, difficulty=difficulty), leak_audit=leak,
            reproducibility=image.reproducibility(),
            evaluation=Evaluation(status=EvaluationStatus.UNVERIFIED, stage="generation",
                                  reason_codes=["validation_not_run"]),
            equivalence_tests=EquivalenceTable(
                function=fn.name, module=fn.module, source_path=fn.path, lines=[fn.lineno, fn.end_lineno],
                arg_names=list(fn.arg_names), test_file="tests/test_equivalence.py", input_strategy=gate.sources,
                cases=gate.cases, raising_cases=gate.raising_cases, mutants_total=gate.mutants_total,
                mutants_killed=gate.mutants_killed, mutant_kill_rate=gate.kill_rate,
                reference_mode=self._opts["reference"], seed=self._opts["seed"]))
        stage.write_text("task.toml", render_task_toml(
            task_id=task_id, description=f"Implement {fn.name} ({fn.module})", keywords=[repo.slug.split("/")[-1],
                                                                                         self.name],
            difficulty=difficulty, meta=meta, agent_timeout_sec=AGENT_TIMEOUT_SEC,
            verifier_timeout_sec=VERIFIER_TIMEOUT_SEC, build_timeout_sec=600.0, category="reimplementation"))
        layout = SplitLayout(
            repo_path=repo.path, commit=self._commit, image_ref=image.image_ref,
            learner={rel: text.encode() for rel, text in start.items()},
            verifier={rel: text.encode() for rel, text in start.items()}, artifacts=["task_module.py"],
            reference={"task_module.py": task_module.reference_copy(fn).encode()},
            test_selectors=["/tests/test_equivalence.py"],
            must_pass=[f"/tests/test_equivalence.py::test_same_outcome_as_the_reference[{i}]"
                       for i in range(len(json.loads(gate.cases_json)["cases"]))])
        env_image = images.environment_image(ctx.client, stage.root / "environment", task_id)
        record_python_env(ctx, env_image, stage)
        return Draft(task_id=task_id, stage=stage, verifier_timeout_sec=VERIFIER_TIMEOUT_SEC, split_layout=layout)
