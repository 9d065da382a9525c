"""repo2env/tasks/runtime.py grading_overlay: what the grader writes back before the tests run."""

from types import SimpleNamespace

from repo2env import languages
from repo2env.core import gitrepo
from repo2env.tasks import runtime
from tests.helpers.repos import commit_files


def test_a_python_test_folder_is_written_back_whole_as_of_the_base(new_repo, monkeypatch):
    """The red team's flipper in ``tests/__init__.py`` (a file of the base commit that the test patch leaves
    alone) ran inside pytest: the other files of each test folder the test patch touches are written back as of
    the base commit (helpers and golden files too), the project's source never, and past ``TEST_FOLDER_BYTES``
    a file is left out."""
    repo = new_repo()
    base = commit_files(repo, "base", {
        "pkg/__init__.py": "", "pkg/mod.py": "X = 1\n", "pkg/testing/__init__.py": "", "pkg/testing/util.py": "u\n",
        "pkg/testing/tests/test_util.py": "def test_u(): pass\n", "pkg/testing/tests/data.txt": "d\n",
        "tests/__init__.py": "", "tests/helpers.py": "H = 1\n", "tests/data/golden.txt": "gold\n",
        "tests/big/blob.bin": "x" * 64, "tests/test_a.py": "def test_a(): pass\n", "pyproject.toml": "[project]\n"})
    head = commit_files(repo, "fix", {"pkg/mod.py": "X = 2\n", "tests/test_a.py": "def test_a(): assert 1\n",
                                      "pkg/testing/tests/test_util.py": "def test_u(): assert 1\n"})
    split = SimpleNamespace(test_files=["tests/test_a.py", "pkg/testing/tests/test_util.py"], mixed_files=[],
                            source_files=["pkg/mod.py"], docs_ci_files=[])
    spec = SimpleNamespace(repo=SimpleNamespace(path=str(repo)), base_commit=base, head_commit=head, split=split)
    monkeypatch.setattr(runtime, "TEST_FOLDER_BYTES", 40)
    write, delete = runtime.grading_overlay(spec, languages.load("python"), gitrepo.ls_tree_entries(repo, base))
    assert delete == []
    assert sorted(write) == ["pkg/testing/tests/data.txt", "pkg/testing/tests/test_util.py", "pyproject.toml",
                             "tests/__init__.py", "tests/data/golden.txt", "tests/helpers.py", "tests/test_a.py"]
    assert write["tests/test_a.py"][0] == b"def test_a(): assert 1\n"  # the test patch's files as of the head
    assert write["tests/helpers.py"][0] == b"H = 1\n"
    # pkg/testing is the project's (numpy.testing-like): only its innermost tests folder is the tests'; the
    # 64-byte blob does not fit the 40-byte budget, and the smaller files after it (in path order) still do
