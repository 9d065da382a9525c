"""A small demo repository with pull requests in its history, built from scratch (for the README and tests).

``build_demo_repo(path)`` creates ``calc-demo``: a pure-Python package with pytest tests and this first-parent
history on ``main`` (dates fixed, so the same shas every time):

====  =======================================================  ==========================================
PR    shape and change                                          expected outcome (pr_runtime)
====  =======================================================  ==========================================
#1    merge: divide(x, 0) raises ValueError; new failing test   task: F2P test_divide_by_zero
#2    merge: README and docs only                               skipped: docs_ci_only
#3    squash: refactor add(); its new test passes before        skipped: no_fail_to_pass
#4    squash: parse_size units; parametrized ids with spaces    task: F2P both parametrized cases
--    merge of branch 'stable' (not a pull request)             not a candidate
#5    merge: new module; its new test module cannot import      task: F2P every test of the new module
====  =======================================================  ==========================================

``python -m repo2env.sources.demo_repo PATH`` builds it at PATH (which must not exist yet).
"""

import os
import subprocess
import sys
from pathlib import Path

EXPECTED_TASKS = {
    1: {"fail_to_pass": ["tests/test_ops.py::test_divide_by_zero"],
        "pass_to_pass": ["tests/test_ops.py::test_add", "tests/test_ops.py::test_divide"]},
    4: {"fail_to_pass": ["tests/test_sizes.py::test_parse_size_units[one kilo byte]",
                         "tests/test_sizes.py::test_parse_size_units[two mega bytes]"],
        "pass_to_pass": ["tests/test_sizes.py::test_parse_plain_bytes"]},
    5: {"fail_to_pass": ["tests/test_text.py::test_slugify_basic", "tests/test_text.py::test_slugify_keeps_digits"],
        "pass_to_pass": []},
}
EXPECTED_SKIPS = {2: "docs_ci_only", 3: "no_fail_to_pass"}

def pyproject(name: str, package: str) -> str:
    """A setuptools ``pyproject.toml`` for the package folder ``package`` of the distribution ``name``, its tests
    run with pytest (the ``test`` extra)."""
    return f"""\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1.0"
requires-python = ">=3.9"

[project.optional-dependencies]
test = ["pytest"]

[tool.setuptools]
packages = ["{package}"]
"""


PYPROJECT = pyproject("calc-demo", "calc")

OPS_V1 = '''\
def add(a, b):
    return a + b


def divide(a, b):
    return a / b
'''

OPS_V2 = '''\
def add(a, b):
    return a + b


def divide(a, b):
    if b == 0:
        raise ValueError("cannot divide by zero")
    return a / b
'''

OPS_V3 = OPS_V2.replace("def add(a, b):\n    return a + b", 'def add(a, b):\n    """Sum of a and b."""\n    total = a + b\n    return total')

TEST_OPS_V1 = '''\
from calc.ops import add, divide


def test_add():
    assert add(2, 3) == 5


def test_divide():
    assert divide(6, 3) == 2
'''

TEST_OPS_V2 = TEST_OPS_V1.replace("from calc.ops import add, divide\n", "import pytest\n\nfrom calc.ops import add, divide\n") + '''

def test_divide_by_zero():
    with pytest.raises(ValueError, match="divide by zero"):
        divide(1, 0)
'''

TEST_OPS_V3 = TEST_OPS_V2 + '''

def test_add_negative():
    assert add(-2, -3) == -5
'''

SIZES_V1 = '''\
def parse_size(text):
    """Number of bytes in a size such as "512"."""
    return int(text.strip())
'''

SIZES_V2 = '''\
UNITS = {"KB": 1024, "MB": 1024 * 1024}


def parse_size(text):
    """Number of bytes in a size such as "512", "1 KB" or "2MB"."""
    text = text.strip().upper()
    for unit, factor in UNITS.items():
        if text.endswith(unit):
            return int(text[: -len(unit)].strip()) * factor
    return int(text)
'''

TEST_SIZES_V1 = '''\
from calc.sizes import parse_size


def test_parse_plain_bytes():
    assert parse_size("512") == 512
'''

TEST_SIZES_V2 = TEST_SIZES_V1.replace("from calc.sizes import parse_size\n", "import pytest\n\nfrom calc.sizes import parse_size\n") + '''

@pytest.mark.parametrize("text,expected", [("1 KB", 1024), ("2 MB", 2 * 1024 * 1024)],
                         ids=["one kilo byte", "two mega bytes"])
def test_parse_size_units(text, expected):
    assert parse_size(text) == expected
'''

TEXT = '''\
import re


def slugify(title):
    """Lower-case words joined by dashes: "Room 101 Report" -> "room-101-report"."""
    return "-".join(re.findall(r"[a-z0-9]+", title.lower()))
'''

TEST_TEXT = '''\
from calc.text import slugify


def test_slugify_basic():
    assert slugify("Quarterly Report") == "quarterly-report"


def test_slugify_keeps_digits():
    assert slugify("Room 101") == "room-101"
'''


class _Builder:
    def __init__(self, path: Path):
        self.path = path
        self.tick = 0

    def git(self, *args: str) -> str:
        self.tick += 1
        stamp = f"2025-03-{1 + self.tick // 24:02d}T{self.tick % 24:02d}:00:00+00:00"
        env = dict(os.environ, GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp, GIT_AUTHOR_NAME="Alice Example",
                   GIT_AUTHOR_EMAIL="alice@example.org", GIT_COMMITTER_NAME="Maintainer",
                   GIT_COMMITTER_EMAIL="maintainer@example.org", GIT_CONFIG_GLOBAL="/dev/null",
                   GIT_CONFIG_NOSYSTEM="1")
        for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            env.pop(var, None)
        return subprocess.run(["git", "-C", str(self.path), *args], env=env, check=True, capture_output=True,
                              text=True).stdout

    def write(self, files: dict[str, str]) -> None:
        for rel, text in files.items():
            target = self.path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)

    def commit(self, message: str, files: dict[str, str]) -> None:
        self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    def merge_pr(self, number: int, branch: str, title: str, body: str, commits: list[tuple[str, dict]]) -> None:
        """A GitHub-style PR merge: a feature branch, then a --no-ff merge titled 'Merge pull request #N'."""
        self.git("checkout", "-q", "-b", branch)
        for message, files in commits:
            self.commit(message, files)
        self.git("checkout", "-q", "main")
        self.git("merge", "-q", "--no-ff", branch, "-m", f"Merge pull request #{number} from {branch}",
                 "-m", f"{title}\n\n{body}".strip())
        self.git("branch", "-q", "-D", branch)


def build_demo_repo(path: Path) -> Path:
    """Create the demo repository at ``path`` (must not exist). Returns ``path``."""
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path} exists; the demo repository is built into a new directory")
    path.mkdir(parents=True)
    b = _Builder(path)
    b.git("init", "-q", "--initial-branch=main")
    b.commit("Initial calc package", {
        "pyproject.toml": PYPROJECT, "README.md": "# calc-demo\n\nSmall arithmetic helpers.\n",
        "calc/__init__.py": "", "calc/ops.py": OPS_V1, "calc/sizes.py": SIZES_V1,
        "tests/__init__.py": "", "tests/test_ops.py": TEST_OPS_V1, "tests/test_sizes.py": TEST_SIZES_V1})
    b.merge_pr(1, "alice/fix-divide", "Raise ValueError when dividing by zero",
               "divide(1, 0) leaked a bare ZeroDivisionError from deep inside the helper. Callers expect a "
               "ValueError with the message 'cannot divide by zero' instead.\n\nFixes #7",
               [("Raise ValueError on division by zero", {"calc/ops.py": OPS_V2, "tests/test_ops.py": TEST_OPS_V2})])
    b.merge_pr(2, "bob/docs", "Document the divide helper", "Explain what divide returns.",
               [("Docs for divide", {"README.md": "# calc-demo\n\nSmall arithmetic helpers.\n\n`divide(a, b)` "
                                     "returns a float.\n", "docs/usage.md": "# Usage\n\nCall `divide(6, 3)`.\n"})])
    b.commit("Refactor add and cover negative numbers (#3)\n\nadd() now names its intermediate result; a new test "
             "covers negative operands, which already worked.",
             {"calc/ops.py": OPS_V3, "tests/test_ops.py": TEST_OPS_V3})
    b.commit("Parse sizes with unit suffixes (#4)\n\nparse_size('1 KB') raised ValueError because only plain byte "
             "counts were accepted. Sizes written with a KB or MB suffix, with or without a space, should be "
             "converted to bytes (1 KB = 1024 bytes).",
             {"calc/sizes.py": SIZES_V2, "tests/test_sizes.py": TEST_SIZES_V2})
    b.git("checkout", "-q", "-b", "stable")
    b.commit("Note the stable branch", {"CHANGES.md": "# Changes\n\n0.1.0: first release\n"})
    b.git("checkout", "-q", "main")
    b.git("merge", "-q", "--no-ff", "stable", "-m", "Merge branch 'stable'")
    b.merge_pr(5, "carol/slugify", "Add slugify for report names",
               "Report file names are built from titles such as 'Room 101'. Provide calc.text.slugify(title), "
               "which lower-cases the title and joins its words and numbers with dashes.",
               [("Add slugify", {"calc/text.py": TEXT, "tests/test_text.py": TEST_TEXT})])
    b.git("branch", "-q", "-D", "stable")
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m repo2env.sources.demo_repo PATH")
    print(build_demo_repo(Path(sys.argv[1])))
