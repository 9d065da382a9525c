"""Rust's runner for the toolchain grader (``toolchain_verifier``): cargo's test targets, built first (``cargo test
--no-run``, cargo's JSON messages naming each test binary and the target it was built from), then each binary run
with libtest's JSON events (``--format json``; on a stable toolchain libtest accepts it when the binary runs with
``RUSTC_BOOTSTRAP=1``: it is libtest's own reporter, the one ``cargo test -- --format json`` prints on nightly).
Standard library only, Python 3.6+; ships as ``tests/rust_runner.py``.

Node ids: ``<target's root file>::<test path>``: the file cargo compiles the test crate from (``src/lib.rs`` for
a library's unit tests, ``tests/parse.rs`` for an integration test, ``crates/x/src/main.rs`` in a workspace) and
libtest's full name of the test (``parser::tests::empty_input``), re-selectable with ``cargo test --lib --
--exact parser::tests::empty_input`` / ``cargo test --test parse -- --exact <name>``. Rust test names are paths
of identifiers: a table test is one test. Doc tests are not run (they have no test binary).
"""

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

# Where the image keeps the toolchain (rustc, cargo and the standard library), cargo's home (the registry as the
# install fetched it) and the warm target folder (every test target compiled once at image build time).
# Written by the install (languages/rust/recipe.py) when the base commit builds with ``--all-features``: every
# run and the grader then compile so (a feature-gated module's tests run). Only this exact content counts, so
# whatever else the file holds (the agent may write it) compiles with the default features: tests behind a
# feature then fail to appear, which grades 0, never more.
FEATURES_FILE, ALL_FEATURES = "features", "--all-features"
DEFAULT_TOOLCHAIN = {"rust": "/usr/local/rust", "cargo_home": "/opt/r2e/cargo", "target": "/opt/r2e/cargo-target",
                     "lock": "/opt/r2e/cargo-lock"}
# Reset by the grader to the base commit's (or the reference's) bytes: the manifest (a ``[[test]] harness =
# false`` target reports what it likes; ``[profile]`` or a patched dependency changes what is built), the
# lockfile, the build script, and cargo's configuration (a ``[target] runner`` wraps every test binary).
CONFIG_NAMES = ("Cargo.toml", "Cargo.lock", "build.rs", "config.toml", "config", "rust-toolchain",
                "rust-toolchain.toml")
# The same in the install and in every run: the warm target folder is reused only under the same profile.
# ``--cap-lints=warn`` (crater's setting): a base commit's ``#![deny(warnings)]`` meets lints its compiler did
# not have (``unexpected_cfgs``), which would fail every build with this toolchain; warnings grade nothing.
BUILD_ENV = {"CARGO_INCREMENTAL": "0", "CARGO_PROFILE_DEV_DEBUG": "0", "CARGO_PROFILE_TEST_DEBUG": "0",
             "CARGO_TERM_COLOR": "never", "RUSTFLAGS": "--cap-lints=warn"}
SKIP_DIRS = (".git", "target")
# Folders whose ``.rs`` files are a test's input read at run time (a parser's fixtures), never hidden from it
DATA_DIRS = {"fixtures", "testdata", "test_data", "data", "corpus", "inputs", "snapshots"}
_TEST_ATTR = re.compile(r"^(?P<indent>[ \t]*)#\[(?:tokio::)?test\]\s*$")
_MOD_OPEN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(?P<name>\w+)\s*\{")
_FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+(?P<name>\w+)")


def is_config_path(rel):
    """Whether ``rel`` is cargo configuration ``planted`` and the overlay look after (``CONFIG_NAMES``; cargo's
    ``config``/``config.toml`` only inside a ``.cargo`` folder)."""
    parts = rel.split("/")
    if parts[-1] in ("config", "config.toml"):
        return len(parts) > 1 and parts[-2] == ".cargo"
    return parts[-1] in CONFIG_NAMES


def _walk(workspace):
    """``core._walk`` without ``target`` folders (cargo's output, never the repository's files)."""
    for folder, dirs, names in os.walk(workspace):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not os.path.islink(os.path.join(folder, d)))
        rel = os.path.relpath(folder, workspace)
        for name in sorted(names):
            yield name if rel == "." else rel + "/" + name


def planted(workspace, base_files, overlay_paths):
    """Files to remove before a run (``toolchain_verifier`` step 3): ``.rs`` files under a ``tests`` folder
    (integration tests cargo finds by their place) and cargo configuration (``is_config_path``) that are neither in
    the base commit's tree nor written by the overlay. Sorted."""
    known = set(base_files or {}) | set(overlay_paths)
    found = []
    for rel in _walk(workspace):
        parts = rel.split("/")
        in_tests = rel.endswith(".rs") and "tests" in parts[:-1]
        if rel not in known and (in_tests or is_config_path(rel)):
            found.append(rel)
    return sorted(found)


def clear_ancestors(workspace):
    """Remove ``.cargo`` folders above the workspace (cargo reads ``.cargo/config.toml`` of every folder from the
    current one up to ``/``; none of them belongs to the repository). Returns what was removed."""
    return core.remove_above(workspace, (".cargo",))


def clean_cargo_home(cargo_home):
    """Remove everything from cargo's home but the crates (``registry``, ``git``): a ``config.toml`` there is read
    by every cargo command (a ``[target] runner`` would wrap the test binaries), ``credentials``, installed
    binaries and cargo's lock and cache-tracking files are not the grader's. Returns what was removed."""
    removed = []
    for name in sorted(os.listdir(cargo_home)):
        if name not in ("registry", "git"):
            core._remove(os.path.join(cargo_home, name))
            removed.append(name)
    return removed


def cargo_env(toolchain, home, cargo_home, target):
    """The whole environment of a cargo run: nothing inherited, offline, the private cargo home and target
    folder, ``BUILD_ENV``."""
    rust = toolchain.get("rust", DEFAULT_TOOLCHAIN["rust"])
    env = {"PATH": rust + "/bin:/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": home,
           "CARGO_HOME": cargo_home, "CARGO_TARGET_DIR": target, "CARGO_NET_OFFLINE": "true",
           "RUST_BACKTRACE": "0", "LANG": "C.UTF-8"}
    env.update(BUILD_ENV)
    return env


def _as(runner_uid):
    return core._drop_privileges(runner_uid) if runner_uid is not None else None


def _rel(workspace, path):
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(workspace))
    return None if rel.startswith("..") else rel


def _crate_roots(binaries):
    return {b["root"] for b in binaries}


def _selected(binary, targets, roots):
    """Whether a test binary runs for ``targets`` (module docstring of ``run_cargo``)."""
    if not targets:
        return True
    package = binary["package_dir"]
    for target in targets:
        inside = package == "." or target.startswith(package + "/")
        if not inside:
            continue
        rest = target if package == "." else target[len(package) + 1:]
        if binary["kind"] == "test":
            if target == binary["root"] or (rest.startswith("tests/") and target not in roots):
                return True  # the test's own file, or a helper module every integration test may include
        elif not rest.startswith("tests/"):
            return True
    return False


def _package_dir(workspace, manifest_path):
    rel = _rel(workspace, os.path.dirname(manifest_path or workspace)) or "."
    return rel


def feature_flags(toolchain):
    """``["--all-features"]`` when the install recorded it (``FEATURES_FILE`` in the lock folder), else ``[]``."""
    path = os.path.join(toolchain.get("lock", DEFAULT_TOOLCHAIN["lock"]), FEATURES_FILE)
    try:
        with open(path) as handle:
            return [ALL_FEATURES] if handle.read().strip() == ALL_FEATURES else []
    except OSError:
        return []


def run_cargo(workspace, targets, timeout_sec, toolchain, runner_uid=None, full_log=None):
    """Build and run the test binaries of the workspace for ``targets`` (workspace-relative test files; none:
    every test binary): ``cargo test --no-run --workspace --no-fail-fast --frozen --message-format=json`` (and
    ``feature_flags``) with the
    image's cargo home emptied of all but its crates (``clean_cargo_home``) and a private copy of the warm target
    folder, then every
    ``.rs`` file of the workspace but those in ``DATA_DIRS`` made readable by root alone (the code under test
    cannot read which tests exist), every process the build left stopped, and
    each selected binary (an integration test whose file is a target or, for a helper under ``tests/``, every
    integration test of its package; a library's or binary's unit tests for a target outside ``tests/``) copied
    out of reach of the runner user and run with libtest's JSON events. ``runner_uid``: as for ``go_runner``.
    Returns ``(exit_code, seconds, binaries, build_errors, log_tail)``: ``binaries`` ``[{"root", "kind",
    "code", "events"}]``, ``build_errors`` ``{target root file: rendered errors}``; exit 0 when everything built
    and passed, 1 otherwise, 124 at ``timeout_sec``."""
    start = time.time()
    deadline = start + timeout_sec
    scratch = tempfile.mkdtemp(prefix="r2e-run-")
    home, target, kept = (os.path.join(scratch, n) for n in ("home", "target", "bin"))
    for folder in (home, kept):
        os.mkdir(folder)
    # cargo's home is the image's own (the warm target folder was built under that path, and cargo rebuilds a
    # dependency whose source path changed), with nothing in it but the crates; the runner user may add its lock
    # files there (sticky: it cannot replace what is there), never change a crate
    cargo_home = toolchain.get("cargo_home", DEFAULT_TOOLCHAIN["cargo_home"])
    home_mode = None
    if os.path.isdir(cargo_home) and not os.path.islink(cargo_home):
        clean_cargo_home(cargo_home)
        home_mode = os.stat(cargo_home).st_mode & 0o7777
        os.chmod(cargo_home, 0o1777)
    else:
        cargo_home = os.path.join(scratch, "cargo")
        os.mkdir(cargo_home)
    core.copy_warm(toolchain.get("target", DEFAULT_TOOLCHAIN["target"]), target)
    lock = os.path.join(workspace, "Cargo.lock")
    generated = os.path.join(toolchain.get("lock", DEFAULT_TOOLCHAIN["lock"]), "Cargo.lock")
    if not os.path.lexists(lock) and os.path.isfile(generated):
        shutil.copyfile(generated, lock)
        os.chmod(lock, 0o644)
    clear_ancestors(workspace)
    runner_uid = core.give_to_runner(scratch, runner_uid)
    cargo = os.path.join(toolchain.get("rust", DEFAULT_TOOLCHAIN["rust"]), "bin", "cargo")
    env = cargo_env(toolchain, home, cargo_home, target)
    results, errors, log, code, hidden = [], {}, [], 0, {}
    try:
        proc = subprocess.run([cargo, "test", "--no-run", "--workspace", "--no-fail-fast", "--frozen",
                               "--message-format=json", *feature_flags(toolchain)], cwd=workspace, env=env,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=max(deadline - time.time(), 1),
                              preexec_fn=_as(runner_uid))
        log.append(proc.stderr.decode("utf-8", "replace"))
        binaries = []
        for message in core.json_objects(proc.stdout.decode("utf-8", "replace")):
            spec = message.get("target") or {}
            root = _rel(workspace, spec.get("src_path") or "")
            if message.get("reason") == "compiler-artifact" and message.get("executable") and \
                    (message.get("profile") or {}).get("test") and root:
                binaries.append({"root": root, "kind": "test" if "test" in (spec.get("kind") or []) else "unit",
                                 "executable": message["executable"],
                                 "package_dir": _package_dir(workspace, message.get("manifest_path"))})
            elif message.get("reason") == "compiler-message" and root and \
                    (message.get("message") or {}).get("level") == "error":
                said = (message["message"].get("rendered") or message["message"].get("message") or "").strip()
                errors[root] = (errors.get(root, "") + "\n" + said).strip()[:6000]
        if proc.returncode != 0:
            code = 1
            if not errors:
                errors["Cargo.toml"] = proc.stderr.decode("utf-8", "replace").strip()[-3000:] or \
                    "cargo could not build the tests"
        core.kill_uid(runner_uid)  # nothing the build started (a build script's child) acts from here on
        roots = _crate_roots(binaries)
        # from here on the code under test cannot read a test's source
        hidden = core.hide([os.path.join(workspace, rel) for rel in _walk(workspace) if rel.endswith(".rs") and not
                            os.path.islink(os.path.join(workspace, rel)) and not DATA_DIRS & set(rel.split("/")[:-1])])
        for i, binary in enumerate(b for b in binaries if _selected(b, targets, roots)):
            left = deadline - time.time()
            if left <= 1:
                raise subprocess.TimeoutExpired("cargo test", timeout_sec)
            copy = os.path.join(kept, "t%d" % i)
            shutil.copyfile(binary["executable"], copy)  # the runner user cannot replace what runs
            os.chown(copy, 0, 0) if os.geteuid() == 0 else None
            os.chmod(copy, 0o755)
            run_env = dict(env, RUSTC_BOOTSTRAP="1")
            cwd = os.path.join(workspace, binary["package_dir"])
            ran = subprocess.run([copy, "-Z", "unstable-options", "--format", "json", "--test-threads", "2"],
                                 cwd=cwd, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 timeout=left, preexec_fn=_as(runner_uid))
            results.append({"root": binary["root"], "kind": binary["kind"], "code": ran.returncode,
                            "events": ran.stdout.decode("utf-8", "replace")})
            log.append(ran.stderr.decode("utf-8", "replace"))
            code = code or (0 if ran.returncode == 0 else 1)
    except subprocess.TimeoutExpired:
        code = 124
    finally:
        core.unhide(hidden)
        if home_mode is not None:
            clean_cargo_home(cargo_home)
            os.chmod(cargo_home, home_mode)
        shutil.rmtree(scratch, ignore_errors=True)
    text = "".join(log) + "".join(r["events"] for r in results)
    if full_log:
        core._write_atomic(full_log, text)
    return code, time.time() - start, results, errors, text[-4000:]


def parse_events(results, errors, workspace, targets=(), notes=None):
    """Outcomes of ``run_cargo``'s binaries: ``(outcomes, collection_errors, messages)``.

    ``outcomes``: node id -> passed / failed / skipped (libtest's ``ok`` / ``failed`` / ``ignored``; several
    reports of one test aggregate to the worst; a test that started and never ended in a binary that exited
    non-zero, the one a panic across threads, an abort or ``process::exit`` stopped, failed; every test of a
    binary whose exit status disagrees with its report, 0 with a failure or non-zero without one, failed). A
    binary's lines that are not libtest events are ignored. ``collection_errors``: the root files of targets
    that did not build (SWE-bench counts every test of a module that cannot be imported as failing) and the
    ``targets`` in their folder,
    with rustc's errors as ``messages``. ``notes``, when a dict, gets ``{"failures": {node id: the test's
    captured output}, "skipped": {node id: why}}``."""
    worst, failures, skipped = {}, {}, {}
    for result in results:
        started, ended = [], set()
        for event in core.json_objects(result["events"]):
            if event.get("type") != "test" or not isinstance(event.get("name"), str):
                continue
            key = "%s::%s" % (result["root"], event["name"])
            kind = event.get("event")
            if kind == "started":
                started.append(key)
                continue
            outcome = {"ok": "passed", "failed": "failed", "ignored": "skipped", "timeout": "failed"}.get(kind)
            if outcome is None:
                continue
            ended.add(key)
            if core.OUTCOME_RANK[outcome] >= core.OUTCOME_RANK.get(worst.get(key), -1):
                worst[key] = outcome
            if outcome == "failed" and event.get("stdout"):
                failures[key] = _steady(str(event["stdout"]))[:3000]
            elif outcome == "skipped":
                skipped[key] = str(event.get("message") or "ignored")
        reported = set(started) | ended
        failed = any(worst.get(k) == "failed" for k in reported)
        if result["code"] != 0 and not failed or result["code"] == 0 and failed:
            # libtest exits 101 exactly when a test failed: a binary whose exit status and report disagree
            # reported what its code under test wrote, so none of its tests passed
            for key in reported:
                worst[key] = "failed"
                failures.setdefault(key, "the test binary exited with status %s" % result["code"])
        elif result["code"] != 0:
            for key in started:
                if key not in ended:
                    worst[key] = "failed"
                    failures.setdefault(key, "the test binary exited with status %s" % result["code"])
    tested = {k.split("::", 1)[0] for k in worst}
    collection, messages = [], {}
    for root, said in errors.items():
        folder = os.path.dirname(root)
        covered = [root] + [t for t in targets if folder and t.startswith(folder + "/")]
        for rel in covered:
            if rel not in tested:
                collection.append(rel)
                messages[rel] = said
    if notes is not None:
        notes["failures"], notes["skipped"] = failures, skipped
    return worst, sorted(set(collection)), messages


_THREAD_ID = re.compile(r"^thread '([^']*)' \(\d+\) panicked", re.MULTILINE)


def _steady(output):
    """A test's captured output without what differs from run to run of the same failure (the thread's id
    libtest prints since Rust 1.89) and without the backtrace hint."""
    output = _THREAD_ID.sub(r"thread '\1' panicked", output)
    return "\n".join(ln for ln in output.strip().splitlines() if not ln.startswith("note: run with `RUST_BACKTRACE"))


def run(workspace, targets, timeout_sec, toolchain, runner_uid=None, full_log=None):
    """One run for the grader: ``(exit_code, seconds, outcomes, collection_errors, messages, notes, log_tail)``
    (``run_cargo`` then ``parse_events``)."""
    code, seconds, results, errors, tail = run_cargo(workspace, targets, timeout_sec,
                                                     dict(DEFAULT_TOOLCHAIN, **toolchain), runner_uid, full_log)
    notes = {}
    outcomes, collection, messages = parse_events(results, errors, workspace, targets, notes)
    return code, seconds, outcomes, collection, messages, notes, tail


# --- unit tests inside a source file ---------------------------------------------------------------------------

_CFG_TEST = re.compile(r"^\s*#\[cfg\(test\)\]\s*$")


def test_modules(text):
    """The ``#[cfg(test)] mod NAME { ... }`` blocks of a Rust source file: ``[(key, start, end)]`` character
    offsets from the ``#[cfg(test)]`` line to the line of the closing brace (inclusive, with its newline); ``key``
    is the module's name, with ``#2`` and so on for a name used again. A module declared without a body
    (``mod tests;``) is a file of its own and is not a block."""
    lines = text.splitlines(True)
    offsets, at = [], 0
    for line in lines:
        offsets.append(at)
        at += len(line)
    offsets.append(at)
    blocks, seen, n = [], {}, 0
    while n < len(lines):
        if not _CFG_TEST.match(lines[n]):
            n += 1
            continue
        k = n + 1
        while k < len(lines) and lines[k].strip().startswith(("#[", "//")):
            k += 1
        found = _MOD_OPEN.match(_code_only(lines[k])) if k < len(lines) else None
        if not found:
            n += 1
            continue
        depth, end = 0, None
        for m in range(k, len(lines)):
            code = _code_only(lines[m])
            for ch in code[found.end() - 1:] if m == k else code:
                depth += {"{": 1, "}": -1}.get(ch, 0)
                if depth == 0:
                    end = m
                    break
            if end is not None:
                break
        if end is None:
            return blocks  # unbalanced: nothing after this is told apart
        name = found.group("name")
        seen[name] = seen.get(name, 0) + 1
        blocks.append((name if seen[name] == 1 else "%s#%d" % (name, seen[name]), offsets[n], offsets[end + 1]))
        n = end + 1
    return blocks


def splice_tests(current, wanted):
    """``current`` (a Rust source file's text) with its ``#[cfg(test)]`` modules made ``wanted``'s: each one
    ``wanted`` has replaced by ``wanted``'s text (those ``current`` lacks appended at the end), each one it has
    not removed; the rest of ``current`` (the code) is kept as it is. The grader's reset of a source file that
    holds unit tests, and, with ``current`` the head commit's text and ``wanted`` the base commit's, the
    reference's version of the file without the new tests."""
    mine = test_modules(current)
    theirs = dict((key, wanted[start:end]) for key, start, end in test_modules(wanted))
    out, at = [], 0
    for key, start, end in mine:
        out.append(current[at:start])
        if key in theirs:
            out.append(theirs.pop(key))
        at = end
    out.append(current[at:])
    text = "".join(out)
    for block in theirs.values():
        if text and not text.endswith("\n"):
            text += "\n"
        text += ("\n" if text and not text.endswith("\n\n") else "") + block
    return text


def splice(current, wanted):
    """``splice_tests`` on bytes (the grader's overlay of a file listed in ``overlay["splice"]``); ``current``
    None (the agent removed the file) splices into an empty file."""
    text = splice_tests((current or b"").decode("utf-8", "surrogateescape"), wanted.decode("utf-8", "surrogateescape"))
    return text.encode("utf-8", "surrogateescape")


# --- sentinels ------------------------------------------------------------------------------------------------

def _code_only(line):
    """``line`` without its string literals and ``//`` comment (for counting braces)."""
    line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
    line = re.sub(r"'(?:[^'\\]|\\.)'", "''", line)
    return line.split("//", 1)[0]


def module_path_at(lines, at):
    """The inline modules (``mod name { ... }``) open at line index ``at`` of a Rust file: ``["tests"]``."""
    stack, depth = [], 0
    for line in lines[:at]:
        code = _code_only(line)
        found = _MOD_OPEN.match(code)
        opening = found.end() - 1 if found else -1
        for i, ch in enumerate(code):
            if ch == "{":
                depth += 1
                if i == opening:
                    stack.append((found.group("name"), depth))
            elif ch == "}":
                if stack and stack[-1][1] == depth:
                    stack.pop()
                depth -= 1
    return [name for name, _ in stack]


_MACRO_OPEN = re.compile(r"^\s*(?:#\[[^\]]*\]\s*)*macro_rules!\s*\w+\s*\{")
_NAMED_FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+[A-Za-z_]\w*\s*\(")


def _in_macros(lines):
    """For each line, whether it is inside a ``macro_rules!`` definition (a ``#[test]`` there is a template)."""
    inside, depth, macro_depths = [], 0, []
    for line in lines:
        inside.append(bool(macro_depths))
        code = _code_only(line)
        opening = _MACRO_OPEN.match(code)
        for i, ch in enumerate(code):
            if ch == "{":
                depth += 1
                if opening and i == opening.end() - 1:
                    macro_depths.append(depth)
            elif ch == "}":
                if macro_depths and macro_depths[-1] == depth:
                    macro_depths.pop()
                depth -= 1
    return inside


def _insertion_points(lines):
    """Line indexes a test may go in front of: a ``#[test]`` attribute that no other attribute or doc comment
    comes right before (so the new test takes no attribute of the next one), followed by a named function (not a
    macro's ``fn $name()``), outside any ``macro_rules!`` definition."""
    points = []
    in_macro = _in_macros(lines)
    for n, line in enumerate(lines):
        found = _TEST_ATTR.match(line)
        if not found or in_macro[n]:
            continue
        before = next((lines[k].strip() for k in range(n - 1, -1, -1) if lines[k].strip()), "")
        after = next((lines[k] for k in range(n + 1, len(lines)) if lines[k].strip()
                      and not lines[k].strip().startswith(("#[", "//"))), "")
        if not before.startswith(("#[", "///", "//!", "#![")) and _NAMED_FN.match(after):
            points.append((n, found.group("indent")))
    return points


def _words(names):
    words = [w for name in names for w in name.split("_") if w.isalpha() and w != "test"]
    return words or ["value", "case", "result"]


def plant_sentinels(workspace, files, count, rng, runner=None):
    """Add ``count`` sentinel tests to the graded test targets' root files (``files``, the FAIL_TO_PASS ones
    first, in turn); returns their node ids. Each is a ``#[test]`` named from words of the file's own test
    functions, failing an ``assert_eq!`` of two different integers (libtest's most common failure report), put
    in front of one of the file's tests chosen at random, in that test's module; in a root file with no test of
    its own (a library whose tests are in its modules' files), inside a new ``#[cfg(test)]`` module named like
    a test module."""
    planted = []
    files = [f for f in files if f.endswith(".rs")]
    for _, rel, path, text in core.sentinel_texts(workspace, files, count):
        lines = text.splitlines(True)
        taken = set(_FN.match(ln).group("name") for ln in lines if _FN.match(ln))
        words = _words(sorted(taken))
        for _ in range(50):
            name = "_".join([rng.choice(words), rng.choice(words)] + rng.choice([[], ["value"], ["case"], ["empty"]]))
            if name not in taken:
                break
        else:
            continue
        got = rng.randint(2, 999)
        check = "assert_eq!(%d, %d);" % (got, got + rng.choice([-1, 1]) * rng.randint(1, 9))
        points = _insertion_points(lines)
        if points:
            at, indent = rng.choice(points)
            modules = module_path_at(lines, at)
            body = "%s#[test]\n%sfn %s() {\n%s    %s\n%s}\n\n" % (indent, indent, name, indent, check, indent)
            lines.insert(at, body)
        else:
            module = rng.choice(["tests", "test"]) + "_" + rng.choice(words)
            while module in taken or re.search(r"\bmod\s+%s\b" % module, text):
                module += "_" + rng.choice(words)
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            lines.append("\n#[cfg(test)]\nmod %s {\n    #[test]\n    fn %s() {\n        %s\n    }\n}\n"
                         % (module, name, check))
            modules = [module]
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("".join(lines))
        taken.add(name)
        planted.append("%s::%s" % (rel, "::".join(modules + [name])))
    return planted
