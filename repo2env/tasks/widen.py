"""The PASS_TO_PASS floor: when the test files a change touches give fewer than ``P2P_FLOOR`` PASS_TO_PASS
tests, breaking other behaviour would cost an agent nothing. The tests of the files that exercise the changed
modules are added then, within a time budget, and the record says how.

1. **Which files**: the repository's test files at the base commit (the language's rule) that import a module
   the gold patch changes (``import pkg.mod`` / ``from pkg import mod`` / ``from pkg.mod import``), most
   mentions of the module first, at most ``MAX_FILES``, none the test patch touches.
2. **Runs**: those files alone, once without and once with the fix, in fresh containers of the task's image;
   only when the task's own runs were quick (``MAX_RUN_SECONDS``).
3. **Kept**: the tests that passed in both runs. The files join the grader's targets and its overlay (their
   base content is put back before grading, as every test file is).

Recorded in ``[metadata.repo2env.<pipeline>].pass_to_pass_widened``: the files, how many tests they added, why.
"""

import re
from pathlib import PurePosixPath

from repo2env.core import gitrepo

P2P_FLOOR = 5
MAX_FILES = 5
MAX_RUN_SECONDS = 120.0  # the slowest of the task's own runs; slower suites are not widened
_SOURCE_ROOTS = ("src/", "lib/", "python/")


def changed_modules(source_files) -> list[str]:
    """Dotted module names of the changed Python source files (``src/pkg/mod.py`` -> ``pkg.mod``)."""
    found = []
    for path in source_files:
        if not path.endswith(".py"):
            continue
        rel = next((path[len(root):] for root in _SOURCE_ROOTS if path.startswith(root)), path)
        module = rel[:-3].replace("/", ".").removesuffix(".__init__")
        if module and module not in found:
            found.append(module)
    return found


def _mentions(text: str, module: str) -> int:
    """How strongly ``text`` (a test file) exercises ``module``: 0 when it does not import it."""
    package, _, leaf = module.rpartition(".")
    imports = re.search(rf"^\s*(?:import\s+{re.escape(module)}\b|from\s+{re.escape(module)}\s+import\b" + (
        rf"|from\s+{re.escape(package)}\s+import\s+[^\n]*\b{re.escape(leaf)}\b" if package else "") + ")",
        text, re.M)
    if not imports:
        return 0
    return 1 + len(re.findall(rf"\b{re.escape(leaf or module)}\b", text))


def widening_files(repo_path: str, base_commit: str, base_tree: dict, source_files, exclude, language) -> list[str]:
    """The test files that exercise the changed modules (module docstring, step 1)."""
    modules = changed_modules(source_files)
    if not modules:
        return []
    scored = []
    for rel, entry in base_tree.items():
        name = PurePosixPath(rel).name
        if rel in exclude or not entry.startswith("100") or not name.endswith(".py") or "test" not in rel.lower():
            continue
        text = gitrepo.show_file(repo_path, base_commit, rel) or ""
        if not language.is_runnable_test_file(rel, text):
            continue
        score = sum(_mentions(text, m) for m in modules)
        if score:
            scored.append((-score, rel))
    return [rel for _, rel in sorted(scored)[:MAX_FILES]]


def kept_tests(files: list[str], before, after) -> list[str]:
    """Node ids of ``files`` that passed in the run without and the run with the fix."""
    prefixes = tuple(f + "::" for f in files)
    return sorted(t for t, outcome in after.outcomes.items() if t.startswith(prefixes) and outcome == "passed"
                  and before.outcomes.get(t) == "passed")
