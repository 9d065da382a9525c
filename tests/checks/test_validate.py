"""repo2env/checks/validate.py and the ``validate``/``hash`` commands on hand-made task folders (no Docker)."""

import json

import pytest

from repo2env.checks.validate import find_tasks, static_report
from repo2env.cli import main
from repo2env.core.errors import InputError

GOOD_TOML = 'version = "1.0"\n[task]\nname = "default/x"\n[agent]\ntimeout_sec = 60.0\n[verifier]\ntimeout_sec = 60.0\n'


def make_task(root, toml=GOOD_TOML, *, test_sh=True, exec_bit=True, instruction="# Do it\n\nPlease.\n"):
    root.mkdir(parents=True)
    (root / "task.toml").write_text(toml)
    (root / "instruction.md").write_text(instruction)
    (root / "environment").mkdir()
    (root / "environment" / "Dockerfile").write_text("FROM python:3.12-slim\n")
    if test_sh:
        (root / "tests").mkdir()
        (root / "tests" / "test.sh").write_text("#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")
        (root / "tests" / "test.sh").chmod(0o755 if exec_bit else 0o644)
    return root


def test_a_foreign_harbor_task_passes(tmp_path):
    report = static_report(make_task(tmp_path / "t"))
    assert report.ok and report.layout == "1.0" and report.bundle_hash.startswith("sha256:")
    assert report.recorded_hash is None


def test_layout_errors(tmp_path):
    bad = static_report(make_task(tmp_path / "a", toml='[task]\nname = "x"\n', exec_bit=False, instruction=" \n"))
    checks = [(f.check, f.message) for f in bad.findings]
    assert ("layout", 'task.toml has neither version = "1.0" nor schema_version = "1.3" or "1.4"') in checks
    assert ("layout", "instruction.md is missing or empty") in checks
    assert ("layout", "tests/test.sh is not executable") in checks and not bad.ok
    broken = make_task(tmp_path / "b")
    (broken / "task.toml").write_text("version = \n")
    assert [f.check for f in static_report(broken).findings] == ["toml"]


def test_metadata_schema_and_recorded_hash(tmp_path):
    toml = GOOD_TOML + '[metadata.repo2env]\npipeline = 3\nbundle_hash = "sha256:00"\n'
    report = static_report(make_task(tmp_path / "t", toml=toml))
    messages = [f.message for f in report.findings]
    assert "[metadata.repo2env] (top): 'repo' is a required property" in messages
    assert any("the bundle changed after it was hashed" in m for m in messages)


def test_symlink_is_refused(tmp_path):
    task = make_task(tmp_path / "t")
    (task / "tests" / "link").symlink_to("/etc/passwd")
    report = static_report(task)
    assert [f.check for f in report.findings] == ["hash"] and "symlinks" in report.findings[0].message


def test_find_tasks_and_cli(tmp_path, capsys):
    make_task(tmp_path / "ds" / "a")
    make_task(tmp_path / "ds" / "b", exec_bit=False)
    assert [p.name for p in find_tasks(tmp_path / "ds")] == ["a", "b"]
    with pytest.raises(InputError, match="no task.toml at or below it"):
        find_tasks(tmp_path / "ds" / "a" / "environment")
    assert main(["validate", str(tmp_path / "ds"), "--json"]) == 1
    reports = json.loads(capsys.readouterr().out)
    assert [r["ok"] for r in reports] == [True, False]
    assert main(["validate", str(tmp_path / "ds" / "a"), "--in-place"]) == 2
    assert "add --run" in capsys.readouterr().err
    assert main(["hash", str(tmp_path / "ds" / "a"), "--check"]) == 2  # nothing recorded to check against


def test_verifier_mode_and_artifacts_follow_harbors_rules():
    from repo2env.checks.separate_verifier import artifact_sources, verifier_mode

    assert verifier_mode({}) == "shared"
    assert verifier_mode({"verifier": {"environment": {"cpus": 1}}}) == "separate"
    assert verifier_mode({"verifier": {"environment_mode": "shared"}}) == "shared"
    assert verifier_mode({"verifier": {"environment_mode": "separate"}}) == "separate"
    config = {"artifacts": ["/w/a.py", {"source": "/w/b.py"}, {"source": "/x", "service": "db"}, "rel/c.py"]}
    assert artifact_sources(config) == ["/w/a.py", "/w/b.py"]
