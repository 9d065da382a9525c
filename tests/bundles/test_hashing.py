"""repo2env/bundles/hashing.py and repo2env/bundles/stage.py: stable hashes, atomic publishing."""

import os
import shutil

import pytest

from repo2env.bundles.hashing import bundle_hash, content_hash
from repo2env.bundles.stage import BundleStage, staging_root
from repo2env.bundles.task_toml import set_labels
from repo2env.core.errors import InputError
from repo2env.core.metadata import Evaluation

TOML = '''version = "1.0"
[task]
name = "default/x"
[metadata.repo2env]
pipeline = "pr_runtime"
content_hash = "sha256:abc"
[metadata.repo2env.evaluation]
status = "unverified"
'''


def _write_bundle(out, umask):
    old = os.umask(umask)
    try:
        stage = BundleStage(out, "acme__w-1")
        stage.write_text("task.toml", TOML)
        stage.write_text("instruction.md", "# Fix it\n")
        stage.write_text("solution/solve.sh", "#!/bin/bash\n", executable=True)
        stage.write_bytes("solution/patch.diff", b"diff\r\n")
        stage.write_text("tests/test.sh", "#!/bin/bash\n", executable=True)
        return stage.publish(out / "acme__w-1")
    finally:
        os.umask(old)


def test_hash_is_stable_across_dirs_and_umasks(tmp_path):
    a = _write_bundle(tmp_path / "one" / "out", 0o022)
    b = _write_bundle(tmp_path / "two" / "deeper" / "out", 0o077)
    assert bundle_hash(a) == bundle_hash(b)
    assert bundle_hash(a).startswith("sha256:") and len(bundle_hash(a)) == 71
    assert content_hash(a) == content_hash(b)


def test_labels_do_not_change_the_hash_but_a_byte_or_mode_does(tmp_path):
    bundle = _write_bundle(tmp_path / "out", 0o022)
    before = bundle_hash(bundle)
    set_labels(bundle, bundle_hash=before,
               evaluation=Evaluation(status="verified", stage="generation", reason_codes=[]))
    assert bundle_hash(bundle) == before
    assert 'status = "verified"' in (bundle / "task.toml").read_text()
    test_sh = bundle / "tests" / "test.sh"
    os.chmod(test_sh, 0o644)
    assert bundle_hash(bundle) != before
    os.chmod(test_sh, 0o755)
    test_sh.write_text("#!/bin/bash\n#\n")
    assert bundle_hash(bundle) != before


def test_content_hash_covers_instruction_and_solution_only(tmp_path):
    bundle = _write_bundle(tmp_path / "out", 0o022)
    before = content_hash(bundle)
    (bundle / "tests" / "test.sh").write_text("changed\n")
    assert content_hash(bundle) == before
    (bundle / "instruction.md").write_text("# Other\n")
    assert content_hash(bundle) != before


def test_symlinks_are_refused(tmp_path):
    bundle = _write_bundle(tmp_path / "out", 0o022)
    os.symlink("/etc/passwd", bundle / "tests" / "link")
    with pytest.raises(InputError, match="symlinks"):
        bundle_hash(bundle)


def test_publish_replaces_and_leaves_no_staging(tmp_path):
    out = tmp_path / "out"
    first = _write_bundle(out, 0o022)
    (first / "stale.txt").write_text("old")
    second = _write_bundle(out, 0o022)
    assert first == second and not (second / "stale.txt").exists()
    assert not staging_root(out).exists()


def test_discard_and_cr_refused(tmp_path):
    out = tmp_path / "out"
    stage = BundleStage(out, "t-1")
    with pytest.raises(ValueError, match="LF"):
        stage.write_text("tests/test.sh", "echo\r\n")
    stage.discard()
    assert not staging_root(out).exists() and not out.exists()
    shutil.rmtree(tmp_path)


def test_only_a_python_grader_of_38_or_later_gets_the_bytecode_step():
    """layout13._bytecode_step: the verifier image compiles into BYTECODE for a Python grader whose interpreter
    knows PYTHONPYCACHEPREFIX (3.8+); another language's runner and an older interpreter get no step."""
    from repo2env.bundles.layout13 import BYTECODE, _bytecode_step

    step = _bytecode_step({"python": "/usr/local/bin/python3.12"})
    assert step.startswith(f"RUN PYTHONPYCACHEPREFIX={BYTECODE} /usr/local/bin/python3.12 -c ")
    assert _bytecode_step({"python": "/usr/local/bin/python3.10"}) and _bytecode_step({"python": "/x/python3.8"})
    assert _bytecode_step({"python": "/usr/local/bin/python3.7"}) == ""
    assert _bytecode_step({"python": "/usr/local/bin/python3.12", "language": "go"}) == ""
    assert _bytecode_step({}) == ""
