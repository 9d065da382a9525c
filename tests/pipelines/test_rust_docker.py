"""pr_runtime on a cargo package (tests/helpers/rust_repo.py) end to end in a real Docker engine: exactly the right
tasks and FAIL_TO_PASS / PASS_TO_PASS, oracle 1.0 and nop 0.0, every probe that applies to Rust resisted, the
instruction states the failing behaviour without naming a test, and the real Harbor runs a Rust bundle."""

import json

import pytest

from repo2env.environment.images import image_exists
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.rust_repo import EXPECTED_SKIPS, EXPECTED_TASKS, build_rust_repo
from tests.helpers.toolchain_checks import check_controls_and_probes, check_harbor, check_tasks

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def rust_run(docker_client, tmp_path_factory):
    from repo2env.languages.rust.recipe import host_rust_version, image_for

    if not image_exists(docker_client, image_for(host_rust_version())):
        pytest.fail(f"{image_for(host_rust_version())} is missing: scripts/setup_docker.sh builds it from this "
                    "host's Rust")
    root = tmp_path_factory.mktemp("rust")
    repo = build_rust_repo(root / "rcalc", root / "scratch")
    out = root / "tasks"
    summary = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=True))
    return out, summary


def test_exactly_the_right_tasks_and_reasons(rust_run):
    out, summary = rust_run
    check_tasks(out, summary, "rcalc", EXPECTED_TASKS, EXPECTED_SKIPS)


def test_controls_and_every_rust_probe(rust_run):
    out, _ = rust_run
    probes = check_controls_and_probes(out, "rust")
    assert all(ran["rust_valid_alternative"]["reward"] == 1.0 for ran in probes.values())


def test_a_fix_and_its_unit_test_in_one_file(rust_run):
    out, _ = rust_run
    bundle = out / "local__rcalc-5"
    gold = (bundle / "solution" / "patch.diff").read_text()
    assert "x == 0" in gold and "sign_of_zero" not in gold  # the agent never gets the new test from the oracle
    config = json.loads((bundle / "tests" / "config.json").read_text())
    assert config["overlay"]["splice"] == ["src/lib.rs"] and config["run_targets"] == ["src/lib.rs"]


def test_instruction_states_the_failure_and_names_no_test(rust_run):
    out, _ = rust_run
    text = (out / "local__rcalc-1" / "instruction.md").read_text()
    assert "Calling `clamp` with `15`, `0` and `10` returns `15`" in text
    text4 = (out / "local__rcalc-4" / "instruction.md").read_text()
    assert "The crate has no `parse_size`; it should provide it." in text4
    for leak in ("above_range", "tests/clamp.rs", "parse_size_units", "sizes/tests.rs"):
        assert leak not in text and leak not in text4
    assert "`cargo test`" in text  # the Rust grader's rules, not pytest's


def test_harbor_runs_a_rust_bundle(rust_run, harbor, tmp_path):
    out, _ = rust_run
    check_harbor(harbor, out / "local__rcalc-1", tmp_path)
