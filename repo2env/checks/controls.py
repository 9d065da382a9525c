"""Oracle and nop controls: run a bundle the way Harbor runs a trial, through the docker SDK.

Build ``environment/``; start a container with the compose file's ``extra_hosts`` (the egress guard) and
``init``; for the oracle upload ``solution/`` to ``/solution`` and run ``solve.sh``, for the nop do nothing; then
upload ``tests/`` to ``/tests``, run ``test.sh`` and read ``/logs/verifier/reward.txt`` (Harbor's reward file).
"""

import json
from datetime import UTC, datetime
from pathlib import Path

import docker
import docker.errors

from repo2env.bundles.task_toml import agent_user, read_task_toml
from repo2env.checks.separate_verifier import SeparateTrial, verifier_mode
from repo2env.core import artefacts, concurrency, timings
from repo2env.core.limits import MEMORY_MB
from repo2env.core.metadata import Evaluation
from repo2env.core.outcomes import EvaluationStatus, SkipReason
from repo2env.core.records import ControlResult
from repo2env.environment.containers import TaskContainer
from repo2env.environment.images import run_image
from repo2env.environment.egress import bundle_hosts

CONTROLS = ("oracle", "nop")


def task_caps(bundle: Path) -> dict:
    """``{"memory_mb", "cpus"}`` from the task's ``[environment]`` (Harbor's fields; defaults when absent)."""
    env = read_task_toml(bundle).get("environment", {})
    return {"memory_mb": int(env.get("memory_mb") or MEMORY_MB), "cpus": float(env["cpus"]) if env.get("cpus")
            else None}


def shared_container(client: docker.DockerClient, bundle: Path, image: str, folders: dict | None = None,
                     warm: bool = False) -> TaskContainer:
    """The agent's container of a task graded in it (layout 1.0), as Harbor starts it: ``image``, the compose
    file's egress guard, the task's caps, and ``folders`` (``TaskContainer``'s) put in place before it starts;
    ``warm``: started ahead (``TaskContainer``'s; a control or probe, one of several in a row). Not started: use
    it as a context manager."""
    return TaskContainer(client, image, extra_hosts=bundle_hosts(bundle), folders=folders, warm=warm,
                         **task_caps(bundle))


def grade_files(box: TaskContainer, bundle: Path, verifier_timeout_sec: float
                ) -> tuple[dict[str, bytes], str, float]:
    """Grade in the agent's own container ``box`` as Harbor's shared verifier does: upload ``tests/`` to
    ``/tests``, run ``test.sh`` (as root), read what it wrote in ``/logs/verifier``. Returns (``{file name:
    bytes}`` of that folder: ``reward.txt``, ``reward-details.json``, ...; the transcript; the seconds test.sh
    ran). Raises ``docker.errors.DockerException``."""
    box.put_dir(bundle / "tests", "/tests", make=("/logs/verifier",))
    _, transcript, seconds = box.exec(["bash", "/tests/test.sh"], timeout_sec=verifier_timeout_sec)
    return box.read_files("/logs/verifier"), transcript, seconds


def grade_shared(box: TaskContainer, bundle: Path, verifier_timeout_sec: float) -> tuple[bytes | None, str]:
    """``grade_files``' reward: (the bytes of ``/logs/verifier/reward.txt`` or None, the transcript)."""
    files, transcript, _ = grade_files(box, bundle, verifier_timeout_sec)
    return files.get("reward.txt"), transcript


# reward-details.json's per-test record (``graders.runtime_verifier.score``; the toolchain grader's too)
OUTCOME_KEYS = ("fail_to_pass_passed", "fail_to_pass_total", "pass_to_pass_passed", "pass_to_pass_total",
                "not_passed", "statuses_sha256")


def _details(raw: bytes | None) -> dict | None:
    """``reward-details.json``'s object from its bytes, or None when they are missing or not a JSON object."""
    try:
        details = json.loads(raw or b"")
    except ValueError:
        return None
    return details if isinstance(details, dict) else None


def graded_outcome(raw: bytes | None) -> dict | None:
    """What the grader saw, from the bytes of its ``reward-details.json``: ``{key: value}`` for ``OUTCOME_KEYS``
    (how many FAIL_TO_PASS and PASS_TO_PASS tests passed, of how many, the ids that did not pass, and the digest
    of every graded test's outcome: failed, error, skipped or missing are told apart), and ``tampering``: what
    the grader found changed in the test run, or None (a nop whose test file does not import before the fix
    reports its sentinel missing). None when the grader wrote no such record or stopped on an error."""
    details = _details(raw)
    if details is None or "error" in details or any(key not in details for key in OUTCOME_KEYS):
        return None
    return {**{key: details[key] for key in OUTCOME_KEYS}, "tampering": details.get("tampering")}


def grading_note(raw: bytes | None, limit: int = 300) -> str | None:
    """Why a grading gave less than 1.0, from the bytes of its ``reward-details.json``, in one line of at most
    ``limit`` characters: ``grader error: <type: message>`` (the grader stopped: a crash, changed inputs),
    ``tampering: <what>``, or ``not passed: <ids>`` (the graded tests that did not pass, the first three and how
    many more). None for a reward of 1.0 or no readable record (then nothing is known to tell)."""
    details = _details(raw)
    if details is None or details.get("reward") == 1.0:
        return None
    if details.get("error"):
        note = f"grader error: {details['error']}"
    elif details.get("tampering"):
        note = f"tampering: {details['tampering']}"
    elif details.get("not_passed"):
        ids = list(details["not_passed"])
        note = "not passed: " + ", ".join(ids[:3]) + (f" (+{len(ids) - 3} more)" if len(ids) > 3 else "")
    else:
        return None
    return note if len(note) <= limit else note[:limit - 1] + "…"


def run_control(client: docker.DockerClient, bundle: Path, image: str, name: str, expected: float, *,
                verifier_timeout_sec: float, agent_timeout_sec: float = 600, act=None,
                folders: dict | None = None, log_name=None) -> ControlResult:
    """Run one control; engine errors are reported in ``ControlResult.error``, never raised. ``act(box)``, when
    given, is what the agent does instead (a probe), in a container given ``folders`` (``TaskContainer``'s);
    otherwise the oracle runs solve.sh and the nop nothing. The transcript is kept as ``control-<name>.log``,
    or ``<log_name>.log`` (a string, or a function called once the grading is done: a probe's name, known only
    after its act)."""
    start = datetime.now(UTC)
    oracle = act is None and name == "oracle"
    folders = {"/logs/verifier": None, "/logs/agent": None, **(folders or {}),
               **({"/solution": bundle / "solution"} if oracle else {})}
    try:
        with shared_container(client, bundle, image, folders, warm=True) as box:
            if act is not None:
                act(box)
            elif oracle:
                box.exec(["bash", "/solution/solve.sh"], timeout_sec=agent_timeout_sec,
                         user=agent_user(read_task_toml(bundle)))
            files, transcript, graded = grade_files(box, bundle, verifier_timeout_sec)
            raw, details = files.get("reward.txt"), files.get("reward-details.json")
            outcome = graded_outcome(details) if name == "nop" else None
            why = grading_note(details)
            stem = log_name() if callable(log_name) else log_name
            artefacts.record(stem or f"{'probe' if act is not None else 'control'}-{name}", ".log",
                             f"# {name}: reward {(raw or b'').decode(errors='replace').strip() or 'none'}\n"
                             + (f"# {why}\n" if why else "") + transcript)
    except docker.errors.DockerException as exc:
        return ControlResult(name=name, expected=expected, reward=None, error=str(exc)[:300],
                             seconds=(datetime.now(UTC) - start).total_seconds())
    reward, error = None, None
    try:
        reward = float((raw or b"").decode().strip())
    except ValueError:
        error = "no numeric reward in /logs/verifier/reward.txt"
    return ControlResult(name=name, expected=expected, reward=reward, error=error, outcome=outcome, why=why,
                         seconds=round((datetime.now(UTC) - start).total_seconds(), 3),
                         grading_seconds=round(graded, 3))


def run_controls(client: docker.DockerClient, bundle: Path, task_id: str, *,
                 verifier_timeout_sec: float, expected_nop: float = 0.0, workers: int = 1) -> list[ControlResult]:
    """Build the bundle's environment and run the oracle (must score 1.0) and the nop (must score
    ``expected_nop``: 0.0 for a binary reward, the measured baseline for a graded one). A task whose verifier
    runs in its own container (schema 1.3) is run by ``separate_verifier.SeparateTrial``. ``workers``: with 2,
    the two run side by side, each in its own fresh container (``core.concurrency``)."""
    expected = {"oracle": 1.0, "nop": expected_nop}
    with timings.stage("controls"):
        config = read_task_toml(bundle)
        if verifier_mode(config) == "separate":
            trial = SeparateTrial(client, bundle, config, task_id, warm=True)
            calls = [lambda n=name: trial.run(n, expected[n], verifier_timeout_sec=verifier_timeout_sec)
                     for name in CONTROLS]
        else:
            image = run_image(client, bundle, config, task_id)
            calls = [lambda n=name: run_control(client, bundle, image, n, expected[n],
                                                verifier_timeout_sec=verifier_timeout_sec) for name in CONTROLS]
        return concurrency.run_all(calls, workers)


def failure_detail(results: list[ControlResult]) -> str | None:
    """One line for a ledger or report on why the controls failed: each control that missed its expected reward,
    with its reward and what the grader said (``ControlResult.why``), e.g. ``oracle 0.0 (expected 1.0): grader
    error: IndexError: ...``. None when every control met its mark."""
    parts = []
    for r in results:
        if r.error:
            parts.append(f"{r.name}: {r.error}")
        elif not r.ok:
            parts.append(f"{r.name} {r.reward} (expected {r.expected})" + (f": {r.why}" if r.why else ""))
    return "; ".join(parts) or None


def evaluation_from(results: list[ControlResult], bundle_hash: str,
                    stage: str = "generation") -> tuple[Evaluation, SkipReason | None]:
    """The evaluation label for these control results (measured at ``stage``: generation or validation), and
    the rejection reason when they failed."""
    by_name = {r.name: r for r in results}
    reason = None
    if any(r.error for r in results):
        reason = SkipReason.CONTROL_ERROR
    elif not by_name["oracle"].ok:
        reason = SkipReason.ORACLE_FAILED
    elif not by_name["nop"].ok:
        reason = SkipReason.NOP_FAILED
    evaluation = Evaluation(
        status=EvaluationStatus.VERIFIED if reason is None else EvaluationStatus.FAILED_CONTROLS,
        stage=stage, reason_codes=[] if reason is None else [reason.value],
        subject_bundle_hash=bundle_hash, oracle_reward=by_name["oracle"].reward, nop_reward=by_name["nop"].reward,
        validated_at=datetime.now(UTC).replace(microsecond=0))
    return evaluation, reason
