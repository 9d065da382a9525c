"""The real Harbor (installed by scripts/setup_harbor.sh in .harbor-venv) for tests: where it is, one trial's
reward, and a copy of a no-network bundle Harbor can run here.

Schema 1.3/1.4 bundles ask for network_mode = "no-network". Harbor's docker environment enforces that with an
egress-control sidecar image pulled from Docker Hub, which this machine cannot reach, so tests run a copy whose
network modes are "public" (nothing else changes; our own controls run them with no network at all)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import tomlkit

HARBOR_VENV = Path(__file__).resolve().parents[2] / ".harbor-venv"


def harbor_exe() -> Path:
    """The ``harbor`` program; skips the test when it is not installed (fails under CI=true)."""
    exe = HARBOR_VENV / "bin" / "harbor"
    if not exe.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("Harbor is not installed (.harbor-venv); scripts/test.sh runs scripts/setup_harbor.sh")
        pytest.skip("Harbor not installed; run bash scripts/setup_harbor.sh")
    return exe


def run_trial(harbor: Path, task: Path, agent: str, jobs: Path, *extra: str) -> float:
    """``harbor run -p TASK -a AGENT -e docker`` (``extra``: more options, e.g. ``-d NAME`` in place of
    ``-p``); the reward its trial's result.json records. Fails the test when Harbor recorded an exception."""
    source = list(extra) if extra else ["-p", str(task)]
    done = subprocess.run([str(harbor), "run", *source, "-a", agent, "-e", "docker", "-o", str(jobs), "-q"],
                          capture_output=True, text=True, timeout=900)
    results = [p for p in jobs.rglob("result.json") if p.parent.parent != jobs]
    assert results, f"harbor run -a {agent} wrote no trial result: {done.stdout[-500:]} {done.stderr[-500:]}"
    trial = json.loads(results[0].read_text())
    assert trial.get("exception_info") is None, trial["exception_info"]
    return float(trial["verifier_result"]["rewards"]["reward"])


def public_network_copy(task: Path, dest: Path) -> Path:
    """A copy of ``task`` whose network modes are "public" (module docstring)."""
    copy = shutil.copytree(task, dest)
    doc = tomlkit.parse((copy / "task.toml").read_text())
    tables = [doc["environment"], doc["agent"], doc["verifier"]]
    if "environment" in doc["verifier"]:
        tables.append(doc["verifier"]["environment"])
    for table in tables:
        table["network_mode"] = "public"
    (copy / "task.toml").write_text(tomlkit.dumps(doc))
    return copy
