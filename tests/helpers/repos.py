"""The git repositories the tests build (real repositories, real commits), in one place.

``git`` and ``commit_files`` drive git with a fixed identity. ``build_commit_repo`` makes a repository whose fixes
are plain commits (commit_runtime: ``EXPECTED_TASKS``, ``EXPECTED_SKIPS``); ``build_eqv_repo`` a small package with
pure and impure functions (equivalence_tests: ``PURE``, ``IMPURE``, ``CORE``). The demo repository is
``repo2env.sources.demo_repo`` (the README's demo uses it too).
"""

import os
import subprocess
from pathlib import Path


def git(repo: Path, *args: str, env: dict | None = None) -> str:
    """Run git in ``repo`` with a fixed identity; returns stdout."""
    full_env = dict(os.environ, GIT_AUTHOR_NAME="T", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="T",
                    GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_GLOBAL="/dev/null", **(env or {}))
    return subprocess.run(["git", "-C", str(repo), *args], env=full_env, check=True, capture_output=True,
                          text=True).stdout


def commit_files(repo: Path, message: str, files: dict[str, str | bytes], date: str = "2025-01-01T00:00:00Z") -> str:
    """Write ``files`` into ``repo``, commit them with ``message``; returns the new sha."""
    for rel, content in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
    return git(repo, "rev-parse", "HEAD").strip()


def setuptools_pyproject(package: str, project: str = "", extras: str = 'test = ["pytest"]\n',
                         tables: str = "") -> str:
    """A ``pyproject.toml`` for a setuptools package ``package`` (version 0.1.0): ``project`` adds lines to
    ``[project]``, ``extras`` is the body of ``[project.optional-dependencies]`` (default a ``test`` extra),
    ``tables`` adds whole tables."""
    return (f'[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
            f'[project]\nname = "{package}"\nversion = "0.1.0"\n{project}\n[project.optional-dependencies]\n'
            f'{extras}\n{tables}[tool.setuptools]\npackages = ["{package}"]\n')


def merged_pr_repo(path: Path, base: dict, fix: dict, message: str, date: str = "2025-01-01T00:00:00Z") -> Path:
    """A repository at ``path``: ``base`` committed on main, ``fix`` on a branch merged as pull request #1
    with ``message`` (title, blank line, body), all dated ``date``."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "--initial-branch=main")
    commit_files(path, "init", base, date=date)
    git(path, "checkout", "-q", "-b", "fix")
    commit_files(path, "fix", fix, date=date)
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--no-ff", "fix", "-m", f"Merge pull request #1 from a/fix\n\n{message}",
        env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
    return path


# --- commit_runtime's repository --------------------------------------------------------------------------------
# A repository whose fixes are plain commits on main (no pull requests), for commit_runtime tests.
#
# ``build_commit_repo(path)`` returns ``{key: sha}``; ``EXPECTED_TASKS`` (sorted FAIL_TO_PASS) and
# ``EXPECTED_SKIPS`` (reason codes) say what commit_runtime must make of each first-parent commit.
# ``side_commit`` is only reachable through the merge, and the root commit is never a candidate.
COMMIT_PYPROJECT = setuptools_pyproject("mathx")

CORE_V1 = '''\
def chunk(items, size):
    return [items[i:i + size] for i in range(0, len(items) - size, size)]


def mean(values):
    if not values:
        return 0.0
    return sum(values) / len(values)


def percent(part, whole):
    return int(100 * part / whole)
'''
TEST_V1 = '''\
from mathx.core import chunk, mean, percent


def test_chunk_uneven():
    assert chunk([1, 2, 3], 2) == [[1, 2]]


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_percent():
    assert percent(1, 4) == 25
'''

EXPECTED_TASKS = {
    "fix_chunk": {"fail_to_pass": ["tests/test_core.py::test_chunk_exact_multiple",
                                   "tests/test_core.py::test_chunk_uneven"]},
    "fix_percent": {"fail_to_pass": ["tests/test_core.py::test_percent"]},
}
EXPECTED_SKIPS = {
    "refactor": "not_a_fix_type", "docs_type": "not_a_fix_type", "typo_readme": "docs_ci_only",
    "bot": "bot_author", "mean_empty": "no_fail_to_pass", "short": "message_too_short", "merge": "merge_commit",
    "helpers_only": "no_new_test_functions", "vague": "no_fix_signal",
}


def build_commit_repo(path: Path) -> dict[str, str]:
    """Create the repository at ``path`` (must not exist) and return ``{key: sha}`` of its commits."""
    path.mkdir(parents=True)
    shas: dict[str, str] = {}
    clock = iter(range(1, 100))

    def git(*args, author=("Dev", "dev@example.org")):
        stamp = f"2025-04-01T{next(clock):02d}:00:00Z" if args[0] in ("commit", "merge") else None
        env = dict(os.environ, GIT_AUTHOR_NAME=author[0], GIT_AUTHOR_EMAIL=author[1], GIT_COMMITTER_NAME="Dev",
                   GIT_COMMITTER_EMAIL="dev@example.org", GIT_CONFIG_GLOBAL="/dev/null")
        if stamp:
            env.update(GIT_AUTHOR_DATE=stamp.replace("T", " ").replace("Z", ""), GIT_COMMITTER_DATE=stamp)
        return subprocess.run(["git", "-C", str(path), *args], env=env, check=True, capture_output=True,
                              text=True).stdout

    def commit(key, message, files, author=("Dev", "dev@example.org")):
        for rel, text in files.items():
            (path / rel).parent.mkdir(parents=True, exist_ok=True)
            (path / rel).write_text(text)
        git("add", "-A")
        git("commit", "-q", "-m", message, author=author)
        shas[key] = git("rev-parse", "HEAD").strip()

    git("init", "-q", "--initial-branch=main")
    commit("root", "Initial mathx package", {"pyproject.toml": COMMIT_PYPROJECT, "README.md": "# mathx\n",
                                              "mathx/__init__.py": "", "mathx/core.py": CORE_V1,
                                              "tests/__init__.py": "", "tests/test_core.py": TEST_V1})
    core_v2 = CORE_V1.replace("len(items) - size, size", "len(items), size")
    test_v2 = TEST_V1.replace("== [[1, 2]]", "== [[1, 2], [3]]") + (
        "\n\ndef test_chunk_exact_multiple():\n    assert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]\n")
    commit("fix_chunk", "Fix chunk() dropping the last chunk\n\nchunk([1, 2, 3, 4], 2) returned [[1, 2]] and lost "
           "the final items; every item must land in exactly one chunk, the last chunk may be shorter.",
           {"mathx/core.py": core_v2, "tests/test_core.py": test_v2})
    commit("refactor", "refactor: name the chunk range bounds", {"mathx/core.py": core_v2.replace(
        "    return [items[i:i + size] for i in range(0, len(items), size)]",
        "    stop = len(items)\n    return [items[i:i + size] for i in range(0, stop, size)]")})
    commit("docs_type", "docs: describe chunk() in the README", {"README.md": "# mathx\n\n`chunk(items, n)`.\n"})
    commit("typo_readme", "Fix typo in the README title", {"README.md": "# mathx!\n\n`chunk(items, n)`.\n"})
    commit("bot", "Bump pytest from 7.4.0 to 8.0.0 to fix a crash",
           {"requirements-dev.txt": "pytest==8.0.0\n", "tests/test_core.py": test_v2 + "\n"},
           author=("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com"))
    test_v3 = test_v2 + "\n\ndef test_mean_empty():\n    assert mean([]) == 0.0\n"
    commit("mean_empty", "Handle an empty list in mean() without an error\n\nmean([]) must return 0.0.",
           {"mathx/core.py": (path / "mathx/core.py").read_text().replace("def mean(values):",
                                                                          "def mean(values):\n    values = list(values)"),
            "tests/test_core.py": test_v3})
    commit("short", "fix: oops", {"mathx/__init__.py": "# mathx\n"})
    git("checkout", "-q", "-b", "side")
    commit("side_commit", "Add a changelog", {"CHANGES.md": "# Changes\n"})
    git("checkout", "-q", "main")
    git("merge", "-q", "--no-ff", "side", "-m", "Merge branch 'side'")
    shas["merge"] = git("rev-parse", "HEAD").strip()
    commit("helpers_only", "Fix the sample data used by the test helpers",
           {"mathx/core.py": (path / "mathx/core.py").read_text() + "\n\nSAMPLE = [1, 2, 3]\n",
            "tests/helpers.py": "SAMPLE = [1, 2, 3]\n"})
    test_v4 = test_v3.replace("assert percent(1, 4) == 25", "assert percent(1, 4) == 25\n    assert percent(2, 3) == 67")
    commit("fix_percent", "Correct percent() to round to the nearest integer\n\npercent(2, 3) gave 66 because the value was "
           "truncated; it should round to the nearest whole percent, so 2 of 3 is 67.",
           {"mathx/core.py": (path / "mathx/core.py").read_text().replace("int(100 * part / whole)",
                                                                          "round(100 * part / whole)"),
            "tests/test_core.py": test_v4})
    commit("vague", "Update mathx internals for the next release cycle", {
        "mathx/core.py": (path / "mathx/core.py").read_text() + "\nVERSION = 1\n",
        "tests/test_core.py": test_v4 + "\n\ndef test_version():\n    from mathx.core import VERSION\n    assert VERSION == 1\n"})
    return shas


# --- equivalence_tests' repository --------------------------------------------------------------------------------
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

EQV_PYPROJECT = setuptools_pyproject("textkit")


def build_eqv_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "--initial-branch=main")
    commit_files(path, "textkit", {"pyproject.toml": EQV_PYPROJECT, "textkit/__init__.py": "", "textkit/core.py": CORE,
                                   "tests/__init__.py": "", "tests/test_core.py": TESTS},
                 date="2025-05-01T00:00:00Z")
    return path


ITER_CORE = '''\
"""Lazy helpers: generators, an endless counter, lazily checked streams, and value objects."""

import math
from dataclasses import dataclass
from random import sample


@dataclass
class Span:
    start: int
    end: int


class Ratio:
    """A fraction in lowest terms; equal when both terms are."""

    def __init__(self, num, den):
        self.num = num
        self.den = den

    def __eq__(self, other):
        return (self.num, self.den) == (other.num, other.den)


def pairs(items: list[int]):
    """Each item with the next one, lazily: ``pairs([1, 2, 3])`` yields (1, 2) then (2, 3)."""
    for i in range(len(items) - 1):
        left, right = items[i], items[i + 1]
        yield (left, right)


def counting(start: int, step: int):
    """``start``, ``start + step``, ``start + 2 * step``, ... without end."""
    n = start
    while True:
        yield n
        n += step


def checked(items: list[int]):
    """Each item doubled, checked as it is reached: a negative item raises ValueError then, not before."""
    for x in items:
        if x < 0:
            raise ValueError("negative item")
        yield x * 2


def span_of(items: list[int]) -> Span:
    """The smallest and the largest item; an empty list raises ValueError."""
    if not items:
        raise ValueError("empty")
    low, high = min(items), max(items)
    return Span(low, high)


def ratio(a: int, b: int) -> Ratio:
    """``a / b`` in lowest terms with a positive denominator; ``b == 0`` raises ZeroDivisionError."""
    if b == 0:
        raise ZeroDivisionError("zero denominator")
    g = math.gcd(a, b)
    sign = -1 if b < 0 else 1
    return Ratio(sign * a // g, sign * b // g)


def shuffled(items: list[int]) -> list[int]:
    """The items in a random order."""
    count = len(items)
    order = sample(items, count)
    return list(order)
'''

ITER_TESTS = '''\
import itertools

from iterkit.core import Ratio, Span, checked, counting, pairs, ratio, shuffled, span_of


def test_lazy():
    assert list(pairs([1, 2, 3])) == [(1, 2), (2, 3)]
    assert list(itertools.islice(counting(5, 2), 3)) == [5, 7, 9]
    assert list(checked([1, 2])) == [2, 4]


def test_values():
    assert span_of([3, 1, 2]) == Span(1, 3)
    assert ratio(2, 4) == Ratio(1, 2)
    assert sorted(shuffled([3, 1, 2])) == [1, 2, 3]
'''


def build_iter_repo(path: Path) -> Path:
    """A package (``iterkit``) whose public functions return lazy results and value objects: a generator, an
    endless generator, a lazily raising one, a dataclass, a class with ``__eq__``, and a random permutation."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "--initial-branch=main")
    commit_files(path, "iterkit", {"pyproject.toml": setuptools_pyproject("iterkit"), "iterkit/__init__.py": "",
                                   "iterkit/core.py": ITER_CORE, "tests/__init__.py": "",
                                   "tests/test_iter.py": ITER_TESTS}, date="2025-05-01T00:00:00Z")
    return path


# --- environments across history -------------------------------------------------------------------------------
# Repositories with one merged PR each whose F2P appears only in the right environment (pr_runtime on a local
# clone). ``ENV_REPOS[kind]`` gives (files at the base, files of the fix, date); ``build_env_repo`` commits them.
_SHAPES_PYPROJECT = setuptools_pyproject("shapes", project='requires-python = ">=3.9,<3.12"\n',
                                         extras='crypto = ["pretend"]\n',
                                         tables='[dependency-groups]\ntest = ["pytest", "six"]\n\n')
# The backend extra is named only by a tox factor; the test-only dependency only by a PEP 735 group.
_SHAPES_TOX = "[tox]\nenvlist = py{39,310,311}-{crypto,nocrypto}\n\n[testenv]\nextras =\n    crypto: crypto\n" \
              "dependency_groups = test\ncommands = pytest\n"
_SHAPES_TESTS = '''\
import sys

import pytest
import six

pretend = pytest.importorskip("pretend")

from shapes import area


def test_interpreter_is_below_3_12():
    assert sys.version_info < (3, 12)


def test_six():
    assert six.PY3
'''
_SHAPES_FIX_TEST = '''

def test_area():
    box = pretend.stub(width=2, height=3)
    assert area(box.width, box.height) == 6
'''
_TALLY_PYPROJECT = setuptools_pyproject("tally", extras='test = ["pytest"]\nfancy = ["pretend"]\n')
# A test module that skips itself without an extra nothing names: only the feedback loop finds it.
_TALLY_TESTS = '''\
import pytest

pretend = pytest.importorskip("pretend")

from tally import total


def test_empty():
    assert total([]) == 0
'''
_TALLY_FIX_TEST = '''

def test_total_of_stubs():
    items = [pretend.stub(n=2), pretend.stub(n=3)]
    assert total(item.n for item in items) == 5
'''
_OLDPIN_SETUP = "from setuptools import setup\n\nsetup(name='oldpin', version='0.1', packages=['oldpin'])\n"
_OLDPIN_TESTS = "from oldpin import double\n\n\ndef test_zero():\n    assert double(0) == 0\n"
ENV_REPOS = {
    "shapes": ({"pyproject.toml": _SHAPES_PYPROJECT, "tox.ini": _SHAPES_TOX,
                "shapes/__init__.py": "def area(width, height):\n    return width + height\n",
                "tests/test_shapes.py": _SHAPES_TESTS},
               {"shapes/__init__.py": "def area(width, height):\n    return width * height\n",
                "tests/test_shapes.py": _SHAPES_TESTS + _SHAPES_FIX_TEST},
               "2025-03-03T00:00:00Z",
               "area() adds the sides\n\narea(2, 3) returns 5 instead of the area of the rectangle, 6: it adds "
               "the width and the height where it should multiply them."),
    "tally": ({"pyproject.toml": _TALLY_PYPROJECT, "tally/__init__.py": "def total(values):\n    return 0\n",
               "tests/test_tally.py": _TALLY_TESTS},
              {"tally/__init__.py": "def total(values):\n    return sum(values)\n",
               "tests/test_tally.py": _TALLY_TESTS + _TALLY_FIX_TEST},
              "2025-04-04T00:00:00Z",
              "total() ignores its input\n\ntotal([2, 3]) returns 0 whatever values it is given; it should return "
              "their sum, 5."),
    # pytest pinned below 6 (which cannot rewrite asserts on Python 3.10+), committed in 2022: the Python the
    # date suggests (3.10) cannot run the tests, the next one down (3.9) can.
    "oldpin": ({"setup.py": _OLDPIN_SETUP, "requirements-test.txt": "pytest<6\n",
                "oldpin/__init__.py": "def double(x):\n    return x\n", "tests/test_oldpin.py": _OLDPIN_TESTS},
               {"oldpin/__init__.py": "def double(x):\n    return 2 * x\n",
                "tests/test_oldpin.py": _OLDPIN_TESTS + "\n\ndef test_two():\n    assert double(2) == 4\n"},
               "2022-06-01T00:00:00Z",
               "double() returns its argument unchanged\n\ndouble(2) gives 2 where twice the value, 4, is "
               "expected; only zero comes out right."),
}


def build_env_repo(path: Path, kind: str) -> Path:
    """The ``ENV_REPOS[kind]`` repository at ``path``: a base commit and one merged PR (#1) with the fix."""
    base, fix, date, message = ENV_REPOS[kind]
    return merged_pr_repo(path, base, fix, message, date)


# --- pull requests whose text is a bare title ---------------------------------------------------------------------
# ``build_bare_title_repo(path)``: three merged PRs titled in three or four words and nothing else; what each fix
# changes shows only in its tests' failures before the fix (a wrong value, an exception, a missing name).
_UNITS = '''\
def to_bytes(size):
    number, unit = size.split()
    return int(number) * {"kB": 1000, "MB": 1000 ** 2}[unit]


def ratio(part, whole):
    return part / whole
'''
_UNITS_TESTS = '''\
from units import ratio, to_bytes


def test_kilobytes():
    assert to_bytes("2 kB") == 2000
'''


def build_bare_title_repo(path: Path) -> Path:
    """The ``units`` package with three bare-title PRs (#1 a wrong value, #2 an exception, #3 a missing name)."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "--initial-branch=main")
    date = "2025-02-02T00:00:00Z"
    commit_files(path, "init", {"pyproject.toml": setuptools_pyproject("units"), "units/__init__.py": _UNITS,
                                "tests/test_units.py": _UNITS_TESTS}, date=date)
    fixes = [  # (title, file -> (old, new) replaced in the file as main has it then)
        ("Mebibyte sizes", {"units/__init__.py": ('"MB": 1000 ** 2', '"MB": 1000 ** 2, "MiB": 1024 ** 2'),
                            "tests/test_units.py": ("", '\n\ndef test_mebibytes():\n'
                                                        '    assert to_bytes("3 MiB") == 3 * 1024 ** 2\n')}),
        ("Zero whole", {"units/__init__.py": ("    return part / whole", "    return part / whole if whole else 0.0"),
                        "tests/test_units.py": ("", "\n\ndef test_ratio_of_nothing():\n"
                                                    "    assert ratio(1, 0) == 0.0\n")}),
        ("Add percent", {"units/__init__.py": ("", "\n\ndef percent(part, whole):\n"
                                                   "    return round(100 * ratio(part, whole))\n"),
                         "tests/test_percent.py": ("", "from units import percent\n\n\ndef test_percent_rounds():\n"
                                                       "    assert percent(1, 3) == 33\n")}),
    ]
    for number, (title, edits) in enumerate(fixes, start=1):
        git(path, "checkout", "-q", "-b", f"fix{number}")
        files = {}
        for rel, (old, new) in edits.items():
            text = (path / rel).read_text() if (path / rel).exists() else ""
            files[rel] = text.replace(old, new) if old else text + new
        commit_files(path, title, files, date=date)
        git(path, "checkout", "-q", "main")
        git(path, "merge", "-q", "--no-ff", f"fix{number}", "-m", f"Merge pull request #{number} from a/fix{number}"
            f"\n\n{title}", env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
    return path
