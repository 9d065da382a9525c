"""Finding functions worth re-implementing, with ``ast``: public module-level functions of the repository's own
package, of a reasonable size, whose signature a stub can repeat and whose body looks deterministic.

Static purity rules (a function breaking one is not a candidate): no ``global``/``nonlocal``, no ``await``
(generators are candidates: their items are compared), no call of an I/O, clock, randomness or introspection
builtin (``open``, ``print``, ``input``, ``hash``, ``id``, ``eval``, ...), no use of an I/O, clock or randomness
module (``os``, ``sys``, ``time``, ``random``, ``datetime``, ``subprocess``, ``socket``, ...). Determinism is
confirmed later by running the function twice on the same inputs (``casegen``).
"""

import ast
import builtins
import hashlib
from dataclasses import dataclass
from pathlib import PurePosixPath

from repo2env.core import gitrepo

IMPURE_BUILTINS = frozenset({"open", "print", "input", "exec", "eval", "compile", "__import__", "globals", "locals",
                             "vars", "id", "hash", "breakpoint", "setattr", "delattr", "exit", "quit", "help"})
IMPURE_MODULES = frozenset({"os", "sys", "time", "random", "datetime", "subprocess", "socket", "shutil", "pathlib",
                            "requests", "urllib", "http", "logging", "uuid", "secrets", "threading", "asyncio",
                            "tempfile", "io", "multiprocessing", "signal", "glob", "sqlite3", "pickle", "warnings",
                            "platform", "getpass", "locale", "ctypes", "gc", "inspect", "importlib", "weakref"})
EXCLUDED_DIRS = frozenset({"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks", "bench",
                           "scripts", "tools", "build", "dist", "site-packages", ".github"})
EXCLUDED_FILES = frozenset({"setup.py", "conftest.py", "__main__.py", "noxfile.py", "tasks.py", "fabfile.py"})
_BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass(frozen=True)
class FunctionCandidate:
    """One function: ``module`` (dotted), ``name``, ``path`` in the repository, ``lineno``/``end_lineno``
    (1-based, inclusive, decorators excluded), ``arg_names``, ``source`` (the ``def`` and body),
    ``signature`` (the ``def`` line(s) up to the colon, normalised), ``docstring`` and ``free_names`` (module
    globals the body uses, to import into the task module)."""

    module: str
    name: str
    path: str
    lineno: int
    end_lineno: int
    arg_names: tuple[str, ...]
    source: str
    signature: str
    docstring: str
    free_names: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.module}.{self.name}"


def module_name(path: str) -> str | None:
    """``pkg/sub/mod.py`` -> ``pkg.sub.mod`` (``src/`` dropped, ``__init__`` folded); None outside a package."""
    parts = list(PurePosixPath(path).parts)
    if not parts or not parts[-1].endswith(".py") or parts[-1] in EXCLUDED_FILES or parts[-1].startswith("test_"):
        return None
    if parts[0] == "src":
        parts = parts[1:]
    if len(parts) < 2 or any(p in EXCLUDED_DIRS or p.startswith(".") for p in parts[:-1]):
        return None
    parts[-1] = parts[-1][:-3]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _impure(node: ast.FunctionDef) -> str | None:
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Global, ast.Nonlocal)):
            return "global state"
        if isinstance(sub, ast.Await):  # a generator is fine: the harness compares the items it yields
            return "coroutine"
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in IMPURE_BUILTINS:
            return f"calls {sub.func.id}()"
        if isinstance(sub, ast.Name) and sub.id in IMPURE_MODULES:
            return f"uses {sub.id}"
    return None


def _literal_defaults(args: ast.arguments) -> bool:
    for default in list(args.defaults) + [d for d in args.kw_defaults if d is not None]:
        try:
            ast.literal_eval(default)
        except ValueError:
            return False
    return True


def _free_names(node: ast.FunctionDef, module_globals: set[str]) -> tuple[str, ...]:
    local = {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            local.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.ClassDef)) and sub is not node:
            local.add(sub.name)
        elif isinstance(sub, ast.arg):
            local.add(sub.arg)
    used = {s.id for s in ast.walk(node) if isinstance(s, ast.Name) and isinstance(s.ctx, ast.Load)}
    return tuple(sorted(n for n in used - local - {node.name} if n in module_globals and n not in _BUILTIN_NAMES))


def _module_globals(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*")
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def functions_in(path: str, text: str, *, min_lines: int = 3, max_lines: int = 40) -> list[FunctionCandidate]:
    """Candidate functions of one module's source ``text`` (see the module docstring for the rules)."""
    module = module_name(path)
    if module is None:
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    lines = text.splitlines()
    module_globals = _module_globals(tree)
    found = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_") or node.decorator_list:
            continue
        args = node.args
        if args.vararg or args.kwarg or not (args.args or args.posonlyargs) or not _literal_defaults(args):
            continue
        body_lines = node.end_lineno - node.body[0].lineno + 1
        if not min_lines <= body_lines <= max_lines or _impure(node):
            continue
        signature = f"def {node.name}({ast.unparse(args)})" + (f" -> {ast.unparse(node.returns)}" if node.returns else "")
        found.append(FunctionCandidate(
            module=module, name=node.name, path=path, lineno=node.lineno, end_lineno=node.end_lineno,
            arg_names=tuple(a.arg for a in args.posonlyargs + args.args + args.kwonlyargs),
            source="\n".join(lines[node.lineno - 1:node.end_lineno]) + "\n", signature=signature,
            docstring=ast.get_docstring(node) or "", free_names=_free_names(node, module_globals)))
    return found


def discover(repo_path: str, commit: str, *, min_lines: int = 3, max_lines: int = 40) -> list[FunctionCandidate]:
    """Every candidate function of the repository at ``commit``, in path and line order."""
    found: list[FunctionCandidate] = []
    for path in sorted(gitrepo.ls_tree(repo_path, commit)):
        if module_name(path) is None:
            continue
        text = gitrepo.show_file(repo_path, commit, path)
        if text:
            found += functions_in(path, text, min_lines=min_lines, max_lines=max_lines)
    return found


def select(candidates: list[FunctionCandidate], seed: int, limit: int | None) -> list[FunctionCandidate]:
    """A reproducible sample: order by sha256(seed, module.name), keep the first ``limit``."""
    ranked = sorted(candidates, key=lambda c: hashlib.sha256(f"{seed}:{c.key}".encode()).hexdigest())
    return ranked[:limit] if limit is not None else ranked
