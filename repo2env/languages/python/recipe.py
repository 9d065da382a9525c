"""Detect how to install a repository's dependencies *at its base commit* (never HEAD's).

Detection reads the base commit's tree: ``pyproject.toml`` extras (test/tests/testing, else dev),
``setup.cfg`` ``[options.extras_require]``, ``setup.py`` ``extras_require`` keys, ``requirements*.txt`` for tests
and development, and ``tox.ini`` ``[testenv] deps``. The result is one ``uv pip install`` command resolved as of
the base commit's date (``--exclude-newer``, field notes "Environments across history") with an editable install,
so the package imports from ``/workspace``. A per-repository entry in the environment config file overrides it.
"""

import configparser
import re
import shlex
import tomllib
from pathlib import PurePosixPath

from repo2env.core import gitrepo
from repo2env.core.records import DEFAULT_PYTHON, InstallRecipe, RepoEnvConfig

TEST_EXTRAS = ("test", "tests", "testing")
FALLBACK_EXTRAS = ("dev",)
_REQ_NAME = re.compile(r"^(requirements|reqs)?[-_/]?(test|tests|testing|dev|develop|development)[-_]?"
                       r"(requirements)?[\w-]*\.(txt|in)$|^(test|dev)[-_]requirements\.txt$", re.IGNORECASE)
# Old build back ends break on new Pythons (setuptools < 66 imports pkgutil.ImpImporter, gone in 3.12): build
# tools resolve no older than this fixed date. A constant, so the same commit always gets the same recipe.
BUILD_TOOL_FLOOR = "2025-06-01T00:00:00Z"
BUILD_TOOLS = ("setuptools", "wheel")
DEFAULT_ENV = {"UV_LINK_MODE": "copy", "PIP_NO_INPUT": "1"}
# Versioned-from-git projects (setuptools_scm, hatch-vcs) cannot see tags in the scrubbed copy: the project (and
# only the project: a dependency built from an sdist keeps its own version) gets a pretend version through
# setuptools_scm's per-distribution variable, SETUPTOOLS_SCM_PRETEND_VERSION_FOR_<NAME>, NAME the distribution's
# name upper-cased with runs of "-", "_" and "." as "_" (setuptools_scm's rule). A project whose name cannot be
# read falls back to the global variable.
PRETEND_VERSION = "0.0.0"


def pretend_version_env(name: str | None) -> dict[str, str]:
    """The environment that gives the project ``name`` (None: unknown) a version without git tags."""
    if not name:
        return {"SETUPTOOLS_SCM_PRETEND_VERSION": PRETEND_VERSION}
    return {"SETUPTOOLS_SCM_PRETEND_VERSION_FOR_" + re.sub(r"[-_.]+", "_", name).upper(): PRETEND_VERSION}


def project_name(pyproject: str | None, setup_cfg: str | None, setup_py: str | None) -> str | None:
    """The distribution name from ``[project].name``, ``setup.cfg [metadata] name`` or a literal ``name=`` in
    ``setup.py`` (first found), else None."""
    if pyproject:
        try:
            name = (tomllib.loads(pyproject).get("project") or {}).get("name")
        except tomllib.TOMLDecodeError:
            name = None
        if isinstance(name, str) and name.strip():
            return name.strip()
    if setup_cfg:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(setup_cfg)
            if parser.has_option("metadata", "name"):
                return parser.get("metadata", "name").strip() or None
        except configparser.Error:
            pass
    if setup_py:
        m = re.search(r"""\bname\s*=\s*['"]([A-Za-z0-9][A-Za-z0-9._-]*)['"]""", setup_py)
        if m:
            return m.group(1)
    return None


def _pyproject_extras(text: str) -> tuple[set[str], bool]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return set(), True
    extras = set((data.get("project") or {}).get("optional-dependencies") or {})
    installable = "build-system" in data or "project" in data
    return extras, installable


def _setup_cfg_extras(text: str) -> set[str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return set()
    if parser.has_section("options.extras_require"):
        return set(parser.options("options.extras_require"))
    return set()


def _setup_py_extras(text: str) -> set[str]:
    m = re.search(r"extras_require\s*=\s*(\{.*?\})", text, re.DOTALL)
    return set(re.findall(r"['\"]([\w.-]+)['\"]\s*:", m.group(1))) if m else set()


def _tox_deps(text: str) -> list[str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    if not parser.has_option("testenv", "deps"):
        return []
    deps = []
    for line in parser.get("testenv", "deps").splitlines():
        line = line.split("#", 1)[0].strip()
        # Skip references to files, factors and substitutions: they only make sense inside tox.
        if line and not line.startswith(("-", ".")) and not any(c in line for c in "{}:"):
            deps.append(line)
    return deps


def detect_recipe(repo_path, base_commit: str, override: RepoEnvConfig | None = None) -> InstallRecipe:
    """Return the install recipe for ``base_commit``. Pure reading: raises only ``GitError`` on a missing commit."""
    date = gitrepo.commit_date_iso(repo_path, base_commit)
    files = set(gitrepo.ls_tree(repo_path, base_commit))

    def text(name: str) -> str | None:
        return gitrepo.show_file(repo_path, base_commit, name) if name in files else None

    env = dict(DEFAULT_ENV, **pretend_version_env(project_name(text("pyproject.toml"), text("setup.cfg"),
                                                               text("setup.py"))))
    if override and override.install:
        env.update(override.env)
        return InstallRecipe(python=override.python, apt_packages=tuple(override.apt_packages),
                             commands=tuple(override.install), env=env, exclude_newer=date, source="config")
    extras: set[str] = set()
    installable = False
    used: list[str] = []
    if "pyproject.toml" in files:
        found, installable = _pyproject_extras(gitrepo.show_file(repo_path, base_commit, "pyproject.toml") or "")
        extras |= found
        used.append("pyproject.toml")
    if "setup.cfg" in files:
        extras |= _setup_cfg_extras(gitrepo.show_file(repo_path, base_commit, "setup.cfg") or "")
        used.append("setup.cfg")
    if "setup.py" in files:
        extras |= _setup_py_extras(gitrepo.show_file(repo_path, base_commit, "setup.py") or "")
        installable = True
        used.append("setup.py")
    chosen = [e for e in TEST_EXTRAS if e in extras] or [e for e in FALLBACK_EXTRAS if e in extras]
    requirements = sorted(f for f in files if _REQ_NAME.match(f.replace("requirements/", "requirements-", 1))
                          and PurePosixPath(f).parent.name in ("", "requirements"))
    if not installable and "requirements.txt" in files:
        requirements.insert(0, "requirements.txt")
    used += requirements
    tox = _tox_deps(gitrepo.show_file(repo_path, base_commit, "tox.ini") or "") if "tox.ini" in files else []
    if tox:
        used.append("tox.ini")
    args = ["uv", "pip", "install", "--system", "--exclude-newer", date]
    if date < BUILD_TOOL_FLOOR:
        args += [a for tool in BUILD_TOOLS for a in ("--exclude-newer-package", f"{tool}={BUILD_TOOL_FLOOR}")]
    if installable:
        args += ["-e", "." + (f"[{','.join(chosen)}]" if chosen else "")]
    else:
        env["PYTHONPATH"] = "/workspace/src:/workspace" if any(f.startswith("src/") for f in files) else "/workspace"
    for req in requirements:
        args += ["-r", req]
    args += tox + ["pytest"]
    apt = tuple(override.apt_packages) if override else ()
    if override:
        env.update(override.env)
    return InstallRecipe(python=override.python if override else DEFAULT_PYTHON, apt_packages=apt,
                         commands=(shlex.join(args),), env=env, exclude_newer=date,
                         source="detected:" + ",".join(used or ["none"]))
