"""Test running, JUnit XML parsing and grading for runtime tasks. Standard library only.

This one module serves two places, byte for byte (a test asserts the copy is identical):

* the generator imports it to read the JUnit XML of its FAIL_TO_PASS / PASS_TO_PASS runs;
* every runtime bundle ships it as ``tests/verifier.py``; ``tests/test.sh`` runs
  ``python3 /tests/verifier.py grade`` inside the task container (Harbor uploads ``tests/`` to ``/tests``).

It must run on any Python 3.6+ the task image carries, so it avoids newer syntax. In a bundle, ``test.sh`` runs it as
``python3 -I -S`` (nothing from site-packages, ``.pth`` files or the environment), and ``env_guard.py`` ships
beside it: the grade fails closed (reward 0, the reason in the details) when the Python environment differs from
``python_env.json`` recorded at generation, and every process the tests left behind is killed before the
reward is written.

Commands (``python3 verifier.py COMMAND --tests-dir DIR``), both reading ``DIR/config.json``:

``run``   prepare the workspace, run pytest on ``config["run_targets"]`` and leave the JUnit XML at ``--junit``.
``grade`` prepare the workspace, run exactly the FAIL_TO_PASS + PASS_TO_PASS node ids of ``DIR/f2p.json`` and
          ``DIR/p2p.json``, and write the reward (1.0 when every one passed, else 0.0) to
          ``--logs-dir/reward.txt`` (Harbor's reward file), details to ``reward-details.json`` beside it.

``config.json`` keys: ``workspace`` (repository path), ``base_commit`` (40-hex sha), ``test_patch`` (file name in
the tests dir), ``config_patch`` (file name or null: the reference patch's changes to test configuration files),
``restore_paths`` (paths checked out from the base commit before the test patch is applied), ``remove_paths``
(paths the test patch creates), ``run_targets`` (pytest arguments for ``run``), ``timeout_sec``, and
``prepared`` (true in a schema 1.3 verifier image: its copy of the repository already holds the hidden tests and
has no git, so nothing is reset or applied; only the agent's artifacts reach it).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
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
TEST_CONFIG_NAMES = ("conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", ".pytest.ini")
REWARD_FILES = ("reward.txt", "reward.json", "reward-details.json")
# Above this many characters of node ids, grading passes the test files instead (argv limits); outcomes are
# still read per node id, so the reward is the same.
MAX_ID_ARGV_CHARS = 100000


def _module_prefix(path):
    """'tests/test_x.py' -> 'tests.test_x' (pytest's junitxml mangling of a file path)."""
    dotted = path.replace("/", ".")
    return dotted[:-3] if dotted.endswith(".py") else dotted


def _module_path(dotted):
    """Inverse of _module_prefix for a collection report: 'tests.test_x' -> 'tests/test_x.py'."""
    return dotted.replace(".", "/") + ".py"


def testcase_node_id(classname, name, file_attr):
    """Rebuild pytest's node id from one JUnit ``<testcase>`` (xunit1 family, which carries ``file``).

    pytest writes ``classname`` as the dotted module path plus any class names and ``name`` as the function name
    with its parametrize id, so ``tests/t.py::TestA::test_x[a b]`` becomes classname ``tests.t.TestA`` and name
    ``test_x[a b]``. Returns the node id, e.g. ``"tests/t.py::TestA::test_x[a b]"``.
    """
    if file_attr:
        prefix = _module_prefix(file_attr)
        if classname == prefix:
            return file_attr + "::" + name
        if classname.startswith(prefix + "."):
            classes = classname[len(prefix) + 1:].split(".")
            return file_attr + "::" + "::".join(classes) + "::" + name
    # No usable file attribute: take the longest dotted prefix as the module (a best effort).
    parts = classname.split(".")
    return _module_path(".".join(parts)) + "::" + name if parts and parts[0] else name


def parse_junit(xml_text):
    """Parse pytest JUnit XML into ``(outcomes, collection_errors)``.

    ``outcomes`` maps node id -> one of ``passed``, ``failed``, ``error``, ``skipped`` (worst per node id);
    ``collection_errors`` lists the test file paths whose collection failed (their tests are absent).
    Raises ``ValueError`` when the text is not JUnit XML.
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
            collection_errors.append(case.get("file") or _module_path(name))
            continue
        node_id = testcase_node_id(classname, name, case.get("file"))
        previous = outcomes.get(node_id)
        if previous is None or OUTCOME_RANK[outcome] > OUTCOME_RANK[previous]:
            outcomes[node_id] = outcome
    return outcomes, sorted(set(collection_errors))


def _git(workspace, *args):
    env = dict(os.environ, GIT_NO_REPLACE_OBJECTS="1", GIT_TERMINAL_PROMPT="0")
    cmd = ["git", "-c", "core.hooksPath=/dev/null", "-c", "advice.detachedHead=false", "-C", workspace]
    return subprocess.run(cmd + list(args), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)


def _check(result, what):
    if result.returncode != 0:
        raise RuntimeError("%s failed: %s" % (what, result.stdout.strip()[-2000:]))


def _untracked_test_config(workspace):
    """Untracked (including ignored) files named like test configuration, e.g. a planted conftest.py."""
    listed = _git(workspace, "ls-files", "--others", "-z")
    _check(listed, "git ls-files")
    return [p for p in listed.stdout.split("\0") if p and os.path.basename(p) in TEST_CONFIG_NAMES]


def _shadowing_names():
    """Top-level module names an untracked file in the workspace must not shadow: the standard library's and
    those installed in site-packages (pytest first among them)."""
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


def _untracked_shadowing(workspace):
    """Untracked modules in the workspace that would replace a standard or installed one (``json.py``,
    ``pytest/``): a ``.py`` file, or a package's ``__init__.py``, named like such a module, in a folder that is
    not itself a package. Those folders are the ones ``python -m pytest`` and pytest's default import mode put
    first on ``sys.path`` (the workspace, test folders); a package's own submodules never shadow anything."""
    listed = _git(workspace, "ls-files", "--others", "-z")
    _check(listed, "git ls-files")
    names = _shadowing_names()
    found = set()
    for rel in listed.stdout.split("\0"):
        parts = rel.split("/")
        if not rel or not parts[-1].endswith(".py"):
            continue
        if parts[-1] == "__init__.py" and len(parts) > 1:
            module, folder = parts[-2], parts[:-2]
            target = "/".join(parts[:-1])
        else:
            module, folder = parts[-1][:-3], parts[:-1]
            target = rel
        if module in names and not os.path.isfile(os.path.join(workspace, *(folder + ["__init__.py"]))):
            found.add(target)
    return sorted(found)


def prepare_workspace(config, tests_dir):
    """Reset test files and test configuration to the base commit, then apply the hidden test patch.

    Order: remove files the test patch creates, planted (untracked) test configuration and untracked modules
    that would shadow a standard or installed one; check out
    ``restore_paths`` from the base commit; apply ``config_patch`` then ``test_patch`` with ``git apply``.
    Raises ``RuntimeError`` naming the git step that failed. Does nothing when ``config["prepared"]``.
    """
    if config.get("prepared"):
        return
    ws = config["workspace"]
    for rel in list(config.get("remove_paths", [])) + _untracked_test_config(ws):
        path = os.path.join(ws, rel)
        if os.path.isdir(path) and not os.path.islink(path):
            continue
        if os.path.lexists(path):
            os.remove(path)
    for rel in _untracked_shadowing(ws):
        path = os.path.join(ws, rel)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
    restore = list(config.get("restore_paths", []))
    if restore:
        _check(_git(ws, "checkout", config["base_commit"], "--", *restore), "restoring test files")
    for key in ("config_patch", "test_patch"):
        name = config.get(key)
        if name:
            patch = os.path.join(tests_dir, name)
            _check(_git(ws, "apply", "--binary", "--whitespace=nowarn", patch), "applying " + name)


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


def run_pytest(workspace, targets, junit_path, timeout_sec, plugins=None):
    """Run pytest on ``targets`` (node ids or paths; empty = pytest's own discovery) writing JUnit XML.

    ``plugins``: when a list, plugin auto-loading is off and only these modules are loaded (``-p``), so a plugin
    installed after generation (say, one that turns failures into passes) is never loaded.
    Returns ``(exit_code, seconds, log_tail)``; exit code 124 means the run hit ``timeout_sec``.
    """
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_PLUGINS", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    pycache = tempfile.mkdtemp(prefix="r2e-pycache-")
    env["PYTHONPYCACHEPREFIX"] = pycache  # cached bytecode planted next to a module is never read
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "junit_family=xunit1",
           "--junitxml=" + junit_path, "--continue-on-collection-errors", "-q", "-rN", "--confcutdir=" + workspace]
    if plugins is not None:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        for module in plugins:
            cmd += ["-p", module]
    start = time.time()
    try:
        proc = subprocess.run(cmd + list(targets), cwd=workspace, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True, timeout=timeout_sec)
        code, out = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired as exc:
        code, out = 124, (exc.stdout or "") if isinstance(exc.stdout, str) else ""
    shutil.rmtree(pycache, ignore_errors=True)
    return code, time.time() - start, out[-4000:]


def load_config(tests_dir):
    with open(os.path.join(tests_dir, "config.json")) as fh:
        return json.load(fh)


def _load_ids(tests_dir, name):
    with open(os.path.join(tests_dir, name)) as fh:
        return list(json.load(fh))


def grade_targets(test_ids):
    """The pytest arguments for grading: the node ids, or their files when the ids are too long for argv."""
    if sum(len(t) + 1 for t in test_ids) <= MAX_ID_ARGV_CHARS:
        return list(test_ids)
    return sorted(set(t.split("::", 1)[0] for t in test_ids))


def score(outcomes, fail_to_pass, pass_to_pass):
    """Binary reward: 1.0 when every FAIL_TO_PASS and PASS_TO_PASS id passed, else 0.0; plus details."""
    missing = [t for t in fail_to_pass + pass_to_pass if outcomes.get(t) != "passed"]
    f2p_ok = sum(1 for t in fail_to_pass if outcomes.get(t) == "passed")
    p2p_ok = sum(1 for t in pass_to_pass if outcomes.get(t) == "passed")
    details = {"fail_to_pass_passed": f2p_ok, "fail_to_pass_total": len(fail_to_pass),
               "pass_to_pass_passed": p2p_ok, "pass_to_pass_total": len(pass_to_pass),
               "not_passed": missing[:50]}
    return (1.0 if not missing else 0.0), details


def _write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


def cmd_run(args):
    config = load_config(args.tests_dir)
    try:
        prepare_workspace(config, args.tests_dir)
    except RuntimeError as exc:
        sys.stdout.write(json.dumps({"error": str(exc)}))
        return 3
    code, seconds, tail = run_pytest(config["workspace"], config.get("run_targets", []), args.junit,
                                     config.get("timeout_sec", 1800), config.get("pytest_plugins"))
    sys.stdout.write(json.dumps({"exit_code": code, "seconds": seconds, "log_tail": tail}))
    return 0


def cmd_grade(args):
    logs = args.logs_dir
    if not os.path.isdir(logs):
        os.makedirs(logs)
    for name in REWARD_FILES:
        path = os.path.join(logs, name)
        if os.path.isdir(path) and not os.path.islink(path):
            import shutil
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
    reward, details = 0.0, {}
    try:
        config = load_config(args.tests_dir)
        f2p = _load_ids(args.tests_dir, "f2p.json")
        p2p = _load_ids(args.tests_dir, "p2p.json")
        recorded = os.path.join(args.tests_dir, "python_env.json")
        if os.path.isfile(recorded):
            with open(recorded) as fh:
                changed = env_guard.compare(json.load(fh))
            if changed:
                raise RuntimeError(changed)
        prepare_workspace(config, args.tests_dir)
        junit = os.path.join(tempfile.mkdtemp(prefix="r2e-junit-"), "junit.xml")
        code, seconds, tail = run_pytest(config["workspace"], grade_targets(f2p + p2p), junit,
                                         config.get("timeout_sec", 1800), config.get("pytest_plugins"))
        env_guard.kill_strays()  # nothing the tests started may outlive them (and rewrite the reward)
        with open(junit) as fh:
            outcomes, collection_errors = parse_junit(fh.read())
        reward, details = score(outcomes, f2p, p2p)
        details.update({"pytest_exit_code": code, "seconds": round(seconds, 3),
                        "collection_errors": collection_errors})
        sys.stdout.write(tail + "\n")
    except Exception as exc:  # any failure grades 0: the reward file must always be written
        details = {"error": "%s: %s" % (type(exc).__name__, exc)}
    _write_atomic(os.path.join(logs, "reward-details.json"), json.dumps(dict(details, reward=reward), indent=1))
    _write_atomic(os.path.join(logs, "reward.txt"), "%s\n" % reward)
    sys.stdout.write("reward: %s\n" % reward)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="verifier.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run")
    run.add_argument("--tests-dir", required=True)
    run.add_argument("--junit", required=True)
    grade = sub.add_parser("grade")
    grade.add_argument("--tests-dir", required=True)
    grade.add_argument("--logs-dir", default="/logs/verifier")
    sub.add_parser("plugins")
    args = parser.parse_args(argv)
    if args.command == "plugins":
        sys.stdout.write(json.dumps(installed_plugins()))
        return 0
    if args.command == "run":
        return cmd_run(args)
    if args.command == "grade":
        return cmd_grade(args)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
