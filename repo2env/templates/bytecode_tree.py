"""Build step of a Python task image (repo2env.environment.images): compile into the bytecode tree named by the
first argument (a ``PYTHONPYCACHEPREFIX`` layout) the modules of the standard library and installed packages
that the repository's test collection imports, so that the test runs of generation and grading read them instead
of compiling them afresh (about 1 s a run).

- Which modules: ``pytest --collect-only`` runs on a copy of /workspace (no .git; nothing it writes reaches the
  work tree) with a scratch bytecode prefix; every module it compiled there whose source lies in the
  interpreter's own folders (stdlib, platstdlib, purelib, platlib) is taken. The repository's own modules are
  never taken: they are compiled afresh whenever they run.
- How: ``py_compile`` in ``CHECKED_HASH`` mode (PEP 552: the pyc holds the source's hash, not its mtime, and the
  import checks it), in sorted order, under ``PYTHONHASHSEED=0`` (the Dockerfile step sets it), so the same
  sources give the same bytes on every build: the environment manifest that records them (python_env.json) is
  reproducible.
- Every file and folder ends root's and writable by no one else: the grader reads the tree only then, and only
  when the manifest records it whole (runtime_verifier.pinned_bytecode).

Whatever fails leaves a tree with less in it, never a failed build."""

import importlib.util
import os
import py_compile
import shutil
import subprocess
import sys
import sysconfig
import tempfile

tree = os.path.abspath(sys.argv[1])
paths = sysconfig.get_paths()
keep = sorted({f(paths[k]) for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths
               for f in (os.path.abspath, os.path.realpath)})
suffix = "." + sys.implementation.cache_tag + ".pyc"
scratch = tempfile.mkdtemp(prefix="r2e-bytecode-")
prefix, copy = os.path.join(scratch, "prefix"), os.path.join(scratch, "workspace")
try:
    shutil.copytree("/workspace", copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"], cwd=copy,
                   env=dict(os.environ, PYTHONPYCACHEPREFIX=prefix), stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
except (OSError, shutil.Error, subprocess.SubprocessError):
    pass
sources = set()
for folder, _, names in os.walk(prefix):
    for name in names:
        source = os.path.join(folder[len(prefix):] or "/", name[:-len(suffix)] + ".py")
        if name.endswith(suffix) and "-" not in name[:-len(suffix)] and os.path.isfile(source) \
                and any(source.startswith(k + os.sep) for k in keep):
            sources.add(source)
shutil.rmtree(scratch, ignore_errors=True)
sys.pycache_prefix = tree
for source in sorted(sources):
    try:
        py_compile.compile(source, cfile=importlib.util.cache_from_source(source), doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    except (OSError, py_compile.PyCompileError, ValueError):
        pass
os.makedirs(tree, exist_ok=True)
for folder, dirs, names in os.walk(tree):
    os.chmod(folder, 0o755)
    for name in names:
        os.chmod(os.path.join(folder, name), 0o644)
for path in (tree, os.path.dirname(tree)):
    os.chown(path, 0, 0)
    os.chmod(path, 0o755)
