"""Code spans in the observed-behaviour sentences: a call as a user would write it (names the test function
bound shown as their values, import aliases as the module's own name, ``getattr(x, "name")`` as ``x.name``),
and never a span that repeats ``leak_audit.DEFAULT_NGRAM`` tokens of a test file's line (the audit's
``gold_overlap`` rule over the test patch)."""

import ast
import copy
import re

from repo2env.instructions.leak_audit import DEFAULT_NGRAM, tokens
from repo2env.instructions.observed.evidence import Evidence, defined_names, helper_names

MAX_CHARS = 160  # of a code span in a sentence


_TEST_NAMES = re.compile(r"^(test|Test)")

NOT_API = {  # builtins and test machinery: never the public API a user calls
    "pytest", "len", "list", "dict", "set", "tuple", "str", "int", "float", "sorted", "repr", "type", "isinstance",
    "print", "getattr", "hasattr", "bool", "self", "cls", "mock", "patch", "super", "iter", "next", "range", "zip",
    "enumerate", "map", "filter", "any", "all", "open", "vars", "id", "frozenset", "bytes", "object", "issubclass",
    "callable", "min", "max", "sum", "abs", "round",
    # the tests' machinery from unittest.mock and pytest's fixtures
    "MagicMock", "Mock", "AsyncMock", "NonCallableMock", "PropertyMock", "create_autospec", "call", "ANY",
    "sentinel", "mocker", "monkeypatch", "capsys", "caplog", "tmp_path", "tmpdir", "request"}


class Teller:
    """Renders code spans for one Evidence: names bound in the test function shown as their values, and no
    span that repeats ``DEFAULT_NGRAM`` tokens of a test line."""

    def __init__(self, evidence: Evidence, disclose: bool = True):
        self.disclose = disclose
        self.helpers = helper_names(evidence.test_sources.values())
        self.defined = defined_names(evidence.test_sources.values())
        self.modules = {form for path in evidence.test_sources if path.endswith(".py")
                        for form in (path[:-3].replace("/", "."), path.rsplit("/", 1)[-1][:-3])}
        self.grams: set[tuple[str, ...]] = set()
        for text in evidence.test_sources.values():
            for line in text.splitlines():
                words = tokens(line)
                self.grams |= {tuple(words[i:i + DEFAULT_NGRAM]) for i in range(len(words) - DEFAULT_NGRAM + 1)}

    def copied(self, text: str) -> bool:
        """``text`` repeats ``DEFAULT_NGRAM`` tokens of a test line (the audit's tokens: quote style aside)."""
        words = tokens(text)
        return any(tuple(words[i:i + DEFAULT_NGRAM]) in self.grams for i in range(len(words) - DEFAULT_NGRAM + 1))

    def code(self, text: str) -> str | None:
        """A code span for ``text``, or None when it would copy a test line."""
        text = " ".join(text.split())
        text = text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 1] + "…"
        return None if self.copied(text) else "`" + text.replace("`", "'") + "`"

    def error(self, raised: str) -> str | None:
        """The code span of an exception (``Type: message``); only its type when the message names the tests'
        own things (a test module, a test function, a class or function the tests define, ``<locals>``)."""
        kind, sep, message = raised.partition(": ")
        if sep and self.names_tests(message):
            return self.code(kind)
        return self.code(raised)

    def names_tests(self, text: str) -> bool:
        """``text`` mentions a test module, a ``test_`` name, a name the test files define, or ``<locals>``."""
        if re.search(r"<locals>|\btest_\w|\bTest[A-Z]", text) or any(m in text for m in self.modules):
            return True
        return any(re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) for name in self.defined if len(name) > 1)

    def public(self, call: ast.Call) -> bool:
        root = call.func
        while isinstance(root, ast.Attribute | ast.Call | ast.Subscript):
            root = root.value if not isinstance(root, ast.Call) else root.func
        name = root.id if isinstance(root, ast.Name) else None
        return bool(name) and name not in self.helpers and name not in NOT_API and not _TEST_NAMES.match(name)

    def call_text(self, call: ast.Call, bound: dict) -> str | None:
        """How a user would write the call: bound names replaced by their values; a test variable whose value is
        not known (a loop variable, a fixture) and anything the test files define (a class, a helper, and calls
        of them) shown as ``…``, so that no test-only name is told; None for the tests' own calls."""
        resolved = Substitute(bound).visit(copy_node(call))
        if not isinstance(resolved, ast.Call) or not self.public(resolved):
            return None
        elide = _Elide(self.helpers | self.defined)
        resolved.args = [elide.visit(a) for a in resolved.args]
        resolved.keywords = [elide.visit(k) for k in resolved.keywords]
        return ast.unparse(resolved)

    def call_span(self, call: ast.Call, bound: dict) -> str | None:
        """"`f(a, b)`", or "`f` with `a` and `b`" when the whole call would copy a test line."""
        text = self.call_text(call, bound)
        if text is None:
            return None
        whole = self.code(text)
        if whole:
            return whole
        resolved = Substitute(bound).visit(copy_node(call))
        elide = _Elide(self.helpers | self.defined)  # as in call_text: no test-only name, argument by argument too
        args = [ast.unparse(elide.visit(a)) for a in resolved.args] + [
            ast.unparse(elide.visit(k)) for k in resolved.keywords]
        args = [a for a in args if a != "…"] or args
        spans = [self.code(a) for a in args]
        func = self.code(ast.unparse(resolved.func))
        if func is None or not spans or None in spans:
            return func
        listed = spans[0] if len(spans) == 1 else ", ".join(spans[:-1]) + " and " + spans[-1]
        return f"{func} with {listed}"


class _Elide(ast.NodeTransformer):
    """Replaces names of ``names`` (the tests' own) and calls of them by ``…``."""

    def __init__(self, names: set[str]):
        self.names = names

    def visit_Name(self, node):
        return ast.Name(id="…", ctx=ast.Load()) if node.id in self.names else node

    def visit_Call(self, node):
        root = node.func
        while isinstance(root, ast.Attribute | ast.Call | ast.Subscript):
            root = root.value if not isinstance(root, ast.Call) else root.func
        if isinstance(root, ast.Name) and root.id in self.names:
            return ast.Name(id="…", ctx=ast.Load())
        return self.generic_visit(node)


class Substitute(ast.NodeTransformer):
    """Replaces bound names by their values, and names inside those values too (at most ``depth`` deep)."""

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
        if (isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) == 2
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
                and node.args[1].value.isidentifier()):  # getattr(x, "name") is x.name
            return ast.Attribute(value=node.args[0], attr=node.args[1].value, ctx=ast.Load())
        return node

    def visit_Name(self, node):
        value = self.bound.get(node.id)
        if value is None or self.depth == 0:
            return node
        return Substitute(self.bound, self.depth - 1).visit(copy_node(value))


def copy_node(node):
    return copy.deepcopy(node)


def is_literal(node) -> bool:
    """A value a reader can take as it is: constants, containers of them, negative numbers, simple arithmetic."""
    return all(isinstance(n, ast.Constant | ast.Tuple | ast.List | ast.Set | ast.Dict | ast.UnaryOp | ast.BinOp
                          | ast.operator | ast.unaryop | ast.expr_context | ast.keyword)
               for n in ast.walk(node))


def is_bindable(node) -> bool:
    """A value worth showing in place of its name: a literal, a call, or a container of those."""
    if is_literal(node) or isinstance(node, ast.Call):
        return True
    return isinstance(node, ast.List | ast.Tuple | ast.Set) and all(is_bindable(e) for e in node.elts)


def attr_name(node) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
