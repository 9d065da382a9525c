"""export's input checks, on bundles made by hand (no Docker): only bundles verified on their present bytes are
exported; --out never lands in the tasks; a bank or pack that breaks its shape is reported by validate."""

import json
import shutil
from pathlib import Path

import tomlkit

from repo2env.bundles.hashing import bundle_hash
from repo2env.cli import main

TOML = """version = "1.0"

[task]
name = "default/{id}"

[metadata.repo2env]
pipeline = "pr_runtime"
pipeline_version = "0.1.0"
repo = "local/calc"
reward_kinds = ["test_execution"]

[metadata.repo2env.pr_runtime]
base_commit = "{sha}"
fail_to_pass = ["tests/test_ops.py::test_add"]
pass_to_pass = ["tests/test_ops.py::test_sub"]

[agent]
timeout_sec = 600.0

[verifier]
timeout_sec = 300.0
"""


def _bundle(root: Path, task_id: str, status: str = "verified") -> Path:
    task = root / task_id
    (task / "tests").mkdir(parents=True)
    (task / "instruction.md").write_text("# Adding negative numbers gives the wrong sign\n")
    (task / "tests" / "test.sh").write_text("#!/bin/bash\n")
    (task / "task.toml").write_text(TOML.format(id=task_id, sha="a" * 40))
    doc = tomlkit.parse((task / "task.toml").read_text())
    doc["metadata"]["repo2env"]["evaluation"] = {"status": status, "subject_bundle_hash": bundle_hash(task)}
    (task / "task.toml").write_text(tomlkit.dumps(doc))
    return task


def test_only_tasks_verified_on_their_present_bytes_are_exported(tmp_path, capsys):
    tasks = tmp_path / "tasks"
    _bundle(tasks, "local__calc-1")
    _bundle(tasks, "local__calc-2", status="failed_controls")
    edited = _bundle(tasks, "local__calc-3")
    (edited / "instruction.md").write_text("# edited by hand\n")
    assert main(["export", str(tasks), "--format", "task-bank", "--out", str(tmp_path / "bank.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "task-bank: 1 task(s)" in out
    assert "left out: local__calc-2 (evaluation failed_controls)" in out
    assert "left out: local__calc-3 (changed since it was verified" in out and "restamp" in out
    [row] = [json.loads(line) for line in (tmp_path / "bank.jsonl").read_text().splitlines()]
    assert (row["task_id"], row["verifier_id"], row["task_spec"]["fail_to_pass"]) == (
        "local__calc-1", "R2E-RUNTIME", ["tests/test_ops.py::test_add"])
    assert row["harbor_reset"]["task_spec"] == row["task_spec"] and row["task_spec"]["constraints"]["network"] == "guarded"
    assert main(["validate", str(tmp_path / "bank.jsonl")]) == 0


def test_out_inside_the_tasks_or_of_the_wrong_kind_is_refused_and_nothing_is_written(tmp_path, capsys):
    tasks = tmp_path / "tasks"
    _bundle(tasks, "local__calc-1")
    before = sorted(p.relative_to(tasks) for p in tasks.rglob("*"))
    assert main(["export", str(tasks), "--format", "task-pack", "--out", str(tasks)]) == 2
    assert "inside (or around) the tasks folder" in capsys.readouterr().err
    assert main(["export", str(tasks), "--format", "task-pack", "--out", str(tasks / "local__calc-1")]) == 2
    assert main(["export", str(tasks), "--format", "task-bank", "--out", str(tmp_path)]) == 2
    assert "inside (or around)" in capsys.readouterr().err
    (tmp_path / "pack").mkdir()
    assert main(["export", str(tasks), "--format", "task-bank", "--out", str(tmp_path / "pack")]) == 2
    assert "task-bank writes one JSONL file" in capsys.readouterr().err
    assert main(["export", str(tmp_path / "nowhere"), "--format", "task-bank", "--out", str(tmp_path / "b.jsonl")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert sorted(p.relative_to(tasks) for p in tasks.rglob("*")) == before
    assert not list(tmp_path.rglob(".*.tmp"))


def test_validate_reports_a_pack_with_a_missing_or_misnamed_definition_and_an_empty_bank(tmp_path, capsys):
    tasks = tmp_path / "tasks"
    _bundle(tasks, "local__calc-1")
    _bundle(tasks, "local__calc-4")
    pack = tmp_path / "pack"
    assert main(["export", str(tasks), "--format", "task-pack", "--out", str(pack)]) == 0
    assert main(["validate", str(pack)]) == 0
    shutil.move(pack / "tasks" / "local__calc-4", pack / "tasks" / "renamed")
    (pack / "tasks" / "empty").mkdir()
    assert main(["validate", str(pack)]) == 1
    out = capsys.readouterr().out
    assert "its task_id 'local__calc-4' is not its folder's name" in out and "empty: no task_definition.json" in out
    (tmp_path / "empty.jsonl").write_text("")
    assert main(["validate", str(tmp_path / "empty.jsonl")]) == 1
    assert "no rows" in capsys.readouterr().out
