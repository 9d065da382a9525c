"""Bug generators: small named strategies, each with a version, that propose source-preserving edits of one Python
function (the rest of the file byte-for-byte as it was, so the gold patch is the one line or block changed).

Strategies (``STRATEGIES``; SWE-smith's procedural modifications are the model):

- ``flip_comparison``: ``<``/``>=``, ``>``/``<=``, ``==``/``!=``, ``is``/``is not``, ``in``/``not in``;
- ``flip_boolean``: ``and``/``or``;
- ``off_by_one``: an integer in a comparison, a slice bound, an index or a ``range(...)`` argument, plus or minus 1;
- ``change_constant``: a parameter default (``True``/``False`` swapped, an integer plus 1) or a numeric literal in
  arithmetic;
- ``drop_statement``: one call, assignment or augmented assignment that is not alone in its block, removed;
- ``drop_branch``: an ``else``/``elif`` branch removed;
- ``invert_condition``: an ``if``/``while``/conditional-expression test negated;
- ``remove_early_return``: an ``if ...: return ...`` that is not the function's last statement, removed;
- ``swap_arguments``: the first two positional arguments of a call swapped (different expressions only).

``combine`` pairs two such edits of one function (``combinations``). Each ``Mutation`` names its strategy and
version, its function and line (provenance only: the problem statement names none of them).
"""

import ast
import hashlib
import io
import textwrap
import tokenize
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from repo2env.tasks.eqv.discover import EXCLUDED_DIRS, EXCLUDED_FILES

VERSION = "1"
_FLIP = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "==", "is": "is not", "is not": "is",
         "in": "not in", "not in": "in"}


@dataclass(frozen=True)
class Edit:
    """Replace bytes ``start:end`` of a file with ``replacement`` (byte offsets into its UTF-8 text)."""

    start: int
    end: int
    replacement: bytes


@dataclass(frozen=True)
class Mutation:
    """One synthetic bug: ``edits`` (non-overlapping, any order) of the file ``path`` inside ``function`` (its
    qualified name, e.g. ``Parser.parse``) starting at ``line`` (1-based), made by ``strategy`` at ``version``.
    ``description`` says what changed (provenance, never shown to the agent)."""

    path: str
    function: str
    line: int
    strategy: str
    description: str
    edits: tuple[Edit, ...]
    version: str = VERSION
    function_lines: tuple[int, ...] = field(default=(), compare=False)  # the def's line and its decorators'
    function_span: tuple[int, int] | None = field(default=None, compare=False)  # its bytes, decorators included

    def apply(self, data: bytes) -> bytes:
        """``data`` (the file's bytes) with the edits made."""
        for edit in sorted(self.edits, key=lambda e: e.start, reverse=True):
            data = data[:edit.start] + edit.replacement + data[edit.end:]
        return data

    @property
    def key(self) -> str:
        """A short stable id of the change (path and edits): two strategies making the same text edit share it."""
        h = hashlib.sha256(self.path.encode())
        for edit in sorted(self.edits, key=lambda e: e.start):
            h.update(b"\0%d:%d:" % (edit.start, edit.end) + edit.replacement)
        return h.hexdigest()[:12]


def is_mutable_file(path: str) -> bool:
    """A Python source file of the repository's own code: not a test (``test_*.py``, ``*_test.py``, a ``tests``
    folder), not docs, examples, scripts or build output, not ``setup.py``/``conftest.py``/``__main__.py``."""
    p = PurePosixPath(path)
    if p.suffix != ".py" or p.name in EXCLUDED_FILES or any(part in EXCLUDED_DIRS for part in p.parts[:-1]):
        return False
    return not (p.name.startswith("test_") or p.name.endswith("_test.py"))


class _Source:
    """A file's bytes with ``ast`` positions (line, UTF-8 column) turned into byte offsets."""

    def __init__(self, data: bytes):
        self.data = data
        self.starts = [0]
        for line in data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def text(self, node: ast.AST) -> bytes:
        start, end = self.span(node)
        return self.data[start:end]

    def operator_between(self, left: ast.AST, right: ast.AST, words: set[str]) -> tuple[int, int, str] | None:
        """The operator between two nodes when it is one of ``words`` (``is not``/``not in`` as one):
        ``(start, end, text)``, byte offsets into the file."""
        start, end = self.span(left)[1], self.span(right)[0]
        segment = self.data[start:end].decode("utf-8", "replace")
        lines = segment.splitlines(keepends=True) or [""]
        try:
            found = [t for t in tokenize.generate_tokens(io.StringIO(segment).readline)
                     if t.type in (tokenize.OP, tokenize.NAME) and t.string in _OPERATOR_WORDS]
        except (tokenize.TokenError, IndentationError, SyntaxError):
            return None
        text = " ".join(t.string for t in found)
        if not found or text not in words:
            return None

        def offset(row: int, col: int) -> int:
            return start + sum(len(line.encode()) for line in lines[:row - 1]) + len(lines[row - 1][:col].encode())

        return offset(*found[0].start), offset(*found[-1].end), text


_OPERATOR_WORDS = frozenset({"<", ">", "<=", ">=", "==", "!=", "is", "in", "not", "and", "or"})


def functions(tree: ast.AST):
    """(qualified name, node) of every function and method of a module's ``tree``, nested ones included
    (``Outer.method.inner``)."""
    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                yield name, child
                yield from walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)
    yield from walk(tree, "")


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _own_nodes(fn: ast.AST):
    """The nodes of ``fn``'s body, nested functions and classes left out wherever they stand, a statement of the
    body itself included (they are mutated as functions of their own: one edit, one function, one key)."""
    stack = [node for node in fn.body if not isinstance(node, _NESTED)]
    while stack:
        node = stack.pop(0)
        yield node
        stack.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, _NESTED))


def _is_docstring(fn: ast.AST, stmt: ast.AST) -> bool:
    return (stmt is fn.body[0] and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def _whole_lines(src: _Source, node: ast.AST) -> tuple[int, int] | None:
    """Byte span of the full lines ``node`` occupies, when nothing else shares them (no ``;``, no code after)."""
    start, end = src.span(node)
    line_start = src.starts[node.lineno - 1]
    line_end = src.starts[node.end_lineno] if node.end_lineno < len(src.starts) else len(src.data)
    before, after = src.data[line_start:start], src.data[end:line_end]
    if before.strip() or after.split(b"#", 1)[0].strip():
        return None
    return line_start, line_end


def flip_comparison(src: _Source, fn: ast.AST):
    for node in _own_nodes(fn):
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            found = src.operator_between(node.left, node.comparators[0], set(_FLIP))
            if found:
                start, end, text = found
                yield f"{text} -> {_FLIP[text]}", node, (Edit(start, end, _FLIP[text].encode()),)


def flip_boolean(src: _Source, fn: ast.AST):
    for node in _own_nodes(fn):
        if isinstance(node, ast.BoolOp) and len(node.values) >= 2:
            found = src.operator_between(node.values[0], node.values[1], {"and", "or"})
            if found:
                start, end, text = found
                other = "or" if text == "and" else "and"
                yield f"{text} -> {other}", node, (Edit(start, end, other.encode()),)


def _int_constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def off_by_one(src: _Source, fn: ast.AST):
    seen = set()
    for node in _own_nodes(fn):
        places = []
        if isinstance(node, ast.Compare):
            places = [node.left, *node.comparators]
        elif isinstance(node, ast.Slice):
            places = [node.lower, node.upper]
        elif isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            places = [node.slice]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            places = list(node.args)
        for place in places:
            if place is not None and _int_constant(place) and id(place) not in seen:
                seen.add(id(place))
                start, end = src.span(place)
                for delta in (1, -1):
                    value = place.value + delta
                    if value >= 0 or place.value < 0:
                        yield f"{place.value} -> {value}", place, (Edit(start, end, str(value).encode()),)


def change_constant(src: _Source, fn: ast.AST):
    args = fn.args
    for default in list(args.defaults) + [d for d in args.kw_defaults if d is not None]:
        if isinstance(default, ast.Constant) and isinstance(default.value, bool):
            start, end = src.span(default)
            new = str(not default.value)
            yield f"default {default.value} -> {new}", default, (Edit(start, end, new.encode()),)
        elif _int_constant(default):
            start, end = src.span(default)
            yield f"default {default.value} -> {default.value + 1}", default, (
                Edit(start, end, str(default.value + 1).encode()),)
    for node in _own_nodes(fn):
        if isinstance(node, ast.BinOp):
            for side in (node.left, node.right):
                if isinstance(side, ast.Constant) and type(side.value) in (int, float) and side.value not in (0, 1):
                    start, end = src.span(side)
                    new = side.value * 2 if type(side.value) is int else side.value * 2.0
                    yield f"{side.value} -> {new}", side, (Edit(start, end, repr(new).encode()),)


def _blocks(fn: ast.AST):
    """Every statement list inside ``fn`` (its body and those of its compound statements), nested functions
    left out."""
    stack = [fn.body]
    while stack:
        block = stack.pop(0)
        yield block
        for stmt in block:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, name, None)
                if inner and isinstance(inner, list) and isinstance(inner[0], ast.stmt):
                    stack.append(inner)
            for handler in getattr(stmt, "handlers", []) or []:
                stack.append(handler.body)


def drop_statement(src: _Source, fn: ast.AST):
    for block in _blocks(fn):
        live = [s for s in block if not _is_docstring(fn, s)]
        if len(live) < 2:
            continue
        for stmt in live:
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) or (
                    isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
                lines = _whole_lines(src, stmt)
                if lines:
                    yield "statement removed", stmt, (Edit(lines[0], lines[1], b""),)


def drop_branch(src: _Source, fn: ast.AST):
    for node in _own_nodes(fn):
        if isinstance(node, ast.If) and node.orelse:
            first, last = node.orelse[0], node.orelse[-1]
            body_end = src.span(node.body[-1])[1]
            line_end = src.starts[last.end_lineno] if last.end_lineno < len(src.starts) else len(src.data)
            gap = src.data[body_end:src.span(first)[0]]
            if b"else" not in gap and not (len(node.orelse) == 1 and isinstance(first, ast.If)):
                continue
            # from the end of the if-body's last line to the end of the branch's last line
            cut = src.data.find(b"\n", body_end)
            if cut < 0 or cut + 1 > line_end:
                continue
            if src.data[line_end - 1:line_end] != b"\n" and line_end != len(src.data):
                continue
            yield "else branch removed", node, (Edit(cut + 1, line_end, b""),)


def invert_condition(src: _Source, fn: ast.AST):
    for node in _own_nodes(fn):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            test = node.test
            start, end = src.span(test)
            text = src.data[start:end]
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                inner = src.span(test.operand)
                yield "condition negation removed", node, (Edit(start, end, src.data[inner[0]:inner[1]]),)
            else:
                yield "condition negated", node, (Edit(start, end, b"not (" + text + b")"),)


def remove_early_return(src: _Source, fn: ast.AST):
    for block in _blocks(fn):
        for stmt in block[:-1] if block is fn.body else block:
            if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 \
                    and isinstance(stmt.body[0], (ast.Return, ast.Raise)) and block.index(stmt) < len(block) - 1:
                lines = _whole_lines(src, stmt)
                if lines:
                    yield "early exit removed", stmt, (Edit(lines[0], lines[1], b""),)


def swap_arguments(src: _Source, fn: ast.AST):
    for node in _own_nodes(fn):
        if isinstance(node, ast.Call) and len(node.args) >= 2 and not any(
                isinstance(a, ast.Starred) for a in node.args[:2]):
            a, b = node.args[0], node.args[1]
            ta, tb = src.text(a), src.text(b)
            if ta != tb and a.end_lineno == b.lineno:
                (a0, a1), (b0, b1) = src.span(a), src.span(b)
                yield "arguments swapped", node, (Edit(a0, a1, tb), Edit(b0, b1, ta))


STRATEGIES = {f.__name__: f for f in (flip_comparison, flip_boolean, off_by_one, change_constant, drop_statement,
                                       drop_branch, invert_condition, remove_early_return, swap_arguments)}
COMBINE = "combine"


def function_mutations(path: str, data: bytes, strategies: tuple[str, ...] | None = None) -> dict[str, list[Mutation]]:
    """Every single-edit mutation of every function in the file (``path``, its bytes ``data``) by ``strategies``
    (names of ``STRATEGIES``; None: all), by qualified function name. A file that does not parse gives none.
    Whether a mutant still parses is the caller's to check (``parses``), on the ones it samples: parsing a
    large module once per mutation would cost more than the sampling."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return {}
    src = _Source(data)
    chosen = [STRATEGIES[name] for name in (strategies or tuple(STRATEGIES)) if name in STRATEGIES]
    found: dict[str, list[Mutation]] = {}
    for name, fn in functions(tree):
        lines = tuple(sorted({fn.lineno, *(d.lineno for d in fn.decorator_list)}))
        end = src.starts[fn.end_lineno] if fn.end_lineno < len(src.starts) else len(data)
        span = (src.starts[lines[0] - 1], end)
        made: dict[str, Mutation] = {}
        for strategy in chosen:
            for description, node, edits in strategy(src, fn):
                m = Mutation(path=path, function=name, line=getattr(node, "lineno", fn.lineno),
                             strategy=strategy.__name__, description=description, edits=edits, function_lines=lines,
                             function_span=span)
                if m.key not in made:
                    made[m.key] = m
        if made:
            found[name] = list(made.values())
    return found


def combinations(mutations: list[Mutation]) -> list[Mutation]:
    """``combine`` mutations: pairs of two single edits of one function whose spans do not touch, in order."""
    pairs = []
    for i, a in enumerate(mutations):
        for b in mutations[i + 1:]:
            spans = sorted((e.start, e.end) for e in a.edits + b.edits)
            if any(spans[k][1] >= spans[k + 1][0] for k in range(len(spans) - 1)):
                continue
            pairs.append(Mutation(path=a.path, function=a.function, line=min(a.line, b.line), strategy=COMBINE,
                                  description=f"{a.strategy}: {a.description}; {b.strategy}: {b.description}",
                                  edits=a.edits + b.edits, function_lines=a.function_lines,
                                  function_span=a.function_span))
    return pairs


def still_parses(mutation: Mutation, data: bytes) -> bool:
    """Whether the mutated function (its ``function_span`` of ``data``, the file's bytes, with the edits made;
    the whole file when the span is unknown) is still valid Python: only the function is parsed, dedented."""
    if mutation.function_span is None:
        return parses(mutation.apply(data))
    start, end = mutation.function_span
    inside = [Edit(e.start - start, e.end - start, e.replacement) for e in mutation.edits]
    segment = replace(mutation, edits=tuple(inside)).apply(data[start:end])
    return parses(textwrap.dedent(segment.decode("utf-8", "replace")).encode())


def parses(data: bytes) -> bool:
    """Whether ``data`` is valid Python."""
    try:
        ast.parse(data)
    except (SyntaxError, ValueError):
        return False
    return True
