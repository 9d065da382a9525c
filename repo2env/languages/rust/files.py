"""Which files of a cargo package are test files, and the source of a test function (cargo's and libtest's rules).

Test files (``is_test_path``): everything under a ``tests`` folder (cargo builds each ``tests/*.rs`` as an
integration test; helpers and fixtures live beside them), ``tests.rs`` and anything under ``src/**/tests/`` (a
module of unit tests kept in its own file), and ``testdata``/``fixtures`` folders. Unit tests inside a source file's
``#[cfg(test)]`` module share the file with the code: such a file is part of the gold patch. Cargo's
configuration (``CONFIG_NAMES``) is reset by the grader like test configuration.
"""

import re
from pathlib import PurePosixPath

from repo2env.graders.rust_runner import CONFIG_NAMES
from repo2env.languages.toolchain import braced_source

__all__ = ["CONFIG_NAMES", "is_test_path", "is_runnable", "function_source", "same_function"]

_TEST_ATTR = re.compile(r"#\[(?:[\w:]+::)?test\b")


def is_test_path(path: str) -> bool:
    """True for files the test patch carries (module docstring)."""
    p = PurePosixPath(path)
    folders = p.parts[:-1]
    if any(part in ("tests", "testdata", "fixtures", "test_data") for part in folders):
        return True
    return p.name == "tests.rs" and "src" in folders


def is_runnable(path: str, text: str = "") -> bool:
    """A ``.rs`` test file that declares a test (``#[test]``, ``#[tokio::test]``…); without ``text``, any ``.rs``
    test file."""
    if not path.endswith(".rs") or not is_test_path(path):
        return False
    return not text or bool(_TEST_ATTR.search(text))


def function_source(text: str, name: str) -> str | None:
    """The source of the function ``name`` in Rust ``text`` (from ``fn name`` to its matching closing brace,
    braces in string literals and ``//`` comments ignored), or None when there is none or more than one."""
    starts = [m.start() for m in re.finditer(r"\bfn\s+%s\s*[<(]" % re.escape(name), text)]
    if len(starts) != 1:
        return None
    return braced_source(text, starts[0])


def same_function(before: str, after: str, name: str) -> bool:
    """Whether ``name`` is, once, in both texts with the same source."""
    old = function_source(before, name)
    return old is not None and old == function_source(after, name)
