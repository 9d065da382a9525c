"""Go's runner for the toolchain grader (``toolchain_verifier``): ``go test``'s node ids, its runs (test binaries
built first, then run with every test source unreadable to them), its events, the files a run must not see, and
its sentinels. Standard library only, Python 3.6+; ships as ``tests/go_runner.py``.

Node ids: ``<test file>::<TestName>[/<subtest>]``, the file being the ``_test.go`` file that declares the
top-level test (subtest names as ``go test`` prints them, spaces as underscores), re-selectable with
``go test ./<dir> -run '^TestName$/^subtest$'``.
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

CONFIG_NAMES = ("go.mod", "go.sum", "go.work", "go.work.sum")
GO_CONFIG_NAMES = CONFIG_NAMES
DEFAULT_TOOLCHAIN = {"goroot": "/usr/local/go", "gopath": "/opt/r2e/gopath", "gocache": "/opt/r2e/gocache"}
_GO_FUNC = re.compile(r"^func\s+((?:Test|Example|Fuzz|Benchmark)\w*)\s*\(", re.MULTILINE)


def go_module(workspace):
    """The module path of ``workspace/go.mod`` (its ``module`` line), or "" when there is none."""
    try:
        with open(os.path.join(workspace, "go.mod"), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                found = re.match(r"\s*module\s+(\"?)([^\s\"]+)\1", line)
                if found:
                    return found.group(2)
    except OSError:
        pass
    return ""


def package_dir(import_path, module):
    """The workspace-relative folder of a package of ``module`` ("." for the module's root), or None for a
    package outside it."""
    import_path = (import_path or "").split(" ", 1)[0]
    if import_path == module:
        return "."
    if module and import_path.startswith(module + "/"):
        return import_path[len(module) + 1:]
    return None


def test_functions(workspace, folder):
    """``{top-level test name: its _test.go file (workspace-relative)}`` of one package folder."""
    found = {}
    path = os.path.join(workspace, folder)
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return found
    for name in names:
        if not name.endswith("_test.go") or os.path.islink(os.path.join(path, name)):
            continue
        rel = name if folder == "." else folder + "/" + name
        try:
            with open(os.path.join(path, name), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        for match in _GO_FUNC.finditer(text):
            found.setdefault(match.group(1), rel)
    return found


def node_id(workspace, folder, test, files_cache):
    """The node id of ``test`` (``TestX`` or ``TestX/sub``) of the package in ``folder`` (module docstring)."""
    if folder not in files_cache:
        files_cache[folder] = test_functions(workspace, folder)
    top = test.split("/", 1)[0]
    return "%s::%s" % (files_cache[folder].get(top, folder), test)


_NOISE = re.compile(r"^(=== (RUN|PAUSE|CONT|NAME)|--- (FAIL|PASS|SKIP)|FAIL|PASS|ok\s|exit status)")


def parse_go_events(text, workspace, targets=(), notes=None):
    """Outcomes of a ``go test -json`` run: ``(outcomes, collection_errors, messages)``.

    ``outcomes``: node id -> passed / failed / skipped (several reports of one test aggregate to the worst; a
    test that started and never ended in a package that failed, the one a panic or ``os.Exit`` stopped, failed);
    ``collection_errors``: the ``targets`` (test files) of packages that reported no test at all and failed (a
    build failure: SWE-bench counts every test of a module that cannot be imported as failing), with the
    build's own lines as ``messages``. ``notes``, when a dict, gets ``{"failures": {node id: the test's own
    output}, "skipped": {node id: why}}``. Lines that are not JSON events are ignored."""
    module = go_module(workspace)
    worst, output, package_state, package_output, started = {}, {}, {}, {}, []
    files_cache = {}
    for event in core.json_objects(text):
        action = event.get("Action")
        package = (event.get("Package") or event.get("ImportPath") or "").split(" ", 1)[0]
        folder = package_dir(package, module)
        if folder is None:
            continue
        test = event.get("Test")
        if action == "run" and test:
            started.append((folder, str(test)))
        if action in ("output", "build-output"):
            target = output.setdefault((folder, test), []) if test else package_output.setdefault(folder, [])
            target.append(str(event.get("Output") or ""))
        elif action in ("pass", "fail", "skip") and test:
            outcome = {"pass": "passed", "fail": "failed", "skip": "skipped"}[action]
            key = node_id(workspace, folder, str(test), files_cache)
            if core.OUTCOME_RANK[outcome] >= core.OUTCOME_RANK.get(worst.get(key), -1):
                worst[key] = outcome
            output.setdefault((folder, test), [])
        elif action in ("pass", "fail", "skip", "build-fail"):
            package_state[folder] = "fail" if action == "build-fail" else action
    for folder, test in started:  # running when the binary died (a panic, os.Exit): it failed
        key = node_id(workspace, folder, test, files_cache)
        if key not in worst and package_state.get(folder) == "fail":
            worst[key] = "failed"
    tested = set(k.split("::", 1)[0] for k in worst)
    errors, messages = [], {}
    for folder, state in sorted(package_state.items()):
        if state != "fail" or any(_in_folder(k, folder) for k in worst):
            continue
        said = [ln.rstrip() for ln in package_output.get(folder, []) if ln.strip() and not _NOISE.match(ln.strip())]
        why = "\n".join(said[-12:]) or "the package failed to build"
        for target in targets or sorted(set(test_functions(workspace, folder).values())):
            if _in_folder(target, folder) and target not in tested:
                errors.append(target)
                messages[target] = why
    if notes is not None:
        failures, skipped = {}, {}
        for (folder, test), lines in output.items():
            if not test:
                continue
            key = node_id(workspace, folder, test, files_cache)
            said = [ln.rstrip("\n") for ln in lines if ln.strip() and not _NOISE.match(ln.strip())]
            if worst.get(key) == "failed" and said:
                failures[key] = "\n".join(s.strip() for s in said)[:3000]
            elif worst.get(key) == "skipped" and said:
                skipped[key] = said[-1].strip()
        notes["failures"], notes["skipped"] = failures, skipped
    return worst, sorted(set(errors)), messages


def _in_folder(rel, folder):
    """Whether the workspace-relative ``rel`` (a file or a node id) is directly in ``folder``."""
    path = rel.split("::", 1)[0]
    parent = os.path.dirname(path) or "."
    return parent == folder or path == folder


def go_env(toolchain, home, gocache):
    """The whole environment of a ``go test`` run (module docstring, step 5): nothing inherited."""
    goroot = toolchain.get("goroot", DEFAULT_TOOLCHAIN["goroot"])
    gopath = toolchain.get("gopath", DEFAULT_TOOLCHAIN["gopath"])
    return {"PATH": goroot + "/bin:/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": home,
            "GOROOT": goroot, "GOPATH": gopath, "GOMODCACHE": gopath + "/pkg/mod", "GOCACHE": gocache,
            "GOFLAGS": "-mod=readonly -buildvcs=false", "GOPROXY": "off", "GOSUMDB": "off", "GONOSUMDB": "",
            "GOTOOLCHAIN": "local", "GOENV": "off", "GOWORK": "off", "CGO_ENABLED": "0", "GOTELEMETRY": "off",
            "LANG": "C.UTF-8"}


def _as(runner_uid):
    """The ``preexec_fn`` that runs a child as ``runner_uid`` (None: as the grader's own user)."""
    return core._drop_privileges(runner_uid) if runner_uid is not None else None


def _event(action, import_path, output=None):
    event = {"Action": action, "Package": import_path}
    if output is not None:
        event["Output"] = output
    return json.dumps(event)


def _test_sources(workspace):
    """Every ``_test.go`` file of the workspace (absolute paths), symlinks left out."""
    return [os.path.join(workspace, rel) for rel in core._walk(workspace)
            if rel.endswith("_test.go") and not os.path.islink(os.path.join(workspace, rel))]


def run_go(workspace, targets, timeout_sec, toolchain, runner_uid=None, full_log=None):
    """Run the tests of the packages of ``targets`` (their folders) in ``workspace`` the way ``go test -json
    -count=1 -vet=off`` does, in two steps, so that the code under test never reads a test's source: each
    package's test binary is built (``go test -c``), then every ``_test.go`` file of the workspace is made
    readable by root alone, and each binary runs in its package's folder with ``-test.v=test2json``, its output
    turned into events by ``go tool test2json`` (the same converter ``go test -json`` uses). A package that does
    not build gets ``build-output`` and ``fail`` events. ``runner_uid``: when not None and the grader is root,
    both steps run as that user, with a private copy of the image's warm build cache (``toolchain["gocache"]``)
    in a fresh folder it owns. Returns ``(exit_code, seconds, events_text, log_tail)``: 0 when every package
    passed, 1 when one failed, 124 when the run hit ``timeout_sec``. ``full_log``: a path for the whole output."""
    start = time.time()
    deadline = start + timeout_sec
    scratch = tempfile.mkdtemp(prefix="r2e-run-")
    home, gocache, binaries = (os.path.join(scratch, n) for n in ("home", "gocache", "bin"))
    os.mkdir(home)
    os.mkdir(binaries)
    core.copy_warm(toolchain.get("gocache", DEFAULT_TOOLCHAIN["gocache"]), gocache)
    runner_uid = core.give_to_runner(scratch, runner_uid)
    go = os.path.join(toolchain.get("goroot", DEFAULT_TOOLCHAIN["goroot"]), "bin", "go")
    env = go_env(toolchain, home, gocache)
    module = go_module(workspace)
    events, log, code, hidden = [], [], 0, {}
    try:
        folders = _package_folders(go, workspace, env, targets, runner_uid, deadline)
        built = []
        for i, folder in enumerate(folders):
            import_path = module if folder == "." else module + "/" + folder
            binary = os.path.join(binaries, "p%d.test" % i)
            proc = subprocess.run([go, "test", "-c", "-vet=off", "-o", binary, "./" + folder if folder != "."
                                   else "."], cwd=workspace, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=max(deadline - time.time(), 1),
                                  preexec_fn=_as(runner_uid))
            said = proc.stdout.decode("utf-8", "replace")
            log.append(said)
            if proc.returncode != 0:
                code = 1
                events += [_event("build-output", import_path, line + "\n") for line in said.splitlines()]
                events.append(_event("fail", import_path))
            elif os.path.isfile(binary):
                built.append((folder, import_path, binary))
        hidden = core.hide(_test_sources(workspace))  # from here on the code under test cannot read a test
        for folder, import_path, binary in built:
            left = deadline - time.time()
            if left <= 1:
                raise subprocess.TimeoutExpired("go test", timeout_sec)
            proc = subprocess.run([binary, "-test.v=test2json", "-test.paniconexit0", "-test.count=1",
                                   "-test.timeout=%ds" % max(int(left) - 2, 1)],
                                  cwd=os.path.join(workspace, folder), env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=left, preexec_fn=_as(runner_uid))
            converted = subprocess.run([go, "tool", "test2json", "-p", import_path], input=proc.stdout, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120,
                                       preexec_fn=_as(runner_uid)).stdout.decode("utf-8", "replace")
            log.append(proc.stdout.decode("utf-8", "replace"))
            # the package's verdict is the binary's exit status, never a line it printed
            events += [ln for ln in converted.splitlines() if not _package_verdict(ln)]
            events.append(_event("pass" if proc.returncode == 0 else "fail", import_path))
            code = code or (0 if proc.returncode == 0 else 1)
    except subprocess.TimeoutExpired:
        code = 124
    finally:
        core.unhide(hidden)
        shutil.rmtree(scratch, ignore_errors=True)
    text = "".join(log)
    if full_log:
        core._write_atomic(full_log, text)
    return code, time.time() - start, "\n".join(events), text[-4000:]


def _package_verdict(line):
    """Whether an event line is a package-level pass/fail/skip (``run_go`` writes its own from the exit code)."""
    try:
        event = json.loads(line)
    except ValueError:
        return False
    return isinstance(event, dict) and not event.get("Test") and event.get("Action") in ("pass", "fail", "skip")


def _package_folders(go, workspace, env, targets, runner_uid, deadline):
    """The workspace-relative folders of the packages to test: those of ``targets``; with none, every package
    of the module (``go list``)."""
    if targets:
        return sorted(set(os.path.dirname(t) or "." for t in targets))
    proc = subprocess.run([go, "list", "-e", "-f", "{{.Dir}}", "./..."], cwd=workspace, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=max(deadline - time.time(), 1),
                          preexec_fn=_as(runner_uid))
    root = os.path.realpath(workspace)
    found = []
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        rel = os.path.relpath(os.path.realpath(line.strip()), root) if line.strip() else ""
        if rel and not rel.startswith(".."):
            found.append(rel)
    return sorted(set(found))


def planted(workspace, base_files, overlay_paths):
    """Files to remove before a Go run (module docstring, step 3): ``*_test.go`` files and Go configuration files
    (``GO_CONFIG_NAMES``) that are neither in the base commit's tree nor written by the overlay. Sorted."""
    known = set(base_files or {}) | set(overlay_paths)
    found = []
    for rel in core._walk(workspace):
        name = rel.rsplit("/", 1)[-1]
        if rel not in known and (name.endswith("_test.go") or name in GO_CONFIG_NAMES):
            found.append(rel)
    return sorted(found)


_WORD = re.compile(r"[A-Z][a-z0-9]+|[A-Z]+(?![a-z])|[a-z0-9]+")


_FORMAT = re.compile(r"\bt\.(Errorf|Fatalf)\(\s*\"((?:[^\"\\\n]|\\.)*)\"")
_VERB = re.compile(r"%[-+# 0]*\d*(?:\.\d+)?([a-zA-Z%])")


def _verb_value(verb, rng):
    """A Go literal that ``fmt`` prints with ``verb`` as it would print a test's own value."""
    if verb in "dxXobcU":
        return str(rng.randint(2, 999))
    if verb in "fgeEG":
        return "%d.%d" % (rng.randint(0, 99), rng.randint(1, 9))
    if verb == "t":
        return rng.choice(["true", "false"])
    return '"%s"' % rng.choice(["a", "b", "x", "0", "1.2", "abc", "foo", "name"])


def _sentinel_check(text, rng):
    """The failing statement of a sentinel, asserted the way the file does (so the report of a tampered runner
    cannot tell it from a graded test's by its message): testify's ``assert``/``require.Equal`` when the file
    uses them, else ``t.Errorf``/``t.Fatalf`` with one of the file's own format strings and values of the
    verbs' kinds, else a got/want ``t.Errorf``."""
    got = rng.randint(2, 999)
    want = got + rng.choice([-1, 1]) * rng.randint(1, 9)
    for package in ("assert", "require"):
        if re.search(r'^\s*(?:%s\s+)?"github\.com/stretchr/testify/%s"' % (package, package), text, re.MULTILINE) \
                and re.search(r"\b%s\.Equal\(t," % package, text):
            return "%s.Equal(t, %d, %d)" % (package, want, got)
    formats = [m for m in _FORMAT.finditer(text)]
    if formats:
        found = rng.choice(formats)
        verbs = [v for v in _VERB.findall(found.group(2)) if v != "%"]
        args = "".join(", " + _verb_value(v, rng) for v in verbs)
        return 't.%s("%s"%s)' % (found.group(1), found.group(2), args)
    return 't.Errorf("got %%d, want %%d", %d, %d)' % (got, want)


def plant_sentinels(workspace, files, count, rng, runner=None):
    """Add ``count`` sentinel tests to the graded ``_test.go`` files (in turn, the first ones first: the
    FAIL_TO_PASS files); returns their node ids. Each is named ``Test`` + words of the file's own test names,
    fails through the file's own assertion style (``_sentinel_check``) and goes in before a top-level function
    of the file chosen at random (never always last), so neither its name, its message nor its place tells it
    from a graded test. A file whose package does not import ``testing`` under that name gets none."""
    planted = []
    files = [f for f in files if f.endswith("_test.go")]
    for _, rel, path, text in core.sentinel_texts(workspace, files, count):
        if not re.search(r'^\s*(import\s+)?"testing"\s*$', text, re.MULTILINE):
            continue
        folder = os.path.dirname(rel) or "."
        taken = set(test_functions(workspace, folder)) | set(re.findall(r"^func\s+(\w+)", text, re.MULTILINE))
        words = [w.capitalize() for name in sorted(taken) for w in _WORD.findall(name[4:] if name.startswith(
            "Test") else name)] or ["Value", "Case", "Result"]
        for _ in range(50):
            name = "Test" + rng.choice(words) + rng.choice(words) + rng.choice(["", "Value", "Case", "Empty"])
            if name not in taken:
                break
        else:
            continue
        body = "func %s(t *testing.T) {\n\t%s\n}\n\n" % (name, _sentinel_check(text, rng))
        lines = text.splitlines(True)
        starts = [n for n, line in enumerate(lines) if line.startswith("func ")] + [len(lines)]
        at = rng.choice(starts)
        if at == len(lines) and lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines.insert(at, ("\n" if at == len(lines) else "") + body)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("".join(lines))
        planted.append("%s::%s" % (rel, name))
    return planted


def run(workspace, targets, timeout_sec, toolchain, runner_uid=None, full_log=None):
    """One run for the grader: ``(exit_code, seconds, outcomes, collection_errors, messages, notes, log_tail)``
    (``run_go`` then ``parse_go_events``)."""
    code, seconds, events, tail = run_go(workspace, targets, timeout_sec, dict(DEFAULT_TOOLCHAIN, **toolchain),
                                         runner_uid, full_log)
    notes = {}
    outcomes, errors, messages = parse_go_events(events, workspace, targets, notes)
    return code, seconds, outcomes, errors, messages, notes, tail
