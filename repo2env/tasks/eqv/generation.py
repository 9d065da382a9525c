"""Run ``casegen`` for one function in the container of the task image (the full repository at the commit; one
container per revision, reused across its functions):
inputs, reference outcomes, determinism, and the strength gate over the stub, the delegating stub, the
reference copy and the mutants. The container has network access to install ``hypothesis`` (generation only;
the agent's environment and the verifier never need it)."""

import atexit
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import docker

from repo2env.core import gitrepo
from repo2env.core.errors import TestRunError
from repo2env.environment.containers import TaskContainer
from repo2env.graders import eqv_harness as harness
from repo2env.tasks.eqv import mutants, task_module
from repo2env.tasks.eqv.discover import FunctionCandidate

HYPOTHESIS = "hypothesis>=6.100"
CASEGEN = Path(__file__).with_name("casegen.py")  # run in the container, never imported here


@dataclass(frozen=True)
class GateResult:
    """What the container measured. ``cases_json`` is the text of cases.json (cases + expected outcomes)."""

    deterministic: bool
    cases: int
    sources: dict
    raising_cases: int
    stub_fails: bool
    delegate_fails: bool
    reference_passes: list[bool]
    mutants_total: int
    mutants_killed: int
    cases_json: str
    disagreement: str | None = None  # with deterministic False: one case whose two reference outcomes differ

    @property
    def kill_rate(self) -> float:
        return round(self.mutants_killed / self.mutants_total, 4) if self.mutants_total else 0.0


def trace_tests(repo_path: str, commit: str, fn: FunctionCandidate, limit: int = 8) -> list[str]:
    """Test files at ``commit`` that mention the function's name (they are traced for observed inputs)."""
    try:
        out = gitrepo.run_git(repo_path, "grep", "-l", "-w", fn.name, commit, "--", "*test*.py").decode()
    except Exception:  # git grep exits 1 when nothing matches
        return []
    return [line.split(":", 1)[1] for line in out.splitlines() if ":" in line][:limit]


class _GateBoxes:
    """One running container per task image, reused by every function gated at that revision (``hypothesis``
    installed once, not once per function); between functions ``/workspace`` is reset to its commit (tracked
    files restored, untracked ones the traced tests wrote removed, ignored build output kept) and ``/r2e``
    emptied, so each function sees what a fresh container would. At most one is open; it is removed when another
    image is asked for, by ``close()``, or at exit (a killed run's is removed by ``remove_leftovers``)."""

    def __init__(self) -> None:
        self._image: str | None = None
        self._box: TaskContainer | None = None
        atexit.register(self.close)

    def get(self, client: docker.DockerClient, image: str) -> TaskContainer:
        if self._box is not None and self._image == image:
            code, _, _ = self._box.exec(["sh", "-c", "rm -rf /r2e && cd /workspace && git checkout -q -- . && "
                                                     "git clean -fdq"], timeout_sec=120)
            if code == 0:
                return self._box
        self.close()  # another image, or a container that cannot be reset: not reused
        box = TaskContainer(client, image)
        box.__enter__()
        self._image, self._box = image, box
        box.exec(["sh", "-c", f"uv pip install --system -q '{HYPOTHESIS}' || python3 -m pip install -q "
                              f"'{HYPOTHESIS}'"], timeout_sec=300)
        return box

    def close(self) -> None:
        """Remove the open container (if any)."""
        box, self._image, self._box = self._box, None, None
        if box is not None:
            box.__exit__(None, None, None)


GATE_BOXES = _GateBoxes()


def run_gate(client: docker.DockerClient, image: str, repo_path: str, commit: str, fn: FunctionCandidate, *,
             seed: int = 0, max_mutants: int = 12, timeout_sec: int = 900) -> GateResult:
    """Generate cases and run the gate in the container of ``image`` (``GATE_BOXES``: one per revision). Raises
    ``TestRunError`` when the container could not produce results (import failure, timeout)."""
    with tempfile.TemporaryDirectory(prefix="r2e-eqv-") as tmp:
        work = Path(tmp) / "r2e"
        (work / "candidates").mkdir(parents=True)
        shutil.copy(harness.__file__, work / "eqv_harness.py")
        shutil.copy(CASEGEN, work / "casegen.py")
        made = mutants.mutants(fn.source, limit=max_mutants, seed=seed)
        files = {"stub.py": task_module.stub(fn), "delegate.py": task_module.delegating(fn),
                 "copy.py": task_module.reference_copy(fn)}
        files.update({f"mutant_{i:02d}.py": task_module.with_body(fn, src) for i, (_, src) in enumerate(made)})
        for name, text in files.items():
            (work / "candidates" / name).write_text(text)
        config = {"workspace": "/workspace", "module": fn.module, "function": fn.name,
                  "trace_tests": trace_tests(repo_path, commit, fn), "max_cases": 200, "hypothesis_examples": 60,
                  "reference_runs": 3, "candidates": "/r2e/candidates", "out_dir": "/r2e/out"}
        (work / "config.json").write_text(json.dumps(config))
        box = GATE_BOXES.get(client, image)
        box.put_dir(work, "/r2e")
        code, output, _ = box.exec(["python3", "/r2e/casegen.py", "/r2e/config.json"], timeout_sec=timeout_sec)
        gate_raw = box.read_file("/r2e/out/gate.json")
        cases_raw = box.read_file("/r2e/out/cases.json")
        if code == 124:
            GATE_BOXES.close()  # something of the timed-out run may still hold the container
    if code != 0 or gate_raw is None or cases_raw is None:
        tail = output.strip().splitlines()[-1:] or [f"exit {code}"]
        raise TestRunError(f"case generation for {fn.key} failed: {tail[0][:300]}")
    gate = json.loads(gate_raw)
    runs = gate["candidates"]
    mutant_runs = [v for k, v in runs.items() if k.startswith("mutant_")]
    return GateResult(
        deterministic=gate["deterministic"], cases=gate["cases"], sources=gate["sources"],
        raising_cases=gate["raising_cases"], stub_fails=not all(runs["stub.py"]),
        delegate_fails=not all(runs["delegate.py"]), reference_passes=runs["copy.py"],
        mutants_total=len(mutant_runs), mutants_killed=sum(1 for v in mutant_runs if not all(v)),
        cases_json=cases_raw.decode(), disagreement=gate.get("disagreement"))
