"""Where a FAIL_TO_PASS test failed: its frame in the traceback (``path:line``), the statement there in the test
file (``ast``), the names bound before it (assignments, ``@pytest.mark.parametrize`` cases by the node id's
``[...]``, import aliases), what it expects raised (``pytest.raises``/``assertRaises*``) and which function the
traceback entered next."""

import ast
import builtins
import re
from dataclasses import dataclass

from repo2env.instructions.observed.spans import attr_name, folded, is_bindable, is_literal

FRAME = re.compile(r"^([\w./\\-]+\.py):(\d+):", re.M)  # a traceback entry's "path:line:"

RAISES = {"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "warns", "assertWarns"}


def test_frame(text: str, sources: dict) -> tuple[str, int] | None:
    """The test file's frame in the traceback: its path and line."""
    for m in FRAME.finditer(text):
        path = m.group(1).replace("\\", "/").removeprefix("./")
        if path in sources:
            return path, int(m.group(2))
    return None


@dataclass
class Site:
    """Where a test failed: the ``statement``, the names bound before it (name -> value expr), an expected
    exception (``pytest.raises(X, match=...)``, ``assertRaises(X)``/``assertRaisesRegex(X, pattern)``) and the
    call made under it when the test passes a callable (``assertRaises(X, f, a)``, ``lambda: f(a)``)."""

    statement: ast.stmt | None = None
    bound: dict | None = None
    expect_raise: str | None = None
    expect_match: str | None = None
    raising_call: ast.expr | None = None
    raised_as: dict | None = None  # name of ``with pytest.raises(X) as name`` -> (X, the first statement under it)
    patched: list | None = None  # what the test changed around the call (``patches``)
    # name -> (the value it was made as, the statements that changed it since: ``made_in_steps``)
    steps: dict | None = None


def raises_call(call: ast.Call) -> tuple[str, str | None, ast.expr | None] | None:
    """(exception, pattern, the call made) of ``pytest.raises(...)``/``self.assertRaises*(...)``, else None."""
    name = attr_name(call.func)
    if name not in RAISES or not call.args:
        return None
    regex = name.endswith(("Regex", "Regexp"))
    pattern = next((k.value for k in call.keywords if k.arg in ("match", "expected_regex")), None)
    if regex and len(call.args) > 1:
        pattern = call.args[1]
    rest = call.args[2 if regex else 1:]
    made = None
    if rest:
        func, args = rest[0], rest[1:]
        made = func.body if isinstance(func, ast.Lambda) else ast.Call(func=func, args=list(args), keywords=[
            k for k in call.keywords if k.arg not in ("match", "msg", "expected_regex")])
    shown = ast.literal_eval(pattern) if isinstance(pattern, ast.Constant) and isinstance(pattern.value, str) \
        else None
    return ast.unparse(call.args[0]), shown, made


def _param_id(value, ids=None) -> str | None:
    """pytest's id for one parametrize value: ``ids=str``/``repr`` applied to a literal, else the value itself
    for strings (non-ASCII escaped, as pytest does), numbers, booleans and None; None when pytest would use
    ``argname<index>``."""
    if isinstance(ids, ast.Name) and is_literal(value):
        try:
            shown = (str if ids.id == "str" else repr)(ast.literal_eval(value))
        except (ValueError, SyntaxError, TypeError):
            return None
        return shown.encode("unicode_escape").decode("ascii") if ids.id == "str" else shown
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) and isinstance(value.operand, ast.Constant):
        return "-" + str(value.operand.value)
    if isinstance(value, ast.Constant) and isinstance(value.value, str | int | float | bool | type(None)):
        shown = str(value.value)
        return shown.encode("unicode_escape").decode("ascii") if isinstance(value.value, str) else shown
    return None


def parametrized(func, case: str, tree: ast.Module | None = None) -> dict:
    """The values a ``@pytest.mark.parametrize`` test ran with in the case whose id is ``case`` (the ``[...]``
    of its node id): argument name -> value expr. Values are literal lists (or module-level names bound to
    one) that pytest shows as they are, or ``pytest.param(..., id=...)``; stacked decorators join their ids
    with ``-``, the one nearest the function first (pytest's order). Anything else gives {}."""
    options = []
    for decorator in reversed(func.decorator_list):
        if isinstance(decorator, ast.Call) and attr_name(decorator.func) == "parametrize":
            found = _cases(decorator, tree)
            if not found:
                return {}
            options.append(found)
    combos = [("", {})]
    for found in options:
        combos = [((f"{i}-{j}" if i else j), {**a, **b}) for i, a in combos for j, b in found][:2000]
    return next((bound for shown, bound in combos if shown == case), {}) if options else {}


def _cases(decorator: ast.Call, tree) -> list[tuple[str, dict]]:
    """(id, argument name -> value) for each case of one parametrize decorator; [] when unknown."""
    if len(decorator.args) < 2:
        return []
    ids_kw = next((k.value for k in decorator.keywords if k.arg == "ids"), None)
    if ids_kw is not None and not (isinstance(ids_kw, ast.Name) and ids_kw.id in ("str", "repr")) and not (
            isinstance(ids_kw, ast.List | ast.Tuple) and all(isinstance(e, ast.Constant) for e in ids_kw.elts)):
        return []
    names_node, values = decorator.args[0], decorator.args[1]
    if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
        names = [n.strip() for n in names_node.value.split(",") if n.strip()]
    elif isinstance(names_node, ast.List | ast.Tuple):
        names = [n.value for n in names_node.elts if isinstance(n, ast.Constant)]
    else:
        return []
    if isinstance(values, ast.Name) and tree is not None:  # a module-level constant list
        values = next((n.value for n in tree.body if isinstance(n, ast.Assign | ast.AnnAssign) and n.value is not None
                       and any(isinstance(t, ast.Name) and t.id == values.id
                               for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))), None)
    if not isinstance(values, ast.List | ast.Tuple):
        return []
    found = []
    for index, entry in enumerate(values.elts):
        given = None
        if isinstance(entry, ast.Call) and attr_name(entry.func) == "param":
            given = next((k.value.value for k in entry.keywords if k.arg == "id" and isinstance(k.value, ast.Constant)),
                         None)
            entry = ast.Tuple(elts=list(entry.args), ctx=ast.Load()) if len(names) > 1 else (
                entry.args[0] if entry.args else None)
        parts = list(entry.elts) if len(names) > 1 and isinstance(entry, ast.Tuple | ast.List) else [entry]
        if entry is None or len(parts) != len(names):
            return []
        shown = [_param_id(p, ids_kw) for p in parts]  # an empty string's id is "" (``test_args4-``)
        ids = [f"{n}{index}" if x is None else x for x, n in zip(shown, names)]
        if isinstance(ids_kw, ast.List | ast.Tuple):
            given = str(ids_kw.elts[index].value) if index < len(ids_kw.elts) else None
        found.append((given if given is not None else "-".join(ids),
                      {n: p for n, p in zip(names, parts) if is_literal(p)}))
    return found


def locate(tree: ast.Module, line: int, test_name: str | None, case: str = "", fixtures: dict | None = None,
           shown: dict | None = None) -> Site:
    """The failing statement at ``line`` (the innermost simple statement covering it; at a ``with`` line, the
    first statement of its body), the names bound before it in its function (``fixtures``: the values of
    ``fixture_values``, for the test's parameters of those names; ``shown``: the locals the run showed,
    ``shown_locals``, for the names the source leaves unknown or binds to what it computes), and what it expects
    raised."""
    func = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno <= line <= (node.end_lineno or 0):
            if func is None or node.lineno >= func.lineno:
                func = node
    if func is None and test_name:
        func = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                     and n.name == test_name), None)
    if func is None:
        return Site()
    site = Site(bound=parametrized(func, case, tree) if case else {})
    for node in ast.walk(func):
        if not isinstance(node, ast.stmt) or node is func or not (node.lineno <= line <= (node.end_lineno or 0)):
            continue
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                raises = raises_call(item.context_expr) if isinstance(item.context_expr, ast.Call) else None
                if raises:
                    site.expect_raise, site.expect_match = raises[0], raises[1]
            if node.lineno == line and len(node.body) == 1:  # of several statements, which one is not known
                site.statement = node.body[0]
        elif not isinstance(node, ast.If | ast.For | ast.AsyncFor | ast.While | ast.Try | ast.FunctionDef
                            | ast.AsyncFunctionDef | ast.ClassDef):
            site.statement = node
            checked = node.value if isinstance(node, ast.Expr) else node.test if isinstance(node, ast.Assert) and \
                isinstance(node.test, ast.Call) else None  # assert raises(E, f): a library's helper (toolz's)
            if checked is not None:  # pytest.raises(E, f, x), also as pytest.raises(...).match("...")
                for call in (n for n in ast.walk(checked) if isinstance(n, ast.Call)):
                    raises = raises_call(call)
                    if raises:
                        site.expect_raise, site.expect_match, site.raising_call = raises
                        break
    for node in ast.walk(func):  # @retry(enabled=False) on a function the test defines: the decorator's call ran
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node is not func:
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and decorator.lineno <= line <= (decorator.end_lineno or 0):
                    site.statement = ast.Expr(value=decorator, lineno=decorator.lineno, col_offset=0)
    for node in tree.body:  # import aliases, as a user spells the module: ``mi`` -> ``more_itertools``
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.asname and alias.asname != alias.name:
                    site.bound[alias.asname] = ast.Name(id=alias.name, ctx=ast.Load())
    before = site.statement.lineno if site.statement else line
    site.raised_as = {}
    for node in ast.walk(func):  # ``with pytest.raises(X) as info:`` before the statement: info is that exception
        if isinstance(node, ast.With | ast.AsyncWith) and node.lineno < before and node.body:
            for item in node.items:
                raises = raises_call(item.context_expr) if isinstance(item.context_expr, ast.Call) else None
                if raises and isinstance(item.optional_vars, ast.Name):
                    site.raised_as[item.optional_vars.id] = (raises[0], node.body[0])
    imported = _imported_names(tree)
    last: dict = {}  # name -> its last assignment before the statement, in line order
    maybe, maybe_names = _conditional(func, before), set()
    for node in sorted((n for n in ast.walk(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
                        and n.lineno < before), key=lambda n: n.lineno):
        for name, value in _unpacked(node.targets[0], node.value):
            if id(node) in maybe:  # `if ".tox" in cwd: cwd = ...`: which value the name holds is not known
                last.pop(name, None)
                maybe_names.add(name)
                continue
            if name not in maybe_names:
                last[name] = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value,
                                        lineno=node.lineno)
    changed = _changed_between(func, before)
    site.steps = {}
    for name, node in last.items():
        if (is_bindable(node.value) or _api_alias(node.value, imported)) and not any(
                node.lineno < line for line in changed.get(name, ())):
            site.bound[name] = node.value  # not when the test changed the object since: its value is not that
        elif is_bindable(node.value) and isinstance(node.value, ast.Call):
            steps = made_in_steps(func, node, before, changed.get(name, ()))
            if steps:
                site.steps[name] = (node.value, steps)
    for name, value in _set_up(tree, func).items():  # self.parser = Parser() in setUp: `self.parser` stands for it
        if name.split(".", 1)[1] not in {n.split(".", 1)[1] for n in _self_changes(func)}:
            site.bound.setdefault(name, value)
    for arg in func.args.args + func.args.kwonlyargs:  # a fixture that returns a plain value or call
        if arg.arg not in site.bound and arg.arg in (fixtures or {}):
            site.bound[arg.arg] = fixtures[arg.arg]
    known = set(site.bound) | imported | set(dir(builtins)) | {n.name for n in tree.body if isinstance(
        n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    for name, value in (shown or {}).items():  # what the run showed, for names the source leaves unknown or
        if name not in site.bound or _opaque(site.bound[name], known):  # binds to what a reader cannot see
            site.bound[name] = value
    site.patched = patches(func, site.bound, line)
    return site



def _conditional(func, line: int) -> set[int]:
    """The ``id`` of each assignment of ``func`` that runs only under a condition (an ``if``/``while``/``for``/
    ``try`` branch, a ``match`` case) not holding ``line``: whether it ran before that line is not known from
    the source."""
    found: set[int] = set()
    for node in ast.walk(func):
        if not isinstance(node, ast.If | ast.For | ast.AsyncFor | ast.While | ast.Try | ast.Match):
            continue
        if node.lineno <= line <= (node.end_lineno or 0):
            continue  # the statement is inside: its own branch ran
        found.update(id(n) for n in ast.walk(node) if isinstance(n, ast.Assign))
    return found


def _unpacked(target, value) -> list[tuple[str, ast.expr]]:
    """The names an assignment binds and what each stands for: ``x = v`` -> [(x, v)]; ``p, = f()`` ->
    [(p, ``f()[0]``)]; ``a, b = (1, 2)`` -> [(a, 1), (b, 2)]; nothing for a starred or nested target."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if not isinstance(target, ast.Tuple | ast.List) or not all(isinstance(e, ast.Name) for e in target.elts):
        return []
    if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts):
        return [(e.id, v) for e, v in zip(target.elts, value.elts)]
    return [(e.id, ast.Subscript(value=value, slice=ast.Constant(value=i), ctx=ast.Load()))
            for i, e in enumerate(target.elts)]


_LOCAL = re.compile(r"^L (\w+) = (.+)$", re.M)


def shown_locals(text: str) -> dict:
    """The test function's locals a failure's digest shows (``runtime_verifier.local_lines``: ``L name = repr``
    lines, from pytest's ``--showlocals``), name -> value expr, for values a user could type and the call under
    test cannot have changed: constants (strings, bytes, numbers, booleans, None) and tuples of them, never a
    value pytest cut short (``saferepr`` puts ``...`` in one longer than 240 characters)."""
    found = {}
    for name, shown in _LOCAL.findall(text):
        if name == "self" or (len(shown) >= 200 and "..." in shown):
            continue
        try:
            value = ast.parse(shown, mode="eval").body
        except (SyntaxError, ValueError):
            continue
        if _immutable(value):
            found[name] = value
    return found


def _immutable(node) -> bool:
    if isinstance(node, ast.Tuple):
        return all(_immutable(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, int | float)
    return isinstance(node, ast.Constant)


_READS = {"open", "read", "read_text", "read_bytes", "readline", "readlines", "decode", "load", "getenv"}


def _opaque(value, known: set) -> bool:
    """``value`` (a bound name's expression) is not what a reader of the test sees it hold: it uses a name not
    in ``known`` (a loop variable, a parameter) or reads a file or the environment (``open(...).read()``,
    ``path.read_text()``)."""
    for node in ast.walk(value):
        if isinstance(node, ast.Name) and node.id not in known:
            return True
        if isinstance(node, ast.Call) and attr_name(node.func) in _READS:
            return True
    return False


SET_UP = ("setUp", "setup_method", "setUpClass", "setup_class", "asyncSetUp")


def _set_up(tree: ast.Module, func) -> dict:
    """``self.name`` -> value for what the test method's class sets up before each test (``setUp``,
    ``setup_method``, ``setUpClass``/``setup_class`` with ``cls.name``): its own top-level assignments of a literal
    or a call. ``{}`` for a test that is not a method."""
    owner = next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and func in n.body), None)
    found: dict = {}
    for method in owner.body if owner else ():
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) or method.name not in SET_UP:
            continue
        for node in method.body:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
                    target.value.id in ("self", "cls") and is_bindable(node.value):
                found["self." + target.attr] = node.value
    return found


def _self_changes(func) -> set[str]:
    """``self.name`` for each attribute the test method itself assigns or changes in place (``_changes``)."""
    found = set()
    for _, target in _changes(func):
        while isinstance(target, ast.Subscript | ast.Attribute | ast.Call) and not (
                isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
            target = target.func if isinstance(target, ast.Call) else target.value
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            found.add("self." + target.attr)
    return found


def made_in_steps(func, made: ast.Assign, before: int, lines) -> list[ast.stmt] | None:
    """The statements of the test function's own body that change an object in place between its assignment
    ``made`` and line ``before``, in order; ``lines``: where the test changes it (``_changed_between``: an item or
    attribute assigned or deleted, an augmented assignment, a method called as a statement). A ``for`` loop of
    that body (no ``else``) whose statements are all such changes is one step. None when a change stands
    anywhere else (in a branch, a ``with``, a loop that does more) or there is none."""
    own = {n.lineno: n for n in func.body if made.lineno < n.lineno < before}
    lines = sorted({line for line in lines if made.lineno < line < before})
    steps: list[ast.stmt] = []
    for line in lines:
        step = own.get(line) or next((n for n in own.values() if isinstance(n, ast.For) and not n.orelse and
                                      n.lineno < line <= (n.end_lineno or 0) and
                                      all(s.lineno in lines for s in n.body)), None)
        if step is None:
            return None
        if step not in steps:
            steps.append(step)
    return steps or None


def _changes(func):
    """(statement, target) for each thing the function changes in place: an item or attribute assigned or deleted
    (``doc["a"] = x``, ``del doc.b``), an augmented or annotated assignment (``x |= {1}``), a method called as a
    statement (``doc.append(x)``: its receiver), a ``for`` target."""
    for node in ast.walk(func):
        targets = []
        if isinstance(node, ast.Assign):
            targets = [t for t in node.targets if isinstance(t, ast.Attribute | ast.Subscript)]
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func,
                                                                                           ast.Attribute):
            targets = [node.value.func.value]
        elif isinstance(node, ast.For | ast.AsyncFor):
            targets = [node.target]
        for target in targets:
            yield node, target


def _changed_between(func, before: int) -> dict[str, list[int]]:
    """The names the test function changes in place before line ``before`` (``_changes``), with the lines. An
    object so changed no longer is the value its name was bound to."""
    found: dict[str, list[int]] = {}
    for node, target in _changes(func):
        while isinstance(target, ast.Attribute | ast.Subscript | ast.Call):
            target = target.func if isinstance(target, ast.Call) else target.value
        if node.lineno < before and isinstance(target, ast.Name):
            found.setdefault(target.id, []).append(node.lineno)
    return found


def _imported_names(tree: ast.Module) -> set[str]:
    """The names the test module's top-level imports bind (``import pkg.mod`` binds ``pkg``)."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _api_alias(value, imported: set[str]) -> bool:
    """``value`` is an attribute of an imported name (``b2h = strutils.bytes2human``): the test's short name for
    the public API, shown as the API itself."""
    if not isinstance(value, ast.Attribute):
        return False
    root = value
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and root.id in imported


def callee_of(text: str, test_path: str) -> str | None:
    """The function the traceback entered after the test's own frame: the next ``def name(`` source line or
    ``path:line: in name`` frame line (pytest's long and short entries)."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.replace("\\", "/").startswith(test_path + ":")), None)
    for line in lines[start + 1:] if start is not None else ():
        m = re.match(r"^\s*(?:async\s+)?def (\w+)\(", line) or re.match(r"^[\w./\\-]+\.py:\d+: in (\w+)$", line)
        if m:
            return m.group(1)
    return None


def _text(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    try:
        return ast.unparse(node)
    except (ValueError, TypeError):
        return None


def _replacement(value) -> str:
    """" by `x`" for what a test put in place of an attribute, when a reader can take it as it is: a short
    literal, a function returning one (``lambda: "pp"``: " by a function returning `'pp'`"), a literal dict's
    ``get`` (" by a lookup in `{'A': 1}`"); "" for anything else."""
    def short(node):
        text = ast.unparse(node)
        return f"`{text}`" if is_literal(node) and len(text) <= 60 else None
    if isinstance(value, ast.Lambda) and not value.args.args and short(value.body):
        return f" by a function returning {short(value.body)}"
    if isinstance(value, ast.Attribute) and value.attr == "get" and isinstance(value.value, ast.Dict) and \
            short(value.value):
        return f" by a lookup in {short(value.value)}"
    return f" by {short(value)}" if short(value) else ""


# what sets the clock a test sees: freezegun's ``freeze_time`` (decorator, ``with`` or pytest-freezegun's
# ``mark.freeze_time``), pytest-freezer's ``freezer.move_to``, time-machine's ``travel``
_CLOCKS = ("freeze_time", "move_to", "travel")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def _clock(text: str) -> str | None:
    """A frozen clock's time (an ISO 8601 text, as the test gives it) as a user would write it: "15 October
    2023, 23:00 UTC", "1 January 2020" (midnight), "UTC+11:00" for another offset; a time without an offset is
    UTC, as freezegun takes it. Written in words, never as the test's literal (which the n-gram audit would
    find copied). None when the text is not ISO 8601."""
    from datetime import datetime

    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    day = f"{when.day} {_MONTHS[when.month - 1]} {when.year}"
    if (when.hour, when.minute, when.second, when.microsecond) == (0, 0, 0, 0) and when.tzinfo is None:
        return day
    offset = when.utcoffset()
    zone = "UTC"
    if offset:
        minutes = int(offset.total_seconds()) // 60
        zone = f"UTC{'+' if minutes > 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    clock = f"{when.hour:02d}:{when.minute:02d}" + (f":{when.second:02d}" if when.second else "")
    return f"{day}, {clock} {zone}"


def patches(func, bound: dict | None = None, before: int | None = None) -> list[str]:
    """What the test function changes around the code it calls, as a user would say it: ``monkeypatch.setenv``
    ("`XDG_DATA_DIRS` set to `':'`"), ``delenv`` ("`HOME` unset"), ``monkeypatch.setattr`` and ``mock.patch`` /
    ``mocker.patch`` / ``patch.object`` / ``patch.dict`` in calls, ``with`` items or decorators ("`sys.prefix`
    replaced"; by what, when it is a short literal, a function returning one or a literal dict's ``get``:
    ``_replacement``), the clock a test sets ("the current time set to 15 October 2023, 23:00 UTC": ``_CLOCKS``,
    ``_clock``). Names and values are read with ``bound`` (the parametrized case's values,
    ``spans.folded``); a value is told only when it is a short literal. ``before``: a line; only the changes
    made above it count (what the test changes after the failing line did not hold when it failed)."""
    bound = bound or {}
    found: list[str] = []
    nodes = [d for d in func.decorator_list if isinstance(d, ast.Call)] + [
        n for n in ast.walk(func) if isinstance(n, ast.Call) and (before is None or n.lineno < before)]
    for call in nodes:
        name, owner = attr_name(call.func), call.func.value if isinstance(call.func, ast.Attribute) else None
        args = call.args
        said = None
        key = folded(args[0], bound) if name in ("setenv", "delenv") and args else None
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            value = folded(args[1], bound) if name == "setenv" and len(args) > 1 else None
            shown = f" set to `{ast.unparse(value)}`" if value is not None and is_literal(value) and len(
                ast.unparse(value)) <= 40 else (" set" if name == "setenv" else " unset")
            said = f"the environment variable `{key.value}`{shown}"
        elif name == "setattr" and isinstance(owner, ast.Name) and owner.id == "monkeypatch" and args:
            target = _text(args[0]) if isinstance(args[0], ast.Constant) or len(args) < 3 else \
                f"{_text(args[0])}.{_text(args[1])}"
            said = f"`{target}` replaced{_replacement(args[-1]) if len(args) > 1 else ''}" if target else None
        elif name == "patch" and args and isinstance(args[0], ast.Constant):
            said = f"`{args[0].value}` replaced"
        elif name == "object" and isinstance(owner, ast.Attribute) and owner.attr == "patch" and len(args) > 1:
            said = f"`{_text(args[0])}.{_text(args[1])}` replaced"
        elif name == "dict" and isinstance(owner, ast.Attribute) and owner.attr == "patch" and args:
            said = f"`{_text(args[0])}` changed"
        elif name in _CLOCKS and args:
            when = folded(args[0], bound)
            said = f"the current time set to {_clock(when.value)}" if isinstance(when, ast.Constant) and \
                isinstance(when.value, str) and _clock(when.value) else None
        if said and said not in found:
            found.append(said)
    return found
