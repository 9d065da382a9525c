"""One sentence per failed test, by the shape of its failure (the package docstring lists them): a wrong value,
an exception, an exception not raised or raised with another message, two results that should compare equal,
a name that cannot be imported. Values come from pytest's assertion rewriting and unittest's messages; calls
and expected values from the failing statement (``failing_statement``)."""

import ast
import builtins
import re

from repo2env.graders.runtime_verifier import TEST_DIRS
from repo2env.instructions.leak_audit import token_marks
from repo2env.instructions.observed.evidence import Evidence, module_name, parse_source
from repo2env.instructions.observed.failing_statement import FRAME, Site, callee_of, locate, patches, \
    shown_locals, test_frame
from repo2env.instructions.observed.spans import NOT_API, Substitute, Teller, attr_name, copy_node, is_literal, \
    joined

class _Comparison:
    """A comparison as a failed assertion prints it, ``<left> <op> <right>`` after ``prefix`` (a regex), split at
    its first operator of ``ops`` that stands between spaces outside any quoted string, bracket or ``<…>`` repr
    (``assert '<script>' == 'a'`` compares ``'<script>'``; a lazy regex would stop at its ``<``). ``match``
    returns an object with ``group(1)``/``group(2)``/``group(3)`` (left, operator, right; with ``right_only``
    the right side is ``group(2)``, as in ``_UNITTEST_NE``'s two groups) and ``re`` (this parser), or None."""

    def __init__(self, prefix: str, ops: tuple[str, ...], two_groups: bool = False):
        self.prefix, self.ops, self.two_groups = re.compile(prefix), ops, two_groups

    def match(self, text: str):
        head = self.prefix.match(text)
        if head is None or "\n" in text.rstrip("\n"):  # one line, as the regex it replaces matched
            return None
        rest, depth, quote, i = text[head.end():], 0, None, 0
        while i < len(rest):
            ch = rest[i]
            if quote:
                if ch == "\\":
                    i += 1
                elif ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif ch in "([{" or (ch == "<" and rest[i + 1:i + 2].isalpha()):
                depth += 1
            elif ch in ")]}" or (ch == ">" and depth and rest[i - 1:i] not in (" ", "=", "-")):
                depth = max(0, depth - 1)
            elif ch == " " and depth == 0:
                for op in self.ops:
                    if rest.startswith(f" {op} ", i) and i > 0:
                        left, right = rest[:i].strip(), rest[i + len(op) + 2:].strip()
                        if left and right:
                            return _Compared(self, left, op, right)
            i += 1
        return None


class _Compared:
    """What ``_Comparison.match`` found: ``group(1..3)`` as a regex match of the same shape would give."""

    def __init__(self, parser: _Comparison, left: str, op: str, right: str):
        self.re = parser
        self._groups = (left, right) if parser.two_groups else (left, op, right)

    def group(self, index: int) -> str:
        return self._groups[index - 1]


# word operators only between spaces: "invalid" holds no "in"
_ASSERT = _Comparison(r"^(?:AssertionError:\s*)?assert\s+",
                      ("==", "!=", "<=", ">=", "<", ">", "is not", "is", "not in", "in"))
_UNITTEST_NE = _Comparison(r"^(?:AssertionError:\s*)?(?:\w+ differ: )?", ("!=",), two_groups=True)  # "Lists differ"

_WHERE = re.compile(r"^[+]\s+where\s+(.+?)\s+=\s+(.+?)\s*$")


_ASSERT_TRUTH = re.compile(r"^(?:AssertionError:\s*)?assert\s+(not\s+)?(.+)$")


_EXC = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt|Failed|Iteration|Timeout))"
                  r"(?::\s?(.*))?$")

_DID_NOT_RAISE = re.compile(r"DID NOT (?:RAISE|WARN)\s+<?(?:class\s+)?'?([\w.]+)'?>?")

_CANNOT_IMPORT = re.compile(r"cannot import name '([\w.]+)' from '([\w.]+)'")

_NO_MODULE = re.compile(r"No module named '([\w.]+)'")

# a module lacks a name: Python's message, or pytest's ``monkeypatch.setattr("pkg.mod.name", …)`` of a name the
# fix adds (funcy-118: "'module' object at funcy.debug has no attribute 'timer'")
_ATTR = re.compile(r"(?:module '([\w.]+)'|'module' object at ([\w.]+)) has no attribute '(\w+)'")

def _missing_attribute(text: str) -> tuple[str, str] | None:
    """(module, name) when ``text`` says a module lacks a name (``_ATTR``), else None."""
    m = _ATTR.search(text)
    return (m.group(1) or m.group(2), m.group(3)) if m else None


_OPS = {"==": "it should return {r}", "is": "it should return {r}", "!=": "it should return something other "
        "than {r}", "is not": "it should return something other than {r}", "in": "it should be one of {r}",
        "not in": "it should not be one of {r}", "<": "it should be less than {r}", "<=": "it should be at most {r}",
        ">": "it should be greater than {r}", ">=": "it should be at least {r}"}

_UNITTEST = {"assertEqual": "==", "assertEquals": "==", "assertIs": "is", "assertIn": "in",
             "assertNotEqual": "!=", "assertListEqual": "==", "assertDictEqual": "==", "assertTupleEqual": "==",
             "assertSequenceEqual": "==", "assertCountEqual": "==", "assertAlmostEqual": "==",
             "assertGreater": ">", "assertLess": "<", "assertGreaterEqual": ">=", "assertLessEqual": "<="}

# the methods of comparisons and arithmetic: what raised in one is the operator's, not a call's
_OPERATORS = frozenset(f"__{r}{name}__" for name in ("lt", "le", "eq", "ne", "gt", "ge", "add", "sub", "mul",
                                                     "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
                                                     "matmul", "lshift", "rshift") for r in ("", "r", "i")
                       if not (r and name in ("lt", "le", "eq", "ne", "gt", "ge"))) | {"__contains__"}

_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
        ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_CMP_NODE = {op: node for node, op in _CMP.items()}


def _subject(expr, teller: Teller, bound: dict, callee: str | None = None) -> str | None:
    """The outermost public call in ``expr`` (a bound name standing for one counts), as a code span; with
    ``callee`` (the function the traceback entered next), the call of that name first."""
    call = _subject_call(expr, teller, bound, callee)
    return teller.call_span(call, {}) if call is not None else None


def _subject_call(expr, teller: Teller, bound: dict, callee: str | None = None) -> ast.Call | None:
    expr = Substitute(bound).visit(copy_node(expr))
    every = [n for n in ast.walk(expr) if isinstance(n, ast.Call)]
    calls = [n for n in every if teller.call_span(n, {})]
    named = [c for c in calls if callee and attr_name(c.func) == callee]
    if not named and callee and any(attr_name(c.func) == callee for c in every):
        return None  # the call that raised is the tests' own machinery: another call did not raise
    return (named or calls or [None])[0]


_SHAPE_TOKENS = 12  # an expected value kept back is still told by its shape from this many tokens on


def _expected(node, teller: Teller, bound: dict, against: str | None = None) -> str | None:
    """The expected value when the test states it as a literal (or a name bound to one), and values may be
    told (``Teller.disclose``); with ``against`` (the value the failure shows), one that whole would copy the
    test's line is told with the fewest tokens left out (``_told``). While values are kept back, a long one
    (``_SHAPE_TOKENS`` tokens or more) that copies a test line is still told with tokens left out: its shape (a
    layout, a format) is what a fix needs, and with a token missing it is no value an agent could return as it
    is for the told input."""
    node = Substitute(bound).visit(copy_node(node))  # (formatted_msg,) with formatted_msg bound to a literal
    if not is_literal(node):
        return None
    if not teller.disclose:
        text = ast.unparse(node)
        if against is None or len(token_marks(text)) < _SHAPE_TOKENS:
            return None
        span = teller.elided(text, against=against)
        return span if span and "…" in span else None
    return teller.code(ast.unparse(node)) if against is None else _told(ast.unparse(node), against, teller)


_DEF = re.compile(r"^\s*(?:async\s+)?def (\w+)\(")  # a traceback entry's function line, as pytest prints it


def _relative(path: str) -> str:
    """A traceback's file path as the evidence names files: forward slashes, no leading ``./``."""
    return path.replace("\\", "/").removeprefix("./")


def _tests_own(path: str, evidence: Evidence) -> bool:
    """A traceback's file is the tests' own: a test file of the evidence or of the repository
    (``Evidence.test_modules``), any file under a test folder (``TEST_DIRS``), or a name with "test" in it."""
    path = _relative(path)
    folders, _, name = path.rpartition("/")
    return path in evidence.test_sources or module_name(path) in evidence.test_modules or "test" in name \
        or any(part in TEST_DIRS for part in folders.split("/"))


_LAST_FRAME = re.compile(r"^([\w][\w./-]*\.py):(\d+): (?:in (\w+)|[\w.]+)\s*$")


def raise_site(text: str, evidence: Evidence) -> str:
    """" (in `func` of `pkg/mod.py`)": where the exception left the repository's own code, as a user's traceback
    shows it (the last frame of a repository file that is not a test file); "" when the traceback does not say."""
    found, func = None, None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _LAST_FRAME.match(line.strip())
        if not m or _tests_own(m.group(1), evidence):
            continue
        name = m.group(3)
        if name is None:  # pytest's long entry: the function's def line comes before its frame line, within
            # the entry (after the previous frame line): a lambda's entry has none, and the search stops there
            entry = []
            for ln in reversed(lines[:i]):
                if _ANY_FRAME.match(ln.strip()):
                    break
                entry.append(ln)
            name = next((d.group(1) for d in map(_DEF.match, entry) if d), None)
        found, func = m.group(1), name
    if found is None:
        return ""
    return f" (in `{func}` of `{found}`)" if func else f" (in `{found}`)"


def _error_line(text: str) -> str | None:
    """The exception of the last ``E   SomeError: message`` line (not an assertion's)."""
    found = None
    for line in text.splitlines():
        if line.startswith("E"):
            m = _EXC.match(line[1:].strip())
            if m and m.group(1) != "AssertionError":
                found = m.group(1) + (f": {m.group(2).strip()}" if m.group(2) else "")
    return found


# Python's TypeError when a call's arguments do not fit the function (raised before its body runs, so the traceback
# enters no frame of it): "Version.bump_prerelease() got an unexpected keyword argument 'x'", "f() missing 1 ..."
_BAD_ARGUMENTS = re.compile(r"TypeError: (?:[\w.]+\.)?(\w+)\(\) (?:got an unexpected keyword argument|got multiple "
                            r"values for|missing \d+ required|takes (?:from )?\d+)")


def _assert_parts(statement) -> tuple | None:
    """(subject expr, op, expected expr) of ``assert a OP b``, ``assert f(x)``/``assert not f(x)`` (op "true" /
    "false") or ``self.assertEqual(a, b)``-style calls."""
    if isinstance(statement, ast.Assert):
        test = statement.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return test.left, _CMP.get(type(test.ops[0]), "=="), test.comparators[0]
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return test.operand, "false", None
        return test, "true", None
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        name = attr_name(call.func)
        if name in _UNITTEST and len(call.args) >= 2:
            return call.args[0], _UNITTEST[name], call.args[1]
        if name in ("assertTrue", "assertFalse", "assertIsNone", "assertIsNotNone") and call.args:
            return call.args[0], {"assertTrue": "true", "assertFalse": "false", "assertIsNone": "none",
                                  "assertIsNotNone": "not none"}[name], None
    return None


def _instance_check(statement) -> tuple | None:
    """(value, class, negated) of ``assert isinstance(value, cls)`` / ``assert not isinstance(…)`` /
    ``self.assertIsInstance(value, cls)`` / ``self.assertNotIsInstance(…)``, else None."""
    call, negated = None, False
    if isinstance(statement, ast.Assert):
        test = statement.test
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        call = test.operand if negated else test
        call = call if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
            call.func.id == "isinstance" else None
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and \
            attr_name(statement.value.func) in ("assertIsInstance", "assertNotIsInstance"):
        call, negated = statement.value, attr_name(statement.value.func) == "assertNotIsInstance"
    if call is None or len(call.args) < 2 or call.keywords and not isinstance(statement, ast.Expr):
        return None
    return call.args[0], call.args[1], negated


def _instance_sentence(value, cls, negated: bool, text: str, teller: Teller, bound: dict) -> str | None:
    """"Calling `f(x)` returns `True`; it should return an instance of `T`." for a failed ``isinstance`` check
    (validators-411 was told "A value computed from `email(…)` gives `False`; it should be a true value": the
    ``False`` was the check's, and the sentence sent the reader the wrong way); the value from pytest's
    ``where`` line of the call as it ran, the class only when it is the project's or the standard library's.
    None when the call or the class cannot be told."""
    value = _as_it_ran(value, text, teller, bound)
    subject = _subject(value, teller, bound)
    root = cls
    while isinstance(root, ast.Attribute):
        root = root.value
    own = not isinstance(root, ast.Name) or root.id in teller.helpers | teller.defined | teller.from_tests
    kind = None if own else teller.code(ast.unparse(cls))
    call = bound.get(value.id) if isinstance(value, ast.Name) else value
    if subject is None or kind is None or not (isinstance(call, ast.Call) and teller.call_text(call, bound)):
        return None
    src = " ".join(ast.unparse(Substitute(bound).visit(copy_node(value))).split())
    shown = None
    for line in text.splitlines():
        m = _WHERE.match(line[1:].strip() if line.startswith("E") else line.strip())
        if m and " ".join(m.group(2).split()) in (src, " ".join(ast.unparse(value).split())):
            shown = _told(m.group(1), None, teller)
    want = f"it should not return an instance of {kind}" if negated else f"it should return an instance of {kind}"
    if shown and not _SHORTENED.search(shown):
        return f"Calling {subject} returns {shown}; {want}."
    return f"Calling {subject} {'returns' if negated else 'does not return'} an instance of {kind}; {want}."


def _returned(text: str, message: str, subject_src: str | None) -> str | None:
    """The value the call gave, from pytest's rewriting (``+ where 5 = area(2, 3)`` or the left side of
    ``assert 5 == 6``) or unittest's ``5 != 6``."""
    lines = [ln[1:].strip() if ln.startswith("E") else ln.strip() for ln in text.splitlines()]
    for ln in lines:
        m = _WHERE.match(ln)
        if m and subject_src and " ".join(m.group(2).split()) == " ".join(subject_src.split()):
            return m.group(1)
    for ln in [message] + [ln for ln in lines if ln.startswith("assert ")]:
        m = _ASSERT.match(ln)
        if m:
            return m.group(1)
        m = _ASSERT_TRUTH.match(ln)
        if m:
            return m.group(2)
    m = _UNITTEST_NE.match(message)
    return m.group(1) if m else None


def _want(op: str, shown: str | None, verb: str = "return") -> str:
    """What should happen, for the comparison ``op`` against the code span ``shown``; "" when neither says."""
    if op in ("true", "false", "none", "not none"):
        return {"true": "it should {v} a true value", "false": "it should {v} a false value",
                "none": "it should {v} `None`", "not none": "it should {v} a value, not `None`"}[op].format(v=verb)
    if shown:
        return _OPS.get(op, "it should be {r}").format(r=shown).replace("return", verb)
    return ""  # nothing known to tell: no sentence claims an expectation it does not state


def _told(text: str | None, other: str | None, teller: Teller) -> str | None:
    """The code span of a value the failure shows (a result, or what was expected): whole, or, when whole it
    would copy a test line (a value the test states as it is), with the fewest tokens left out, those it shares
    with ``other`` (the value it is told beside) first (``Teller.elided``); None when neither can be told."""
    if not text:
        return None
    return teller.code(text) or teller.elided(text, against=other)


def _then(want: str, value_span: str | None) -> str:
    """What follows what happened: "; <want>", else ", which is not the correct result" after a value told,
    else nothing ("gives a wrong result." says all that is known)."""
    if want:
        return "; " + want
    return ", which is not the correct result" if value_span else ""


def _ending(want: str, value_span: str | None, hint: str | None) -> str:
    """The end of a sentence after what happened: "; <want>." (``_then``), ": <hint>." (what pytest's diff shows,
    ``_diff_hint``) when no expectation is told, or both ("; it should be `…`: <hint>.") when the values were told
    with tokens left out, which the diff fills in."""
    if hint and want and value_span:
        return f"; {want}: {hint}."
    return f": {hint}." if hint else f"{_then(want, value_span)}."


def _as_it_ran(left, text: str, teller: Teller, bound: dict):
    """``left`` when it is not a call whose arguments the test's source leaves unknown (a parameter, a fixture);
    else the same call as pytest's rewriting shows it ran (``+ where False = f(ForwardRef('x'))``: each argument
    by its repr), when that line parses as a call of the same function with the same number of arguments and
    every argument known."""
    told = teller.call_text(left, bound) if isinstance(left, ast.Call) else None
    if told is None or "…" not in told:
        return left
    for ln in text.splitlines():
        m = _WHERE.match(ln[1:].strip() if ln.startswith("E") else ln.strip())
        try:
            ran = ast.parse(m.group(2), mode="eval").body if m else None
        except SyntaxError:
            continue
        if isinstance(ran, ast.Call) and ast.unparse(ran.func) == ast.unparse(left.func) and \
                len(ran.args) == len(left.args) and len(ran.keywords) == len(left.keywords) and \
                "…" not in (teller.call_text(ran, {}) or "…"):
            return ran
    return left


def _assertion(left, op, right, text, message, raised, teller: Teller, bound, callee=None,
               where: str = "", swapped: bool = False) -> str | None:
    """The sentence of a failed assertion about ``left`` (a public call, or an expression holding one); ``where``
    is ``raise_site``'s note for an exception; ``swapped``: ``left`` is the comparison's right side."""
    left = _as_it_ran(left, text, teller, bound)
    subject = _subject(left, teller, bound)
    if subject is None:
        return None
    if raised:  # the call that raised, when the traceback says which: what it should do is not raise
        call = _subject_call(left, teller, bound, callee)
        whole = ast.unparse(Substitute(bound).visit(copy_node(left)))
        error = teller.error(raised)
        if call is not None and ast.unparse(call) != whole and callee and attr_name(call.func) == callee and error:
            return f"Calling {teller.call_span(call, {})} raises {error}{where}; it should not raise."
        if call is None:  # the tests' own helper raised
            return None
        operator = callee in _OPERATORS
        missing = re.search(r"has no attribute '(\w+)'|(is not subscriptable)", raised)
        if operator or (callee is None and not where and missing):
            # an operator's method raised (``__le__``), or the line itself did, reading an attribute or an item of
            # what the call returned (no function entered): that is told, never the call inside it
            compared = operator and right is not None and op in _CMP_NODE
            expr = ast.Compare(left=left, ops=[_CMP_NODE[op]()], comparators=[right]) if compared else left
            resolved = Substitute(bound).visit(copy_node(expr))
            read = [n for n in ast.walk(resolved) if not operator and (
                isinstance(n, ast.Attribute) and n.attr == missing.group(1) or
                isinstance(n, ast.Subscript) and missing.group(2))]
            member = next((m for m in map(lambda n: _member_of(n, teller), read) if m), None)  # "Reading `a` of …"
            text = teller.without_tests(resolved)
            span = teller.code(text) or teller.elided(text)
            span = None if span is None or "…" in text or span.count("…") > 1 else span  # one token out at most
            is_value = bool(read) and read[0] is resolved  # the read is the value compared: what it should be
            expected = _expected(right, teller, bound) if right is not None and is_value else None
            want = _want(op, expected, "be") if expected else "it should not raise"
            if error is not None and member:
                return f"{member} raises {error}{where}; {want if is_value else 'it should not raise'}."
            if error is not None and span and operator:
                return f"Computing {span} raises {error}{where}; it should not raise."
    call = bound.get(left.id) if isinstance(left, ast.Name) else left
    direct = isinstance(call, ast.Call) and teller.call_text(call, bound) is not None
    if not direct:  # len(f(x)), f(x).name, f(x)[0]: the value is of the whole expression
        resolved = Substitute(bound).visit(copy_node(left))
        whole = teller.code(teller.without_tests(resolved))
        inner = next((n for n in ast.walk(resolved) if isinstance(n, ast.Call) and teller.public(n)), None)
        told = teller.call_span(inner, {}) if inner is not None else None  # the call, argument by argument
        func = told if told and (" with " in told or "(" in told) else (
            teller.code(ast.unparse(inner.func) + "(…)") if inner is not None else None)
        outer = next((n for n in ast.walk(resolved) if isinstance(n, ast.Call)), None)
        if whole is None and outer is not None and not teller.public(outer) and outer.func is not None and \
                (attr_name(outer.func) or "") not in NOT_API:
            return None  # the value comes out of the tests' own machinery, not out of the call found inside
        if inner is None:
            return None  # no call of the repository's API in it (the standard library's, the tests' own)
        subject = whole or _member_of(resolved, teller) or (f"A value computed from {func}" if func else None)
        if subject is None:
            return None
    expected = _expected(right, teller, bound) if right is not None else None
    verb = "return" if direct else "be"
    if not raised and op in ("==", "!=") and right is not None and expected is None and _same_function(
            left, right, teller, bound):
        return _both_computed(left, op, message, teller, bound)
    if raised:
        error = teller.error(raised)
        if error is None:
            return None
        expected = expected or (_expected(right, teller, bound, against="") if right is not None else None)
        want = _want(op, expected, verb) if expected or op in ("true", "false", "none", "not none") \
            else "it should not raise"
        lead = "Calling " if direct else ("" if subject.startswith(("A value computed", "Reading ")) else "Computing ")
        return f"{lead}{subject} raises {error}{where}; {want}."
    m = _ASSERT.match(message)
    from_message = m.group(3) if m else (_UNITTEST_NE.match(message).group(2) if _UNITTEST_NE.match(message)
                                         else None)
    shown = expected or (_told(from_message, _returned(text, message, None), teller) if from_message and op not in
                         ("true", "false") and teller.disclose and "..." not in from_message else None)
    given = {ast.unparse(c.args[0]) for c in ast.walk(left) if isinstance(c, ast.Call)
             and len(c.args) == 1 and not c.keywords}  # a round trip (``dumps(loads(s)) == s``): the input,
    same = right is not None and op == "==" and not expected and ast.unparse(right) in given  # told already
    shown = "the input it was made from" if same else shown
    value = _returned(text, message, ast.unparse(left) if direct and isinstance(left, ast.Call) else None)
    if expected is None and right is not None and not same:
        expected = _expected(right, teller, bound, against=value or "")
        shown = expected or shown
    full = _string_diff(text, swapped) if "..." in (value or "") + (from_message or "") else None
    if full is not None:  # pytest shortened two strings in its summary; its diff has them whole
        value, from_message = full
        shown = expected or (_told(from_message, value, teller) if teller.disclose and op not in ("true", "false")
                             else None)
        shown = "the input it was made from" if same else shown
    value_span = _told(value, from_message, teller) if value and "..." not in value else None  # pytest shortened
    hint = _diff_hint(text, teller, swapped) if not (value_span and shown and "…" not in value_span + shown) and (
        teller.disclose or same) else None  # a diff tells what a value shown with a token left out hides
    if op == "is" and right is not None and ast.unparse(right) == ast.unparse(left):
        shown = value_span  # the same call twice: what is expected is no value, told or kept back, but identity
    alike = _alike(op, value_span, shown)
    if alike:
        return f"{'Calling ' if direct else ''}{subject} {alike}"
    if direct:
        happened = f"returns {value_span}" if value_span else "gives a wrong result"
    else:
        happened = f"gives {value_span}" if value_span else "gives a wrong result"
    return f"{'Calling ' if direct else ''}{subject} {happened}{_ending(_want(op, shown, verb), value_span, hint)}"


def _in_steps(left, op, right, text, message, raised, teller: Teller, bound, steps: dict,
              swapped: bool = False) -> str | None:
    """The sentence of a failed assertion about an object the test made with a public call and then changed in
    steps (``failing_statement.made_in_steps``): "Starting from `parse` with `'a = 1'`, with the key `'b'` set to
    `2`, its `as_string()` gives `X`; it should be `Y`." The steps are told in words, one code span per key or
    value, so no span copies a test line; None when the object is not one of ``steps`` or a step cannot be told."""
    found = _steps_head(left, teller, bound, steps) if _root_name(left) in steps else None  # its value, whole
    if found is None:
        return None
    head, made = found
    # a round trip (``parse(text)`` changed, then compared with ``text``): what it should be is what it was made
    # from, which the sentence already tells, so the lines that differ may be told too
    given = [ast.unparse(a) for a in made.args + [k.value for k in made.keywords]]
    same = "the input it was made from" if right is not None and op == "==" and [ast.unparse(right)] == given \
        else None  # of a call with one argument only: of two, "the input" would not say which
    outcome = _outcome(op, right, text, message, raised, teller, bound, swapped, same)
    return f"{head} {outcome}" if outcome else None


def _steps_head(expr, teller: Teller, bound, steps: dict) -> tuple[str, ast.Call] | None:
    """("Starting from `parse` with `'a = 1'`, with the key `'b'` set to `2`, its `as_string()`", the call that
    made the object) for the part of ``expr`` rooted at an object of ``steps`` (``list(doc.items())``: its
    ``items()``); a method call's arguments the tests own shown as ``…``. None when there is none, or a part
    cannot be told."""
    node = next((n for n in ast.walk(expr) if isinstance(n, ast.Name | ast.Attribute | ast.Subscript | ast.Call)
                 and _root_name(n) in steps), None)
    if node is None:
        return None
    name = _root_name(node)
    made, changes = steps[name]
    start = teller.call_span(Substitute(bound).visit(copy_node(made)), {})
    told = [_step(change, name, teller, bound) for change in changes]
    if start is None or None in told:
        return None
    rest = ast.unparse(node)[len(name):].lstrip(".")
    its = f"its {teller.code(rest)}" if rest and teller.code(rest) and not teller.names_tests(rest) else (
        "it" if not rest else None)
    if its is None and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            isinstance(node.func.value, ast.Name):  # its select(tags=…): the tests' own arguments elided
        method = ast.Call(func=ast.Name(id=node.func.attr, ctx=ast.Load()), args=node.args, keywords=node.keywords)
        shown = teller.call_text(method, bound)
        its = f"its {teller.code(shown)}" if shown and teller.code(shown) else None
    if its is None:
        return None
    return f"Starting from {start}, with {joined(told)}, {its}", made


def _root_name(node) -> str | None:
    """The name an expression starts from: ``doc`` of ``doc["a"].items()``."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


_SHORTENED = re.compile(r"\.\.\.|\[\d+ chars\]")  # pytest's and unittest's marks of a value shortened


def _alike(op: str, value_span: str | None, shown: str | None) -> str | None:
    """The end of a sentence whose value and expected value read the same (``is`` or ``==``, told alike): "gives
    `X`, a new object each time; it should give the very same object ..." (glom-198's ``f(x) is f(x)``, a cache,
    was told "returns X; it should return X"), or that they compare unequal though they read the same; None
    when they read differently."""
    if not (value_span and shown and value_span == shown and op in ("is", "==")):
        return None
    if op == "is":
        return f"gives {value_span}, a new object each time; it should give the very same object (identity, not " \
               "only equality)."
    return f"gives {value_span}, which does not compare equal to the expected value although it reads the same " \
           "(a difference of type, or of what the value's repr does not show)."


def _outcome(op, right, text, message, raised, teller: Teller, bound, swapped: bool = False,
             same: str | None = None) -> str | None:
    """What a value the sentence has named did and should have done, as the end of its sentence: "raises
    `E: m`; it should not raise.", "gives `5`; it should be `6`.", "gives a wrong result: <what pytest's diff
    shows>."; the value from pytest's rewriting or unittest's ``a != b``, the expected one from the test's
    literal (``_expected``) or the message while values may be told; ``same``: the expected value in words
    when the sentence has told it already (a round trip), which lets the diff be told too. None when the
    exception cannot be told."""
    if raised:
        error = teller.error(raised)
        return f"raises {error}; it should not raise." if error else None
    m, ne = _ASSERT.match(message), _UNITTEST_NE.match(message)
    value, wanted = _returned(text, message, None), (m.group(3) if m else ne.group(2) if ne else None)
    if "..." in (value or "") + (wanted or ""):
        value, wanted = _string_diff(text, swapped) or (value, wanted)
    expected = _expected(right, teller, bound, against=value or "") if right is not None else None
    shown = expected or (_told(wanted, value, teller) if wanted and teller.disclose and op not in ("true", "false")
                         and not _SHORTENED.search(wanted) else None)
    value_span = _told(value, wanted, teller) if value and not _SHORTENED.search(value) and op not in (
        "true", "false") else None
    hint = _diff_hint(text, teller, swapped) if not (value_span and shown and "…" not in value_span + shown) and (
        teller.disclose or same) else None  # a diff tells what a value shown with a token left out hides
    alike = _alike(op, value_span, shown)
    if alike:
        return alike
    happened = f"gives {value_span}" if value_span else "gives a wrong result"
    if same:
        return f"{happened}; it should be {same}: {hint}." if hint else f"{happened}; it should be {same}."
    return f"{happened}{_ending(_want(op, shown, 'be'), value_span, hint)}"


_RAISED_AT = re.compile(r"^([\w./\\-]+\.py):(\d+): [A-Za-z_][\w.]*$")  # pytest's entry end: where it raised


def _raised_in(text: str, path: str) -> int | None:
    """The line of the test file ``path`` where the traceback's last entry raised, or None when the exception
    was raised elsewhere (the project's code, the standard library)."""
    found = None
    for line in text.splitlines():
        m = _RAISED_AT.match(line.strip())
        if m:
            found = int(m.group(2)) if _relative(m.group(1)) == path else None
    return found


_STAND_INS = ("func", "function", "wrapped", "decorated")  # a name for a function the test defines


def _decorated(left, op, right, text, message, raised, teller: Teller, bound, tree, path: str, line: int,
               swapped: bool = False) -> str | None:
    """The sentence of a failed assertion about a function the test defines and wraps with the project's
    decorator (``@retry(stop=...)``), read or called: "For a function `func` decorated with `@retry(...)`, after
    a call of it, `func.retry.statistics` gives `{}`; it should be …". The function is told by a stand-in name
    and its public decorators (its body is the test's own); an exception is told only when it was raised by the
    statement itself or left the project's code. None when the expression is not rooted at such a function (one
    definition of that name: the test function's own, else the module's), or a part cannot be told."""
    root = left
    while isinstance(root, ast.Attribute | ast.Subscript | ast.Call):
        root = root.func if isinstance(root, ast.Call) else root.value
    if not isinstance(root, ast.Name) or tree is None:
        return None
    owner = max((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                 and n.lineno <= line <= (n.end_lineno or 0)), key=lambda n: n.lineno, default=None)
    defs = lambda nodes: [n for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)  # noqa: E731
                          and n.name == root.id and n is not owner]
    found = (defs(ast.walk(owner)) if owner else []) or defs(
        [n for top in tree.body for n in ([top] + (top.body if isinstance(top, ast.ClassDef) else []))])
    if len(found) != 1 or not found[0].decorator_list:
        return None
    told = []
    for decorator in found[0].decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else ast.Call(func=decorator, args=[], keywords=[])
        if not teller.public(call):
            if attr_name(call.func) in teller.helpers or attr_name(call.func) in teller.defined:
                return None  # the tests' own decorator: what it does is not known
            continue  # pytest's marks and the like
        decorator = Substitute(bound).visit(copy_node(decorator))  # @sh.counted: the module as a user spells it
        span = teller.code("@" + ast.unparse(decorator))
        told.append(span or (teller.made(decorator) if isinstance(decorator, ast.Call) else None))
    stand_in = next((n for n in _STAND_INS if n not in teller.helpers), None)
    if not told or None in told or stand_in is None:
        return None
    named = Substitute({**bound, root.id: ast.Name(id=stand_in, ctx=ast.Load())}).visit(copy_node(left))
    subject = teller.code(ast.unparse(named))
    if subject is None and isinstance(named, ast.Subscript) and isinstance(named.slice, ast.Constant):
        key, owner_span = teller.code(repr(named.slice.value)), teller.code(ast.unparse(named.value))
        subject = f"the key {key} of {owner_span}" if key and owner_span else None
    subject = subject or teller.elided(ast.unparse(named))
    if subject is None:
        return None
    if raised and isinstance(left, ast.Call) and left.func is root and _raised_in(text, path) not in (None, line):
        return None  # raised by the function's own body, which is the test's
    kind = "coroutine function" if isinstance(found[0], ast.AsyncFunctionDef) else "function"
    called = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == root.id
                 and n.lineno < line for n in ast.walk(owner)) if owner else False
    outcome = _outcome(op, right, text, message, raised, teller, bound, swapped)
    after = ", after a call of it," if called else ","
    lead = "calling" if isinstance(named, ast.Call) else "reading"
    signature = teller.code(f"{stand_in}({ast.unparse(found[0].args)})") or f"`{stand_in}`"
    body = found[0].body
    documented = " that has a docstring," if body and isinstance(body[0], ast.Expr) and isinstance(
        body[0].value, ast.Constant) and isinstance(body[0].value.value, str) else ""
    return f"For a {kind} {signature}{documented} decorated with {joined(told)}{after} {lead} {subject} " \
        f"{outcome}" if outcome else None


def _step(change, name: str, teller: Teller, bound) -> str | None:
    """One change of the object ``name`` in words: "the key `'b'` under `'a'` set to `2`", "`width` set to
    `3`", "`append` called with `4`", "the key `'b'` deleted", "`+=` applied with `{1}`"; None when it cannot be
    told without a test-only name."""
    def path(target) -> tuple[list, str | None] | None:  # keys from the outermost, and a final attribute
        keys, attr = [], None
        if isinstance(target, ast.Attribute):
            attr, target = target.attr, target.value
        while isinstance(target, ast.Subscript):
            keys.insert(0, target.slice)
            target = target.value
        return (keys, attr) if isinstance(target, ast.Name) and target.id == name else None

    def where(keys, attr) -> str | None:
        spans = [teller.argument(Substitute(bound).visit(copy_node(k))) for k in keys]
        if None in spans or "`…`" in spans or (attr and teller.names_tests(attr)):
            return None
        said = ("the key " + " under ".join(reversed(spans))) if spans else ""
        return (f"`{attr}` of {said}" if said else f"`{attr}`") if attr else said

    if isinstance(change, ast.For):  # for k in doc["a"]: doc["a"][k] = ...: the loop told, then its changes
        if not isinstance(change.target, ast.Name) or change.target.id == name or teller.names_tests(
                change.target.id):
            return None
        # the loop variable under a stand-in name that is none of the tests' (the run showed its last value only)
        each = next((n for n in ("key", "item", "each", "entry", "element") if n not in teller.helpers), None)
        if each is None:
            return None
        inner = {**bound, change.target.id: ast.Name(id=each, ctx=ast.Load())}
        found = path(change.iter)
        over = (where(*found) or "it") if found else teller.argument(Substitute(inner).visit(copy_node(change.iter)))
        told = [_step(s, name, teller, inner) for s in change.body]
        if over is None or over == "`…`" or None in told:
            return None
        over = f"the value of {over}" if found and over != "it" else over
        return f"{' and '.join(told)} for each `{each}` taken from {over}"
    if isinstance(change, ast.Assign) and len(change.targets) == 1 or isinstance(change, ast.AugAssign):
        target = change.targets[0] if isinstance(change, ast.Assign) else change.target
        found, value = path(target), teller.argument(Substitute(bound).visit(copy_node(change.value)))
        if found and ast.unparse(change.value) == ast.unparse(target) and isinstance(change, ast.Assign):
            value = "its own value"  # doc["a"] = doc["a"]: set again to what it holds
        at = where(*found) if found else None
        if at is None or value in (None, "`…`"):
            return None
        if isinstance(change, ast.AugAssign):
            return f"{at} changed by `{ast.unparse(ast.BinOp(ast.Name('a'), change.op, ast.Name('b')))[2:-2]}=` {value}"
        return f"{at} set to {value}"
    if isinstance(change, ast.Delete) and len(change.targets) == 1:
        found = path(change.targets[0])
        at = where(*found) if found else None
        return f"{at} deleted" if at else None
    if isinstance(change, ast.Expr) and isinstance(change.value, ast.Call) and isinstance(change.value.func,
                                                                                          ast.Attribute):
        call = change.value
        found = path(call.func.value)
        if found is None or found[1] is not None:
            return None
        at = where(found[0], None) if found[0] else ""
        method = teller.code(call.func.attr) if not teller.names_tests(call.func.attr) else None
        args = [teller.argument(Substitute(bound).visit(copy_node(a))) for a in call.args + call.keywords]
        if method is None or at is None or None in args or "`…`" in args:
            return None
        on = f" on {at}" if at else ""
        return f"{method} called{on} with {joined(args)}" if args else f"{method} called{on}"
    return None


_MORE_ITEMS = re.compile(r"^(Left|Right) contains (?:one|\d+) more items?(?:, first extra item)?: (.+)$")

_AT_INDEX = re.compile(r"^At index (\d+) diff: (.+?) != (.+)$")


def _member_of(resolved, teller: Teller) -> str | None:
    """"Reading `name` of `f` with `a`": an attribute (or a key) of what a public call returns, told part by part
    when the whole expression would copy a test line."""
    if isinstance(resolved, ast.Attribute):
        member, owner = resolved.attr, resolved.value
    elif isinstance(resolved, ast.Subscript) and isinstance(resolved.slice, ast.Constant):
        member, owner = f"[{resolved.slice.value!r}]", resolved.value  # the item, as indexed
    else:
        return None
    if not isinstance(owner, ast.Call) or not teller.public(owner):
        return None
    name, made = teller.code(member), teller.call_span(owner, {})
    if name is None or made is None or teller.names_tests(member):
        return None
    return f"Reading {name} of {made}"


def _diff_hint(text: str, teller: Teller, swapped: bool = False) -> str | None:
    """What pytest's comparison explanation says differs, when the values themselves were shortened, in its own
    terms (pytest names the first item past the shorter list, which may repeat an expected one): "it has fewer
    items than expected; the expected result goes on with `x`", "it has more items than expected; it goes on
    with `x`", "at index 2 it holds `a` where `b` is expected"; for two texts of several lines, the lines
    that differ (``_line_diff``; ``swapped``: the value is the comparison's right side)."""
    lines = _line_diff(text, teller, swapped)
    if lines:
        return lines
    for line in text.splitlines():
        line = line[1:].strip() if line.startswith("E") else line.strip()
        m = _MORE_ITEMS.match(line)
        if m and teller.code(m.group(2)):
            if m.group(1) == "Right":
                return f"it has fewer items than expected; the expected result goes on with {teller.code(m.group(2))}"
            return f"it has more items than expected; it goes on with {teller.code(m.group(2))}"
        m = _AT_INDEX.match(line)
        if m and teller.code(m.group(2)) and teller.code(m.group(3)):
            return (f"at index {m.group(1)} it holds {teller.code(m.group(2))} where {teller.code(m.group(3))} "
                    "is expected")
    return None


_DIFF_MARK = re.compile(r"^E(\s+)[-+](?: |$)")


def _line_diff(text: str, teller: Teller, swapped: bool = False, most: int = 2) -> str | None:
    """The first ``most`` differences pytest's line diff of two texts shows (``- `` lines only in the right
    side, ``+ `` lines only in the left, two spaces for a line both hold, ``? `` for its marks), in words: "line 1
    is `[[a]]` where `c.d = 2` is expected", "it lacks the line `z = 2` (expected as line 1)", "it has an extra
    empty line at line 3"; ``swapped``: the value under test is the right side. None when the failure shows no
    such diff or a line would copy a test line."""
    m = _ASSERT.match(text.split("\n", 1)[0].strip())
    if not m or m.group(2) not in ("==", "!=") or not re.match(r"^[bru]?['\"]", m.group(1)):
        return None  # not two texts compared
    marked = [ln for ln in text.splitlines() if ln.startswith("E")]
    at = next((k for k, ln in enumerate(marked) if _DIFF_MARK.match(ln)), None)
    if at is None:
        return None
    base = len(_DIFF_MARK.match(marked[at]).group(1)) + 1

    def entry(ln: str) -> tuple[str, str] | None:
        if ln[:base].strip() != "E" or ln[base + 1:base + 2] not in (" ", ""):
            return None
        mark = ln[base:base + 1]
        if mark in ("+", "-", "?"):
            return mark, ln[base + 2:]
        return (" ", ln[base + 2:]) if mark == " " and len(ln) >= base + 2 else None

    while at > 0 and entry(marked[at - 1]) and entry(marked[at - 1])[0] == " ":  # context lines before it
        at -= 1
    entries = []
    for ln in marked[at:]:
        found = entry(ln)
        if found is None:
            break
        if found[0] != "?":
            entries.append(found)
    ours = "-" if swapped else "+"
    said, line, theirs_line, i = [], 0, 0, 0  # lines of the value and of the expected text passed so far
    while i < len(entries) and len(said) < most:
        if entries[i][0] == " ":
            line, theirs_line, i = line + 1, theirs_line + 1, i + 1
            continue
        run = []
        while i < len(entries) and entries[i][0] != " ":
            run.append(entries[i])
            i += 1
        mine, others = [b for m, b in run if m == ours], [b for m, b in run if m != ours]
        told_ours = [_line_span(body, teller, others[k] if k < len(others) else None) for k, body in enumerate(mine)]
        told_theirs = [_line_span(body, teller, mine[k] if k < len(mine) else None) for k, body in enumerate(others)]
        if None in told_ours + told_theirs:
            return None
        if told_ours and told_theirs and told_ours[0] == told_theirs[0]:
            return None  # they differ in what a code span does not show (a line ending, trailing spaces)
        if told_ours and told_theirs:
            said.append(f"line {line + 1} is {told_ours[0]} where {told_theirs[0]} is expected")
        elif told_theirs:
            said.append(f"it lacks {joined(told_theirs)} (expected as line {theirs_line + 1})")
        else:
            said.append(f"it has {joined(told_ours)} more, at line {line + 1}")
        line, theirs_line = line + len(told_ours), theirs_line + len(told_theirs)
    told = "; ".join(said)
    return (told + " (`…`: left out)" if "…" in told else told) if said else None


def _line_span(line: str, teller: Teller, against: str | None = None) -> str | None:
    """One line of a text, as a code span ("an empty line" for an empty one); ``against``: the line it is told
    beside (what differs from it is not the token left out)."""
    if not line.strip():
        return "an empty line"
    span = teller.code(line)
    if span is None:  # a line the test holds too: with one token left out, or not told (more would hide what
        span = teller.elided(line, against=against)  # differs)
        span = span if span and span.count("…") == line.count("…") + 1 else None
    return f"the line {span}" if span else None


def _mismatch(text: str) -> tuple[str, str] | None:
    """(pattern, actual message) when the exception expected was raised with another message: unittest's
    ``"pat" does not match "msg"``, pytest's ``Regex: 'pat'`` / ``Input: 'msg'`` (8+) or ``Pattern 'pat' does
    not search string 'msg'`` (older); pytest 8.4+ says ``Expected regex:`` / ``Actual message:``."""
    for pattern in (_UNITTEST_MISMATCH, _PYTEST_MISMATCH, _PYTEST_OLD_MISMATCH):
        m = pattern.search(text)
        if m:
            return m.group(1), m.group(2)
    return None


_UNITTEST_MISMATCH = re.compile(r'"(.+?)" does not match "(.+?)"(?:\n|$)', re.M)

_PYTEST_MISMATCH = re.compile(r"(?:Expected regex|Regex): ['\"](.+?)['\"]\s*\n(?:E\s+)?\s*(?:Actual message|Input): "
                              r"['\"](.+?)['\"]\s*$", re.M)

_PYTEST_OLD_MISMATCH = re.compile(r"Pattern ['\"](.+?)['\"] (?:does not search string|not found in) ['\"](.+?)['\"]")


def _same_function(left, right, teller: Teller, bound) -> bool:
    """Both sides of a comparison are results of the same public function (``f(a) == f(b)``)."""
    a, b = _subject_call(left, teller, bound), _subject_call(right, teller, bound)
    return a is not None and b is not None and ast.unparse(a.func) == ast.unparse(b.func)


_FLIPPED = {"==": "==", "!=": "!=", "is": "is", "is not": "is not", "<": ">", ">": "<", "<=": ">=", ">=": "<="}


def _swapped_message(message: str) -> str:
    """A failed comparison's message (pytest's ``assert a op b``, unittest's ``a != b``) with its two sides
    swapped and its operator turned to match (``_FLIPPED``); as it was when it is neither."""
    m = _ASSERT.match(message)
    if m and m.group(2) in _FLIPPED:
        return f"assert {m.group(3)} {_FLIPPED[m.group(2)]} {m.group(1)}"
    m = _UNITTEST_NE.match(message)
    return f"{m.group(2)} != {m.group(1)}" if m else message


def _string_diff(text: str, swapped: bool = False) -> tuple[str, str] | None:
    """(left, right) as reprs from pytest's diff of two one-line strings (``+ left`` / ``- right`` lines), for
    when the ``assert a == b`` summary shortened them (``...``); None for texts of several lines (an escaped line
    break in the summary), whose diff shows only the lines that differ. ``swapped``: (right, left), for a
    comparison whose value under test is its right side (``assert 'a' == f()``)."""
    pair = _string_diff_of(text)
    return pair[::-1] if pair and swapped else pair


def _string_diff_of(text: str) -> tuple[str, str] | None:
    if "\\n" in text.split("\n", 1)[0]:
        return None
    plus = [ln.split("+ ", 1)[1] for ln in text.splitlines() if re.match(r"^E?\s+\+ ", ln)]
    minus = [ln.split("- ", 1)[1] for ln in text.splitlines() if re.match(r"^E?\s+- ", ln)]
    if len(plus) >= 1 and len(minus) >= 1 and len(set(plus)) == 1 and len(set(minus)) == 1:
        return repr(plus[0]), repr(minus[0])
    return None


def _caught(parts, site: Site):
    """(exception, statement under the ``with``) when the assertion is about a caught exception
    (``str(info.value)``, ``cm.exception.args[0]``), else None."""
    names = {n.id for n in ast.walk(parts[0]) if isinstance(n, ast.Name)}
    return next((site.raised_as[n] for n in sorted(names) if n in (site.raised_as or {})), None)


def _message_check(caught, parts, text: str, message: str, teller: Teller, bound) -> str | None:
    """The message of a raised exception is not the expected one: "Calling `f(x)` raises `E` with the message
    `a`; the message should be `b`." (``in``: "should contain")."""
    exception, statement = caught
    _, op, right = parts
    subject = _subject(statement, teller, bound)
    m = _ASSERT.match(message) or _UNITTEST_NE.match(message)
    shown_actual = (m.group(1) if m else None)
    if shown_actual and "..." in shown_actual and _string_diff(text):
        shown_actual = _string_diff(text)[0]
    # an expected message cannot be guessed: it is told whatever Teller.disclose says, whole, or with the fewest
    # tokens left out where whole it would copy the test's line; never as pytest shortened it (``str...,``)
    wanted = ast.unparse(right) if right is not None and is_literal(right) else None
    if wanted is None and m is not None:
        wanted = m.group(3) if m.re is _ASSERT else m.group(2)
        wanted = (_string_diff(text) or (None, None))[1] if "..." in wanted else wanted
    shown_expected = _told(wanted, shown_actual, teller) if op != "in" else (teller.code(wanted) if wanted else None)
    if op == "in" and m is not None and m.re is _ASSERT:  # assert "needle" in str(info.value)
        shown_actual = m.group(3)
        shown_expected = teller.code(ast.unparse(parts[0])) if is_literal(parts[0]) else teller.code(m.group(1))
    actual = teller.code(shown_actual) if shown_actual and not teller.names_tests(shown_actual) else None
    if subject is None or actual is None:
        return None
    head = f"Calling {subject} raises `{exception}` with the message {actual}"
    if shown_expected is None or teller.names_tests(shown_expected):
        return f"{head}; the message should be another one."
    verb = "contain" if op == "in" else "be"
    return f"{head}; the message should {verb} {shown_expected}."


def _both_computed(left, op, message: str, teller: Teller, bound) -> str | None:
    """Two values the library computed that should (not) be equal: "`a` and `b` (made by `f`) compare
    unequal; they should be equal." (the values as the failure shows them)."""
    m = _ASSERT.match(message) or _UNITTEST_NE.match(message)
    if m is None:
        return None
    first, second = (m.group(1), m.group(3)) if m.re is _ASSERT else (m.group(1), m.group(2))
    call = next((n for n in ast.walk(Substitute(bound).visit(copy_node(left))) if isinstance(n, ast.Call)
                 and teller.public(n)), None)
    func = teller.code(ast.unparse(call.func)) if call is not None else None
    a, b = teller.code(first), teller.code(second)
    if not (func and a and b and teller.disclose) or "..." in first + second:
        return None
    if op == "==":
        return f"{a} and {b} (made by {func}) compare unequal; they should be equal."
    return f"{a} and {b} (made by {func}) compare equal; they should differ."


_UNTOLD: list[str] = ["(a value the test set)"]  # ``_conditions``: a change whose value cannot be told


def _conditions(patched: list[str] | None, teller: Teller) -> list[str]:
    """What a test changed around its call (``failing_statement.patches``) as may be told: a replacement's value
    dropped where it would copy a test line, a change naming the tests' own things left out; ``_UNTOLD`` when a
    variable was set to a value that cannot be told (what the test saw holds only for that value)."""
    conditions = [c if not teller.copied(c) else c.split(" by ", 1)[0]  # its value would copy a test line
                  for c in (patched or []) if not teller.names_tests(c)]
    return _UNTOLD if any(c.endswith("` set") for c in conditions) else conditions


def sentence(text: str, evidence: Evidence, teller: Teller | None = None, test_id: str = "") -> str | None:
    """One sentence for one failed test's failure ``text`` (module docstring), or None when no shape fits. When
    the test changed the environment around the call (``failing_statement.patches``), the sentence says so first:
    what it observed holds only then."""
    teller = teller or Teller(evidence)
    frame = test_frame(text, evidence.test_sources)
    site = _site_of(frame, evidence, test_id, teller.fixtures, text, teller.aliases)
    frame, site = _into_test_helpers(frame, site, text, evidence, teller)
    said = _sentence(text, evidence, teller, frame, site) or _through_helper(text, evidence, teller, site) \
        or _library_check(text, teller)
    conditions = _conditions(site.patched if site else None, teller)
    if said is None or not conditions:
        return said
    if conditions is _UNTOLD:
        return None  # what happened holds for the value the test set, which cannot be told: the rest would mislead
    head = joined(conditions)
    if said.startswith(("Reading ", "Calling ", "A value ", "Computing ")):
        said = said[0].lower() + said[1:]
    return f"With {head}: {said}"


_INSTALLED_FRAME = re.compile(r"^(?:[^\s:]*[/\\])?(?:site|dist)-packages[/\\]([\w.]+)[/\\]([\w./\\]*\.py):\d+: "
                              r"[\w.]+$", re.M)
_CHECKED = re.compile(r"\b(?:expected|should|instead of|but got|want(?:ed)?)\b", re.IGNORECASE)
_QUOTE_OPENS = re.compile(r"^\w+ = (?:\"\"\"|''')$")  # face's CheckError: stdout = """ ... """


def _library_check(text: str, teller: Teller) -> str | None:
    """The failure of a check a testing library made for the test (face's ``CommandChecker.run``, a
    ``CliRunner``-style helper of an installed package): its exception, raised in that package's testing module,
    states what ran, what came of it and what was expected ("Got exit code 1 (expected 0) when running command:
    glom --scalar …"); told as "A check run with `face.testing` fails: `CheckError: …`", with the first line of
    the output it quotes. None when the last traceback frame is not an installed package's testing module, or
    the message states no expectation."""
    raised, frames = _error_line(text), _INSTALLED_FRAME.findall(text)
    kind, sep, message = (raised or "").partition(": ")
    if not frames or not _CHECKED.search(message):
        return None
    package, module = frames[-1]
    parts = module.replace("\\", "/")[:-3].split("/")
    if not any("test" in part for part in parts):
        return None  # the library's own code raised: not a check made for the tests
    error = teller.error(kind.rpartition(".")[2] + sep + message)
    where = teller.code(".".join([package] + parts))
    if error is None or where is None:
        return None
    lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E")]
    quoted = next((lines[i + 1] for i, ln in enumerate(lines[:-1]) if _QUOTE_OPENS.match(ln)
                   and lines[i + 1] and not lines[i + 1].startswith(('"""', "'''"))), None)
    output = teller.code(quoted) if quoted else None
    return f"A check run with {where} fails: {error}" + (f"; the output is {output}." if output else ".")


def _into_test_helpers(frame: tuple[str, int] | None, site: Site | None, text: str, evidence: Evidence,
                       teller: Teller) -> tuple:
    """``(frame, site)`` of the innermost test-file frame when the test's own line called a helper of the tests
    that failed inside (``_check(url, output=out)`` -> ``_check_func(url, output, func=safe_url_string)`` ->
    ``assert func(url) == output``), each helper's parameters bound to what its caller passed (resolved in the
    caller's names, down from the test's: its parametrized case and shown locals), its defaults to their values,
    ``*args``/``**kwargs`` left empty: the check reads as the call of the API it makes. Only for a failure of the
    innermost test-file frame itself (an assertion there); the frame and site given when the traceback has no such
    chain, goes on past the tests' files, or a hop is not a single call of the next frame's function."""
    if frame is None or site is None or site.statement is None:
        return frame, site
    every = [(_relative(m.group(1)), int(m.group(2))) for m in FRAME.finditer(text)]
    frames = [f for f in every if f[0] in evidence.test_sources]
    if frame not in frames or every[-1] != frames[-1]:
        return frame, site  # it failed beyond the tests' files (the project raised: _through_helper tells it)
    chain = frames[frames.index(frame) + 1:]
    here, inner, bound, statement = frame, site, dict(site.bound or {}), site.statement
    for path, row in chain:
        if (path, row) == here:
            continue
        tree = parse_source(evidence.test_sources[path])
        helper = _function_at(tree, row)
        calls = [n for n in ast.walk(statement) if isinstance(n, ast.Call) and helper is not None
                 and attr_name(n.func) == helper.name] if statement is not None else []
        if len(calls) != 1 or helper.name not in teller.helpers | teller.defined:
            return here, inner
        params = _passed(helper, calls[0], bound)
        if params is None:
            return here, inner
        inner = locate(tree, row, helper.name, fixtures=teller.fixtures)
        bound = {**params, **(inner.bound or {})}
        bound.update(_left_empty(helper, row, bound))
        inner.bound = bound
        here, statement = (path, row), inner.statement
    return here, inner


def _left_empty(func, row: int, bound: dict) -> dict:
    """Name -> its empty ``{}``/``[]`` for the locals of ``func`` made empty before line ``row`` and, but for
    being unpacked into calls (``f(**kwargs)``), used only under ``if`` tests that ``bound`` makes false
    (``kwargs = {}``; ``if encoding is not None: kwargs[...] = ...`` with ``encoding`` bound to ``None``)."""
    out: dict = {}
    unpacked, guarded = None, None  # the same for every such local: worked out once, at the first
    for node in ast.walk(func):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and ((isinstance(node.value, ast.Dict) and not node.value.keys)
                     or (isinstance(node.value, ast.List) and not node.value.elts)) and node.lineno < row):
            continue
        if unpacked is None:
            unpacked = {id(k.value) for c in ast.walk(func) if isinstance(c, ast.Call) for k in c.keywords
                        if k.arg is None} | {id(a.value) for a in ast.walk(func) if isinstance(a, ast.Starred)}
            guarded = {id(n) for branch in ast.walk(func) if isinstance(branch, ast.If)
                       and _false(branch.test, bound) for stmt in branch.body for n in ast.walk(stmt)}
        name = node.targets[0].id
        uses = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name and n.lineno < row
                and n is not node.targets[0] and id(n) not in unpacked]  # unpacked into a call: read only
        if all(id(n) in guarded for n in uses):
            out[name] = node.value
    return out


def _false(test, bound: dict) -> bool:
    """``test`` is false once ``bound`` is put in: constants compared by ``is``/``is not``/``==``/``!=``, ``not``,
    a constant's truth. False when it cannot be told."""
    node = Substitute(bound).visit(copy_node(test))
    try:
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = ast.literal_eval(node.left), ast.literal_eval(node.comparators[0])
            op = type(node.ops[0])
            result = {ast.Is: left is right, ast.IsNot: left is not right, ast.Eq: left == right,
                      ast.NotEq: left != right}.get(op)
            return result is False
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return bool(ast.literal_eval(node.operand))
        return not ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return False


def _passed(helper, call: ast.Call, bound: dict) -> dict | None:
    """Parameter name -> the value ``call`` passes to ``helper`` (resolved in the caller's ``bound``), a default
    where it passes none, an empty tuple or dict for ``*args``/``**kwargs``; None when a starred argument or a
    ``**mapping`` makes the binding unknown."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    args = helper.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    if positional and positional[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        positional = positional[1:]
    resolve = Substitute(bound)
    out: dict = {}
    for name, value in zip(positional, call.args):
        out[name] = resolve.visit(copy_node(value))
    if len(call.args) > len(positional) and args.vararg is None:
        return None
    keywords = {k.arg: k.value for k in call.keywords}
    known = set(positional) | {a.arg for a in args.kwonlyargs}
    for name, value in keywords.items():
        if name in known:
            out[name] = resolve.visit(copy_node(value))
        elif args.kwarg is None:
            return None
    defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults)) if args.defaults else {}
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    for name, value in defaults.items():
        out.setdefault(name, value)
    if args.vararg is not None:
        out.setdefault(args.vararg.arg, ast.Tuple(elts=[], ctx=ast.Load()))
    if args.kwarg is not None and not set(keywords) - known:
        out.setdefault(args.kwarg.arg, ast.Dict(keys=[], values=[]))
    return out


def _site_of(frame: tuple[str, int] | None, evidence: Evidence, test_id: str, fixtures: dict,
             text: str = "", aliases: dict | None = None) -> Site | None:
    if not frame:
        return None
    tree = parse_source(evidence.test_sources[frame[0]])
    last = test_id.split("::")[-1] if test_id else ""
    case = last.partition("[")[2].removesuffix("]") if last.endswith("]") else ""
    if tree is None:
        return None
    site = locate(tree, frame[1], last.split("[")[0] or None, case, fixtures, shown_locals(text))
    for name, module in (aliases or {}).items():  # ``from . import tomllib`` stands for ``tomli``
        if site.bound is not None and name not in site.bound:
            site.bound[name] = ast.parse(module, mode="eval").body
    return site


def _message(text: str) -> str:
    """The failure's one-line message: the digest's first line, cut where it goes on with the explanation that
    pytest's ``E`` lines give apart (a JUnit message attribute of some pytest versions holds the diff too, its
    lines joined: ``assert 'a' == 't'   - a   + t``)."""
    first = text.split("\n", 1)[0].strip()
    shown = next((ln[1:].strip() for ln in text.splitlines()[1:] if ln.startswith("E ") and ln[1:].strip()), "")
    return shown if shown and first.startswith(shown + " ") else first


def _sentence(text: str, evidence: Evidence, teller: Teller, frame: tuple[str, int] | None,
              site: Site | None) -> str | None:
    message = _message(text)
    if site is None or site.statement is None:
        return None
    tree = parse_source(evidence.test_sources[frame[0]]) if frame else None
    bound = site.bound
    callee = callee_of(text, frame[0]) if frame else None
    under = site.raising_call if site.raising_call is not None else site.statement
    raised = _error_line(text)
    where = raise_site(text, evidence) if raised else ""
    if callee is None and raised:  # the call's arguments did not bind: no frame entered, its name is in the message
        bad = _BAD_ARGUMENTS.search(raised)
        callee = bad.group(1) if bad else None
    missing = _missing_attribute(raised) if raised and not where else None
    if missing:  # the test's own line asked a module for a name it lacks: a missing API, not a call that raised
        said = f"`{missing[0]}.{missing[1]}` does not exist (`AttributeError`); it should."
        parts = _assert_parts(site.statement)
        if parts and isinstance(parts[0], ast.Call) and attr_name(parts[0].func) == missing[1] and \
                parts[2] is not None and parts[1] == "==":  # what the test expects of it, as for a missing import
            call, expected = teller.call_span(Substitute(bound).visit(copy_node(parts[0])), {}), \
                _expected(parts[2], teller, bound)
            if call and expected:
                said += f" Once it exists, {call} should return {expected}."
        return said
    m = _DID_NOT_RAISE.search(text)
    unittest_missed = site.expect_raise is not None and not raised and "AssertionError" in message and (
        "not raised" in message or "not triggered" in message)  # assertRaises / assertWarns, unittest's words
    helper_missed = site.expect_raise is not None and not raised and isinstance(site.statement, ast.Assert) \
        and site.raising_call is not None  # assert raises(E, f) was false: f raised nothing, or not E
    if m or unittest_missed or helper_missed:
        subject = _subject(under, teller, bound)
        wanted = m.group(1) if m else site.expect_raise
        if subject is None:  # a method of an object the test made in steps
            found = _steps_head(under, teller, bound, site.steps or {})
            subject = found[0].replace(", its ", ", calling its ", 1) if found else None
            lead = "" if found else "Calling "
        else:
            lead = "Calling "
        if subject is None:
            return None
        pattern = teller.code(site.expect_match) if site.expect_match and not teller.names_tests(
            site.expect_match) else None
        matching = f" with a message matching {pattern}" if pattern else ""  # a fix must word it so
        if "WARN" in (m.group(0) if m else "") or "not triggered" in message or wanted.endswith("Warning"):
            return f"{lead}{subject} emits no warning; it should emit `{wanted}`{matching}."
        return f"{lead}{subject} does not raise an error; it should raise `{wanted}`{matching}."
    mismatch = _mismatch(text) if site.expect_raise else None
    if mismatch:
        subject, error = _subject(under, teller, bound), teller.error(f"{site.expect_raise}: {mismatch[1]}")
        pattern = teller.code(mismatch[0]) if not teller.names_tests(mismatch[0]) else None
        if subject and error and pattern:
            return (f"Calling {subject} raises {error}; it should raise `{site.expect_raise}` with a message "
                    f"matching {pattern}.")
        if subject and error:  # the expected message names the tests' own things: not told
            return f"Calling {subject} raises {error}; it should raise `{site.expect_raise}` with another message."
        return None
    instance = _instance_check(site.statement) if site.raising_call is None and not raised else None
    if instance is not None:  # ``assert isinstance(f(x), T)``: what ``f(x)`` returned, not the check's False
        return _instance_sentence(*instance, text, teller, bound)
    parts = _assert_parts(site.statement) if site.raising_call is None else None
    caught = _caught(parts, site) if parts is not None else None
    if caught is not None:
        return _message_check(caught, parts, text, message, teller, bound)
    if parts is not None:
        left, op, right = parts
        swapped = _subject(left, teller, bound) is None and right is not None and bool(_subject(right, teller, bound))
        if swapped and op not in _FLIPPED:  # ``'x' in f()``: "should be one of" would say the reverse
            return None
        if swapped:  # ``assert 'a' == f()``: told as ``f() == 'a'``, the failure's values swapped to match
            left, right, op, message = right, left, _FLIPPED[op], _swapped_message(message)
        stepped = _in_steps(left, op, right, text, message, raised, teller, bound, site.steps or {}, swapped)
        return stepped or _assertion(left, op, right, text, message, raised, teller, bound, callee, where,
                                     swapped) or _decorated(left, op, right, text, message, raised, teller, bound,
                                                            tree, *frame, swapped)
    if raised and not site.expect_raise and not where and callee is None:
        told = _library_call_raised(site.statement, raised, teller, bound)
        if told:
            return told
    if raised:
        subject, error = _subject(under, teller, bound, callee), teller.error(raised)
        value = site.statement.value if isinstance(site.statement, ast.Expr | ast.Assign) else None
        if subject is None and value is not None and not site.expect_raise:
            return _decorated(value, "==", None, text, message, raised, teller, bound, tree, *frame)
        if subject and error:
            if site.expect_raise and site.expect_raise.split(".")[-1] != raised.split(":")[0].split(".")[-1]:
                pattern = teller.code(site.expect_match) if site.expect_match and not teller.names_tests(
                    site.expect_match) else None
                matching = f" with a message matching {pattern}" if pattern else ""
                return f"Calling {subject} raises {error}{where}; it should raise `{site.expect_raise}`{matching}."
            if not site.expect_raise:
                return f"Calling {subject} raises {error}{where}; it should not raise."
    return None


def _library_call_raised(statement, raised: str, teller: Teller, bound) -> str | None:
    """The sentence of an exception raised on the test's line by a standard-library or builtin call handed a
    value the project made (``pickle.dumps(Retrying(...))``), when the traceback entered no function after the
    test's frame (the project's Python code would have shown its own): "Calling `pickle.dumps` on `Retrying(…)`
    raises `AttributeError: Can't pickle local object …`; it should not raise." Of nested such calls, the
    innermost one handed the project's value. None when there is none, or a part cannot be told."""
    value = getattr(statement, "value", None) if isinstance(
        statement, ast.Expr | ast.Assign | ast.AnnAssign | ast.Return) else None
    if value is None:
        return None
    resolved = Substitute(bound).visit(copy_node(value))
    found = None
    for call in (n for n in ast.walk(resolved) if isinstance(n, ast.Call)):
        root = call.func
        while isinstance(root, ast.Attribute):
            root = root.value
        library = isinstance(root, ast.Name) and (root.id in teller.stdlib or (
            isinstance(call.func, ast.Name) and hasattr(builtins, root.id)))
        made = [a for a in call.args if isinstance(a, ast.Call) and teller.public(a)]
        if library and len(made) == 1:
            found = (call, made[0])
    if found is None:
        return None
    func, span, error = teller.code(ast.unparse(found[0].func)), teller.made(found[1]), teller.error(raised)
    if not (func and span and error):
        return None
    return f"Calling {func} on {span} raises {error}; it should not raise."


def import_sentence(message: str) -> tuple[str, str] | None:
    """(sentence, the missing name) for an import error of a test module."""
    m = _CANNOT_IMPORT.search(message)
    if m:
        return (f"`from {m.group(2)} import {m.group(1)}` fails with `ImportError`: `{m.group(2)}` has no "
                f"`{m.group(1)}`; it should provide it.", m.group(1))
    missing = _missing_attribute(message)
    if missing:
        return (f"`{missing[0]}.{missing[1]}` does not exist (`AttributeError`); it should.", missing[1])
    m = _NO_MODULE.search(message)
    if m:
        return f"`import {m.group(1)}` fails: there is no module `{m.group(1)}`; it should exist.", \
            m.group(1).rsplit(".", 1)[-1]
    return None


_IMPORTS = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\b|import\s+([\w.]+))")
_COMPILED_FILE = re.compile(r'File "([^"]+\.py)", line \d+')
WORKSPACE = "/workspace"  # where the task images hold the repository (``bundles.layout13.WORKSPACE``)


def module_failure(digest: str | None, message: str, evidence: Evidence, teller: Teller) -> str | None:
    """The sentence of a test module whose import of a project module failed with another error than a
    missing name (``import_sentence``): a ``SyntaxError`` or an exception raised while the module ran, as the
    collection error's ``digest`` (``runtime_verifier.collection_digest``) shows it: "`import pkg.mod` fails
    with `SyntaxError: …` (raised in `pkg/mod.py`); the module should import without error." The line is
    not told. None when the import is not one of the project's modules or the error names the tests."""
    if not digest:
        return None
    lines = digest.splitlines()
    module = None
    for i, line in enumerate(lines[:-1]):
        m = _ANY_FRAME.match(line)
        if m and _relative(m.group(1)) in evidence.test_sources:
            found = _IMPORTS.match(lines[i + 1])
            module = (found.group(1) or found.group(2)) if found else module
    raised = _error_line(digest) or next((ln[1:].strip() for ln in reversed(lines) if ln.startswith("E")
                                          and _EXC.match(ln[1:].strip())), None)
    if module is None or raised is None or teller.is_test_module(module) or teller.names_tests(module) \
            or module.split(".")[0] in teller.stdlib:
        return None
    error = teller.error(raised)
    files = [m.group(1) for m in (_ANY_FRAME.match(ln) for ln in lines) if m and not m.group(1).startswith(("/", "<"))
             and m.group(1) not in evidence.test_sources]
    where = files[-1] if files else None
    origin = _COMPILED_FILE.search(digest)  # a SyntaxError names the file it could not compile, by its full path
    if origin:
        own = [module.replace(".", "/") + ".py", module.replace(".", "/") + "/__init__.py"]
        where = next((o for o in own if origin.group(1).endswith("/" + o)), None) or (
            origin.group(1).removeprefix(WORKSPACE + "/") if origin.group(1).startswith(WORKSPACE + "/") else where)
    span = teller.code(f"import {module}")
    if error is None or span is None:
        return None
    if where and _tests_own(where, evidence):
        return None  # the import went through the tests' own modules (a helper that imports the project)
    at = f" (raised in `{where}`)" if where else ""
    return f"{span} fails with {error}{at}; the module should import without error."


def usage(name: str, path: str, evidence: Evidence, teller: Teller) -> str | None:
    """What a FAIL_TO_PASS test of ``path`` expects of the missing ``name``: "Once it exists, `f(1)` should
    return `2`." The first check that calls it, itself or through the test's locals (``field = Cls()``, then
    ``field.load(x)``), states it: ``assert call == literal``, ``assert isinstance(call, T)`` ("should return an
    instance of `T`"); else a call that is told ("should work"). None when no check calls it, or the call cannot
    be told."""
    tree = parse_source(evidence.test_sources.get(path, ""))
    wanted = {t.split("::")[-1].split("[")[0] for t in evidence.fail_to_pass if t.startswith(path + "::")}
    fallback = None
    for func in ast.walk(tree) if tree else ():
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) or func.name not in wanted:
            continue
        for node in ast.walk(func):
            parts = _assert_parts(node) if isinstance(node, ast.stmt) else None
            if not parts:
                continue
            left, op, right = parts
            kind = None
            if op == "true" and isinstance(left, ast.Call) and attr_name(left.func) == "isinstance" \
                    and len(left.args) == 2 and not left.keywords:
                left, kind = left.args
            site = locate(tree, node.lineno, func.name, fixtures=teller.fixtures)
            bound = site.bound or {}
            if isinstance(left, ast.Name) and isinstance(bound.get(left.id), ast.Call):
                left = bound[left.id]  # result = field.load(x); assert result == ...
            if not isinstance(left, ast.Call):
                continue
            resolved = Substitute(bound).visit(copy_node(left))
            if name not in {n.attr for n in ast.walk(resolved) if isinstance(n, ast.Attribute)} | \
                    {n.id for n in ast.walk(resolved) if isinstance(n, ast.Name)}:
                continue
            subject = teller.call_span(left, bound)
            if subject is None:
                continue
            if kind is not None:
                root = kind
                while isinstance(root, ast.Attribute):
                    root = root.value
                own = not isinstance(root, ast.Name) or root.id in teller.helpers | teller.defined | teller.from_tests
                shown = None if own else teller.code(ast.unparse(kind))  # the project's type or the stdlib's
                expected = f"an instance of {shown}" if shown else None
            else:
                expected = _expected(right, teller, bound) if right is not None and op == "==" else None
            if expected:
                return f"Once it exists, {subject} should return {expected}."
            fallback = fallback or f"Once it exists, {subject} should work."
    return fallback


def other_checks(evidence: Evidence, teller: Teller, told: set[str]) -> list[str]:
    """Checks of the FAIL_TO_PASS test functions that their failures did not show (pytest stops a test at its
    first failed check), as "Also, `f(x)` should return `y`.": each ``assert call == literal`` (or
    ``assertEqual(call, literal)``) of a test that failed (not one of a module that failed to import) whose call
    is the project's and can be told with every argument whole (the test's locals put in), in test order, none
    whose call span is in ``told`` already; what the test changed above the check is told first ("Also, with
    the current time set to …, `f(x)` should return `y`."), and a check under a value that cannot be told is
    left out. When the test patch adds checks to the function, only those are told (the others held before
    the fix: glom-250 was told one of them as what to do). Nothing while the expected values are kept back
    (``Teller.disclose``)."""
    if not teller.disclose:
        return []
    out: list[str] = []
    seen_functions: set[tuple[str, str]] = set()
    added = {line.strip() for line in evidence.test_patch_lines if line.strip()}
    for test_id in evidence.fail_to_pass:
        path, _, rest = test_id.partition("::")
        name = rest.split("::")[-1].split("[")[0]
        if (path, name) in seen_functions or test_id not in evidence.failures:
            continue  # a test of a module that failed to import was not reached: its checks may hold already
        seen_functions.add((path, name))
        source = evidence.test_sources.get(path, "")
        tree, lines = parse_source(source), source.splitlines()
        func = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                     and n.name == name), None) if tree else None
        checks = [(node, parts) for node in (ast.walk(func) if func is not None else ()) if isinstance(node, ast.stmt)
                  for parts in [_assert_parts(node)] if parts]
        new = [(node, parts) for node, parts in checks if 0 < node.lineno <= len(lines)
               and lines[node.lineno - 1].strip() in added]
        for node, parts in new or checks:  # the checks the test patch adds: those before it held already (glom-250)
            if parts[1] != "==" or parts[2] is None or not isinstance(parts[0], ast.Call):
                continue
            site = locate(tree, node.lineno, name, fixtures=teller.fixtures)
            bound = site.bound or {}
            resolved = Substitute(bound).visit(copy_node(parts[0]))
            arguments = [teller.argument(a) for a in resolved.args] + [teller.argument(k) for k in resolved.keywords]
            if not teller.public(resolved) or any(a is None or "…" in a for a in arguments):
                continue  # every argument told whole: a check told without its input would mislead
            subject, expected = teller.call_span(parts[0], bound), _expected(parts[2], teller, bound)
            if not subject or not expected or "…" in subject or subject in told:
                continue
            conditions = _conditions(patches(func, bound, node.lineno), teller)  # a clock set, a variable, …
            if conditions is _UNTOLD:
                continue
            said = f"Also, {'with ' + joined(conditions) + ', ' if conditions else ''}{subject} should return " \
                f"{expected}."
            if said not in out:
                out.append(said)
                told.add(subject)
    return out


_ANY_FRAME = re.compile(r"^([\w<][\w./\\<>-]*\.py|<[\w ]+>):(\d+):(?: in (\w+)| |$)")


def _through_helper(text: str, evidence: Evidence, teller: Teller, site: Site | None) -> str | None:
    """The sentence of an exception raised in the repository's code when the test reached it through code of
    its own (a helper, a nested function): the call of the innermost test frame into the repository, told with
    its arguments when they are all literals or imported names ("Calling `Cls.make(level=2)` raises `E: …` (in
    `make` of `pkg/mod.py`); it should not raise."), else by the function's name and file. None when the
    exception left no repository frame, the test's frame made no call of the function entered, or the test
    expected that very exception."""
    raised = _error_line(text)
    where = raise_site(text, evidence) if raised else ""
    if not where:
        return None
    lines = text.splitlines()
    frames = [(i, m) for i, m in ((i, _ANY_FRAME.match(ln)) for i, ln in enumerate(lines)) if m]
    tests = [(i, m) for i, m in frames if _relative(m.group(1)) in evidence.test_sources]
    if not tests:
        return None
    index, last = tests[-1]
    after = [(i, m) for i, m in frames if i > index]
    if not after or after[0][1].group(1).startswith(("/", "<")) or _tests_own(after[0][1].group(1), evidence):
        return None  # the test's frame called the standard library or the tests' own code, not the project's
    entered = next((d.group(1) for d in (_DEF.match(ln) or re.match(r"^[\w./\\-]+\.py:\d+: in (\w+)$", ln)
                                         for ln in lines[index + 1:]) if d), None)
    path = _relative(last.group(1))
    source = evidence.test_sources[path].splitlines()
    row = int(last.group(2))
    line = source[row - 1].strip() if 0 < row <= len(source) else ""
    call = _call_named(line, entered) if entered else None
    if call is None or teller.names_tests(entered):
        return None  # no call of it on the line, two of them (which one raised?), or the tests' own name
    error = teller.error(raised)
    if error is None:
        return None
    if len(tests) > 1:  # the helper's parameters as the test's own call of it passed them (literals only)
        call = Substitute(_helper_arguments(evidence, path, row, tests[-2][1])).visit(copy_node(call))
    free = {n.id for n in ast.walk(call) if isinstance(n, ast.Name)}
    span = teller.call_span(call, {}) if free <= teller.imported and teller.public(call) else None
    if span is None and call.args and not call.keywords and all(is_literal(a) for a in call.args):
        # the receiver is the test's own object, the arguments are literals: "`truncate` with `10`"
        args = [teller.argument(a) for a in call.args]
        span = f"{teller.code(entered)} with {joined(args)}" if None not in args and teller.code(entered) else None
    subject = span or teller.code(entered)
    if subject is None:
        return None
    # a pytest.raises around the innermost line
    inner = _site_of((path, row), evidence, "", teller.fixtures, aliases=teller.aliases)
    expected = inner.expect_raise if inner is not None and inner.statement is not None else (
        site.expect_raise if site is not None else None)
    if expected and expected.split(".")[-1] == raised.split(":")[0].split(".")[-1]:
        return None
    want = f"it should raise `{expected}`" if expected else "it should not raise"
    return f"Calling {subject} raises {error}{where}; {want}."


def _function_at(tree, row: int):
    """The innermost function of ``tree`` whose body holds line ``row`` (its ``def`` line excluded), or None."""
    return max((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                and n.lineno < row <= (n.end_lineno or 0)), key=lambda n: n.lineno, default=None) if tree else None


def _helper_arguments(evidence: Evidence, path: str, row: int, caller) -> dict:
    """Parameter -> literal argument of the test's own function that holds line ``row`` of ``path`` (a helper the
    test defines, ``def y(fmt, s): parse.compile(fmt)``), as the traceback's previous test frame (``caller``, an
    ``_ANY_FRAME`` match) called it (``y("a {:,d} b", "x")``); ``{}`` when that frame's line holds no single call
    of it."""
    tree = parse_source(evidence.test_sources.get(path, ""))
    helper = _function_at(tree, row)
    source = evidence.test_sources.get(_relative(caller.group(1)), "").splitlines()
    at = int(caller.group(2))
    if helper is None or not 0 < at <= len(source):
        return {}
    call = _call_named(source[at - 1].strip(), helper.name)
    if call is None:
        return {}
    params = [a.arg for a in helper.args.posonlyargs + helper.args.args]
    bound = {name: value for name, value in zip(params, call.args) if is_literal(value)}
    bound.update({k.arg: k.value for k in call.keywords if k.arg in params and is_literal(k.value)})
    return bound


def _call_named(line: str, name: str) -> ast.Call | None:
    """The call of ``name`` (a function or a method) in one source ``line`` (a statement, or the head of one)."""
    text = re.sub(r"^(?:return|yield|await|assert|with|elif|if|while)\b\s*", "", line).rstrip(":")
    text = re.sub(r"^[\w.\[\], ]+\s*[-+*/|&]?=(?!=)\s*", "", text)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and attr_name(n.func) == name
             and not (isinstance(n.func, ast.Name) and (name in NOT_API or hasattr(builtins, name)))]
    return found[0] if len(found) == 1 else None  # of two calls of it, the traceback does not say which raised
