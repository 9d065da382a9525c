"""Which files of a Python repository are test files (SWE-bench's convention) and which pytest collects.

Test files: anything under a ``test``/``tests``/``testing`` directory (test data included), ``test_*.py``,
``*_test.py`` and ``conftest.py``. pytest collects ``test_*.py`` / ``*_test.py`` by default. Test configuration
files (``TEST_CONFIG_NAMES``, the grader's list) are reset by the grader before it runs the tests.
"""

import re
from pathlib import PurePosixPath

from repo2env.graders.runtime_verifier import TEST_CONFIG_NAMES, TEST_DIRS

MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "tox.ini", "pytest.ini")

__all__ = ["TEST_CONFIG_NAMES", "TEST_DIRS", "MARKERS", "is_test_path", "is_python_test_file", "defines_tests"]


def is_test_path(path: str) -> bool:
    """True for files the test patch carries (see module docstring)."""
    p = PurePosixPath(path)
    if any(part in TEST_DIRS for part in p.parts[:-1]):
        return True
    name = p.name
    return name == "conftest.py" or (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")))


def is_python_test_file(path: str) -> bool:
    """A file pytest collects tests from by default (``test_*.py`` / ``*_test.py``)."""
    name = PurePosixPath(path).name
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


_TEST_DEF = re.compile(r"^\s*(?:async\s+)?def\s+test|^\s*class\s+Test", re.MULTILINE)


def defines_tests(path: str, text: str) -> bool:
    """A Python file (not ``conftest.py`` or ``__init__.py``) whose ``text`` defines a test function or class,
    whatever the file's name (``tests/foo_tests.py``)."""
    name = PurePosixPath(path).name
    return name.endswith(".py") and name not in ("conftest.py", "__init__.py") and bool(_TEST_DEF.search(text))
