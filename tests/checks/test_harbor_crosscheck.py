"""Cross-check with the real Harbor (installed by scripts/setup_harbor.sh in .harbor-venv): its TaskConfig
accepts our task.toml, `harbor lint` finds only the rule we justify in the bundle, and `harbor run` with the
oracle and nop agents on the docker environment gives 1.0 and 0.0 (read from its result.json), for layout 1.0
and schema 1.3 bundles.

Schema 1.3 bundles ask for network_mode = "no-network". Harbor's docker environment enforces that with an
egress-control sidecar image pulled from Docker Hub, which this machine cannot reach, so the 1.3 run uses a copy
whose network modes are "public" (nothing else changes; our own controls run them with no network at all)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import tomlkit

pytestmark = pytest.mark.docker

HARBOR_VENV = Path(__file__).resolve().parents[2] / ".harbor-venv"
JUSTIFIED = {"shared-verifier"}  # see the comment above [verifier] in every task.toml


@pytest.fixture(scope="module")
def harbor():
    exe = HARBOR_VENV / "bin" / "harbor"
    if not exe.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("Harbor is not installed (.harbor-venv); scripts/test.sh runs scripts/setup_harbor.sh")
        pytest.skip("Harbor not installed; run bash scripts/setup_harbor.sh")
    return exe


def _run(harbor, task: Path, agent: str, jobs: Path) -> float:
    done = subprocess.run([str(harbor), "run", "-p", str(task), "-a", agent, "-e", "docker", "-o", str(jobs), "-q"],
                          capture_output=True, text=True, timeout=900)
    results = [p for p in jobs.rglob("result.json") if p.parent.parent != jobs]
    assert results, f"harbor run -a {agent} wrote no trial result: {done.stdout[-500:]} {done.stderr[-500:]}"
    trial = json.loads(results[0].read_text())
    assert trial.get("exception_info") is None, trial["exception_info"]
    return float(trial["verifier_result"]["rewards"]["reward"])


def test_harbor_accepts_and_runs_our_bundles(harbor, demo_generated, tmp_path):
    out, _ = demo_generated
    task = shutil.copytree(out / "local__calc-demo-1", tmp_path / "local__calc-demo-1")
    check = subprocess.run([str(harbor.parent / "python"), "-c",
                            "import sys, tomllib; from harbor.models.task.config import TaskConfig; "
                            "TaskConfig.model_validate(tomllib.load(open(sys.argv[1], 'rb')))", str(task / "task.toml")],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr[-800:]
    lint = subprocess.run([str(harbor), "lint", str(task), "--json"], capture_output=True, text=True)
    rules = {finding["rule"] for finding in json.loads(lint.stdout)}
    assert rules <= JUSTIFIED, rules
    assert "shared-verifier is deliberate" in (task / "task.toml").read_text()
    assert _run(harbor, task, "oracle", tmp_path / "jobs-oracle") == 1.0
    assert _run(harbor, task, "nop", tmp_path / "jobs-nop") == 0.0


def _public_network_copy(task: Path, dest: Path) -> Path:
    copy = shutil.copytree(task, dest)
    doc = tomlkit.parse((copy / "task.toml").read_text())
    for table in (doc["environment"], doc["agent"], doc["verifier"], doc["verifier"]["environment"]):
        table["network_mode"] = "public"
    (copy / "task.toml").write_text(tomlkit.dumps(doc))
    return copy


def test_harbor_accepts_and_runs_our_13_bundles(harbor, demo_generated_13, tmp_path):
    out, _ = demo_generated_13
    for name in ("local__calc-demo-1", "local__calc-demo-5"):  # -5: the reference adds a new file
        task = out / name
        check = subprocess.run([str(harbor.parent / "python"), "-c",
                                "import sys, tomllib; from harbor.models.task.config import TaskConfig; "
                                "c = TaskConfig.model_validate(tomllib.load(open(sys.argv[1], 'rb'))); "
                                "print(c.schema_version, c.verifier.environment_mode.value, len(c.artifacts))",
                                str(task / "task.toml")], capture_output=True, text=True)
        assert check.returncode == 0 and check.stdout.split() == ["1.3", "separate", "1"], check.stderr[-800:]
        lint = subprocess.run([str(harbor), "lint", str(task), "--json"], capture_output=True, text=True)
        assert json.loads(lint.stdout) == [], lint.stdout  # a separate verifier: nothing to justify
        runnable = _public_network_copy(task, tmp_path / name)
        assert _run(harbor, runnable, "oracle", tmp_path / f"jobs-oracle-{name}") == 1.0
        assert _run(harbor, runnable, "nop", tmp_path / f"jobs-nop-{name}") == 0.0
