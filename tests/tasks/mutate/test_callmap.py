"""The call-map plugin (repo2env/tasks/mutate/callmap_plugin.py) run by a real pytest on a package the test writes:
each test's repository functions (by file and def line, decorated ones by their first decorator's line), its
outcome, nothing outside the repository; and ``CallMap.covering`` keeping only tests that passed."""

import json
import os
import subprocess
import sys

from repo2env.tasks.mutate.callmap import PLUGIN, CallMap

CORE = '''\
import functools


def helper(x):
    return x + 1


@functools.lru_cache()
def cached(x):
    return helper(x) * 2


class Box:
    def get(self):
        return helper(1)
'''
TESTS = '''\
from pkg.core import Box, cached, helper


def test_helper():
    assert helper(1) == 2


def test_cached():
    assert cached(1) == 4


def test_box_fails():
    assert Box().get() == 3
'''


def test_each_test_maps_to_the_functions_it_called(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "core.py").write_text(CORE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_core.py").write_text(TESTS)
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "r2e_callmap.py").write_bytes(PLUGIN.read_bytes())
    out = tmp_path / "map.json"
    env = dict(os.environ, PYTHONPATH=f"{tmp_path / 'plugin'}{os.pathsep}{tmp_path}", R2E_CALLMAP_OUT=str(out),
               R2E_CALLMAP_ROOT=str(tmp_path))
    subprocess.run([sys.executable, "-m", "pytest", "-p", "r2e_callmap", "-p", "no:cacheprovider", "-q",
                    "tests"], cwd=tmp_path, env=env, capture_output=True)
    raw = json.loads(out.read_text())
    found = CallMap(tests={t: frozenset((p, n) for p, n in v) for t, v in raw["tests"].items()},
                    outcomes=raw["outcomes"], seconds=0.0)
    assert found.outcomes == {"tests/test_core.py::test_helper": "passed", "tests/test_core.py::test_cached": "passed",
                              "tests/test_core.py::test_box_fails": "failed"}
    assert found.tests["tests/test_core.py::test_cached"] == {("pkg/core.py", 4), ("pkg/core.py", 8),
                                                             ("tests/test_core.py", 8)}
    assert found.covering("pkg/core.py", (4,)) == ["tests/test_core.py::test_cached",
                                                    "tests/test_core.py::test_helper"]  # not the failing one
    assert found.covering("pkg/core.py", (8, 9)) == ["tests/test_core.py::test_cached"]
    assert found.covering("pkg/core.py", (14,)) == []  # Box.get: only its failing test calls it
    assert CallMap.from_json(found.to_json()) == found
