"""pr_runtime on a TypeScript package tested with Vitest (tests/helpers/js_repo.py) end to end in a real Docker
engine: exactly the right tasks and FAIL_TO_PASS / PASS_TO_PASS, oracle 1.0 and nop 0.0, every probe that
applies to JavaScript resisted (the honest agent who ran the suite scores 1.0), the instruction states the failing
behaviour without naming a test, and the real Harbor runs a JavaScript bundle."""

import json
import shutil

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.probes import PROBES, applicable
from repo2env.environment.images import image_exists
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.checks.test_harbor_crosscheck import _run as harbor_run
from tests.checks.test_harbor_crosscheck import harbor  # noqa: F401 (the fixture)
from tests.helpers.js_repo import EXPECTED_SKIPS, EXPECTED_TASKS, build_js_repo

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def js_run(docker_client, tmp_path_factory):
    from repo2env.languages.javascript.recipe import host_node_major, image_for

    if not image_exists(docker_client, image_for(host_node_major())):
        pytest.fail(f"{image_for(host_node_major())} is missing: scripts/setup_docker.sh builds it from this host's "
                    "Node.js")
    root = tmp_path_factory.mktemp("js")
    repo = build_js_repo(root / "jscalc")
    out = root / "tasks"
    summary = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=True))
    return out, summary


def test_exactly_the_right_tasks_and_reasons(js_run):
    out, summary = js_run
    assert sorted(p.name for p in out.iterdir()) == [f"local__jscalc-{n}" for n in sorted(EXPECTED_TASKS)]
    assert dict(summary.skipped) == {reason: 1 for reason in EXPECTED_SKIPS.values()} and not summary.errors
    for number, expected in EXPECTED_TASKS.items():
        bundle = out / f"local__jscalc-{number}"
        assert json.loads((bundle / "tests" / "f2p.json").read_text()) == expected["fail_to_pass"]
        assert json.loads((bundle / "tests" / "p2p.json").read_text()) == expected["pass_to_pass"]
        assert json.loads((bundle / "tests" / "config.json").read_text())["runner"] == "vitest"


def test_controls_and_every_javascript_probe(js_run):
    out, _ = js_run
    js_probes = {p.name for p in PROBES if "javascript" in p.languages}
    for bundle in out.iterdir():
        config = read_task_toml(bundle)
        evaluation = config["metadata"]["repo2env"]["evaluation"]
        assert evaluation["status"] == "verified"
        assert (evaluation["oracle_reward"], evaluation["nop_reward"]) == (1.0, 0.0)
        ran = {p["name"]: p for p in evaluation["probes"]}
        assert set(ran) == {p.name for p in applicable(config, bundle)} and js_probes <= set(ran)
        assert ran["js_valid_alternative"]["reward"] == 1.0
        assert all(p["ok"] for p in ran.values()), ran


def test_instruction_states_the_failure_and_names_no_test(js_run):
    out, _ = js_run
    text = (out / "local__jscalc-1" / "instruction.md").read_text()
    assert "Calling `clamp` with `15`, `0` and `10` returns `15`" in text
    for leak in ("clamps above the range", "clamp.test.ts"):
        assert leak not in text
    assert "node_modules" in text  # the JavaScript grader's rules


def test_harbor_runs_a_javascript_bundle(js_run, harbor, tmp_path):  # noqa: F811
    out, _ = js_run
    task = shutil.copytree(out / "local__jscalc-1", tmp_path / "local__jscalc-1")
    assert harbor_run(harbor, task, "oracle", tmp_path / "jobs-oracle") == 1.0
    assert harbor_run(harbor, task, "nop", tmp_path / "jobs-nop") == 0.0
