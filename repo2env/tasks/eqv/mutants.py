"""Simple mutants of a reference function, made with ``ast``, to measure how strong the differential tests are.

Operators (one change per mutant): comparison flipped (``<``/``>=``, ``>``/``<=``, ``==``/``!=``, ``is``/``is not``,
``in``/``not in``), integer constant off by one, ``+``/``-`` swapped (also in ``+=``/``-=``), ``and``/``or``
swapped, ``if``/``else`` branches swapped, an ``if`` test negated, a ``return`` or ``yield`` value replaced by
``None``. A mutant that does not change
the unparsed source is dropped.
"""

import ast
import copy
import hashlib

_FLIP = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
         ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}


def _sites(tree: ast.AST) -> list[tuple[str, int]]:
    """(operator, index among the nodes ast.walk yields) for every place a mutant can be made."""
    sites = []
    for i, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in _FLIP:
            sites.append(("compare", i))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            sites += [("plus_one", i), ("minus_one", i)]
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Add, ast.Sub)):
            sites.append(("add_sub", i))
        elif isinstance(node, ast.BoolOp):
            sites.append(("and_or", i))
        elif isinstance(node, ast.If):
            sites.append(("negate_if", i))
            if node.orelse:
                sites.append(("swap_branches", i))
        elif isinstance(node, ast.Return) and node.value is not None:
            sites.append(("return_none", i))
        elif isinstance(node, ast.Yield) and node.value is not None:
            sites.append(("yield_none", i))
    return sites


def _apply(tree: ast.AST, kind: str, index: int) -> ast.AST:
    tree = copy.deepcopy(tree)
    node = list(ast.walk(tree))[index]
    if kind == "compare":
        node.ops[0] = _FLIP[type(node.ops[0])]()
    elif kind == "plus_one":
        node.value += 1
    elif kind == "minus_one":
        node.value -= 1
    elif kind == "add_sub":
        node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
    elif kind == "and_or":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "negate_if":
        node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
    elif kind == "swap_branches":
        node.body, node.orelse = node.orelse, node.body
    elif kind in ("return_none", "yield_none"):
        node.value = ast.Constant(value=None)
    return ast.fix_missing_locations(tree)


def mutants(function_source: str, *, limit: int = 12, seed: int = 0) -> list[tuple[str, str]]:
    """Up to ``limit`` mutants of ``function_source`` (a ``def``) as (description, source), chosen
    reproducibly by ``seed`` among all sites."""
    tree = ast.parse(function_source)
    original = ast.unparse(tree)
    made = []
    for kind, index in _sites(tree):
        source = ast.unparse(_apply(tree, kind, index))
        if source != original and all(source != m for _, m in made):
            made.append((f"{kind}@{index}", source + "\n"))
    made.sort(key=lambda m: hashlib.sha256(f"{seed}:{m[0]}".encode()).hexdigest())
    return made[:limit]
