"""``repo2rlenv validate``: conformance of any Harbor task directory, ours or not, and optionally its controls.

Static checks (``static_report``):

- ``toml``: ``task.toml`` parses (TOML 1.0).
- ``layout``: ``version = "1.0"`` (Harbor task layout 1.0) or ``schema_version = "1.3"`` or ``"1.4"``;
  ``instruction.md`` is not empty; ``tests/test.sh`` exists and is executable; ``environment/`` has a Dockerfile or compose file
  (a text-only pr_diff bundle gets a warning instead: it is not runnable in Harbor). Schema 1.3/1.4 with a separate
  verifier: artifacts are declared (warning); ours also carry ``contract.json`` and snapshots without ``.git``.
- ``harbor``: when the ``harbor`` package imports, Harbor's own ``TaskConfig`` accepts ``task.toml``.
- ``schema``: ``[metadata.repo2env]``, when present, satisfies ``specs/metadata.schema.json``.
- ``hash``: a recorded ``bundle_hash`` equals the bundle's hash now, and a verified label's
  ``subject_bundle_hash`` equals it too (a byte or a mode bit changed after generation fails here). Symlinks and
  special files are refused.

``--run`` (``run_report``) builds the environment (and a separate verifier's image) and runs the oracle (must score 1.0) and the nop (must score
0.0, or a graded task's ``reward_calibration.baseline_reward``) with the docker SDK, like Harbor's trial, and
labels the task (``stage = "validation"``) with evidence bound to its bundle hash.
"""

import json
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import jsonschema

from repo2env.bundles.find import find_tasks
from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.layout13 import CONTRACT
from repo2env.checks.separate_verifier import artifact_sources, verifier_mode
from repo2env.core import concurrency
from repo2env.core.concurrency import default_workers
from repo2env.core.errors import InputError
from repo2env.core.metadata import json_schema

LEVELS = ("error", "warning")


@dataclass
class Finding:
    """One check result that is not a pass: ``level`` error or warning, the ``check`` name and a message."""

    level: str
    check: str
    message: str


@dataclass
class TaskReport:
    """What validate found for one task directory. ``ok`` is False when any error was found."""

    path: str
    layout: str | None = None
    bundle_hash: str | None = None
    recorded_hash: str | None = None
    findings: list[Finding] = field(default_factory=list)
    controls: dict | None = None
    probes: list | None = None
    status: str | None = None
    text_only: bool = False

    @property
    def ok(self) -> bool:
        return not any(f.level == "error" for f in self.findings)

    def error(self, check: str, message: str) -> None:
        self.findings.append(Finding("error", check, message))

    def warn(self, check: str, message: str) -> None:
        self.findings.append(Finding("warning", check, message))

    def as_dict(self) -> dict:
        data = asdict(self)
        data["ok"] = self.ok
        return data


def _harbor_check(config: dict, report: TaskReport) -> None:
    try:
        from harbor.models.task.config import TaskConfig  # noqa: PLC0415 - optional
    except ImportError:
        return
    try:
        TaskConfig.model_validate(config)
    except Exception as exc:  # pydantic's ValidationError, or anything Harbor raises
        report.error("harbor", f"Harbor's TaskConfig refuses task.toml: {str(exc).splitlines()[0][:300]}")


def _layout(task: Path, config: dict, report: TaskReport) -> None:
    if config.get("version") == "1.0":
        report.layout = "1.0"
    elif str(config.get("schema_version")) in ("1.3", "1.4"):
        report.layout = str(config["schema_version"])
    else:
        report.error("layout", 'task.toml has neither version = "1.0" nor schema_version = "1.3" or "1.4"')
    instruction = task / "instruction.md"
    if not instruction.is_file() or not instruction.read_text(encoding="utf-8", errors="replace").strip():
        report.error("layout", "instruction.md is missing or empty")
    pr_diff = config.get("metadata", {}).get("repo2env", {}).get("pr_diff") or {}
    report.text_only = pr_diff.get("emit_harbor_env") is False
    env = task / "environment"
    has_env = (env / "Dockerfile").is_file() or (env / "docker-compose.yaml").is_file()
    if report.text_only:
        report.warn("layout", "text-only bundle: no environment/ or tests/, not runnable in Harbor")
        return
    if not has_env:
        report.error("layout", "environment/ has no Dockerfile or docker-compose.yaml")
    test_sh = task / "tests" / "test.sh"
    if not test_sh.is_file():
        report.error("layout", "tests/test.sh is missing")
    elif not test_sh.stat().st_mode & 0o111:
        report.error("layout", "tests/test.sh is not executable")
    if report.layout in ("1.3", "1.4"):
        _layout_13(task, config, report)


def _layout_13(task: Path, config: dict, report: TaskReport) -> None:
    artifacts = artifact_sources(config)
    if verifier_mode(config) == "separate" and not artifacts:
        report.warn("layout", "separate verifier but no artifacts: the verifier sees nothing the agent did")
    r2e = config.get("metadata", {}).get("repo2env")
    if r2e is None:
        return
    if report.layout == "1.4" and not (config.get("task") or {}).get("version"):
        report.warn("layout", "schema 1.4 without [task].version: ours carry <pipeline version>+<files hash> "
                              "(bundles/layout13.py); run `repo2rlenv restamp` after adding it")
    for rel in ("environment/source/.git", "tests/source/.git"):
        if (task / rel).exists():
            report.error("layout", f"{rel} exists: a 1.3 snapshot carries no git history")
    for rel in ("environment/source", "tests/source", "tests/Dockerfile", "solution/solve.sh"):
        if not (task / rel).exists():
            report.error("layout", f"{rel} is missing (layout 1.3, specs/bundle-spec.md)")
    try:
        contract = json.loads((task / CONTRACT).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        report.error("layout", f"{CONTRACT} is missing or not JSON ({exc.__class__.__name__}); it names the files "
                               "the agent may submit and the tests that must pass")
        return
    if sorted(contract.get("submit") or []) != sorted(artifacts):
        report.error("layout", f"{CONTRACT} submit differs from task.toml's artifacts")
    workspace = (contract.get("workspace") or "/workspace").rstrip("/") + "/"
    reference = task / "solution" / "reference"
    deleted = set((task / "solution" / "deleted.txt").read_text().split()) \
        if (task / "solution" / "deleted.txt").is_file() else set()
    for source in artifacts:
        rel = source[len(workspace):] if source.startswith(workspace) else None
        if rel is None or ".." in rel.split("/"):
            report.error("layout", f"artifact {source} is outside {workspace}")
        elif not (reference / rel).is_file() and rel not in deleted:
            report.error("layout", f"artifact {source} has no reference version in solution/reference/")
    table = r2e.get(r2e.get("pipeline", ""), {}) if isinstance(r2e.get(r2e.get("pipeline", "")), dict) else {}
    for rel in sorted(set(table.get("test_files") or [])):
        if (task / "environment" / "source" / rel).exists():
            report.error("layout", f"environment/source/{rel} exists: the hidden test files must not be in the "
                                   "learner's snapshot")
    for rel in sorted({t.split("::", 1)[0] for t in table.get("fail_to_pass") or []}):
        if not (task / "tests" / "source" / rel).is_file():
            report.error("layout", f"tests/source/{rel} is missing: the verifier's copy lacks a grading test file")


def _schema(config: dict, report: TaskReport) -> None:
    r2e = config.get("metadata", {}).get("repo2env")
    if r2e is None:
        return
    data = json.loads(json.dumps(r2e, default=lambda v: v.isoformat() if hasattr(v, "isoformat") else str(v)))
    validator = jsonschema.Draft202012Validator(json_schema(), format_checker=None)
    for err in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))[:5]:
        where = ".".join(str(p) for p in err.absolute_path) or "(top)"
        report.error("schema", f"[metadata.repo2env] {where}: {err.message[:200]}")


def _hash(task: Path, config: dict, report: TaskReport) -> None:
    try:
        report.bundle_hash = bundle_hash(task)
    except InputError as exc:
        report.error("hash", str(exc))
        return
    r2e = config.get("metadata", {}).get("repo2env", {})
    report.recorded_hash = r2e.get("bundle_hash")
    if report.recorded_hash and report.recorded_hash != report.bundle_hash:
        report.error("hash", f"the bundle changed after it was hashed (recorded {report.recorded_hash[:19]}…, "
                             f"now {report.bundle_hash[:19]}…); after a deliberate edit run `repo2rlenv restamp "
                             f"{task}`")
    evaluation = r2e.get("evaluation") or {}
    report.status = evaluation.get("status")
    subject = evaluation.get("subject_bundle_hash")
    if report.status == "verified" and subject != report.bundle_hash:
        report.error("hash", "the 'verified' label was measured on another bundle (subject_bundle_hash differs)")


def static_report(task: Path) -> TaskReport:
    """Every static check on one task directory."""
    report = TaskReport(path=str(task))
    try:
        config = tomllib.loads((task / "task.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        report.error("toml", f"task.toml does not parse: {exc}")
        return report
    _layout(task, config, report)
    _harbor_check(config, report)
    _schema(config, report)
    _hash(task, config, report)
    return report


def validate_static(root: Path) -> list[TaskReport]:
    """Static reports for every task at or below ``root``."""
    return [static_report(task) for task in find_tasks(root)]


def run_report(client, report: TaskReport, *, label: Path | None, probes: bool = False,
               workers: int = 1) -> TaskReport:
    """Run the controls of one statically valid task; write the label into ``label`` (a task directory: the
    original for --in-place, a copy for --out) when given. ``workers``: its container runs side by side
    (``core.concurrency``)."""
    from repo2env.bundles.task_toml import set_labels
    from repo2env.checks.controls import evaluation_from, failure_detail, run_controls  # Docker only with --run

    task = Path(report.path)
    config = tomllib.loads((task / "task.toml").read_text(encoding="utf-8"))
    r2e = config.get("metadata", {}).get("repo2env", {})
    expected_nop = float((r2e.get("reward_calibration") or {}).get("baseline_reward") or 0.0)
    timeout = float((config.get("verifier") or {}).get("timeout_sec") or 600)
    results = run_controls(client, task, task.name, verifier_timeout_sec=timeout, expected_nop=expected_nop,
                           workers=workers)
    evaluation, reason = evaluation_from(results, report.bundle_hash, stage="validation")
    report.controls = {r.name: {"reward": r.reward, "expected": r.expected, "error": r.error} for r in results}
    if reason is not None:
        report.error("controls", f"{reason.value}: {failure_detail(results)}")
    elif probes:
        from repo2env.checks.probes import with_probes

        evaluation, probe_reason, probe_detail = with_probes(
            client, task, task.name, evaluation, verifier_timeout_sec=timeout, baseline=expected_nop, workers=workers,
            nop_outcome=next(r.outcome for r in results if r.name == "nop"))
        report.probes = [p.model_dump() for p in evaluation.probes or []]
        if probe_reason is not None:
            report.error("probes", f"{probe_reason}: the task can be scored without solving it ({probe_detail})")
    report.status = evaluation.status.value
    if label is not None:
        set_labels(label, bundle_hash=report.bundle_hash, evaluation=evaluation)
    return report


def check_out(out: Path, reports: list[TaskReport]) -> None:
    """``--out`` must not be, or hold, a task being validated: copying a task onto itself would delete it.
    Raises ``InputError``."""
    target = out.resolve()
    for report in reports:
        task = Path(report.path).resolve()
        if target / task.name == task or task in target.parents or target == task:
            raise InputError(f"--out {out}: it holds the task {task.name} being validated; choose another folder")


def validate_run(client, reports: list[TaskReport], *, jobs: int, out: Path | None, in_place: bool,
                 probes: bool = False) -> None:
    """Run the controls of every report without static errors, ``jobs`` at a time; label copies in ``out`` or
    the tasks themselves (``in_place``), or nothing. A task whose controls cannot run at all (its image does not
    build) is reported and labelled ``failed_controls`` with reason ``control_error``; the others go on."""
    import shutil

    from repo2env.core.errors import R2EError

    if out is not None:
        check_out(out, reports)

    def one(report: TaskReport) -> TaskReport:
        task = Path(report.path)
        label = None
        if out is not None:
            label = out / task.name
            staged = out / f".{task.name}.copy"
            shutil.rmtree(staged, ignore_errors=True)
            shutil.copytree(task, staged, symlinks=True)
            if label.exists():
                shutil.rmtree(label)
            staged.rename(label)
        elif in_place:
            label = task
        try:
            return run_report(client, report, label=label, probes=probes, workers=default_workers(jobs))
        except R2EError as exc:
            return _control_error(report, label, str(exc))

    runnable = [r for r in reports if r.ok and r.layout is not None and not r.text_only]
    with concurrency.pool(max(1, jobs), "r2e-validate") as pool:
        list(pool.map(one, runnable))


def _control_error(report: TaskReport, label: Path | None, message: str) -> TaskReport:
    from repo2env.bundles.task_toml import set_labels
    from repo2env.core.metadata import Evaluation
    from repo2env.core.outcomes import EvaluationStatus, SkipReason

    report.status = EvaluationStatus.FAILED_CONTROLS.value
    report.error("controls", f"{SkipReason.CONTROL_ERROR.value}: {message[:300]}")
    if label is not None:
        set_labels(label, bundle_hash=report.bundle_hash, evaluation=Evaluation(
            status=EvaluationStatus.FAILED_CONTROLS, stage="validation",
            reason_codes=[SkipReason.CONTROL_ERROR.value], subject_bundle_hash=report.bundle_hash))
    return report
