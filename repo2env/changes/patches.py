"""Split a PR diff into the hidden test patch and the gold (reference) patch, and classify its files.

Which files are test files is the language's rule (``repo2env.languages``; Python's: SWE-bench's convention).
Docs/CI files are recognised so that docs-only PRs can be skipped. Parsing uses ``unidiff``; the two patches themselves are cut by git (``diff -- paths``), so
binary hunks survive byte for byte.
"""

import ast
import fnmatch
import re
from collections.abc import Callable
from pathlib import PurePosixPath

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from repo2env.core import gitrepo
from repo2env.core.records import ChangeSplit

# "releasenotes": reno's notes (releasenotes/notes/<slug>-<hash>.yaml; tenacity, OpenStack): prose about the fix,
# not the fix, so the leak audit must not take the maintainer's words that repeat them for copied code
DOC_DIRS = frozenset({"doc", "docs", "documentation", "changelog.d", "changes", "newsfragments", "releasenotes",
                      "release-notes"})
DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc")
CI_PATTERNS = (".github/*", ".gitlab-ci.yml", ".travis.yml", ".circleci/*", "azure-pipelines.yml",
               ".pre-commit-config.yaml", "appveyor.yml", ".readthedocs.y*ml", "codecov.yml", ".codecov.yml",
               ".coveragerc", ".gitignore", ".gitattributes", ".mailmap", "CODEOWNERS", ".editorconfig")
DOC_NAMES = ("README*", "CHANGELOG*", "CHANGES*", "HISTORY*", "NEWS*", "AUTHORS*", "CONTRIBUTORS*", "LICENSE*",
             "COPYING*")


def is_docs_or_ci_path(path: str) -> bool:
    """True for documentation, changelog and CI configuration files (never needed to make tests pass)."""
    p = PurePosixPath(path)
    if any(part in DOC_DIRS for part in p.parts[:-1]):
        return True
    if any(fnmatch.fnmatch(path, pat) for pat in CI_PATTERNS):
        return True
    if any(fnmatch.fnmatch(p.name, pat) for pat in DOC_NAMES):
        return True
    return p.suffix.lower() in DOC_SUFFIXES and len(p.parts) == 1


def split_change(repo_path, base: str, head: str, is_test_file: Callable[[str], bool],
                 split_source: Callable[[str, str, str], str | None] | None = None) -> ChangeSplit:
    """Split ``base..head`` of the repository at ``repo_path`` into test and gold patches; ``is_test_file`` is
    the language's rule (``Language.is_test_file``) for which paths go into the test patch. ``split_source``
    (``Language.split_source``, optional): for a source file changed on both sides, ``(path, base text, head
    text)`` -> the head text without the change's test part (the reference's version), or None when the file
    holds no test the change edits; such a file is one of ``mixed_files``.

    Raises ``GitError`` if either commit is missing.
    """
    full = gitrepo.diff(repo_path, base, head)
    patch = PatchSet(full)  # split at "\n" only, as git does (a line may hold "\r", "\f" or "\u2028")
    test_files, source_files, docs_ci, created, deleted, binary_tests = [], [], [], [], [], []
    mixed, gold_only = {}, {}
    added = removed = 0
    for pf in patch:
        path = pf.path
        if is_test_file(path):
            test_files.append(path)
            if pf.is_added_file:
                created.append(path)
            if pf.is_removed_file:
                deleted.append(path)
            if pf.is_binary_file:
                binary_tests.append(path)
            continue
        if split_source is not None and not (pf.is_added_file or pf.is_removed_file or pf.is_binary_file):
            before = gitrepo.show_file(repo_path, base, path) or ""
            after = gitrepo.show_file(repo_path, head, path) or ""
            code = split_source(path, before, after)
            if code is not None:
                mixed[path] = (code, after)
                if code == before:
                    continue  # only its tests changed
                gold_only[path] = (before, code)
        (docs_ci if is_docs_or_ci_path(path) else source_files).append(path)
        added += pf.added
        removed += pf.removed
    gold_paths = [p for p in source_files + docs_ci if p not in mixed]
    return ChangeSplit(
        test_patch=gitrepo.diff(repo_path, base, head, test_files) + "".join(
            gitrepo.diff_texts(p, code, after) for p, (code, after) in mixed.items()),
        gold_patch=gitrepo.diff(repo_path, base, head, gold_paths) + "".join(
            gitrepo.diff_texts(p, before, code) for p, (before, code) in gold_only.items()),
        test_files=tuple(test_files), source_files=tuple(source_files), docs_ci_files=tuple(docs_ci),
        test_files_created=tuple(created), test_files_deleted=tuple(deleted), binary_test_files=tuple(binary_tests),
        gold_lines_added=added, gold_lines_removed=removed, mixed_files=tuple(mixed),
    )


_DEF = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z]\w*)")  # public names only


def touched_symbols(gold_patch: str, limit: int = 20) -> list[str]:
    """Public function and class names the gold patch touches, as ``module.name`` (``pkg/mod.py`` -> ``pkg.mod``):
    for each added or removed line, the nearest definition above it in the hunk, else the hunk's section header
    (git's enclosing-definition guess). Private names (leading ``_``) are left out; at most ``limit``, in patch
    order."""
    found: list[str] = []
    try:
        files = PatchSet(gold_patch)
    except UnidiffParseError:
        return found
    for patched in files:
        if not patched.path.endswith(".py"):
            continue
        module = patched.path[:-3].replace("/", ".").removesuffix(".__init__")
        for hunk in patched:
            header = _DEF.match(hunk.section_header or "")
            current = header.group(1) if header else None
            for line in hunk:
                m = _DEF.match(line.value)
                if m:
                    current = m.group(1)
                if (line.is_added or line.is_removed) and current and f"{module}.{current}" not in found:
                    found.append(f"{module}.{current}")
    return found[:limit]


def public_signatures(symbols, source_of, limit: int = 10) -> list[str]:
    """The signatures, at the base commit, of ``symbols`` (``touched_symbols``' ``module.name``): ``source_of``
    maps a repository path to its text (or None); ``pkg.mod.name`` is looked up in ``pkg/mod.py``, then
    ``pkg/mod/__init__.py``. A function gives ``pkg.mod.name(a, b=1)``, a method ``pkg.mod.Class.name(self, x)``,
    a class its ``__init__`` parameters (``pkg.mod.Class(x)``). Names new in the patch (not at the base) and
    unparsable files give nothing; at most ``limit``, in ``symbols`` order."""
    found: list[str] = []
    for symbol in symbols:
        module, _, name = symbol.rpartition(".")
        base = module.replace(".", "/")
        text = source_of(base + ".py") or source_of(base + "/__init__.py")
        try:
            tree = ast.parse(text) if text else None
        except (SyntaxError, ValueError):
            tree = None
        for owner, node in _definitions(tree):
            if node.name != name:
                continue
            prefix = f"{module}.{owner + '.' if owner else ''}{name}"
            if isinstance(node, ast.ClassDef):
                init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
                args = ast.unparse(init.args).removeprefix("self, ").removeprefix("self") if init else ""
                found.append(f"{prefix}({args})")
            else:
                found.append(f"{prefix}({ast.unparse(node.args)})")
            break
        if len(found) >= limit:
            break
    return found


def _definitions(tree):
    """(enclosing class name or "", definition) for the module's functions, classes and methods."""
    for node in tree.body if tree else ():
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield "", node
        if isinstance(node, ast.ClassDef):
            for child in node.body:
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield node.name, child
