"""The Python task image's bytecode tree (``runtime_verifier.BYTECODE_TREE``) in a real Docker engine, graded as
Harbor's shared verifier grades a 1.0 bundle: generation records the tree in the environment manifest as a cache
root, grading reads it while it is intact, and what an agent (root in that container) can do to it never decides
a reward: a ``.pyc`` planted there that carries the fix without the source having it, a file of it changed, a
file left writable to others, the tree deleted (by an agent that solved the task and cleaned up)."""

import json
import shutil
from pathlib import Path

import pytest

from repo2env.bundles.inputs import restamp
from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.controls import grade_shared, shared_container
from repo2env.environment.images import run_image
from repo2env.graders.runtime_verifier import BYTECODE_TREE

pytestmark = pytest.mark.docker

# What a root agent plants: the reference's version of every source file it changes, compiled as an
# unchecked-hash .pyc (Python loads it without looking at the source) at the place the tree gives that source,
# while /workspace keeps the unfixed source.
PLANT = f"""
set -e
rm -rf /tmp/fixed && cp -a /workspace /tmp/fixed && cd /tmp/fixed && git apply /solution/patch.diff
for rel in $(git diff --name-only -- '*.py'); do
  python3 -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], dfile=sys.argv[3],
invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)" \\
    "/tmp/fixed/$rel" "$(python3 -c "import importlib.util, sys; sys.pycache_prefix = '{BYTECODE_TREE}';
print(importlib.util.cache_from_source('/workspace/' + sys.argv[1]))" "$rel")" "/workspace/$rel"
done
"""


# The same plant where the stock walk of an environment looks away: a folder called __pycache__. The package's
# __init__ puts its own __pycache__ (a link back to itself) first on __path__, so its modules are imported from
# /workspace/<pkg>/__pycache__/<name>.py, whose bytecode the tree would hold at <tree>/workspace/<pkg>/__pycache__/.
PLANT_PYCACHE = f"""
set -e
rm -rf /tmp/fixed && cp -a /workspace /tmp/fixed && cd /tmp/fixed && git apply /solution/patch.diff
for rel in $(git diff --name-only -- '*.py'); do
  pkg=$(dirname "$rel"); name=$(basename "$rel")
  ln -sfn . "/workspace/$pkg/__pycache__"
  grep -q r2e-plant "/workspace/$pkg/__init__.py" || \
    printf '\n__path__.insert(0, __path__[0] + "/__pycache__")  # r2e-plant\n' >> "/workspace/$pkg/__init__.py"
  python3 -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], dfile=sys.argv[3],
invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)" \
    "/tmp/fixed/$rel" "$(python3 -c "import importlib.util, sys; sys.pycache_prefix = '{BYTECODE_TREE}';
print(importlib.util.cache_from_source(sys.argv[1]))" "/workspace/$pkg/__pycache__/$name")" "/workspace/$rel"
done
"""


@pytest.fixture(scope="module")
def bundle(demo_generated):
    out, _ = demo_generated
    return out / "local__calc-demo-1"


def _grade(client, bundle: Path, attack: str | None = None, solve: bool = False) -> tuple[float, dict]:
    """Grade ``bundle`` in a fresh container of its environment after ``attack`` (bash, as root) and, with
    ``solve``, the reference solution: (reward, reward-details.json)."""
    image = run_image(client, bundle, read_task_toml(bundle), bundle.name)
    folders = {"/logs/verifier": None, "/solution": bundle / "solution"}
    with shared_container(client, bundle, image, folders) as box:
        if attack:
            code, out, _ = box.exec(["bash", "-c", attack], timeout_sec=300)
            assert code == 0, out
        if solve:
            code, out, _ = box.exec(["bash", "/solution/solve.sh"], timeout_sec=300)
            assert code == 0, out
        raw, transcript = grade_shared(box, bundle, 300)
        details = json.loads(box.read_file("/logs/verifier/reward-details.json") or b"{}")
    return float(raw.decode().strip()), details


def test_the_manifest_records_the_tree_and_grading_reads_it(docker_client, bundle):
    env = json.loads((bundle / "tests/python_env.json").read_text())
    assert env["cache_roots"] == [BYTECODE_TREE] and "extra_roots" not in env
    pycs = [p for p in env["files"] if p.startswith(BYTECODE_TREE + "/")]
    assert any("/_pytest/" in p for p in pycs) and any(p.endswith("/json/decoder.cpython-312.pyc") for p in pycs)
    assert all(p.endswith(".pyc") for p in pycs)
    assert not [p for p in pycs if p.startswith(f"{BYTECODE_TREE}/workspace/")], "the repository's own bytecode"
    reward, details = _grade(docker_client, bundle, solve=True)
    assert (reward, details["bytecode"]) == (1.0, BYTECODE_TREE)
    reward, details = _grade(docker_client, bundle)
    assert (reward, details["bytecode"], details["fail_to_pass_passed"]) == (0.0, BYTECODE_TREE, 0)


def test_a_planted_pyc_in_the_tree_is_never_read(docker_client, bundle, tmp_path):
    for attack in (PLANT, PLANT_PYCACHE):
        reward, details = _grade(docker_client, bundle, attack=attack)
        assert (reward, details["bytecode"], details["fail_to_pass_passed"]) == (0.0, None, 0)
        assert "error" not in details  # graded, with every module compiled afresh
    # the same attack against a grader that reads the tree whether or not it is intact gets 1.0: the plant works
    weak = shutil.copytree(bundle, tmp_path / "weak")
    verifier = weak / "tests/verifier.py"
    text = verifier.read_text()
    old = "    if BYTECODE_TREE not in intact:\n        return None\n"
    assert old in text
    verifier.write_text(text.replace(old, ""))
    assert restamp(weak)
    for attack in (PLANT, PLANT_PYCACHE):
        reward, details = _grade(docker_client, weak, attack=attack)
        assert (reward, details["bytecode"], details["fail_to_pass_passed"]) == (1.0, BYTECODE_TREE,
                                                                                details["fail_to_pass_total"])


@pytest.mark.parametrize("attack", [
    "printf x >> {decoder}",  # a file of the tree changed: not read
    "chmod 666 {decoder}",  # same bytes, writable by the tests' user: not read
    "find / -xdev -name '*.pyc' -delete",  # an agent's clean-up: a cache gone, nothing broken
])
def test_a_spoilt_tree_is_not_read_and_the_reward_stays_right(docker_client, bundle, attack):
    env = json.loads((bundle / "tests/python_env.json").read_text())
    [decoder] = [p for p in env["files"] if p.startswith(BYTECODE_TREE + "/") and p.endswith("/json/decoder."
                                                                                               "cpython-312.pyc")]
    reward, details = _grade(docker_client, bundle, attack=attack.format(decoder=decoder), solve=True)
    assert (reward, details["bytecode"], details.get("error")) == (1.0, None, None)
