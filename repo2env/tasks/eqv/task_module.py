"""The ``task_module.py`` variants of one function: the stub the agent starts from, the reference copy (the
oracle), a delegating stub and mutants (for the strength gate), and the repository module with the body removed
(``reference=hidden``).

Every variant starts with the same header: ``from __future__ import annotations`` (annotations are not evaluated)
and ``from <module> import <names>`` for the module globals the function uses, so the reference body runs
unchanged in ``task_module.py``.
"""

import ast
import textwrap

from repo2env.tasks.eqv.discover import FunctionCandidate


def header(fn: FunctionCandidate) -> str:
    lines = [f'"""Task module: implement `{fn.name}` (see instruction.md)."""', "", "from __future__ import annotations"]
    if fn.free_names:
        lines.append(f"from {fn.module} import {', '.join(fn.free_names)}  # noqa: F401")
    return "\n".join(lines) + "\n\n\n"


def _docstring_block(fn: FunctionCandidate) -> str:
    if not fn.docstring:
        return ""
    quoted = fn.docstring.replace('"""', '\\"\\"\\"')
    return textwrap.indent(f'"""{quoted}\n"""\n', "    ")


def stub(fn: FunctionCandidate) -> str:
    """The starting state: signature and docstring, body raising ``NotImplementedError``."""
    return header(fn) + f"{fn.signature}:\n" + _docstring_block(fn) + "    raise NotImplementedError\n"


def reference_copy(fn: FunctionCandidate) -> str:
    """The oracle: the reference function's own source under the header."""
    return header(fn) + textwrap.dedent(fn.source)


def delegating(fn: FunctionCandidate) -> str:
    """A stub that calls the repository's original (must fail: the original is blocked when grading)."""
    call = ", ".join(fn.arg_names)
    return (header(fn) + f"{fn.signature}:\n    from {fn.module} import {fn.name} as original\n"
            f"    return original({call})\n")


def with_body(fn: FunctionCandidate, function_source: str) -> str:
    """``task_module.py`` holding another version of the function (a mutant)."""
    return header(fn) + function_source


def strip_from_module(module_text: str, fn: FunctionCandidate) -> str:
    """The repository module with ``fn``'s body replaced by ``raise NotImplementedError`` (docstring kept)."""
    lines = module_text.splitlines(keepends=True)
    node = next(n for n in ast.parse(module_text).body if isinstance(n, ast.FunctionDef) and n.name == fn.name)
    first = node.body[0]
    keep_doc = isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant) \
        and isinstance(first.value.value, str)
    body_start = (first.end_lineno if keep_doc else first.lineno - 1)
    indent = lines[first.lineno - 1][:len(lines[first.lineno - 1]) - len(lines[first.lineno - 1].lstrip())]
    replaced = lines[:body_start] + [f"{indent}raise NotImplementedError\n"] + lines[node.end_lineno:]
    return "".join(replaced)
