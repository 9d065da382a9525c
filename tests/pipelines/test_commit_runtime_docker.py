"""commit_runtime end to end in a real Docker engine, on a repository of plain commits (tests/commit_repo.py):
a fix with a new test, a fix that only edits an existing test, a refactor, docs commits, a bot commit, a fix whose
test already passed, a short message, a merge, a helpers-only test change and a commit with no fix signal."""

import json

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.pipeline import GenerateOptions
from repo2env.run import ledger
from repo2env.run.generate import generate
from tests.helpers.repos import EXPECTED_SKIPS, EXPECTED_TASKS, build_commit_repo

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def commit_run(docker_client, tmp_path_factory):
    root = tmp_path_factory.mktemp("commit-run")
    shas = build_commit_repo(root / "mathx")
    out = root / "tasks"
    summary = generate("commit_runtime", str(root / "mathx"), GenerateOptions(probes=False, out=out))
    return shas, out, summary


def test_exactly_the_right_tasks_and_reasons(commit_run):
    shas, out, summary = commit_run
    keys = {sha[:12]: key for key, sha in shas.items()}
    assert sorted(p.name for p in out.iterdir()) == sorted(f"local__mathx-{shas[k][:12]}" for k in EXPECTED_TASKS)
    entries = {e.candidate: e for e in ledger.read(ledger.ledger_path(out))}
    reasons = {keys[c.split(":")[1]]: e.reason for c, e in entries.items() if e.status == "skipped"}
    assert reasons == EXPECTED_SKIPS
    assert summary.candidates == len(EXPECTED_TASKS) + len(EXPECTED_SKIPS) and not summary.errors
    for key, expected in EXPECTED_TASKS.items():
        bundle = out / f"local__mathx-{shas[key][:12]}"
        assert sorted(json.loads((bundle / "tests" / "f2p.json").read_text())) == expected["fail_to_pass"]


def test_commit_metadata_and_instruction(commit_run):
    shas, out, _ = commit_run
    bundle = out / f"local__mathx-{shas['fix_percent'][:12]}"
    config = read_task_toml(bundle)
    meta = config["metadata"]["repo2env"]
    table = meta["commit_runtime"]
    assert (table["commit_sha"], table["parent_sha"]) == (shas["fix_percent"], shas["helpers_only"])
    assert (table["head_commit"], table["base_commit"]) == (shas["fix_percent"], shas["helpers_only"])
    assert table["subject"] == "Correct percent() to round to the nearest integer" and table["issue_numbers"] == []
    assert table["fail_to_pass"] == ["tests/test_core.py::test_percent"]
    assert "reference" not in meta  # a local path has no host: no fabricated URL
    assert meta["pipeline"] == "commit_runtime" and meta["evaluation"]["status"] == "verified"
    instruction = (bundle / "instruction.md").read_text()
    assert instruction.startswith("# Correct percent() to round to the nearest integer\n") and "67" in instruction
    assert "test_percent" not in instruction
