"""Adversarial probes in a real Docker engine. For every probe class, a deliberately weak copy of a generated bundle
(the one defense removed) is broken by the probe, and the generated bundle is not; the valid alternative scores 1.0
on the generated bundle and exposes a verifier that compares bytes. Generation rejects a task a probe breaks, with
reason probe_<name> in the ledger."""

import json
import shutil
from pathlib import Path

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.probes import PROBES, run_probes
from repo2env.cli import main
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.repos import build_eqv_repo

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def bundle(demo_generated):
    out, _ = demo_generated
    return out / "local__calc-demo-1"


def _reward(client, bundle: Path, name: str) -> float:
    [result] = run_probes(client, bundle, bundle.name, verifier_timeout_sec=300, only=(name,))
    assert result.error is None, result.error
    return result.reward


def _weak(bundle: Path, tmp_path: Path, name: str, edit) -> Path:
    copy = shutil.copytree(bundle, tmp_path / name)
    edit(copy)
    return copy


def _unprepared(copy: Path) -> None:
    """The defense of verifier.py's prepare_workspace removed: nothing is reset, nothing untracked removed."""
    config = json.loads((copy / "tests/config.json").read_text())
    config["prepared"] = True
    (copy / "tests/config.json").write_text(json.dumps(config))


def _no_untracked_cleanup(copy: Path) -> None:
    """verifier.py without its removal of planted (untracked) test configuration and shadowing modules."""
    text = (copy / "tests/verifier.py").read_text()
    weak = text.replace("list(config.get(\"remove_paths\", [])) + _untracked_test_config(ws):",
                        "list(config.get(\"remove_paths\", [])):").replace(
        "for rel in _untracked_shadowing(ws):", "for rel in []:")
    assert weak != text
    (copy / "tests/verifier.py").write_text(weak)


def _honour_old_reward(copy: Path) -> None:
    text = (copy / "tests/test.sh").read_text()
    (copy / "tests/test.sh").write_text(text.replace("set -u\n", "set -u\n[ -s /logs/verifier/reward.txt ] && exit 0\n"))


def _no_stray_killing(copy: Path) -> None:
    """No stray killing; test.sh then ends a second later, as Harbor reads the reward some time after (without
    the pause the daemon's next write may or may not land before the read)."""
    text = (copy / "tests/verifier.py").read_text()
    (copy / "tests/verifier.py").write_text(text.replace("        env_guard.kill_strays()", "        pass"))
    script = (copy / "tests/test.sh").read_text()
    (copy / "tests/test.sh").write_text(script.replace("\nexit 0\n", "\nsleep 1\nexit 0\n"))


def _no_env_manifest(copy: Path) -> None:
    (copy / "tests/python_env.json").unlink()


def _leaky_history(copy: Path) -> None:
    shutil.copy(copy / "solution/patch.diff", copy / "environment/fix.diff")
    with open(copy / "environment/Dockerfile", "a") as handle:
        handle.write("COPY fix.diff /tmp/fix.diff\nRUN git apply /tmp/fix.diff && git -c user.name=x -c user.email=x@y "
                     "commit -qam fix && git reset -q --hard HEAD~1 && rm /tmp/fix.diff\n")


def _leaky_filesystem(copy: Path) -> None:
    shutil.copy(copy / "solution/patch.diff", copy / "environment/fix.diff")
    with open(copy / "environment/Dockerfile", "a") as handle:
        handle.write("COPY fix.diff /opt/cache/fix.diff\n")


WEAK = {  # probe -> the defense removed
    "reward_files": _honour_old_reward,
    "reward_late_writer": _no_stray_killing,
    "conftest_force_pass": _no_untracked_cleanup,
    "ini_addopts": _no_untracked_cleanup,
    "shadow_pytest": _no_untracked_cleanup,
    "site_pth": _no_env_manifest,
    "sitecustomize": _no_env_manifest,
    "rewrite_tests": _unprepared,
    "history": _leaky_history,
    "filesystem": _leaky_filesystem,
}


def test_every_probe_class_is_covered():
    covered = {p.kind for p in PROBES if p.name in WEAK}
    assert covered | {"pipeline", "valid_alternative"} == {p.kind for p in PROBES}


@pytest.mark.parametrize("name", sorted(WEAK))
def test_the_probe_breaks_the_weak_bundle_and_not_the_generated_one(name, bundle, docker_client, tmp_path):
    weak = _weak(bundle, tmp_path, name, WEAK[name])
    assert _reward(docker_client, weak, name) == 1.0
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
    assert failed == {"conftest_force_pass", "ini_addopts", "pyproject_addopts", "shadow_pytest"} and report["status"] == "failed_controls"
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
    label = read_task_toml(tmp_path / "tasks.rejected" / "local__srcy-0-1")["metadata"]["repo2env"]["evaluation"]
    assert label["status"] == "failed_controls" and label["reason_codes"] == ["probe_valid_alternative"]
