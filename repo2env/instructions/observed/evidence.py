"""What the grading tests saw before the fix, as the runtime pipelines collect it (``tasks.runtime.evidence``),
the names the test files define (never the public API a user calls), and the names the fix defines (the
interface the task asks for, which may be named even when a test is named after it)."""

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Evidence:
    """What the grading tests saw before the fix: ``failures`` (node id -> failure message and traceback
    head), ``import_errors`` (test file -> the error that stopped its collection), the FAIL_TO_PASS ids, and
    ``test_sources`` (test file -> its text with the test patch applied), ``interface``: the names the gold
    patch defines (``interface_names``), and ``test_modules``: the module names of every test file of the
    repository (``module_names_of``), whose functions are the tests' own, never the API; ``test_patch_lines``:
    the added lines of the test patch, its data files' too (``leak_audit.added_lines``), which no code span may
    copy ``leak_audit.DEFAULT_NGRAM`` tokens of (the audit's rule)."""

    failures: dict
    import_errors: dict
    fail_to_pass: tuple
    test_sources: dict
    interface: frozenset = field(default_factory=frozenset)
    test_modules: frozenset = field(default_factory=frozenset)
    test_patch_lines: tuple = ()


def module_name(path: str) -> str:
    """The dotted module name of a Python file's path from the repository's root (``tests/helpers/fakes.py`` ->
    ``tests.helpers.fakes``; a package's ``__init__.py`` names the package); "" for a path that is not ``.py``."""
    if not path.endswith(".py"):
        return ""
    parts = path[:-3].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_names_of(paths: Iterable[str]) -> frozenset:
    """The names a test module may be imported by, for each Python file of ``paths`` (the repository's test
    files: ``tests/helpers/fakes.py`` -> ``tests.helpers.fakes``, ``helpers.fakes``, ``fakes``: pytest puts a
    test file's folder, or its root folder, on ``sys.path``); a package's ``__init__.py`` names the package."""
    names = set()
    for path in paths:
        parts = module_name(path).split(".")
        names.update(".".join(parts[i:]) for i in range(len(parts)))
    return frozenset(n for n in names if n)


# a definition's name on a line: fn/def/func/class/struct/... NAME, and Java/TypeScript-style methods
_DEFINES = re.compile(r"\b(?:fn|def|func|function|class|struct|enum|trait|interface|type|record)\s+"
                      r"(?:\([^)]*\)\s*)?([A-Za-z_]\w*)")
_METHOD = re.compile(r"^\s*(?:(?:public|protected|private|static|final|abstract|synchronized|async|export|default|"
                     r"pub(?:\([^)]*\))?|const)\s+)+[\w<>\[\], ?.]*?\b([A-Za-z_]\w*)\s*\(")


def interface_names(gold_patch: str) -> frozenset:
    """The names the gold patch newly defines (on its added lines and none of its removed ones: functions,
    methods, types): what the task asks a solver to provide; an edited definition (a mutant's fix) adds none. A feature's tests are often named after it (Rust crates keep a test module per method), and
    the instruction may still name the function it asks for: that is the interface, not the grading tests."""
    added, removed = set(), set()
    for line in gold_patch.splitlines():
        if line[:1] in "+-" and not line.startswith(("+++", "---")):
            found = set(_DEFINES.findall(line[1:])) | set(_METHOD.findall(line[1:]))
            (added if line[0] == "+" else removed).update(found)
    return frozenset(n for n in added - removed if len(n) > 2)


def helper_names(sources: Iterable[str]) -> set[str]:
    """Names the test files define (functions, classes, assigned names, fixtures, parameters): a call to one
    of them is the tests' own machinery, never the public API a user calls."""
    names: set[str] = set()
    for text in sources:
        tree = parse_source(text)
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.update(a.arg for a in node.args.args + node.args.kwonlyargs)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


def defined_names(sources: Iterable[str]) -> set[str]:
    """The functions and classes the test files define (their tests, helpers and fixtures)."""
    names: set[str] = set()
    for text in sources:
        tree = parse_source(text)
        names.update(node.name for node in ast.walk(tree) if isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)) if tree else None
    return names


def relative_imports(sources: dict) -> list[str]:
    """The Python files the test files of ``sources`` (path -> text) import relatively and that are not among
    them (``from . import tomllib`` in ``tests/test_x.py`` -> ``tests/__init__.py``; ``from .helpers import make``
    -> ``tests/helpers.py`` and ``tests/helpers/__init__.py``: whichever exists), sorted."""
    found = set()
    for path, text in sources.items():
        tree = parse_source(text) if path.endswith(".py") else None
        for node in tree.body if tree else ():
            if isinstance(node, ast.ImportFrom) and node.level:
                folder = path.split("/")[:-node.level] if node.level <= path.count("/") + 1 else None
                if folder is None:
                    continue
                parts = folder + (node.module.split(".") if node.module else [])
                base = "/".join(parts)
                found.update({f"{base}.py", f"{base}/__init__.py"} if node.module else {
                    "/".join(parts + ["__init__.py"])})
    return sorted(p.lstrip("/") for p in found if p.lstrip("/") not in sources)


def reexports(sources: Iterable[str]) -> dict[str, str]:
    """Names a test module binds to a module by importing it (``import tomli as tomllib`` in ``tests/__init__.py``,
    so that the tests can run against another module): name -> the module's dotted name. A test imports the name
    relatively (``from . import tomllib``), and it stands for that module, the API under test."""
    found = {}
    for text in sources:
        tree = parse_source(text)
        for node in tree.body if tree else ():
            if isinstance(node, ast.Import):
                found.update({a.asname: a.name for a in node.names if a.asname})
    return found


def parse_source(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None
