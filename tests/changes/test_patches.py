"""repo2env/changes/patches.py and repo2env/changes/filters.py on real repositories."""

import subprocess

import pytest

from repo2env.changes.filters import is_revert_or_release, static_skip_reason
from repo2env.changes.patches import is_docs_or_ci_path, split_change
from repo2env.core.outcomes import SkipReason
from repo2env.languages.python.files import is_test_path
from tests.helpers.repos import commit_files


@pytest.mark.parametrize("path,expected", [
    ("tests/test_a.py", True), ("tests/data/sample.bin", True), ("pkg/testing/helpers.py", True),
    ("test/fixtures.json", True), ("pkg/test_mod.py", True), ("pkg/mod_test.py", True), ("conftest.py", True),
    ("pkg/conftest.py", True), ("pkg/mod.py", False), ("pkg/contest.py", False), ("testsuite.py", False),
    ("docs/tests.md", False),
])
def test_is_test_path(path, expected):
    assert is_test_path(path) is expected


@pytest.mark.parametrize("path,expected", [
    ("README.md", True), ("docs/index.rst", True), (".github/workflows/ci.yml", True), ("CHANGELOG.rst", True),
    ("changelog.d/12.bugfix", True), ("releasenotes/notes/add-async-ctx-4f1c2a.yaml", True), ("pkg/mod.py", False),
    ("pkg/data/notes.txt", False), ("setup.py", False),
])
def test_is_docs_or_ci_path(path, expected):
    assert is_docs_or_ci_path(path) is expected


def test_split_keeps_binary_and_crlf_bytes(new_repo, tmp_path):
    repo = new_repo()
    base = commit_files(repo, "base", {"pkg/mod.py": "x = 1\r\n", "tests/test_mod.py": "def test_a():\n    pass\n"})
    blob = bytes(range(256)) * 4
    head = commit_files(repo, "change", {"pkg/mod.py": "x = 2\r\n", "tests/data/blob.bin": blob,
                                         "tests/test_mod.py": "def test_a():\n    pass\n\ndef test_b():\n    pass\n",
                                         "README.md": "hello\n"})
    split = split_change(repo, base, head, is_test_path)
    assert split.test_files == ("tests/data/blob.bin", "tests/test_mod.py")
    assert split.source_files == ("pkg/mod.py",)
    assert split.docs_ci_files == ("README.md",)
    assert split.test_files_created == ("tests/data/blob.bin",)
    assert split.binary_test_files == ("tests/data/blob.bin",)
    assert split.gold_lines_added == 2 and split.gold_lines_removed == 1  # mod.py +1/-1 and README +1
    assert "\r\n" in split.gold_patch
    # Both halves apply at the base and reproduce the head tree byte for byte.
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", base], check=True)
    for patch in (split.test_patch, split.gold_patch):
        subprocess.run(["git", "-C", str(clone), "apply", "--binary", "-"], input=patch.encode("utf-8", "surrogateescape"),
                       check=True)
    assert (clone / "tests/data/blob.bin").read_bytes() == blob
    assert (clone / "pkg/mod.py").read_bytes() == b"x = 2\r\n"


def test_split_reads_lines_holding_characters_python_splits_lines_at(new_repo):
    # a lone "\r", a form feed, a vertical tab or U+2028 inside a line is no line end to git (a TOML parser's
    # test data holds such bytes): the hunks still have the lengths their headers say
    repo = new_repo()
    odd = "a = 1\rb = 2\x0cc = 3\x0bd\u2028e\n"
    base = commit_files(repo, "base", {"pkg/mod.py": "x = 1\n", "tests/data/odd.toml": odd})
    head = commit_files(repo, "change", {"pkg/mod.py": "x = 2\n", "tests/data/odd.toml": odd + odd})
    split = split_change(repo, base, head, is_test_path)
    assert split.test_files == ("tests/data/odd.toml",) and split.source_files == ("pkg/mod.py",)
    assert split.gold_lines_added == 1 and split.gold_lines_removed == 1


@pytest.mark.parametrize("title", ['Revert "Add foo"', "Bump requests from 2.31 to 2.32", "Release 1.2.0", "v2.0.1",
                                   "Prepare release 3.1", "Version 11.0.1", "Changes for version 11.0.0",
                                   "1.4.0 release", "Release notes for v2.3"])
def test_revert_and_release_titles(title):
    assert is_revert_or_release(title)


def test_normal_titles_are_not_release():
    assert not is_revert_or_release("Fix release notes parser crash on empty input")
    assert not is_revert_or_release("Handle bumpy inputs")
    assert not is_revert_or_release("Version 2 parser accepts 1.0 strings")
    assert not is_revert_or_release("Fix changes for version strings with a local part")


def _split(new_repo, files_before, files_after):
    repo = new_repo()
    base = commit_files(repo, "base", files_before)
    head = commit_files(repo, "change", files_after)
    return split_change(repo, base, head, is_test_path)


def test_static_reasons(new_repo):
    docs = _split(new_repo, {"a.py": "1\n"}, {"README.md": "x\n"})
    assert static_skip_reason("Docs", docs, max_source_files=5) is SkipReason.DOCS_CI_ONLY
    no_tests = _split(new_repo, {"a.py": "1\n"}, {"a.py": "2\n"})
    assert static_skip_reason("Fix a", no_tests, max_source_files=5) is SkipReason.NO_TEST_PATCH
    tests_only = _split(new_repo, {"a.py": "1\n"}, {"tests/test_a.py": "def test(): pass\n"})
    assert static_skip_reason("Test a", tests_only, max_source_files=5) is SkipReason.NO_SOURCE_CHANGE
    many = _split(new_repo, {"a.py": "1\n"}, {f"m{i}.py": "x\n" for i in range(3)} | {"tests/test_a.py": "\n"})
    assert static_skip_reason("Fix", many, max_source_files=2) is SkipReason.TOO_MANY_SOURCE_FILES
    assert static_skip_reason("Fix", many, max_source_files=3) is None
    assert static_skip_reason('Revert "Fix"', many, max_source_files=3) is SkipReason.REVERT_OR_RELEASE


def test_touched_symbols_names_the_enclosing_public_definitions():
    from repo2env.changes.patches import touched_symbols

    patch = ("--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -3,4 +3,6 @@ def add(a, b):\n \n \n def divide(a, b):\n"
             "+    if b == 0:\n+        raise ValueError('cannot divide by zero')\n     return a / b\n"
             "--- a/calc/__init__.py\n+++ b/calc/__init__.py\n@@ -1,1 +1,2 @@ def _private():\n x = 1\n+y = 2\n")
    assert touched_symbols(patch) == ["calc.ops.divide"]


def test_public_signatures_reads_the_base_definitions():
    from repo2env.changes.patches import public_signatures
    base = {"calc/ops.py": "class Box:\n    def __init__(self, w, h=1):\n        pass\n\n    def area(self, *, unit='m'):\n"
                           "        pass\n\n\ndef divide(a, b, /, strict=False):\n    pass\n"}
    found = public_signatures(["calc.ops.divide", "calc.ops.area", "calc.ops.Box", "calc.ops.added_later",
                               "calc.missing.f"], base.get)
    assert found == ["calc.ops.divide(a, b, /, strict=False)", "calc.ops.Box.area(self, *, unit='m')",
                     "calc.ops.Box(w, h=1)"]
