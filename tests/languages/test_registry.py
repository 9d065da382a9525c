"""The language seam: a language registered through the entry-point group ``repo2env.languages`` by another
distribution is found by the core without an edit, and its rules decide (here: which files are tests)."""

import textwrap

import pytest

from repo2env import languages
from repo2env.core.records import RepoRef
from repo2env.tasks.common import split_at
from tests.helpers.repos import commit_files

TOY = textwrap.dedent('''
    from repo2env.languages import Detection

    class ToyLanguage:
        name = "toy"
        test_config_names = ()

        def detect(self, files):
            return Detection(language="toy", evidence=("toy.build",)) if "toy.build" in files else None

        def is_test_file(self, path):
            return path.endswith(".check")

        def is_runnable_test_file(self, path):
            return path.endswith(".check")
''')


@pytest.fixture
def toy_language(tmp_path, monkeypatch):
    """A distribution ``toylang`` on ``sys.path`` whose entry point registers the ``toy`` language."""
    site = tmp_path / "site"
    dist = site / "toylang-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toylang\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[repo2env.languages]\ntoy = toy_language:ToyLanguage\n")
    (site / "toy_language.py").write_text(TOY)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(languages, "_LOADED", {})
    return site


def test_a_registered_language_is_found_and_its_rules_decide(toy_language, new_repo):
    assert languages.available() == ["go", "java", "javascript", "python", "rust", "toy"]
    repo = new_repo()
    base = commit_files(repo, "start", {"toy.build": "all\n", "src/main.toy": "1\n", "helper.py": "x = 1\n"})
    head = commit_files(repo, "fix", {"src/main.toy": "2\n", "src/main.check": "expect 2\n",
                                      "tests/test_helper.py": "def test_x(): pass\n"})
    language, found = languages.for_commit(str(repo), base)
    assert (language.name, found.evidence) == ("toy", ("toy.build",))
    split = split_at(RepoRef(slug="local/toy", path=str(repo)), base, head)
    # the toy rule, not Python's: the .check file is the test patch, tests/test_helper.py is not
    assert split.test_files == ("src/main.check",)
    assert set(split.source_files) == {"src/main.toy", "tests/test_helper.py"}


def test_python_is_the_fallback_and_claims_python_trees(new_repo):
    repo = new_repo()
    py = commit_files(repo, "py", {"pyproject.toml": "[project]\nname='x'\n", "x.py": ""})
    language, found = languages.for_commit(str(repo), py)
    assert (language.name, found.evidence) == ("python", ("pyproject.toml",))
    language, found = languages.detect({"README", "data.bin"})
    assert (language.name, found.evidence) == ("python", ())


def test_an_unknown_language_is_one_clear_error():
    with pytest.raises(Exception, match="language cobol: no such language plugin"):
        languages.load("cobol")
