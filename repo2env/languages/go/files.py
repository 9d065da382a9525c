"""Which files of a Go module are test files and what `go test` runs (the go command's own rules).

Test files: ``*_test.go`` (``go help test``: "files whose names end in _test.go") and everything under a
``testdata`` folder (ignored by the go tool, read by tests). ``go.mod``/``go.sum``/``go.work`` are reset by the
grader like test configuration (``GO_CONFIG_NAMES``): a ``replace`` directive would swap the test framework.
"""

import re
from pathlib import PurePosixPath

from repo2env.graders.go_runner import GO_CONFIG_NAMES

__all__ = ["GO_CONFIG_NAMES", "is_test_path", "is_go_test_file", "go_directive", "function_source", "same_function"]

_TEST_FUNC = re.compile(r"^func\s+(Test|Example|Fuzz)\w*\s*\(", re.MULTILINE)


def is_test_path(path: str) -> bool:
    """True for files the test patch carries (module docstring)."""
    p = PurePosixPath(path)
    return p.name.endswith("_test.go") or "testdata" in p.parts[:-1]


def is_go_test_file(path: str, text: str = "") -> bool:
    """A ``_test.go`` file; with ``text``, one that declares a test, example or fuzz target."""
    if not path.endswith("_test.go"):
        return False
    return not text or bool(_TEST_FUNC.search(text))


def function_source(text: str, name: str) -> str | None:
    """The source of the top-level function ``name`` in Go ``text`` (gofmt's layout: from ``func name(`` to the
    first ``}`` at the start of a line), or None when there is none."""
    found = re.search(r"^func\s+%s\s*\(.*?^\}" % re.escape(name), text, re.MULTILINE | re.DOTALL)
    return found.group(0) if found else None


def same_function(before: str, after: str, name: str) -> bool:
    """Whether ``name`` is in both texts with the same source."""
    old = function_source(before, name)
    return old is not None and old == function_source(after, name)


def go_directive(go_mod: str) -> tuple[int, ...] | None:
    """The version of ``go.mod``'s ``go`` line (``go 1.21.3`` -> ``(1, 21, 3)``), or None when it has none."""
    found = re.search(r"^go\s+(\d+(?:\.\d+){0,2})\s*$", go_mod, re.MULTILINE)
    return tuple(int(x) for x in found.group(1).split(".")) if found else None
