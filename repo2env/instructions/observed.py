"""The observed problem, derived from the tests' own evidence: what a user would report, as the FAIL_TO_PASS tests
saw it before the fix.

From a failed test's message and the head of its traceback (``verifier.py run``'s ``failure_details``, pytest's
JUnit XML with assertion rewriting) one sentence is made, by the shape of the failure:

* an assertion pytest rewrote with the value of a call (``assert 5 == 6`` / ``+ where 5 = area(2, 3)``):
  "`area(2, 3)` returns `5`; `6` is expected.";
* an exception raised under the test's statement (``> value = parse("1 kB")`` / ``E ValueError: ...``):
  "`parse("1 kB")` raises `ValueError: ...`.";
* ``pytest.raises`` that saw nothing (``Failed: DID NOT RAISE ValueError``): "`area(-1, 2)` does not raise
  `ValueError`; it should.";
* a module that cannot be imported (``ImportError: cannot import name 'X' from 'pkg'``): "`from pkg import X`
  fails: ...". A new name the fix adds is the feature asked for.

The sentences never name a test file, a test function or a helper the tests define (calls to names defined in
the test files are left out, and so is a failure whose only call is one); the instruction they join is audited as
every instruction is, with the test patch's lines in the n-gram audit.
"""

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

MAX_SENTENCES = 3
MAX_CHARS = 160  # of a code span in a sentence
_WHERE = re.compile(r"^[+]\s+where\s+(.+?)\s+=\s+(.+?)\s*$")
_ASSERT = re.compile(r"^(?:AssertionError:\s*)?assert\s+(.+?)\s*(==|!=|is not|is|not in|in|<=|>=|<|>)\s*(.+)$")
_EXC = re.compile(r"^E\s+([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt|Failed))(?::\s?(.*))?$")
_DID_NOT_RAISE = re.compile(r"DID NOT RAISE\s+<?(?:class\s+)?'?([\w.]+)'?>?")
_CANNOT_IMPORT = re.compile(r"cannot import name '([\w.]+)' from '([\w.]+)'")
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_ATTR = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")
_TEST_NAMES = re.compile(r"^(test|Test)")


@dataclass(frozen=True)
class Evidence:
    """What the grading tests saw before the fix: ``failures`` (node id -> failure message and traceback
    head), ``import_errors`` (test file -> the error that stopped its collection), the FAIL_TO_PASS ids, and
    ``test_sources`` (test file -> its text with the test patch applied)."""

    failures: dict
    import_errors: dict
    fail_to_pass: tuple
    test_sources: dict


def _code(text: str) -> str:
    text = " ".join(text.split())
    text = text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 1] + "…"
    return "`" + text.replace("`", "'") + "`"


def helper_names(sources: Iterable[str]) -> set[str]:
    """Names the test files define (functions, classes, assigned names, fixtures, parameters): a call to one
    of them is the tests' own machinery, never the public API a user calls."""
    names: set[str] = set()
    for text in sources:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.update(a.arg for a in node.args.args + node.args.kwonlyargs)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


def _calls(expr: str, helpers: set[str]) -> list[str]:
    """The outermost calls in ``expr`` to names the tests do not define (``area(2, 3)``; ``obj.method(x)``)."""
    try:
        tree = ast.parse(expr.strip(), mode="exec")
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        root = node.func
        while isinstance(root, ast.Attribute | ast.Call | ast.Subscript):
            root = root.value if not isinstance(root, ast.Call) else root.func
        name = root.id if isinstance(root, ast.Name) else None
        if name is None or name in helpers or name in ("pytest", "len", "list", "dict", "set", "tuple", "str",
                                                        "int", "float", "sorted", "repr", "type", "isinstance",
                                                        "print", "getattr", "hasattr", "bool"):
            continue
        if _TEST_NAMES.match(name):
            continue
        segment = ast.get_source_segment(expr.strip(), node)
        if segment and not any(segment in other for other in found):
            found.append(segment)
    return found


def _statement(text: str) -> str | None:
    """The test's own failing statement: the first ``>`` line of the traceback."""
    for line in text.splitlines():
        if line.startswith(">"):
            return line[1:].strip()
    return None


def _exception(text: str) -> str | None:
    """The last ``E   SomeError: message`` line."""
    found = None
    for line in text.splitlines():
        m = _EXC.match(line.strip() if line.startswith("E") else "")
        if m:
            found = m.group(1) + (f": {m.group(2).strip()}" if m.group(2) else "")
    return found


def _raises_body(sources: dict, text: str) -> str | None:
    """The statement inside the ``with pytest.raises`` block the traceback points at (``path:line``)."""
    m = re.search(r"^([\w./-]+\.py):(\d+):", text, re.M)
    if not m or m.group(1) not in sources:
        return None
    try:
        tree = ast.parse(sources[m.group(1)])
    except SyntaxError:
        return None
    line = int(m.group(2))
    for node in ast.walk(tree):
        if isinstance(node, ast.With | ast.AsyncWith) and node.lineno == line and node.body:
            return ast.get_source_segment(sources[m.group(1)], node.body[0])
    return None


def sentence(text: str, helpers: set[str], sources: dict) -> str | None:
    """One sentence for one failed test's evidence (module docstring), or None when no shape fits."""
    message = text.split("\n", 1)[0].strip()
    lines = text.splitlines()
    body = [ln[1:].strip() if ln.startswith("E") else ln.strip() for ln in lines]
    wheres = [m.groups() for m in map(_WHERE.match, body) if m]
    m = _DID_NOT_RAISE.search(text)
    if m:
        body = _raises_body(sources, text)
        calls = _calls(body, helpers) if body else []
        if calls:
            return f"{_code(calls[0])} does not raise `{m.group(1)}`; it should."
        return None
    m = _ASSERT.match(message) or next((_ASSERT.match(ln[1:].strip()) for ln in lines if ln.startswith("E")
                                        and _ASSERT.match(ln[1:].strip())), None)
    if m:
        left, op, right = m.group(1).strip(), m.group(2), m.group(3).strip()
        for value, expr in wheres:
            calls = _calls(expr, helpers)
            if calls and value.strip() == left:
                want = {"==": f"{_code(right)} is expected", "!=": f"anything but {_code(right)} is expected",
                        "is": f"{_code(right)} is expected", "in": f"it should be in {_code(right)}"}.get(
                    op, f"it should be {op} {_code(right)}")
                return f"{_code(calls[0])} returns {_code(left)}; {want}."
        statement = _statement(text)
        calls = _calls(statement, helpers) if statement else []
        if calls:
            return f"{_code(calls[0])} gives a result for which {_code(f'{left} {op} {right}')} does not hold."
        return None
    exc = _exception(text)
    statement = _statement(text)
    if exc and statement:
        calls = _calls(statement, helpers)
        if calls:
            return f"{_code(calls[0])} raises {_code(exc)}."
    return None


def _import_sentence(message: str) -> str | None:
    m = _CANNOT_IMPORT.search(message)
    if m:
        return f"`from {m.group(2)} import {m.group(1)}` fails: `{m.group(2)}` has no `{m.group(1)}` yet."
    m = _ATTR.search(message)
    if m:
        return f"`{m.group(1)}.{m.group(2)}` does not exist (`AttributeError`)."
    m = _NO_MODULE.search(message)
    if m:
        return f"`import {m.group(1)}` fails: there is no module `{m.group(1)}` yet."
    return None


def observed_behaviour(evidence: Evidence) -> list[str]:
    """Up to ``MAX_SENTENCES`` distinct sentences of what the FAIL_TO_PASS tests saw before the fix (module
    docstring), FAIL_TO_PASS order; empty when no failure has a shape that can be told without the tests."""
    helpers = helper_names(evidence.test_sources.values())
    out: list[str] = []
    for path in sorted({t.split("::", 1)[0] for t in evidence.fail_to_pass} & set(evidence.import_errors)):
        said = _import_sentence(evidence.import_errors[path])
        if said and said not in out:
            out.append(said)
    for test_id in evidence.fail_to_pass:
        if len(out) >= MAX_SENTENCES:
            break
        text = evidence.failures.get(test_id)
        said = sentence(text, helpers, evidence.test_sources) if text else None
        if said and said not in out:
            out.append(said)
    return out[:MAX_SENTENCES]


def section(sentences: list[str]) -> str:
    """The instruction's "Observed behaviour" section (Markdown), or "" without sentences."""
    if not sentences:
        return ""
    return "## Observed behaviour\n\n" + "\n".join(f"- {s}" for s in sentences) + "\n"
