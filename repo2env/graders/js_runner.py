"""JavaScript/TypeScript's runners for the toolchain grader (``toolchain_verifier``): Jest and Vitest (their JSON
results, ``--json`` / ``--reporter=json``: one format) and Mocha (its ``json`` reporter), run from the
repository's own ``node_modules`` by absolute path with this image's Node.js, and Node.js's own test runner
(``node --test``, runner ``node:test``), whose events (``test:start``/``test:pass``/``test:fail``, each naming its
file and nesting level; Node.js's "custom reporters" API) a reporter module this grader writes records as JSON
lines. Standard library only, Python 3.6+; ships as ``tests/js_runner.py``.

Node ids: ``<test file>::<describe> > <describe> > <test title>`` (Jest's and Vitest's ``ancestorTitles`` and
``title``; node:test's suites and parent tests; Mocha's ``fullTitle``, its titles joined by spaces), re-selectable
with ``jest <file> -t '<title>'`` / ``vitest run <file> -t '<title>'`` / ``node --test --test-name-pattern
'<title>' <file>`` / ``mocha <file> --grep '<title>'``.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time

try:  # the generator imports this module from the repo2env package
    from . import runtime_verifier as core
except ImportError:  # in a bundle: runtime_verifier.py is beside it (or already loaded)
    import runtime_verifier as core

DEFAULT_TOOLCHAIN = {"node": "/opt/r2e/node"}
# Runner configuration, reset by the grader to the base commit's (or the reference's) bytes: a planted or edited
# one could change which files run, what a test sees before it starts, or how results are reported.
CONFIG_NAMES = tuple(
    ["package.json", ".babelrc", ".babelrc.js", ".babelrc.json", "tsconfig.json", ".swcrc"]
    + ["%s.config.%s" % (tool, ext) for tool in ("jest", "vitest", "vite", "vitest.workspace", "babel")
       for ext in ("js", "ts", "mjs", "cjs", "mts", "cts", "json")]
    + ["vitest.workspace.%s" % ext for ext in ("js", "ts", "mjs", "json")]
    + [".mocharc.%s" % ext for ext in ("js", "cjs", "mjs", "json", "jsonc", "yml", "yaml")])
# Caches under node_modules that a runner writes and reads back (transforms, results): removed before a run and
# left out of the environment manifest, so one the agent wrote is never read and one it made honestly grades.
CACHE_DIRS = (".cache", ".vite", ".vitest", ".vite-temp")
JS_EXTENSIONS = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")
_TEST_NAME = re.compile(r"(^|[./])(test|spec)\.(c|m)?[jt]sx?$")
_TITLE = re.compile(r"\b(?:it|test)(?:\.only|\.concurrent)?\s*\(\s*(['\"`])((?:(?!\1).){1,200})\1")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
NODE_TEST = "node:test"
# Node.js's test runner reports through an async generator over its events (the "custom reporters" API, Node.js
# 18.15+/20): this one writes each event the grader reads as one JSON line, its error as text.
NODE_TEST_REPORTER = r"""
export default async function* r2eReporter(source) {
  for await (const event of source) {
    const data = event.data || {};
    if (event.type === "test:stderr" || event.type === "test:stdout") {
      yield JSON.stringify({type: event.type, file: data.file || null, text: String(data.message || "")}) + "\n";
      continue;
    }
    if (!["test:start", "test:pass", "test:fail"].includes(event.type)) continue;
    const details = data.details || {};
    let error = "";
    if (details.error) {
      const cause = details.error.cause !== undefined ? details.error.cause : details.error;
      error = cause && cause.stack ? String(cause.stack) : String(cause);
    }
    yield JSON.stringify({type: event.type, file: data.file || null, name: String(data.name),
                          nesting: data.nesting || 0, skip: data.skip !== undefined && data.skip !== false,
                          todo: data.todo !== undefined && data.todo !== false,
                          suite: details.type === "suite", error: error.slice(0, 4000)}) + "\n";
  }
}
"""


def is_test_path(path):
    """A file of the test patch: ``*.test.*``/``*.spec.*`` sources, anything under ``__tests__``, ``__mocks__``,
    ``__snapshots__``, ``test``/``tests`` folders (Jest's, Vitest's and Mocha's default places)."""
    parts = path.split("/")
    if any(p in ("__tests__", "__mocks__", "__snapshots__", "test", "tests", "__fixtures__") for p in parts[:-1]):
        return True
    return bool(_TEST_NAME.search(parts[-1]))


def _walk(workspace):
    """``core._walk`` without ``node_modules`` (never the repository's tests)."""
    for folder, dirs, names in os.walk(workspace):
        dirs[:] = sorted(d for d in dirs if d not in (".git", "node_modules")
                         and not os.path.islink(os.path.join(folder, d)))
        rel = os.path.relpath(folder, workspace)
        for name in sorted(names):
            yield name if rel == "." else rel + "/" + name


def planted(workspace, base_files, overlay_paths):
    """Files to remove before a run: runner configuration (``CONFIG_NAMES``) and JavaScript test files that are
    neither in the base commit's tree nor written by the overlay (a planted ``jest.config.js`` or setup file).
    Sorted."""
    known = set(base_files or {}) | set(overlay_paths)
    return sorted(rel for rel in _walk(workspace) if rel not in known and (
        rel.rsplit("/", 1)[-1] in CONFIG_NAMES or (rel.endswith(JS_EXTENSIONS) and is_test_path(rel))))


def _words(text):
    return [w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)]


_LITERAL_CALL = re.compile(r"[A-Za-z_$][\w$.]*\((?:\s*(?:-?\d+(?:\.\d+)?|'[^'\\]*'|\"[^\"\\]*\")\s*,?)*\)")
_EXPECT_LINE = re.compile(r"^\s*expect\((?P<inner>.+)\)\.(?P<matcher>toBe|toEqual|toStrictEqual)\((?P<want>.+)\);?\s*$")
_ASSERT_LINE = re.compile(r"^\s*assert\.(?P<matcher>equal|strictEqual|deepEqual|deepStrictEqual)\((?P<inner>.+?),\s*"
                          r"(?P<want>-?\d+(?:\.\d+)?|'[^'\\]*'|\"[^\"\\]*\")\s*\);?\s*$")
_DESCRIBE = re.compile(r"^describe\(\s*(['\"`])(?P<title>(?:(?!\1).)+)\1.*\{\s*$")


def _other_literal(text, rng):
    """A literal of the same kind as ``text`` (a number or a string) with another value."""
    text = text.strip()
    if re.fullmatch(r"-?\d+", text):
        return str(int(text) + rng.choice([-1, 1]) * rng.randint(1, 9))
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"`":
        return text[0] + text[1:-1] + rng.choice(["x", "s", "0", " "]) + text[0]
    return str(rng.randint(2, 999))


_JS_GLOBALS = frozenset(("Math", "JSON", "Number", "String", "Array", "Object", "Date", "BigInt", "Boolean",
                         "parseInt", "parseFloat", "encodeURIComponent", "decodeURIComponent", "Buffer", "Symbol"))
_TOP_BINDING = re.compile(r"^(?:export\s+)?(?:const\s+(?P<const>[A-Za-z_$][\w$]*)\s*=|const\s*\{(?P<names>[^}]*)\}\s*="
                          r"|(?:async\s+)?function\*?\s+(?P<fn>[A-Za-z_$][\w$]*)|class\s+(?P<cls>[A-Za-z_$][\w$]*)"
                          r"|import\s+(?P<import>.+?)\s+from\s)", re.MULTILINE)


def _top_level_names(text):
    """Names bound once and for all at the top of a test file: ``const`` (plain or destructured), ``import``,
    ``function`` and ``class`` declarations at column 0 (a ``let``/``var`` may be assigned later, in a hook)."""
    names = set()
    for m in _TOP_BINDING.finditer(text):
        for group in ("const", "fn", "cls"):
            if m.group(group):
                names.add(m.group(group))
        for group in ("names", "import"):
            for part in re.split(r"[,{}]", m.group(group) or ""):
                # "a", "a: b" / "a as b" (bound as b), "* as ns", "type T"
                words = re.findall(r"[A-Za-z_$][\w$]*", part.split(":")[-1].split(" as ")[-1])
                if words:
                    names.add(words[-1])
    return names


def _sentinel_check(text, rng):
    """The failing statement of a sentinel, asserted the way the file does: one of the file's own
    ``expect(f(literals)).toBe(literal)`` or ``assert.equal(f(literals), literal)`` (node:assert, any of its
    equality methods) lines with another expected value (so neither its shape nor its
    message tells it from a graded test's), else ``expect``/``assert.strictEqual`` of two numbers, else a thrown
    ``Error``. A line is cloned only when its call starts from a name the file binds at its top (``const``,
    ``import``, ``function``, ``class``) or a JavaScript global: one reading a test's own variable would fail with a
    ReferenceError, not through its assertion, and a grader whose assertions were neutered would not see it."""
    lines = [m for m in (pattern.match(line) for line in text.splitlines()
                         for pattern in (_EXPECT_LINE, _ASSERT_LINE)) if m]
    bound = _top_level_names(text) | _JS_GLOBALS
    cloned = [m for m in lines if _LITERAL_CALL.fullmatch(m.group("inner").strip())
              and re.match(r"[A-Za-z_$][\w$]*", m.group("inner").strip()).group(0) in bound]
    if cloned:
        found = rng.choice(cloned)
        if found.re is _ASSERT_LINE:  # node:assert, the method the file uses
            return "assert.%s(%s, %s)" % (found.group("matcher"), found.group("inner").strip(),
                                         _other_literal(found.group("want"), rng))
        return "expect(%s).%s(%s)" % (found.group("inner").strip(), found.group("matcher"),
                                     _other_literal(found.group("want"), rng))
    got = rng.randint(2, 999)
    want = got + rng.choice([-1, 1]) * rng.randint(1, 9)
    if re.search(r"(^|[^\w.])expect\s*\(", text):
        return "expect(%d).toBe(%d)" % (got, want)
    if re.search(r"(^|[^\w.])assert\.(strictEqual|equal|deepStrictEqual)\s*\(", text):
        return "assert.strictEqual(%d, %d)" % (got, want)
    return "throw new Error(\"expected %d to equal %d\")" % (got, want)


def plant_sentinels(workspace, files, count, rng, runner=None):
    """Add ``count`` sentinel tests to the graded test files (in turn): titled like the file's own tests
    (``_title_like``), declared with the file's own ``it``/``test``, failing through the file's own assertions
    (``_sentinel_check``), and placed at random: as the first test of one of the file's top-level ``describe``
    blocks, or before one of its top-level statements. Returns their node ids (Mocha's joins a describe's title
    and the test's with a space, as its ``fullTitle`` does)."""
    planted_ids = []
    files = [f for f in files if f.endswith(JS_EXTENSIONS)]
    for i, rel, path, text in core.sentinel_texts(workspace, files, count):
        titles = [m.group(2) for m in _TITLE.finditer(text)]
        declare = "it" if re.search(r"(^|[^\w.])it\s*\(", text) else "test"
        if not re.search(r"(^|[^\w.])%s\s*\(" % declare, text):
            continue
        words = sorted(set(w for t in titles for w in _words(t))) or ["value", "result", "case"]
        taken = set(titles) | set(p.split("::", 1)[1].rsplit(" > ", 1)[-1] for p in planted_ids)
        for _ in range(50):
            name = _title_like(titles, words, rng)
            if name not in taken:
                break
        else:
            continue
        check = _sentinel_check(text, rng)
        lines = text.splitlines(True)
        places = [(n, _DESCRIBE.match(line)) for n, line in enumerate(lines)
                  if _DESCRIBE.match(line) or re.match(r"(it|test|describe)\s*(\.\w+\s*)?\(", line)]
        at, describe = rng.choice(places) if places else (len(lines), None)
        if describe is not None:  # the first test of a top-level describe block
            lines.insert(at + 1, "  %s(%s, () => {\n    %s;\n  });\n\n" % (declare, json.dumps(name), check))
            node = "%s::%s%s%s" % (rel, describe.group("title"), " " if runner == "mocha" else " > ", name)
        else:
            if at == len(lines) and lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            lines.insert(at, "%s(%s, () => {\n  %s;\n});\n\n" % (declare, json.dumps(name), check))
            node = "%s::%s" % (rel, name)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("".join(lines))
        planted_ids.append(node)
    return planted_ids


def _title_like(titles, words, rng):
    """A test title shaped like the file's own: one of its titles with one of its words put in another word's
    place (the same length, no word twice), else three of its words without repeats."""
    if titles:
        title = rng.choice(titles)
        spots = [m for m in re.finditer(r"[A-Za-z]{3,}", title)]
        others = [w for w in words if w not in _words(title)]
        if spots and others:
            spot = rng.choice(spots)
            return title[:spot.start()] + rng.choice(others) + title[spot.end():]
    return " ".join(rng.sample(words, min(3, len(words))))


def js_env(node, home):
    """The whole environment of a run: nothing inherited (no ``NODE_OPTIONS``, no ``npm_config_*``)."""
    return {"PATH": node + "/bin:/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": home, "CI": "true",
            "NODE_ENV": "test", "FORCE_COLOR": "0", "NO_COLOR": "1", "LANG": "C.UTF-8"}


def _first(workspace, candidates):
    for rel in candidates:
        path = os.path.join(workspace, "node_modules", rel)
        if os.path.isfile(path):
            return path
    return None


def command(runner, workspace, node, targets, out, scratch, flags=(), reporter=None):
    """The argv of one run of ``runner`` writing its JSON results to ``out``. ``flags``: Node.js options the
    repository's test script gives ``node --test`` (``node_test_flags``); ``reporter``: the path of the
    ``NODE_TEST_REPORTER`` module. Raises ``RuntimeError`` when the runner is not installed in
    ``workspace/node_modules``."""
    exe = os.path.join(node, "bin", "node")
    if runner == NODE_TEST:
        return [exe] + list(flags) + ["--test", "--test-reporter=" + reporter,
                                      "--test-reporter-destination=" + out] + list(targets)
    if runner == "jest":
        cli = _first(workspace, ["jest/bin/jest.js", "jest-cli/bin/jest.js"])
        args = ["--ci", "--json", "--outputFile=" + out, "--cacheDirectory=" + os.path.join(scratch, "jest-cache"),
                "--watchman=false", "--colors=false"] + (["--runTestsByPath"] + list(targets) if targets else [])
    elif runner == "vitest":
        cli = _first(workspace, ["vitest/vitest.mjs"])
        args = ["run", "--reporter=json", "--outputFile=" + out, "--color=false"] + list(targets)
    elif runner == "mocha":
        cli = _first(workspace, ["mocha/bin/mocha.js", "mocha/bin/mocha", "mocha/bin/_mocha"])
        args = ["--reporter", "json", "--reporter-option", "output=" + out, "--no-color"] + list(targets)
    else:
        raise RuntimeError("unknown JavaScript runner %r" % runner)
    if cli is None:
        raise RuntimeError("%s is not installed in node_modules" % runner)
    return [exe, cli] + args


def _message(text, limit=3000):
    return _ANSI.sub("", text or "").strip()[:limit]


def parse_results(runner, text, workspace, notes=None):
    """``(outcomes, collection_errors, messages)`` of a JSON report: Jest/Vitest (``testResults`` with
    ``assertionResults``), Mocha (``tests``/``failures``/``pending``) or node:test (``NODE_TEST_REPORTER``'s JSON
    lines, ``_parse_node_test``). A test file that reported no test and
    failed (it did not load) is a collection error with the runner's message. ``notes``, when a dict, gets
    ``{"failures": {node id: message}, "skipped": {}}``. Raises ``ValueError`` for text that is not such a
    report."""
    data = json.loads(text) if runner != NODE_TEST else None
    outcomes, errors, messages, failures = {}, [], {}, {}

    def put(node, outcome, message=""):
        if core.OUTCOME_RANK[outcome] >= core.OUTCOME_RANK.get(outcomes.get(node), -1):
            outcomes[node] = outcome
        if outcome == "failed" and message:
            failures.setdefault(node, _message(message))

    def rel(path):
        path = path or ""
        return os.path.relpath(path, workspace) if os.path.isabs(path) else path

    if runner in ("jest", "vitest"):
        for suite in data.get("testResults") or []:
            file = rel(suite.get("name") or suite.get("testFilePath"))
            cases = suite.get("assertionResults") or suite.get("testResults") or []
            for case in cases:
                titles = list(case.get("ancestorTitles") or []) + [str(case.get("title") or "")]
                node = "%s::%s" % (file, " > ".join(t for t in titles if t != ""))
                status = case.get("status")
                outcome = {"passed": "passed", "failed": "failed"}.get(status, "skipped")
                put(node, outcome, "\n".join(case.get("failureMessages") or []))
            if not cases and suite.get("status") == "failed":
                errors.append(file)
                messages[file] = _message(suite.get("message") or suite.get("failureMessage") or "did not load", 800)
    elif runner == "mocha":
        failed = set()
        for case in data.get("failures") or []:
            node = "%s::%s" % (rel(case.get("file")), case.get("fullTitle") or case.get("title"))
            put(node, "failed", (case.get("err") or {}).get("message", ""))
            failed.add(node)
        for case in data.get("passes") or []:
            put("%s::%s" % (rel(case.get("file")), case.get("fullTitle") or case.get("title")), "passed")
        for case in data.get("pending") or []:
            put("%s::%s" % (rel(case.get("file")), case.get("fullTitle") or case.get("title")), "skipped")
    elif runner == NODE_TEST:
        _parse_node_test(text, rel, put, errors, messages)
    else:
        raise ValueError("unknown JavaScript runner %r" % runner)
    if notes is not None:
        notes["failures"], notes["skipped"] = failures, {}
    return outcomes, sorted(set(errors)), messages


def _parse_node_test(text, rel, put, errors, messages):
    """Read ``NODE_TEST_REPORTER``'s JSON lines: a test's name is its enclosing suites' and parent tests' names
    (the ``test:start`` events before it at lower nesting, per file) and its own; a suite is not a test; a skipped
    or todo test is skipped; a failure at nesting 0 named after its file is the file's process failing (it did not
    load, or it exited before its tests ended): a collection error, with what the file wrote to stderr, and every
    test reported from that file failed. Raises ``ValueError`` for a line that is not JSON."""
    stacks, stderr, failed_files, nodes = {}, {}, set(), set()
    for line in text.splitlines():
        if not line.strip():
            continue
        event = json.loads(line)
        file = rel(event.get("file"))
        if event.get("type") in ("test:stderr", "test:stdout"):
            stderr.setdefault(file, []).append(str(event.get("text") or ""))
            continue
        nesting, name = int(event.get("nesting") or 0), str(event.get("name") or "")
        stack = stacks.setdefault(file, [])
        if event.get("type") == "test:start":
            del stack[nesting:]
            stack.append(name)
            continue
        if nesting == 0 and name and (name == event.get("file") or rel(name) == file):
            if event.get("type") == "test:fail":  # the file's own process failed: none of its reports is believed
                failed_files.add(file)
                errors.append(file)
                messages[file] = _message("".join(stderr.get(file, [])) or event.get("error") or "did not load", 800)
            continue
        if event.get("suite"):
            continue
        titles = stack[:nesting] + [name]
        node = "%s::%s" % (file, " > ".join(titles))
        nodes.add((file, node))
        if event.get("skip") or event.get("todo"):
            put(node, "skipped")
        else:
            put(node, "passed" if event.get("type") == "test:pass" else "failed", event.get("error") or "")


ANCESTOR_NAMES = ("node_modules", "package.json", "tsconfig.json", "jsconfig.json", ".babelrc", ".babelrc.js",
                  "babel.config.js", "babel.config.json", "babel.config.cjs", ".swcrc")


def clear_ancestors(workspace):
    """Remove what Node.js, TypeScript and Babel would read from the folders above the workspace (a
    ``/node_modules`` is searched when a package is not in the workspace's own; a parent ``tsconfig.json`` or
    ``.babelrc`` changes how files compile): nothing there belongs to the repository. Returns what was removed."""
    return core.remove_above(workspace, ANCESTOR_NAMES)


def _open_config_folders(workspace):
    """Make the workspace root and every folder holding a Vite/Vitest configuration world-writable with the sticky
    bit (``1777``) for the run: Vite writes its bundled configuration beside the file
    (``vitest.config.ts.timestamp-<n>.mjs``), while no file there can be replaced, renamed or removed by the
    runner user (the sticky bit). Returns the former modes, for ``run`` to restore."""
    folders = {workspace}
    for rel in _walk(workspace):
        name = rel.rsplit("/", 1)[-1]
        if name.startswith(("vite.config.", "vitest.config.", "vitest.workspace.")):
            folders.add(os.path.join(workspace, os.path.dirname(rel)))
    modes = {}
    for folder in sorted(folders):
        if os.path.isdir(folder) and not os.path.islink(folder):
            modes[folder] = os.stat(folder).st_mode & 0o7777
            os.chmod(folder, 0o1777)
    return modes


def run(workspace, targets, timeout_sec, toolchain, runner_uid=None, full_log=None):
    """One run of ``toolchain["runner"]`` on ``targets`` (test files; empty = the runner's own discovery) in
    ``workspace``, as ``runner_uid`` when not None and the grader is root, in a fresh folder it owns, after the
    runner caches under ``node_modules`` (``CACHE_DIRS``) are removed. Returns ``(exit_code, seconds, outcomes,
    collection_errors, messages, notes, log_tail)``; exit code 124 means the run hit ``timeout_sec``. When the
    runner wrote no report, every target is a collection error with the last lines of its output. What the
    folders above the workspace hold for Node.js is removed first (``clear_ancestors``)."""
    node = toolchain.get("node", DEFAULT_TOOLCHAIN["node"])
    runner = toolchain.get("runner")
    clear_ancestors(workspace)
    for name in CACHE_DIRS:
        path = os.path.join(workspace, "node_modules", name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
    scratch = tempfile.mkdtemp(prefix="r2e-run-")
    home = os.path.join(scratch, "home")
    os.mkdir(home)
    out = os.path.join(scratch, "results.json")
    reporter, on_stdout = None, runner == NODE_TEST  # node:test's events come on the runner's stdout
    if runner == NODE_TEST:  # in a folder of the grader's, which the runner user can read and not change
        folder = tempfile.mkdtemp(prefix="r2e-reporter-")
        os.chmod(folder, 0o755)
        reporter = os.path.join(folder, "reporter.mjs")
        with open(reporter, "w", encoding="utf-8") as fh:
            fh.write(NODE_TEST_REPORTER)
        os.chmod(reporter, 0o644)
        # the events come on the runner's stdout, a pipe the grader made as root: code under test, running as
        # the runner's user, could replace or truncate a file, and could reopen a pipe it owned through
        # /proc/<pid>/fd, but not this one (the test files' own output reaches it only as escaped test:stdout)
        out = "stdout"
    preexec, opened = None, {}
    if runner_uid is not None and os.geteuid() == 0:
        for path in (scratch, home):
            os.chown(path, runner_uid, runner_uid)
        preexec = core._drop_privileges(runner_uid)
        opened = _open_config_folders(workspace)
    start = time.time()
    try:
        argv = command(runner, workspace, node, targets, out, scratch, toolchain.get("flags") or (), reporter)
        proc = subprocess.run(argv, cwd=workspace, env=js_env(node, home), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE if on_stdout else subprocess.STDOUT, timeout=timeout_sec,
                              preexec_fn=preexec)
        code = proc.returncode
        log = (proc.stderr if on_stdout else proc.stdout).decode("utf-8", "replace")
        received = proc.stdout.decode("utf-8", "replace") if on_stdout else None
    except subprocess.TimeoutExpired as exc:
        code, log = 124, (exc.stdout or b"").decode("utf-8", "replace") if isinstance(exc.stdout, bytes) else ""
        received = None
    finally:
        for path, mode in opened.items():
            os.chmod(path, mode)
    seconds = time.time() - start
    notes = {}
    try:
        if received is not None:
            if not received.strip():
                raise ValueError("node --test reported nothing")
            outcomes, errors, messages = parse_results(runner, received, workspace, notes)
        else:
            with open(out, encoding="utf-8", errors="replace") as fh:
                outcomes, errors, messages = parse_results(runner, fh.read(), workspace, notes)
    except (OSError, ValueError):
        why = "\n".join(_message(log).splitlines()[-8:]) or "%s exit %s, no report" % (runner, code)
        outcomes, errors, messages = {}, sorted(targets), {t: why for t in targets}
        notes = {"failures": {}, "skipped": {}}
    shutil.rmtree(scratch, ignore_errors=True)
    if reporter:
        shutil.rmtree(os.path.dirname(reporter), ignore_errors=True)
    if full_log:
        core._write_atomic(full_log, log)
    return code, seconds, outcomes, errors, messages, notes, log[-4000:]
