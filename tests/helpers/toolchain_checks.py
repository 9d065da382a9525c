"""What the toolchain languages' end-to-end tests (tests/pipelines/test_{go,javascript,rust}_docker.py) check of a
pr_runtime run on their fixture repository: exactly the expected tasks, FAIL_TO_PASS and PASS_TO_PASS; every
kept task verified with oracle 1.0, nop 0.0 and every probe that applies (the language's own among them)
resisted; the real Harbor grading one bundle 1.0 with the oracle and 0.0 with the nop."""

import json
import shutil
from pathlib import Path

from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.probes import PROBES, applicable
from tests.helpers.harbor import run_trial as harbor_run


def check_tasks(out: Path, summary, name: str, expected_tasks: dict, expected_skips: dict) -> None:
    """``out`` holds ``local__<name>-<n>`` for exactly ``expected_tasks``, with their F2P/P2P lists, and the run
    skipped one candidate per reason of ``expected_skips``."""
    assert sorted(p.name for p in out.iterdir()) == [f"local__{name}-{n}" for n in sorted(expected_tasks)]
    assert dict(summary.skipped) == {reason: 1 for reason in expected_skips.values()} and not summary.errors
    for number, expected in expected_tasks.items():
        bundle = out / f"local__{name}-{number}"
        assert json.loads((bundle / "tests" / "f2p.json").read_text()) == expected["fail_to_pass"]
        assert json.loads((bundle / "tests" / "p2p.json").read_text()) == expected["pass_to_pass"]


def check_controls_and_probes(out: Path, language: str) -> dict:
    """Every bundle in ``out`` verified (oracle 1.0, nop 0.0) with every applicable probe run and resisted, the
    probes of ``language`` among them and pytest's not. Returns ``{bundle name: {probe name: record}}``."""
    own = {p.name for p in PROBES if language in p.languages}
    found = {}
    for bundle in out.iterdir():
        config = read_task_toml(bundle)
        evaluation = config["metadata"]["repo2env"]["evaluation"]
        assert evaluation["status"] == "verified"
        assert (evaluation["oracle_reward"], evaluation["nop_reward"]) == (1.0, 0.0)
        ran = {p["name"]: p for p in evaluation["probes"]}
        assert set(ran) == {p.name for p in applicable(config, bundle)} and own <= set(ran)
        assert "conftest_force_pass" not in ran  # pytest's probes do not apply
        assert all(p["ok"] for p in ran.values()), ran
        found[bundle.name] = ran
    return found


def check_harbor(harbor, bundle: Path, tmp_path: Path) -> None:
    """The real Harbor grades a copy of ``bundle`` 1.0 with its oracle and 0.0 with the nop agent."""
    task = shutil.copytree(bundle, tmp_path / bundle.name)
    assert harbor_run(harbor, task, "oracle", tmp_path / "jobs-oracle") == 1.0
    assert harbor_run(harbor, task, "nop", tmp_path / "jobs-nop") == 0.0
