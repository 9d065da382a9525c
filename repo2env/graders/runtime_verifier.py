"""Test running, JUnit XML parsing and grading for runtime tasks. Standard library only.

This one module serves two places, byte for byte (a test asserts the copy is identical):

* the generator imports it (node ids, scoring, the inputs digest) and runs it in task containers for the
  FAIL_TO_PASS / PASS_TO_PASS runs (``run``);
* every runtime bundle ships it as ``tests/verifier.py``; ``tests/test.sh`` runs ``verifier.py grade`` inside the
  task container (Harbor uploads ``tests/`` to ``/tests``), or in the separate verifier container (schema 1.3).

It must run on any Python 3.6+ the task image carries, so it avoids newer syntax. ``test.sh`` starts it as
``<the interpreter recorded at generation, by absolute path> -I -S`` (nothing from site-packages, ``.pth`` files or
the environment) under a time limit below Harbor's verifier timeout, and writes a reward of 0 whatever happens.

What ``grade`` trusts, and in what order (the agent was root in this container and may have left processes,
configuration and programs behind; the code under test is the agent's):

1. Every process outside the container's main chain is killed first (``env_guard.kill_strays``), before any input
   is read. Then every grading input (``INPUT_FILES`` and the overlay) is read once into memory and its digest
   compared with the one ``test.sh`` carries (rendered at generation): inputs rewritten after upload grade 0.
2. The Python environment is compared with ``python_env.json`` (``env_guard.compare``: regular files only, bounded
   reads); any change grades 0 without running a test. The task image's bytecode tree (``BYTECODE_TREE``), a
   cache root of the manifest, is what pytest then reads for the standard library and packages when nothing
   in it changed (``pinned_bytecode``); otherwise every module is compiled afresh (a changed cache is not a
   reason to grade 0: deleting it solves nothing and breaks nothing).
3. The workspace is prepared without git (no program the agent can configure runs): every test file and test
   configuration file is written from the overlay shipped in ``tests/overlay/`` (the bytes they must have), test
   configuration files and modules shadowing an installed one that are not in the base commit's tree
   (``base_files.json``) are removed, and a symlinked folder on the way to an overlay file is replaced by a folder.
   The overlay holds, besides the test patch's files, the other files of their test folders as of the base commit
   (a package's ``__init__.py``, helpers, golden files: ``tasks.runtime.grading_overlay``). Test configuration
   files above the workspace, up to ``/``, are removed (pytest would read a ``/pytest.ini``).
4. Sentinel tests are planted in the graded test files (``plant_sentinels``): copies of PASS_TO_PASS tests
   (of functions with no FAIL_TO_PASS case),
   whose last statement expects something else, beside the original under a fresh name; they catch a runner
   changed across the board. FAIL_TO_PASS tests get twins instead (``plan_twins``): the same test under the
   same name, its last check changed so that it fails with the reference yet reads like a test
   (``twin_source``; a parametrized test's expected values changed in its table instead: ``data_twin``),
   standing in its original's place in one of two test sessions (which one, at random per
   test and per grading); no copy of a FAIL_TO_PASS test is ever beside it. All of it but the sessions chosen
   by ``config["sentinel_seed"]``
   (a hash that covers the gold patch: the same on every grading of the task, and unknowable to the code
   under test, which can rebuild the test patch from the files written in step 3; without it, fresh each
   run). An honest run reports each sentinel and twin failed.
5. pytest runs the graded test files (never node ids on its command line) as user ``nobody`` with no new
   privileges (or not at all, when they cannot be dropped); the grading inputs and the reward folder are
   root-only while it runs, so the code under test can neither read which tests are graded nor write the
   reward; the JUnit report is write-only to it (``_write_only_report``).
6. The processes the tests left are killed; outcomes are read from the JUnit XML. With twins, steps 5 and 6
   run twice, with the same command line, and the runner user's processes and files in the shared writable
   folders are removed around each session (``end_session``); the second is skipped when the first already
   grades 0. Reward 1.0 only when every FAIL_TO_PASS and PASS_TO_PASS test passed in each session in which it
   was itself, and every sentinel and twin was reported, as failed (``judge``): one reported passed (or left
   out) means the reporting or the code under test spares what it takes for a copy, and the reward is 0 with
   the reason in the details.
   Changed source files that touch runner internals are flagged in the details (``audit``), not scored.

Commands (``python3 verifier.py COMMAND --tests-dir DIR``), reading ``DIR/config.json``:

``run``   prepare the workspace, run pytest on ``config["run_targets"]``, parse the JUnit XML here (node ids are
          resolved against the workspace) and write ``{"outcomes", "collection_errors", "collection_messages",
          "exit_code", "seconds", "log_tail"}`` as JSON to ``--results``.
``grade`` the steps above; the reward (1.0 or 0.0) goes to ``--logs-dir/reward.txt`` (Harbor's reward file), the
          details to ``reward-details.json`` beside it.
``plugins`` the pytest plugin modules installed (entry points ``pytest11``), as JSON.

``config.json`` keys: ``workspace``, ``base_commit`` (40-hex sha, provenance only), ``overlay`` (``{"write":
{path: mode}, "delete": [paths]}``, the files of ``DIR/overlay/``), ``run_targets`` (test files), ``timeout_sec``
(pytest's), ``pytest_plugins``, ``sentinels`` (how many to plant, default 3), ``sentinel_seed``, ``runner_user`` (uid, default 65534
``nobody``; ``null`` runs pytest as the grader's user), ``prepared`` (true in a schema 1.3 verifier image: its
copy already holds the hidden tests, so the workspace is not reset) and, with it, ``bytecode`` (the verifier
image's compiled standard library and packages, read by pytest instead of compiling them afresh: no agent has
been in that image; ``run_pytest``).
"""

import argparse
import ast
import hashlib
import json
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
import xml.etree.ElementTree as ET

try:  # the generator imports this module from the repo2env package
    from . import env_guard
except ImportError:  # in a bundle, run as `python3 -I -S /tests/verifier.py`: env_guard.py is beside it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import env_guard

# Worst first: several reports for one node id (unittest subTests, a teardown error) aggregate to the worst.
OUTCOME_RANK = {"error": 3, "failed": 2, "skipped": 1, "passed": 0}
# Files that configure pytest: an agent could plant or edit them to force outcomes, so the verifier resets them.
TEST_CONFIG_NAMES = ("conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", ".pytest.ini",
                     "pytest.toml", ".pytest.toml")  # pytest 9 reads pytest.toml too
# Folders whose every file is a test file (SWE-bench's convention; ``languages.python.files.is_test_path``).
TEST_DIRS = frozenset({"test", "tests", "testing"})
REWARD_FILES = ("reward.txt", "reward.json", "reward-details.json")
AUDIT_BYTES = 8 << 20  # a changed Python file read for audit_changes (larger ones are not audited)
# The grading inputs: read once, digested, and the digest compared with the one test.sh carries.
INPUT_FILES = ("config.json", "f2p.json", "p2p.json", "base_files.json", "python_env.json")
OVERLAY_DIR = "overlay"
RUNNER_UID = 65534  # nobody
DEFAULT_SENTINELS = 3
MAX_TWINS = 8  # FAIL_TO_PASS tests plant_sentinels gives a near-copy of their own (when asked: fail_to_pass)
# Changed source lines that reach into the test runner or the interpreter's hooks: flagged in the details.
AUDIT_PATTERNS = ("_pytest", "pytest_runtest", "pytest_report", "TestReport", "junitxml", "sys.settrace",
                  "sys.setprofile", "os._exit", "atexit", "builtins", "sys.modules[", "unittest.result")


# --- node ids -------------------------------------------------------------------------------------------------

def _module_prefix(path):
    """'tests/test_x.py' -> 'tests.test_x' (pytest's junitxml mangling of a file path)."""
    dotted = path.replace("/", ".")
    return dotted[:-3] if dotted.endswith(".py") else dotted


def _module_path(dotted):
    """Inverse of _module_prefix for a collection report: 'tests.test_x' -> 'tests/test_x.py'."""
    return dotted.replace(".", "/") + ".py"


def testcase_node_id(classname, name, file_attr, workspace=None):
    """Rebuild pytest's node id from one JUnit ``<testcase>`` (xunit1 family).

    pytest derives ``classname`` from the node id (the test file's path with ``/`` as ``.`` and no ``.py``, then
    the class names) and ``name`` is the function with its parametrize id: ``tests/t.py::TestA::test_x[a b]`` is
    classname ``tests.t.TestA``, name ``test_x[a b]``. The ``file`` attribute is where the function is *defined*,
    which for an inherited test method (``TestChild(Base)``, ``Base`` in another module) is not the file pytest
    collected it from, so the file comes from the classname: the longest dotted prefix that is a ``.py`` file
    under ``workspace`` when one is given, else ``file`` when it matches, else the whole classname.
    """
    parts = classname.split(".") if classname else []
    if workspace is not None:
        for cut in range(len(parts), 0, -1):
            candidate = "/".join(parts[:cut]) + ".py"
            if os.path.isfile(os.path.join(workspace, candidate)):
                return "::".join([candidate] + parts[cut:] + [name])
    if file_attr:
        prefix = _module_prefix(file_attr)
        if classname == prefix:
            return file_attr + "::" + name
        if classname.startswith(prefix + "."):
            classes = classname[len(prefix) + 1:].split(".")
            return file_attr + "::" + "::".join(classes) + "::" + name
    return _module_path(".".join(parts)) + "::" + name if parts and parts[0] else name


def parse_junit(xml_text, workspace=None, messages=None, notes=None):
    """Parse pytest JUnit XML into ``(outcomes, collection_errors)``.

    ``outcomes`` maps node id -> one of ``passed``, ``failed``, ``error``, ``skipped`` (worst per node id);
    ``collection_errors`` lists the test file paths whose collection failed (their tests are absent). When
    ``messages`` is a dict it receives the first line of each collection error (file -> message). When ``notes``
    is a dict it receives ``{"skipped": {node id: reason}, "errors": {node id: message}, "failures": {node id:
    text}}``: every skip reason, the failures' and errors' messages that say an import failed (what the
    environment lacks), and each failed test's message and traceback head (``MAX_FAILURE_DETAILS`` of them). Raises
    ``ValueError`` when the text is not JUnit XML.
    """
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise ValueError("not JUnit XML: %s" % exc)
    outcomes = {}
    collection_errors = []
    for case in root.iter("testcase"):
        classname = case.get("classname", "")
        name = case.get("name", "")
        if case.find("error") is not None:
            outcome = "error"
        elif case.find("failure") is not None:
            outcome = "failed"
        elif case.find("skipped") is not None:
            outcome = "skipped"
        else:
            outcome = "passed"
        if not classname and outcome == "error":
            # A collection report: pytest names it after the module ("tests.test_x").
            path = case.get("file") or _module_path(name)
            collection_errors.append(path)
            if messages is not None:
                error = case.find("error")
                text = "%s\n%s" % (error.get("message") or "", error.text or "")
                messages.setdefault(path, _last_error_line(text))
            if notes is not None:  # the import that failed and where: the instruction's evidence
                notes.setdefault("failures", {}).setdefault(path, collection_digest(text))
            continue
        node_id = testcase_node_id(classname, name, case.get("file"), workspace)
        if notes is not None and outcome != "passed":
            _note(notes, node_id, case.find(outcome if outcome != "failed" else "failure"), outcome)
        previous = outcomes.get(node_id)
        if previous is None or OUTCOME_RANK[outcome] > OUTCOME_RANK[previous]:
            outcomes[node_id] = outcome
    return outcomes, sorted(set(collection_errors))


MAX_FAILURE_DETAILS = 300  # failed tests whose message and first frame a run reports (the instruction's evidence)


def _note(notes, node_id, element, outcome):
    if element is None:
        return
    text = "%s %s" % (element.get("message") or "", (element.text or "")[-2000:])
    if outcome == "skipped":  # a collection skip's reason is in the text ("collection skipped" is the message)
        text = " ".join(text.split())
        if "Skipped: " in text:  # ('path', line, "Skipped: reason")
            text = text.split("Skipped: ", 1)[1].rstrip("\"') ")
        notes.setdefault("skipped", {})[node_id] = text[:300]
    else:
        if "No module named" in text or "could not import" in text or "ImportError" in text:
            notes.setdefault("errors", {})[node_id] = _last_error_line(text)
        failures = notes.setdefault("failures", {})
        if len(failures) < MAX_FAILURE_DETAILS:  # what a user would see: the message and the failing frame
            failures[node_id] = failure_digest(element.get("message") or "", element.text or "")


_FRAME_LINE = re.compile(r"^[\w./\\-]+\.py:\d+:")
_DEF_LINE = re.compile(r"^\s*(?:async\s+)?def \w+\(")


def failure_digest(message, text, limit=3000):
    """What the instruction's evidence needs of one failure, at most ``limit`` characters: the message, then
    the traceback's source lines marked ``>`` (the failing statement of each frame), the ``def`` lines of its
    frames' functions, its ``E`` lines and its ``path:line:`` frame lines, in order (pytest's long traceback
    format); then, when the run showed locals (``--showlocals``), those of the first frame (the test's own), one
    ``L name = repr`` line each (``local_lines``)."""
    kept = [line for line in text.splitlines()
            if line.startswith(">") or line.startswith("E ") or _FRAME_LINE.match(line) or _DEF_LINE.match(line)]
    shown = local_lines(text)
    head = ("%s\n%s" % (message, "\n".join(kept)))[:limit - sum(len(line) + 1 for line in shown)]
    return "\n".join([head] + shown)


_LOCAL = re.compile(r"^(\w+) *= (.+)$")
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")  # an object's default repr: <Foo object at 0x7f3a2c1d9e80>
VOLATILE = re.compile(ADDRESS.pattern + r"|(?<![\w.])\d{12,}(?![\w.])")  # and an id or a time in nanoseconds
MAX_LOCALS, MAX_LOCAL_CHARS = 12, 250


def local_lines(text):
    """The locals pytest's ``--showlocals`` printed for the first frame of a failure's long traceback (the
    test function's: ``name<spaces>= saferepr(value)`` lines, unindented, after its ``>`` line and before its
    ``path:line:`` line), as ``L name = repr`` lines: at most ``MAX_LOCALS``, none longer than
    ``MAX_LOCAL_CHARS`` (pytest's ``saferepr`` cuts a value at 240 characters with ``...``), and none whose
    value reads differently from run to run (an address ``0x7f…``, 12 digits or more), so the failure reads
    alike in every run. ``[]`` when the run showed none."""
    found, seen_failing = [], False
    for line in text.splitlines():
        if _FRAME_LINE.match(line):
            break
        if line.startswith(">"):
            seen_failing = True
            continue
        match = _LOCAL.match(line) if seen_failing else None
        if match and len(line) <= MAX_LOCAL_CHARS and not VOLATILE.search(match.group(2)) and \
                len(found) < MAX_LOCALS:
            found.append("L %s = %s" % (match.group(1), match.group(2)))
    return found


def collection_digest(text, limit=3000):
    """What the instruction's evidence needs of a test module's collection error, at most ``limit`` characters:
    its ``path:line:`` frame lines, the source line pytest prints under each (the import that ran), and its ``E``
    lines (a ``SyntaxError`` names the file and line of the project's module there)."""
    lines = text.splitlines()
    kept = []
    for i, line in enumerate(lines):
        if _FRAME_LINE.match(line) and not line.startswith("/"):  # not the interpreter's or pytest's own frames
            kept.append(line)
            if i + 1 < len(lines) and lines[i + 1].startswith("    "):
                kept.append(lines[i + 1])
        elif line.startswith("E ") or line.startswith(">"):
            kept.append(line)
    return "\n".join(kept)[:limit]


def _last_error_line(text):
    """The line of a collection error that names the exception (``E   ModuleNotFoundError: ...``)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    named = [line for line in lines if re.match(r"^(E\s+)?\w+(Error|Exception)\b", line)]
    return (named[-1] if named else (lines[-1] if lines else ""))[:300]


# --- inputs ---------------------------------------------------------------------------------------------------

def _read_bytes(tests_dir, rel):
    path = os.path.join(tests_dir, rel)
    if not os.path.isfile(path) or os.path.islink(path):
        return None
    with open(path, "rb") as fh:
        return fh.read()


def read_inputs(tests_dir):
    """Every grading input, read once: ``{"config", "f2p", "p2p", "base_files", "python_env", "overlay"
    (path -> bytes), "digest"}``. ``digest`` (sha256 hex) covers the bytes of ``INPUT_FILES`` present and of the
    overlay files, in a fixed order; the generator computes the same with ``inputs_digest``."""
    raw = {name: _read_bytes(tests_dir, name) for name in INPUT_FILES}
    if raw["config.json"] is None:
        raise RuntimeError("config.json is missing from the tests folder")
    config = json.loads(raw["config.json"].decode("utf-8"))
    overlay = {}
    for rel in sorted((config.get("overlay") or {}).get("write", {})):
        data = _read_bytes(tests_dir, OVERLAY_DIR + "/" + rel)
        if data is None:
            raise RuntimeError("overlay file %s is missing from the tests folder" % rel)
        overlay[rel] = data
    digest = hashlib.sha256()
    for name in INPUT_FILES:
        digest.update(name.encode() + b"\0" + (b"-" if raw[name] is None else b"+" + raw[name]) + b"\0")
    for rel in sorted(overlay):
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0" + overlay[rel] + b"\0")

    def loaded(name, default):
        return json.loads(raw[name].decode("utf-8")) if raw[name] is not None else default

    return {"config": config, "f2p": list(loaded("f2p.json", [])), "p2p": list(loaded("p2p.json", [])),
            "base_files": loaded("base_files.json", None), "python_env": loaded("python_env.json", None),
            "overlay": overlay, "digest": digest.hexdigest()}


def inputs_digest(tests_dir):
    """The digest ``read_inputs`` computes for the bundle's ``tests_dir`` (the one rendered into test.sh)."""
    return read_inputs(tests_dir)["digest"]


# --- the workspace, without git -------------------------------------------------------------------------------

def _walk(workspace):
    """Relative paths of the files and symlinks under ``workspace``, never following a symlink, ``.git`` left
    out."""
    for folder, dirs, names in os.walk(workspace):
        links = [d for d in dirs if os.path.islink(os.path.join(folder, d))]
        dirs[:] = sorted(d for d in dirs if d != ".git" and d not in links)
        rel_folder = os.path.relpath(folder, workspace)
        for name in sorted(names + links):
            yield name if rel_folder == "." else rel_folder + "/" + name


def _shadowing_names():
    """Top-level module names a file in the workspace must not shadow: the standard library's and those installed
    in site-packages (pytest first among them)."""
    names = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
    for root in env_guard.roots():
        try:
            entries = os.listdir(root)
        except OSError:
            continue
        for entry in entries:
            base = entry.split(".", 1)[0] if entry.endswith((".py", ".so", ".pyd")) else entry
            if base.isidentifier():
                names.add(base)
    names.update(("pytest", "_pytest", "conftest", "pluggy", "py"))
    return names


# The task image's compiled standard library and packages (PYTHONPYCACHEPREFIX layout; the Python task image's
# bytecode step, repo2env.environment.images), a cache root of python_env.json: ``pinned_bytecode``.
BYTECODE_TREE = "/opt/r2e/bytecode"
MODULE_SUFFIXES = (".py", ".pyc", ".so", ".pyd")  # what an import can load: source, sourceless bytecode, extensions


def _is_package(workspace, folder, known, base_dirs):
    """Whether the folder ``folder`` (path parts) is a package, so a module in it shadows nothing: a folder of the
    base tree only when its ``__init__.py`` is in the base tree or the overlay (one planted there would change
    what pytest puts on ``sys.path``); a folder the fix added when it has an ``__init__.py`` and its parent is a
    package (a new subpackage); the workspace root never."""
    if not folder:
        return False
    rel = "/".join(folder)
    if rel in base_dirs:
        return rel + "/__init__.py" in known
    return os.path.isfile(os.path.join(workspace, rel, "__init__.py")) and \
        _is_package(workspace, folder[:-1], known, base_dirs)


def planted_files(workspace, base_files, overlay_paths):
    """Files not in the base commit's tree (``base_files``) nor written by the overlay that would change how the
    tests run: test configuration files (``conftest.py``, ``pytest.ini``, ...) anywhere, and modules that would
    replace a standard or installed one (``json.py``, ``pytest.pyc``, ``pytest/__init__.py``, an extension
    ``.so``) in a folder that is not a package (the folders ``python -m pytest`` and pytest's default import mode
    put first on ``sys.path``; ``_is_package``), and an ``__init__.py`` planted at the workspace root. Returns the paths to remove (a shadowing package as its folder), sorted."""
    known = set(base_files or {}) | set(overlay_paths)
    base_dirs = set("/".join(rel.split("/")[:i]) for rel in base_files or {} for i in range(1, rel.count("/") + 1))
    names = _shadowing_names()
    found = set()
    for rel in _walk(workspace):
        if rel in known:
            continue
        parts = rel.split("/")
        if parts[-1] in TEST_CONFIG_NAMES:
            found.add(rel)
            continue
        if not parts[-1].endswith(MODULE_SUFFIXES):
            continue
        if parts[-1].split(".", 1)[0] == "__init__" and len(parts) > 1:
            module, folder, target = parts[-2], parts[:-2], "/".join(parts[:-1])
        else:
            module, folder, target = parts[-1].split(".", 1)[0], parts[:-1], rel
        if module in names and not _is_package(workspace, folder, known, base_dirs):
            found.add(target)
    if "__init__.py" not in known and os.path.lexists(os.path.join(workspace, "__init__.py")):
        found.add("__init__.py")  # a planted one would make the workspace root a package
    return sorted(found)


def _remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.remove(path)


def _real_parents(workspace, rel):
    """Make every folder on the way to ``rel`` a real folder: a symlink there (the agent's) is replaced by an empty
    folder, so the file written next is the one pytest reads and no planted file comes along."""
    current = workspace
    for part in rel.split("/")[:-1]:
        current = os.path.join(current, part)
        if os.path.islink(current) or (os.path.lexists(current) and not os.path.isdir(current)):
            os.remove(current)
        if not os.path.isdir(current):
            os.mkdir(current)


def prepare_workspace(inputs, planted=None, splice=None):
    """Reset the test files and test configuration to the bytes they must have for grading (module docstring,
    step 3). Does nothing when ``config["prepared"]`` (a schema 1.3 verifier image). ``planted``: the rule for
    files to remove first (``planted_files``' signature; default ``planted_files``, pytest's). ``splice``:
    ``(current bytes or None, overlay bytes) -> bytes``, for the files of ``overlay["splice"]`` (source files
    whose tests are graded: only their tests are reset). Raises ``OSError``."""
    config = inputs["config"]
    if config.get("prepared"):
        return
    ws = config["workspace"]
    overlay = config.get("overlay") or {}
    modes = overlay.get("write", {})
    for rel in (planted or planted_files)(ws, inputs["base_files"], list(modes) + list(overlay.get("delete", []))):
        _remove(os.path.join(ws, rel))
    for rel in overlay.get("delete", []):
        _real_parents(ws, rel)
        _remove(os.path.join(ws, rel))
    spliced = set(overlay.get("splice", [])) if splice is not None else set()
    for rel, data in inputs["overlay"].items():
        _real_parents(ws, rel)
        path = os.path.join(ws, rel)
        if rel in spliced:
            current = None
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as fh:
                    current = fh.read()
            data = splice(current, data)
        _remove(path)
        with open(path, "wb") as fh:
            fh.write(data)
        os.chmod(path, int(modes.get(rel, "644"), 8))


# --- what the toolchain runners share (go_runner, rust_runner, js_runner, java_runner) --------------------------

def give_to_runner(scratch, runner_uid):
    """Make everything under ``scratch`` the runner user's (its private home and caches). Returns the uid the
    runs use: ``runner_uid``, or None when there is none or the grader is not root (the runs then run as it)."""
    if runner_uid is None or os.geteuid() != 0:
        return None
    for folder, dirs, names in os.walk(scratch):
        for name in [folder] + [os.path.join(folder, n) for n in dirs + names]:
            os.lchown(name, runner_uid, runner_uid)
    return runner_uid


def remove_above(workspace, names):
    """Remove each of ``names`` from every folder above ``workspace`` up to ``/`` (what a toolchain reads from
    a workspace's parents: ``/node_modules``, a parent ``.cargo``). Returns the paths removed."""
    removed = []
    folder = os.path.dirname(os.path.realpath(workspace))
    while True:
        for name in names:
            path = os.path.join(folder, name)
            if os.path.lexists(path):
                _remove(path)
                removed.append(path)
        parent = os.path.dirname(folder)
        if parent == folder:
            return removed
        folder = parent


def copy_warm(source, dest):
    """``dest`` as a private copy of the image's warm cache ``source`` (symlinks kept as links), or an empty
    folder when the image has none."""
    if os.path.isdir(source) and not os.path.islink(source):
        shutil.copytree(source, dest, symlinks=True)
    else:
        os.mkdir(dest)


def kill_uid(uid):
    """SIGKILL every process of user ``uid`` (the runner user; nothing when ``uid`` is None). Returns how many."""
    if uid is None:
        return 0
    killed = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if os.stat("/proc/" + entry).st_uid == uid:
                os.kill(int(entry), 9)
                killed += 1
        except OSError:
            pass
    return killed


def read_regular(path, limit):
    """The bytes of ``path`` when it is a regular file (never through a symlink, never a FIFO that would block) of
    at most ``limit`` bytes, else None (a report the runner user may have planted or swapped is read safely)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read(limit)
    finally:
        os.close(fd)


def hide(paths):
    """Make each file of ``paths`` readable by root alone (a test's source while the code under test runs).
    Returns ``{path: former mode}`` for ``unhide``."""
    modes = {}
    for path in paths:
        modes[path] = os.stat(path).st_mode & 0o7777
        os.chmod(path, 0o600)
    return modes


def unhide(modes):
    """Give back the modes ``hide`` (or ``_lock``) took (a file that went away is left out)."""
    for path, mode in modes.items():
        try:
            os.chmod(path, mode)
        except OSError:
            pass


def json_objects(text):
    """The JSON objects of a runner's line-per-event output (``go test -json``, cargo's messages, libtest's
    events), in order; lines that are not a JSON object (what the code under test printed) are skipped."""
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, dict):
            yield found


def sentinel_texts(workspace, files, count):
    """``(turn, rel, path, text)`` for ``count`` sentinels planted in ``files`` in turn (the first ones first: the
    FAIL_TO_PASS files); a file that cannot be read is passed over."""
    for i in range(count if files else 0):
        rel = files[i % len(files)]
        path = os.path.join(workspace, rel)
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        yield i, rel, path, text


# --- sentinels ------------------------------------------------------------------------------------------------

def _perturbed(value, rng=None):
    """A different constant of the same kind, or None when there is no sure way to make one. With ``rng`` the
    change is a random small one in either direction (an integer moved by 1 to 3 up or down, a character
    inserted, removed or replaced), so that of two tests that differ in it, nothing tells which one is the copy."""
    rng = rng or random.Random(0)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice((-3, -2, -1, 1, 2, 3))
    if isinstance(value, float):
        return value + rng.choice((-1.5, -0.5, 0.5, 1.5))
    if isinstance(value, (str, bytes)):
        letters = "abcdefghijklmnopqrstuvwxyz"
        pick = (lambda: rng.choice(letters)) if isinstance(value, str) else \
            (lambda: rng.choice(letters).encode())
        at = rng.randrange(len(value) + 1)
        kind = rng.choice(("insert", "remove", "replace")) if value else "insert"
        if kind == "insert":
            return value[:at] + pick() + value[at:]
        at = min(at, len(value) - 1)
        if kind == "remove":
            return value[:at] + value[at + 1:]
        other = pick()
        while other == value[at:at + 1]:
            other = pick()
        return value[:at] + other + value[at + 1:]
    return None


# Exceptions a sentinel's ``pytest.raises`` may expect instead of the original's: one unrelated to it (neither a
# base nor a subclass), so the exception the code honestly raises goes through and fails the copy, while a runner
# changed to let a raises block swallow anything passes it. For an expected exception that is not a builtin
# (its bases unknown here), one of the RARE ones, which a project's own exceptions hardly ever derive from.
SWAP_EXCEPTIONS = ("ValueError", "TypeError", "KeyError", "IndexError", "AttributeError", "ZeroDivisionError",
                   "RuntimeError", "OverflowError", "LookupError", "NotImplementedError", "UnicodeError")
RARE_EXCEPTIONS = ("ZeroDivisionError", "RecursionError", "FloatingPointError", "UnboundLocalError")


def _other_exception(expected, rng):
    """The name of an exception unrelated to the expected one (an ``ast`` node: a builtin's name or anything)."""
    known = _builtin_exception(expected)
    name = _unrelated_builtin(known, rng) if known is not None else None
    if name is not None:
        return name
    return rng.choice([n for n in RARE_EXCEPTIONS if getattr(expected, "id", getattr(expected, "attr", None)) != n])


def _unrelated_builtin(known, rng):
    """The name of a common builtin exception (``SWAP_EXCEPTIONS``) that is neither a base nor a subclass of the
    builtin exception class ``known``, at random; None when there is none (``Exception``, ``BaseException``:
    every common one derives from it; a new user's task crashed the grader on an empty choice)."""
    import builtins
    pool = [n for n in SWAP_EXCEPTIONS if not issubclass(getattr(builtins, n), known)
            and not issubclass(known, getattr(builtins, n))]
    return rng.choice(pool) if pool else None


def _returns(node):
    """Whether a ``return`` in ``node``'s own body (not a nested function's or class's) may end it early."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Return):
            return True
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) and \
                _returns(child):
            return True
    return False


class _Perturbable(object):
    """Where a sentinel's expectation can be changed in a test function so that the change is sure to run and
    nothing of the original is skipped: its last statement, when that is an ``assert <x> == <constant>``
    (``found``: the constant) or a ``with pytest.raises(...)`` (``raises``). A check nested in an ``if``, a loop
    or a helper may not run in a passing test, and a check followed by clean-up (an encoder unregistered, a
    setting restored) would leave that state behind when it fails. ``returns``: a ``return`` may end the body
    early, so nothing appended to it is sure to run either."""

    def __init__(self, func):
        self.found = self.raises = None
        self.returns = _returns(func)
        last = func.body[-1] if func.body and not self.returns else None
        test = last.test if isinstance(last, ast.Assert) else None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
            for side in (test.comparators[0], test.left):
                if isinstance(side, ast.Constant) and _perturbed(side.value) is not None:
                    self.found = side
        self.raises_call = None
        if isinstance(last, ast.With):
            for item in last.items:
                call = item.context_expr
                if isinstance(call, ast.Call) and getattr(call.func, "attr", getattr(call.func, "id", "")) == "raises":
                    self.raises, self.raises_call = last, call


_FUNCTION_NODES = (ast.FunctionDef, getattr(ast, "AsyncFunctionDef", ast.FunctionDef))  # no async before 3.5


def _parsed_function(function_source):
    """The ``FunctionDef`` of a module-level function's source, or None (a syntax error, an old Python)."""
    try:
        tree = ast.parse(function_source)
    except SyntaxError:
        return None
    return tree.body[0] if tree.body and isinstance(tree.body[0], _FUNCTION_NODES) else None


def sentinel_source(function_source, new_name, rng=None):
    """A copy of a test function (the source of a module-level ``def test_*`` that passes with the reference)
    named ``new_name`` that fails however the code under test behaves, after doing all the original does
    (``_Perturbable``): when its last statement is a ``with pytest.raises(E)`` block, that expects an exception
    unrelated to ``E`` (``_other_exception``; the ``E`` the code raises goes through, and a ``raises`` changed to
    swallow anything passes it), or raises nothing when no ``E`` is given; when it is an ``assert <x> ==
    <constant>``, that expects another constant (``_perturbed``, random with ``rng``); when it is a bare
    ``assert <x>``, that asserts ``not <x>``; else (or on a Python without ``ast.unparse``) a failing check is
    appended. The copy keeps the original's text but for what changes. Returns the source."""
    func = _parsed_function(function_source) if hasattr(ast, "unparse") else None
    if func is not None:
        finder = _Perturbable(func)
        rng = rng or random.Random(0)
        renamed = re.sub(r"def\s+\w+", "def " + new_name, function_source, count=1)
        # the copy keeps the original's text (its quotes, spacing, comments): only the name and one expression
        # change, so its layout does not tell it from the test it copies
        if finder.raises is not None and finder.raises_call.args:  # the exception the code raises goes through
            spliced = _splice(function_source, renamed, finder.raises_call.args[0],
                              _other_exception(finder.raises_call.args[0], rng))
            if spliced is not None:
                return spliced.rstrip("\n")
        if finder.raises is None and finder.found is not None:
            spliced = _splice(function_source, renamed, finder.found,
                              _literal(finder.found, _perturbed(finder.found.value, rng), function_source))
            if spliced is not None:
                return spliced.rstrip("\n")
        last = func.body[-1] if func.body and not finder.returns else None
        if finder.raises is None and finder.found is None and isinstance(last, ast.Assert) \
                and not isinstance(last.test, ast.Constant):  # assert f(x) -> assert not f(x): sure to fail
            test = last.test
            segment = _segment(function_source, test)
            if segment is not None:
                simple = isinstance(test, (ast.Call, ast.Name, ast.Attribute, ast.Subscript))
                spliced = _splice(function_source, renamed, test,
                                  ("not " + segment) if simple else "not (%s)" % segment)
                if spliced is not None:
                    return spliced.rstrip("\n")
        func.name = new_name
        if finder.raises is not None:
            call = finder.raises_call
            if call.args:  # another exception expected: the one the code raises goes through
                call.args[0] = ast.Name(_other_exception(call.args[0], rng), ast.Load())
            else:  # nothing raised inside: an honest pytest.raises fails ("DID NOT RAISE")
                finder.raises.body = [ast.Expr(ast.Call(ast.Name("len", ast.Load()), [ast.Tuple([], ast.Load())],
                                                        []))]
            return ast.unparse(ast.fix_missing_locations(func))
        if finder.found is not None:
            finder.found.value = _perturbed(finder.found.value, rng)
            return ast.unparse(ast.fix_missing_locations(func))
    lines = function_source.rstrip().splitlines()
    lines[0] = re.sub(r"def\s+\w+", "def " + new_name, lines[0], count=1)
    body = [line for line in lines[1:] if line.strip()]
    indent = re.match(r"\s*", body[0]).group(0) if body else "    "
    lines.append("%sassert len(%r) == %d" % (indent, new_name, len(new_name) + 1))
    return "\n".join(lines)


def _splice(original, renamed, node, text):
    """``renamed`` (``original`` with its ``def`` renamed on the first line) with ``node``'s span of ``original``
    replaced by ``text``; None when the span is unknown (an old Python) or the rename changed the line length
    before it on the node's line."""
    end_col = getattr(node, "end_col_offset", None)
    if end_col is None or node.lineno != node.end_lineno:
        return None
    old_lines, new_lines = original.splitlines(True), renamed.splitlines(True)
    if node.lineno > len(new_lines):
        return None
    line = old_lines[node.lineno - 1].encode("utf-8", "surrogateescape")
    shift = len(new_lines[node.lineno - 1].encode("utf-8", "surrogateescape")) - len(line) if node.lineno == 1 else 0
    data = new_lines[node.lineno - 1].encode("utf-8", "surrogateescape")
    start, end = node.col_offset + shift, end_col + shift
    new_lines[node.lineno - 1] = (data[:start] + text.encode("utf-8", "surrogateescape") + data[end:]).decode(
        "utf-8", "surrogateescape")
    return "".join(new_lines)


def _segment(source, node):
    """The text of a one-line ``node`` in ``source``, or None."""
    end_col = getattr(node, "end_col_offset", None)
    if end_col is None or node.lineno != node.end_lineno:
        return None
    line = source.splitlines()[node.lineno - 1].encode("utf-8", "surrogateescape")
    return line[node.col_offset:end_col].decode("utf-8", "surrogateescape")


def _literal(node, value, source):
    """``value`` written the way ``node``'s constant is written in ``source`` (a string keeps its quote)."""
    text = repr(value)
    end_col = getattr(node, "end_col_offset", None)
    if isinstance(value, str) and end_col is not None and node.lineno == node.end_lineno:
        line = source.splitlines()[node.lineno - 1].encode("utf-8", "surrogateescape")
        original = line[node.col_offset:end_col].decode("utf-8", "surrogateescape")
        quote = original.lstrip("rbuRBU")[:1]
        if quote == '"' and '"' not in value and "\\" not in text:
            text = '"' + text[1:-1].replace("\\'", "'") + '"'
    return text


def _def_gap(lines):
    """How many blank lines the file puts before a top-level ``def`` or ``class`` (its most common count; 2, PEP 8's,
    when it has none), so that a planted test is laid out like the file's own. A definition's first line is its
    first decorator's (red team: a decorator over several lines read as a gap of 0, and a sentinel planted with
    no blank line before the next test stood out)."""
    counts, starts = {}, None
    try:
        tree = ast.parse("".join(lines))
        starts = set(min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1 for node in tree.body
                     if isinstance(node, _FUNCTION_NODES + (ast.ClassDef,)))
    except SyntaxError:
        pass
    for n, line in enumerate(lines):
        if n and (n in starts if starts is not None else re.match(r"(def|class|async\s+def)\s", line)):
            blank = 0
            while n - blank - 1 >= 0 and not lines[n - blank - 1].strip():
                blank += 1
            if n - blank - 1 >= 0 and not lines[n - blank - 1].lstrip().startswith("@"):
                counts[blank] = counts.get(blank, 0) + 1
    return max(sorted(counts), key=lambda k: counts[k]) if counts else 2


def _test_functions(source):
    """The ``test*`` functions of a test module that a sentinel can copy: module-level ones and the methods of
    module-level classes, decorated (parametrized) or not, async too. Each is ``(qual, body, first, last,
    indent, decorators)``: ``qual`` the node id's tail (``name`` or ``Class::name``); ``body`` the function's
    own source from its ``def`` line, dedented to column 0; ``first``..``last`` its lines in the file, decorators
    included (1-based); ``indent`` the text the file puts before its ``def``; ``decorators`` the decorator lines,
    dedented (empty when none). A method whose dedented source does not parse on its own is left out."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines = source.splitlines(True)
    found = []

    def add(node, after, owner):
        following = min([d.lineno for d in after.decorator_list] + [after.lineno]) if after else len(lines) + 1
        end = getattr(node, "end_lineno", None) or (following - 1 if owner is None else None)
        if end is None:  # a method on a Python without end_lineno: its end is not known
            return
        first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        indent = re.match(r"[ \t]*", lines[node.lineno - 1]).group(0)

        def strip(text):
            return "".join(line[len(indent):] if line.startswith(indent) else line for line in text.splitlines(True))
        body = strip("".join(lines[node.lineno - 1:end]))
        if indent and _parsed_function(body) is None:
            return
        decorators = strip("".join(lines[first - 1:node.lineno - 1]))
        qual = node.name if owner is None else owner + "::" + node.name
        found.append((qual, body, first, end, indent, decorators))

    nodes = [n for n in tree.body if isinstance(n, _FUNCTION_NODES + (ast.ClassDef,))]
    for node, after in zip(nodes, nodes[1:] + [None]):
        if isinstance(node, ast.ClassDef):
            methods = [m for m in node.body if isinstance(m, _FUNCTION_NODES)]
            for method, following in zip(methods, methods[1:] + [None]):
                if method.name.startswith("test"):
                    add(method, following, node.name)
        elif node.name.startswith("test"):
            add(node, after, None)
    return found


def _covers(ids, key):
    """True when the node ids ``ids`` hold ``key`` itself or one of its parametrized cases (``key[...]``)."""
    return key in ids or any(i.startswith(key + "[") for i in ids)


def sentinel_cases(sentinels, outcomes):
    """``{sentinel id: [the ids reported for it]}``: the id itself, or each case of a sentinel copied from a
    parametrized test (``id[...]``); an empty list when nothing was reported."""
    return {s: sorted(k for k in outcomes if k == s or k.startswith(s + "[")) for s in sentinels}


def _origin_kind(function_source):
    """How a sentinel can be made from this test: ``"constant"`` (an indistinguishable change of one constant),
    ``"raises"``, ``"append"`` (a failing check appended), or None when no change is sure to run (a top-level
    ``return`` ends the body early, or it does not parse)."""
    func = _parsed_function(function_source)
    if func is None:
        return None
    finder = _Perturbable(func)
    if finder.raises is not None:
        return "raises"
    if finder.found is not None:
        return "constant"
    return None if finder.returns else "append"


def _sentinel_name(source, taken, rng):
    """A fresh test name shaped like the module's own: one of its test names with one word replaced by another
    word its test names use (no word twice, the same number of words), else words of its names drawn without
    repeats; never an existing name with a suffix, so that it cannot be told from the module's tests by its
    name. Always returns: a name that only a bare ``test`` prefixes is allowed, and after 200 draws any name not
    taken is."""
    names = [n.lower().split("_") for n in re.findall(r"def\s+test_(\w+)", source)]
    words = sorted(set(w for name in names for w in name if w.isalpha())) or ["case", "value", "result"]
    stems = [t for t in taken if t != "test"]  # every candidate starts with "test_": that prefix tells nothing
    for attempt in range(200):
        if names and attempt < 150:
            # one of the module's own names with one word put in another's place: the same length, the same
            # first word most of the time, no word twice, as the module's own names are
            parts = list(rng.choice(names))
            at = rng.randrange(len(parts))
            others = [w for w in words if w not in parts]
            if not others:
                continue
            parts[at] = rng.choice(others)
            name = "test_" + "_".join(parts)
        else:
            name = "test_" + "_".join(rng.sample(words, min(len(words), rng.choice((2, 3)))))
        if name not in taken and not any(name.startswith(t + "_") or t.startswith(name + "_") for t in stems):
            return name
    number = 2
    while "%s_%d" % (name, number) in taken:
        number += 1
    return "%s_%d" % (name, number)


_RAISES_CANARY = "\0raises"  # plant_sentinels' pick for a raises block of its own


def plant_sentinels(workspace, files, count, rng, fail_to_pass=(), graded=None):
    """Plant sentinel tests (``sentinel_source``) in the test ``files`` (relative paths), each a copy of a test of
    its own file (``_test_functions``: module-level or a method of a class, decorators and parametrization kept)
    under a fresh name from the file's own vocabulary (``_sentinel_name``), placed right before or right after
    the test it copies (at random), so that neither its name nor its place tells it from the original. Only
    tests in ``graded`` (the node ids graded, all of which pass with the reference; None: any) are copied, so the
    copy's changed expectation is sure to run. Every test function with a ``fail_to_pass`` id gets a copy (up to
    ``MAX_TWINS`` in all): a runner changed to spare near-copies must still report each graded original as
    failing. Then up to ``count`` more: per file, one from a test that uses ``pytest.raises`` when there is one,
    and one from another test, preferring tests with a constant to perturb, the files of FAIL_TO_PASS tests
    first. A file without such a test gets a failing check at its end, and a file that imports pytest and uses
    ``pytest.raises`` but has no such test to copy gets a raises block expecting ``KeyError`` around
    ``int('...')`` at its end (a ``raises`` weakened in the code under test passes it). ``count`` 0 plants none.
    Returns their
    node ids (``file::name`` or ``file::Class::name``; a parametrized copy reports ``id[case]`` ids:
    ``sentinel_cases``)."""
    if count <= 0:
        return []
    fail_to_pass = set(fail_to_pass)
    hosts = sorted(set(rel for rel in files if rel.endswith(".py") and os.path.isfile(os.path.join(workspace, rel))))
    rng.shuffle(hosts)
    hosts.sort(key=lambda rel: not any(g.startswith(rel + "::") for g in fail_to_pass))  # stable: F2P files first
    planted = []
    made = {"twin": 0, "other": 0}
    for rel in hosts:
        path = os.path.join(workspace, rel)
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            source = fh.read()
        taken = set(re.findall(r"def\s+(\w+)", source))
        kinds = [(f[0], _origin_kind(f[1])) for f in _test_functions(source)
                 if graded is None or _covers(graded, rel + "::" + f[0])]
        # every FAIL_TO_PASS test of the file first gets a near-copy of its own (parametrized, in a class or not):
        # a rule that spares the tests without a twin must not be a way to flip the graded ones
        twins = [k[0] for k in kinds if k[1] is not None and _covers(fail_to_pass, rel + "::" + k[0])]
        rng.shuffle(twins)
        picks = twins[:MAX_TWINS]
        for group in ([k for k in kinds if k[1] == "raises" and k[0] not in picks],
                      [k for k in kinds if k[1] in ("constant", "append") and k[0] not in picks]):
            for narrowed in ([k for k in group if _covers(fail_to_pass, rel + "::" + k[0]) and k[1] != "append"],
                             [k for k in group if _covers(fail_to_pass, rel + "::" + k[0])],
                             [k for k in group if k[1] != "append"], group):
                if narrowed:
                    picks.append(narrowed[rng.randrange(len(narrowed))][0])
                    break
        if not picks:
            picks = [None]
        if not any(k[1] == "raises" and k[0] in picks for k in kinds) and "pytest.raises" in source and \
                re.search(r"^import pytest\b", source, re.M):
            picks.append(_RAISES_CANARY)  # no PASS_TO_PASS raises block to copy: a runner's raises still checked
        for origin in picks:
            kind = "twin" if origin in twins else "other"
            if made[kind] >= (MAX_TWINS if kind == "twin" else count):
                continue
            made[kind] += 1
            new_name = _sentinel_name(source, taken, rng)
            taken.add(new_name)
            lines = source.splitlines(True)
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            found = [f for f in _test_functions(source) if f[0] == origin]
            gap = "\n" * _def_gap(lines)
            owner = ""
            if found:
                qual, body, first, last, indent, decorators = found[0]
                owner = qual.rsplit("::", 1)[0] + "::" if "::" in qual else ""
                text = "".join(indent + line if line.strip() else line
                               for line in (decorators + sentinel_source(body, new_name, rng)).splitlines(True))
                gap = "\n" if indent else gap  # a method: one blank line, as PEP 8 puts between methods
                if rng.random() < 0.5:  # before the original: its def keeps the gap the file puts before a def
                    at, block = first - 1, text + "\n" + gap
                else:  # after it: the file's gap, then the copy (the gap after it is the one that was there)
                    at, block = last, gap + text + "\n"
            elif origin == _RAISES_CANARY:  # int('...') raises ValueError, never the KeyError expected
                text = "def %s():\n    with pytest.raises(KeyError):\n        int(%r)" % (
                    new_name, os.path.basename(rel)[:-3])
                at, block = len(lines), gap + text + "\n"
            else:
                stem = os.path.basename(rel)[:-3]
                text = sentinel_source("def test_x():\n    assert %r == %r\n" % (stem, stem), new_name)
                at, block = len(lines), gap + text + "\n"
            lines[at:at] = [block]
            source = "".join(lines)
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(source)
            planted.append(rel + "::" + owner + new_name)
    return planted


# --- twins: a graded test's near-copy under its own name, in a session of its own -----------------------------
#
# The code under test runs inside pytest's process: it can change how any test is reported, or read a test's
# expected value from the calling frame and return it. Sentinels beside the tests they copy let it compare the two
# and spare the copy (red team: 1.0 on every demo task). A twin is never beside its original: grading runs the
# graded files twice, each FAIL_TO_PASS test function that has a twin being the original in one session and
# the twin, under the same name in the same place, in the other (which one, at random per test). In neither
# session is there anything to compare a test with, so code that forces the originals to pass must tell each
# twin from an original by its text alone; the change is chosen to read like a test of its own.

_INVERSE_OPS = {ast.Eq: "!=", ast.NotEq: "==", ast.In: "not in", ast.NotIn: "in", ast.Is: "is not",
                ast.IsNot: "is", ast.Lt: ">=", ast.GtE: "<", ast.Gt: "<=", ast.LtE: ">"}
_OP_PATTERNS = {ast.Eq: r"==", ast.NotEq: r"!=", ast.In: r"\bin\b", ast.NotIn: r"\bnot\s+in\b",
                ast.Is: r"\bis\b", ast.IsNot: r"\bis\s+not\b", ast.Lt: r"<", ast.GtE: r">=", ast.Gt: r">",
                ast.LtE: r"<="}
# unittest's assertions and their opposites (``unittest.TestCase``)
_UNITTEST_INVERSE = {"assertEqual": "assertNotEqual", "assertNotEqual": "assertEqual", "assertTrue": "assertFalse",
                     "assertFalse": "assertTrue", "assertIn": "assertNotIn", "assertNotIn": "assertIn",
                     "assertIs": "assertIsNot", "assertIsNot": "assertIs", "assertIsNone": "assertIsNotNone",
                     "assertIsNotNone": "assertIsNone", "assertIsInstance": "assertNotIsInstance",
                     "assertNotIsInstance": "assertIsInstance"}
_UNITTEST_EQUAL = ("assertEqual", "assertEquals", "assertListEqual", "assertTupleEqual", "assertDictEqual",
                   "assertSetEqual", "assertSequenceEqual", "assertMultiLineEqual", "assertCountEqual")


def _line_starts(data):
    """Byte offsets of the starts of the lines of ``data`` (ast counts lines by ``\\n``)."""
    starts, at = [0], data.find(b"\n")
    while at != -1:
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    return starts


def _span(node):
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def _span_text(source, span):
    """The text of ``span`` (ast's 1-based lines, byte columns) in ``source``."""
    data = source.encode("utf-8", "surrogateescape")
    starts = _line_starts(data)
    return data[starts[span[0] - 1] + span[1]:starts[span[2] - 1] + span[3]].decode("utf-8", "surrogateescape")


def _edit(source, span, text):
    """``source`` with ``span`` replaced by ``text``."""
    data = source.encode("utf-8", "surrogateescape")
    starts = _line_starts(data)
    a, b = starts[span[0] - 1] + span[1], starts[span[2] - 1] + span[3]
    return (data[:a] + text.encode("utf-8", "surrogateescape") + data[b:]).decode("utf-8", "surrogateescape")


def _int_text(original, value):
    """``value`` written as ``original`` (an int literal's text) is: hexadecimal, octal or binary with the same
    case and zero padding, digits grouped by ``_``, or plain."""
    low = original.lower()
    if low[:2] in ("0x", "0o", "0b"):
        digits = format(value, low[1]).zfill(len(original) - 2)
        return original[:2] + (digits.upper() if original[2:] != original[2:].lower() else digits)
    if "_" in original:
        return "{:_}".format(value)
    return str(value)


def _changed_number(original, value, rng):
    """The text of a number near ``value`` written like ``original``: an integer moved by 1 to 3 (never below
    0: the literal's own sign is not part of it), a float with its last digit changed. None when not sure."""
    if isinstance(value, int):
        step = rng.choice((-3, -2, -1, 1, 2, 3))
        new = value + step
        return _int_text(original, value - step if new < 0 or (new == 0 and value) else new)
    found = re.match(r"^(\d*\.?\d*)([eE][-+]?\d+)?$", original)
    if not found or not re.search(r"\d", found.group(1)):
        return None
    mantissa = found.group(1)
    at = max(i for i, ch in enumerate(mantissa) if ch.isdigit())
    digit = int(mantissa[at])
    new = rng.choice([digit + k for k in (-3, -2, -1, 1, 2, 3) if 0 <= digit + k <= 9])
    return mantissa[:at] + str(new) + mantissa[at + 1:] + (found.group(2) or "")


def _module_strings(source):
    """The string and bytes constants of a test module other than docstrings: the vocabulary a twin's changed
    string is drawn from, so that it reads like a value the module uses."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    docs = set(id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
    return sorted(set(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and id(n) not in docs
                      and isinstance(n.value, (str, bytes)) and n.value), key=repr)


def _changed_string(value, rng, vocabulary):
    """Another string (or bytes) that reads like ``value``'s kind: a number in it moved by 1 to 3, else another
    string of the module of the same shape (spaces, lines, about its length), else one letter replaced by
    another of the same case. None when there is none (an empty string with no such neighbour)."""
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    runs = list(re.finditer(r"\d+", text))
    if runs:
        run = rng.choice(runs)
        number, step = int(run.group()), rng.choice((-3, -2, -1, 1, 2, 3))
        new = str(number + step if number + step >= 0 else number - step)
        new = new.zfill(len(run.group())) if run.group().startswith("0") else new
        changed = text[:run.start()] + new + text[run.end():]
    else:
        alike = [s for s in vocabulary if type(s) is type(value) and s != value
                 and (b" " in s if isinstance(s, bytes) else " " in s) == (" " in text)
                 and (b"\n" in s if isinstance(s, bytes) else "\n" in s) == ("\n" in text)
                 and len(text) // 2 <= len(s) <= 2 * len(text) + 2]
        if alike:
            return rng.choice(alike)
        letters = [i for i, ch in enumerate(text) if "a" <= ch.lower() <= "z"]
        if not letters:
            return None
        at = rng.choice(letters)
        pool = "abcdefghijklmnopqrstuvwxyz"
        pool = pool.upper() if text[at].isupper() else pool
        changed = text[:at] + rng.choice([c for c in pool if c != text[at].lower() and c != text[at]]) + \
            text[at + 1:]
    return changed.encode("latin-1") if isinstance(value, bytes) else changed


def _quoted(original, value):
    """``value`` (a str or bytes) written with ``original``'s prefix and quotes when that reads back as
    ``value``, else its ``repr``."""
    found = re.match(r'(?i)([rbu]*)("""|\'\'\'|"|\')', original)
    candidates = []
    if found:
        prefix, quote = found.groups()
        body = repr(value)
        inner, mark = (body[2:-1] if isinstance(value, bytes) else body[1:-1]), body[-1]
        inner = inner.replace("\\" + mark, mark)
        if len(quote) == 1:
            inner = inner.replace(quote, "\\" + quote)
        plain = prefix.replace("r", "").replace("R", "")
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        if "r" in prefix.lower():
            candidates.append(prefix + quote + text + quote)
        elif len(quote) == 3:  # a triple-quoted string keeps its lines as lines
            candidates.append(prefix + quote + text.replace("\\", "\\\\") + quote)
        candidates.append(plain + quote + inner + quote)
    candidates.append(repr(value))
    for text in candidates:
        try:
            if ast.literal_eval(text) == value:
                return text
        except (ValueError, SyntaxError):
            continue
    return repr(value)


def _changed_constant(source, node, rng, vocabulary):
    """``(span, text)``: the constant ``node`` replaced by another value of its kind, written in its own style
    (``_changed_number``, ``_changed_string``; a bool flipped), or None. The new literal is checked to read back
    as a different value."""
    value, original = node.value, _span_text(source, _span(node))
    if isinstance(value, bool):
        text = repr(not value)
    elif isinstance(value, (int, float)):
        text = _changed_number(original, value, rng)
    elif isinstance(value, (str, bytes)):
        new = _changed_string(value, rng, vocabulary)
        text = None if new is None else _quoted(original, new)
    else:
        return None
    try:
        if text is None or ast.literal_eval(text) == value:
            return None
    except (ValueError, SyntaxError):
        return None
    return _span(node), text


_ARITHMETIC = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
               ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
               ast.Pow: lambda a, b: a ** b if abs(b) <= 64 and abs(a) < 1 << 64 else None,
               ast.LShift: lambda a, b: a << b if 0 <= b <= 64 else None}


def _arithmetic(node):
    """The value of a constant arithmetic expression of numbers (``2 * 1024 * 1024``, ``1 << 20``, ``-1.5``),
    or None when ``node`` is something else (or its value is out of reach: a division by zero, a huge power)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _arithmetic(node.operand)
        return None if value is None else (-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _arithmetic(node.left), _arithmetic(node.right)
        if left is None or right is None:
            return None
        try:
            return _ARITHMETIC[type(node.op)](left, right)
        except (ArithmeticError, ValueError, TypeError):
            return None
    return None


def _literal_leaves(node):
    """The constants of a literal (a constant, a signed number, a constant arithmetic expression of numbers, a
    tuple, list, set or dict of literals), or None when ``node`` is not one."""
    if isinstance(node, ast.BinOp):
        return [n for n in ast.walk(node) if isinstance(n, ast.Constant)] if _arithmetic(node) is not None \
            else None
    if isinstance(node, ast.Constant):
        return [node] if isinstance(node.value, (bool, int, float, str, bytes)) else []
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and \
            isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float)):
        return [node.operand]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        parts = (node.keys + node.values) if isinstance(node, ast.Dict) else node.elts
        leaves = []
        for part in parts:
            found = None if part is None else _literal_leaves(part)
            if found is None:
                return None
            leaves.extend(found)
        return leaves
    return None


def _other_value(source, sides, rng, vocabulary):
    """A change of one constant of the literal among ``sides`` (the expected value of an equality check); in an
    arithmetic expression, only a change of the expression's value (``0 * 5`` stays 0 whatever the 5)."""
    for side in sides:
        leaves = _literal_leaves(side)
        if leaves:
            for leaf in rng.sample(leaves, len(leaves)):
                change = _changed_constant(source, leaf, rng, vocabulary)
                if change is not None and _changes_sum(side, leaf, change[1]):
                    return change
    return None


def _changes_sum(side, leaf, text):
    """Whether writing ``text`` for the constant ``leaf`` changes the value of ``side`` when that is an
    arithmetic expression (``_arithmetic``); True for any other literal, whose leaves are its values."""
    if not any(isinstance(n, ast.BinOp) for n in ast.walk(side)):
        return True
    before, kept = _literal_value(side), leaf.value
    try:
        leaf.value = ast.literal_eval(text)
        after = _literal_value(side)
    finally:
        leaf.value = kept
    return after is not None and before is not None and after != before


def _literal_value(node):
    """The value of a literal of ``_literal_leaves`` (as a tuple of parts for a container), or None."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        parts = (node.keys + node.values) if isinstance(node, ast.Dict) else node.elts
        values = tuple(_literal_value(p) if p is not None else () for p in parts)
        return None if any(v is None for v in values) else (type(node).__name__,) + values
    if isinstance(node, ast.Constant):
        return (type(node.value).__name__, node.value)
    value = _arithmetic(node)
    return None if value is None else ("number", value)


def _false_of(source, expr, rng, vocabulary):
    """``(span, text)`` turning ``expr``, true in the test's run with the reference solution, into an expression
    that is false, written as a test would: an equality's expected literal changed (``_other_value``), a
    comparison's operator inverted, a ``not`` dropped or added, the last operand of an ``and`` made false.
    None when no such change reads naturally."""
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        op = type(expr.ops[0])
        if op is ast.Eq:
            change = _other_value(source, [expr.comparators[0], expr.left], rng, vocabulary)
            if change is not None:
                return change
        right = expr.comparators[0]
        if expr.left.end_lineno == right.lineno and op in _INVERSE_OPS:
            span = (expr.left.end_lineno, expr.left.end_col_offset, right.lineno, right.col_offset)
            gap = _span_text(source, span)
            inverted, count = re.subn(_OP_PATTERNS[op], _INVERSE_OPS[op], gap, count=1)
            if count:
                return span, inverted
        return None
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return _span(expr), _span_text(source, _span(expr.operand))
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.And):
        return _false_of(source, expr.values[-1], rng, vocabulary)
    if isinstance(expr, (ast.Call, ast.Name, ast.Attribute, ast.Subscript)):
        return (expr.lineno, expr.col_offset, expr.lineno, expr.col_offset), "not "
    return None


def _builtin_exception(node):
    """The builtin exception class ``node`` names (``ValueError``, ``builtins.KeyError``), or None."""
    import builtins
    name = node.id if isinstance(node, ast.Name) else None
    found = getattr(builtins, name, None) if name else None
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


def _without_block(source, block):
    """``(span, text)`` replacing the ``with`` statement ``block`` by its body, dedented to the ``with``'s place:
    what the block expected to be raised then ends the test."""
    body = block.body
    if body[0].lineno == block.lineno:  # ``with pytest.raises(E): f()`` on one line
        return _span(block), _span_text(source, (body[0].lineno, body[0].col_offset, block.end_lineno,
                                                 block.end_col_offset))
    lines = source.splitlines(True)
    inner = re.match(r"[ \t]*", lines[body[0].lineno - 1]).group(0)
    outer = re.match(r"[ \t]*", lines[block.lineno - 1]).group(0)
    moved = "".join(line[len(inner) - len(outer):] if line.startswith(inner) else line
                    for line in lines[body[0].lineno - 1:block.end_lineno])
    return (block.lineno, 0, block.end_lineno, len(lines[block.end_lineno - 1].rstrip("\r\n").encode(
        "utf-8", "surrogateescape"))), moved.rstrip("\r\n")


def _raises_change(source, block, rng, vocabulary):
    """The twin change of a last statement ``with pytest.raises(E, ...)`` (or unittest's ``assertRaises``): a
    ``match`` pattern changed, else the block removed (``_without_block``). ``E`` itself is never swapped for
    another exception: red team, a correct fix raising a class derived from both the expected exception and the
    one the old code raised (``class DivisionByZeroError(ValueError, ZeroDivisionError)``) passed a twin that
    expected the old one, and a swapped exception read as a twin's (a builtin no such test expects)."""
    call = block.items[0].context_expr
    for keyword in call.keywords:
        if keyword.arg == "match" and isinstance(keyword.value, ast.Constant) and \
                isinstance(keyword.value.value, str):
            change = _changed_constant(source, keyword.value, rng, vocabulary)
            if change is not None:
                return change
    return _without_block(source, block)


def _call_name(call):
    return getattr(call.func, "attr", getattr(call.func, "id", ""))


def _unittest_change(source, call, rng, vocabulary):
    """The twin change of a last statement ``self.assertX(...)``: an equality's expected literal changed, else the
    assertion swapped for its opposite (``assertTrue`` / ``assertFalse``, ``assertIn`` / ``assertNotIn``, ...);
    ``self.assertRaises(E, f, *args)`` (and ``assertRaisesRegex(E, pattern, f, *args)``) becomes ``f(*args)``,
    ``f`` parenthesised unless it is a name, attribute, call or subscript (``(lambda: g(1))()``: a bare
    ``lambda: g(1)()`` would be a lambda never called)."""
    name = call.func.attr
    if name in _UNITTEST_EQUAL:
        change = _other_value(source, call.args[1:2] + call.args[:1], rng, vocabulary)
        if change is not None:
            return change
    if name in _UNITTEST_INVERSE:
        return _span(call.func), _span_text(source, _span(call.func.value)) + "." + _UNITTEST_INVERSE[name]
    at = {"assertRaises": 1, "assertRaisesRegex": 2, "assertRaisesRegexp": 2}.get(name)
    if at is not None and len(call.args) > at:
        # the call alone, as for a raises block: it fails with the reference, which raises
        parts = [_span_text(source, _span(a)) for a in call.args[at + 1:]] + \
            [("%s=" % k.arg if k.arg else "**") + _span_text(source, _span(k.value)) for k in call.keywords]
        callee = _span_text(source, _span(call.args[at]))
        if not isinstance(call.args[at], (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
            callee = "(%s)" % callee
        return _span(call), "%s(%s)" % (callee, ", ".join(parts))
    return None


def twin_source(function_source, rng, vocabulary=(), trial=False):
    """The twin of a graded test function (``function_source``: its ``def`` and body, dedented; decorators apart):
    the same text, name included, but for one change in its last statement that makes it fail with the
    reference solution and reads like a test of its own: an expected literal (``2 * 1024`` too, when its value
    changes) replaced by a neighbour written in
    the literal's style (a number moved by 1 to 3, a string's number moved or another string of the module,
    ``vocabulary``: ``_module_strings``), a comparison or unittest assertion turned into its opposite, a
    ``not`` dropped or added, a raises block's ``match`` pattern changed or the block removed; for a check
    against a name the test assigns a literal once (``expected = 6`` ... ``assert f(3) == expected``), that
    literal (``_named_expected_change``).
    Only the last statement is changed, and only when nothing can end the test before it (``_returns``): a
    check that may not run, or clean-up after it, would let the twin pass or leave state behind.

    ``trial``: when no such sure change exists, also a change that only a run with the reference can vouch for
    (red team 6: a FAIL_TO_PASS test without a twin let code that forges reports score 1.0): the checks above
    in the last statement of a closing ``for``, ``while`` or ``with`` block (``pytest.warns``, ``mock.patch``),
    or past an early ``return``, and a closing call's last literal argument (a helper ``check(x, 3 * 1024)``,
    ``np.testing.assert_allclose``, ``mock.assert_called_with``) moved as an expected literal is, else the
    literal of the latest assignment that has one (``expected = 3 * 1024`` before ``check(got, expected)``). The
    generation's twin trial (``cmd_twins``) keeps only those that failed with the reference; the rest never
    reach a grading (``plan_twins``' ``proven``). Returns the source, or None when the test has no such change
    (or Python lacks ``end_col_offset``, before 3.8)."""
    func = _parsed_function(function_source)
    if func is None or not func.body or not hasattr(func.body[-1], "end_col_offset"):
        return None
    change = None if _returns(func) else (_named_expected_change(function_source, func, rng, vocabulary)
                                          or _sure_change(function_source, func.body[-1], rng, vocabulary))
    last = func.body[-1]
    for _ in range(8 if trial and change is None else 0):  # the trial's changes, deeper in
        change = _sure_change(function_source, last, rng, vocabulary)
        if change is None and isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
            call = last.value
            change = _other_value(function_source, list(reversed(call.args)) +
                                  [k.value for k in reversed(call.keywords) if k.arg], rng, vocabulary)
        if change is not None or not isinstance(last, _BLOCKS) or not last.body:
            break
        last = last.body[-1]
    if trial and change is None:  # the literal an assignment gives, the latest first (``expected = 3 * 1024``)
        for statement in reversed(func.body[:-1]):
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
                change = _other_value(function_source, [statement.value], rng, vocabulary)
                if change is not None:
                    break
    return None if change is None else _edit(function_source, change[0], change[1])


def _named_expected_change(source, func, rng, vocabulary):
    """``twin_source``'s change for a test that closes with ``assert <x> == name`` (or ``name == <x>``) where
    ``name`` is assigned once, at the test's top level, a literal (``expected = 2 * 1024 ** 4``) and used nowhere
    else: that literal changed, as ``_other_value`` changes an expected one (red team 8: the comparison turned
    into ``!=`` fails with code that returns the caller's ``expected`` exactly as it fails with the reference).
    ``(span, text)`` or None."""
    last = func.body[-1]
    test = last.test if isinstance(last, ast.Assert) else None
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return None
    names = [side.id for side in (test.left, test.comparators[0]) if isinstance(side, ast.Name)]
    if len(names) != 1 or names[0] in [a.arg for a in func.args.args + func.args.kwonlyargs]:
        return None
    given = [st for st in func.body[:-1] if isinstance(st, ast.Assign) and len(st.targets) == 1
             and isinstance(st.targets[0], ast.Name) and st.targets[0].id == names[0]]
    used = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == names[0]]
    if len(given) != 1 or len(used) != 2:  # the assignment and the check, nothing else
        return None
    return _other_value(source, [given[0].value], rng, vocabulary)


_BLOCKS = (ast.For, ast.While, ast.With, getattr(ast, "AsyncFor", ast.For), getattr(ast, "AsyncWith", ast.With))


def _sure_change(source, last, rng, vocabulary):
    """``twin_source``'s sure change of the statement ``last``: ``(span, text)`` or None."""
    if isinstance(last, ast.Assert):
        return _false_of(source, last.test, rng, vocabulary)
    if isinstance(last, ast.With) and len(last.items) == 1 and isinstance(last.items[0].context_expr, ast.Call) \
            and _call_name(last.items[0].context_expr) in ("raises", "assertRaises", "assertRaisesRegex"):
        return _raises_change(source, last, rng, vocabulary)
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and \
            isinstance(last.value.func, ast.Attribute) and isinstance(last.value.func.value, ast.Name) and \
            last.value.func.value.id == "self":
        return _unittest_change(source, last.value, rng, vocabulary)
    return None


def _argnames(node):
    """The argument names of a ``parametrize`` call's first argument (``"a, b"`` or ``("a", "b")``), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [name.strip() for name in node.value.split(",") if name.strip()]
    if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                       for e in node.elts):
        return [e.value for e in node.elts]
    return None


def _expected_name(func):
    """The name of the expected value of ``func``'s last statement when that is ``assert <x> == <name>`` (either
    side) or ``self.assertEqual(<x>, <name>)`` and the name is a parameter used nowhere else in the function, or
    None. Nothing can end the test before that statement (``_returns``), and the other side is no approximation
    (``approx``, ``isclose``: a neighbouring value could still compare equal)."""
    if not func.body or _returns(func):
        return None
    last = func.body[-1]
    sides = None
    if isinstance(last, ast.Assert) and isinstance(last.test, ast.Compare) and len(last.test.ops) == 1 and \
            isinstance(last.test.ops[0], ast.Eq):
        sides = [last.test.left, last.test.comparators[0]]
    elif isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and \
            isinstance(last.value.func, ast.Attribute) and last.value.func.attr in _UNITTEST_EQUAL and \
            len(last.value.args) == 2 and not last.value.keywords:
        sides = list(last.value.args)
    if sides is None:
        return None
    params = set(a.arg for a in func.args.args + getattr(func.args, "kwonlyargs", []))
    for name, other in ((sides[1], sides[0]), (sides[0], sides[1])):
        if isinstance(name, ast.Name) and name.id in params and not any(
                isinstance(n, ast.Name) and n.id in ("approx", "isclose") or
                isinstance(n, ast.Attribute) and n.attr in ("approx", "isclose") for n in ast.walk(other)):
            uses = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name.id]
            if len(uses) == 1:
                return name.id
    return None


def _case_value(row, at, width):
    """The value a ``parametrize`` row gives the argument at index ``at`` of ``width``: the row itself for one
    argument, its element in a tuple or list, a ``pytest.param``'s positional argument (None when the param
    carries ``marks``: a skipped or xfail case does not fail as a twin must)."""
    if isinstance(row, ast.Call) and _call_name(row) == "param":
        if any(k.arg == "marks" for k in row.keywords) or len(row.args) != width:
            return None
        return row.args[at]
    if width == 1:
        return row
    if isinstance(row, (ast.Tuple, ast.List)) and len(row.elts) == width:
        return row.elts[at]
    return None


def _table_ids(names, values, given):
    """The case ids pytest gives the rows of a ``parametrize`` table, in order (pytest's ``idmaker``: a row's
    ``pytest.param(..., id=...)``, else the ``ids=`` list's, else each value's own: a string ASCII-escaped, a
    number, a bool or None as ``str`` gives it, anything else the argument's name and the row's index, joined
    by ``-``); None when they cannot be told here (``ids`` not a list of strings, a row not written in place,
    two rows with one id, which pytest renames)."""
    listed = given.get("ids")
    if listed is not None:
        if not isinstance(listed, (ast.List, ast.Tuple)) or len(listed.elts) != len(values.elts) or not all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in listed.elts):
            return None
        listed = [e.value for e in listed.elts]
    out = []
    for index, row in enumerate(values.elts):
        own = [k.value for k in row.keywords if k.arg == "id"] if isinstance(row, ast.Call) else []
        if own:
            if not (isinstance(own[0], ast.Constant) and isinstance(own[0].value, str)):
                return None
            out.append(own[0].value)
            continue
        if listed is not None:
            out.append(listed[index])
            continue
        parts = row.args if isinstance(row, ast.Call) and _call_name(row) == "param" else [row] if len(names) == 1 \
            else row.elts if isinstance(row, (ast.Tuple, ast.List)) else None
        if parts is None or len(parts) != len(names):
            return None
        pieces = []
        for at, part in enumerate(parts):
            try:
                value = ast.literal_eval(part)
            except ValueError:
                value = ()
            if isinstance(value, str):
                pieces.append(value.encode("unicode_escape").decode("ascii"))
            elif value is None or isinstance(value, (bool, int, float, complex)):
                pieces.append(str(value))
            else:
                pieces.append("%s%d" % (names[at], index))
        out.append("-".join(pieces))
    return out if len(set(out)) == len(out) else None


def kept_cases(decorators, failing):
    """The case ids of a parametrized test's rows that its data twin keeps as written (``data_twin`` with
    ``kept``): those not among ``failing`` (the FAIL_TO_PASS case ids of the function, the part of a node id
    inside ``[...]``), when every one of ``failing`` is a row's id (``_table_ids``); else none (every row
    changes)."""
    table = _parametrize_table(decorators) if failing else None
    if table is None:
        return set()
    names, values, given = table
    ids = _table_ids(names, values, given)
    if ids is None or not set(failing) <= set(ids):
        return set()
    return set(i for i in ids if i not in failing)


def _parametrize_table(decorators):
    """``(argnames, argvalues node, keywords)`` of the one ``pytest.mark.parametrize`` of ``decorators``; None
    when there is none, or more than one (stacked tables multiply ids)."""
    try:
        stub = ast.parse(decorators + "def _twin_():\n    pass\n").body[0]
    except SyntaxError:
        return None
    tables = [d for d in stub.decorator_list if isinstance(d, ast.Call) and _call_name(d) == "parametrize"]
    if len(tables) != 1:
        return None
    decorator = tables[0]
    given = dict((k.arg, k.value) for k in decorator.keywords)
    names = _argnames(decorator.args[0] if decorator.args else given.get("argnames"))
    values = decorator.args[1] if len(decorator.args) > 1 else given.get("argvalues")
    if not names or not isinstance(values, (ast.List, ast.Tuple)):
        return None
    return names, values, given


def data_twin(decorators, function_source, rng, vocabulary=(), kept=()):
    """The twin of a parametrized test in its data (red team: code under test that reads the expected value from
    the calling frame spared a twin whose check read ``!=``, a comparison few tests make): when the test ends
    with ``assert <x> == expected`` (``_expected_name``) and ``expected`` is given by a ``pytest.mark.parametrize``
    whose cases are all literals, every case's expected literal is changed as ``twin_source`` changes one
    (``_other_value``: a neighbour in the literal's own style), so the test's every line reads as written and
    each case fails with the reference. ``decorators``: the function's decorator lines, dedented (as
    ``_test_functions`` gives them); ``function_source``: its ``def`` and body. Returns the new decorator text,
    or None when a case cannot be changed (a name, a call, a case with ``marks``, ``indirect`` arguments,
    argument values not written in place) or nothing parametrizes the expected value. ``kept``: the case ids
    of the rows that stay as written (``kept_cases``: the PASS_TO_PASS cases, which the code before the fix gets
    right), each change drawn all the same (red team 8: with every row changed, code that saw no row of its
    table agree with it knew it ran in the twin's session, and copied the expected values only where some did)."""
    func = _parsed_function(function_source)
    name = _expected_name(func) if func is not None and hasattr(func, "end_lineno") else None
    if name is None or not decorators.strip():
        return None
    source = decorators + "def _twin_():\n    pass\n"
    try:
        stub = ast.parse(source).body[0]
    except SyntaxError:
        return None
    for decorator in stub.decorator_list:
        if not isinstance(decorator, ast.Call) or _call_name(decorator) != "parametrize":
            continue
        given = dict((k.arg, k.value) for k in decorator.keywords)
        names = _argnames(decorator.args[0] if decorator.args else given.get("argnames"))
        values = decorator.args[1] if len(decorator.args) > 1 else given.get("argvalues")
        if not names or name not in names:
            continue
        if "indirect" in given or not isinstance(values, (ast.List, ast.Tuple)) or not values.elts:
            return None
        changes = []
        ids = _table_ids(names, values, given) if kept else None
        for index, row in enumerate(values.elts):
            value = _case_value(row, names.index(name), len(names))
            change = None if value is None else _other_value(source, [value], rng, vocabulary)
            if change is None:
                return None
            if ids is None or ids[index] not in kept:
                changes.append(change)
        for span, text in sorted(changes, reverse=True):
            source = _edit(source, span, text)
        return source[:len(source) - len("def _twin_():\n    pass\n")]
    return None


def sure_twins(source):
    """``{qual: whether it gets a twin without a trial}`` for the test functions a module's ``source`` defines
    (``_test_functions``: where a twin can stand): a data twin (``data_twin``) or a sure change (``twin_source``
    without ``trial``)."""
    return dict((qual, kind is not None) for qual, kind in twin_kinds(source).items())


def twin_kinds(source):
    """``{qual: "data", "last" or None}`` for the test functions a module's ``source`` defines: a data twin
    (``data_twin``: the whole test runs on changed data, and may fail before what it undoes at its end), a sure
    change of the last statement (``twin_source`` without ``trial``: all before it runs as in the original), or
    no twin without a trial."""
    kinds = {}
    for qual, body, _, _, _, decorators in _test_functions(source):
        rng = random.Random(0)
        kinds[qual] = "data" if data_twin(decorators, body, rng) is not None else \
            "last" if twin_source(body, rng) is not None else None
    return kinds


def plan_twins(workspace, files, fail_to_pass, rng, limit=None, vocabularies=None, placement=None,
               proven=None):
    """Twins (``twin_source``) for the FAIL_TO_PASS test functions of ``files`` (relative paths), up to ``limit``
    (None: all; a task's FAIL_TO_PASS functions are all twinned: with a few drawn among many, code under test that
    solved most and forged one scored 1.0 whenever the one was not drawn; drawn at random by ``rng``), each given a session in which it is the
    twin at random by ``placement`` (default ``rng``; the grader draws it afresh at every grading: red team 5's
    code told the two sessions apart, by pid gaps, its parent's CPU time or IPC objects it left, and under a
    placement fixed per task failed in the twin's session only, for 1.0; drawn afresh, such code is caught at
    least once in two gradings per twin, and twins are chosen by the task's seed still, so an honest result
    does not change). Returns ``(texts, twins)``: ``texts`` ``{rel: (text of session 0, text of session 1)}``
    for the files holding twins, ``twins`` ``{"file::name" or "file::Class::name": session}``. ``vocabularies``: ``{rel:
    _module_strings of the file}`` read before sentinels were planted (a twin's string must not be one that
    only a sentinel holds: red team), else read now. ``proven``: the twinned functions' keys that the
    generation's trial (``cmd_twins``) saw fail with the reference (config.json's ``twins``): the trial's changes
    too are made (``twin_source``'s ``trial``), and only these functions get a twin; None (a task generated
    before the trial): the sure changes only. The texts are the same either way for a function both give a
    twin, and the draws of ``rng`` too (a function's change is made, then left out)."""
    fail_to_pass = set(fail_to_pass)
    found = []
    for rel in sorted(set(files)):
        path = os.path.join(workspace, rel)
        if not rel.endswith(".py") or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            source = fh.read()
        vocabulary = (vocabularies or {}).get(rel)
        vocabulary = _module_strings(source) if vocabulary is None else vocabulary
        for qual, body, first, last, indent, decorators in _test_functions(source):
            if _covers(fail_to_pass, rel + "::" + qual):
                failing = set(t[t.index("[") + 1:-1] for t in fail_to_pass
                              if "[" in t and function_of(t) == rel + "::" + qual)
                kept = kept_cases(decorators, failing)
                data = data_twin(decorators, body, rng, vocabulary, kept=kept)
                if data is not None:  # the table changed, the function as written
                    twin = data + body
                else:  # the function's last statement changed, its decorators as written
                    changed = twin_source(body, rng, vocabulary, trial=proven is not None)
                    twin = None if changed is None else decorators + changed
                if twin is not None and (proven is None or rel + "::" + qual in proven):
                    block = _reindented(source.splitlines(True)[first - 1:last], decorators + body, twin, indent)
                    found.append((rel, qual, first, last, block, source, data is not None,
                                  kept if data is not None else set()))
    rng.shuffle(found)
    texts, twins, trees = {}, Twins(), {}  # trees: each file with a twin, parsed once for its heirs
    for rel, qual, first, last, block, source, renamed, kept in sorted(found[:limit], key=lambda f: (f[0], -f[2])):
        session = (placement or rng).randrange(2)
        twins[rel + "::" + qual] = session
        if renamed:
            twins.renamed.add(rel + "::" + qual)
            twins.kept[rel + "::" + qual] = kept
        variants = texts.setdefault(rel, [source.splitlines(True), source.splitlines(True)])
        variants[session][first - 1:last] = [block]
        if rel not in trees:
            trees[rel] = _parsed_module(source)
        for heir in _heirs(trees[rel], qual):
            twins.heirs[rel + "::" + heir] = rel + "::" + qual
    return dict((rel, tuple("".join(lines) for lines in variants)) for rel, variants in texts.items()), twins


class Twins(dict):
    """``plan_twins``' ``{function key: session in which it is the twin}``, and ``heirs``: ``{"file::Sub::name":
    "file::Base::name"}`` for each class of the twinned method's module that inherits the method as the twin
    changed it (parsel's ``SelectorTestCaseBytes(SelectorTestCase)``: its ``test_body_bytearray_support`` ran the
    twin too, was expected to pass, and the reference solution scored 0). ``twin_of`` reads both. ``renamed``:
    the keys of data twins, whose changed table gives their cases ids of their own (``judged_cases``);
    ``kept``: for a data twin, the case ids of the rows it keeps as written (``kept_cases``), which pass."""

    def __init__(self, *args, **kwargs):
        dict.__init__(self, *args, **kwargs)
        self.heirs, self.renamed, self.kept = {}, set(), {}


def _parsed_module(source):
    """``source`` parsed (``ast.Module``), or None when it does not parse."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _heirs(tree, qual):
    """The classes of a module (``tree``, ``_parsed_module``'s) that inherit the method ``qual``
    (``Class::name``) from that class unchanged: those whose first definition of ``name`` along their bases (the
    module's own classes, depth first, left to right, as Python's method resolution order finds it for single
    inheritance) is that class's. ``[Sub::name, ...]``; empty for a module-level function, or no tree."""
    owner, _, name = qual.rpartition("::")
    if not owner or tree is None:
        return []
    classes = dict((n.name, n) for n in tree.body if isinstance(n, ast.ClassDef))

    def defines(cls):
        return any(isinstance(m, _FUNCTION_NODES) and m.name == name for m in cls.body) or any(
            isinstance(m, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in m.targets)
            for m in cls.body)

    def resolves(cls, seen):  # the module class whose definition of ``name`` ``cls`` gets, or None
        if cls.name in seen:
            return None
        if defines(cls):
            return cls.name
        for base in cls.bases:
            base_name = base.id if isinstance(base, ast.Name) else None
            if base_name in classes:
                found = resolves(classes[base_name], seen | set([cls.name]))
                if found is not None:
                    return found
        return None
    return ["%s::%s" % (c, name) for c in sorted(classes) if c != owner and resolves(classes[c], set()) == owner]


def _reindented(original, dedented, twin, indent):
    """The twin's text as the file holds it: ``original`` (the function's lines in the file), ``dedented`` (the
    same text with ``indent`` taken off each line that had it: ``_test_functions``), ``twin`` (``dedented`` with
    one change). Every line the change did not touch is the file's own line, byte for byte; only the changed
    lines get ``indent`` back (red team 7 told a twin by a blank line of a method that the old re-indenting
    wrote shorter than the file did). Python's ``difflib`` finds the untouched lines."""
    import difflib
    before, after = dedented.splitlines(True), twin.splitlines(True)
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(original[i1:i2])
        else:
            out.extend(indent + line if line.strip() else line for line in after[j1:j2])
    return "".join(out)


def fresh_entropy():
    """16 bytes from the operating system's random source (``os.urandom``): what places the twins in sessions at
    each grading (``plan_twins``), never the task's seed."""
    return os.urandom(16)


def function_of(node_id):
    """The test function a node id belongs to: the id without its parametrized case (``f.py::t[1-2]`` ->
    ``f.py::t``)."""
    return node_id.split("[", 1)[0]


def judged_cases(key, reported, twins, graded):
    """The case ids of the twin ``key`` that must fail: the graded ids that belong to it (an heir's too), each
    whether reported or not, a missing one then read as missing (bleach-488: an ``xfail`` case, graded neither
    way, passed the negated twin and the reference read as tampering); for a data twin (``Twins.renamed``, or
    any twin of a plain dict), whose changed table gives its cases ids of their own (``t[1-3]`` for
    ``t[1-2]``), every reported case of it but those of the rows it keeps as written (``Twins.kept``)."""
    if key in getattr(twins, "renamed", twins):
        kept = getattr(twins, "kept", {}).get(key, ())
        return sorted(k for k in reported if twin_of(k, twins) == key
                      and not ("[" in k and k[k.index("[") + 1:-1] in kept))
    return sorted(k for k in graded if twin_of(k, twins) == key)


def twin_of(node_id, twins):
    """The twinned function (a key of ``twins``) a reported node id belongs to, or None: its own function's, or
    that of the class it inherits the method from (``Twins.heirs``)."""
    key = function_of(node_id)
    key = key if key in twins else getattr(twins, "heirs", {}).get(key)
    return key if key in twins else None


SEAL_SKIP = ("/proc", "/sys", "/dev")  # kernel views; /dev/shm and /dev/mqueue are walked on their own


def seal_shared(runner_uid, roots=("/", "/dev/shm", "/dev/mqueue")):
    """Take the runner user's write access from everything it could write but did not make (red team 6: a
    file the agent left world-writable in its home counted the sessions, and the code under test learnt which
    one it ran in): every entry under ``roots`` on their own file systems (no mount point's contents: a host's
    bind mount is never changed) loses its POSIX ACLs (``ACLS``; on entries not root's) and, when others may write it or the runner's
    group may, that bit; the shared
    folders root owns with the sticky bit (``/tmp``, ``/dev/shm``) stay writable, and what the runner makes
    there is removed after each session (``remove_owned``). Call once, as root in a task container, before the
    first session. Returns how many entries were sealed."""
    sealed = 0
    for root in roots:
        if not os.path.isdir(root) or os.path.islink(root):
            continue
        device = os.lstat(root).st_dev
        for folder, dirs, names in os.walk(root):
            if folder == "/":
                dirs[:] = [d for d in dirs if "/" + d not in SEAL_SKIP]
            for name in list(dirs) + names:
                path = os.path.join(folder, name)
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                if info.st_dev != device:
                    if name in dirs:
                        dirs.remove(name)
                    continue
                if stat.S_ISLNK(info.st_mode) or (
                        stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX and info.st_uid == 0):
                    continue
                try:  # an ACL may grant the runner what the mode bits do not (red team 7: user:nobody:rw); only
                    # an owner sets one, and root's entries are the image's (a listxattr each: 90 us on overlayfs)
                    acls = [a for a in os.listxattr(path, follow_symlinks=False) if a in ACLS] \
                        if info.st_uid != 0 and hasattr(os, "listxattr") else []
                except OSError:  # a file system without extended attributes
                    acls = []
                for acl in acls:
                    try:
                        os.removexattr(path, acl, follow_symlinks=False)
                        sealed += 1
                    except OSError:
                        pass
                bits = info.st_mode & 0o002 | (info.st_mode & 0o020 if info.st_gid == runner_uid else 0)
                if bits:
                    try:
                        os.chmod(path, stat.S_IMODE(info.st_mode) & ~bits)
                        sealed += 1
                    except OSError:
                        pass
    return sealed


ACLS = ("system.posix_acl_access", "system.posix_acl_default")  # POSIX ACLs, as the kernel names their xattrs


def remove_ipc(table_dir="/proc/sysvipc"):
    """Remove every System V IPC object (shared memory segment, semaphore set, message queue) that a user other
    than root owns or made: red team 7 counted the sessions in a semaphore the runner made and that outlived it
    (and a world-usable one the agent made would do as well). Read from ``/proc/sysvipc/{shm,sem,msg}`` (the
    container's IPC namespace), removed with ``IPC_RMID`` through the C library (``ctypes``) by a child process
    that takes the object's owner's uid (root in a container lacks ``CAP_IPC_OWNER``). Returns how many went."""
    owned = {}
    for table, column in (("shm", "shmid"), ("sem", "semid"), ("msg", "msqid")):
        try:
            with open(os.path.join(table_dir, table)) as fh:
                rows = [line.split() for line in fh.read().splitlines() if line.strip()]
        except OSError:
            continue
        if not rows or any(k not in rows[0] for k in (column, "uid", "cuid")):
            continue
        head = rows[0]
        for row in rows[1:]:
            try:
                ident, uid, cuid = (int(row[head.index(k)]) for k in (column, "uid", "cuid"))
            except (ValueError, IndexError):
                continue
            if uid != 0 or cuid != 0:
                owned.setdefault(uid if uid != 0 else cuid, []).append((table, ident))
    removed = 0
    for uid, objects in sorted(owned.items()):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: the owner, removing what it owns
            os.close(read)
            done = 0
            try:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                done = _rmid(objects)
            finally:
                os.write(write, str(done).encode())
                os._exit(0)
        os.close(write)
        with os.fdopen(read) as fh:
            got = fh.read()
        os.waitpid(pid, 0)
        removed += int(got) if got.isdigit() else 0
    return removed


def _rmid(objects):
    """``IPC_RMID`` each of ``objects`` (``(table, id)``: ``shm``, ``sem`` or ``msg``); how many went."""
    import ctypes
    try:  # glibc's soname: no program is run to find it (ctypes.util would run ldconfig)
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        return 0
    ipc_rmid = 0
    calls = {"shm": lambda i: libc.shmctl(i, ipc_rmid, None), "sem": lambda i: libc.semctl(i, 0, ipc_rmid),
             "msg": lambda i: libc.msgctl(i, ipc_rmid, None)}
    return sum(1 for table, ident in objects if calls[table](ident) == 0)


def remove_owned(uid, roots=("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock")):
    """Remove what user ``uid`` (the runner) made under the shared writable folders ``roots``, at any depth: a
    session's tests leave nothing there for the next session's to read. Returns how many entries went."""
    removed = 0
    for root in roots:
        if not os.path.isdir(root) or os.path.islink(root):
            continue
        for folder, dirs, names in os.walk(root):
            for name in list(dirs) + names:
                path = os.path.join(folder, name)
                try:
                    if os.lstat(path).st_uid == uid:
                        _remove(path)
                        removed += 1
                        if name in dirs:
                            dirs.remove(name)
                except OSError:
                    pass
    return removed


# --- the runner -----------------------------------------------------------------------------------------------

def installed_plugins():
    """Modules of the pytest plugins installed as ``pytest11`` entry points, sorted (the set the task image had
    when the task was generated; recorded in config.json as ``pytest_plugins``)."""
    try:
        from importlib.metadata import entry_points
        eps = entry_points()
        found = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
        return sorted(set(ep.value.split(":")[0] for ep in found))
    except ImportError:  # Python < 3.8
        import pkg_resources
        return sorted(set(ep.module_name for ep in pkg_resources.iter_entry_points("pytest11")))


def _drop_privileges(uid):
    """For the child: no new privileges (set-uid files do not elevate it), no groups, then ``uid``. Fails closed:
    when ``prctl`` cannot be called (``ctypes`` or the C library it loads, ``libffi``, removed or broken by the
    agent), the child does not start and the grade is an error, never a run in which a set-uid shell the agent
    planted could read the grading inputs as root."""
    def demote():
        import ctypes
        if ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    return demote


def _write_only_report(junit_path):
    """Make ``junit_path`` a file the runner user may write but not read, in a folder it may pass through but not
    change (root's, 0711; the file root's, 0622): pytest (``open(path, "w")``) writes its report there, and the
    code under test, running in pytest's process as that user, cannot read the report back to change it (at
    exit, after pytest wrote it), nor swap the file for another."""
    os.chmod(os.path.dirname(junit_path), 0o711)
    fd = os.open(junit_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o622)
    os.fchmod(fd, 0o622)
    os.close(fd)


STANDARD_PATH = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")  # Debian's


def test_path():
    """The ``PATH`` the tests run with, at generation and at grading alike: the interpreter's folder and its
    console scripts' folder (``sysconfig``'s ``scripts``: a project's own command, ``glom``, that its tests run
    as a subprocess), then Debian's default folders. Not the caller's ``PATH``: test.sh runs the grader with
    ``/usr/bin:/bin`` while generation's runs had the image's, so a test calling the project's command passed
    at generation and failed at grading."""
    folders = [os.path.dirname(sys.executable), sysconfig.get_path("scripts")] + list(STANDARD_PATH)
    return os.pathsep.join(dict.fromkeys(f for f in folders if f))


def run_pytest(workspace, targets, junit_path, timeout_sec, plugins=None, runner_uid=None, full_log=None,
               fresh_bytecode=True, bytecode=None, show_locals=False):
    """Run pytest on ``targets`` (test files; empty = pytest's own discovery) writing JUnit XML to
    ``junit_path``, with node ids relative to ``workspace`` (``--rootdir``).

    ``plugins``: when a list, plugin auto-loading is off and only these modules are loaded (``-p``), so a plugin
    installed after generation is never loaded; ``required_plugins`` of the project's configuration is cleared
    (plugins loaded by ``-p`` carry no distribution, which it would count as missing). ``runner_uid``: when not
    None and the grader is root, pytest runs as that user (HOME and TMPDIR in a fresh folder it owns).
    Returns ``(exit_code, seconds, log_tail)``; exit code 124 means the run hit ``timeout_sec``. ``full_log``:
    a path that gets the whole output too (generation keeps it for debugging). ``fresh_bytecode``: compile every
    module afresh into a private cache, so a ``.pyc`` an agent planted is never read (grading); generation's runs,
    in a container no agent has touched, read the image's own bytecode (compiled at install), which is faster.
    ``bytecode``: with ``fresh_bytecode``, a bytecode tree (``PYTHONPYCACHEPREFIX`` layout) of the standard
    library and packages that no agent can have changed (built into a separate verifier's image, or
    ``BYTECODE_TREE`` of the task image once ``pinned_bytecode`` vouched for it): it is read instead of compiling
    them afresh; the workspace's modules have no bytecode there and are compiled afresh. Without
    ``fresh_bytecode`` (generation), ``BYTECODE_TREE`` is read when the image has one. Nothing is ever written to
    it (``PYTHONDONTWRITEBYTECODE``). ``show_locals``: pytest's ``--showlocals``, so a failure's traceback shows the
    test's local values (generation's evidence of what the failing call was given: ``local_lines``). With
    pytest-cov loaded, coverage is off (``--no-cov``; its data file, for a subprocess, in the runner's home).
    """
    env = dict(os.environ)
    for name in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME"):
        env.pop(name, None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PATH"] = test_path()  # the same at generation and at grading (test.sh runs with /usr/bin:/bin)
    scratch = tempfile.mkdtemp(prefix="r2e-run-")
    if fresh_bytecode:  # cached bytecode planted beside a module is never read
        trusted = bytecode and os.path.isdir(bytecode) and not os.path.islink(bytecode) \
            and _root_only_writable(bytecode)
        env["PYTHONPYCACHEPREFIX"] = bytecode if trusted else os.path.join(scratch, "pycache")
    elif os.path.isdir(BYTECODE_TREE):  # generation: the image as built, no agent has been in this container
        env["PYTHONPYCACHEPREFIX"] = BYTECODE_TREE
    preexec = None
    if runner_uid is not None and os.geteuid() == 0:
        home = os.path.join(scratch, "home")
        os.mkdir(home)
        for path in (scratch, home):
            os.chown(path, runner_uid, runner_uid)
        _write_only_report(junit_path)
        env.update(HOME=home, TMPDIR=home, COVERAGE_FILE=os.path.join(home, ".coverage"))
        preexec = _drop_privileges(runner_uid)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "junit_family=xunit1",
           "-o", "required_plugins=", "--junitxml=" + junit_path, "--continue-on-collection-errors", "-q", "-rN",
           "--rootdir=" + workspace, "--confcutdir=" + workspace]
    legacy = legacy_setup_cfg_ini(workspace, scratch)
    if legacy:
        cmd += ["-c", legacy]
    if show_locals:
        cmd.append("--showlocals")
    if plugins is not None:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        for module in plugins:
            cmd += ["-p", module]
    if any(m.split(".")[0] == "pytest_cov" for m in (installed_plugins() if plugins is None else plugins)):
        # coverage is not graded, and the runner user may not write its data file in the workspace (pytest-cov
        # then stops the run with an INTERNALERROR before any test runs: a project's addopts = --cov=pkg)
        cmd.append("--no-cov")
    start = time.time()
    try:
        proc = subprocess.run(cmd + list(targets), cwd=workspace, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True, timeout=timeout_sec,
                              preexec_fn=preexec)
        code, out = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired as exc:
        code, out = 124, (exc.stdout or "") if isinstance(exc.stdout, str) else ""
    shutil.rmtree(scratch, ignore_errors=True)
    if full_log:
        _write_atomic(full_log, out)
    return code, time.time() - start, out[-4000:]


def pinned_bytecode(intact):
    """``BYTECODE_TREE`` when grading may read it, else None: it is among ``intact`` (the manifest's cache roots
    in which ``env_guard.check`` found nothing added, removed or changed since the task image was built: every
    file of it is the one compiled then), and the tree, its folders and every folder above it are root's and
    writable by no one else (``_root_only_tree``), so neither the code under test nor anything the agent left
    can change a file of it while the tests run."""
    if BYTECODE_TREE not in intact:
        return None
    if not os.path.isdir(BYTECODE_TREE) or os.path.islink(BYTECODE_TREE) or not _root_only_writable(BYTECODE_TREE):
        return None
    return BYTECODE_TREE if _root_only_tree(BYTECODE_TREE) else None


def _root_only_tree(root):
    """True when every folder and file under ``root`` is a regular file or folder (no link, FIFO, device)
    owned by root and writable by no one else."""
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            info = os.lstat(os.path.join(folder, name))
            if info.st_uid != 0 or info.st_mode & 0o022 or not (stat.S_ISREG(info.st_mode)
                                                                    or stat.S_ISDIR(info.st_mode)):
                return False
    return True


def _root_only_writable(path):
    """True when ``path`` and every folder above it are owned by root and writable by no one else (a bytecode
    tree some other user could have written is never read)."""
    path = os.path.abspath(path)
    while True:
        info = os.lstat(path)
        if info.st_uid != 0 or info.st_mode & 0o022:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


def legacy_setup_cfg_ini(workspace, folder):
    """When the project's only pytest configuration is a ``[pytest]`` section of ``setup.cfg`` (pytest < 4.0
    read it; later ones refuse to start: "[pytest] section in setup.cfg files is no longer supported"), write
    the same options as a ``pytest.ini`` in ``folder`` (the run's own scratch folder) and return its path, for
    ``-c``; else None. pytest's own precedence decides "only": pytest.ini, .pytest.ini, pyproject.toml's
    [tool.pytest.ini_options], tox.ini's [pytest] and setup.cfg's [tool:pytest] each come first."""
    import configparser

    def has(name, section):
        path = os.path.join(workspace, name)
        if not os.path.isfile(path):
            return False
        if section is None:
            return True
        data = read_regular(path, 1 << 20)  # never a FIFO's blocking read
        return data is not None and ("[%s]" % section).encode() in data

    if has("pytest.ini", None) or has(".pytest.ini", None) or has("pyproject.toml", "tool.pytest.ini_options") \
            or has("tox.ini", "pytest") or has("setup.cfg", "tool:pytest") or not has("setup.cfg", "pytest"):
        return None
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read(os.path.join(workspace, "setup.cfg"), encoding="utf-8")
        options = parser.items("pytest")
    except (configparser.Error, OSError):
        return None
    path = os.path.join(folder, "pytest.ini")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("[pytest]\n" + "".join("%s = %s\n" % (k, v.replace("\n", "\n    ")) for k, v in options))
    os.chmod(folder, 0o755)
    os.chmod(path, 0o644)
    return path


def _runner_uid(config):
    return config.get("runner_user", RUNNER_UID)


def _junit_dir():
    folder = tempfile.mkdtemp(prefix="r2e-junit-")
    return folder, os.path.join(folder, "junit.xml")


def collect(workspace, junit_path, code, targets, tail, notes=None):
    """Outcomes of a run: ``(outcomes, collection_errors, messages)``. When pytest wrote no JUnit XML (a test
    patch's conftest that imports what the fix adds makes it exit before collecting anything), every target file
    counts as a collection error, with pytest's last error line as the message: SWE-bench counts such tests as
    failing. ``notes``: as ``parse_junit``'s."""
    messages = {}
    if os.path.isfile(junit_path):
        with open(junit_path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        try:
            outcomes, errors = parse_junit(text, workspace, messages, notes)
            return outcomes, errors, messages
        except ValueError:
            pass
    why = _last_error_line(tail) or "pytest exit %s, no JUnit XML" % code
    return {}, sorted(targets), {t: why for t in targets}


# --- grading --------------------------------------------------------------------------------------------------

def score(outcomes, fail_to_pass, pass_to_pass, sentinels=()):
    """Binary reward: 1.0 when every FAIL_TO_PASS and PASS_TO_PASS id passed, else 0.0; plus details, among them
    ``statuses_sha256``: the sha256 of the outcome of every graded id and every planted ``sentinels`` id
    (``missing`` when the report has none; JSON of the sorted ``[id, outcome]`` pairs), which tells two gradings
    that saw the same tests, sentinels too, fail the same way."""
    missing = [t for t in fail_to_pass + pass_to_pass if outcomes.get(t) != "passed"]
    f2p_ok = sum(1 for t in fail_to_pass if outcomes.get(t) == "passed")
    p2p_ok = sum(1 for t in pass_to_pass if outcomes.get(t) == "passed")
    statuses = sorted([t, outcomes.get(t) or "missing"] for t in set(fail_to_pass + pass_to_pass + list(sentinels)))
    details = {"fail_to_pass_passed": f2p_ok, "fail_to_pass_total": len(fail_to_pass),
               "pass_to_pass_passed": p2p_ok, "pass_to_pass_total": len(pass_to_pass),
               "not_passed": missing[:50],
               "statuses_sha256": hashlib.sha256(json.dumps(statuses).encode()).hexdigest()}
    return (1.0 if not missing and fail_to_pass else 0.0), details


def end_session(runner_uid, workspace=None, clean=False):
    """After a test session (and before the first): every stray process killed (``env_guard.kill_strays``) and,
    in a task container with the grader as root, every process of the runner user too; with ``clean`` (once the
    session's report is read), what it made in the shared writable folders and ``workspace`` removed too
    (``remove_owned``), and every System V IPC object not root's (``remove_ipc``), so that one session's tests
    leave nothing to the next's."""
    env_guard.kill_strays()
    root_here = runner_uid is not None and os.geteuid() == 0 and os.environ.get(env_guard.IN_CONTAINER) == "1"
    if root_here:
        kill_uid(runner_uid)
    if clean and root_here:
        remove_owned(runner_uid)
        remove_ipc()
        if workspace:  # a folder the agent made world-writable there would carry notes across too (red team)
            remove_owned(runner_uid, (workspace,))


def judge(runs, fail_to_pass, pass_to_pass, sentinels, twins):
    """What the test sessions so far say: ``(failure, outcomes, statuses)``.

    ``runs``: one ``{"outcomes": {node id: outcome}, ...}`` per session, in order; ``twins``: ``plan_twins``'
    ``{function: session in which it is the twin}``. ``outcomes`` holds each reported test at its worst over
    the sessions in which it was itself (never its twin's outcome), plus ``"sentinel@S id"`` and ``"twin@S id"``
    entries (``missing`` when a session reported none of its cases). ``statuses`` names the entries of
    ``score``'s digest, which do not depend on where the twins were drawn or whether the second session ran:
    ``"sentinel <case>"`` (its outcomes over the sessions, joined by ``/``) and ``"twin <case>"`` only for a twin
    reported neither failed nor error (a nop's gradings then digest alike, whatever sessions they ran); a twin's
    cases are those ``judged_cases`` keeps. ``failure`` is None while the reward may still be 1.0, else why not: ``"tampering: ..."``
    when a sentinel or twin (each must fail with the reference solution) was reported passed while every graded
    test so far passed, or was not reported at all; ``"failed"`` when a graded test did not pass or a twin
    passed beside a graded test that failed too (an honest wrong solution can do that)."""
    outcomes, statuses, tampering, failed = {}, [], None, False
    digest = {}  # "kind case" -> the outcomes it was reported with over the sessions
    graded = set(fail_to_pass) | set(pass_to_pass)
    for session, run in enumerate(runs):
        seen = run["outcomes"]
        for node, outcome in seen.items():
            key = twin_of(node, twins)
            if key is not None and twins[key] == session:
                continue
            if node not in outcomes or OUTCOME_RANK.get(outcome, 3) > OUTCOME_RANK.get(outcomes[node], 3):
                outcomes[node] = outcome
        checks = [("sentinel", s, [k for k in seen if k == s or k.startswith(s + "[")]) for s in sentinels]
        checks += [("twin", key, judged_cases(key, seen, twins, graded))
                   for key, at in sorted(twins.items()) if at == session]
        for kind, name, cases in checks:
            for case in sorted(cases) or [name]:
                entry = "%s@%d %s" % (kind, session, case)
                outcomes[entry] = seen.get(case, "missing")
                digest.setdefault("%s %s" % (kind, case), set()).add(outcomes[entry])
                if outcomes[entry] not in ("failed", "error") and tampering is None:
                    tampering = ("a sentinel test that must fail was reported %s: the runner's reporting was "
                                 "changed" if kind == "sentinel" else "the twin of a graded test, changed to "
                                 "fail, was reported %s: the code under test or the runner spares what it "
                                 "takes for a copy") % outcomes[entry]
    for entry, seen_as in sorted(digest.items()):
        if entry.startswith("sentinel ") or seen_as - {"failed", "error"}:
            outcomes[entry] = "/".join(sorted(seen_as))
            statuses.append(entry)
    failed = any(outcomes[t] != "passed" for t in graded if t in outcomes)
    if tampering is not None:
        return ("failed" if failed and "twin" in tampering and "missing" not in tampering
                else "tampering: " + tampering), outcomes, statuses
    return ("failed" if failed else None), outcomes, statuses


def grade_files(test_ids):
    """The test files of node ids, sorted: what grading runs (never the ids themselves, which would tell the code
    under test which tests are graded)."""
    return sorted(set(t.split("::", 1)[0] for t in test_ids))


def _blob_id(path):
    """git's blob id of a file's bytes (sha1 of ``blob <size>\\0<bytes>``), computed without git; None for what is
    not a regular file of at most ``AUDIT_BYTES`` (a FIFO the agent left would block a plain read forever)."""
    data = read_regular(path, AUDIT_BYTES)
    return None if data is None else hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def audit_changes(workspace, base_files, skip):
    """Python files that differ from the base commit's (or are new), outside ``skip``, whose text names runner
    internals or interpreter hooks (``AUDIT_PATTERNS``): ``{path: [patterns]}``. A flag for reviewers, never a
    verdict (a repository that is itself a test-runner plugin trips it honestly)."""
    if base_files is None:
        return {}
    flagged = {}
    for rel in _walk(workspace):
        if not rel.endswith(".py") or rel in skip or os.path.islink(os.path.join(workspace, rel)):
            continue
        path = os.path.join(workspace, rel)
        entry = base_files.get(rel, "")
        blob = _blob_id(path)
        if blob is None or entry.endswith(blob):
            continue
        text = read_regular(path, AUDIT_BYTES).decode("utf-8", "replace")
        hits = [p for p in AUDIT_PATTERNS if p in text]
        if hits:
            flagged[rel] = hits
    return dict(sorted(flagged.items())[:50])


def _write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


def _clear_rewards(logs):
    if not os.path.isdir(logs):
        os.makedirs(logs)
    for name in REWARD_FILES:
        _remove(os.path.join(logs, name))


def _lock(paths):
    """Make ``paths`` root-only while the tests run, and every regular file below them too (a hard link to a
    grading input made elsewhere shares the file's mode, not its folder's); returns their former modes."""
    modes = {}
    for path in paths:
        if os.path.isdir(path) and not os.path.islink(path):
            modes[path] = os.stat(path).st_mode & 0o7777
            os.chmod(path, 0o700)
            modes.update(hide([os.path.join(folder, name) for folder, _, names in os.walk(path) for name in names
                               if stat.S_ISREG(os.lstat(os.path.join(folder, name)).st_mode)]))
    return modes


def cmd_run(args):
    inputs = read_inputs(args.tests_dir)
    config = inputs["config"]
    try:
        prepare_workspace(inputs)
    except OSError as exc:
        sys.stdout.write(json.dumps({"error": str(exc)}))
        return 3
    folder, junit = _junit_dir()
    targets = config.get("run_targets", [])
    code, seconds, tail = run_pytest(config["workspace"], targets, junit, config.get("timeout_sec", 1800),
                                     config.get("pytest_plugins"), _runner_uid(config), full_log=args.results + ".log",
                                     fresh_bytecode=False, show_locals=True)  # generation: no agent was here
    notes = {}
    outcomes, errors, messages = collect(config["workspace"], junit, code, targets, tail, notes)
    if os.path.exists(junit):  # kept beside the results for the run's artefacts
        shutil.copyfile(junit, args.results + ".junit.xml")
    shutil.rmtree(folder, ignore_errors=True)
    result = {"outcomes": outcomes, "collection_errors": errors, "collection_messages": messages,
              "skip_messages": notes.get("skipped", {}), "error_messages": notes.get("errors", {}),
              "failure_details": notes.get("failures", {}),
              "exit_code": code, "seconds": seconds, "log_tail": tail}
    _write_atomic(args.results, json.dumps(result))
    sys.stdout.write(json.dumps({"exit_code": code, "seconds": seconds}))
    return 0


def plant_checks(config, f2p, p2p, placement, trial=False):
    """Plant the sentinels in the workspace's graded test files and plan the twins (module docstring, step 4):
    ``(sentinels, texts, twins)`` as ``plant_sentinels`` and ``plan_twins`` give them, drawn by the task's
    ``sentinel_seed`` (a random one when config.json has none), the twins' sessions by ``placement`` (a
    ``random.Random``). ``trial``: every FAIL_TO_PASS function with a change of its own, the trial's changes
    included, each twin in session 0 unless ``placement`` says otherwise (``cmd_twins``); else the functions config.json's ``twins`` lists (when it
    has the key). No twin when config.json plants no sentinel (``sentinels: 0``)."""
    ws = config["workspace"]
    rng = random.Random(config["sentinel_seed"] if "sentinel_seed" in config else os.urandom(16))
    count = config.get("sentinels", DEFAULT_SENTINELS)
    # sentinels copy PASS_TO_PASS tests only: a near-copy of a FAIL_TO_PASS test beside it would let the code
    # under test compare the two; a FAIL_TO_PASS test's own twin is in a session of its own (plan_twins)
    vocabularies = {}
    for rel in grade_files(f2p):
        data = read_regular(os.path.join(ws, rel), AUDIT_BYTES)
        if data is not None:
            vocabularies[rel] = _module_strings(data.decode("utf-8", "surrogateescape"))
    # nor a PASS_TO_PASS case of a function with FAIL_TO_PASS cases: its copy would keep the parametrize
    # table that the function's data twin changes (data_twin), a difference to compare
    twinned = set(function_of(t) for t in f2p)
    copied = set(t for t in p2p if function_of(t) not in twinned)
    sentinels = plant_sentinels(ws, grade_files(f2p) + grade_files(p2p), count, rng, graded=copied)
    if count <= 0:
        return sentinels, {}, {}
    if trial:
        everyone = set(function_of(t) for t in f2p)
        texts, twins = plan_twins(ws, grade_files(f2p), f2p, rng, vocabularies=vocabularies,
                                  placement=placement or _First(), proven=everyone)
    else:
        texts, twins = plan_twins(ws, grade_files(f2p), f2p, rng, vocabularies=vocabularies, placement=placement,
                                  proven=set(config["twins"]) if "twins" in config else None)
    return sentinels, texts, twins


class _First(object):
    """A placement that puts every twin in session 0 (the twin trial's one session)."""

    @staticmethod
    def randrange(n):
        return 0


class _Arranged(object):
    """A placement for the twin trial's pair sessions: the i-th function ``plan_twins`` places (its own order,
    which the task's seed fixes) is a twin in session 0 when bit ``bit`` of i is ``value``."""

    def __init__(self, bit, value):
        self.bit, self.value, self.drawn = bit, value, 0

    def randrange(self, n):
        index, self.drawn = self.drawn, self.drawn + 1
        return 0 if (index >> self.bit) & 1 == self.value else 1


def pair_arrangements(count):
    """``(bit, value)`` for each pair session of a trial with ``count`` twinned functions: for every two of them
    there is a session with the one a twin and the other itself (the bits of their indices differ somewhere;
    both values of that bit are run), 2 * ceil(log2(count)) sessions; none for fewer than two."""
    return [(bit, value) for bit in range((count - 1).bit_length()) for value in (1, 0)] if count > 1 else []


def _trial_session(inputs, placement, graded):
    """One session of the twin trial (``cmd_twins``): the workspace reset, sentinels planted, the twins
    ``placement`` puts in session 0 written, pytest run on the graded files. Returns ``(twins, outcomes, bad,
    code, seconds)``: ``plan_twins``' twins (session 0: a twin here), the outcomes, and the graded cases that are
    themselves here (no twin's) and did not pass. Raises ``OSError``."""
    config, f2p, p2p = inputs["config"], inputs["f2p"], inputs["p2p"]
    prepare_workspace(inputs)
    _, texts, twins = plant_checks(config, f2p, p2p, placement, trial=True)
    for rel, variants in sorted(texts.items()):
        with open(os.path.join(config["workspace"], rel), "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(variants[0])
    folder, junit = _junit_dir()
    files = grade_files(f2p + p2p)
    code, seconds, tail = run_pytest(config["workspace"], files, junit, config.get("timeout_sec", 1800),
                                     config.get("pytest_plugins"), _runner_uid(config), fresh_bytecode=False)
    outcomes, _, _ = collect(config["workspace"], junit, code, files, tail)
    shutil.rmtree(folder, ignore_errors=True)
    here = set(key for key, at in twins.items() if at == 0)
    # a case of a function that is its twin here is the twin's (a data twin's renamed rows report other ids)
    bad = sorted(case for case in graded if twin_of(case, twins) not in here and outcomes.get(case) != "passed")
    return twins, outcomes, bad, code, seconds


def cmd_twins(args):
    """The twin trial, at generation, in a container with the reference solution applied: every FAIL_TO_PASS
    function's twin (``plant_checks`` with ``trial``) in one pytest session beside the sentinels; writes
    ``{"proven": [keys of the twins every case of which failed or errored], "twins": {key: [outcomes]},
    "interference": {session: [cases]}, "exit_code", "seconds"}`` to ``--results``. A twin the reference passes
    would read as tampering in the oracle's grading: it is left out of config.json's ``twins``, and its test then
    has no twin.

    A twin fails by design, part-way through its test: what the test undoes at its end (a module flag set back,
    glom-144's ``core.PATH_STAR``) stays done, and a test that runs after it in the same session may fail with
    the reference in place: the oracle then scores 0 for some placements of the twins and not others, drawn
    afresh at each grading. So the trial also runs the pair sessions (``pair_arrangements``: for every two
    twinned functions, one a twin and the other itself), and the first session checks the PASS_TO_PASS tests
    beside all twins; a twin of a session in which a graded test that is itself here did not pass is not
    proven (``interference`` names those tests). Raises nothing; an ``OSError`` is written as ``{"error"}``."""
    inputs = read_inputs(args.tests_dir)
    f2p, p2p = inputs["f2p"], inputs["p2p"]
    graded = set(f2p) | set(p2p)
    try:
        twins, outcomes, bad, code, seconds = _trial_session(inputs, None, graded)
        seen = dict((key, sorted(outcomes.get(k, "missing") for k in judged_cases(key, outcomes, twins, graded)))
                    for key in sorted(twins))
        proven = [key for key, found in sorted(seen.items()) if found and set(found) <= {"failed", "error"}]
        interference, suspects = {}, set(twins) if bad else set()
        if bad:
            interference["all twins"] = bad
        for bit, value in pair_arrangements(len(twins)):
            arranged, _, bad, _, more = _trial_session(inputs, _Arranged(bit, value), graded)
            seconds += more
            if bad:
                here = sorted(key for key, at in arranged.items() if at == 0)
                interference["twins " + ", ".join(here)] = bad
                suspects.update(here)
    except OSError as exc:
        sys.stdout.write(json.dumps({"error": str(exc)}))
        return 3
    proven = [key for key in proven if key not in suspects]
    result = {"proven": proven, "twins": seen, "interference": interference, "exit_code": code,
              "seconds": seconds}
    _write_atomic(args.results, json.dumps(result))
    sys.stdout.write(json.dumps({"exit_code": code, "seconds": seconds, "proven": len(proven),
                                 "interfering": len(suspects)}))
    return 0


def cmd_grade(args):
    clock = _Phases()
    env_guard.kill_strays()  # first: nothing the agent left running acts from here on
    logs = args.logs_dir
    _clear_rewards(logs)
    reward, details, locked = 0.0, {}, {}
    try:
        inputs = read_inputs(args.tests_dir)
        clock.mark("inputs")
        if args.inputs_sha256 and inputs["digest"] != args.inputs_sha256:
            raise RuntimeError("the grading inputs in %s are not the ones this task was generated with"
                               % args.tests_dir)
        config, f2p, p2p = inputs["config"], inputs["f2p"], inputs["p2p"]
        if not f2p:
            raise RuntimeError("no FAIL_TO_PASS test to grade")
        intact = ()
        if inputs["python_env"] is not None:
            changed, intact = env_guard.check(inputs["python_env"])
            if changed:
                raise RuntimeError(changed)
        clock.mark("environment check")
        ws = config["workspace"]
        prepare_workspace(inputs)
        # pytest looks for its configuration from the tests' folder up to /: a pytest.ini (or conftest.py) the
        # agent put above the workspace would be read before the repository's own (in a task container only:
        # on a host, the folders above a workspace are the host's)
        if os.environ.get(env_guard.IN_CONTAINER) == "1":
            remove_above(ws, TEST_CONFIG_NAMES)
        clock.mark("workspace")
        files = grade_files(f2p + p2p)
        sentinels, texts, twins = plant_checks(config, f2p, p2p, random.Random(fresh_entropy()))
        folder, junit = _junit_dir()
        locked = _lock([args.tests_dir, logs])
        bytecode = config.get("bytecode") if config.get("prepared") else pinned_bytecode(intact)
        clock.mark("sentinels and locks")
        runs = []
        end_session(_runner_uid(config), ws, clean=True)  # both sessions start alike
        if _runner_uid(config) is not None and os.geteuid() == 0 and os.environ.get(env_guard.IN_CONTAINER) == "1":
            seal_shared(_runner_uid(config))  # nothing left writable carries a note from one session to the next
        for session in (0, 1):
            for rel, variants in sorted(texts.items()):
                with open(os.path.join(ws, rel), "w", encoding="utf-8", errors="surrogateescape") as fh:
                    fh.write(variants[session])
            code, seconds, tail = run_pytest(ws, files, junit, config.get("timeout_sec", 1800),
                                             config.get("pytest_plugins"), _runner_uid(config), bytecode=bytecode)
            end_session(_runner_uid(config))  # nothing the tests started may outlive them (and rewrite the reward)
            outcomes, errors, _ = collect(ws, junit, code, files, tail)
            end_session(_runner_uid(config), ws, clean=True)  # read first: then what the runner user left goes
            _remove(junit)  # a session that writes no report must not read the last one's
            runs.append({"code": code, "seconds": seconds, "outcomes": outcomes, "errors": errors})
            if not texts or judge(runs, f2p, p2p, sentinels, twins)[0] is not None:
                break  # no twins, or the reward is 0 already: the other session cannot change it
        clock.mark("tests")
        shutil.rmtree(folder, ignore_errors=True)
        failure, outcomes, statuses = judge(runs, f2p, p2p, sentinels, twins)
        reward, details = score(outcomes, f2p, p2p, statuses)
        if failure is not None and failure.startswith("tampering: "):
            reward = 0.0
            details["tampering"] = failure[len("tampering: "):]
        code = runs[-1]["code"]
        if any(r["code"] is not None and r["code"] < 0 for r in runs):  # a killed runner did not finish its report
            reward = 0.0
            details["tampering"] = "the test runner was killed by signal %d before it finished" % -min(
                r["code"] for r in runs)
        errors = sorted(set(e for r in runs for e in r["errors"]))
        seconds = sum(r["seconds"] for r in runs)
        details.update({"pytest_exit_code": code, "seconds": round(seconds, 3), "collection_errors": errors,
                        "bytecode": bytecode,
                        "sentinels": len(sentinels), "twins": len(twins), "sessions": len(runs),
                        "audit": audit_changes(ws, inputs["base_files"], set(inputs["overlay"]))})
        clock.mark("results and audit")
        details["phases"] = clock.seconds
        sys.stdout.write(tail + "\n")
    except Exception as exc:  # any failure grades 0: the reward file must always be written
        details = {"error": "%s: %s" % (type(exc).__name__, exc)}
    finally:
        unhide(locked)
    _write_atomic(os.path.join(logs, "reward-details.json"), json.dumps(dict(details, reward=reward), indent=1))
    _write_atomic(os.path.join(logs, "reward.txt"), "%s\n" % reward)
    sys.stdout.write("reward: %s\n" % reward)
    return 0


class _Phases:
    """Seconds (3 decimals) of the grader's phases, each from the previous mark: reward-details.json's
    ``phases`` (where a grading's time goes: ``benchmarks/grading_overhead.py``)."""

    def __init__(self):
        self.seconds, self._last = {}, time.monotonic()

    def mark(self, name):
        now = time.monotonic()
        self.seconds[name] = round(now - self._last, 3)
        self._last = now


def command_parser(description):
    """The grader's command line, shared with ``toolchain_verifier``: ``(parser, subcommands)`` with ``run
    --tests-dir --results`` and ``grade --tests-dir --logs-dir --inputs-sha256``."""
    parser = argparse.ArgumentParser(prog="verifier.py", description=description)
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run")
    run.add_argument("--tests-dir", required=True)
    run.add_argument("--results", required=True)
    grade = sub.add_parser("grade")
    grade.add_argument("--tests-dir", required=True)
    grade.add_argument("--logs-dir", default="/logs/verifier")
    grade.add_argument("--inputs-sha256", default=None)
    return parser, sub


def main(argv=None):
    parser, sub = command_parser(__doc__.split("\n")[0])
    sub.add_parser("plugins")
    twins = sub.add_parser("twins")
    twins.add_argument("--tests-dir", required=True)
    twins.add_argument("--results", required=True)
    args = parser.parse_args(argv)
    if args.command == "plugins":
        sys.stdout.write(json.dumps(installed_plugins()))
        return 0
    if args.command == "run":
        return cmd_run(args)
    if args.command == "grade":
        return cmd_grade(args)
    if args.command == "twins":
        return cmd_twins(args)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
