"""What the grading tests saw before the fix, as the runtime pipelines collect it (``tasks.runtime.evidence``),
and the names the test files define (never the public API a user calls)."""

import ast
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Evidence:
    """What the grading tests saw before the fix: ``failures`` (node id -> failure message and traceback
    head), ``import_errors`` (test file -> the error that stopped its collection), the FAIL_TO_PASS ids, and
    ``test_sources`` (test file -> its text with the test patch applied)."""

    failures: dict
    import_errors: dict
    fail_to_pass: tuple
    test_sources: dict


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


def parse_source(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None
