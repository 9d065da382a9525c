"""Which files of a Maven project are test files, and the source of a test method (Maven's standard directory
layout and Surefire's rules).

Test files (``is_test_path``): everything under a module's ``src/test/`` (``src/test/java`` sources,
``src/test/resources`` data, both on the test classpath only). A runnable test file (``is_runnable``) is a
``.java`` source there that declares a test (JUnit 4/5's or TestNG's ``@Test``, JUnit 5's ``@ParameterizedTest``,
``@RepeatedTest``, ``@TestFactory``, or a JUnit 3 ``TestCase``). Build and test configuration (``CONFIG_NAMES``,
``.mvn/``) is reset by the grader like test configuration (``java_runner.is_config_path``).
"""

import re
from pathlib import PurePosixPath

from repo2env.graders.java_runner import CONFIG_NAMES, is_config_path
from repo2env.languages.toolchain import braced_source

__all__ = ["CONFIG_NAMES", "is_config_path", "is_test_path", "is_runnable", "method_source", "same_method"]

_TEST_ANNOTATION = re.compile(r"@(?:org\.junit\.(?:jupiter\.api\.)?|org\.testng\.annotations\.)?(?:Test|"
                              r"ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b|\bextends\s+TestCase\b")


def is_test_path(path: str) -> bool:
    """True for files the test patch carries (module docstring)."""
    parts = PurePosixPath(path).parts[:-1]
    return any(parts[i:i + 2] == ("src", "test") for i in range(len(parts)))


def is_runnable(path: str, text: str = "") -> bool:
    """A ``.java`` test source that declares a test; without ``text``, any ``.java`` test source."""
    if not path.endswith(".java") or not is_test_path(path):
        return False
    return not text or bool(_TEST_ANNOTATION.search(text))


def method_source(text: str, name: str) -> str | None:
    """The source of the method ``name`` in Java ``text`` (its declaration ``name(...) {`` to the matching closing
    brace, braces in string and char literals and ``//`` comments ignored), or None when there is none or more
    than one (an overloaded name)."""
    starts = [m.start() for m in re.finditer(r"\b%s\s*\([^;{)]*\)\s*(?:throws\s+[\w.,\s]+)?\{" % re.escape(name),
                                             text)]
    if len(starts) != 1:
        return None
    return braced_source(text, starts[0], "\"'")


def same_method(before: str, after: str, name: str) -> bool:
    """Whether the method ``name`` is, once, in both texts with the same source."""
    old = method_source(before, name)
    return old is not None and old == method_source(after, name)
