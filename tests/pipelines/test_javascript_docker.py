"""pr_runtime on a TypeScript package tested with Vitest and on a JavaScript package tested with ``node --test``
(tests/helpers/js_repo.py) end to end in a real Docker engine: exactly the right tasks and FAIL_TO_PASS / PASS_TO_PASS, oracle 1.0 and nop 0.0, every probe that
applies to JavaScript resisted (the honest agent who ran the suite scores 1.0), the instruction states the failing
behaviour without naming a test, and the real Harbor runs a JavaScript bundle."""

import json

import pytest

from repo2env.environment.images import image_exists
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.js_repo import (EXPECTED_SKIPS, EXPECTED_TASKS, NODE_EXPECTED_TASKS, build_js_repo,
                                   build_node_test_repo)
from tests.helpers.toolchain_checks import check_controls_and_probes, check_harbor, check_tasks

pytestmark = pytest.mark.docker


def _generate(docker_client, tmp_path_factory, build, name):
    from repo2env.languages.javascript.recipe import host_node_major, image_for

    if not image_exists(docker_client, image_for(host_node_major())):
        pytest.fail(f"{image_for(host_node_major())} is missing: scripts/setup_docker.sh builds it from this host's "
                    "Node.js")
    root = tmp_path_factory.mktemp("js")
    repo = build(root / name)
    out = root / "tasks"
    summary = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=True))
    return out, summary


@pytest.fixture(scope="module")
def js_run(docker_client, tmp_path_factory):
    return _generate(docker_client, tmp_path_factory, build_js_repo, "jscalc")


@pytest.fixture(scope="module")
def node_test_run(docker_client, tmp_path_factory):
    return _generate(docker_client, tmp_path_factory, build_node_test_repo, "nodecalc")


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


def test_harbor_runs_a_javascript_bundle(js_run, harbor, tmp_path):
    out, _ = js_run
    check_harbor(harbor, out / "local__jscalc-1", tmp_path)


def test_node_test_tasks_controls_and_probes(node_test_run):
    out, summary = node_test_run
    check_tasks(out, summary, "nodecalc", NODE_EXPECTED_TASKS, EXPECTED_SKIPS)
    config = json.loads((out / "local__nodecalc-1" / "tests" / "config.json").read_text())
    assert (config["runner"], config["runner_flags"]) == ("node:test", ["--no-warnings"])
    check_controls_and_probes(out, "javascript")
    text = (out / "local__nodecalc-1" / "instruction.md").read_text()
    assert "clamp" in text and "clamps above the range" not in text


def test_the_egress_guard_blocks_the_npm_registry_in_the_task_container(node_test_run, docker_client):
    from repo2env.environment.containers import TaskContainer
    from repo2env.environment.egress import bundle_hosts
    from repo2env.environment.images import environment_image

    bundle = node_test_run[0] / "local__nodecalc-1"
    image = environment_image(docker_client, bundle / "environment", bundle.name)
    with TaskContainer(docker_client, image, extra_hosts=bundle_hosts(bundle)) as box:
        answers = {host: box.exec(["getent", "hosts", host])[1].split()[:1]
                   for host in ("registry.npmjs.org", "github.com", "pypi.org")}
    assert answers["registry.npmjs.org"] == answers["github.com"] == ["0.0.0.0"]
    assert answers["pypi.org"] != ["0.0.0.0"]  # another language's registry is not this task's guard
