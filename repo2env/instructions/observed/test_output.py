"""The observed problem read from test output that follows a runner's message conventions rather than Python's
assertion rewriting: Go's ``testing`` (``t.Errorf("F(x) = %v, want %v", ...)``, the ``got … want`` idiom of the Go
code review comments, ``cmp.Diff``'s ``(-want +got)``, a panic) and its build errors (``undefined: Name``);
JavaScript's Vitest (chai's ``expected 15 to be 10``), Jest (``Expected: 10`` / ``Received: 15``) and thrown
errors, told of the call the failing test line hands to ``expect(...)``; Rust's libtest (a panic at a test
line, ``assert_eq!``'s ``left``/``right``) and rustc's errors (``cannot find function `parse_size```); Java's JUnit,
TestNG and AssertJ messages (``expected: <10> but was: <15>``) and exceptions, told of the call the failing test
line asserts on, and javac's errors (``cannot find symbol`` / ``symbol: method lerp(double)``).

``observed_from_output(evidence)`` gives up to ``MAX_SENTENCES`` sentences, as ``observed_behaviour`` does for
pytest:

* ``Calling `ParseSize("1 KB")` returns `0, invalid size "1 KB"`; it should return `1024`.``
* ``Calling `Clamp(15, 0, 10)` gives a different result than expected (-want +got: `10` / `15`).``
* ``Calling `Load` panics with `runtime error: index out of range [3] with length 3`; it should not panic.``
* ``The package `sizes` has no `ParseSizes`; it should provide it.``

The rules of ``observed``: no sentence names a test file, a test function or a helper the tests define; a code
span that would repeat ``leak_audit.DEFAULT_NGRAM`` tokens of a test line is told as "`F` with `a` and `b`"; the
expected values are told only while the tests fail in more distinct ways than sentences are told.
"""

import re

from repo2env.instructions.leak_audit import DEFAULT_NGRAM, _ngrams, copy_grams, tokens
from repo2env.instructions.observed.evidence import Evidence
from repo2env.instructions.observed.spans import joined

MAX_SENTENCES = 3
MAX_VALUE = 80
_PREFIX = re.compile(r"^\s*[\w./-]+_test\.go:\d+:\s*")
_CALL = r"(?P<call>[A-Za-z_][\w.]*(?:\[[^\]]*\])?\((?P<args>.*)\))"
_SHAPES = (
    # F(x) = got, want w  |  F(x) = got; want w  |  F(x) returned got, expected w
    re.compile(_CALL + r"\s*(?:=|returned|returns|gave|got:?)\s*(?P<got>.+?)[,;]?\s+(?:want|wanted|expected)"
               r":?\s*(?P<want>.+)$"),
    # F(x): got g, want w
    re.compile(_CALL + r"\s*:?\s*got:?\s*(?P<got>.+?)[,;]?\s+(?:want|wanted|expected):?\s*(?P<want>.+)$"),
)
_ERROR = re.compile(_CALL + r"\s*(?::|returned|returns|gave|failed)?\s*(?:an\s+)?(?:unexpected\s+)?"
                            r"(?:error|err)\s*[:=]?\s*(?P<err>.+)$", re.IGNORECASE)
_DIFF = re.compile(_CALL + r".*\(-want \+got\)", re.IGNORECASE)
_PANIC = re.compile(r"^panic: (?P<msg>.+?)(?: \[recovered\])?$")
_FRAME = re.compile(r"^(?P<func>[\w./-]+\.(?P<name>[A-Z]\w*))\(")
# JavaScript: the frame of the test file the failure was raised at, its `expect(...)` and the runner's values
_JS_FRAME = re.compile(r"(?:\(|\s|^)(?:file://)?(?:/workspace/)?(?P<path>[\w./@-]+\.[cm]?[jt]sx?):(?P<line>\d+):\d+")
_CHAI = re.compile(r"expected (?P<got>.+?) to (?:be|equal|deeply equal|strictly equal|eql|deep equal) "
                   r"(?P<want>.+?)(?: // Object\.is equality)?$")
_JEST_WANT = re.compile(r"^Expected(?: value)?:\s*(?P<want>.+)$")
_JEST_GOT = re.compile(r"^Received(?: value)?:\s*(?P<got>.+)$")
_NODE_ASSERT = re.compile(r"^(?:AssertionError\S*(?: \[\w+\])?: )?(?:(?P<got>[^\n]+?) (?:!==|==|!=) (?P<want>[^\n]+)$|"
                          r"Expected values to be (?:strictly |loosely )?(?:deep-)?equal:\n(?:\+ actual - expected\n)?"
                          r"\+ (?P<dgot>[^\n]*[^\n\[{(])\n- (?P<dwant>[^\n]*[^\n\[{(])$)", re.MULTILINE)
_THROWN = re.compile(r"^(?P<error>(?:\w+\.)?\w*(?:Error|Exception)(?: \[\w+\])?: .+)$")
_UNDEFINED = re.compile(r"undefined: (?P<name>[A-Za-z_][\w.]*)")
_ARGUMENTS = re.compile(r"(?P<which>too many|not enough) arguments in call to (?P<name>[\w.]+)\s+have (?P<have>\(.*?\))"
                        r"\s+want (?P<want>\(.*?\))", re.S)
_GOT_WANT = re.compile(r"(?:expect(?:ed)?|want(?:ed)?):?\s+(?P<want>.+?),?\s+(?:but\s+)?(?:got|received|actual):?\s+"
                       r"(?P<got>.+)$", re.IGNORECASE)
_NO_FIELD = re.compile(r"unknown field (?P<name>\w+) in struct literal of type (?P<type>[\w.*]+)")
_GOT_ERROR = re.compile(r"(?:got|returned|unexpected)(?: an?)? err(?:or)?:?\s+(?P<err>.+)$", re.IGNORECASE)
# Rust: libtest's panic report and rustc's errors for a name the crate lacks
_RS_PANIC = re.compile(r"panicked at (?P<path>[\w./-]+\.rs):(?P<line>\d+):\d+:\s*$")
_RS_LEFT = re.compile(r"^left:\s*(?P<v>.+)$")
_RS_RIGHT = re.compile(r"^right:\s*(?P<v>.+)$")
_RS_ASSERT = re.compile(r"\b(?:assert_eq|assert_ne|debug_assert_eq)!\s*\(")
_RS_MISSING = (
    (re.compile(r"cannot find (?:function|value|struct|type|macro|trait) `(?P<name>\w+)` in (?:this scope|module "
                r"`(?P<module>[\w:]+)`|crate `(?P<crate>\w+)`)"), None),
    (re.compile(r"unresolved import `(?P<path>[\w:]+)::(?P<name>\w+)`"), None),
    (re.compile(r"no (?:function or associated item|method) named `(?P<name>\w+)` found for (?:struct|enum|type|"
                r"reference `&?)?\s*`?(?P<type>[\w:<>]+)`?"), "type"),
    (re.compile(r"(?:struct|variant) `(?P<type>[\w:]+)` has no field named `(?P<name>\w+)`"), "field"),
    (re.compile(r"no field `(?P<name>\w+)` on type `&?(?P<type>[\w:<>]+)`"), "field"),
)
# Java: the failing test line's frame, the assertion's values, an exception, javac's missing symbols
_JAVA_FRAME = re.compile(r"^\s*at (?P<cls>[\w.$]+)\.(?P<method>[\w$<>]+)\((?P<file>\w+\.java):(?P<line>\d+)\)")
_JAVA_GOT_WANT = re.compile(r"expected:?\s*(?:<(?P<want>.*?)>|\[(?P<want2>.*?)\]|(?P<want3>\S.*?))\s*,?\s*but was:?\s*"
                            r"(?:<(?P<got>.*?)>|\[(?P<got2>.*?)\]|(?P<got3>\S.*?))\s*$", re.S)
_JAVA_THROWN = re.compile(r"^(?P<type>(?:[a-z]\w*\.)+(?P<name>[A-Z]\w*(?:Exception|Error)))(?::\s*(?P<msg>.*))?$")
_JAVA_ASSERT = re.compile(r"\b(?P<how>assertEquals|assertSame|assertArrayEquals|assertThat|assertTrue|assertFalse|"
                          r"assertNotNull|assertNull|assertDoesNotThrow|assertThrows)\s*\(")
_JAVA_NOT_THROWN = re.compile(r"Expected (?P<want>[\w.$]+) to be thrown, but nothing was thrown")
_JAVA_OTHER_THROWN = re.compile(r"Unexpected exception type thrown,? (?:==> )?expected: <(?P<want>[\w.$]+)> but was: "
                                r"<(?P<got>[\w.$]+)>")
_JAVA_SYMBOL = re.compile(r"cannot find symbol\s+symbol:\s+(?P<kind>method|class|variable)\s+(?P<name>\w+)"
                          r"(?:\((?P<params>[^)]*)\))?\s+location:\s+(?:class|interface|variable \w+ of type|package)"
                          r"\s+(?P<owner>[\w.$<>]+)")
_JAVA_APPLIED = re.compile(r"method (?P<name>\w+) in (?:class|interface) (?P<owner>[\w.$<>]+) cannot be applied "
                           r"to given types")
_NO_MEMBER = re.compile(r"(?P<expr>[\w.]+) undefined \(type (?P<type>[^)\s]+) has no field or method (?P<name>\w+)")


def _messages(text: str) -> list[str]:
    return [_PREFIX.sub("", line).strip() for line in text.splitlines() if line.strip()]


def _value(text: str) -> str:
    text = text.strip().rstrip(".")
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE - 1] + "…"


class _Writer:
    """Code spans that keep to the rules (module docstring)."""

    def __init__(self, evidence: Evidence):
        self.helpers = set()
        lines = []
        for path, text in evidence.test_sources.items():
            self.helpers.update(re.findall(r"^func\s+(?:\([^)]*\)\s*)?(\w+)", text, re.MULTILINE))
            if path.endswith(".java"):  # the test classes' own methods and classes
                self.helpers.update(re.findall(r"^\s*(?:(?:public|protected|private|static|final)\s+)*[\w<>\[\],]+\s+"
                                               r"(\w+)\s*\([^;]*$", text, re.MULTILINE))
                self.helpers.update(re.findall(r"\b(?:class|interface|enum|record)\s+(\w+)", text))
            lines += text.splitlines()
        self.ngrams = copy_grams(lines) | copy_grams(evidence.test_patch_lines)  # data files too: the audit's
        self.test_names = {t.split("::", 1)[-1].split("/", 1)[0] for t in evidence.fail_to_pass}
        self.test_names |= {part.split("(", 1)[0].split("$", 1)[0] for t in evidence.fail_to_pass
                            for part in t.split("::")[1:]}  # Java's class and method
        self.test_paths = {t.split("::", 1)[0] for t in evidence.fail_to_pass}
        self.interface = set(evidence.interface)

    def copies(self, text: str) -> bool:
        return bool(_ngrams(tokens(text), DEFAULT_NGRAM) & self.ngrams)

    def names_tests(self, text: str) -> bool:
        """True when ``text`` names a test, a test helper or a test file; a name the fix defines
        (``Evidence.interface``) is the task's interface and may be named even when a test shares it."""
        words = set(re.findall(r"\w+", text)) - self.interface
        return bool(words & (self.helpers | self.test_names)) or any(p in text for p in self.test_paths)

    def call(self, call: str, args: str) -> str | None:
        """The call as a span, or "`F` with `a` and `b`" when it would copy a test line; None when it names the
        tests' own functions."""
        callee = call[:len(call) - len(args) - 2]
        if self.names_tests(callee):
            return None
        parts = [p.strip() for p in _split_args(args) if p.strip()]
        if parts and all(re.fullmatch(r"[A-Za-z_$][\w$.]*", p) and p not in ("true", "false", "nil", "null")
                         for p in parts):
            return f"`{callee}`"  # the test's own variables (a table's row): their values are not in the call
        if not self.copies(call):
            return f"`{call}`"
        if not parts or any(self.copies(p) for p in parts):
            return f"`{callee}`"
        return f"`{callee}` with " + joined([f"`{p}`" for p in parts])

    def span(self, text: str) -> str | None:
        text = _value(text)
        if not text or self.copies(text) or self.names_tests(text):
            return None
        return f"`{text}`"


def _split_args(args: str) -> list[str]:
    parts, depth, current, quote = [], 0, "", None
    for ch in args:
        if quote:
            current += ch
            if ch == quote:
                quote = None
            continue
        if ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += ch
    return parts + [current]


def _closes_early(args: str) -> bool:
    """Whether a greedy call match's ``args`` close the call before their end (``x).format(y``): a chain."""
    depth = 0
    for ch in re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`", "''", args):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return True
    return False


def _jest_values_joined(lines: list[str]) -> list[str]:
    """Lines with an older Jest's ``Expected value to be:`` / ``Received:`` joined to the value on the line under
    them (newer Jest prints ``Expected: 10`` on one line)."""
    out: list[str] = []
    for line in lines:
        if out and re.fullmatch(r"(?:Expected(?: value)?(?: to be| to equal)?|Received(?: value)?):", out[-1]):
            out[-1] = re.sub(r"(?: to be| to equal)?:$", ": ", out[-1]).replace("Expected value: ", "Expected: ") + line
            continue
        out.append(line)
    return out


def _expect_call(line: str) -> tuple[str, str] | None:
    """``(call, args)`` of the ``expect(<call>)`` on a test line, or of the first argument of Node.js's
    ``assert.<check>(<call>, ...)`` / ``assert(<call>)``, when what is checked is a call."""
    start = line.find("expect(")
    if start >= 0:
        i = start + len("expect")
    else:
        node = re.search(r"(?<![\w.$])assert(?:\.(?P<check>\w+))?\s*\(", line)
        if node is None:
            return None
        i = node.end() - 1
    depth = 0
    for j in range(i, len(line)):
        depth += {"(": 1, ")": -1}.get(line[j], 0)
        if depth == 0:
            inner = line[i + 1:j].strip() if start >= 0 else _split_args(line[i + 1:j])[0].strip()
            inner = re.sub(r"^(?:async\s*)?\(\s*\)\s*=>\s*(?:await\s+)?", "", inner)  # () => f(x)
            found = re.fullmatch(_CALL, inner)
            if found and _closes_early(found.group("args")):
                # a chain (make(x).format(y)): the greedy match spans calls; the last call is what is checked
                last = re.search(r"\.([A-Za-z_$][\w$]*)\(((?:[^()]|\([^()]*\))*)\)$", inner)
                return (f"{last.group(1)}({last.group(2)})", last.group(2)) if last else None
            return (inner, found.group("args")) if found else None
    return None


def _js_sentence(text: str, evidence: Evidence, writer: _Writer, disclose: bool) -> str | None:
    """A JavaScript failure (Vitest's chai messages, Jest's Expected/Received, a thrown error), told of the call
    the test file's failing line passes to ``expect``."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    frame = next((f for f in (_JS_FRAME.search(ln) for ln in lines if ln.startswith("at ") or "at " in ln[:4])
                  if f and f.group("path") in evidence.test_sources), None)
    if frame is None:
        return None
    source = evidence.test_sources[frame.group("path")].splitlines()
    number = int(frame.group("line"))
    found = _expect_call(source[number - 1]) if 0 < number <= len(source) else None
    if found is None:
        return None
    call = writer.call(*found)
    if call is None:
        return None
    joined = "\n".join(lines)
    if re.search(r"to throw an error, but it didn't|Received function did not throw|^(?:AssertionError\S*(?: \[\w+\])?: )?"
                 r"Missing expected (?:exception|rejection)", joined, re.MULTILINE):
        return f"Calling {call} does not throw an error; it should throw one."
    other = re.search(r"expected a thrown error to be (?P<want>.+)$|^Expected (?:message|constructor|substring|pattern):"
                      r"\s*(?P<jwant>.+)$", joined, re.MULTILINE)
    if other:
        want = writer.span(other.group("want") or other.group("jwant"))
        if want is not None and disclose:
            return f"Calling {call} throws a different error than expected; it should throw {want}."
        return f"Calling {call} throws a different error than expected."
    got = want = None
    lines = _jest_values_joined(lines)
    node = _NODE_ASSERT.search(joined)
    if node is not None:  # node:assert: "15 !== 10", or its diff of the actual (+) and expected (-) values
        got, want = node.group("got") or node.group("dgot"), node.group("want") or node.group("dwant")
    for line in lines if node is None else ():
        chai, jest_want, jest_got = _CHAI.search(line), _JEST_WANT.match(line), _JEST_GOT.match(line)
        if chai:
            got, want = chai.group("got"), chai.group("want")
            break
        want = jest_want.group("want") if jest_want else want
        got = jest_got.group("got") if jest_got else got
    if got is not None:
        got_span, want_span = writer.span(got), writer.span(want or "")
        if got_span is None:
            return None
        if want_span is not None and disclose:
            return f"Calling {call} returns {got_span}; it should return {want_span}."
        return f"Calling {call} returns {got_span}, which is not the correct result."
    if re.search(r"The expression evaluated to a falsy value|^AssertionError\S*(?: \[\w+\])?: (?:false|null|undefined|0|"
                 r"''|NaN) == true$", joined, re.MULTILINE):  # node:assert's assert(f(x)) / assert.ok
        return f"Calling {call} returns a falsy value; it should return a truthy one."
    # Jest's own matcher header ("Error: expect(received).toBe(expected)") is not what the code threw
    thrown = next((m for m in (_THROWN.match(ln) for ln in lines if not ln.startswith("Error: expect(")) if m),
                  None)
    named = re.search(r'^Error name:\s*"?(?P<name>\w+)"?\s*\nError message:\s*"?(?P<msg>.*?)"?$', "\n".join(lines),
                      re.MULTILINE)
    if named:  # not.toThrow(): Jest names what was thrown
        return f"Calling {call} throws `{named.group('name')}: {named.group('msg')}`; it should not throw."
    error = writer.span(thrown.group("error")) if thrown else None
    return f"Calling {call} throws {error}; it should not throw." if error else None


def _macro_args(line: str) -> list[str] | None:
    """The arguments of the first ``assert_eq!(...)``-like macro call on a Rust test line."""
    found = _RS_ASSERT.search(line)
    if not found:
        return None
    depth, start = 0, found.end() - 1
    for j in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[j], 0)
        if depth == 0:
            return [a.strip() for a in _split_args(line[start + 1:j])]
    return None


def _rust_sentence(text: str, evidence: Evidence, writer: _Writer, disclose: bool) -> str | None:
    """A Rust failure: the test line libtest says panicked, its ``assert_eq!(call, expected)`` told with
    ``left`` (what the call returned) and ``right``; a panic inside the code under test, told with its message."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    at = next(((n, m) for n, m in ((n, _RS_PANIC.search(ln)) for n, ln in enumerate(lines)) if m), None)
    if at is None:
        return None
    n, found = at
    message = lines[n + 1] if n + 1 < len(lines) else ""
    path, number = found.group("path"), int(found.group("line"))
    if path not in evidence.test_sources:  # the code under test panicked
        said = writer.span(message)
        return f"The code panics with {said}; it should not panic." if said else None
    source = evidence.test_sources[path].splitlines()
    args = _macro_args(source[number - 1]) if 0 < number <= len(source) else None
    if not args or len(args) < 2:
        return None
    call = re.fullmatch(_CALL, args[0])
    if call is None:
        return None
    spoken = writer.call(args[0], call.group("args"))
    left = next((m.group("v") for m in map(_RS_LEFT.match, lines) if m), None)
    right = next((m.group("v") for m in map(_RS_RIGHT.match, lines) if m), None)
    if spoken is None or left is None:
        return None
    got, want = writer.span(left), writer.span(right or "")
    if got is None:
        return None
    if want is not None and disclose and message.startswith("assertion `left == right`"):
        return f"Calling {spoken} returns {got}; it should return {want}."
    return f"Calling {spoken} returns {got}, which is not the correct result."


_RS_ATTRIBUTE = re.compile(r"cannot find (?:derive macro|attribute) `(?P<name>\w+)` in this scope\s*\n\s*-->\s*"
                           r"[^\n]+\n(?:\s*\|[^\n]*\n)*?\s*\d+\s*\|\s*(?P<line>[^\n]+)")


def _rust_build_sentence(message: str, writer: _Writer) -> str | None:
    attribute = _RS_ATTRIBUTE.search(message)
    if attribute and not writer.names_tests(attribute.group("name")):
        written = attribute.group("line").strip()
        if written.startswith("#[") and written.endswith("]") and writer.span(written) is not None:
            return f"The attribute {writer.span(written)} is not recognised by the crate; it should be supported."
        return f"The crate provides no attribute `{attribute.group('name')}`; it should provide it."
    for shape, kind in _RS_MISSING:
        found = shape.search(message)
        if not found or writer.names_tests(found.group("name")):
            continue
        name = found.group("name")
        if kind is not None:
            owner = found.group("type").rsplit("::", 1)[-1].split("<", 1)[0]
            what = "field" if kind == "field" else "function or method"
            if writer.names_tests(owner):  # a type the tests define (e.g. made by the crate's own macro)
                if name not in writer.interface:
                    continue
                return f"The types the crate provides have no {what} `{name}`; it should provide it."
            return f"The type `{owner}` has no {what} `{name}`; it should provide it."
        module = (found.groupdict().get("path") or found.groupdict().get("module") or "").replace("crate::", "")
        where = f"The module `{module}`" if module and module != "crate" else "The crate"
        return f"{where} has no `{name}`; it should provide it."
    return None


def _call_args(line: str, start: int) -> list[str] | None:
    """The arguments of the call whose ``(`` is at ``start`` in ``line``."""
    depth = 0
    for j in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[j], 0)
        if depth == 0:
            return [a.strip() for a in _split_args(line[start + 1:j])]
    return None


def _java_subject(line: str, testng: bool) -> str | None:
    """The expression a Java test line asserts on: ``assertEquals(want, <it>)`` (TestNG: ``assertEquals(<it>,
    want)``), ``assertThat(<it>)``, ``assertTrue(<it>)``; else the line's first call of a name that is not an
    assertion."""
    found = _JAVA_ASSERT.search(line)
    if found:
        args = _call_args(line, found.end() - 1) or []
        how = found.group("how")
        if how == "assertThrows" and len(args) >= 2:  # assertThrows(Type.class, () -> call(...))
            return re.sub(r"^\(\s*\)\s*->\s*", "", args[1]).strip()
        if how in ("assertEquals", "assertSame", "assertArrayEquals") and len(args) >= 2:
            if testng:
                return args[0]
            # JUnit 4 puts a message first (message, expected, actual); JUnit 5 a message or delta last; a test
            # that swapped expected and actual still checks the one that is not a literal
            pair = args[1:3] if len(args) >= 3 and args[0].startswith('"') else args[:2]
            literal = re.compile(r'^(?:-?[\d.]+[lLdDfF]?|"(?:[^"\\]|\\.)*"|\'.\'|true|false|null)$')
            if literal.match(pair[1]) and not literal.match(pair[0]) or "(" in pair[0] and "(" not in pair[1]:
                return pair[0]
            return pair[1]
        return args[0] if args else None
    found = re.search(r"(?:\b[A-Za-z_][\w.]*)\s*\(", line)
    return None if found is None else line[found.start():].rstrip().rstrip(";")


def _java_local_type(before: list[str], name: str) -> str | None:
    """The declared type of the local variable ``name`` in the lines ``before`` a test line (the nearest
    ``Type name =``; ``var name = new Type(...)``), or None."""
    for line in reversed(before[-60:]):
        found = re.search(r"\b(?P<type>[A-Z][\w$.]*(?:<[^=;]*>)?)\s+%s\s*=" % re.escape(name), line) or \
            re.search(r"\bvar\s+%s\s*=\s*new\s+(?P<type>[A-Z][\w$.]*)" % re.escape(name), line)
        if found:
            return found.group("type").split("<", 1)[0].rsplit(".", 1)[-1]
    return None


def _java_callee(lines: list[str], frame) -> tuple[str, str] | None:
    """``(class simple name, method)`` of the frame just above the test's own in a stack trace: what the failing
    test line called, when that is the code under test (not the JDK's or a test framework's)."""
    at = next((n for n, ln in enumerate(lines) if _JAVA_FRAME.match(ln) and _JAVA_FRAME.match(ln).group(0) ==
               frame.group(0)), None)
    above = _JAVA_FRAME.match(lines[at - 1]) if at else None
    if above is None or re.match(r"(?:java|javax|jdk|sun|org\.junit|org\.opentest4j|org\.assertj|org\.hamcrest)\.",
                                 above.group("cls").split("/")[-1]):
        return None
    return above.group("cls").rsplit(".", 1)[-1].split("$", 1)[0], above.group("method")


def _java_sentence(text: str, evidence: Evidence, writer: _Writer, disclose: bool) -> str | None:
    """A Java failure: the test line of the stack trace (a frame in one of the test sources), the call it asserts
    on, and what the runner said: an assertion's expected and actual values, or an exception thrown by the code
    under test."""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    sources = {p.rsplit("/", 1)[-1]: (p, t) for p, t in evidence.test_sources.items() if p.endswith(".java")}
    frame = next((f for f in map(_JAVA_FRAME.match, lines) if f and f.group("file") in sources), None)
    if frame is None:
        return None
    path, source = sources[frame.group("file")]
    number = int(frame.group("line"))
    source_lines = source.splitlines()
    if not 0 < number <= len(source_lines):
        return None
    subject = _java_subject(source_lines[number - 1].strip(), "org.testng" in source)
    found = re.fullmatch(_CALL, re.sub(r"^new\s+", "", subject or ""))
    if found is None:
        return None
    receiver = re.match(r"(?!this\.)([a-z_$][\w$]*)\.(?=[\w$]+\()", subject)
    kind = _java_local_type(source_lines[:number - 1], receiver.group(1)) if receiver else None
    made = re.match(r"new\s+([A-Z][\w$.]*)\s*\((?:[^()]|\([^()]*\))*\)\.(?=[\w$]+\()", subject or "")
    if made:  # a call on an object the line makes: told on its class
        receiver, kind = made, made.group(1).rsplit(".", 1)[-1]
    last = re.search(r"\.([A-Za-z_$][\w$]*)\(((?:[^()]|\([^()]*\))*)\)$", subject)
    called = _java_callee(lines, frame)
    if last and called and called[1] == last.group(1) and not receiver and not writer.names_tests(called[0]):
        # a chain through the test's own helpers (this.encoder().encode(x)): told as the API method the stack
        # trace shows the test line called
        call = writer.call(f"{called[0]}.{last.group(1)}({last.group(2)})", last.group(2))
    elif kind and not writer.names_tests(kind):
        # a test's own variable says nothing to a reader: the call is told on its type ("on a `Parser`")
        method = re.fullmatch(_CALL, subject[receiver.end():])
        call = writer.call(method.group("call"), method.group("args")) if method else None
        call = f"{call} on {'an' if kind[0] in 'AEIOU' else 'a'} `{kind}`" if call else None
    else:
        call = writer.call(subject, found.group("args"))
    if call is None:
        return None
    head = "\n".join(ln for ln in lines if not _JAVA_FRAME.match(ln))
    missing = _JAVA_NOT_THROWN.search(head)
    if missing:
        return f"Calling {call} does not throw `{missing.group('want').rsplit('.', 1)[-1]}`; it should throw it."
    other = _JAVA_OTHER_THROWN.search(head)
    if other:
        return (f"Calling {call} throws `{other.group('got').rsplit('.', 1)[-1]}`; it should throw "
                f"`{other.group('want').rsplit('.', 1)[-1]}`.")
    thrown = _JAVA_THROWN.match(lines[0].strip())
    if thrown and not re.search(r"Assert|ComparisonFailure|opentest4j", thrown.group("type")):
        said = f"{thrown.group('name')}: {thrown.group('msg')}" if thrown.group("msg") else thrown.group("name")
        span = writer.span(said)
        return f"Calling {call} throws {span}; it should not throw." if span else None
    values = _JAVA_GOT_WANT.search(head)
    if values:
        got = values.group("got") or values.group("got2") or values.group("got3") or ""
        want = values.group("want") or values.group("want2") or values.group("want3") or ""
        got_span, want_span = writer.span(got), writer.span(want)
        if got_span is None:
            return None
        if want_span is not None and disclose:
            return f"Calling {call} returns {got_span}; it should return {want_span}."
        return f"Calling {call} returns {got_span}, which is not the correct result."
    return None


def _java_build_sentence(message: str, writer: _Writer) -> str | None:
    found = _JAVA_SYMBOL.search(message)
    if found and not writer.names_tests(found.group("name")):
        owner = found.group("owner").rsplit(".", 1)[-1].split("<", 1)[0]
        if writer.names_tests(owner):
            return None
        if found.group("kind") == "class":
            return f"There is no class `{found.group('name')}`; it should be provided."
        what = "method" if found.group("kind") == "method" else "field"
        return f"The class `{owner}` has no {what} `{found.group('name')}`; it should provide it."
    found = _JAVA_APPLIED.search(message)
    if found and not writer.names_tests(found.group("name")):
        owner = found.group("owner").rsplit(".", 1)[-1]
        return (f"`{owner}.{found.group('name')}` cannot be called with the arguments a caller passes; it should "
                "accept them.")
    return None


def _failure_sentence(text: str, writer: _Writer, disclose: bool, evidence: Evidence | None = None) -> str | None:
    if evidence is not None and any(p.endswith(".java") for p in evidence.test_sources):
        said = _java_sentence(text, evidence, writer, disclose)
        if said:
            return said
    if evidence is not None and any(p.endswith(".rs") for p in evidence.test_sources):
        said = _rust_sentence(text, evidence, writer, disclose)
        if said:
            return said
    if evidence is not None and any(p.endswith((".js", ".ts", ".jsx", ".tsx", ".mjs", ".cjs", ".mts", ".cts"))
                                    for p in evidence.test_sources):
        said = _js_sentence(text, evidence, writer, disclose)
        if said:
            return said
    lines = _messages(text)
    for line in lines:
        for shape in _SHAPES:
            found = shape.search(line)
            if found:
                call = writer.call(found.group("call"), found.group("args"))
                got, want = writer.span(found.group("got")), writer.span(found.group("want"))
                if call is None or got is None:
                    continue
                if want is not None and disclose:
                    return f"Calling {call} returns {got}; it should return {want}."
                return f"Calling {call} returns {got}, which is not the correct result."
        found = _DIFF.search(line)
        if found:
            call = writer.call(found.group("call"), found.group("args"))
            if call is not None:
                return f"Calling {call} gives a different result than expected."
        found = _ERROR.search(line)
        if found:
            call, err = writer.call(found.group("call"), found.group("args")), writer.span(found.group("err"))
            if call is not None and err is not None:
                return f"Calling {call} returns the error {err}; it should succeed."
    for line in lines:  # "got an error: ...", without the call
        found = _GOT_ERROR.search(line)
        if found and writer.span(found.group("err")):
            return f"The operation fails with the error {writer.span(found.group('err'))}; it should succeed."
    for line in lines:  # a bare "expected X, got Y": what happens and what should, without the call
        found = _GOT_WANT.search(line)
        if found:
            got, want = writer.span(found.group("got")), writer.span(found.group("want"))
            if got is not None and want is not None and disclose:
                return f"A result comes out as {got}; it should be {want}."
            if got is not None:
                return f"A result comes out as {got}, which is not the correct result."
    for i, line in enumerate(lines):
        found = _PANIC.match(line)
        if found:
            message = writer.span(found.group("msg"))
            frame = next((f for f in (_FRAME.match(ln) for ln in lines[i + 1:]) if f and not f.group(
                "func").startswith(("runtime.", "testing.", "panic")) and not writer.names_tests(f.group("name"))),
                None)
            if message is not None and frame is not None:
                return f"Calling `{frame.group('name')}` panics with {message}; it should not panic."
    return None


def _build_sentence(message: str, path: str, writer: _Writer) -> str | None:
    if path.endswith(".rs"):
        return _rust_build_sentence(message, writer)
    if path.endswith(".java"):
        return _java_build_sentence(message, writer)
    package = path.rsplit("/", 2)[-2] if "/" in path else None
    found = _NO_MEMBER.search(message)
    if found and not writer.names_tests(found.group("name")):
        kind = found.group("type").lstrip("*").rsplit(".", 1)[-1]
        if not writer.names_tests(kind):
            return f"The type `{kind}` has no `{found.group('name')}`; it should provide it."
    found = _NO_FIELD.search(message)
    if found and not writer.names_tests(found.group("name")):
        kind = found.group("type").lstrip("*").rsplit(".", 1)[-1]
        return f"The type `{kind}` has no field `{found.group('name')}`; it should provide it."
    found = _ARGUMENTS.search(message)
    if found:
        name = found.group("name").rsplit(".", 1)[-1]
        if not writer.names_tests(name):
            return (f"`{name}` cannot be called with `{found.group('have')}`: it takes `{found.group('want')}`; it "
                    f"should accept `{found.group('have')}`.")
    names = list(dict.fromkeys(m.group("name") for m in _UNDEFINED.finditer(message)
                               if not writer.names_tests(m.group("name"))))[:5]
    if names:
        where = f"The package `{package}`" if package else "The package"
        listed = joined([f"`{n}`" for n in names])
        return f"{where} has no {listed}; it should provide {'them' if len(names) > 1 else 'it'}."
    return None


def observed_from_output(evidence: Evidence) -> list[str]:
    """Up to ``MAX_SENTENCES`` distinct sentences of what the FAIL_TO_PASS tests saw before the fix (module
    docstring), build errors of their files first, then failures in FAIL_TO_PASS order."""
    writer = _Writer(evidence)
    distinct = {v for k, v in evidence.failures.items() if k in evidence.fail_to_pass}
    disclose = len(distinct) > MAX_SENTENCES
    out: list[str] = []
    for path in sorted({t.split("::", 1)[0] for t in evidence.fail_to_pass} & set(evidence.import_errors)):
        said = _build_sentence(evidence.import_errors[path], path, writer)
        if said and said not in out:
            out.append(said)
    for test_id in evidence.fail_to_pass:
        text = evidence.failures.get(test_id)
        said = _failure_sentence(text, writer, disclose, evidence) if text else None
        if said and said not in out:
            out.append(said)
    return out[:MAX_SENTENCES]
