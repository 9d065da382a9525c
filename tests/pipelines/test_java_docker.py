"""pr_runtime on a Maven project (tests/helpers/java_repo.py) end to end in a real Docker engine: exactly the right
tasks and FAIL_TO_PASS / PASS_TO_PASS (a parameterized test's cases; a test class that does not compile before
the fix keeps its older tests as PASS_TO_PASS), oracle 1.0 and nop 0.0, every probe that applies to Java resisted,
the instruction states the failing behaviour without naming a test, and the real Harbor runs a Java bundle."""

import pytest

from repo2env.environment.images import image_exists
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.java_repo import EXPECTED_SKIPS, EXPECTED_TASKS, build_java_repo
from tests.helpers.toolchain_checks import check_controls_and_probes, check_harbor, check_tasks

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def java_run(docker_client, tmp_path_factory):
    from repo2env.languages.java.recipe import host_java_version, image_for

    if not image_exists(docker_client, image_for(host_java_version())):
        pytest.fail(f"{image_for(host_java_version())} is missing: scripts/setup_docker.sh builds it from this host's "
                    "JDK and Maven")
    root = tmp_path_factory.mktemp("java")
    repo = build_java_repo(root / "calc")
    out = root / "tasks"
    summary = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=True))
    return out, summary


def test_exactly_the_right_tasks_and_reasons(java_run):
    out, summary = java_run
    check_tasks(out, summary, "calc", EXPECTED_TASKS, EXPECTED_SKIPS)


def test_controls_and_every_java_probe(java_run):
    out, _ = java_run
    ran = check_controls_and_probes(out, "java")
    assert {"java_build_config", "java_code_forge", "java_valid_alternative"} <= set(ran["local__calc-1"])


def test_instruction_states_the_failure_and_names_no_test(java_run):
    out, _ = java_run
    text = (out / "local__calc-4" / "instruction.md").read_text()
    assert 'Calling `Sizes.parseSize` throws `NumberFormatException: For input string: "1 KB"`' in text
    text5 = (out / "local__calc-5" / "instruction.md").read_text()
    assert "The class `Calc` has no method `lerp`; it should provide it." in text5
    for leak in ("parsesUnits", "SizesTest", "lerpMidpoint", "CalcTest"):
        assert leak not in text and leak not in text5
    assert "`mvn test`" in text  # the Java grader's rules, not pytest's


def test_harbor_runs_a_java_bundle(java_run, harbor, tmp_path):
    out, _ = java_run
    check_harbor(harbor, out / "local__calc-1", tmp_path)
