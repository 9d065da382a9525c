"""repo_mutate on a fixture package with hand-planted bugs (tests/helpers/mutate_repo.py) end to end in a real
Docker engine: exactly the expected task and skips (equivalent, breaks everything, duplicate), a schema 1.3
bundle with the recipe's metadata, oracle 1.0 and nop 0.0 under the separate verifier, an instruction that names
neither the test, the strategy nor the mutated line, and the real Harbor grading it."""

import json
import tomllib

import pytest

from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.harbor import public_network_copy, run_trial
from tests.helpers.mutate_repo import EXPECTED_F2P, EXPECTED_SKIPS, build_mutate_repo

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def mutate_run(docker_client, tmp_path_factory):
    root = tmp_path_factory.mktemp("mutate")
    repo, planted = build_mutate_repo(root / "mutcalc")
    out = root / "tasks"
    summary = generate("repo_mutate", str(repo), GenerateOptions(
        out=out, format=None, limit=4, pipeline_opts={"planted": str(planted)}, probes=True))
    return out, summary


def test_exactly_the_planted_bug_the_tests_catch(mutate_run):
    out, summary = mutate_run
    [bundle] = list(out.iterdir())
    assert dict(summary.skipped) == EXPECTED_SKIPS and not summary.errors
    contract = json.loads((bundle / "contract.json").read_text())
    # every source file of the package is collected, so the list does not name the one with the bug
    assert contract["submit"] == ["/workspace/mutcalc/__init__.py", "/workspace/mutcalc/core.py"]
    config = tomllib.loads((bundle / "task.toml").read_text())
    assert config["schema_version"] == "1.3"
    meta = config["metadata"]["repo2env"]
    assert (meta["pipeline"], meta["recipe"], meta["fail_to_pass_count"]) == ("repo_mutate", "swe_smith", 1)
    assert meta["repo_mutate"]["fail_to_pass"] == EXPECTED_F2P and meta["pass_to_pass_count"] >= 3
    assert meta["source_revision"] == meta["repo_mutate"]["revision"]
    evaluation = meta["evaluation"]
    assert (evaluation["status"], evaluation["oracle_reward"], evaluation["nop_reward"]) == ("verified", 1.0, 0.0)
    probes = {p["name"]: p for p in evaluation["probes"]}
    assert {"code_early_exit", "code_result_rewrite", "valid_alternative"} <= set(probes)
    assert all(p["ok"] for p in probes.values()), probes
    # the learner's copy is the mutated tree without the graded test files (the verifier's has them); the
    # reference is the original file
    assert "return lo\n    return x" in (bundle / "environment" / "source" / "mutcalc" / "core.py").read_text()
    assert not (bundle / "environment" / "source" / "tests" / "test_clamp.py").exists()
    assert (bundle / "tests" / "source" / "tests" / "test_clamp.py").is_file()
    assert "        return hi" in (bundle / "solution" / "reference" / "mutcalc" / "core.py").read_text()
    text = (bundle / "instruction.md").read_text()
    for leak in ("test_clamp_above", "test_clamp.py", "planted", "return hi", "return lo"):
        assert leak not in text
    from repo2env.checks.validate import validate_static
    reports = validate_static(out)
    assert len(reports) == 1 and reports[0].ok, reports[0].findings


def test_harbor_runs_a_mutant_bundle(mutate_run, harbor, tmp_path):
    """The real Harbor (schema 1.3, separate verifier): lint finds nothing, the oracle scores 1.0 and the nop
    0.0, on a copy whose network modes are public (tests/checks/test_harbor_crosscheck.py says why)."""
    import subprocess

    task = next(mutate_run[0].iterdir())
    lint = subprocess.run([str(harbor), "lint", str(task), "--json"], capture_output=True, text=True)
    assert json.loads(lint.stdout) == [], lint.stdout
    runnable = public_network_copy(task, tmp_path / task.name)
    assert run_trial(harbor, runnable, "oracle", tmp_path / "jobs-oracle") == 1.0
    assert run_trial(harbor, runnable, "nop", tmp_path / "jobs-nop") == 0.0


def test_a_trial_that_changes_no_artifact_reuses_the_verifiers_reward(mutate_run, docker_client, monkeypatch):
    """Only the artifacts cross to the separate verifier: a probe that changes none of them gets the reward the
    grader gave those very bytes, without a second verifier run, in this trial or another trial of the same
    bundle (the probes reuse the controls' nop); one that changes an artifact is graded; the same bytes under
    another verifier (its tests changed) are graded again."""
    import shutil

    from repo2env.bundles.task_toml import read_task_toml
    from repo2env.checks import separate_verifier
    from repo2env.checks.separate_verifier import SeparateTrial, Verdicts

    monkeypatch.setattr(separate_verifier, "GRADED", Verdicts())
    bundle = next(mutate_run[0].iterdir())
    runs = []
    grade = SeparateTrial._verifier_phase
    monkeypatch.setattr(SeparateTrial, "_verifier_phase",
                        lambda self, artifacts, timeout: runs.append(1) or grade(self, artifacts, timeout))
    fixed = (bundle / "solution" / "reference" / "mutcalc" / "core.py").read_text()
    outside = ["sh", "-c", "echo 1.0 > /tmp/reward.txt; touch /workspace/conftest.py"]
    inside = ["sh", "-c", f"cat > /workspace/mutcalc/core.py <<'EOF'\n{fixed}EOF"]
    trials = [SeparateTrial(docker_client, bundle, read_task_toml(bundle), bundle.name) for _ in range(2)]
    rewards = [trial.run("nop", 0.0, verifier_timeout_sec=300, act=lambda box, cmd=cmd: box.exec(cmd)).reward
               for trial, cmd in ((trials[0], outside), (trials[1], outside), (trials[0], inside))]
    assert rewards == [0.0, 0.0, 1.0] and len(runs) == 2
    other = shutil.copytree(bundle, mutate_run[0].parent / "other-verifier" / bundle.name)
    with (other / "tests" / "test.sh").open("a") as handle:
        handle.write("# another verifier\n")
    trial = SeparateTrial(docker_client, other, read_task_toml(other), bundle.name + "-other")
    assert trial.run("nop", 0.0, verifier_timeout_sec=300, act=lambda box: box.exec(outside)).reward == 0.0
    assert len(runs) == 3
