"""Differential testing of one function: the agent's ``task_module.<name>`` against the repository's reference.

Standard library only (Python 3.8+). Shipped into equivalence_tests bundles as ``tests/eqv_harness.py`` and run
in the task container; the generator runs the same file to calibrate (stub, reference, mutants).

- Values travel as tagged JSON (``encode``/``decode``): None, bool, int, float (nan, inf), str, bytes, list,
  tuple, dict, set, frozenset, range. A case is ``{"args": [...], "kwargs": {...}}`` of encoded values.
- An outcome is ``["ok", <normalised result>]`` (``normal``: plain values as above, iterators by their first
  items and how they ended, objects with value semantics by their values), ``["ok-opaque", <type name>, <repr
  without memory addresses>]`` for a result that has none, or ``["raise", <exception type name>]``. Two outcomes agree when equal (floats within 1e-9 relative,
  NaN equal to NaN).
- The reference's outcomes are computed once, at generation (``casegen``), and shipped in ``cases.json``: the
  grader never runs the reference. Before the candidate is imported, the original ``<module>.<name>`` is
  replaced by a function that raises, so a candidate that delegates to it fails.
- ``grade`` runs the candidate in a child process (it only returns outcomes); the parent compares and writes
  ``reward.txt`` (1 when every case agrees, else 0) and ``reward-details.json``. The child gets the inputs only,
  from a copy outside the tests folder; run as root, the grader closes the tests folder (0700) and runs the
  child as ``nobody``, so the candidate can read neither the expected outcomes nor the reference. Before, the
  Python environment is checked against ``python_env.json`` when the bundle has one (``env_guard``); after,
  every process the candidate left behind is killed.
"""

import argparse
import copy
import dataclasses
import enum
import importlib
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import time
import types
import uuid

TOLERANCE = 1e-9


class Unencodable(TypeError):
    """A value outside the tagged-JSON types."""


def encode(value, depth=0):
    """Tagged JSON for ``value``. Raises ``Unencodable``."""
    if depth > 20:
        raise Unencodable("too deep")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2 ** 53 else {"$int": str(value)}
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return {"$float": repr(value)}
        return {"$float": repr(value)} if value == 0 and math.copysign(1, value) < 0 else value
    if isinstance(value, bytes):
        return {"$bytes": value.hex()}
    if isinstance(value, tuple) and type(value) is tuple:
        return {"$tuple": [encode(v, depth + 1) for v in value]}
    if type(value) is list:
        return [encode(v, depth + 1) for v in value]
    if type(value) in (set, frozenset):
        items = sorted((encode(v, depth + 1) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
        return {"$" + type(value).__name__: items}
    if type(value) is dict:
        return {"$dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if type(value) is range:
        return {"$range": [value.start, value.stop, value.step]}
    raise Unencodable(type(value).__name__)


def decode(value):
    """The Python value of tagged JSON."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        (tag, body), = value.items()
        if tag == "$int":
            return int(body)
        if tag == "$float":
            return float(body)
        if tag == "$bytes":
            return bytes.fromhex(body)
        if tag == "$tuple":
            return tuple(decode(v) for v in body)
        if tag == "$set":
            return set(decode(v) for v in body)
        if tag == "$frozenset":
            return frozenset(decode(v) for v in body)
        if tag == "$dict":
            return dict((decode(k), decode(v)) for k, v in body)
        if tag == "$range":
            return range(*body)
        raise ValueError("unknown tag %s" % tag)
    return value


ITER_ITEMS = 100  # items of a lazy result (an iterator or generator) compared; the rest is never consumed
ITER_SECONDS = 2.0  # time to consume them; over it, the outcome is "timeout" (such a reference case is dropped)
VALUE_TYPES = ("Decimal", "Fraction", "complex", "datetime", "date", "time", "timedelta", "timezone", "UUID",
               "range", "PurePosixPath", "PosixPath", "PureWindowsPath", "WindowsPath", "IPv4Address",
               "IPv6Address", "IPv4Network", "IPv6Network")  # their repr is their value, with no address
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+|0x[0-9a-fA-F]{6,}")


def _name(value):
    return type(value).__qualname__


def _is_iterator(value):
    try:
        return hasattr(type(value), "__next__") and iter(value) is value
    except Exception:
        return False


def _consume(value, depth, clock):
    """``{"$iter": [items, end]}``: up to ``ITER_ITEMS`` items (each normalised), and how it ended:
    ``"exhausted"``, ``"truncated"`` (more items were left), ``"timeout"`` or ``["raise", <exception type>]``."""
    items, end = [], "exhausted"
    while True:
        if len(items) >= ITER_ITEMS:
            end = "truncated"
            break
        if time.monotonic() > clock[0]:
            end = "timeout"
            break
        try:
            item = next(value)
        except StopIteration:
            break
        except Exception as exc:  # lazy validation: the error raised mid-way is part of the behaviour
            end = ["raise", type(exc).__name__]
            break
        items.append(normal(item, depth + 1, clock))
    return {"$iter": [items, end]}


def normal(value, depth=0, clock=None):
    """The comparable form of a result: ``encode``'s tagged JSON for the plain types (the same bytes), and for the
    rest what their value is, never their identity:

    - an iterator or generator: its first ``ITER_ITEMS`` items and how it ended (``_consume``), so an infinite one
      compares on its prefix and an error raised while iterating is observed;
    - named tuples ``{"$named": [type, [[field, v]...]]}``, other list/tuple/set/dict subclasses (``deque``,
      ``OrderedDict``, ``Counter``...) by type and content, enums ``{"$enum": [type, member]}``;
    - ``Decimal``, ``Fraction``, ``datetime`` and the other ``VALUE_TYPES`` by type and repr;
    - dataclasses by their compared fields, other instances by their attributes (``__dict__`` and ``__slots__``;
      the public ones unless the class defines ``__eq__``): ``{"$obj": [type, [[name, v]...]]}``.

    Types are named by ``__qualname__``. Raises ``Unencodable`` for anything else (a function, a class, a module,
    an object holding one)."""
    if depth > 20:
        raise Unencodable("too deep")
    clock = clock or [time.monotonic() + ITER_SECONDS]
    kind = type(value)
    if value is None or kind in (bool, str, int, float, bytes):
        return encode(value)
    if kind is list:
        return [normal(v, depth + 1, clock) for v in value]
    if kind is tuple:
        return {"$tuple": [normal(v, depth + 1, clock) for v in value]}
    if kind is dict:
        return {"$dict": [[normal(k, depth + 1, clock), normal(v, depth + 1, clock)] for k, v in value.items()]}
    if kind in (set, frozenset):
        items = sorted((normal(v, depth + 1, clock) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
        return {"$" + kind.__name__: items}
    if isinstance(value, enum.Enum):
        return {"$enum": [_name(value), value.name]}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {"$named": [_name(value), [[f, normal(getattr(value, f), depth + 1, clock)] for f in value._fields]]}
    for base in (bool, int, float, str, bytes):  # a subclass of a plain type: by type and plain value
        if isinstance(value, base):
            return {"$sub": [_name(value), encode(base(value))]}
    if isinstance(value, dict):
        return {"$map": [_name(value), [[normal(k, depth + 1, clock), normal(v, depth + 1, clock)]
                                        for k, v in value.items()]]}
    if isinstance(value, (set, frozenset)):
        return {"$setof": [_name(value), sorted((normal(v, depth + 1, clock) for v in value),
                                                key=lambda v: json.dumps(v, sort_keys=True))]}
    if _is_iterator(value):
        return _consume(value, depth, clock)
    if isinstance(value, (list, tuple)) or kind.__name__ == "deque":
        return {"$seq": [_name(value), [normal(v, depth + 1, clock) for v in value]]}
    if kind.__name__ in VALUE_TYPES:
        return {"$value": [_name(value), repr(value)]}
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                          types.ModuleType)):
        raise Unencodable(kind.__name__)
    if dataclasses.is_dataclass(value):
        return {"$obj": [_name(value), [[f.name, normal(getattr(value, f.name), depth + 1, clock)]
                                        for f in dataclasses.fields(value) if f.compare]]}
    attrs = dict(getattr(value, "__dict__", None) or {})
    for cls in kind.__mro__:
        for slot in getattr(cls, "__slots__", ()) if not isinstance(getattr(cls, "__slots__", ()), str) else \
                (cls.__slots__,):
            if slot not in ("__dict__", "__weakref__") and hasattr(value, slot):
                attrs.setdefault(slot, getattr(value, slot))
    if not attrs and kind.__module__ == "builtins":
        raise Unencodable(kind.__name__)
    own_eq = any("__eq__" in vars(cls) for cls in kind.__mro__[:-1])
    return {"$obj": [_name(value), [[k, normal(attrs[k], depth + 1, clock)] for k in sorted(attrs)
                                    if own_eq or not k.startswith("_")]]}


def outcome(func, case):
    """Call ``func`` on a deep copy of the case's arguments and return its outcome: ``["ok", normal(result)]``,
    ``["ok-opaque", <type>, <repr without memory addresses>]`` for a result ``normal`` cannot express, or
    ``["raise", <exception type>]``."""
    args = copy.deepcopy([decode(a) for a in case.get("args", [])])
    kwargs = copy.deepcopy(dict((k, decode(v)) for k, v in case.get("kwargs", {}).items()))
    try:
        result = func(*args, **kwargs)
    except Exception as exc:  # the exception type is part of the behaviour
        return ["raise", type(exc).__name__]
    try:
        return ["ok", normal(result)]
    except Unencodable:
        try:
            text = repr(result)
        except Exception:
            text = ""
        return ["ok-opaque", type(result).__name__, ADDRESS.sub("", text)[:200]]
    except RecursionError:
        return ["ok-opaque", type(result).__name__, ""]


def timed_out(out):
    """Whether an outcome holds a lazy result that ran out of ``ITER_SECONDS`` (not comparable: how far it got
    depends on the machine)."""
    return '"timeout"' in json.dumps(out)


def _close(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return a == b


def agree(a, b):
    """True when two outcomes mean the same behaviour."""
    return _close(a, b)


def block_original(module_name, func_name):
    """Make ``module_name.func_name`` raise, so a candidate that delegates to it fails."""
    try:
        original = importlib.import_module(module_name)
    except Exception:  # a module that no longer imports cannot be delegated to either
        return

    def blocked(*args, **kwargs):
        raise RuntimeError("the original %s.%s is not available to the solution" % (module_name, func_name))

    setattr(original, func_name, blocked)


def load_candidate(source_file, func_name, module_name):
    """The candidate function defined in ``source_file`` (loaded after the original is blocked)."""
    block_original(module_name, func_name)
    spec = importlib.util.spec_from_file_location("_r2e_candidate_" + uuid.uuid4().hex[:8], source_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, func_name)


def run_cases(func, cases):
    return [outcome(func, case) for case in cases]


def _child(args):
    """In the child: outcomes of the candidate for every case, as JSON on stdout."""
    with open(args.cases) as handle:
        cases = json.load(handle)["cases"]
    sys.path.insert(0, args.workspace)
    try:
        func = load_candidate(args.candidate, args.function, args.module)
        outs = run_cases(func, cases)
    except BaseException as exc:  # a candidate that does not even load fails every case
        outs = [["raise", "load:" + type(exc).__name__]] * len(cases)
    sys.stdout.write("\n@@R2E-OUTCOMES@@" + json.dumps(outs))
    sys.stdout.flush()
    os._exit(0)


def _as_nobody():
    """preexec_fn for the child when the grader runs as root: drop to the ``nobody`` user."""
    try:
        import pwd
        entry = pwd.getpwnam("nobody")
        uid, gid = entry.pw_uid, entry.pw_gid
    except (ImportError, KeyError):
        uid = gid = 65534
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)


def candidate_outcomes(cases_file, candidate, module, function, workspace, timeout=600, sandbox=False):
    """Run the candidate in a child interpreter; its outcomes (None if it crashed or timed out). With
    ``sandbox`` (grading as root), the child runs as ``nobody`` from a world-readable copy of this file."""
    script, preexec, env = os.path.abspath(__file__), None, None
    if sandbox and hasattr(os, "geteuid") and os.geteuid() == 0:
        import shutil
        import tempfile
        folder = tempfile.mkdtemp(prefix="r2e-eqv-")
        os.chmod(folder, 0o755)
        script = os.path.join(folder, "eqv_harness.py")
        shutil.copy(os.path.abspath(__file__), script)
        with open(cases_file) as handle:
            inputs = {"cases": json.load(handle)["cases"]}
        cases_file = os.path.join(folder, "inputs.json")
        with open(cases_file, "w") as handle:
            json.dump(inputs, handle)
        for path in (script, cases_file):
            os.chmod(path, 0o644)
        preexec = _as_nobody
        env = dict(os.environ, HOME="/tmp", PYTHONPYCACHEPREFIX=os.path.join(folder, "pycache"))
    cmd = [sys.executable, script, "child", "--cases", cases_file, "--candidate", candidate,
           "--module", module, "--function", function, "--workspace", workspace]
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=timeout, cwd=workspace,
                              preexec_fn=preexec, env=env)
    except subprocess.TimeoutExpired:
        return None
    marker = done.stdout.rfind(b"@@R2E-OUTCOMES@@")
    if marker < 0:
        return None
    return json.loads(done.stdout[marker + len(b"@@R2E-OUTCOMES@@"):].decode())


def compare(expected, got):
    """(passed, failed case indexes)."""
    if got is None or len(got) != len(expected):
        return False, list(range(len(expected)))
    failed = [i for i, (e, g) in enumerate(zip(expected, got)) if not agree(e, g)]
    return not failed, failed


def _guard():
    """``env_guard`` (shipped beside this file in bundles; a sibling module in the repo2env package)."""
    try:
        from . import env_guard
    except (ImportError, ValueError):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import env_guard
    return env_guard


def _environment_changed(tests_dir):
    recorded = os.path.join(tests_dir, "python_env.json")
    if not os.path.isfile(recorded):
        return None
    with open(recorded) as handle:
        return _guard().compare(json.load(handle))


def grade(tests_dir, logs_dir):
    """Reward 1 when the agent's ``task_module.<function>`` agrees with the reference on every case, else 0."""
    reward, details = 0, {}
    try:
        with open(os.path.join(tests_dir, "eqv_config.json")) as handle:
            config = json.load(handle)
        cases_file = os.path.join(tests_dir, "cases.json")
        with open(cases_file) as handle:
            expected = json.load(handle)["expected"]
        changed = _environment_changed(tests_dir)
        if changed:
            raise RuntimeError(changed)
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            os.chmod(tests_dir, 0o700)
        candidate = os.path.join(config["workspace"], "task_module.py")
        got = candidate_outcomes(cases_file, candidate, config["module"], config["function"], config["workspace"],
                                 sandbox=True)
        _guard().kill_strays()
        passed, failed = compare(expected, got)
        reward = 1 if passed else 0
        details = {"reward": reward, "cases": len(expected), "failed": len(failed), "first_failures": failed[:10]}
    except Exception as exc:  # the verifier must always write a reward
        details = {"reward": 0, "error": "%s: %s" % (type(exc).__name__, exc)}
    for name, text in (("reward-details.json", json.dumps(details, indent=1) + "\n"), ("reward.txt", "%d\n" % reward)):
        tmp = os.path.join(logs_dir, name + ".tmp")
        with open(tmp, "w") as handle:
            handle.write(text)
        os.rename(tmp, os.path.join(logs_dir, name))
    return reward


def main(argv=None):
    parser = argparse.ArgumentParser(description="differential tests of one function")
    sub = parser.add_subparsers(dest="command")
    g = sub.add_parser("grade")
    g.add_argument("--tests-dir", default="/tests")
    g.add_argument("--logs-dir", default="/logs/verifier")
    c = sub.add_parser("child")
    for flag in ("--cases", "--candidate", "--module", "--function", "--workspace"):
        c.add_argument(flag, required=True)
    args = parser.parse_args(argv)
    if args.command == "grade":
        grade(args.tests_dir, args.logs_dir)
        return 0
    if args.command == "child":
        _child(args)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
