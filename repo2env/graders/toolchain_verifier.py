"""Test running and grading for the toolchain languages (Go, JavaScript/TypeScript, Rust, Java). Standard library only,
Python 3.6+.

Like ``runtime_verifier`` (pytest's grader), this one module serves the generator (``run``, in task containers,
for the FAIL_TO_PASS / PASS_TO_PASS runs) and every bundle of such a language, where it ships as
``tests/verifier.py`` beside ``tests/runtime_verifier.py`` (whose input reading, workspace reset, locking and
scoring it uses, so the graders share one implementation of each), ``tests/env_guard.py`` and the language's
runner (``config["runner"]``: ``go`` -> ``tests/go_runner.py``; ``cargo`` -> ``tests/rust_runner.py``;
``maven`` -> ``tests/java_runner.py``; ``jest``/``vitest``/``mocha``/``node:test`` -> ``tests/js_runner.py``), which knows the
runner's node ids, runs, results and sentinels.

What ``grade`` trusts, and in what order, is ``runtime_verifier``'s (its docstring), with the runner's own rules:

1. every process the agent left is killed before an input is read; the inputs' digest must be the one test.sh
   carries;
2. the environment is compared with ``python_env.json``: the grader's Python and, recorded whole, the toolchain,
   the dependencies and the caches the image was built with; any change grades 0;
3. the workspace is reset without git: every test file and runner configuration file is written from the
   overlay (a source file that holds graded unit tests, ``overlay["splice"]``, gets only its tests from it: the
   runner's ``splice``); a test file or runner configuration that is not in the base commit's tree nor the
   overlay is removed (the runner's ``planted``);
4. sentinel tests (the runner's ``plant_sentinels``) are added to the graded test files: tests that must fail,
   named from the file's own test names and asserting the way the file does, chosen by
   ``config["sentinel_seed"]``;
5. the runner runs the graded test files as user ``nobody`` with no new privileges, in an environment built
   from nothing, with no cache the agent could have written;
6. outcomes come from the runner's structured report, the worst report of a test winning; reward 1.0 only when
   every FAIL_TO_PASS and PASS_TO_PASS test passed, every sentinel was reported failed and the runner was not
   killed by a signal (a runner killed before it finished did not write its report; whatever is there is not its).

Commands (``python3 verifier.py COMMAND --tests-dir DIR``) and ``config.json`` keys are ``runtime_verifier``'s,
with ``runner``, ``toolchain`` (where the image keeps the toolchain and its caches) and ``runner_flags`` (options
the base commit's test script gives the runner, e.g. ``node --test --import tsx``).
"""

import json
import os
import random
import sys

try:  # the generator imports this module from the repo2env package
    from . import env_guard
    from . import runtime_verifier as core
except ImportError:  # in a bundle: env_guard.py, runtime_verifier.py and the runner are beside it (or loaded)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import env_guard
    import runtime_verifier as core

RUNNER_MODULES = {"go": "go_runner", "cargo": "rust_runner", "maven": "java_runner", "jest": "js_runner",
                  "vitest": "js_runner", "mocha": "js_runner", "node:test": "js_runner"}


def runner_module(config):
    """The runner module of ``config["runner"]``. Raises ``RuntimeError`` for an unknown runner."""
    name = RUNNER_MODULES.get(config.get("runner"))
    if name is None:
        raise RuntimeError("unknown runner %r (known: %s)" % (config.get("runner"), ", ".join(sorted(RUNNER_MODULES))))
    if name in sys.modules:
        return sys.modules[name]
    try:
        return __import__("repo2env.graders." + name, fromlist=[name])
    except ImportError:
        return __import__(name)


def _runner_args(config):
    return dict(config.get("toolchain") or {}, runner=config.get("runner"), flags=config.get("runner_flags") or [])


def cmd_run(args):
    inputs = core.read_inputs(args.tests_dir)
    config = inputs["config"]
    runner = runner_module(config)
    try:
        core.prepare_workspace(inputs, runner.planted, getattr(runner, "splice", None))
    except OSError as exc:
        sys.stdout.write(json.dumps({"error": str(exc)}))
        return 3
    targets = config.get("run_targets", [])
    code, seconds, outcomes, errors, messages, notes, tail = runner.run(
        config["workspace"], targets, config.get("timeout_sec", 1800), _runner_args(config),
        core._runner_uid(config), full_log=args.results + ".log")
    result = {"outcomes": outcomes, "collection_errors": errors, "collection_messages": messages,
              "skip_messages": notes.get("skipped", {}), "error_messages": {},
              "failure_details": notes.get("failures", {}), "exit_code": code, "seconds": seconds,
              "log_tail": tail}
    core._write_atomic(args.results, json.dumps(result))
    sys.stdout.write(json.dumps({"exit_code": code, "seconds": seconds}))
    return 0


def cmd_grade(args):
    env_guard.kill_strays()  # first: nothing the agent left running acts from here on
    logs = args.logs_dir
    core._clear_rewards(logs)
    reward, details, locked = 0.0, {}, {}
    try:
        inputs = core.read_inputs(args.tests_dir)
        if args.inputs_sha256 and inputs["digest"] != args.inputs_sha256:
            raise RuntimeError("the grading inputs in %s are not the ones this task was generated with"
                               % args.tests_dir)
        config, f2p, p2p = inputs["config"], inputs["f2p"], inputs["p2p"]
        if not f2p:
            raise RuntimeError("no FAIL_TO_PASS test to grade")
        runner = runner_module(config)
        if inputs["python_env"] is not None:
            changed = env_guard.compare(inputs["python_env"])
            if changed:
                raise RuntimeError(changed)
        ws = config["workspace"]
        core.prepare_workspace(inputs, runner.planted, getattr(runner, "splice", None))
        files = core.grade_files(f2p + p2p)
        rng = random.Random(config["sentinel_seed"] if "sentinel_seed" in config else os.urandom(16))
        first = core.grade_files(f2p)
        sentinels = runner.plant_sentinels(ws, first + [f for f in core.grade_files(p2p) if f not in first],
                                           config.get("sentinels", core.DEFAULT_SENTINELS), rng,
                                           runner=config.get("runner"))
        locked = core._lock([args.tests_dir, logs])
        code, seconds, outcomes, errors, _, _, tail = runner.run(
            ws, files, config.get("timeout_sec", 1800), _runner_args(config), core._runner_uid(config))
        env_guard.kill_strays()  # nothing the tests started may outlive them (and rewrite the reward)
        reward, details = core.score(outcomes, f2p, p2p, sentinels)
        forged = [s for s in sentinels if outcomes.get(s) not in ("failed", "error")]
        if forged or not sentinels:
            reward = 0.0
            details["tampering"] = ("a sentinel test that must fail was reported %s: the runner's reporting was "
                                    "changed" % (outcomes.get(forged[0]) or "missing")) if forged else \
                "no sentinel could be planted in the graded test files"
        if code is not None and code < 0:  # a runner killed by a signal did not finish its report: never trusted
            reward = 0.0
            details["tampering"] = "the test runner was killed by signal %d before it finished" % -code
        details.update({"exit_code": code, "seconds": round(seconds, 3), "collection_errors": errors,
                        "sentinels": len(sentinels)})
        sys.stdout.write(tail + "\n")
    except Exception as exc:  # any failure grades 0: the reward file must always be written
        details = {"error": "%s: %s" % (type(exc).__name__, exc)}
    finally:
        core.unhide(locked)
    core._write_atomic(os.path.join(logs, "reward-details.json"), json.dumps(dict(details, reward=reward), indent=1))
    core._write_atomic(os.path.join(logs, "reward.txt"), "%s\n" % reward)
    sys.stdout.write("reward: %s\n" % reward)
    return 0


def main(argv=None):
    parser, _ = core.command_parser(__doc__.split("\n")[0])
    args = parser.parse_args(argv)
    if args.command == "run":
        return cmd_run(args)
    if args.command == "grade":
        return cmd_grade(args)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
