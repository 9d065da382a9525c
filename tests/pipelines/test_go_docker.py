"""pr_runtime on a Go module (tests/helpers/go_repo.py) end to end in a real Docker engine: exactly the right
tasks and FAIL_TO_PASS / PASS_TO_PASS, oracle 1.0 and nop 0.0, every probe that applies to Go resisted, the
instruction states the failing behaviour without naming a test, and the real Harbor runs a Go bundle."""

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.environment.images import image_exists
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.go_repo import EXPECTED_SKIPS, EXPECTED_TASKS, build_go_repo
from tests.helpers.toolchain_checks import check_controls_and_probes, check_harbor, check_tasks

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def go_run(docker_client, tmp_path_factory):
    from repo2env.languages.go.recipe import host_go_version, image_for

    if not image_exists(docker_client, image_for(host_go_version())):
        pytest.fail(f"{image_for(host_go_version())} is missing: scripts/setup_docker.sh builds it from this host's Go")
    root = tmp_path_factory.mktemp("go")
    repo = build_go_repo(root / "gocalc", root / "scratch")
    out = root / "tasks"
    summary = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=True))
    return out, summary


def test_exactly_the_right_tasks_and_reasons(go_run):
    out, summary = go_run
    check_tasks(out, summary, "gocalc", EXPECTED_TASKS, EXPECTED_SKIPS)


def test_controls_and_every_go_probe(go_run):
    out, _ = go_run
    check_controls_and_probes(out, "go")
    for bundle in out.iterdir():
        assert read_task_toml(bundle)["metadata"]["repo2env"]["reproducibility"]["bootstrap_image"].startswith(
            "local/r2e-bootstrap/")


def test_instruction_states_the_failure_and_names_no_test(go_run):
    out, _ = go_run
    text = (out / "local__gocalc-4" / "instruction.md").read_text()
    assert '`ParseSize("1 KB")` returns `0, invalid size "1 KB"`' in text
    for leak in ("TestParseSizeUnits", "sizes_test.go", "one_kilo_byte"):
        assert leak not in text
    assert "`go test`" in text  # the Go grader's rules, not pytest's


def test_harbor_runs_a_go_bundle(go_run, harbor, tmp_path):
    out, _ = go_run
    check_harbor(harbor, out / "local__gocalc-1", tmp_path)
