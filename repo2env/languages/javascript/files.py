"""Which files of a JavaScript/TypeScript repository are test files, which a runner collects, and which test
runner and package manager a ``package.json`` at the base commit asks for.

Test files (``js_runner.is_test_path``, the grader's rule): ``*.test.*`` / ``*.spec.*`` sources and anything under
``__tests__``, ``__mocks__``, ``__snapshots__``, ``test`` or ``tests``. Runner configuration
(``js_runner.CONFIG_NAMES``: ``package.json``, ``jest.config.*``, ``vitest.config.*``, ``vite.config.*``,
``.mocharc.*``, Babel's and TypeScript's) is reset by the grader before it runs the tests.
"""

import json
import re
from dataclasses import dataclass

from repo2env.graders.js_runner import CONFIG_NAMES, JS_EXTENSIONS, is_test_path

__all__ = ["CONFIG_NAMES", "is_test_path", "is_runnable", "Project", "read_project"]

_DECLARES = re.compile(r"(^|[^\w.])(it|test|describe)\s*(\.\w+\s*)?\(", re.MULTILINE)
RUNNERS = ("vitest", "jest", "mocha")  # in the order a package.json that lists several is read


def is_runnable(path: str, text: str = "") -> bool:
    """A JavaScript/TypeScript test file the runner collects tests from: a source file of the test patch
    (``is_test_path``) that declares a test (``it``/``test``/``describe``; every file when ``text`` is empty)."""
    if not path.endswith(JS_EXTENSIONS) or not is_test_path(path):
        return False
    return not text or bool(_DECLARES.search(text))


@dataclass(frozen=True)
class Project:
    """What a root ``package.json`` says: the ``runner`` (vitest, jest or mocha; None when none is listed), the
    ``manager`` (``npm`` with ``package-lock.json``, else ``npm-install``), and ``unsupported`` (why the tree
    cannot be handled, or None)."""

    runner: str | None
    manager: str
    unsupported: str | None


def read_project(package_json: str, tree: set[str]) -> Project:
    """The ``Project`` of a ``package.json`` text and the tree's paths. Yarn Berry (``.yarnrc.yml``, Plug'n'Play)
    and pnpm-only trees are recognised but unsupported: their package managers are fetched per project and a
    PnP tree has no ``node_modules`` to run the runner from."""
    try:
        data = json.loads(package_json) if package_json.strip() else {}
    except ValueError:
        return Project(None, "npm-install", "package.json is not valid JSON")
    deps = {**(data.get("dependencies") or {}), **(data.get("devDependencies") or {})} if isinstance(data, dict) else {}
    script = str(((data.get("scripts") or {}) if isinstance(data, dict) else {}).get("test") or "")
    # the test script says which runner the project uses (a runner listed in the dependencies may serve
    # something else); the dependencies decide only when the script names none
    runner = next((r for r in RUNNERS if re.search(r"\b%s\b" % r, script)), None)
    other = re.search(r"node\s+(?:[^|&;]*\s)?--test\b|\b(ava|tap|tape|uvu|karma|playwright|jasmine|lab|qunit)\b",
                      script)
    if runner is None and other:
        return Project(None, "npm", f"the test script runs {other.group(1) or 'node --test'} "
                                    "(vitest, jest and mocha are supported)")
    if runner is None:
        runner = next((r for r in RUNNERS if r in deps or (r == "jest" and "ts-jest" in deps)), None)
    if ".yarnrc.yml" in tree or ".pnp.cjs" in tree:
        return Project(runner, "yarn-berry", "Yarn Berry (.yarnrc.yml / Plug'n'Play): its yarn release and PnP "
                                             "tree are not supported; a node_modules install is")
    if "pnpm-lock.yaml" in tree and "package-lock.json" not in tree:
        return Project(runner, "pnpm", "pnpm-lock.yaml only: pnpm is not supported yet (npm with "
                                       "package-lock.json, or without a lockfile, is)")
    if runner is None:
        return Project(None, "npm", "no supported test runner in package.json (vitest, jest or mocha; "
                                    "node:test and others are not supported yet)")
    return Project(runner, "npm" if "package-lock.json" in tree else "npm-install", None)
