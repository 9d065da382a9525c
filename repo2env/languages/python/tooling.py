"""Floors for the tools around a project: test tooling no older than what runs on the chosen Python, build tools
no older than what builds on it. Everything else resolves as of the base commit's date.

Floors are uv's ``--exclude-newer-package NAME=DATE`` (https://docs.astral.sh/uv/reference/cli/#uv-pip-install):
the named package resolves as of ``DATE`` instead of the commit's date. Dates are constants, so the same commit
always gets the same recipe.

``TEST_TOOLING``: per Python, the oldest pytest that collects and reports on it, and a date two weeks after its
release (its dependencies as of then). Measured on CPython 3.8.18-3.13.0 with 17 pytest releases from 4.6.11
to 8.3.5, each resolved with its own era's dependencies and run on a suite with a failing assert, parametrize,
classes, unittest, raises, importorskip and a module that fails to import. Older pytest fails on newer Pythons
on every module.
"""

from repo2env.core.records import RecipePart

# python -> (oldest pytest that works on it, a date when it and its dependencies were current)
TEST_TOOLING = {
    "3.8": ("5.3.5", "2020-02-12T00:00:00Z"),   # 5.2.4 and older: no atomicwrites of their era on PyPI
    "3.9": ("5.3.5", "2020-02-12T00:00:00Z"),
    "3.10": ("6.2.5", "2021-09-13T00:00:00Z"),  # 6.1.2: TypeError: required field "lineno" missing from alias
    "3.11": ("7.0.1", "2022-02-25T00:00:00Z"),  # 6.2.5 with its era's py: AttributeError: __spec__
    "3.12": ("7.0.1", "2022-02-25T00:00:00Z"),
    "3.13": ("7.0.1", "2022-02-25T00:00:00Z"),
}
# The ladder's "newer test tooling" rung, for any Python: pytest 7 no longer depends on more-itertools or py, so
# it installs beside old pins of those (and beside an old more-itertools that is the project itself).
NEWER_TOOLING = ("7.0.1", "2022-02-25T00:00:00Z")
# pytest and what it depends on across its versions: floored together, or the resolver finds no match.
TEST_TOOLS = ("pytest", "pluggy", "py", "attrs", "iniconfig", "packaging", "tomli", "exceptiongroup", "colorama",
              "atomicwrites", "more-itertools", "wcwidth", "importlib-metadata", "zipp", "six", "pyparsing",
              "typing-extensions", "coverage", "toml")
# Old build back ends break on new Pythons (setuptools < 66 imports pkgutil.ImpImporter, gone in 3.12): these
# resolve no older than BUILD_TOOL_FLOOR on every rung; MORE_BUILD_TOOLS too on the ladder's "build tools floored"
# rung (they are also runtime dependencies of some projects, so they are not floored first).
BUILD_TOOL_FLOOR = "2025-06-01T00:00:00Z"
BUILD_TOOLS = ("setuptools", "wheel", "packaging")  # new setuptools needs packaging >= 22 (canonicalize_version)
MORE_BUILD_TOOLS = ("cython", "setuptools-scm", "hatchling", "hatch-vcs", "hatch-fancy-pypi-readme", "flit-core",
                    "poetry-core", "pdm-backend", "scikit-build", "scikit-build-core", "meson-python",
                    "setuptools-rust", "cffi", "pybind11", "extension-helpers", "oldest-supported-numpy", "numpy",
                    "versioneer", "setuptools-git-versioning", "pbr", "calver")


def _floor_args(names, date: str) -> list[str]:
    return [a for name in names for a in ("--exclude-newer-package", f"{name}={date}")]


def test_tool_floor(python: str, commit_date: str, plugins: list[str],
                    newer: bool = False) -> tuple[list[str], list[str], RecipePart | None]:
    """``(uv arguments, overrides, part)`` flooring pytest, its dependencies and the pytest plugins named
    (``plugins``: distribution names) when the commit predates the oldest pytest that works on ``python``
    (``newer``: ``NEWER_TOOLING``'s, the ladder's rung). The overrides (uv's ``--overrides`` file,
    https://docs.astral.sh/uv/pip/compatibility/) replace what the project pins of them: ``pytest>=<that
    version>`` and the plugins by name, so ``pytest==3.7.1`` in an old ``tests_require`` does not conflict.
    Without a floor: ``["pytest"]``, no overrides, None."""
    version, date = TEST_TOOLING.get(python, (None, None))
    if newer and (date is None or date < NEWER_TOOLING[1]):
        version, date = NEWER_TOOLING
    if date is None or commit_date >= date:
        return ["pytest"], [], None
    # what the build-tool floor resolves later already (packaging) is left to it
    names = [n for n in dict.fromkeys(list(TEST_TOOLS) + sorted(plugins)) if n not in BUILD_TOOLS]
    why = (f"the ladder's newer test tooling: pytest {version} and later, its dependencies and plugins" if newer else
           f"pytest older than {version} fails on Python {python}: pytest, its dependencies and plugins")
    return _floor_args(names, date) + ["pytest"], [f"pytest>={version}"] + sorted(plugins), RecipePart(
        kind="tooling", name=f"pytest>={version}",
        why=f"{why} ({', '.join(sorted(plugins)) or 'none named'}) resolve as of {date[:10]}, whatever the "
            "project pins of them")


def build_tool_floor(commit_date: str, more: bool) -> tuple[list[str], RecipePart | None]:
    """uv arguments flooring the build tools (``more``: the wider set too) for a commit older than
    ``BUILD_TOOL_FLOOR``, with the part saying why."""
    if commit_date >= BUILD_TOOL_FLOOR:
        return [], None
    names = BUILD_TOOLS + (MORE_BUILD_TOOLS if more else ())
    return _floor_args(names, BUILD_TOOL_FLOOR), RecipePart(
        kind="build_tools", name=",".join(names),
        why=f"build back ends as of the commit date break on current Pythons: resolved as of {BUILD_TOOL_FLOOR[:10]}")


def era_build_tools(python: str, commit_date: str) -> tuple[list[str], RecipePart | None]:
    """uv arguments resolving setuptools and wheel as of the commit's date, or, for a commit older than
    ``python``, as of the first months of ``python`` (``TEST_TOOLING``'s date: setuptools of that time still
    had ``use_2to3`` and ``Feature`` and already ran on it); with the part saying why."""
    date = max(commit_date, TEST_TOOLING.get(python, (None, commit_date))[1])
    if date == commit_date:
        return [], RecipePart(kind="build_tools", name="setuptools,wheel",
                              why="the ladder's rung: build tools as of the commit date (an old setup.py needs them)")
    return _floor_args(BUILD_TOOLS, date), RecipePart(
        kind="build_tools", name="setuptools,wheel",
        why=f"the ladder's rung: build tools as of {date[:10]}, the oldest that run on Python {python} (an old "
            "setup.py uses what later setuptools removed)")
