"""The package tree is layered: imports only go down. The order is written once, here (bottom first); a module
may import its own subpackage and the subpackages of lower layers, never a higher one. Every import counts, the
ones inside functions too. The graders import nothing but the standard library and each other (they ship into
bundles), and the pipelines import only ``repo2env.pipeline`` (the plugin API and the kits it re-exports)."""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "repo2env"

LAYERS = ["core", "graders", "bundles", "sources", "instructions", "changes", "environment", "languages", "publish",
          "checks", "export", "gym", "tasks", "pipeline", "run", "build", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}


def _unit(module: str) -> str:
    """``repo2env.a.b`` -> ``a``; ``repo2env`` itself (``__version__``, ``SPEC_VERSION``) is the bottom."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "core"


def _imports(path: Path, module: str, *, top_level_only: bool = False) -> list[tuple[int, str]]:
    """The ``repo2env`` modules ``path`` imports (line, dotted name), relative imports resolved; a name imported
    from a package counts as that module when it is one. ``top_level_only``: leave out imports deferred into
    functions."""
    tree = ast.parse(path.read_text(), filename=str(path))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "repo2env"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "repo2env":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                rel = sub.replace(".", "/")
                is_module = (ROOT / f"{rel}.py").exists() or (ROOT / rel).is_dir()
                found.append((node.lineno, sub if is_module else target))
    return found


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        if "templates" in path.relative_to(PACKAGE).parts:
            continue  # files shipped into containers, never imported
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield path, ".".join(parts)


def test_every_subpackage_has_a_layer():
    units = {p.name.removesuffix(".py") for p in PACKAGE.iterdir()
             if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.name != "__init__.py")}
    assert units - set(LAYERS) == set(), "add the new subpackage to LAYERS"


def test_no_import_goes_up():
    upward = []
    for path, module in _modules():
        own = _unit(module)
        for line, target in _imports(path, module):
            other = _unit(target)
            if other != own and RANK[other] > RANK[own]:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {own} imports {target} ({other} is higher)")
    assert upward == []


def test_no_cycle_between_modules():
    """Module-level imports (not the ones deferred into functions) form no cycle."""
    graph = {module: {t for _, t in _imports(path, module, top_level_only=True) if t != module}
             for path, module in _modules()}
    done, on_path, cycles = set(), [], []

    def visit(node):
        if node in on_path:
            cycles.append(" -> ".join(on_path[on_path.index(node):] + [node]))
            return
        if node in done:
            return
        on_path.append(node)
        for dep in sorted(graph.get(node, ())):
            visit(dep)
        on_path.pop()
        done.add(node)

    for module in sorted(graph):
        visit(module)
    assert cycles == []


def _optional_import_lines(tree: ast.Module) -> set[int]:
    """Lines of imports inside ``try: ... except ImportError`` and its fallback (optional dependencies a grader can
    do without, and old Pythons' fallbacks)."""
    def catches_import_error(handler: ast.ExceptHandler) -> bool:
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        return any(getattr(k, "id", "") in ("ImportError", "ModuleNotFoundError") for k in kinds)

    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(catches_import_error(h) for h in node.handlers):
            parts = node.body + [stmt for h in node.handlers if catches_import_error(h) for stmt in h.body]
            lines |= {n.lineno for part in parts for n in ast.walk(part) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return lines


def test_graders_import_only_the_standard_library():
    stdlib = set(sys.stdlib_module_names)
    siblings = {p.stem for p in (PACKAGE / "graders").glob("*.py")}
    foreign = []
    for path in sorted((PACKAGE / "graders").glob("*.py")):
        tree = ast.parse(path.read_text())
        optional = _optional_import_lines(tree)
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in optional:
                continue
            names = []
            if isinstance(node, ast.Import):
                names = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [(node.module or "").split(".")[0]]
            foreign += [f"{path.name}:{node.lineno}: {n}" for n in names if n not in stdlib | siblings]
    assert foreign == []


def test_pipelines_import_only_the_plugin_api():
    wrong = []
    for path in sorted((ROOT / "pipelines").glob("*.py")):
        for line, target in _imports(path, f"pipelines.{path.stem}"):
            if target != "repo2env.pipeline":
                wrong.append(f"{path.name}:{line}: {target}")
    assert wrong == []


def test_language_support_is_reached_only_through_the_seam():
    """Outside ``repo2env/languages/`` nothing imports a language's own modules (``repo2env.languages.python``
    and below): the core asks ``repo2env.languages`` (``detect``, ``for_commit``, ``load``)."""
    direct = []
    for path, module in _modules():
        if module.startswith("repo2env.languages"):
            continue
        for line, target in _imports(path, module):
            if target.startswith("repo2env.languages."):
                direct.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    assert direct == []
