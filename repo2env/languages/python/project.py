"""The files of a Python project that decide its environment, read once at a base commit.

``ProjectFiles`` holds the base commit's tree, its date and the text of every deciding file: the packaging files
(``pyproject.toml``, ``setup.cfg``, ``setup.py``), the test runners' configuration (``tox.ini``, ``tox.toml``,
``noxfile.py``), test/dev requirements files and the CI definitions (GitHub Actions workflows, Travis, Azure,
GitLab, AppVeyor, CircleCI). Its ``key`` (sha256 over those texts) names the recipe in the environment memory:
two commits with the same key get the same recipe.
"""

import configparser
import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath

from repo2env.core import gitrepo

PACKAGING = ("pyproject.toml", "setup.cfg", "setup.py")
RUNNERS = ("tox.ini", "tox.toml", "noxfile.py")
CI_FILES = (".travis.yml", "azure-pipelines.yml", ".gitlab-ci.yml", "appveyor.yml", ".appveyor.yml",
            ".circleci/config.yml")
_PURPOSE = r"(test|tests|testing|dev|devel|develop|development|ci)"
_REQ_NAME = re.compile(rf"^(?:(?:requirements|reqs)[-_.]?{_PURPOSE}|{_PURPOSE}[-_.]?(?:requirements|reqs))"
                       r"(?:[-_.][\w.-]*)?\.(txt|in)$", re.IGNORECASE)
_IN_FOLDER = re.compile(rf"^{_PURPOSE}(?:[-_.][\w.-]*)?\.(txt|in)$", re.IGNORECASE)
_PY2_ONLY = re.compile(r"(?:^|[-_.])(py2|py27|python2)(?:[-_.]|$)", re.IGNORECASE)


def is_test_requirements(path: str) -> bool:
    """A requirements file for tests or development at the root (``requirements-test.txt``,
    ``test-requirements.txt``, ``dev-requirements.in``, ``requirements_dev.txt``) or in ``requirements/``
    (``requirements/tests.txt``); not one for Python 2 only (``test-requirements-py2.txt``), and not any other
    text file (``CITATION.txt``, ``tests.txt`` at the root)."""
    pure = PurePosixPath(path)
    if len(pure.parts) > 2 or _PY2_ONLY.search(pure.stem):
        return False
    if len(pure.parts) == 2:
        return pure.parts[0] == "requirements" and bool(_IN_FOLDER.match(pure.name) or _REQ_NAME.match(pure.name))
    return bool(_REQ_NAME.match(pure.name))


def _is_deciding(path: str) -> bool:
    if path in PACKAGING or path in RUNNERS or path in CI_FILES or path == "requirements.txt":
        return True
    if path.startswith(".github/workflows/") and path.endswith((".yml", ".yaml")):
        return True
    return is_test_requirements(path)


@dataclass
class ProjectFiles:
    """``tree``: every path at the commit; ``texts``: deciding file -> text; ``date``: the commit date (RFC 3339
    UTC, ``gitrepo.commit_date_iso``)."""

    commit: str
    date: str
    tree: frozenset[str]
    texts: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, repo_path, commit: str) -> "ProjectFiles":
        """Read the deciding files of ``commit``. Raises ``GitError`` for a missing commit."""
        tree = frozenset(gitrepo.ls_tree(repo_path, commit))
        texts = {}
        for path in sorted(p for p in tree if _is_deciding(p)):
            text = gitrepo.show_file(repo_path, commit, path)
            if text is not None:
                texts[path] = text
        return cls(commit=commit, date=gitrepo.commit_date_iso(repo_path, commit), tree=tree, texts=texts)

    def text(self, path: str) -> str | None:
        return self.texts.get(path)

    @property
    def key(self) -> str:
        """sha256 hex over the deciding files' paths and texts (what the environment memory is keyed by)."""
        h = hashlib.sha256()
        for path in sorted(self.texts):
            h.update(path.encode() + b"\0" + self.texts[path].encode("utf-8", "surrogateescape") + b"\0")
        return h.hexdigest()

    @cached_property
    def pyproject(self) -> dict:
        """``pyproject.toml`` parsed (empty when absent or not TOML)."""
        try:
            return tomllib.loads(self.texts.get("pyproject.toml") or "")
        except tomllib.TOMLDecodeError:
            return {}

    @cached_property
    def setup_cfg(self) -> configparser.ConfigParser:
        """``setup.cfg`` parsed (empty when absent or unreadable)."""
        return ini(self.texts.get("setup.cfg") or "")

    @cached_property
    def tox(self) -> configparser.ConfigParser:
        """tox's configuration as INI: ``tox.ini``, else ``[tool.tox] legacy_tox_ini`` of pyproject.toml."""
        text = self.texts.get("tox.ini")
        if text is None:
            text = self.tool("tox").get("legacy_tox_ini") or ""
        return ini(text if isinstance(text, str) else "")

    @cached_property
    def tox_toml(self) -> dict:
        """tox 4's TOML configuration: ``tox.toml``, else ``[tool.tox]`` of pyproject.toml without legacy_tox_ini."""
        try:
            data = tomllib.loads(self.texts.get("tox.toml") or "")
        except tomllib.TOMLDecodeError:
            data = {}
        if not data:
            data = dict(self.tool("tox"))
            data.pop("legacy_tox_ini", None)
        return data

    def tool(self, name: str) -> dict:
        """``[tool.<name>]`` of pyproject.toml (empty when absent or not a table)."""
        tool = self.pyproject.get("tool")
        value = tool.get(name) if isinstance(tool, dict) else None
        return value if isinstance(value, dict) else {}

    def ci_texts(self) -> dict[str, str]:
        """CI definition file -> text."""
        return {p: t for p, t in self.texts.items() if p in CI_FILES or p.startswith(".github/workflows/")}

    def installable(self) -> bool:
        """True when the project can be installed (``pip install .``): a setup.py, or a pyproject.toml with a
        ``[build-system]`` or ``[project]`` table (or one that cannot be parsed: let the installer say why)."""
        if "setup.py" in self.texts:
            return True
        if "pyproject.toml" not in self.texts:
            return False
        return not self.pyproject or "build-system" in self.pyproject or "project" in self.pyproject

    @property
    def project(self) -> dict:
        """``[project]`` of pyproject.toml (empty when absent or not a table)."""
        value = self.pyproject.get("project")
        return value if isinstance(value, dict) else {}


def ini(text: str) -> configparser.ConfigParser:
    """An INI text parsed without interpolation (empty on a syntax error: tox and setuptools are more lenient)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return configparser.ConfigParser(interpolation=None)
    return parser
