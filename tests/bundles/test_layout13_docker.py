"""Schema 1.3 bundles (--format harbor-1.3) end to end on the demo repository in a real Docker engine: the
layout (snapshots without .git, hidden tests only in the verifier's copy, artifacts, contract, reference), the
agent's image (no history, user learner, no network), the separate verifier's controls, validate --run and a
tampered bundle."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from repo2env.bundles import layout13
from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.controls import run_controls
from repo2env.cli import cli, main
from repo2env.environment.containers import TaskContainer
from repo2env.environment.images import environment_image
from repo2env.tasks.runtime import GRADER_RULES

pytestmark = pytest.mark.docker


def _show(repo: Path, commit: str, path: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True,
                          check=True).stdout


def test_same_tasks_verified_as_layout_10(demo_generated_13, demo_generated):
    out13, summary13 = demo_generated_13
    _, summary10 = demo_generated
    assert sorted(summary13.verified) == sorted(summary10.verified) == [
        "local__calc-demo-1", "local__calc-demo-4", "local__calc-demo-5"]
    for task in summary13.verified:
        config = read_task_toml(out13 / task)
        evaluation = config["metadata"]["repo2env"]["evaluation"]
        assert (evaluation["status"], evaluation["oracle_reward"], evaluation["nop_reward"]) == ("verified", 1.0, 0.0)
        assert evaluation["subject_bundle_hash"] == bundle_hash(out13 / task)


def test_layout_files_and_task_toml(demo_generated_13, demo_repo):
    out, _ = demo_generated_13
    bundle = out / "local__calc-demo-1"
    config = read_task_toml(bundle)
    meta = config["metadata"]["repo2env"]
    base, head = meta["pr_runtime"]["base_commit"], meta["pr_runtime"]["head_commit"]
    assert "version" not in config and config["schema_version"] == "1.3"
    assert config["artifacts"] == [{"source": "/workspace/calc/ops.py"}]
    assert config["verifier"]["environment_mode"] == "separate" and config["verifier"]["user"] == "root"
    assert config["agent"]["user"] == "learner"
    assert {config[t]["network_mode"] for t in ("environment", "agent", "verifier")} == {"no-network"}
    assert config["verifier"]["environment"]["network_mode"] == "no-network"
    # the learner's snapshot: base commit, hidden test file gone, no .git; the verifier's copy: the test patch in
    assert not (bundle / "environment/source/.git").exists() and not (bundle / "tests/source/.git").exists()
    assert not (bundle / "environment/source/tests/test_ops.py").exists()
    assert (bundle / "environment/source/calc/ops.py").read_bytes() == _show(demo_repo, base, "calc/ops.py")
    assert (bundle / "tests/source/tests/test_ops.py").read_bytes() == _show(demo_repo, head, "tests/test_ops.py")
    assert (bundle / "tests/source/calc/ops.py").read_bytes() == _show(demo_repo, base, "calc/ops.py")
    assert (bundle / "solution/reference/calc/ops.py").read_bytes() == _show(demo_repo, head, "calc/ops.py")
    assert not (bundle / "solution/patch.diff").exists() and not (bundle / "tests/test.patch").exists()
    contract = json.loads((bundle / "contract.json").read_text())
    assert contract["submit"] == ["/workspace/calc/ops.py"] and contract["test_selectors"] == ["tests/test_ops.py"]
    assert contract["must_pass"] == meta["pr_runtime"]["fail_to_pass"] + meta["pr_runtime"]["pass_to_pass"]
    assert json.loads((bundle / "tests/config.json").read_text())["prepared"] is True
    instruction = (bundle / "instruction.md").read_text()
    assert "`/workspace/calc/ops.py`" in instruction
    # the grading paragraph says what this layout does (a separate verifier; the agent's packages are not seen),
    # never 1.0's "installing ... a package grades 0"
    assert layout13.SEPARATE_RULES in instruction and GRADER_RULES not in instruction


def test_agent_image_has_no_history_no_hidden_tests_no_network(demo_generated_13, docker_client):
    out, _ = demo_generated_13
    bundle = out / "local__calc-demo-1"
    image = environment_image(docker_client, bundle / "environment", bundle.name)
    with TaskContainer(docker_client, image, network=False) as box:
        assert box.exec(["test", "-e", "/workspace/.git"])[0] == 1
        assert box.exec(["test", "-e", "/workspace/tests/test_ops.py"])[0] == 1
        code, out_text, _ = box.exec(["python3", "-c", "import calc, calc.ops; print(calc.ops.__file__)"],
                                     user="learner")
        assert code == 0 and out_text.strip() == "/workspace/calc/ops.py"
        assert box.exec(["touch", "/workspace/calc/ops.py"], user="learner")[0] == 0  # the learner may edit
        assert box.exec(["python3", "-c", "import socket; socket.create_connection(('1.1.1.1', 53), 3)"])[0] != 0


def test_the_verifier_image_carries_compiled_packages_and_grading_reads_them(demo_generated_13, docker_client):
    """A Python verifier image holds the standard library and the installed packages compiled into BYTECODE
    (config.json names it), so grading's pytest finds its own modules compiled there; the workspace's modules,
    where the agent's artifacts land, have no bytecode there."""
    from repo2env.bundles.layout13 import BYTECODE
    from repo2env.environment.images import run_image

    out, _ = demo_generated_13
    bundle = out / "local__calc-demo-1"
    config = json.loads((bundle / "tests" / "config.json").read_text())
    assert config["bytecode"] == BYTECODE and config["prepared"] is True
    image = run_image(docker_client, bundle, read_task_toml(bundle), bundle.name, verifier=True)
    probe = ("import importlib.util, os, _pytest.python, json, calc.ops; "
             "print(json.dumps([os.path.isfile(importlib.util.cache_from_source(m.__file__)) "
             "for m in (_pytest.python, json, calc.ops)]))")
    with TaskContainer(docker_client, image, network=False) as box:
        code, text, _ = box.exec(["env", f"PYTHONPYCACHEPREFIX={BYTECODE}", "PYTHONDONTWRITEBYTECODE=1",
                                  config["python"], "-c", probe], user="nobody")
    assert code == 0 and json.loads(text.strip().splitlines()[-1]) == [True, True, False], text


def test_a_new_file_is_an_artifact_and_a_missing_one_fails_the_nop(demo_generated_13):
    out, _ = demo_generated_13
    bundle = out / "local__calc-demo-5"
    assert read_task_toml(bundle)["artifacts"] == [{"source": "/workspace/calc/text.py"}]
    assert not (bundle / "environment/source/calc/text.py").exists()
    assert not (bundle / "tests/source/calc/text.py").exists()  # only the agent's artifact can bring it


def test_changes_outside_the_artifacts_do_not_reach_the_verifier(demo_generated_13, docker_client, tmp_path):
    out, _ = demo_generated_13
    bundle = shutil.copytree(out / "local__calc-demo-1", tmp_path / "t")
    # an oracle that puts the fix in a file the verifier does not collect, plus a test file forced to pass
    (bundle / "solution/solve.sh").write_text(
        "#!/bin/bash\nset -e\nmkdir -p /workspace/extra\ncp /solution/reference/calc/ops.py /workspace/extra/\n"
        "printf 'def test_divide_by_zero():\\n    pass\\n' > /workspace/tests/test_ops.py\n")
    results = run_controls(docker_client, bundle, "tampered-13", verifier_timeout_sec=120)
    assert [(r.name, r.reward) for r in results] == [("oracle", 0.0), ("nop", 0.0)]


def test_validate_run_and_tamper(demo_generated_13, tmp_path):
    out, _ = demo_generated_13
    labelled = tmp_path / "labelled"
    done = CliRunner().invoke(cli, ["validate", str(out), "--run", "--jobs", "2", "--out", str(labelled), "--json"])
    assert done.exit_code == 0, done.output
    reports = json.loads(done.output)
    assert {(Path(r["path"]).name, r["layout"], r["status"]) for r in reports} == {
        (t, "1.3", "verified") for t in ("local__calc-demo-1", "local__calc-demo-4", "local__calc-demo-5")}
    assert all(r["controls"]["oracle"]["reward"] == 1.0 and r["controls"]["nop"]["reward"] == 0.0 for r in reports)
    tampered = shutil.copytree(out / "local__calc-demo-4", tmp_path / "tampered")
    script = tampered / "tests/source/tests/test_sizes.py"
    script.write_bytes(script.read_bytes() + b"\n")
    done = CliRunner().invoke(cli, ["validate", str(tampered)])
    assert done.exit_code != 0 and "changed after it was hashed" in done.output
    done = CliRunner().invoke(cli, ["hash", str(tampered), "--check"])
    assert done.exit_code != 0


def _rehashed(bundle: Path) -> Path:
    """Record the bundle's current hash (what a buggy generator would have written)."""
    from repo2env.bundles.task_toml import set_labels
    from repo2env.core.metadata import Evaluation

    set_labels(bundle, bundle_hash=bundle_hash(bundle), evaluation=Evaluation(
        status="unverified", stage="generation", reason_codes=["validation_not_run"]))
    return bundle


def test_static_checks_catch_a_broken_13_layout_even_when_rehashed(demo_generated_13, tmp_path):
    out, _ = demo_generated_13
    leak = shutil.copytree(out / "local__calc-demo-1", tmp_path / "leak")
    shutil.copy(leak / "tests/source/tests/test_ops.py", leak / "environment/source/tests/test_ops.py")
    contract = shutil.copytree(out / "local__calc-demo-1", tmp_path / "contract")
    (contract / "contract.json").write_text("{not json")
    noref = shutil.copytree(out / "local__calc-demo-1", tmp_path / "noref")
    shutil.rmtree(noref / "solution/reference")
    expected = {"leak": "environment/source/tests/test_ops.py exists", "contract": "contract.json is missing or not JSON",
                "noref": "has no reference version in solution/reference/"}
    for name, message in expected.items():
        done = CliRunner().invoke(cli, ["validate", str(_rehashed(tmp_path / name))])
        assert done.exit_code == 1 and message in done.output, done.output


def test_validate_out_onto_the_tasks_is_refused_and_a_failed_build_is_one_task_error(demo_generated_13, tmp_path,
                                                                                      capsys):
    out, _ = demo_generated_13
    tasks = tmp_path / "tasks"
    shutil.copytree(out / "local__calc-demo-1", tasks / "local__calc-demo-1")
    broken = shutil.copytree(out / "local__calc-demo-4", tasks / "local__calc-demo-4")
    shutil.rmtree(broken / "environment/source")
    (broken / "environment/source").mkdir()
    (broken / "environment/source/x").write_text("x")
    (broken / "environment/Dockerfile").write_text("FROM local/r2e-no-such-image:1\n")
    _rehashed(broken)
    for target in (tasks, tasks / "local__calc-demo-1"):
        assert main(["validate", str(tasks), "--run", "--out", str(target)]) == 2
        assert "holds the task" in capsys.readouterr().err
    assert (tasks / "local__calc-demo-1" / "task.toml").is_file()
    done = CliRunner().invoke(cli, ["validate", str(tasks), "--run", "--jobs", "2", "--out", str(tmp_path / "c"),
                                    "--json"])
    assert done.exit_code == 1
    reports = {Path(r["path"]).name: r for r in json.loads(done.output)}
    assert reports["local__calc-demo-1"]["status"] == "verified"
    assert reports["local__calc-demo-4"]["status"] == "failed_controls"
    label = read_task_toml(tmp_path / "c" / "local__calc-demo-4")["metadata"]["repo2env"]["evaluation"]
    assert label["status"] == "failed_controls" and label["reason_codes"] == ["control_error"]
