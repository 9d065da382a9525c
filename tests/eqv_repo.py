"""A small package for equivalence_tests: three pure functions, one impure one, and a test suite that calls them.

``build_eqv_repo(path)`` creates it with one commit; ``PURE`` are the functions that must become tasks.
"""

from pathlib import Path

from tests.conftest import commit_files, git

PURE = ("textkit.core.clamp", "textkit.core.count_vowels", "textkit.core.slugify")
IMPURE = "textkit.core.stamp"

CORE = '''\
"""Small text helpers."""

import re
import time

VOWELS = "aeiou"
_SEP = re.compile(r"[^a-z0-9]+")


def slugify(title: str) -> str:
    """Lower-case ``title`` and join its words and numbers with single dashes."""
    words = _SEP.split(title.lower())
    kept = [w for w in words if w]
    if not kept:
        raise ValueError("nothing to slugify")
    return "-".join(kept)


def clamp(x: int, lo: int, hi: int) -> int:
    """``x`` limited to the closed range [lo, hi]; ``lo > hi`` is an error."""
    if lo > hi:
        raise ValueError("empty range")
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def count_vowels(text):
    """How many vowels (a, e, i, o, u; either case) ``text`` holds."""
    total = 0
    for ch in text.lower():
        if ch in VOWELS:
            total += 1
    return total


def stamp(name: str) -> str:
    """``name`` with the current time appended."""
    now = time.time()
    label = name.strip()
    return f"{label}-{now}"
'''

TESTS = '''\
from textkit.core import clamp, count_vowels, slugify


def test_slugify():
    assert slugify("Room 101") == "room-101"
    assert slugify("  Hello,   World! ") == "hello-world"


def test_clamp():
    assert clamp(5, 0, 10) == 5
    assert clamp(-3, 0, 10) == 0
    assert clamp(99, 0, 10) == 10


def test_count_vowels():
    assert count_vowels("Education") == 5
    assert count_vowels("rhythm") == 0
'''

PYPROJECT = '''\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "textkit"
version = "0.1.0"

[project.optional-dependencies]
test = ["pytest"]

[tool.setuptools]
packages = ["textkit"]
'''


def build_eqv_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "--initial-branch=main")
    commit_files(path, "textkit", {"pyproject.toml": PYPROJECT, "textkit/__init__.py": "", "textkit/core.py": CORE,
                                   "tests/__init__.py": "", "tests/test_core.py": TESTS},
                 date="2025-05-01T00:00:00Z")
    return path
