"""Equivalence tasks as bundles: the gate's verdict (``gate_reason``) and the staged bundle (``build_eqv_task``):
``task_module.py`` stub in the image, the reference in ``solution/`` and ``tests/``, cases from the gate, the
harness and environment guard beside them, the instruction leak-audited against the function's body."""

import json

from repo2env import graders, languages
from repo2env.bundles.layout13 import SplitLayout
from repo2env.bundles.stage import BundleStage
from repo2env.core import gitrepo, templates
from repo2env.core.metadata import EquivalenceTable, LeakAuditRecord, RewardCalibration, difficulty_bucket
from repo2env.core.options import BuildContext
from repo2env.core.outcomes import SkipReason
from repo2env.core.records import Draft, RepoRef, Skip
from repo2env.environment import egress, images
from repo2env.environment.ladder import first_image
from repo2env.instructions.leak_audit import AuditContext, audit, remove_findings, rules_fired
from repo2env.tasks.common import DEFAULT_PYTHON_PATH, grader_budget, write_task, write_test_sh
from repo2env.tasks.eqv import task_module
from repo2env.tasks.eqv.discover import FunctionCandidate
from repo2env.tasks.eqv.generation import GateResult, run_gate

VERIFIER_TIMEOUT_SEC = 300.0


def build_eqv_task(ctx: BuildContext, repo: RepoRef, commit: str, fn: FunctionCandidate, *, task_id: str,
                   pipeline: str, version: str, opts: dict) -> Draft | Skip:
    """One function as an equivalence task at ``commit``, or the reason it is skipped (a failed gate or image
    build). ``opts``: the pipeline's parsed options (``reference``, ``seed``, ``min_cases``, ``min_kill_rate``).
    Engine errors raise."""
    found = first_image(ctx, languages.load("python"), repo, commit)
    if isinstance(found, Skip):
        return found
    image, search = found
    ctx.report("cases and strength gate")
    gate = run_gate(ctx.client, image.image_ref, repo.path, commit, fn, seed=opts["seed"])
    reason = gate_reason(gate, opts)
    if reason is not None:
        return Skip(reason[0], reason[1])
    stage = BundleStage(ctx.options.out, task_id)
    try:
        return _stage(stage, repo, commit, fn, image, gate, ctx, task_id=task_id, pipeline=pipeline,
                      version=version, opts=opts, attempts=search.records())
    except BaseException:
        stage.discard()
        raise


def gate_reason(gate: GateResult, opts: dict) -> tuple[SkipReason, str | None] | None:
    """Why a gated function does not become a task (reason, detail), or None when it passed every gate."""
    if not gate.deterministic:
        return SkipReason.NONDETERMINISTIC, "two runs of the reference disagreed on the same inputs: %s" % (
            gate.disagreement or "(no case recorded)")
    if gate.cases < opts["min_cases"]:
        return SkipReason.TOO_FEW_CASES, f"{gate.cases} comparable cases"
    if not gate.stub_fails:
        return SkipReason.STUB_PASSES, None
    if not gate.delegate_fails:
        return SkipReason.DELEGATION_PASSES, None
    if not all(gate.reference_passes):
        return SkipReason.REFERENCE_FAILS, f"runs: {gate.reference_passes}"
    if gate.kill_rate < opts["min_kill_rate"]:
        return SkipReason.WEAK_TESTS, f"kill rate {gate.kill_rate} ({gate.mutants_killed}/{gate.mutants_total})"
    return None


def _stage(stage: BundleStage, repo: RepoRef, commit: str, fn: FunctionCandidate, image, gate: GateResult,
           ctx: BuildContext, *, task_id: str, pipeline: str, version: str, opts: dict,
           attempts: list[dict] | None = None) -> Draft:
    hidden = opts["reference"] == "hidden"
    start = {"task_module.py": task_module.stub(fn)}
    if hidden:
        start[fn.path] = task_module.strip_from_module(gitrepo.show_file(repo.path, commit, fn.path), fn)
    for rel, text in start.items():
        stage.write_text(f"environment/start/{rel}", text)
    stage.write_text("environment/Dockerfile", templates.render(
        "eqv_environment.Dockerfile", image_ref=image.image_ref, base_commit=commit,
        parent_flag="" if hidden else f"-p {commit}"))
    stage.write_text("environment/scrub_history.sh", templates.read("scrub_history.sh"), executable=True)
    egress.stage_compose(stage, languages.load("python"))
    stage.write_text("solution/task_module.py", task_module.reference_copy(fn))
    stage.write_text("solution/solve.sh", templates.read("eqv_solve.sh"), executable=True)
    stage.write_bytes("tests/eqv_harness.py", graders.source("eqv_harness"))
    stage.write_bytes("tests/env_guard.py", graders.source("env_guard"))
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
    env_image = images.environment_image(ctx.client, stage.root / "environment", task_id)
    recorded = languages.load("python").record_env_manifest(ctx.client, env_image, stage, ctx.report)
    write_test_sh(stage, "eqv_harness.py", budget=grader_budget(VERIFIER_TIMEOUT_SEC),
                  python=recorded["executable"] if recorded else DEFAULT_PYTHON_PATH)
    write_task(
        stage, task_id=task_id, pipeline=pipeline, pipeline_version=version, repo=repo, ref=commit,
        reference=f"{repo.web_url}/blob/{commit}/{fn.path}#L{fn.lineno}-L{fn.end_lineno}" if repo.web_url else None,
        leak_audit=leak, reward_kinds=["test_execution"], description=f"Implement {fn.name} ({fn.module})",
        difficulty=difficulty, category="reimplementation", verifier_timeout_sec=VERIFIER_TIMEOUT_SEC,
        build_timeout_sec=600.0, reward_calibration=RewardCalibration(changed_lines=lines, difficulty=difficulty),
        reproducibility=image.reproducibility(attempts),
        table=EquivalenceTable(
            function=fn.name, module=fn.module, source_path=fn.path, lines=[fn.lineno, fn.end_lineno],
            arg_names=list(fn.arg_names), test_file="tests/test_equivalence.py", input_strategy=gate.sources,
            cases=gate.cases, raising_cases=gate.raising_cases, mutants_total=gate.mutants_total,
            mutants_killed=gate.mutants_killed, mutant_kill_rate=gate.kill_rate,
            reference_mode=opts["reference"], seed=opts["seed"]).model_dump())
    layout = SplitLayout(
        repo_path=repo.path, commit=commit, image_ref=image.image_ref,
        learner={rel: text.encode() for rel, text in start.items()},
        verifier={rel: text.encode() for rel, text in start.items()}, artifacts=["task_module.py"],
        reference={"task_module.py": task_module.reference_copy(fn).encode()},
        test_selectors=["/tests/test_equivalence.py"],
        must_pass=[f"/tests/test_equivalence.py::test_same_outcome_as_the_reference[{i}]"
                   for i in range(len(json.loads(gate.cases_json)["cases"]))])
    return Draft(task_id=task_id, stage=stage, verifier_timeout_sec=VERIFIER_TIMEOUT_SEC, split_layout=layout)
