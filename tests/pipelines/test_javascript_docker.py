"""pr_runtime on a TypeScript package tested with Vitest (tests/helpers/js_repo.py) end to end in a real Docker
engine: exactly the right tasks and FAIL_TO_PASS / PASS_TO_PASS, oracle 1.0 and nop 0.0, every probe that
applies to JavaScript resisted (the honest agent who ran the suite scores 1.0), the instruction states the failing
behaviour without naming a test, and the real Harbor runs a JavaScript bundle."""

import json

import pytest

from repo2env.environment.images import image_exists
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.checks.test_harbor_crosscheck import harbor  # noqa: F401 (the fixture)
from tests.helpers.js_repo import EXPECTED_SKIPS, EXPECTED_TASKS, build_js_repo
from tests.helpers.toolchain_checks import check_controls_and_probes, check_harbor, check_tasks

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
    check_tasks(out, summary, "jscalc", EXPECTED_TASKS, EXPECTED_SKIPS)
    for number in EXPECTED_TASKS:
        assert json.loads((out / f"local__jscalc-{number}" / "tests" / "config.json").read_text())["runner"] == "vitest"


def test_controls_and_every_javascript_probe(js_run):
    out, _ = js_run
    probes = check_controls_and_probes(out, "javascript")
    assert all(ran["js_valid_alternative"]["reward"] == 1.0 for ran in probes.values())


def test_instruction_states_the_failure_and_names_no_test(js_run):
    out, _ = js_run
    text = (out / "local__jscalc-1" / "instruction.md").read_text()
    assert "Calling `clamp` with `15`, `0` and `10` returns `15`" in text
    for leak in ("clamps above the range", "clamp.test.ts"):
        assert leak not in text
    assert "node_modules" in text  # the JavaScript grader's rules


def test_harbor_runs_a_javascript_bundle(js_run, harbor, tmp_path):  # noqa: F811
    out, _ = js_run
    check_harbor(harbor, out / "local__jscalc-1", tmp_path)
