"""``validate --run``, ``hash --check`` and bundle-hash stability on generated demo bundles, in real Docker."""

import json
import os
import shutil

import pytest

from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.task_toml import read_task_toml
from repo2env.cli import main
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate

pytestmark = pytest.mark.docker


def test_validate_run_labels_a_copy_and_hash_check_passes(demo_generated, tmp_path, capsys):
    out, _ = demo_generated
    task = shutil.copytree(out / "local__calc-demo-4", tmp_path / "tasks" / "local__calc-demo-4")
    assert main(["hash", str(task), "--check"]) == 0
    assert "matches the recorded bundle_hash" in capsys.readouterr().out
    assert main(["validate", str(tmp_path / "tasks"), "--run", "--out", str(tmp_path / "checked"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)[0]  # stdout holds the JSON document alone
    assert report["ok"] and report["controls"]["oracle"]["reward"] == 1.0 and report["controls"]["nop"]["reward"] == 0.0
    evaluation = read_task_toml(tmp_path / "checked" / "local__calc-demo-4")["metadata"]["repo2env"]["evaluation"]
    assert evaluation["stage"] == "validation" and evaluation["status"] == "verified"
    assert evaluation["subject_bundle_hash"] == bundle_hash(task)


def test_one_byte_or_one_mode_bit_fails_hash_check_and_validate(demo_generated, tmp_path, capsys):
    out, _ = demo_generated
    byte = shutil.copytree(out / "local__calc-demo-1", tmp_path / "byte")
    test_sh = byte / "tests" / "test.sh"
    test_sh.write_bytes(test_sh.read_bytes().replace(b"exit 0", b"exit 1"))
    mode = shutil.copytree(out / "local__calc-demo-1", tmp_path / "mode")
    (mode / "solution" / "solve.sh").chmod(0o644)
    for task in (byte, mode):
        assert main(["hash", str(task), "--check"]) == 1
        assert "bundle hash differs from the recorded" in capsys.readouterr().err
        assert main(["validate", str(task)]) == 1
        assert "the bundle changed after it was hashed" in capsys.readouterr().out


def test_the_same_bundle_built_twice_has_the_same_hash(demo_generated, demo_repo, tmp_path):
    out, _ = demo_generated
    first = generate("pr_runtime", str(demo_repo), GenerateOptions(probes=False, out=tmp_path / "a" / "tasks", numbers=(4,)))
    old = os.umask(0o077)
    try:
        second = generate("pr_runtime", str(demo_repo), GenerateOptions(probes=False, out=tmp_path / "b" / "elsewhere",
                                                                        numbers=(4,)))
    finally:
        os.umask(old)
    assert first.verified == second.verified == ["local__calc-demo-4"]
    hashes = {bundle_hash(d / "local__calc-demo-4") for d in (tmp_path / "a" / "tasks", tmp_path / "b" / "elsewhere", out)}
    assert len(hashes) == 1
