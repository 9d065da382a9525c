"""A small Python package for repo_mutate, built by the tests (``build_mutate_repo``), with hand-planted bugs
(``PLANTED``, the ``planted`` pipeline option) and what each must become:

====  ===========================================================  ======================================
#     planted bug                                                  expected outcome (repo_mutate)
====  ===========================================================  ======================================
0     clamp returns the lower bound above the range                task: F2P test_clamp_above only
1     is_even written another way that means the same              skipped: equivalent_mutant
2     the check every function makes always raises                 skipped: breaks_too_much
3     #0 again, the same edit found by a longer text               skipped: duplicate_mutant
====  ===========================================================  ======================================
"""

import json
from pathlib import Path

from repo2env.sources.demo_repo import _Builder, pyproject

PYPROJECT = pyproject("mutcalc", "mutcalc")

CORE = '''\
def _check(x):
    if not isinstance(x, int):
        raise TypeError("expected an int")
    return x


def clamp(x, lo, hi):
    """x limited to [lo, hi]."""
    _check(x)
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def is_even(n):
    _check(n)
    return n % 2 == 0
'''

TEST_CLAMP = '''\
from mutcalc.core import clamp


def test_clamp_inside():
    assert clamp(5, 0, 10) == 5


def test_clamp_below():
    assert clamp(-3, 0, 10) == 0


def test_clamp_above():
    assert clamp(15, 0, 10) == 10
'''

TEST_EVEN = '''\
from mutcalc.core import is_even


def test_even():
    assert is_even(4)


def test_odd():
    assert not is_even(-3)
'''

PLANTED = [
    {"path": "mutcalc/core.py", "find": "        return hi", "replace": "        return lo"},
    {"path": "mutcalc/core.py", "find": "n % 2 == 0", "replace": "n % 2 != 1"},
    {"path": "mutcalc/core.py", "find": "if not isinstance(x, int):", "replace": "if isinstance(x, int):"},
    {"path": "mutcalc/core.py", "find": "if x > hi:\n        return hi", "replace": "if x > hi:\n        return lo"},
]
EXPECTED_F2P = ["tests/test_clamp.py::test_clamp_above"]
EXPECTED_SKIPS = {"equivalent_mutant": 1, "breaks_too_much": 1, "duplicate_mutant": 1}


def build_mutate_repo(path: Path) -> tuple[Path, Path]:
    """Create the fixture repository at ``path`` (must not exist) and ``PLANTED`` as a JSON file beside it.
    Returns ``(repository, planted file)``."""
    path = Path(path)
    path.mkdir(parents=True)
    b = _Builder(path)
    b.git("init", "-q", "--initial-branch=main")
    b.commit("mutcalc", {"pyproject.toml": PYPROJECT, "README.md": "# mutcalc\n", "mutcalc/__init__.py": "",
                         "mutcalc/core.py": CORE, "tests/test_clamp.py": TEST_CLAMP, "tests/test_even.py": TEST_EVEN})
    planted = path.parent / "planted.json"
    planted.write_text(json.dumps(PLANTED, indent=1))
    return path, planted
