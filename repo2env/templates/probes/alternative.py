"""A behaviour-preserving rewrite of Python files, in place: locals renamed in every function where that is safe,
and the whole file reformatted by ast.unparse (comments dropped, layout normalised). Files that are not Python,
or do not parse, are left as they are. On a Python without ast.unparse (3.8) the rewrite is a comment and a
blank line appended to each file (still not byte-identical, still the same behaviour)."""
import ast
import sys

UNSAFE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Global, ast.Nonlocal, ast.Import,
          ast.ImportFrom) + ((ast.Match,) if hasattr(ast, "Match") else ())
DYNAMIC = {"locals", "vars", "eval", "exec", "globals", "dir"}


def renamable(fn):
    body = [n for stmt in fn.body for n in ast.walk(stmt)]
    if any(isinstance(n, UNSAFE) for n in body):
        return set()
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in DYNAMIC for n in body):
        return set()
    args = {a.arg for a in fn.args.args + fn.args.kwonlyargs + getattr(fn.args, "posonlyargs", [])}
    args |= {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None}
    stored = {n.id for n in body if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    stored |= {n.name for n in body if isinstance(n, ast.ExceptHandler) and n.name}
    # a comprehension's target has its own scope; the same name outside it may be a global: leave such names
    stored -= {n.id for c in body if isinstance(c, ast.comprehension) for n in ast.walk(c.target)
               if isinstance(n, ast.Name)}
    return {name for name in stored - args if not name.startswith("__")}


def rename(fn, names):
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in names:
            node.id = node.id + "_r2e"
        elif isinstance(node, ast.ExceptHandler) and node.name in names:
            node.name = node.name + "_r2e"


def rewrite(path):
    try:
        with open(path) as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = renamable(node)
            if names:
                rename(node, names)
    if hasattr(ast, "unparse"):
        text = ast.unparse(tree) + "\n"
    else:
        with open(path) as handle:
            text = handle.read() + "\n\n# rewritten by the valid_alternative probe\n"
    with open(path, "w") as handle:  # the text is ready before the file is truncated
        handle.write(text)
    return True


if __name__ == "__main__":
    done = [p for p in sys.argv[1:] if p.endswith(".py") and rewrite(p)]
    print("rewrote %d file(s)" % len(done))
