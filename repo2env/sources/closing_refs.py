"""Issues a pull request closes, from the closing keywords in its body ("Fixes #12", "closes org/repo#12").

The keywords are GitHub's (docs: "Linking a pull request to an issue using a keyword"): close, closes, closed,
fix, fixes, fixed, resolve, resolves, resolved, case-insensitive, optionally followed by a colon; the reference is
``#N``, ``owner/name#N`` or an issue URL. SWE-bench resolves linked issues the same way.
"""

import re
from typing import NamedTuple

_KEYWORD = r"(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)"
_REF = re.compile(
    rf"\b{_KEYWORD}\s*:?\s+"
    r"(?:(?P<owner>[\w.-]+)/(?P<name>[\w.-]+)#(?P<num1>\d+)"
    r"|#(?P<num2>\d+)"
    r"|https?://[^\s/]+/(?P<uowner>[\w.-]+)/(?P<uname>[\w.-]+)/issues/(?P<num3>\d+))",
    re.IGNORECASE)


class IssueRef(NamedTuple):
    """A closing reference: ``owner``/``name`` of the issue's repository and its ``number``."""

    owner: str
    name: str
    number: int


def closing_refs(body: str, owner: str, name: str) -> list[IssueRef]:
    """Closing references in ``body`` in order of appearance, without duplicates; ``#N`` means ``owner/name#N``."""
    found: list[IssueRef] = []
    for m in _REF.finditer(body or ""):
        if m["num2"]:
            ref = IssueRef(owner, name, int(m["num2"]))
        elif m["num1"]:
            ref = IssueRef(m["owner"], m["name"], int(m["num1"]))
        else:
            ref = IssueRef(m["uowner"], m["uname"], int(m["num3"]))
        if ref not in found:
            found.append(ref)
    return found
