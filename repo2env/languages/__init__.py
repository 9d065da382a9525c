"""The language seam: what a language plugin tells the core, and the registry (entry-point group
``repo2env.languages``).

A language says whether it recognises a repository at a base commit (``detect``), which changed files are test
files (``is_test_file``) and which of those its runner collects (``is_runnable_test_file``), how to install the
repository as of that commit (``install_recipe``), which grader files ship into ``tests/`` (``grader_files``),
the command that runs the tests with structured output and where that output lands (``test_command``,
``RESULT_PATH``), how results are parsed into node ids (``parse_results``), and what it records of the image for
the grader (``record_environment``). A third-party package adds one in its own ``pyproject.toml``::

    [project.entry-points."repo2env.languages"]
    toy = "my_package.toy:ToyLanguage"

Optional, for environments across history (``environment.ladder``; a language without them gets one rung, its
``install_recipe``): ``recipe_rungs`` (the fallback ladder's plans and the key of the files that decide them),
``install_recipe(..., plan)``, ``recipe_feedback`` (a plan with what the runs said was missing),
``parse_messages`` (skip reasons, import errors and failure details from the structured results), ``setup_files`` and
``plan_from_proposal`` (the setup agent's view and its checked proposal).

Optional, for languages beside Python (``go``, ``javascript``, ``rust``, ``java``): ``detect_commit`` (``detect``
that may read the tree's files, e.g. ``package.json``), ``grader_config`` (keys the grader's ``config.json`` needs,
e.g. its ``runner``), ``grader_rules`` (the instruction's last paragraph: what grading resets and runs),
``observed_behaviour`` (the observed problem from the runner's failure output), ``test_source_suffixes`` (which
test files it reads), ``refine_selection`` (FAIL_TO_PASS tests that failed only because their file did not build
moved to PASS_TO_PASS) and ``split_source`` (a source file that holds both the fix and its tests).

Optional for every language: ``registry_hosts``, the package registries the egress guard blocks in the task's
container (``environment.egress``; without it, only the code forge is blocked).

Only the languages asked about are imported. ``python`` is built in and is the fallback when no language
recognises a tree (what repo2rlenv did before languages were pluggable).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Protocol, runtime_checkable

from repo2env.core import gitrepo
from repo2env.core.errors import InputError

GROUP = "repo2env.languages"
FALLBACK = "python"


@dataclass(frozen=True)
class Detection:
    """What a language makes of a tree: ``supported`` False means recognised but not handled (``reason`` says
    why, e.g. a build tool that needs a download); ``evidence`` names the files that decided it."""

    language: str
    supported: bool = True
    reason: str | None = None
    evidence: tuple[str, ...] = ()


@runtime_checkable
class Language(Protocol):
    """A language plugin (module docstring). ``name`` is its entry-point name; ``test_config_names`` the file
    names of test configuration (reset to the base commit by the grader, e.g. ``conftest.py``)."""

    name: str
    test_config_names: tuple[str, ...]

    def detect(self, files: set[str]) -> Detection | None:
        """``files``: every path of the tree at the base commit. None when this is not the language's tree."""

    def is_test_file(self, path: str) -> bool:
        """True for a file that belongs to the hidden test patch (tests, test data, test configuration)."""

    def is_runnable_test_file(self, path: str, text: str = "") -> bool:
        """True for a test file the runner collects tests from (the runs target these); ``text`` is its content
        at the head commit."""

    def install_recipe(self, repo_path: str, commit: str, override):
        """The ``InstallRecipe`` for ``commit`` (``override``: an ``environment.overrides.RepoEnvConfig`` or None).
        Raises ``GitError`` for a missing commit."""

    def grader_files(self) -> dict[str, bytes]:
        """Files the grader needs beside it in a bundle's ``tests/`` (name -> bytes)."""

    def test_command(self, tests_dir: str, result_path: str) -> list[str]:
        """The command (argv) run in the container that prepares the test files and runs the tests, writing
        structured results to ``result_path``."""

    def parse_results(self, text: str) -> tuple[dict[str, str], list[str], dict[str, str]]:
        """``(outcomes by node id, files whose collection failed, their error messages)`` from the structured
        results the test command wrote."""

    def record_environment(self, client, image: str, stage, config: dict, report) -> None:
        """Record, in the ``BundleStage``'s ``tests/``, what the grader checks of the image (plugins, environment
        manifest); may add keys to the grader ``config`` and rewrite ``tests/config.json``. ``report(message)``
        tells progress."""


def available() -> list[str]:
    """Names of the installed language plugins."""
    return sorted({ep.name for ep in entry_points(group=GROUP)})


_LOADED: dict[str, Language] = {}


def load(name: str) -> Language:
    """The language plugin ``name``. Raises ``InputError`` listing the installed ones."""
    if name not in _LOADED:
        matches = [ep for ep in entry_points(group=GROUP) if ep.name == name]
        if not matches:
            installed = ", ".join(available()) or "none"
            raise InputError(f"language {name}: no such language plugin (installed: {installed})")
        _LOADED[name] = matches[0].load()()
    return _LOADED[name]


def detect(files: Iterable[str], repo_path: str | None = None,
           commit: str | None = None) -> tuple[Language, Detection]:
    """The language of a tree (its paths): the first plugin, in name order with ``python`` last, whose
    ``detect`` claims it; ``python`` when none does. With ``repo_path`` and ``commit``, a plugin's
    ``detect_commit(repo_path, commit, files)`` (which may read the files, e.g. ``package.json``) is asked
    instead. A claim with ``supported=False`` is returned as is, for the caller to skip with its reason."""
    files = set(files)
    names = sorted(n for n in available() if n != FALLBACK) + [FALLBACK]
    for name in names:
        language = load(name)
        if repo_path is not None and commit is not None and hasattr(language, "detect_commit"):
            found = language.detect_commit(repo_path, commit, files)
        else:
            found = language.detect(files)
        if found is not None:
            return language, found
    return load(FALLBACK), Detection(language=FALLBACK, evidence=())


def for_commit(repo_path: str, commit: str) -> tuple[Language, Detection]:
    """``detect`` on the tree of ``commit`` in the repository at ``repo_path`` (the files of the tree readable
    by ``detect_commit``). Raises ``GitError``."""
    return detect(gitrepo.ls_tree(repo_path, commit), str(repo_path), commit)
