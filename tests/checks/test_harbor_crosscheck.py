"""Cross-check with the real Harbor (installed by scripts/setup_harbor.sh in .harbor-venv): its TaskConfig
accepts our task.toml, `harbor lint` finds only the rule we justify in the bundle, and `harbor run` with the
oracle and nop agents on the docker environment gives 1.0 and 0.0 (read from its result.json), for layout 1.0
and schema 1.3 and 1.4 bundles.

Schema 1.3/1.4 bundles run from a copy whose network modes are "public" (tests/helpers/harbor.py says why)."""

import json
import shutil
import subprocess
import pytest
import tomlkit

from tests.helpers.harbor import public_network_copy, run_trial

pytestmark = pytest.mark.docker

JUSTIFIED = {"shared-verifier"}  # see the comment above [verifier] in every task.toml


def test_harbor_accepts_and_runs_our_bundles(harbor, demo_generated, tmp_path):
    out, _ = demo_generated
    task = shutil.copytree(out / "local__calc-demo-1", tmp_path / "local__calc-demo-1")
    check = subprocess.run([str(harbor.parent / "python"), "-c",
                            "import sys, tomllib; from harbor.models.task.config import TaskConfig; "
                            "TaskConfig.model_validate(tomllib.load(open(sys.argv[1], 'rb')))", str(task / "task.toml")],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr[-800:]
    lint = subprocess.run([str(harbor), "lint", str(task), "--json"], capture_output=True, text=True)
    rules = {finding["rule"] for finding in json.loads(lint.stdout)}
    assert rules <= JUSTIFIED, rules
    assert "shared-verifier is deliberate" in (task / "task.toml").read_text()
    assert run_trial(harbor, task, "oracle", tmp_path / "jobs-oracle") == 1.0
    assert run_trial(harbor, task, "nop", tmp_path / "jobs-nop") == 0.0


@pytest.mark.parametrize("schema, name", [("1.3", "local__calc-demo-5"),  # -5: the reference adds a new file
                                          ("1.4", "local__calc-demo-1")])
def test_harbor_accepts_and_runs_our_separate_bundles(harbor, schema, name, request, tmp_path):
    out, summary = request.getfixturevalue(f"demo_generated_{schema.replace('.', '')}")
    assert sorted(summary.verified) == ["local__calc-demo-1", "local__calc-demo-4", "local__calc-demo-5"]
    for task in [out / name]:
        check = subprocess.run([str(harbor.parent / "python"), "-c",
                                "import sys, tomllib; from harbor.models.task.config import TaskConfig; "
                                "c = TaskConfig.model_validate(tomllib.load(open(sys.argv[1], 'rb'))); "
                                "print(c.schema_version, c.verifier.environment_mode.value, len(c.artifacts), "
                                "c.task.version)", str(task / "task.toml")], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr[-800:]
        config = tomlkit.parse((task / "task.toml").read_text())
        version = config["task"].get("version")
        assert check.stdout.split() == [schema, "separate", "1", str(version)]
        if schema == "1.4":  # <pipeline version>+<files hash>: the same files, the same version
            from repo2env.bundles.hashing import files_hash
            assert version == f"{config['metadata']['repo2env']['pipeline_version']}+{files_hash(task)[7:19]}"
        else:
            assert version is None
        lint = subprocess.run([str(harbor), "lint", str(task), "--json"], capture_output=True, text=True)
        assert json.loads(lint.stdout) == [], lint.stdout  # a separate verifier: nothing to justify
        runnable = public_network_copy(task, tmp_path / name)
        assert run_trial(harbor, runnable, "oracle", tmp_path / f"jobs-oracle-{name}") == 1.0
        assert run_trial(harbor, runnable, "nop", tmp_path / f"jobs-nop-{name}") == 0.0
