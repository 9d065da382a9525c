"""Adversarial probes in a real Docker engine. For every probe class, a deliberately weak copy of a generated bundle
(the one defense removed) is broken by the probe, and the generated bundle is not; the valid alternative scores 1.0
on the generated bundle and exposes a verifier that compares bytes. Generation rejects a task a probe breaks, with
reason probe_<name> in the ledger."""

import json
import re
import shutil
import threading
import time
from pathlib import Path

import pytest
import tomlkit

from repo2env.bundles.inputs import restamp
from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.controls import run_control
from repo2env.checks.probes import PROBES, UNCHANGED, applicable, groups, run_probes
from repo2env.cli import main
from repo2env.environment.containers import LABEL, RUN_ID
from repo2env.environment.images import run_image
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.repos import build_eqv_repo

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def bundle(demo_generated):
    out, _ = demo_generated
    return out / "local__calc-demo-1"


def _reward(client, bundle: Path, name: str, verifier_timeout_sec: float = 300) -> float | None:
    [result] = run_probes(client, bundle, bundle.name, verifier_timeout_sec=verifier_timeout_sec, only=(name,))
    assert result.error is None or verifier_timeout_sec < 300, result.error
    return result.reward


def _weak(bundle: Path, tmp_path: Path, name: str, edit) -> Path:
    """A copy of ``bundle`` with ``edit`` applied, its grader files pinned anew in test.sh (as a weak bundle's
    maker would: without the new pins the bootstrap refuses an edited grader), and the agent root (no
    ``[agent].user``): the unprivileged agent is a defense of its own, removed so that each probe meets only the
    one defense its weak bundle lacks (a root agent can write where a grader's system-level defenses stand)."""
    copy = shutil.copytree(bundle, tmp_path / name)
    edit(copy)
    _as_root(copy)
    restamp(copy)
    return copy


def _as_root(copy: Path) -> None:
    """``[agent].user`` removed from the copy's task.toml: Harbor runs the agent as the image's user, root."""
    doc = tomlkit.parse((copy / "task.toml").read_text())
    doc["agent"].pop("user", None)
    (copy / "task.toml").write_text(tomlkit.dumps(doc))


def _config(copy: Path, **changes) -> None:
    """Change the grader's config.json and stamp the new inputs digest into test.sh (as a weak bundle's maker
    would; without the stamp the grader refuses the changed inputs)."""
    config = json.loads((copy / "tests/config.json").read_text())
    config.update(changes)
    (copy / "tests/config.json").write_text(json.dumps(config))
    assert restamp(copy)


def _edit(copy: Path, rel: str, old: str, new: str, count: int = 1) -> None:
    text = (copy / rel).read_text()
    assert text.count(old) >= count, (rel, old)
    (copy / rel).write_text(text.replace(old, new))


def _unprepared(copy: Path) -> None:
    """The defense of verifier.py's prepare_workspace removed: nothing is reset, nothing planted removed."""
    _config(copy, prepared=True)


def _no_sentinels(copy: Path) -> None:
    """No sentinel tests: nothing tells a runner that reports honestly from one that was changed."""
    _config(copy, sentinels=0)


def _no_untracked_cleanup(copy: Path) -> None:
    """verifier.py without its removal of planted test configuration and shadowing modules (and no sentinels,
    which would catch the plugin these probes load)."""
    _edit(copy, "tests/verifier.py", 'for rel in (planted or planted_files)(ws, inputs["base_files"], list(modes) + '
                                     'list(overlay.get("delete", []))):', "for rel in []:")
    _no_sentinels(copy)


def _honour_old_reward(copy: Path) -> None:
    _edit(copy, "tests/test.sh", "set -u\n", "set -u\n[ -s /logs/verifier/reward.txt ] && exit 0\n")


def _no_stray_killing(copy: Path) -> None:
    """No stray killing, before or after the tests; test.sh then ends a second later, as Harbor reads the reward
    some time after (without the pause the daemon's next write may or may not land before the read)."""
    _edit(copy, "tests/verifier.py", "env_guard.kill_strays()", "None", count=2)
    _edit(copy, "tests/test.sh", "    kill_strays()\n", "    pass\n", count=2)
    _edit(copy, "tests/test.sh", "\nexit 0\n", "\nsleep 1\nexit 0\n")


def _no_env_manifest(copy: Path) -> None:
    """No environment check (and no sentinels, which would catch the plugin these probes load)."""
    (copy / "tests/python_env.json").unlink()
    _no_sentinels(copy)


def _grader_runs_git(copy: Path) -> None:
    """A grader that runs git in the agent's repository after preparing it, as graders that reset test files
    with git do: git runs whatever the repository's configuration names."""
    _edit(copy, "tests/verifier.py", "        files = grade_files(f2p + p2p)",  # after prepare_workspace
          "        subprocess.run(['git', '-C', ws, 'status'], stdout=subprocess.PIPE,"
          " stderr=subprocess.STDOUT)\n        files = grade_files(f2p + p2p)")


def _python_from_path(copy: Path) -> None:
    """test.sh starting the grader as plain ``python3``, found through the agent's PATH."""
    text = (copy / "tests/test.sh").read_text().replace("PATH=/usr/bin:/bin\n", "")
    python = json.loads((copy / "tests/config.json").read_text())["python"]
    (copy / "tests/test.sh").write_text(text.replace(python + " ", "python3 "))


def _unpinned(copy: Path) -> None:
    """A bootstrap that runs the grader files as it finds them in /tests (no sha256 pins checked)."""
    _edit(copy, "tests/test.sh", "if hashlib.sha256(data).hexdigest() != want:", "if False:")


def _system_timeout(copy: Path) -> None:
    """test.sh running the grader under ``/usr/bin/timeout`` (a system program the agent, as root, can replace),
    as graders commonly do."""
    python = json.loads((copy / "tests/config.json").read_text())["python"]
    _edit(copy, "tests/test.sh", "R2E_IN_TASK_CONTAINER=1 " + python, "R2E_IN_TASK_CONTAINER=1 /usr/bin/timeout -s KILL "
          "280 " + python)


def _no_inputs_digest(copy: Path) -> None:
    """test.sh without the inputs digest: the grader trusts whatever is in /tests when it reads it."""
    text = (copy / "tests/test.sh").read_text()
    (copy / "tests/test.sh").write_text(re.sub(r" --inputs-sha256 [0-9a-f]{64}", "", text))


def _readable_report(copy: Path) -> None:
    """No sentinels, and the JUnit report in a folder the runner user owns (it can read the report pytest wrote
    back, and rewrite it at exit) instead of write-only to it."""
    _edit(copy, "tests/verifier.py", "        _write_only_report(junit_path)\n",
          "        os.chown(os.path.dirname(junit_path), runner_uid, runner_uid)\n")
    _no_sentinels(copy)


def _runner_as_root(copy: Path) -> None:
    """pytest as the grader's user (root): the code under test can read the grading lists (and no sentinels or
    twins, whose ids a runner that flips the graded ids flips too)."""
    _config(copy, runner_user=None)
    _no_sentinels(copy)


def _no_twins(copy: Path) -> None:
    """No FAIL_TO_PASS test twinned (config.json's ``twins`` empty, as when the twin trial proves none): the
    sentinels, whose names no graded test has, are all that is left."""
    _config(copy, twins=[])


def _leaky_history(copy: Path) -> None:
    shutil.copy(copy / "solution/patch.diff", copy / "environment/fix.diff")
    with open(copy / "environment/Dockerfile", "a") as handle:
        handle.write("COPY fix.diff /tmp/fix.diff\nRUN git apply /tmp/fix.diff && git -c user.name=x -c user.email=x@y "
                     "commit -qam fix && git reset -q --hard HEAD~1 && rm /tmp/fix.diff\n")


def _leaky_filesystem(copy: Path) -> None:
    shutil.copy(copy / "solution/patch.diff", copy / "environment/fix.diff")
    with open(copy / "environment/Dockerfile", "a") as handle:
        handle.write("COPY fix.diff /opt/cache/fix.diff\n")


def _root_agent(copy: Path) -> None:
    """Nothing but the agent's user removed (``_weak`` makes every weak bundle's agent root)."""


WEAK = {  # probe -> the defense removed
    "stdlib_zip": _root_agent,
    "reward_files": _honour_old_reward,
    "reward_late_writer": _no_stray_killing,
    "conftest_force_pass": _no_untracked_cleanup,
    "ini_addopts": _no_untracked_cleanup,
    "shadow_pytest": _no_untracked_cleanup,
    "site_pth": _no_env_manifest,
    "sitecustomize": _no_env_manifest,
    "rewrite_tests": _unprepared,
    "git_config_program": _grader_runs_git,
    "path_interpreter": _python_from_path,
    "input_rewriter": _no_inputs_digest,
    "grader_swapper": _unpinned,
    "system_program": _system_timeout,
    "code_runner_flip": _no_sentinels,
    "code_early_exit": _no_sentinels,
    "code_spare_copies": _no_sentinels,
    "code_result_rewrite": _readable_report,
    "code_graded_only": _runner_as_root,
    "code_forge_by_name": _no_twins,
    "history": _leaky_history,
    "filesystem": _leaky_filesystem,
}


def _opens_every_file(copy: Path) -> None:
    """An environment check that opens every entry it walks (a FIFO blocks it), and test.sh with no time limit
    on the grader: no reward is written before Harbor's verifier timeout."""
    _edit(copy, "tests/env_guard.py", "    info = os.lstat(path)\n", "    open(path, 'rb').close()\n"
                                                                  "    info = os.lstat(path)\n")
    _edit(copy, "tests/test.sh", "signal.alarm(budget)", "signal.alarm(0)")


HANG = {"fifo_site_packages": _opens_every_file}  # probe -> the defense removed; the weak bundle writes no reward


def test_every_probe_class_is_covered():
    covered = {p.kind for p in PROBES if p.name in WEAK or p.name in HANG}
    assert covered | {"pipeline", "valid_alternative"} == {p.kind for p in PROBES}


@pytest.mark.parametrize("name", sorted(WEAK))
def test_the_probe_breaks_the_weak_bundle_and_not_the_generated_one(name, bundle, docker_client, tmp_path):
    weak = _weak(bundle, tmp_path, name, WEAK[name])
    assert _reward(docker_client, weak, name) == 1.0
    assert _reward(docker_client, bundle, name) == 0.0


# weak bundles whose broken defense a probe that shares a container exploits: every such probe of the demo (the
# grader's cleanup of planted configuration breaks three probes of one group at once; git_config_program's payload
# runs python3, which path_interpreter would replace: that pair shared a container once and this test caught it)
GROUPED_WEAK = sorted(name for name in WEAK if next(p for p in PROBES if p.name == name).surfaces)


def test_a_report_written_by_the_runner_cannot_be_read_back_even_without_sentinels(bundle, docker_client, tmp_path):
    """The sentinels are one defense against the code under test rewriting pytest's report at exit; the report
    being write-only to the runner user is another: with the sentinels removed, the rewrite still scores 0."""
    weak = _weak(bundle, tmp_path, "no_sentinels", _no_sentinels)
    assert _reward(docker_client, weak, "code_result_rewrite") == 0.0


@pytest.mark.parametrize("name", GROUPED_WEAK)
def test_probes_in_one_container_find_what_each_finds_alone(name, bundle, docker_client, tmp_path):
    weak = _weak(bundle, tmp_path, name, WEAK[name])
    config = read_task_toml(weak)
    [group] = [g for g in groups(applicable(config, weak)) if name in {p.name for p in g}]
    assert len(group) > 1
    members = tuple(p.name for p in group)
    nop = run_control(docker_client, weak, run_image(docker_client, weak, config, weak.name), "nop", 0.0,
                      verifier_timeout_sec=300)
    together = run_probes(docker_client, weak, weak.name, verifier_timeout_sec=300, only=members, workers=2,
                          nop_outcome=nop.outcome)
    alone = run_probes(docker_client, weak, weak.name, verifier_timeout_sec=300, only=members, workers=2)
    assert [(r.name, r.reward) for r in together] == [(r.name, r.reward) for r in alone]
    assert name in {r.name for r in together if not r.ok}


def _started_containers(client, call) -> tuple:
    """``(call(), how many containers this process created meanwhile)``, counted by the engine's own events as
    they come (a query of past events after the call would meet the engine's buffer of the last 256)."""
    stream = client.events(decode=True, filters={"type": "container", "event": "create",
                                                 "label": f"{LABEL}={RUN_ID}"})
    seen: list = []
    reader = threading.Thread(target=lambda: seen.extend(stream), daemon=True)
    reader.start()
    try:
        got = call()
        time.sleep(1.0)  # the last event on its way
    finally:
        stream.close()
    return got, len(seen)


def test_an_attack_that_changed_nothing_is_not_graded_and_every_verdict_is_the_plain_one(bundle, docker_client,
                                                                                         monkeypatch):
    """The agent is ``learner``: attacks on the system fail to act. With the nop's outcome given, those are not
    graded (their container is as the nop left it) and groups are kept; without it, every probe acts alone and
    is graded. The verdicts are the same probe for probe. The containers counted are those the probes use: no
    spare is started ahead (``environment.spares``' plain path), which would add one the last probe leaves."""
    monkeypatch.setenv("REPO2RLENV_PLAIN", "1")
    config = read_task_toml(bundle)
    assert config["agent"]["user"] == "learner"
    nop = run_control(docker_client, bundle, run_image(docker_client, bundle, config, bundle.name), "nop", 0.0,
                      verifier_timeout_sec=300)
    fast, fast_starts = _started_containers(docker_client, lambda: run_probes(
        docker_client, bundle, bundle.name, verifier_timeout_sec=300, nop_outcome=nop.outcome, workers=2))
    plain, plain_starts = _started_containers(docker_client, lambda: run_probes(
        docker_client, bundle, bundle.name, verifier_timeout_sec=300, workers=2))
    assert [(r.name, r.reward, r.ok) for r in fast] == [(r.name, r.reward, r.ok) for r in plain]
    # plain: a container per probe; fast: the checks' group, the valid alternative, and per chain (workers=2) one
    # container for each unit whose act changed something (groups of 2 to 10 attacks, code_runner_flip,
    # code_early_exit, code_spare_copies, code_forge_by_name), the attacks that changed nothing acting in those same containers
    assert plain_starts == len(plain) == 30
    assert fast_starts == 9
    idle = {r.name for r in fast if r.detail == UNCHANGED}
    assert {"stdlib_zip", "system_program", "sitecustomize", "site_pth"} <= idle
    assert not idle & {"valid_alternative", "conftest_force_pass", "code_runner_flip", "rewrite_tests"}
    assert not {r.name for r in plain if r.detail == UNCHANGED}


@pytest.mark.parametrize("name", sorted(HANG))
def test_the_probe_hangs_the_weak_bundle_and_the_generated_one_grades_0(name, bundle, docker_client, tmp_path):
    weak = _weak(bundle, tmp_path, name, HANG[name])
    assert _reward(docker_client, weak, name, verifier_timeout_sec=45) is None  # no reward: a verifier timeout
    assert _reward(docker_client, bundle, name) == 0.0


def test_the_valid_alternative_scores_1_and_exposes_a_byte_comparing_verifier(bundle, docker_client, tmp_path):
    assert _reward(docker_client, bundle, "valid_alternative") == 1.0

    def strict(copy: Path) -> None:  # a verifier that only accepts the reference byte for byte
        reference = (copy / "solution/patch.diff").read_text()
        (copy / "tests/reference.diff").write_text(reference)
        (copy / "tests/test.sh").write_text(
            "#!/bin/bash\nmkdir -p /logs/verifier\ncd /workspace\n"
            "if git diff --binary --full-index --no-color | cmp -s - /tests/reference.diff; then echo 1; else echo 0; fi"
            " > /logs/verifier/reward.txt\n")
    weak = _weak(bundle, tmp_path, "strict", strict)
    [oracle] = [r for r in run_probes(docker_client, weak, "strict", verifier_timeout_sec=300,
                                      only=("valid_alternative",))]
    assert oracle.reward == 0.0 and not oracle.ok


def test_equivalence_probes(docker_client, tmp_path):
    repo = build_eqv_repo(tmp_path / "textkit")
    out = tmp_path / "tasks"
    summary = generate("equivalence_tests", str(repo), GenerateOptions(out=out, limit=1))
    assert len(summary.verified) == 1, (summary.skipped, summary.rejected)
    bundle = out / summary.verified[0]
    probes = read_task_toml(bundle)["metadata"]["repo2env"]["evaluation"]["probes"]
    assert {p["name"]: p["reward"] for p in probes} == {
        "reward_files": 0.0, "reward_readonly": 0.0, "reward_dirs": 0.0, "reward_late_writer": 0.0, "site_pth": 0.0,
        "sitecustomize": 0.0, "history": 0.0, "filesystem": 0.0, "eqv_read_tests": 0.0, "eqv_delegate": 0.0,
        "path_interpreter": 0.0, "fifo_site_packages": 0.0, "system_program": 0.0, "stdlib_zip": 0.0,
        "grader_swapper": 0.0,
        "valid_alternative": 1.0}

    def open_tests(copy: Path) -> None:  # the candidate runs as root and may read the grader's files
        text = (copy / "tests/eqv_harness.py").read_text()
        (copy / "tests/eqv_harness.py").write_text(text.replace("sandbox=True)", "sandbox=False)").replace(
            "os.chmod(tests_dir, 0o700)", "pass"))
    weak = _weak(bundle, tmp_path, "open", open_tests)
    assert _reward(docker_client, weak, "eqv_read_tests") == 1.0


def test_validate_run_probes_labels_a_weak_task_failed(demo_generated, tmp_path, capsys):
    out, _ = demo_generated
    weak = _weak(out / "local__calc-demo-4", tmp_path / "tasks", "local__calc-demo-4", _no_untracked_cleanup)
    from repo2env.bundles.hashing import bundle_hash
    from repo2env.bundles.task_toml import set_labels
    from repo2env.core.metadata import Evaluation
    set_labels(weak, bundle_hash=bundle_hash(weak), evaluation=Evaluation(
        status="unverified", stage="generation", reason_codes=["validation_not_run"]))
    assert main(["validate", str(weak), "--run", "--probes", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)[0]
    failed = {p["name"] for p in report["probes"] if not p["ok"]}
    # the cleanup and the sentinels are off: planted plugins and source that changes the reports in pytest's
    # process break it (the shadowing pytest.py and the early exit forge reports without the parametrized ids,
    # which grades 0; the report file, write-only to the runner, cannot be rewritten at exit); the weak copy's
    # agent is root (_weak), so the standard library shadowed from the zip slot breaks it too; with no sentinels
    # there are no twins either, so the graded tests reported passed by name go unseen
    assert failed == {"conftest_force_pass", "ini_addopts", "pyproject_addopts", "code_runner_flip",
                      "code_spare_copies", "stdlib_zip", "code_forge_by_name"} and report["status"] == "failed_controls"
    assert any(f["check"] == "probes" and "probe_" in f["message"] for f in report["findings"])


PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"
[project]
name = "srcy"
version = "0.1"
[project.optional-dependencies]
test = ["pytest"]
[tool.setuptools]
packages = ["srcy"]
"""


def test_generation_rejects_with_probe_reason_in_the_ledger(new_repo, tmp_path):
    """A test that reads the source text (a comment) passes the oracle but not an honest reformatted solution:
    the task is rejected with probe_valid_alternative."""
    from tests.helpers.repos import commit_files, git

    repo = new_repo("srcy")
    test_v1 = "from srcy import half\n\n\ndef test_half():\n    assert half(4) == 2\n"
    commit_files(repo, "init", {"pyproject.toml": PYPROJECT, "srcy/__init__.py": "def half(x):\n    return x // 3\n",
                                "tests/test_half.py": test_v1})
    git(repo, "checkout", "-q", "-b", "fix")
    commit_files(repo, "Fix half", {
        "srcy/__init__.py": "def half(x):\n    # halved, not thirded\n    return x // 2\n",
        "tests/test_half.py": test_v1 + "\n\ndef test_comment():\n    import inspect, srcy\n"
                                        "    assert '# halved' in inspect.getsource(srcy)\n"})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "fix", "-m", "Merge pull request #1 from a/fix\n\nhalf() divided by three "
        "instead of two, so every caller that halves a quantity got a third of it back.")
    out = tmp_path / "tasks"
    summary = generate("pr_runtime", str(repo), GenerateOptions(out=out))
    assert summary.rejected == {"probe_valid_alternative": 1} and not summary.verified
    entry = json.loads((tmp_path / "tasks.ledger.jsonl").read_text().splitlines()[-1])
    assert entry["status"] == "rejected" and entry["reason"] == "probe_valid_alternative"
    # the ledger says what the probe scored (tenacity pr#605 was rejected by a probe with a null detail)
    assert entry["detail"].startswith("probe valid_alternative: reward 0.0 (at most 1.0)"), entry["detail"]
    label = read_task_toml(tmp_path / "tasks.rejected" / "local__srcy-0-1")["metadata"]["repo2env"]["evaluation"]
    assert label["status"] == "failed_controls" and label["reason_codes"] == ["probe_valid_alternative"]
