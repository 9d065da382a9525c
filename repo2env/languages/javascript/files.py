"""Which files of a JavaScript/TypeScript repository are test files, which a runner collects, and which test
runner and package manager a ``package.json`` at the base commit asks for.

Test files (``js_runner.is_test_path``, the grader's rule): ``*.test.*`` / ``*.spec.*`` sources and anything under
``__tests__``, ``__mocks__``, ``__snapshots__``, ``test`` or ``tests``. Runner configuration
(``js_runner.CONFIG_NAMES``: ``package.json``, ``jest.config.*``, ``vitest.config.*``, ``vite.config.*``,
``.mocharc.*``, Babel's and TypeScript's) is reset by the grader before it runs the tests.
"""

import json
import re
import shlex
from dataclasses import dataclass, field

from repo2env.graders.js_runner import CONFIG_NAMES, JS_EXTENSIONS, NODE_TEST, is_test_path

__all__ = ["CONFIG_NAMES", "is_test_path", "is_runnable", "Project", "read_project", "node_test_flags"]

_DECLARES = re.compile(r"(^|[^\w.])(it|test|describe)\s*(\.\w+\s*)?\(", re.MULTILINE)
RUNNERS = ("vitest", "jest", "mocha")  # in the order a package.json that lists several is read
# node --test options that take the next word as their value (Node.js's CLI documentation)
_VALUED = {"--import", "--require", "-r", "--loader", "--experimental-loader", "--conditions", "-C", "--env-file",
           "--test-timeout", "--test-concurrency", "--input-type"}
# option prefixes the grader sets itself or that change what runs: every --test* option (reporters, filters,
# shards, timeouts), watch mode, the experimental test coverage and snapshots
_DROPPED = ("--test", "--watch", "--experimental-test-")
_NODE_TEST = re.compile(r"(?:^|[\s;&|(])node\s+(?:[^|&;]*\s)?--test(?:\s|$|[;&|)])")


def is_runnable(path: str, text: str = "") -> bool:
    """A JavaScript/TypeScript test file the runner collects tests from: a source file of the test patch
    (``is_test_path``) that declares a test (``it``/``test``/``describe``; every file when ``text`` is empty)."""
    if not path.endswith(JS_EXTENSIONS) or not is_test_path(path):
        return False
    return not text or bool(_DECLARES.search(text))


@dataclass(frozen=True)
class Project:
    """What a root ``package.json`` says: the ``runner`` (vitest, jest, mocha or ``node:test``, Node.js's own, when
    the test script runs ``node --test``; None when none is listed), its ``flags`` (``node_test_flags``), the
    ``manager`` (``npm`` with ``package-lock.json``, else ``npm-install``), and ``unsupported`` (why the tree
    cannot be handled, or None)."""

    runner: str | None
    manager: str
    unsupported: str | None
    flags: tuple[str, ...] = field(default=())


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
    flags: tuple[str, ...] = ()
    if runner is None and _NODE_TEST.search(script):
        built = re.search(r"--test\b[^|&;]*?\s\.?/?((?:dist|build|out)/\S*)", script)
        if built:
            return Project(None, "npm", f"the test script runs node --test on built files ({built.group(1)}): "
                                        "a build step before the tests is not supported")
        runner, flags = NODE_TEST, node_test_flags(script)
    other = re.search(r"\b(ava|tap|tape|uvu|karma|playwright|jasmine|lab|qunit)\b", script)
    if runner is None and other:
        return Project(None, "npm", f"the test script runs {other.group(1)} "
                                    "(vitest, jest, mocha and node --test are supported)")
    if runner is None:
        runner = next((r for r in RUNNERS if r in deps or (r == "jest" and "ts-jest" in deps)), None)
    if ".yarnrc.yml" in tree or ".pnp.cjs" in tree:
        return Project(runner, "yarn-berry", "Yarn Berry (.yarnrc.yml / Plug'n'Play): its yarn release and PnP "
                                             "tree are not supported; a node_modules install is")
    if "pnpm-lock.yaml" in tree and "package-lock.json" not in tree:
        return Project(runner, "pnpm", "pnpm-lock.yaml only: pnpm is not supported yet (npm with "
                                       "package-lock.json, or without a lockfile, is)")
    if runner is None:
        return Project(None, "npm", "no supported test runner in package.json (vitest, jest, mocha or a test "
                                    "script running node --test)")
    return Project(runner, "npm" if "package-lock.json" in tree else "npm-install", None, flags)


def node_test_flags(script: str) -> tuple[str, ...]:
    """The Node.js options a test script gives ``node --test`` (``--import tsx``, ``--experimental-*``, ...),
    for the grader to give too: the first command of ``script`` (split at ``&&``, ``||``, ``;``, ``|``) that runs
    ``node`` with ``--test``, behind wrappers such as ``c8``, ``nyc`` or ``cross-env``; its file and folder arguments are left out (the grader names the test files), as are
    every ``--test*`` option, watch mode and coverage (``_DROPPED``). A script ``shlex`` cannot split gives none."""
    for part in re.split(r"&&|\|\||;|\|", script):
        try:
            words = shlex.split(part)
        except ValueError:
            return ()
        # what runs node: VAR=value prefixes and wrappers (cross-env, c8, nyc, npx, env) come first
        if "node" not in words or "--test" not in words[words.index("node"):]:
            continue
        words = words[words.index("node"):]
        kept, i = [], 1
        while i < len(words):
            word = words[i]
            name = word.split("=", 1)[0]
            takes_next = name in _VALUED and "=" not in word and i + 1 < len(words)
            if word.startswith("-") and not name.startswith(_DROPPED):
                kept.extend([word, words[i + 1]] if takes_next else [word])
            i += 2 if takes_next else 1
        return tuple(kept)
    return ()
