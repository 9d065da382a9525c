"""pr_runtime end to end in a real Docker engine, on the demo repository (repo2env/sources/demo_repo.py).

The demo history holds a real fix, a docs-only PR, a PR whose new test already passed, a parametrized test with
spaces in its ids, a non-PR merge and a new module whose tests cannot import before the fix.
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.controls import evaluation_from, failure_detail, run_controls
from repo2env.core.outcomes import SkipReason
from repo2env.environment.containers import LABEL, RUN_ID, TaskContainer
from repo2env.environment.images import environment_image
from repo2env.graders import runtime_verifier as verifier
from repo2env.pipeline import GenerateOptions
from repo2env.run import ledger
from repo2env.run.generate import generate
from repo2env.sources.demo_repo import EXPECTED_SKIPS, EXPECTED_TASKS

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def generated(demo_generated):
    return demo_generated


def test_exactly_the_right_tasks_with_exact_f2p_p2p(generated):
    out, summary = generated
    assert sorted(p.name for p in out.iterdir()) == [f"local__calc-demo-{n}" for n in sorted(EXPECTED_TASKS)]
    for number, expected in EXPECTED_TASKS.items():
        bundle = out / f"local__calc-demo-{number}"
        assert json.loads((bundle / "tests" / "f2p.json").read_text()) == expected["fail_to_pass"]
        assert json.loads((bundle / "tests" / "p2p.json").read_text()) == expected["pass_to_pass"]
        meta = read_task_toml(bundle)["metadata"]["repo2env"]
        assert meta["pr_runtime"]["fail_to_pass"] == expected["fail_to_pass"]
        assert meta["pr_runtime"]["pr_number"] == number and meta["pr_runtime"]["flaky"] == []
        category = read_task_toml(bundle)["metadata"]["category"]
        # from the change (tasks/category.py): #5's new module cannot be imported before the fix; #1 and #4 ran
        # existing code that failed, whatever their titles say
        assert category == ("feature" if number == 5 else "bugfix"), (number, category)
        assert meta["pr_runtime"]["category_evidence"], number
    assert summary.candidates == 5 and len(summary.verified) == 3 and not summary.errors
    assert dict(summary.skipped) == {"docs_ci_only": 1, "no_fail_to_pass": 1}


def test_controls_verified_and_bound_to_the_bundle_hash(generated):
    out, _ = generated
    for bundle in out.iterdir():
        config = read_task_toml(bundle)
        r2e = config["metadata"]["repo2env"]
        assert config["version"] == "1.0"
        assert r2e["evaluation"]["status"] == "verified"
        assert (r2e["evaluation"]["oracle_reward"], r2e["evaluation"]["nop_reward"]) == (1.0, 0.0)
        assert r2e["evaluation"]["subject_bundle_hash"] == r2e["bundle_hash"] == bundle_hash(bundle)
        assert r2e["reproducibility"]["mode"] == "local_only"
        assert config["verifier"]["timeout_sec"] >= 120


def test_two_at_a_time_gives_the_same_bundles(generated, demo_repo, tmp_path):
    """generate --jobs 2 on the demo: the same tasks, byte-identical bundle hashes, the same F2P/P2P as the
    one-at-a-time run."""
    out, summary = generated
    other = tmp_path / "tasks"
    got = generate("pr_runtime", str(demo_repo), GenerateOptions(probes=False, out=other), jobs=2)
    assert sorted(got.verified) == sorted(summary.verified) and dict(got.skipped) == dict(summary.skipped)
    for bundle in out.iterdir():
        assert bundle_hash(other / bundle.name) == bundle_hash(bundle), bundle.name
        for name in ("f2p.json", "p2p.json"):
            assert (other / bundle.name / "tests" / name).read_text() == (bundle / "tests" / name).read_text()


def test_the_plain_path_gives_the_same_bundles(generated, demo_repo, tmp_path, monkeypatch):
    """Issue 20: containers started ahead and removed behind (``environment.spares``), the tests and results
    moved in one engine call each, are the optimised path; ``REPO2RLENV_PLAIN=1`` makes and removes each container
    in line. Both give the same tasks, byte-identical bundle hashes and the same F2P/P2P on the demo."""
    out, summary = generated
    monkeypatch.setenv("REPO2RLENV_PLAIN", "1")
    other = tmp_path / "tasks"
    got = generate("pr_runtime", str(demo_repo), GenerateOptions(probes=False, out=other))
    assert sorted(got.verified) == sorted(summary.verified) and dict(got.skipped) == dict(summary.skipped)
    assert got.stages.get("container stop", 0) > 0  # removed in line: the plain path was taken
    assert summary.stages.get("container stop", 0) < got.stages["container stop"]
    for bundle in out.iterdir():
        assert bundle_hash(other / bundle.name) == bundle_hash(bundle), bundle.name
        for name in ("f2p.json", "p2p.json"):
            assert (other / bundle.name / "tests" / name).read_text() == (bundle / "tests" / name).read_text()


def test_ledger_records_every_candidate(generated):
    out, _ = generated
    entries = {e.candidate: e for e in ledger.read(ledger.ledger_path(out))}
    assert {k: e.reason for k, e in entries.items() if e.status == "skipped"} == \
        {f"pr#{n}": reason for n, reason in EXPECTED_SKIPS.items()}
    assert {k for k, e in entries.items() if e.status == "verified"} == {f"pr#{n}" for n in EXPECTED_TASKS}


def test_bundle_files(generated):
    out, _ = generated
    bundle = out / "local__calc-demo-1"
    assert (bundle / "tests" / "verifier.py").read_bytes() == Path(verifier.__file__).read_bytes()
    for rel in ("environment/Dockerfile", "environment/docker-compose.yaml", "environment/scrub_history.sh",
                "tests/test.sh", "solution/solve.sh", "tests/config.json", "instruction.md"):
        assert b"\r" not in (bundle / rel).read_bytes(), rel
    assert (bundle / "tests" / "test.sh").stat().st_mode & 0o111
    instruction = (bundle / "instruction.md").read_text()
    assert "ZeroDivisionError" in instruction and "#7" not in instruction and "test_divide" not in instruction
    assert "calc/ops.py" in (bundle / "solution" / "patch.diff").read_text()
    assert "tests/test_ops.py" not in (bundle / "solution" / "patch.diff").read_text()
    assert not any(p.name.endswith(".staging") for p in out.parent.iterdir())


def test_no_containers_left(generated, docker_client):
    assert docker_client.containers.list(all=True, filters={"label": f"{LABEL}={RUN_ID}"}) == []


def test_history_is_scrubbed_in_the_environment(generated, docker_client, demo_repo):
    out, _ = generated
    bundle = out / "local__calc-demo-4"
    meta = read_task_toml(bundle)["metadata"]["repo2env"]["pr_runtime"]
    base, head = meta["base_commit"], meta["head_commit"]
    ancestors = subprocess.run(["git", "-C", str(demo_repo), "rev-list", base], capture_output=True, text=True,
                               check=True).stdout.split()
    image = environment_image(docker_client, bundle / "environment", "local__calc-demo-4")
    with TaskContainer(docker_client, image) as box:
        code, log_all, _ = box.exec(["git", "log", "--all", "--reflog", "--format=%H"])
        assert code == 0 and log_all.split() == ancestors
        assert box.exec(["git", "cat-file", "-e", head])[0] != 0
        assert box.exec(["git", "remote"])[1].strip() == ""
        assert box.exec(["git", "for-each-ref", "--format=%(refname)"])[1].split() == ["refs/heads/main"]
        code, where, _ = box.exec(["python3", "-c", "import calc; print(calc.__file__)"])
        assert where.strip() == "/workspace/calc/__init__.py"  # imports from the workspace, not site-packages


def test_sabotaged_oracle_is_rejected(generated, docker_client, tmp_path):
    out, _ = generated
    bundle = tmp_path / "broken"
    shutil.copytree(out / "local__calc-demo-1", bundle)
    (bundle / "solution" / "patch.diff").write_text("")  # the oracle now does nothing
    (bundle / "solution" / "solve.sh").write_text("#!/bin/bash\ntrue\n")
    results = run_controls(docker_client, bundle, "broken-1", verifier_timeout_sec=120)
    assert [(r.name, r.reward) for r in results] == [("oracle", 0.0), ("nop", 0.0)]
    evaluation, reason = evaluation_from(results, bundle_hash(bundle))
    assert reason is SkipReason.ORACLE_FAILED and evaluation.status == "failed_controls"
    # the rejection says why (humanize-273 was "oracle_failed" with no detail while the grader had crashed)
    f2p = json.loads((bundle / "tests" / "f2p.json").read_text())
    assert failure_detail(results) == "oracle 0.0 (expected 1.0): not passed: " + ", ".join(sorted(f2p))
    (bundle / "tests" / "f2p.json").write_text(json.dumps(f2p + ["tests/test_x.py::test_y"]))  # not its inputs
    results = run_controls(docker_client, bundle, "broken-2", verifier_timeout_sec=120)
    assert failure_detail(results).startswith("oracle 0.0 (expected 1.0): grader error: RuntimeError: the grading "
                                              "inputs in /tests are not the ones"), failure_detail(results)


def test_failed_environment_build_is_recorded_and_the_run_goes_on(docker_client, demo_repo, tmp_path):
    cfg = tmp_path / "env.toml"
    cfg.write_text('[repos."local/calc-demo"]\ninstall = ["echo broken install >&2; exit 3"]\n')
    from repo2env.environment.overrides import load_env_config
    out = tmp_path / "tasks"
    (out / "local__calc-demo-1").mkdir(parents=True)  # an earlier run's bundle for a PR that no longer builds
    (out / "local__calc-demo-1" / "task.toml").write_text('version = "1.0"\n')
    summary = generate("pr_runtime", str(demo_repo), GenerateOptions(probes=False, 
        out=out, numbers=(1, 2), env_config=load_env_config(cfg)))
    assert dict(summary.skipped) == {"env_build_failed": 1, "docs_ci_only": 1} and not summary.errors
    entries = {e.candidate: e for e in ledger.read(ledger.ledger_path(out))}
    # the detail names the cause (the install's own last line and its exit code) and the rung tried
    assert entries["pr#1"].reason == "env_build_failed"
    assert "failed: broken install (exit 3) (rungs tried: 3.12 (install failed))" in entries["pr#1"].detail
    assert list(out.iterdir()) == []


PLUGIN = '''import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
'''


def test_a_pytest_plugin_planted_by_the_agent_is_not_loaded_by_the_grader(generated, docker_client):
    out, _ = generated
    bundle = out / "local__calc-demo-1"
    assert "calc" not in json.loads((bundle / "tests" / "config.json").read_text())["pytest_plugins"]
    image = environment_image(docker_client, bundle / "environment", bundle.name)
    plant = ("site=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])') && "
             f"printf '%s' '{PLUGIN}' > $site/evilplug.py && mkdir -p $site/evilplug-0.dist-info && "
             "printf 'Metadata-Version: 2.1\\nName: evilplug\\nVersion: 0\\n' > $site/evilplug-0.dist-info/METADATA && "
             "printf '[pytest11]\\nevil = evilplug\\n' > $site/evilplug-0.dist-info/entry_points.txt")
    with TaskContainer(docker_client, image) as box:
        assert box.exec(["sh", "-c", plant])[0] == 0
        box.put_dir(bundle / "tests", "/tests")
        box.exec(["sh", "-c", "cd /workspace && git apply /tests/test.patch"])
        planted_works = box.exec(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_ops.py"])[0]
        box.exec(["sh", "-c", "cd /workspace && git checkout -q -- . && git clean -fdq"])
        box.exec(["bash", "/tests/test.sh"])
        reward = box.read_file("/logs/verifier/reward.txt").decode().strip()
    assert planted_works == 0  # with auto-loading, the plugin turns the failing test into a pass
    assert reward == "0.0"  # the grader loads only the plugins pinned at generation
