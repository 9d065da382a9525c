"""equivalence_tests end to end in a real Docker engine on tests/eqv_repo.py: exactly the pure functions become
tasks; a delegating stub, a wrong implementation and an exact copy score 0, 0 and 1; reference=hidden leaves
no trace of the original body in the image."""

import json
import shutil

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.controls import run_controls
from repo2env.environment.containers import TaskContainer
from repo2env.environment.images import environment_image
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from repo2env.tasks.eqv import task_module
from repo2env.tasks.eqv.discover import functions_in
from tests.helpers.repos import CORE, IMPURE, PURE, build_eqv_repo

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def eqv_run(docker_client, tmp_path_factory):
    root = tmp_path_factory.mktemp("eqv")
    repo = build_eqv_repo(root / "textkit")
    out = root / "tasks"
    summary = generate("equivalence_tests", str(repo), GenerateOptions(probes=False, out=out))
    return repo, out, summary


def _by_function(out):
    return {read_task_toml(b)["metadata"]["repo2env"]["equivalence_tests"]["function"]: b for b in out.iterdir()}


def test_exactly_the_pure_functions_become_verified_tasks(eqv_run):
    _, out, summary = eqv_run
    bundles = _by_function(out)
    assert sorted(f"textkit.core.{name}" for name in bundles) == sorted(PURE) and IMPURE not in summary.verified
    assert summary.candidates == 3 and not summary.skipped and not summary.errors
    for name, bundle in bundles.items():
        meta = read_task_toml(bundle)["metadata"]["repo2env"]
        table = meta["equivalence_tests"]
        assert meta["evaluation"]["status"] == "verified" and bundle.name.startswith("local__textkit-eqv-")
        assert meta["leak_audit"] == {"source": "deterministic", "rules_fired": [], "action": "none"}
        assert table["mutant_kill_rate"] >= 0.6 and table["cases"] >= 10 and table["input_strategy"]["observed"] >= 1
        assert table["input_strategy"]["hypothesis"] > 0, "type hints or observed types give hypothesis strategies"


def _reward(client, bundle, module_text):
    image = environment_image(client, bundle / "environment", bundle.name)
    with TaskContainer(client, image) as box:
        box.exec(["sh", "-c", "cat > /workspace/task_module.py << 'R2E_EOF'\n" + module_text + "\nR2E_EOF"])
        box.put_dir(bundle / "tests", "/tests")
        box.exec(["bash", "/tests/test.sh"])
        return float(box.read_file("/logs/verifier/reward.txt").decode()), json.loads(
            box.read_file("/logs/verifier/reward-details.json").decode())


def test_delegating_wrong_and_exact_copy_score_0_0_1(eqv_run, docker_client):
    _, out, _ = eqv_run
    bundle = _by_function(out)["clamp"]
    fn = next(f for f in functions_in("textkit/core.py", CORE) if f.name == "clamp")
    wrong = task_module.with_body(fn, fn.source.replace("if x > hi:", "if x >= hi:").replace("return hi", "return hi - 1"))
    assert _reward(docker_client, bundle, task_module.delegating(fn))[0] == 0.0
    reward, details = _reward(docker_client, bundle, wrong)
    assert reward == 0.0 and details["failed"] >= 1
    assert _reward(docker_client, bundle, task_module.reference_copy(fn))[0] == 1.0


def test_hidden_reference_leaves_no_trace_of_the_body(eqv_run, docker_client, tmp_path):
    repo, _, _ = eqv_run
    out = tmp_path / "hidden"
    summary = generate("equivalence_tests", str(repo), GenerateOptions(probes=False, 
        out=out, limit=1, pipeline_opts={"reference": "hidden", "seed": "3"}))
    assert len(summary.verified) == 1
    bundle = out / summary.verified[0]
    name = read_task_toml(bundle)["metadata"]["repo2env"]["equivalence_tests"]["function"]
    fn = next(f for f in functions_in("textkit/core.py", CORE) if f.name == name)
    body_line = fn.source.splitlines()[-2].strip()  # a line of the original body
    image = environment_image(docker_client, bundle / "environment", bundle.name)
    with TaskContainer(docker_client, image) as box:
        _, log, _ = box.exec(["git", "log", "--all", "--oneline"])
        _, objects, _ = box.exec(["sh", "-c", "git cat-file --batch-all-objects --batch | grep -c -F "
                                              f"'{body_line}' || true"])
        _, module, _ = box.exec(["cat", "textkit/core.py"])
    assert len(log.strip().splitlines()) == 1 and objects.strip() == "0"
    assert "raise NotImplementedError" in module and body_line not in module
    assert body_line in (bundle / "tests" / "reference.py").read_text()


def test_schema_13_bundle_grades_the_submitted_module_in_a_separate_verifier(eqv_run, docker_client, tmp_path):
    repo, _, _ = eqv_run
    out = tmp_path / "t13"
    summary = generate("equivalence_tests", str(repo), GenerateOptions(probes=False, 
        out=out, limit=1, format="harbor-1.3", pipeline_opts={"reference": "hidden", "seed": "3"}))
    assert len(summary.verified) == 1, (summary.skipped, summary.rejected, summary.errors)
    bundle = out / summary.verified[0]
    config = read_task_toml(bundle)
    name = config["metadata"]["repo2env"]["equivalence_tests"]["function"]
    fn = next(f for f in functions_in("textkit/core.py", CORE) if f.name == name)
    assert config["schema_version"] == "1.3" and config["artifacts"] == [{"source": "/workspace/task_module.py"}]
    stripped = (bundle / "environment/source/textkit/core.py").read_text()
    assert "raise NotImplementedError" in stripped and fn.source.splitlines()[-2].strip() not in stripped
    assert (bundle / "tests/source/textkit/core.py").read_text() == stripped
    assert (bundle / "solution/reference/task_module.py").read_text() == task_module.reference_copy(fn)
    # a wrong submission through the separate verifier scores 0
    wrong = tmp_path / "wrong"
    shutil.copytree(bundle, wrong)
    (wrong / "solution/reference/task_module.py").write_text(task_module.delegating(fn))
    results = run_controls(docker_client, wrong, "eqv-wrong-13", verifier_timeout_sec=300)
    assert [(r.name, r.reward) for r in results] == [("oracle", 0.0), ("nop", 0.0)]
