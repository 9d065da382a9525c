"""pr_diff end to end on the demo repository: Harbor bundles whose oracle scores 1.0 and nop the measured
baseline in a real Docker engine, the in-container verifier agreeing with ``repo2rlenv score``, and text-only
bundles."""

import json
import subprocess

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.cli import main
from repo2env.environment.containers import TaskContainer
from repo2env.environment.images import environment_image
from repo2env.graders import diff_verifier
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def diff_run(docker_client, demo_repo, tmp_path_factory):
    out = tmp_path_factory.mktemp("diff") / "tasks"
    return out, generate("pr_diff", str(demo_repo), GenerateOptions(probes=False, out=out))


def test_tasks_reasons_and_controls(diff_run):
    out, summary = diff_run
    assert sorted(p.name for p in out.iterdir()) == [f"local__calc-demo-{n}" for n in (1, 3, 4, 5)]
    assert dict(summary.skipped) == {"docs_ci_only": 1} and not summary.errors
    for bundle in out.iterdir():
        meta = read_task_toml(bundle)["metadata"]["repo2env"]
        assert meta["reward_kinds"] == ["diff_similarity"] and meta["evaluation"]["status"] == "verified"
        assert meta["evaluation"]["oracle_reward"] == 1.0
        assert meta["evaluation"]["nop_reward"] == meta["reward_calibration"]["baseline_reward"] == 0.0
        assert sorted(p.name for p in (bundle / "tests").iterdir()) == \
            ["config.json", "instruction.md", "oracle.patch", "test.sh", "verifier.py"]
        assert (bundle / "tests" / "verifier.py").read_bytes() == open(diff_verifier.__file__, "rb").read()
        assert (bundle / "tests" / "oracle.patch").read_bytes() == (bundle / "solution" / "patch.diff").read_bytes()
    patch = (out / "local__calc-demo-1" / "solution" / "patch.diff").read_text()
    assert "tests/test_ops.py" in patch and "calc/ops.py" in patch  # the whole PR diff is the solution


def test_verifier_in_docker_equals_score_on_a_partial_change(diff_run, docker_client, tmp_path, capsys):
    out, _ = diff_run
    bundle = out / "local__calc-demo-1"
    partial = "\n".join(line for line in (bundle / "solution" / "patch.diff").read_text().split("diff --git ")
                        if line.startswith("a/calc/"))
    partial = "diff --git " + partial
    (tmp_path / "partial.diff").write_text(partial)
    image = environment_image(docker_client, bundle / "environment", "local__calc-demo-1")
    with TaskContainer(docker_client, image) as box:
        box.put_dir(tmp_path, "/agent")
        box.exec(["git", "-C", "/workspace", "apply", "/agent/partial.diff"])
        box.put_dir(bundle / "tests", "/tests")
        box.exec(["bash", "/tests/test.sh"])
        in_docker = float(box.read_file("/logs/verifier/reward.txt").decode())
        details = json.loads(box.read_file("/logs/verifier/reward-details.json").decode())
    assert main(["score", str(bundle), str(tmp_path / "partial.diff"), "--json"]) == 0
    on_host = json.loads(capsys.readouterr().out)
    assert on_host["reward"] == in_docker == details["reward"] and 0.3 < in_docker < 1.0
    assert details["components"] == on_host["components"]


def test_text_only_bundles(demo_repo, tmp_path, capsys):
    out = tmp_path / "text"
    code = main(["generate", "--no-probes", "--pipeline", "pr_diff", str(demo_repo), "--out", str(out), "--pr", "4",
                 "--pipeline-opt", "emit_harbor_env=false"])
    assert code == 0
    bundle = out / "local__calc-demo-4"
    assert sorted(str(p.relative_to(bundle)) for p in bundle.rglob("*") if p.is_file()) == \
        ["instruction.md", "solution/patch.diff", "solution/solve.sh", "task.toml"]
    meta = read_task_toml(bundle)["metadata"]["repo2env"]
    assert meta["pr_diff"]["emit_harbor_env"] is False and "reproducibility" not in meta
    assert (meta["evaluation"]["oracle_reward"], meta["evaluation"]["nop_reward"]) == (1.0, 0.0)
    capsys.readouterr()
    assert main(["score", "--task", str(bundle), "--patch", str(bundle / "solution" / "patch.diff")]) == 0
    assert capsys.readouterr().out.startswith("reward 1.0\n")
    subprocess.run(["true"], check=True)
