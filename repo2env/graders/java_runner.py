"""Java's runner for the toolchain grader (``toolchain_verifier``): Maven's ``test`` phase run offline as the
runner user, outcomes from the Surefire XML reports (``target/surefire-reports/TEST-*.xml``, one ``<testcase>``
per test) checked against the counts the Maven process itself printed. Standard library only, Python 3.6+; ships
as ``tests/java_runner.py``.

Node ids: ``<test file>::<class>::<test name>``: the ``.java`` file that declares the test's outermost class
(``src/test/java/com/x/CalcTest.java``, a module's folder before it in a multi-module build), the class's name
within its package (``CalcTest``, ``CalcTest$Below`` for a JUnit 5 ``@Nested`` class) and Surefire's name of the
test (``clampAbove``; a parameterized case ``clampMany(int, int)[1]``), re-selectable with ``mvn test
-Dtest='CalcTest#clampMany'``.

What a run trusts (the order of ``toolchain_verifier``):

* every ``target`` folder of the build is removed first (compiled classes or reports the agent left there are
  never read) and made anew for the runner user, who can write nothing else of the workspace;
* Maven runs from the image's toolchain, started by the JDK's ``java`` itself (``maven_argv``: no shell, no
  ``mavenrc``, no ``MAVEN_OPTS``), with an environment built from nothing, a fresh home (no ``settings.xml``),
  offline, on a private copy of the local repository the image's install filled (``m2``), with the checks that
  grade nothing switched off (``MAVEN_FLAGS``);
* the reports are read only after every process of the runner user was killed, and a test's outcome is the
  worst of its reports and of Maven's own console, whose reporter prints a line for every failed test
  (``… -- Time elapsed: … <<< FAILURE!``): a failure Maven printed is a failure; a run whose test JVM crashed or
  timed out passes nothing; when the reports of a module disagree with the totals Maven printed for it
  (``Tests run: N, Failures: F, Errors: E, Skipped: S``: the Maven process counts what the forked test JVM told
  it, while the reports are files the runner user can write), none of that module's tests passed, and when
  Maven's failure list names a test method more often than the reports hold failures of it, none of its cases
  passed. Printed text can add failures, never take Maven's own lines away: a failure message the code under test
  writes only makes grading stricter;
* every file a run must not see is removed first (``planted``), wherever it is: compiled code and new symlinks,
  JUnit's, TestNG's, Maven's and javac's service registrations and configuration, and a source declaring a test
  framework's package.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET

try:  # the generator imports this module from the repo2env package
    from . import runtime_verifier as core
except ImportError:  # in a bundle: runtime_verifier.py is beside it (or already loaded)
    import runtime_verifier as core

# Where the image keeps the JDK, Maven and the local repository the install filled (every plugin and dependency
# the build and its test phase resolve).
DEFAULT_TOOLCHAIN = {"java_home": "/opt/r2e/java/jdk", "maven_home": "/opt/r2e/java/maven", "m2": "/opt/r2e/m2"}
# Reset by the grader to the base commit's (or the reference's) bytes: the build (a POM can skip tests, change
# Surefire's includes or add a listener), Maven's per-project configuration and extensions (Maven reads
# ``.mvn/maven.config``, where ``-Dmaven.ext.class.path`` loads code into Maven itself, and ``.mvn/extensions.xml``
# even when started without its script), and JUnit's own configuration file (it can deactivate conditions or load
# extensions).
CONFIG_NAMES = ("pom.xml", "junit-platform.properties", "testng.xml", "maven.config", "extensions.xml", "jvm.config")
# The same flags in the install and in every run (the install resolves exactly what the runs need): batch mode,
# no colours, and the plugins that check style, licences or signatures, which grade nothing, skipped.
MAVEN_FLAGS = ("-B", "-Dstyle.color=never", "-Dmaven.javadoc.skip=true", "-Dcheckstyle.skip=true",
               "-Dspotbugs.skip=true", "-Dpmd.skip=true", "-Dcpd.skip=true", "-Drat.skip=true", "-Dlicense.skip=true",
               "-Denforcer.skip=true", "-Dspotless.check.skip=true", "-Dspotless.apply.skip=true",
               "-Djacoco.skip=true", "-Danimal.sniffer.skip=true", "-Dgpg.skip=true", "-Dmaven.source.skip=true",
               "-Drevapi.skip=true", "-Djapicmp.skip=true", "-Dformatter.skip=true", "-Dsort.skip=true")
# Surefire's settings for every run: failures reported, not fatal; the tests' own output kept out of Maven's
# console (the summary the reports are checked against is then the Maven process's alone); full stack traces.
TEST_FLAGS = ("-Dmaven.test.failure.ignore=true", "-DfailIfNoTests=false", "-Dsurefire.failIfNoSpecifiedTests=false",
              "-Dmaven.test.redirectTestOutputToFile=true", "-DtrimStackTrace=false", "-Dsurefire.useFile=true")
SKIP_DIRS = (".git", "target", "node_modules")
# Packages of the test frameworks and of Maven: a class of the repository in one of them would shadow the
# framework's own (the main classes come first on the test classpath)
FRAMEWORK_PACKAGES = ("org/junit/", "junit/", "org/opentest4j/", "org/hamcrest/", "org/assertj/", "org/testng/",
                      "org/apache/maven/", "org/mockito/")
# service registrations the test frameworks, Maven and javac load from the classpath (listeners, extensions,
# engines, annotation processors): a new one is planted
SERVICE_PREFIXES = ("org.junit", "org.testng", "org.apache.maven", "org.opentest4j", "javax.annotation.processing",
                    "org.mockito", "org.assertj", "net.bytebuddy")
_SUMMARY = re.compile(r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)(?:, Flakes: \d+)?\s*$")
# the line Maven's reporter prints for each failed test (Surefire 3: "com.x.T.m(int)[1] -- Time elapsed: …";
# Surefire 2: "m(com.x.T)  Time elapsed: …")
_CASE_FAILED = re.compile(r"^(?:\[ERROR\] )?(?P<subject>\S.*?)\s+(?:-- )?Time elapsed: [\d.,]+ s(?:ec)?\s+<<< "
                          r"(?:FAILURE|ERROR)!\s*$")
_FORK_BROKEN = ("The forked VM terminated", "There was a timeout in the fork", "There was an error in the forked",
                "Crashed tests:", "ExecutionException")
_BUILDING = re.compile(r"^\[INFO\] Building (.+?) [^\s]+(?:\s+\[\d+/\d+\])?\s*$")
# an entry of Surefire's failure lists: "[ERROR]   CalcTest.clampAbove:18 expected: …", "[ERROR]   CalcTest.boom
# » IllegalState …"; Surefire 2: "  clampAbove(com.example.CalcTest): expected …"
_CONSOLE_FAILED = re.compile(r"^\[ERROR\]\s+(?:Run \d+: )?([\w$]+)\.([\w$]+)(?=:\d|\s+»|\s*$)")
_CONSOLE_FAILED_OLD = re.compile(r"^(?:\[ERROR\])?\s*(?:Failed tests:|Tests in error:)?\s+(?:Run \d+: )?([\w$]+)"
                                 r"\(([\w.$]+)\)")
_JAVAC_ERROR = re.compile(r"^\[ERROR\] (?P<path>/[^:\[]+\.java):\[(?P<line>\d+),\d+\] (?P<msg>.+)$")


def is_config_path(rel):
    """Whether ``rel`` is build or test configuration that ``planted`` and the overlay look after
    (``CONFIG_NAMES``, Maven's ``.mvn/`` folder, JUnit's and TestNG's service registrations)."""
    parts = rel.split("/")
    if parts[-1] in CONFIG_NAMES or ".mvn" in parts[:-1]:
        return True
    return "META-INF/services/" in rel and parts[-1].startswith(SERVICE_PREFIXES)


def _walk(workspace):
    """``core._walk`` without build output (``target``) and VCS folders."""
    for folder, dirs, names in os.walk(workspace):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not os.path.islink(os.path.join(folder, d)))
        rel = os.path.relpath(folder, workspace)
        for name in sorted(names):
            yield name if rel == "." else rel + "/" + name


def _package(path):
    """The package a Java source declares (its ``package`` line), or ""."""
    data = core.read_regular(path, 4 * 1024 * 1024) or b""
    found = re.search(rb"^\s*package\s+([\w.]+)\s*;", data, re.MULTILINE)
    return found.group(1).decode("ascii", "replace") if found else ""


def owned_packages(base_files):
    """The packages of ``FRAMEWORK_PACKAGES`` the repository's own tree holds at the base commit (a Maven plugin's
    ``org/apache/maven/``, JUnit's own ``org/junit/``): new classes there are the repository's, never a shadow."""
    return tuple(p for p in FRAMEWORK_PACKAGES if any("/" + p in "/" + rel for rel in base_files or ()))


def _shadows_framework(workspace, rel, owned):
    """A Java source or compiled class that would stand in a test framework's package (``FRAMEWORK_PACKAGES``,
    less ``owned``) on the test classpath: a ``.java`` file by the package it declares (javac does not care where
    the file is), any ``.class`` or ``.jar`` file (compiled code never belongs to a change)."""
    if rel.endswith((".class", ".jar")):
        return True
    if not rel.endswith(".java"):
        return False
    declared = _package(os.path.join(workspace, rel)).replace(".", "/") + "/"
    return declared.startswith(FRAMEWORK_PACKAGES) and not declared.startswith(owned)


def planted(workspace, base_files, overlay_paths):
    """Files to remove before a run (``toolchain_verifier`` step 3), when neither in the base commit's tree nor
    written by the overlay, wherever they are (every folder is looked into, ``node_modules`` and ``target`` too;
    a symlink is never followed): anything under a ``src/test`` folder, build and test configuration
    (``is_config_path``), a symlink, and a class in a test framework's package or compiled code
    (``_shadows_framework``). Sorted."""
    known = set(base_files or {}) | set(overlay_paths)
    owned = owned_packages(base_files)
    found = []
    for rel in core._walk(workspace):
        if rel in known or _module_target(workspace, rel):
            continue
        if "/src/test/" in "/" + rel or is_config_path(rel) or os.path.islink(os.path.join(workspace, rel)) or \
                _shadows_framework(workspace, rel, owned):
            found.append(rel)
    return sorted(found)


def _module_target(workspace, rel):
    """Whether ``rel`` is inside a module's ``target`` folder (``fresh_targets`` removes it whole)."""
    parts = rel.split("/")
    for n, part in enumerate(parts[:-1]):
        if part == "target" and os.path.isfile(os.path.join(workspace, *(parts[:n] + ["pom.xml"]))):
            return not os.path.islink(os.path.join(workspace, *parts[:n + 1]))
    return False


def modules(workspace):
    """Workspace-relative folders holding a ``pom.xml`` ("." for the root), sorted."""
    return sorted(os.path.dirname(rel) or "." for rel in _walk(workspace) if rel.rsplit("/", 1)[-1] == "pom.xml")


def class_of(workspace, rel):
    """The fully qualified class name a test source declares (its ``package`` line and file name), or None."""
    name = os.path.basename(rel)[:-len(".java")]
    try:
        with open(os.path.join(workspace, rel), encoding="utf-8", errors="replace") as fh:
            text = fh.read(200000)
    except OSError:
        return None
    found = re.search(r"^\s*package\s+([\w.]+)\s*;", text, re.MULTILINE)
    return "%s.%s" % (found.group(1), name) if found else name


def maven_env(toolchain, home):
    """The whole environment of a Maven run (module docstring): nothing inherited."""
    java_home = toolchain.get("java_home", DEFAULT_TOOLCHAIN["java_home"])
    maven_home = toolchain.get("maven_home", DEFAULT_TOOLCHAIN["maven_home"])
    return {"PATH": "%s/bin:%s/bin:/usr/local/bin:/usr/bin:/bin" % (java_home, maven_home), "HOME": home,
            "TMPDIR": home, "JAVA_HOME": java_home, "MAVEN_SKIP_RC": "1", "LANG": "C.UTF-8"}


def maven_argv(toolchain, workspace):
    """The command that starts Maven the way its ``bin/mvn`` script does, without the script: the JDK's ``java``
    with plexus-classworlds' launcher, so no shell, no ``mavenrc``, no ``MAVEN_OPTS`` and no ``.mvn/jvm.config``
    take part (a replaced ``/bin/sh`` runs nothing of the grader's)."""
    java_home = toolchain.get("java_home", DEFAULT_TOOLCHAIN["java_home"])
    maven_home = toolchain.get("maven_home", DEFAULT_TOOLCHAIN["maven_home"])
    boot = os.path.join(maven_home, "boot")
    jars = sorted(n for n in (os.listdir(boot) if os.path.isdir(boot) else []) if n.startswith("plexus-classworlds"))
    return [os.path.join(java_home, "bin", "java"), "-classpath", os.path.join(boot, jars[0] if jars else
                                                                               "plexus-classworlds.jar"),
            "-Dclassworlds.conf=%s/bin/m2.conf" % maven_home, "-Dmaven.home=" + maven_home,
            "-Dlibrary.jansi.path=%s/lib/jansi-native" % maven_home,
            "-Dmaven.multiModuleProjectDirectory=" + workspace, "org.codehaus.plexus.classworlds.launcher.Launcher"]


def _as(runner_uid):
    return core._drop_privileges(runner_uid) if runner_uid is not None else None


def fresh_targets(workspace, folders, runner_uid):
    """Remove every module's ``target`` folder and make it anew, owned by the runner user (the only folder of the
    workspace Maven writes)."""
    for folder in folders:
        target = os.path.join(workspace, folder, "target")
        core._remove(target) if os.path.lexists(target) else None
        os.mkdir(target)
        os.chmod(target, 0o755)
        if runner_uid is not None:
            os.lchown(target, runner_uid, runner_uid)


def run_maven(workspace, targets, timeout_sec, toolchain, runner_uid=None, full_log=None):
    """Run ``mvn -o test`` (``MAVEN_FLAGS``, ``TEST_FLAGS``) in ``workspace`` for the test classes of ``targets``
    (workspace-relative test sources, as ``-Dtest``; none: every test), as ``runner_uid`` when the grader is root,
    on a private copy of the image's local repository. Returns ``(exit_code, seconds, reports, console,
    log_tail)``: ``reports`` ``{module folder: [XML text, ...]}``, ``console`` Maven's own output; exit 0 when the
    build succeeded (failed tests do not fail it), 1 otherwise, 124 at ``timeout_sec``."""
    start = time.time()
    scratch = tempfile.mkdtemp(prefix="r2e-run-")
    home, m2 = os.path.join(scratch, "home"), os.path.join(scratch, "m2")
    os.mkdir(home)
    core.copy_warm(toolchain.get("m2", DEFAULT_TOOLCHAIN["m2"]), m2)
    runner_uid = core.give_to_runner(scratch, runner_uid)
    folders = modules(workspace)
    fresh_targets(workspace, folders, runner_uid)
    classes = [c for c in (class_of(workspace, t) for t in targets) if c]
    argv = maven_argv(toolchain, workspace) + ["-o", "-fae", "-Dmaven.repo.local=" + m2] + list(MAVEN_FLAGS) + \
        list(TEST_FLAGS) + ["test"]
    if classes:
        argv.append("-Dtest=" + ",".join(sorted(set(classes))))
    console, code = "", 0
    try:
        proc = subprocess.run(argv, cwd=workspace, env=maven_env(toolchain, home), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=max(timeout_sec, 1), preexec_fn=_as(runner_uid))
        console = proc.stdout.decode("utf-8", "replace")
        code = 0 if proc.returncode == 0 else 1
    except subprocess.TimeoutExpired as exc:
        console = (exc.output or b"").decode("utf-8", "replace")
        code = 124
    finally:
        core.kill_uid(runner_uid)  # nothing the tests started rewrites a report from here on
        shutil.rmtree(scratch, ignore_errors=True)
    reports = {}
    for folder in folders:
        found = os.path.join(workspace, folder, "target", "surefire-reports")
        if not os.path.isdir(found) or os.path.islink(found):
            continue
        for name in sorted(os.listdir(found)):
            if name.startswith("TEST-") and name.endswith(".xml"):
                text = core.read_regular(os.path.join(found, name), 64 * 1024 * 1024)
                if text is not None:
                    reports.setdefault(folder, []).append(text.decode("utf-8", "replace"))
    if full_log:
        core._write_atomic(full_log, console)
    return code, time.time() - start, reports, console, console[-4000:]


def console_summaries(console):
    """``([(tests, failures, errors, skipped) per module section], {(class simple name, test method): count})``:
    the totals Maven printed after each module's tests (the last ``Tests run:`` line without ``Time elapsed`` of
    each module's section, in build order) and how many times the console names each method as failed, counted
    on every line shaped like an entry of Surefire's failure lists (``[ERROR]   CalcTest.clampAbove:18 …``;
    Surefire 2's ``clampAbove(com.x.CalcTest)``), wherever it stands. A failure message the code under test
    wrote can add such lines, never remove Maven's own: counting them everywhere only makes grading stricter."""
    sections, current = [], None
    failed = {}
    for line in console.splitlines():
        if _BUILDING.match(line):
            current = {"name": _BUILDING.match(line).group(1), "summary": None}
            sections.append(current)
            continue
        found = _SUMMARY.search(line)
        if found and "Time elapsed" not in line:
            if current is None:
                current = {"name": "", "summary": None}
                sections.append(current)
            current["summary"] = tuple(int(x) for x in found.groups())
            continue
        name = _CONSOLE_FAILED.match(line)
        old = _CONSOLE_FAILED_OLD.match(line) if name is None else None
        if name or old:
            key = (name.group(1), name.group(2)) if name else (old.group(2).rsplit(".", 1)[-1], old.group(1))
            failed[key] = failed.get(key, 0) + 1
    return [s["summary"] for s in sections if s["summary"] is not None], failed


def _test_file(workspace, module, classname, cache):
    """The workspace-relative source file of ``classname``'s outermost class in ``module``."""
    key = (module, classname)
    if key not in cache:
        outer = classname.split("$", 1)[0].replace(".", "/") + ".java"
        prefix = "" if module == "." else module + "/"
        found = prefix + "src/test/java/" + outer
        if not os.path.isfile(os.path.join(workspace, found)):
            root = os.path.join(workspace, module)
            for rel in _walk(root):
                if rel.endswith("/" + outer) or rel == outer:
                    found = prefix + rel
                    break
        cache[key] = found
    return cache[key]


def parse_reports(reports, console, workspace, targets=(), notes=None):
    """Outcomes of ``run_maven``: ``(outcomes, collection_errors, messages)``.

    ``outcomes``: node id (module docstring) -> passed / failed / error / skipped, the worst report of a test
    winning, and a test whose failure Maven's reporter printed failing whatever its report says; nothing passes
    in a run whose test JVM crashed or timed out; every test of a module whose reports disagree with the totals
    Maven printed for it is failed, and so is every case of a method Maven's failure list names more often than
    the reports fail it (module docstring).
    ``collection_errors``: the ``targets`` of which no test was reported when the build failed (a test source
    that does not compile fails its whole module, SWE-bench's rule for a module that cannot be imported), with
    javac's errors as ``messages``. ``notes``, when a dict, gets ``{"failures": {node id: message and stack
    head}, "skipped": {node id: why}}``."""
    outcomes, failures, skipped, cache = {}, {}, {}, {}
    per_module, by_subject = {}, {}
    for module in sorted(reports):
        counts = [0, 0, 0, 0]
        ids = []
        for text in reports[module]:
            try:
                root = ET.fromstring(text)
            except ET.ParseError:
                counts[2] += 1
                continue
            for case in root.iter("testcase"):
                classname, name = case.get("classname") or "", case.get("name") or ""
                path = _test_file(workspace, module, classname, cache)
                key = "%s::%s::%s" % (path, classname.rsplit(".", 1)[-1], name)
                by_subject["%s.%s" % (classname, name)] = key  # how Maven's reporter names it (Surefire 3)
                by_subject["%s(%s)" % (name, classname)] = key  # (Surefire 2)
                outcome = "passed"
                for tag, said in (("error", "error"), ("failure", "failed"), ("skipped", "skipped"),
                                  ("rerunFailure", "failed"), ("rerunError", "error")):
                    element = case.find(tag)
                    if element is not None:
                        if core.OUTCOME_RANK[said] > core.OUTCOME_RANK[outcome]:
                            outcome = said
                        if said in ("failed", "error") and key not in failures:
                            failures[key] = _failure_text(element, classname)
                        elif said == "skipped":
                            skipped[key] = element.get("message") or "skipped"
                counts[0] += 1
                if outcome != "passed":
                    counts[{"failed": 1, "error": 2, "skipped": 3}[outcome]] += 1
                ids.append(key)
                if core.OUTCOME_RANK[outcome] >= core.OUTCOME_RANK.get(outcomes.get(key), -1):
                    outcomes[key] = outcome
        per_module[module] = (tuple(counts), ids)
    summaries, listed = console_summaries(console)
    printed = summaries
    for module, (counts, ids) in per_module.items():
        if counts[0] and counts not in printed:
            # the reports of this module are not what Maven counted: none of them is believed
            for key in ids:
                outcomes[key] = "failed"
                failures.setdefault(key, "the test reports disagree with the totals Maven printed")
    for line in console.splitlines():
        found = _CASE_FAILED.match(line)
        key = by_subject.get(found.group("subject")) if found else None
        if key is not None and outcomes[key] in ("passed", "skipped"):
            # Maven's reporter printed this test's failure: no report file says otherwise
            outcomes[key] = "failed"
            failures.setdefault(key, "Maven reported the test failed; its report says it did not")
    if any(marker in console for marker in _FORK_BROKEN):
        # the test JVM crashed, timed out or was cut off: its reports are not Maven's record of a finished run
        for key in outcomes:
            outcomes[key] = "failed" if outcomes[key] != "error" else "error"
            failures.setdefault(key, "the forked test JVM did not finish")
    cases = {}
    for key in outcomes:
        cls, name = key.split("::")[1:3]
        cases.setdefault((cls, name.split("(", 1)[0].split("[", 1)[0]), []).append(key)
    for method, keys in cases.items():
        if sum(outcomes[k] in ("failed", "error") for k in keys) < listed.get(method, 0):
            # Maven listed more failures of this method than its reports hold: none of its cases passed
            for key in keys:
                outcomes[key] = "failed"
    tested = {k.split("::", 1)[0] for k in outcomes}
    errors, messages = [], {}
    said = _compile_errors(console, workspace)
    if said or not outcomes:
        why = "\n".join(said[:12]) or _build_failure(console)
        for target in targets:
            if target not in tested and why:
                errors.append(target)
                messages[target] = why
    if notes is not None:
        notes["failures"], notes["skipped"] = failures, skipped
    return outcomes, sorted(set(errors)), messages


def _failure_text(element, classname):
    """A failure's message and the head of its stack trace: the lines up to the test class's own frame (what
    follows is the framework's, and differs between runners and runs)."""
    lines = (element.text or "").strip().splitlines()
    for n, line in enumerate(lines):
        if line.strip().startswith("at " + classname + "."):
            lines = lines[:n + 1]
            break
    lines = lines[:25] or [element.get("message") or element.get("type") or "failed"]
    return "\n".join(ln.rstrip() for ln in lines)[:3000]


def _compile_errors(console, workspace):
    """javac's errors as Maven printed them, paths made workspace-relative, with their ``symbol:``/``location:``
    lines."""
    out = []
    lines = console.splitlines()
    root = os.path.realpath(workspace) + "/"
    for i, line in enumerate(lines):
        found = _JAVAC_ERROR.match(line)
        if not found:
            continue
        path = found.group("path")
        rel = path[len(root):] if path.startswith(root) else path.replace("/workspace/", "", 1)
        more = [ln.strip() for ln in lines[i + 1:i + 3] if re.match(r"^\s*(\[ERROR\]\s+)?\s*(symbol|location):", ln)]
        out.append("%s:%s: %s%s" % (rel, found.group("line"), found.group("msg"),
                                    "".join("\n  " + re.sub(r"^\[ERROR\]\s*", "", m) for m in more)))
    return list(dict.fromkeys(out))


def _build_failure(console):
    """The first ``[ERROR]`` lines of a build that failed before any test ran."""
    said = [ln[len("[ERROR] "):].strip() for ln in console.splitlines() if ln.startswith("[ERROR] ") and ln[8:].strip()]
    return "\n".join(said[:6])


def run(workspace, targets, timeout_sec, toolchain, runner_uid=None, full_log=None):
    """One run for the grader: ``(exit_code, seconds, outcomes, collection_errors, messages, notes, log_tail)``
    (``run_maven`` then ``parse_reports``)."""
    code, seconds, reports, console, tail = run_maven(workspace, targets, timeout_sec,
                                                       dict(DEFAULT_TOOLCHAIN, **toolchain), runner_uid, full_log)
    notes = {}
    outcomes, errors, messages = parse_reports(reports, console, workspace, targets, notes)
    return code, seconds, outcomes, errors, messages, notes, tail


# --- sentinels ------------------------------------------------------------------------------------------------

_TEST_LINE = re.compile(r"^(?P<indent>[ \t]+)@(?P<ann>(?:org\.junit\.(?:jupiter\.api\.)?|org\.testng\.annotations\.)?"
                        r"Test)\s*(?:\(\s*\))?\s*$")
# any test method's first annotation: a sentinel can stand before a parameterized, repeated or factory test too
_ANY_TEST_LINE = re.compile(r"^(?P<indent>[ \t]+)@(?:org\.junit\.(?:jupiter\.api\.|jupiter\.params\.)?|"
                            r"org\.testng\.annotations\.)?(?:Test|ParameterizedTest|RepeatedTest|TestFactory)\b")
_METHOD = re.compile(r"\b(?:void|[\w<>\[\],.]+)\s+(?P<name>[a-zA-Z_$][\w$]*)\s*\(")
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# the modifiers of the test method an annotation belongs to (a sentinel is declared the same way)
_DECLARED = re.compile(r"^\s*(?P<mods>(?:(?:public|protected|static|final)\s+)*)void\s+[\w$]+\s*\(")


def _depths(lines):
    """The brace depth at the start of each line (string and char literals and comments ignored)."""
    depths, depth, in_block = [], 0, False
    for line in lines:
        depths.append(depth)
        i = 0
        while i < len(line):
            if in_block:
                end = line.find("*/", i)
                if end < 0:
                    break
                in_block, i = False, end + 2
                continue
            ch = line[i]
            if line.startswith("//", i):
                break
            if line.startswith("/*", i):
                in_block, i = True, i + 2
                continue
            if ch in "\"'":
                j = i + 1
                while j < len(line) and line[j] != ch:
                    j += 2 if line[j] == "\\" else 1
                i = j + 1
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            i += 1
    return depths


def _sentinel_check(text, rng):
    """A failing assertion in the file's own style: AssertJ's ``assertThat(got).isEqualTo(want)``, JUnit's
    ``assertEquals(want, got)`` (statically imported, else qualified by the file's framework) or TestNG's
    ``assertEquals(got, want)``."""
    got = rng.randint(2, 999)
    want = got + rng.choice([-1, 1]) * rng.randint(1, 9)
    testng = "org.testng" in text
    if re.search(r"import\s+static\s+org\.assertj\.core\.api\.(?:Assertions|BDDAssertions)\.(?:\*|assertThat)\s*;",
                 text) and "assertThat(" in text:
        return "assertThat(%d).isEqualTo(%d);" % (got, want)
    if re.search(r"import\s+static\s+[\w.]+\.(?:Assert|Assertions)\.(?:\*|assertEquals)\s*;", text):
        return "assertEquals(%d, %d);" % ((got, want) if testng else (want, got))
    if testng:
        return "org.testng.Assert.assertEquals(%d, %d);" % (got, want)
    if "org.junit.jupiter" in text:
        return "org.junit.jupiter.api.Assertions.assertEquals(%d, %d);" % (want, got)
    return "org.junit.Assert.assertEquals(%d, %d);" % (want, got)


_ASSERT_LINE = re.compile(r"^\s*(?P<call>(?:(?:org\.junit\.(?:jupiter\.api\.Assertions|Assert)|Assertions|Assert)\.)?"
                          r"assertEquals)\((?P<args>.*)\);\s*$")
_ASSERTJ_LINE = re.compile(r"^\s*(?P<head>(?:Assertions\.)?assertThat\((?P<expr>.*)\)\.isEqualTo)\((?P<want>[^()]*)\);"
                           r"\s*$")
_LITERAL = re.compile(r'^(?:-?\d+[lL]?|"(?:[^"\\]|\\.)*"|true|false)$')
_KEYWORDS = {"new", "true", "false", "null", "this", "super", "int", "long", "double", "float", "char", "byte",
             "short", "boolean", "class"}


def _arguments(text):
    """The top-level comma-separated parts of an argument list (parentheses, brackets, braces and string or
    char literals respected)."""
    parts, depth, current, quote, i = [], 0, "", None, 0
    while i < len(text):
        ch = text[i]
        if quote:
            current += ch
            if ch == "\\" and i + 1 < len(text):
                current += text[i + 1]
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote, current = ch, current + ch
        elif ch in "([{":
            depth, current = depth + 1, current + ch
        elif ch in ")]}":
            depth, current = depth - 1, current + ch
        elif ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
        i += 1
    return parts + [current.strip()]


def _self_contained(expr, fields):
    """Whether ``expr`` names no local variable: each identifier is a member (after ``.``), a call, a class or
    constant (capitalised), a keyword, or one of the class's ``fields``."""
    code = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', expr)
    for found in re.finditer(r"[A-Za-z_$][\w$]*", code):
        name, before, after = found.group(0), code[:found.start()].rstrip(), code[found.end():].lstrip()
        if before.endswith(".") or after.startswith("(") or name[0].isupper() or name in _KEYWORDS or \
                name in fields or re.match(r"^\d", name):
            continue
        return False
    return True


def _perturbed(literal, rng):
    """Another literal of the same kind: a number moved by 1-9, a string with a character more, a boolean
    flipped."""
    if literal in ("true", "false"):
        return "false" if literal == "true" else "true"
    if literal.startswith('"'):
        return literal[:-1] + rng.choice("xyz_0") + '"'
    suffix = literal[-1] if literal[-1] in "lL" else ""
    value = int(literal.rstrip("lL")) + rng.choice([-1, 1]) * rng.randint(1, 9)
    return "%d%s" % (value, suffix)


def _cloned_checks(lines, depths, text):
    """``(line index, statement template, literal)`` of the file's own equality assertions that a method of the
    top-level class could repeat (directly in a method of it, on a self-contained expression that calls
    something, against a literal): JUnit's ``assertEquals(literal, expr)`` and AssertJ's
    ``assertThat(expr).isEqualTo(literal)``."""
    # the class's own fields: declarations directly in the top-level class (a method's locals are not in scope)
    fields = set(m.group(1) for n, line in enumerate(lines) if depths[n] == 1 for m in [re.match(
        r"^\s+(?:(?:private|protected|public|static|final|transient|volatile)\s+)*[\w<>\[\],.? ]+?\s+(\w+)\s*"
        r"(?:=[^=]|;)", line)] if m)
    found = []
    for n, line in enumerate(lines):
        if depths[n] != 2:
            continue
        junit = _ASSERT_LINE.match(line)
        if junit and "org.testng" not in text:
            args = _arguments(junit.group("args"))
            if len(args) == 2 and _LITERAL.match(args[0]) and "(" in args[1] and \
                    _self_contained(args[1], fields):
                found.append((n, "%s(%%s, %s);" % (junit.group("call"), args[1]), args[0]))
            continue
        assertj = _ASSERTJ_LINE.match(line)
        if assertj and _LITERAL.match(assertj.group("want").strip()) and "(" in assertj.group("expr") and \
                _self_contained(assertj.group("expr"), fields):
            found.append((n, "%s(%%s);" % assertj.group("head"), assertj.group("want").strip()))
    return found


def _throws_of(lines, at):
    """The ``throws`` clause of the method declared last before line ``at`` ("" when it has none)."""
    for line in reversed(lines[:at]):
        found = re.search(r"\bvoid\s+[\w$]+\s*\([^)]*\)\s*(throws\s+[\w.,\s]+?)?\s*\{", line)
        if found:
            return " " + found.group(1).strip() if found.group(1) else ""
    return ""


def _after_method(depths, at):
    """The index of the line after the method whose annotations start at line ``at`` (its closing brace's line
    + 1): a sentinel put there is never between another test's annotations and its method."""
    n = at
    while n < len(depths) and depths[n] <= 1:
        n += 1
    while n < len(depths) and depths[n] > 1:
        n += 1
    # a one-line method leaves no body to walk past: then in front of its annotations, as first planned
    return n if n < len(depths) and depths[n] == 1 else at


def _plain_test_annotation(text):
    """The plain test annotation of a file none of whose tests uses it (only ``@ParameterizedTest``s): the one
    its framework's imports name, written in full unless the file imports it."""
    if "org.testng" in text:
        return "Test" if re.search(r"import\s+org\.testng\.annotations\.(?:Test|\*)\s*;", text) else \
            "org.testng.annotations.Test"
    if "org.junit.jupiter" in text:
        return "Test" if re.search(r"import\s+org\.junit\.jupiter\.api\.(?:Test|\*)\s*;", text) else \
            "org.junit.jupiter.api.Test"
    return "Test" if re.search(r"import\s+org\.junit\.(?:Test|\*)\s*;", text) else "org.junit.Test"


def plant_sentinels(workspace, files, count, rng, runner=None):
    """Add ``count`` sentinel tests to the graded test sources (``files``, the FAIL_TO_PASS ones first, in turn);
    returns their node ids. Each is a ``void`` method annotated and declared as the test it precedes, named from
    words of the file's own test methods, repeating one of the file's own equality assertions with another
    expected value (``_cloned_checks``: the sentinel calls the code under test the way a graded test does, so its
    bytecode does not tell it apart), else failing an equality assertion of two different integers in the file's
    assertion style (``_sentinel_check``), put after one of the top-level class's tests chosen at random.
    A file whose top-level class has only parameterized (repeated, factory) tests gets them before one of those,
    annotated ``@Test`` the way its framework spells it; a file with no test method directly in its top-level
    class gets none."""
    planted, originals = [], {}
    files = [f for f in files if f.endswith(".java")]
    for _, rel, path, text in core.sentinel_texts(workspace, files, count):
        lines = text.splitlines(True)
        depths = _depths(lines)
        if rel not in originals:  # checks to repeat come from the file as graded, never from a sentinel
            originals[rel] = [(template, literal, _throws_of(lines, at))
                              for at, template, literal in _cloned_checks(lines, depths, text)]
        points = [n for n, line in enumerate(lines) if depths[n] == 1 and _TEST_LINE.match(line)]
        annotation = _TEST_LINE.match(lines[points[0]]).group("ann") if points else _plain_test_annotation(text)
        points = points or [n for n, line in enumerate(lines) if depths[n] == 1 and _ANY_TEST_LINE.match(line)]
        outer = os.path.basename(rel)[:-len(".java")]
        if not points or not re.search(r"\b(?:class|enum)\s+%s\b" % re.escape(outer), text):
            continue
        taken = set(m.group("name") for m in _METHOD.finditer(text))
        words = [w.lower() for name in sorted(taken) for w in _WORD.findall(name) if w.lower() != "test"] or \
            ["value", "case", "result"]
        for _ in range(50):
            name = rng.choice(words) + "".join(w.capitalize() for w in (rng.choice(words), rng.choice(
                ["", "value", "case", "empty"])) if w)
            if name not in taken and re.match(r"^[a-z_][\w]*$", name):
                break
        else:
            continue
        at = rng.choice(points)
        indent = _ANY_TEST_LINE.match(lines[at]).group("indent")
        declared = next((m for m in (_DECLARED.match(ln) for ln in lines[at + 1:at + 8]) if m), None)
        modifiers = declared.group("mods") if declared else "public "
        clones = originals[rel]
        if clones:  # one of the file's own checks, another expected value: it calls the code under test too
            template, literal, throws = rng.choice(clones)
            check = template % _perturbed(literal, rng)
        else:
            check, throws = _sentinel_check(text, rng), ""
        body = "\n%s@%s\n%s%svoid %s()%s {\n%s    %s\n%s}\n" % (
            indent, annotation, indent, modifiers, name, throws, indent, check, indent)
        lines.insert(_after_method(depths, at), body)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("".join(lines))
        planted.append("%s::%s::%s" % (rel, outer, name))
    return planted
