"""The grader's bootstrap: the Python program ``tests/test.sh`` hands the interpreter on standard input (a quoted
here-document, so the agent cannot have written it), before any file of ``/tests`` is read.

In layout 1.0 the grader runs in the agent's container (the agent is ``learner``; in a bundle without
``[agent].user``, root), and a process it left running may rewrite ``/tests`` between Harbor's upload and the
grader's start. The bootstrap therefore, in this order:

1. makes the interpreter's bytecode cache a fresh folder (``sys.pycache_prefix``), so a ``.pyc`` planted in a
   ``__pycache__`` is never read;
2. kills every process but its own chain and the container's main chain (``env_guard.kill_strays``, the same code:
   its source is copied in here), so nothing the agent left running acts from here on;
3. reads each grader file named by a pin (``/tests/<file>=<sha256>``, written by the generator) into memory and
   refuses a file whose sha256 differs; the modules run from those bytes (never from disk), the last pinned file
   as ``__main__`` with the remaining arguments;
4. grades under an alarm of ``budget`` seconds; when the alarm rings, a pin fails or the grader dies, it kills the
   strays again and writes reward 0 (reward files or folders planted in the logs dir are removed first);
5. ends with ``os._exit``: nothing registered to run at exit (an ``atexit`` handler, a shared library's
   destructor) acts after the reward was written.

Arguments (after ``python3 -I -S -``): ``budget logs_dir pins main [args ...]``, pins comma-separated.
"""

import ast
import hashlib
import re
from pathlib import Path

from repo2env import graders
from repo2env.graders import env_guard

PIN = re.compile(r"(?:/tests/[\w.-]+\.py=[0-9a-f]{64},?)+")

_HEAD = '''\
# repo2rlenv grader bootstrap (repo2env/bundles/bootstrap.py): fresh bytecode cache, strays killed, grader files
# checked against their pins and run from memory, reward 0 whenever the grader cannot finish.
import os
import sys
sys.pycache_prefix = "/tmp/r2e-pycache-" + os.urandom(8).hex()
os.mkdir(sys.pycache_prefix, 0o700)
import hashlib
import json
import shutil
import signal
import types
IN_CONTAINER = %r
'''

_LOADER = '''
def _reward_zero(logs, why):
    """Kill the strays, remove any reward file or folder, write reward 0 with ``why``, and end the process."""
    kill_strays()
    for name in ("reward.txt", "reward.json", "reward-details.json"):
        path = os.path.join(logs, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.lexists(path):
            os.unlink(path)
    with open(os.path.join(logs, "reward-details.json"), "w") as handle:
        handle.write(json.dumps({"reward": 0.0, "error": why}))
    with open(os.path.join(logs, "reward.txt"), "w") as handle:
        handle.write("0\\n")
    os._exit(0)


def _main(argv):
    budget, logs, pins, rest = int(argv[0]), argv[1], argv[2].split(","), argv[3:]
    os.makedirs(logs, exist_ok=True)
    signal.signal(signal.SIGALRM, lambda *_: _reward_zero(logs, "the grader ran out of its %d s" % budget))
    signal.alarm(budget)
    kill_strays()
    code = {}
    for pin in pins:
        path, want = pin.rsplit("=", 1)
        with open(path, "rb") as handle:
            data = handle.read()
        if hashlib.sha256(data).hexdigest() != want:
            _reward_zero(logs, "%s is not the file this task was generated with" % path)
        code[path] = compile(data, path, "exec")
    main = rest[0]
    if main not in code:
        _reward_zero(logs, "%s is not pinned" % main)
    for path in code:
        if path != main:
            module = types.ModuleType(os.path.basename(path)[:-3])
            module.__file__ = path
            sys.modules[module.__name__] = module
            exec(code[path], module.__dict__)
    sys.argv = rest
    try:
        exec(code[main], {"__name__": "__main__", "__file__": main, "__builtins__": __builtins__})
    except SystemExit as done:
        if done.code not in (None, 0):
            _reward_zero(logs, "the grader exited with %r" % (done.code,))
    except BaseException as exc:
        _reward_zero(logs, "the grader failed: %s: %s" % (type(exc).__name__, exc))
    signal.alarm(0)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # no exit handler, no shared library's destructor runs after the reward was written


_main(sys.argv[1:])
'''


def program() -> str:
    """The bootstrap's Python source (module docstring), as test.sh embeds it: ``_HEAD``, env_guard's
    ``_stat`` and ``kill_strays`` (cut from the env_guard.py that ships beside it, so there is one
    implementation and the copy is always whole), then the loader."""
    text = graders.source("env_guard").decode("utf-8")
    functions = {node.name: ast.get_source_segment(text, node) for node in ast.parse(text).body
                 if isinstance(node, ast.FunctionDef) and node.name in ("_stat", "kill_strays")}
    return "\n".join([_HEAD % env_guard.IN_CONTAINER, functions["_stat"], "", functions["kill_strays"], "",
                      _LOADER])


def pins(tests_dir: Path, names: list[str]) -> str:
    """The pins of grader files ``names`` in ``tests_dir`` (as shipped: ``/tests/<name>=<sha256 of its bytes>``,
    comma-separated, the main grader last). Raises ``FileNotFoundError`` when one is not there yet."""
    return ",".join("/tests/%s=%s" % (name, hashlib.sha256((tests_dir / name).read_bytes()).hexdigest())
                    for name in names)


# grader modules a main grader may import, in load order
LIBRARIES = ("env_guard.py", "runtime_verifier.py", "go_runner.py", "js_runner.py", "rust_runner.py", "java_runner.py")


def grader_files(tests_dir: Path, main: str) -> list[str]:
    """The grader files of a bundle's ``tests_dir`` to pin, dependencies first: those of ``LIBRARIES`` the
    bundle ships (``runtime_verifier.py`` and the runner beside a toolchain language's grader), then ``main``."""
    return [name for name in LIBRARIES if (tests_dir / name).is_file() and name != main] + [main]
