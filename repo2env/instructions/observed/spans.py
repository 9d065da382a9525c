"""Code spans in the observed-behaviour sentences: a call as a user would write it (names the test function
bound shown as their values, import aliases as the module's own name, ``getattr(x, "name")`` as ``x.name``),
and never a span that repeats ``leak_audit.DEFAULT_NGRAM`` tokens of a test file's line (the audit's
``gold_overlap`` rule over the test patch)."""

import ast
import builtins
import copy
import difflib
import re
import sys

from repo2env.instructions.leak_audit import DEFAULT_NGRAM, copy_grams, token_marks, tokens
from repo2env.instructions.leak_strip import grading_test_needles
from repo2env.instructions.observed.evidence import Evidence, defined_names, helper_names, parse_source, reexports
from repo2env.graders.runtime_verifier import TEST_DIRS

MAX_CHARS = 160  # of a code span in a sentence
_LISTED_ITEMS = 8  # a list or tuple that would copy a test line is told item by item up to this many items
# an address (or one masked, ``tasks.runtime._steady``), a thread id or a time in nanoseconds, the test runner's
# scratch folder (its HOME and TMPDIR)
_VOLATILE = re.compile(r"\b0x(?:[0-9a-fA-F]{6,}\b|…)|(?<![\w.])\d{12,}(?![\w.])|\br2e-run-")


_TEST_NAMES = re.compile(r"^(test|Test)")

NOT_API = {  # builtins and test machinery: never the public API a user calls
    "pytest", "len", "list", "dict", "set", "tuple", "str", "int", "float", "sorted", "repr", "type", "isinstance",
    "print", "getattr", "hasattr", "bool", "self", "cls", "mock", "patch", "super", "iter", "next", "range", "zip",
    "enumerate", "map", "filter", "any", "all", "open", "vars", "id", "frozenset", "bytes", "object", "issubclass",
    "callable", "min", "max", "sum", "abs", "round",
    # the tests' machinery from unittest.mock and pytest's fixtures
    "MagicMock", "Mock", "AsyncMock", "NonCallableMock", "PropertyMock", "create_autospec", "call", "ANY",
    "sentinel", "mocker", "monkeypatch", "capsys", "caplog", "tmp_path", "tmpdir", "request"}


_SEPARATING = {",", ";", ":", "."}  # punctuation whose loss costs a reader least (not a bracket, not a quote)


_BUILTIN_NAMES = frozenset(dir(builtins))


class Teller:
    """Renders code spans for one Evidence: names bound in the test function shown as their values, and no
    span that repeats ``DEFAULT_NGRAM`` tokens of a test line."""

    def __init__(self, evidence: Evidence, disclose: bool = True):
        self.disclose = disclose
        trees = [parse_source(t) for t in evidence.test_sources.values()]
        self.fixtures, self.classes, self.stdlib = fixture_values(trees), test_classes(trees), stdlib_names(trees)
        self.methods = class_methods(trees)
        self.helpers = helper_names(evidence.test_sources.values())
        self.defined = defined_names(evidence.test_sources.values())
        self.modules = {form for path in evidence.test_sources if path.endswith(".py")
                        for form in (path[:-3].replace("/", "."), path.rsplit("/", 1)[-1][:-3])}
        self.test_modules = set(evidence.test_modules)
        # the names the test modules import at their top from the project (the API a user imports too): not the
        # standard library's, and not those of the tests' own modules (``from .helpers import make``), which
        # ``from_tests`` holds
        self.imported, self.from_tests = set(), set()
        bound_to = reexports(evidence.test_sources.values())
        self.aliases: dict[str, str] = {}  # a name the tests import from their own package for a module
        for tree in trees:
            for node in tree.body if tree else ():
                if isinstance(node, ast.ImportFrom):
                    ours = node.level > 0 or self.is_test_module(node.module or "")
                    for a in node.names:
                        module = bound_to.get(a.name) if ours else None
                        if module and not self.is_test_module(module):  # from . import tomllib: tomli
                            self.aliases[a.asname or a.name] = module
                            continue
                        (self.from_tests if ours else self.imported).add(a.asname or a.name)
                elif isinstance(node, ast.Import):
                    for a in node.names:
                        (self.from_tests if self.is_test_module(a.name) else self.imported).add(
                            (a.asname or a.name).split(".")[0])
        self.imported -= self.stdlib
        # a name a test file imports from the project is its API, even where some test also binds that name (a
        # parameter ``retry``, a local ``retry = ...``): not the tests' own
        self.helpers -= self.imported - self.defined
        # the names the audit's ``test_name`` rule takes out (a name the test patch's lines assign, a data file's
        # key among them): a span holding one would be cut down to a changed value after the audit
        names = grading_test_needles(evidence.fail_to_pass, (), (), evidence.test_patch_lines)[1]
        self.needles = re.compile(r"(?<!\w)(?:%s)(?!\w)" % "|".join(map(re.escape, sorted(names)))) if names \
            else None
        self.grams = copy_grams(evidence.test_patch_lines)  # the audit's runs, line after line
        for text in evidence.test_sources.values():
            self.grams |= copy_grams(text.splitlines())

    def copied(self, text: str) -> bool:
        """``text`` repeats ``DEFAULT_NGRAM`` tokens of a test line (the audit's tokens: quote style aside)."""
        words = tokens(text)
        return any(tuple(words[i:i + DEFAULT_NGRAM]) in self.grams for i in range(len(words) - DEFAULT_NGRAM + 1))

    def elided(self, text: str, most: float = 0.25, against: str | None = None) -> str | None:
        """The code span of ``text`` with the fewest tokens left out (each shown as ``…``) so that no run of
        ``DEFAULT_NGRAM`` tokens copies a test line: from the start, in each copied run, its last comma, colon or
        stop (``'db.schema.tbl…col'``), else the token that would complete the run; with ``against`` (the value
        it is told beside: a result and what was expected) a token both share goes first, so that what differs
        stays in view; None when ``text`` copies nothing
        (``code`` tells it whole) or more than ``most`` of its tokens would go."""
        marks = token_marks(text)
        words = [m.group() if m.group() != '"' else "'" for m in marks]
        keep: set[int] = set()
        if against is not None:
            theirs = [m.group() if m.group() != '"' else "'" for m in token_marks(against)]
            for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, words, theirs, autojunk=False).get_opcodes():
                if tag != "equal":
                    keep.update(range(max(0, i1 - 1), i2 + 1))  # the differing tokens and their neighbours

        def readable(run):  # a separator goes before a word or a digit, and a token that differs from ``against``
            for fits in (lambda k: k not in keep and words[k] in _SEPARATING, lambda k: k not in keep,
                         lambda k: words[k] in _SEPARATING):
                found = next((k for k in run if fits(k)), None)
                if found is not None:
                    return found
            return run[0]

        def fewest(run):  # the run's last token (the next run starts after it) unless ``against`` keeps it
            return next((k for k in run if k not in keep), run[0])

        cut = min((self._cuts(words, choose) for choose in (readable, fewest)), key=len)  # readable on a tie
        if not cut or len(cut) > most * len(words):
            return None
        out, pos = [], 0
        for i in cut:
            out += [text[pos:marks[i].start()], "…"]
            pos = marks[i].end()
        return self.code("".join(out) + text[pos:])

    def _cuts(self, words: list[str], choose) -> list[int]:
        """The tokens (indices) ``elided`` leaves out: from the start, in each run of ``DEFAULT_NGRAM`` tokens
        that copies a test line, the one ``choose`` picks from the run (its indices, last first)."""
        cut, start = [], 0  # the tokens left out; where the current unbroken run starts
        for i in range(len(words)):
            if i - start + 1 >= DEFAULT_NGRAM and tuple(words[i - DEFAULT_NGRAM + 1:i + 1]) in self.grams:
                j = choose(range(i, i - DEFAULT_NGRAM, -1))
                cut.append(j)
                start = j + 1
        return cut

    def code(self, text: str) -> str | None:
        """A code span for ``text``, or None when it would copy a test line or holds a value that differs from
        run to run (an address ``0x7f…``, a thread id or a time in nanoseconds: 12 digits or more)."""
        text = re.sub(r"\s*\n\s*", " ", text).strip()  # one line; runs of spaces stay (a string's own)
        if _VOLATILE.search(text):
            return None
        text = text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 1] + "…"
        if self.copied(text) or (self.needles and self.needles.search(text)):
            return None
        return "`" + text.replace("`", "'") + "`"

    def error(self, raised: str) -> str | None:
        """The code span of an exception (``Type: message``); only its type when the message names the tests'
        own things (a test module, a test function, a class or function the tests define, ``<locals>``); shortened
        (``elided``) when the message would copy a test line (a parser quoting the test's input)."""
        kind, sep, message = raised.partition(": ")
        if sep and self.names_tests(message):
            return self.code(kind)
        return self.code(raised) or (self.elided(raised) if sep else None)

    def without_tests(self, node) -> str:
        """``node`` as source with the names the test files define (and calls of them) shown as ``…``
        (``Elide``, as ``call_text`` does); ``node`` is not changed."""
        return ast.unparse(Elide(self.helpers | self.defined).visit(copy_node(node)))

    def is_test_module(self, name: str) -> bool:
        """``name`` (a dotted module name) is one of the tests' own: relative (``.helpers``), a test file of the
        repository (``Evidence.test_modules``) or of the evidence, or a part named as tests are (``tests``,
        ``test_x``, ``x_test``, ``conftest``: ``graders.runtime_verifier.TEST_DIRS``)."""
        if not name or name.startswith(".") or name in self.test_modules or name in self.modules:
            return True
        return any(part in TEST_DIRS or part.startswith("test_") or part.endswith("_test") or part == "conftest"
                   for part in name.split("."))

    def names_tests(self, text: str) -> bool:
        """``text`` mentions a test module, a ``test_`` name, a name the test files define, or the ``<locals>``
        of a function that is not the project's (a library's own ``f.<locals>.<lambda>`` is not the tests')."""
        if re.search(r"\btest_\w|\bTest[A-Z]", text) or any(m in text for m in self.modules):
            return True
        for owner in re.findall(r"([\w.<>]*)\.<locals>", text):  # the qualified name the local is inside
            parts = [p for p in owner.split(".") if p and not p.startswith("__")]
            if not parts or any(p in self.defined or p in self.helpers or p.startswith("<") for p in parts):
                return True
        return any(re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) for name in self.defined if len(name) > 1)

    def public(self, call: ast.Call) -> bool:
        root = call.func
        while isinstance(root, ast.Attribute | ast.Call | ast.Subscript):
            root = root.value if not isinstance(root, ast.Call) else root.func
        name = root.id if isinstance(root, ast.Name) else None
        # a builtin's name that a test file imports (funcy's own ``map``, from funcy) is the project's API; the tests'
        # machinery (``import pytest``, ``from unittest.mock import patch``) never is
        builtin = name in NOT_API and not (name in self.imported and name in _BUILTIN_NAMES)
        return bool(name) and name not in self.helpers and not builtin and not _TEST_NAMES.match(name) \
            and name not in self.stdlib and name not in self.from_tests  # the API under test is the repository's

    def call_text(self, call: ast.Call, bound: dict) -> str | None:
        """How a user would write the call: bound names replaced by their values; a test variable whose value is
        not known (a loop variable, a fixture) and anything the test files define (a class, a helper, and calls
        of them) shown as ``…``, so that no test-only name is told; None for the tests' own calls."""
        resolved = Substitute(bound).visit(copy_node(call))
        if not isinstance(resolved, ast.Call) or not self.public(resolved):
            return None
        elide = Elide(self.helpers | self.defined)
        resolved.args = [elide.visit(a) for a in resolved.args]
        resolved.keywords = [elide.visit(k) for k in resolved.keywords]
        resolved.func = _elide_inner(resolved.func, elide)  # URL(test_url).to_text: the receiver's arguments too
        return ast.unparse(resolved)

    def call_span(self, call: ast.Call, bound: dict) -> str | None:
        """"`f(a, b)`", or "`f` with `a` and `b`" when the whole call would copy a test line, or the call with the
        fewest tokens left out (``elided``) when it cannot be told argument by argument."""
        text = self.call_text(call, bound)
        if text is None:
            return None
        whole = self.code(text)
        if whole and "…" not in text:
            return whole
        told = self._by_argument(call, bound)  # elided or copied: each argument told on its own, if it can be
        if told and (whole is None or "with" in told):
            return told
        # a method of a value the call's receiver made (``parse(s)[0].name()``), whole copying the test's line:
        # the span with the fewest tokens left out
        return whole or told or (self.elided(text) if "…" not in text else None)

    def _by_argument(self, call: ast.Call, bound: dict) -> str | None:
        resolved = Substitute(bound).visit(copy_node(call))
        func = self.code(ast.unparse(_elide_inner(resolved.func, Elide(self.helpers | self.defined))))
        if func is None and isinstance(resolved.func, ast.Attribute) and isinstance(resolved.func.value, ast.Call) \
                and self.public(resolved.func.value) and not self.names_tests(resolved.func.attr):
            receiver, method = self.made(resolved.func.value), self.code(resolved.func.attr)
            func = f"{method} of {receiver}" if receiver and method else None  # `wait` of a `Retrying` with …
        spans = [self.argument(a) for a in resolved.args] + [self.argument(k) for k in resolved.keywords]
        if spans and all(s == "`…`" for s in spans):
            return func if func and " of " in func else None  # the method of a made value: its arguments aside
        spans = [s for s in spans if s != "`…`"]
        if func is None or not spans or None in spans:
            return func
        listed = joined(spans)
        if self.copied(listed):  # `a`, `b`, `c` reads as the test's own a, b, c: no list separator then
            listed = " and ".join(spans)
        return None if self.copied(listed) else f"{func} with {listed}"

    def argument(self, node) -> str | None:
        """One argument as a user would tell it: its code span; when that would copy a test line, a literal
        container by its keys or size ("a dict with the keys `'a'` and `'b'`"), a call by its callee and its
        arguments, each told so ("a `ForwardRef` of `'ClassVar[str]'`"); a class the tests define (or an
        instance of one) by its public bases ("a subclass of `TypedDict` (defined for the test)"); else the
        elided span, or None."""
        elide = Elide(self.helpers | self.defined)  # as in call_text: no test-only name
        value = node.value if isinstance(node, ast.keyword) else node
        prefix = f"{node.arg}=" if isinstance(node, ast.keyword) and node.arg else ""
        named = self._test_object(value)
        if named:
            return f"`{prefix[:-1]}` set to {named}" if prefix else named
        whole = self.code(ast.unparse(elide.visit(copy_node(node))))
        if whole:
            return whole
        if isinstance(value, ast.Dict) and value.keys and all(isinstance(k, ast.Constant) for k in value.keys):
            keys = [self.code(repr(k.value)) for k in value.keys]
            if None not in keys:
                return f"a dict with the key{'s' if len(keys) > 1 else ''} {joined(keys)}" + (
                    f" as `{prefix[:-1]}`" if prefix else "")
        if isinstance(value, ast.Call) and value.args and not value.keywords and not prefix \
                and not self.names_tests(ast.unparse(value.func)):  # ForwardRef('ClassVar[str]'), part by part
            func, parts = self.code(ast.unparse(value.func)), [self.argument(a) for a in value.args]
            if func and None not in parts and "`…`" not in parts:
                return f"a {func} of {joined(parts)}"
        if isinstance(value, ast.Call) and prefix and not self.names_tests(ast.unparse(value.func)):
            made = self.made(value)  # wait=wait_exponential(max=40, ...): the call told part by part
            return f"`{prefix[:-1]}` set to {made}" if made else None
        if isinstance(value, ast.Constant) and isinstance(value.value, str | bytes) and not prefix:
            return self._text_value(value.value)
        if isinstance(value, ast.List | ast.Tuple | ast.Set):
            shown = self.elided(ast.unparse(elide.visit(copy_node(value))))
            if shown and shown.count("…") == 1 and not prefix:  # one token left out: the items still read
                return f"{shown} (`…`: left out)"
            kind = type(value).__name__.lower()
            size = f"a {kind} of {len(value.elts)} item{'s' if len(value.elts) != 1 else ''}"
            items = [self.argument(e) or "`…`" for e in value.elts] if 1 < len(value.elts) <= _LISTED_ITEMS else []
            if items and items.count("`…`") <= 1 < len(items) - 1 and not prefix:  # item by item, in words
                for listed in (joined(items), "; ".join(items)):  # not the test line's own separators
                    if not self.copied(listed):
                        return f"{size} ({listed})"
            return size + (f" as `{prefix[:-1]}`" if prefix else "")
        return None

    def made(self, call: ast.Call) -> str | None:
        """A call that makes a value, told part by part (its callee and each argument, ``argument``): "a
        `wait_exponential` with `multiplier=2` and `max=40`"; the whole span when it copies no test line and
        names none of the tests'; None when a part cannot be told."""
        whole = self.code(ast.unparse(call))
        if whole and not self.names_tests(whole[1:-1]):
            return whole
        func = self.code(ast.unparse(call.func)) if not self.names_tests(ast.unparse(call.func)) else None
        parts = [self.argument(a) for a in call.args] + [self.argument(k) for k in call.keywords]
        if func is None or None in parts or "`…`" in parts:
            return None
        return f"a {func} with {joined(parts)}" if parts else func

    def _text_value(self, value: str | bytes) -> str | None:
        """A string or bytes value that would copy a test line, told with the fewest characters left out
        (``elided``): "a string of 3 lines `'a = {b = 1,\\n c = 2…\\n}'` (`…`: left out)"."""
        shown = self.elided(repr(value))
        if shown is None:
            return None
        kind = "string" if isinstance(value, str) else "bytes value"
        lines = len(value.splitlines())
        size = f"of {lines} lines" if lines > 1 else f"of {len(value)} characters"
        return f"a {kind} {size} {shown} (`…`: left out)"  # no comma: a token the test line may hold too

    def _test_object(self, value) -> str | None:
        """"a subclass of `Protocol` (defined for the test)" for a class the tests define, "an instance of a class
        defined for the test" for a call of one; None for anything else."""
        call = isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
        name = value.func.id if call else (value.id if isinstance(value, ast.Name) else None)
        if name not in self.classes:
            return None
        known = self.classes[name]  # defined more than once with other bases: which one is not known here
        bases = [self.code(b) for b in (known[0] if all(k == known[0] for k in known) else [])
                 if not self.names_tests(b)]
        bases = [b for b in bases if b]
        own = [span for span in (self.code(m) for m in self.methods.get(name, [])[:_TOLD_METHODS]) if span]
        made = f"defined for the test, with its own {joined(own)}" if own else "defined for the test"
        kind = f"a subclass of {' and '.join(bases)} ({made})" if bases else f"a class {made}"
        return f"an instance of {kind}" if call else kind


def _elide_inner(func, elide: "Elide"):
    """``func`` (a call's callee) with the arguments of the calls inside it elided (``elide``), its own names
    kept: in ``URL(test_url).to_text`` the receiver is the API's, its argument the test's."""
    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            node.args = [elide.visit(a) for a in node.args]
            node.keywords = [elide.visit(k) for k in node.keywords]
    return func


_PATH = re.compile(r"^(?:[A-Za-z]:)?[\w.~-]*(?:[/\\][\w.~ -]+)+[/\\]?$")


def test_file_placeholder(value: str) -> str | None:
    """What a user would write for a path into the tests' tree (a data file the test patch adds, hidden from
    the agent): ``'/workspace/pkg/test/data/valid.toml'`` -> ``<path to a *.toml file>``, a folder ->
    ``<path to a folder>``; None for any other string (a path is one with a separator whose parts include a test
    folder, ``graders.runtime_verifier.TEST_DIRS``, or a ``test_``/``_test`` name)."""
    if not _PATH.match(value):
        return None
    parts = [p for p in re.split(r"[/\\]", value) if p]
    if not any(p in TEST_DIRS or p.startswith("test_") or p.rsplit(".", 1)[0].endswith("_test") for p in parts):
        return None
    ext = re.search(r"(?<=[^.])\.[A-Za-z0-9]{1,10}$", parts[-1])
    return f"<path to a *{ext.group()} file>" if ext and not value.endswith(("/", "\\")) else "<path to a folder>"


class Elide(ast.NodeTransformer):
    """Replaces names of ``names`` (the tests' own) and calls of them by ``…``, and a path into the tests' tree
    by what it stands for (``test_file_placeholder``)."""

    def __init__(self, names: set[str]):
        self.names = names

    def visit_Name(self, node):
        return ast.Name(id="…", ctx=ast.Load()) if node.id in self.names else node

    def visit_Constant(self, node):
        told = test_file_placeholder(node.value) if isinstance(node.value, str) else None
        return ast.Name(id=told, ctx=ast.Load()) if told else node

    def visit_Call(self, node):
        root = node.func
        while isinstance(root, ast.Attribute | ast.Call | ast.Subscript):
            root = root.value if not isinstance(root, ast.Call) else root.func
        if isinstance(root, ast.Name) and root.id in self.names:
            return ast.Name(id="…", ctx=ast.Load())
        return self.generic_visit(node)


def _zone(node):
    """The ``datetime.timezone`` a tzinfo argument names (``timezone.utc``, ``dt.timezone.utc``, ``UTC``,
    ``timezone(timedelta(hours=11))`` with literal numbers), or None."""
    import datetime

    if (isinstance(node, ast.Attribute) and node.attr == "utc") or (isinstance(node, ast.Name) and node.id == "UTC"):
        return datetime.timezone.utc
    if isinstance(node, ast.Call) and attr_name(node.func) == "timezone" and len(node.args) == 1 and \
            not node.keywords:
        delta = node.args[0]
        if isinstance(delta, ast.Call) and attr_name(delta.func) == "timedelta" and not delta.args and all(
                is_literal(k.value) and k.arg in ("days", "hours", "minutes", "seconds") for k in delta.keywords):
            try:
                return datetime.timezone(datetime.timedelta(**{k.arg: ast.literal_eval(k.value)
                                                                for k in delta.keywords}))
            except (ValueError, TypeError, OverflowError):
                return None
    return None


def _zone_call(call: ast.Call):
    """``dt.timezone(dt.timedelta(hours=11))`` as ``timezone(timedelta(hours=11))`` (the offset in whole hours,
    else minutes), or ``timezone.utc``: the test's spelling left behind with its module alias. None for any other
    call."""
    if attr_name(call.func) != "timezone":
        return None
    zone = _zone(call)
    return None if zone is None else _zone_node(zone)


def _iso_date(call: ast.Call):
    """``datetime(2023, 10, 16, hour=6, tzinfo=timezone.utc)`` (or ``date(...)``, with literal numbers) as
    ``datetime.fromisoformat('2023-10-16T06:00').replace(tzinfo=timezone.utc)``:
    how a user writes the moment without the test's own
    tokens (its constructor call would copy a line of the test patch, and be left out as ``…``). None for any
    other call."""
    import datetime

    name = attr_name(call.func)
    if name not in ("datetime", "date") or not call.args or not all(
            isinstance(a, ast.Constant) and type(a.value) is int for a in call.args):
        return None
    keywords = {}
    for keyword in call.keywords:
        if keyword.arg == "tzinfo" and name == "datetime":
            keywords["tzinfo"] = _zone(keyword.value)
            if keywords["tzinfo"] is None:
                return None
        elif keyword.arg in ("year", "month", "day", "hour", "minute", "second", "microsecond") and \
                isinstance(keyword.value, ast.Constant) and type(keyword.value.value) is int:
            keywords[keyword.arg] = keyword.value.value
        else:
            return None
    try:
        value = getattr(datetime, name)(*[a.value for a in call.args], **keywords)
    except (ValueError, TypeError, OverflowError):
        return None
    zone = value.tzinfo if name == "datetime" else None
    naive = value.replace(tzinfo=None) if zone is not None else value
    # the seconds and offset of a timestamp read as a copy of another one (``23:00:00+00:00`` in a freeze_time):
    # minutes only when that is all there is, and the zone apart
    text = naive.isoformat(**({"timespec": "minutes"} if name == "datetime" and not value.second
                              and not value.microsecond else {}))
    # one name node, dotted: a test's own variable called ``datetime`` (helper_names) must not elide the class
    made = ast.Call(func=ast.Name(id=f"{name}.fromisoformat", ctx=ast.Load()), args=[ast.Constant(value=text)],
                    keywords=[])
    if zone is None:
        return made
    return ast.Call(func=ast.Attribute(value=made, attr="replace", ctx=ast.Load()), args=[],
                    keywords=[ast.keyword(arg="tzinfo", value=_zone_node(zone))])


def _zone_node(zone):
    """``timezone.utc`` or ``timezone(timedelta(hours=11))`` (minutes when not whole hours), as an expression."""
    minutes = int(zone.utcoffset(None).total_seconds()) // 60
    if not minutes:
        return ast.parse("timezone.utc", mode="eval").body
    delta = f"hours={minutes // 60}" if minutes % 60 == 0 else f"minutes={minutes}"
    return ast.parse(f"timezone(timedelta({delta}))", mode="eval").body


class Substitute(ast.NodeTransformer):
    """Replaces bound names by their values, and names inside those values too (at most ``depth`` deep); a bound
    ``self.name`` (what the test class set up) too."""

    def __init__(self, bound: dict, depth: int = 3):
        self.bound, self.depth = bound, depth

    def visit_Call(self, node):
        node = self.generic_visit(node)
        args = []
        for arg in node.args:  # f(*[1, 2]) is f(1, 2)
            if isinstance(arg, ast.Starred) and isinstance(arg.value, ast.List | ast.Tuple):
                args += arg.value.elts
            else:
                args.append(arg)
        node.args = args
        keywords = []
        for kw in node.keywords:  # f(**{"multiline": True}) is f(multiline=True)
            if kw.arg is None and isinstance(kw.value, ast.Dict) and all(
                    isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.isidentifier()
                    for k in kw.value.keys):
                keywords += [ast.keyword(arg=k.value, value=v) for k, v in zip(kw.value.keys, kw.value.values)]
            else:
                keywords.append(kw)
        node.keywords = keywords
        iso = _iso_date(node) or _zone_call(node)
        if iso is not None:
            return iso
        func = node.func
        if isinstance(func, ast.Lambda) and not node.keywords and len(node.args) == len(func.args.args) and \
                is_bindable(func):  # (lambda sql: format(sql, wrap=30))(s) is format(s, wrap=30)
            return Substitute({a.arg: v for a, v in zip(func.args.args, node.args)}, 1).visit(copy_node(func.body))
        if isinstance(func, ast.Attribute) and func.attr == "join" and isinstance(func.value, ast.Constant) and \
                isinstance(func.value.value, str) and len(node.args) == 1 and not node.keywords and \
                isinstance(node.args[0], ast.List | ast.Tuple) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.args[0].elts):
            return ast.Constant(value=func.value.value.join(e.value for e in node.args[0].elts))  # '\n'.join([…])
        if (isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) == 2
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
                and node.args[1].value.isidentifier()):  # getattr(x, "name") is x.name
            return ast.Attribute(value=node.args[0], attr=node.args[1].value, ctx=ast.Load())
        return node

    def visit_JoinedStr(self, node):
        """An f-string whose every part is known once the names are put in (``f"<{tag}>"`` with ``tag = 'wbr'``)
        is the string it makes (``'<wbr>'``), not ``f'<{'wbr'}>'``."""
        node = self.generic_visit(node)
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            elif isinstance(value, ast.FormattedValue) and value.conversion == -1 and value.format_spec is None \
                    and isinstance(value.value, ast.Constant) and isinstance(value.value.value, (str, int)) \
                    and not isinstance(value.value.value, bool):
                parts.append(str(value.value.value))
            else:
                return node
        return ast.Constant(value="".join(parts))

    def visit_Name(self, node):
        value = self.bound.get(node.id)
        if value is None or self.depth == 0 or not isinstance(node.ctx, ast.Load):
            return node  # a name assigned (``r = f(...)`` again) is not the value it held before
        return Substitute(self.bound, self.depth - 1).visit(copy_node(value))

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "self" and "self." + node.attr in self.bound \
                and self.depth:  # what setUp made (``failing_statement._set_up``)
            return Substitute(self.bound, self.depth - 1).visit(copy_node(self.bound["self." + node.attr]))
        return self.generic_visit(node)


def joined(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``: items listed as a sentence does."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def copy_node(node):
    return copy.deepcopy(node)


class _Fold(ast.NodeTransformer):
    """Evaluates what a reader would at a glance, once names are replaced by their values: ``a if c else b``
    with a constant condition, comparisons and ``not``/``and``/``or`` of constants, ``{...}[key]`` of a
    literal dict with a constant key."""

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node

    def visit_Compare(self, node):
        node = self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq | ast.NotEq | ast.In | ast.NotIn) and all(
                is_literal(n) for n in (node.left, *node.comparators)):
            try:
                left, right = ast.literal_eval(node.left), ast.literal_eval(node.comparators[0])
                value = {ast.Eq: lambda: left == right, ast.NotEq: lambda: left != right,
                         ast.In: lambda: left in right, ast.NotIn: lambda: left not in right}[type(node.ops[0])]()
            except (ValueError, TypeError, SyntaxError):
                return node
            return ast.Constant(value=bool(value))
        return node

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Constant):
            return ast.Constant(value=not node.operand.value)
        return node

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        if all(isinstance(v, ast.Constant) for v in node.values):
            values = [v.value for v in node.values]
            return ast.Constant(value=all(values) if isinstance(node.op, ast.And) else any(values))
        return node

    def visit_Subscript(self, node):
        node = self.generic_visit(node)
        if isinstance(node.value, ast.Dict) and isinstance(node.slice, ast.Constant):
            for key, value in zip(node.value.keys, node.value.values):
                if isinstance(key, ast.Constant) and key.value == node.slice.value:
                    return value
        return node


def folded(node, bound: dict):
    """``node`` with the names of ``bound`` replaced by their values and what a reader evaluates at a glance
    evaluated (``_Fold``): ``"A" if prop == "x" else "B"`` with ``prop`` bound to ``"y"`` is ``"B"``."""
    return _Fold().visit(Substitute(bound).visit(copy_node(node)))


def is_literal(node) -> bool:
    """A value a reader can take as it is: constants, containers of them, negative numbers, simple arithmetic."""
    return all(isinstance(n, ast.Constant | ast.Tuple | ast.List | ast.Set | ast.Dict | ast.UnaryOp | ast.BinOp
                          | ast.operator | ast.unaryop | ast.expr_context | ast.keyword)
               for n in ast.walk(node))


def is_bindable(node) -> bool:
    """A value worth showing in place of its name: a literal, a call, a part of what a call returned
    (``parse(s)[0].tokens[0]``: items at literal keys and attributes), a ``lambda`` whose body is one of those
    (``f = lambda sql: format(sql, wrap=30)``, inlined where it is called: ``Substitute``), or a container of
    those."""
    if is_literal(node) or isinstance(node, ast.Call):
        return True
    if isinstance(node, ast.Subscript | ast.Attribute):
        while isinstance(node, ast.Subscript | ast.Attribute):
            if isinstance(node, ast.Subscript) and not is_literal(node.slice):
                return False
            node = node.value
        return isinstance(node, ast.Call)
    if isinstance(node, ast.Lambda):
        args = node.args
        return not (args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs) and \
            is_bindable(node.body)
    return isinstance(node, ast.List | ast.Tuple | ast.Set) and all(
        is_bindable(e) or isinstance(e, ast.Name) for e in node.elts)  # a name in it: Substitute puts its value


def fixture_values(trees) -> dict:
    """Fixtures of the test files (``@pytest.fixture`` functions, in the trees given) whose body only returns
    (or yields) a literal, a call or a container of those, with no parameter of their own: name -> that value.
    A test parameter of that name stands for it (``jws`` -> ``PyJWS()``)."""
    found: dict = {}
    for tree in trees:
        for node in ast.walk(tree) if tree else ():
            if not isinstance(node, ast.FunctionDef) or not any(
                    attr_name(d.func if isinstance(d, ast.Call) else d) == "fixture" for d in node.decorator_list):
                continue
            body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            params = [a for a in node.args.args + node.args.kwonlyargs if a.arg not in ("self", "request")]
            value = body[0].value if len(body) == 1 and isinstance(body[0], ast.Return) else (
                body[0].value.value if len(body) == 1 and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Yield) else None)
            if value is not None and not params and is_bindable(value):
                found.setdefault(node.name, value)
    return found


def stdlib_names(trees) -> set[str]:
    """Names the test files import from the standard library (``import threading``, ``from io import
    StringIO``; ``sys.stdlib_module_names``): their calls are never the API under test. A repository module
    imported under a standard library's name (``import tomli as tomllib``) is not one of them."""
    found: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Import):
                found |= {(a.asname or a.name).split(".")[0] for a in node.names
                          if a.name.split(".")[0] in sys.stdlib_module_names}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module and \
                    node.module.split(".")[0] in sys.stdlib_module_names:
                found |= {a.asname or a.name for a in node.names}
    return found


_TOLD_METHODS = 4  # of a class the tests define, the methods its description names


def class_methods(trees) -> dict[str, list[str]]:
    """Classes the test files define once: name -> the methods its body defines, in order (glom-250's dict
    subclass whose ``__getitem__`` raises was told as any dict subclass, and what the check expects of it read
    as false); a class defined more than once is left out (which one a test used is not known)."""
    found: dict[str, list[str]] = {}
    seen: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.ClassDef):
                if node.name in seen:
                    found.pop(node.name, None)
                    continue
                seen.add(node.name)
                found[node.name] = [n.name for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return found


def test_classes(trees) -> dict[str, list[list[str]]]:
    """Classes the test files define: name -> the names of the bases of each definition of it
    (``typing.TypedDict`` -> ``TypedDict``; ``object`` and ``unittest.TestCase`` left out)."""
    found: dict[str, list[list[str]]] = {}
    for tree in trees:
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.ClassDef):
                bases = [attr_name(b.value if isinstance(b, ast.Subscript) else b) for b in node.bases]
                found.setdefault(node.name, []).append([b for b in bases if b and b not in ("object", "TestCase")])
    return found


def attr_name(node) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
