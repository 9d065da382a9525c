"""The gym-style interface on the demo's tasks in a real Docker engine: a scripted policy that reads the
instruction, applies the fix with shell actions and submits gets 1.0; submitting with no edit gets 0.0; a task
rebuilt from a task bank's reset package reproduces the reward; no container is left behind."""

import base64
import json
from pathlib import Path

import pytest

from repo2env.environment.containers import LABEL, RUN_ID
from repo2env.export.task_bank import check_export, write_bank
from repo2env.export.task_config import write_task_config
from repo2env.gym import SUBMIT, RepoTask, RepoTasks

pytestmark = pytest.mark.docker
TASK = "local__calc-demo-1"


def _ours(client) -> int:
    """Containers this test process started (other runs on the machine have their own run id)."""
    return len(client.containers.list(all=True, filters={"label": f"{LABEL}={RUN_ID}"}))


def _fix_actions(bundle: Path) -> list[str]:
    """Shell actions that apply the reference: the patch (layout 1.0) or the reference files (1.3/1.4),
    written through base64 so that no quoting can break them."""
    patch = bundle / "solution" / "patch.diff"
    if patch.is_file():
        data = base64.b64encode(patch.read_bytes()).decode()
        return [f"echo {data} | base64 -d > /tmp/fix.diff", "git apply /tmp/fix.diff && git status --short"]
    actions = []
    for ref in sorted(p for p in (bundle / "solution" / "reference").rglob("*") if p.is_file()):
        rel = ref.relative_to(bundle / "solution" / "reference").as_posix()
        actions.append(f"echo {base64.b64encode(ref.read_bytes()).decode()} | base64 -d > /workspace/{rel}")
    return actions


def _scripted(task, bundle: Path) -> tuple[float, list[dict]]:
    first = task.reset()
    assert "## " in first["instruction"] or len(first["instruction"]) > 40  # it reads a real instruction
    seen = []
    for action in _fix_actions(bundle):
        observation, reward, done = task.step(task.answer_parser(f"Applying the fix.\n```bash\n{action}\n```"))
        assert (reward, done) == (0.0, False) and observation["exit_code"] == 0, observation
        seen.append(observation)
    observation, reward, done = task.step(task.answer_parser("Done.\nSUBMIT"))
    assert done and observation["submitted"]
    return reward, seen


@pytest.mark.parametrize("fixture", ["demo_generated", "demo_generated_14"])
def test_a_scripted_fix_scores_1_and_no_edit_scores_0(fixture, request, docker_client):
    out, _ = request.getfixturevalue(fixture)
    before = _ours(docker_client)
    with RepoTask(out / TASK, client=docker_client) as task:
        reward, _ = _scripted(task, out / TASK)
        assert reward == 1.0
        assert _ours(docker_client) == before  # graded and cleaned up at once
        task.reset()
        observation, _, _ = task.step("ls /workspace")
        assert observation["exit_code"] == 0 and observation["steps_left"] == task.max_env_steps - 1
        _, reward, done = task.step(SUBMIT)
        assert (reward, done) == (0.0, True)
        with pytest.raises(RuntimeError):
            task.step("ls")
    assert _ours(docker_client) == before


def test_a_task_never_closed_leaves_no_container(demo_generated_14, docker_client):
    import gc

    out, _ = demo_generated_14
    before = _ours(docker_client)
    task = RepoTask(out / TASK, client=docker_client)
    task.reset()
    task.step("echo hi")
    assert _ours(docker_client) == before + 1
    del task  # a script that ends, or drops the task, without close()
    gc.collect()
    assert _ours(docker_client) == before


def test_the_step_budget_ends_the_episode_with_its_grade(demo_generated_14, docker_client):
    out, _ = demo_generated_14
    task = RepoTask(out / TASK, client=docker_client, max_env_steps=1)
    task.reset()
    observation, reward, done = task.step(task.answer_parser("```bash\nyes | head -c 100000\n```"))
    assert done and reward == 0.0 and observation["reason"] == "max_env_steps"
    assert observation["truncated"] is True and len(observation["output"]) == task.output_limit


def test_a_bank_row_reproduces_the_reward_through_its_reset_package(demo_generated_14, docker_client, tmp_path):
    out, _ = demo_generated_14
    bank = tmp_path / "bank.jsonl"
    assert write_bank(sorted(out.iterdir()), bank, max_steps=20) == 3
    assert check_export(bank) == (3, [])
    rows = [json.loads(line) for line in bank.read_text().splitlines()]
    row = next(r for r in rows if r["task_id"] == TASK)
    assert row["verifier_id"] == "R2E-RUNTIME" and row["task_spec"]["fail_to_pass"]
    assert row["harbor_reset"]["fixture_id"] == row["task_spec"]["bundle_hash"]  # not pushed: the bundle hash
    task = RepoTask.from_reset(row["harbor_reset"], out, client=docker_client)
    assert task.max_env_steps == 20
    reward, _ = _scripted(task, out / TASK)
    assert reward == 1.0
    # the dataset-level task of the config file serves the same tasks in order
    config = write_task_config(out, len(rows), tmp_path / "configs")
    assert "_target_: repo2env.gym.RepoTasks" in config.read_text()
    served = RepoTasks(out, client=docker_client, max_env_steps=5)
    assert served.reset(TASK)["task_id"] == TASK
    served.close()
