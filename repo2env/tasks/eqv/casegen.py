"""Runs inside a task container at generation time: inputs for one function, its reference outcomes, and the
strength gate. Needs the repository installed; uses ``hypothesis`` and ``pytest`` when they import.

Usage: ``python3 casegen.py CONFIG.json`` with ``eqv_harness.py`` beside it. CONFIG names the function
(``module``, ``function``), the test files that call it (``trace_tests``), ``max_cases``, ``hypothesis_examples``,
``reference_runs`` and the ``candidates`` folder (``stub.py``, ``delegate.py``, ``copy.py``, ``mutant_*.py``).
Writes ``cases.json`` (cases and expected outcomes) and ``gate.json`` into ``out_dir``.

Inputs, in this order: arguments observed when the repository's own tests call the function (``sys.setprofile``
during an in-process pytest run), examples drawn from ``hypothesis`` strategies for the type hints (or the
observed types), then edge values per argument type. Outcomes are the harness's normalised ones (iterators by
their items, objects by their values, memory addresses never compared); a case whose reference call is too slow
is dropped. The function is deterministic when two runs of the reference give the same normalised outcome on
every case; else ``gate.json`` names one disagreeing case.
"""

import importlib
import json
import os
import signal
import sys
import typing

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eqv_harness as harness  # noqa: E402

EDGE = {int: [0, 1, -1, 2, 7, 100, -100, 1000], float: [0.0, -0.0, 1.5, -2.25, 1e-9, 1e9, float("inf")],
        str: ["", "a", " ", "abc", "Hello World", "héllo", "a-b_c.d", "x" * 64], bool: [True, False],
        list: [[], [0], [1, 2, 3], ["a", "b"]], dict: [{}, {"a": 1}], tuple: [(), (1, 2)], bytes: [b"", b"ab"],
        range: [range(0), range(4), range(1, 10, 3)], type(None): [None]}


def _trace(func, test_files, workspace, limit=200):
    """Arguments of calls to ``func`` while pytest runs ``test_files`` (encoded cases, at most ``limit``)."""
    try:
        import pytest
    except ImportError:
        return []
    code, seen, cases = func.__code__, set(), []

    def profiler(frame, event, arg):
        if event == "call" and frame.f_code is code and len(cases) < limit:
            values = frame.f_locals
            try:
                args = [harness.encode(values[a]) for a in code.co_varnames[:code.co_argcount]]
            except (harness.Unencodable, KeyError):
                return
            key = json.dumps(args, sort_keys=True)
            if key not in seen:
                seen.add(key)
                cases.append({"args": args, "kwargs": {}})

    if test_files:
        sys.setprofile(profiler)
        try:
            pytest.main(["-q", "-p", "no:cacheprovider", "-x", "--no-header", "-o", "addopts=",
                         *[os.path.join(workspace, t) for t in test_files]])
        except BaseException:  # a broken suite only means fewer observed inputs
            pass
        finally:
            sys.setprofile(None)
    return cases


NAME_TYPES = (("text", str), ("string", str), ("str", str), ("name", str), ("word", str), ("line", str),
              ("path", str), ("url", str), ("prefix", str), ("suffix", str), ("sep", str), ("char", str),
              ("count", int), ("num", int), ("size", int), ("index", int), ("width", int), ("length", int),
              ("limit", int), ("items", list), ("values", list), ("seq", list), ("iterable", list), ("lst", list),
              ("src", list), ("mapping", dict), ("flag", bool))


def _guess(name, default):
    """A type for an argument without hint or observed value: its default's type, else its name's."""
    if default is not None and type(default) in EDGE:
        return type(default)
    lowered = name.lower()
    if lowered in ("s", "t"):
        return str
    if lowered in ("n", "i", "k", "x", "y"):
        return int
    for part, kind in NAME_TYPES:
        if part in lowered:
            return kind
    return None


def _arg_types(func, observed):
    """Per positional argument: its type hint, else the most common observed type, else a guess."""
    code = func.__code__
    names = code.co_varnames[:code.co_argcount]
    defaults = dict(zip(names[len(names) - len(func.__defaults__ or ()):], func.__defaults__ or ()))
    try:
        hints = typing.get_type_hints(func)
    except Exception:
        hints = {}
    types = []
    for i, name in enumerate(names):
        seen = [type(harness.decode(c["args"][i])) for c in observed if i < len(c["args"])]
        types.append(hints.get(name) or (max(set(seen), key=seen.count) if seen else _guess(name, defaults.get(name))))
    return names, types


def _strategy(st, kind):
    """A hypothesis strategy for an argument of type ``kind``: a bare container (``list``, ``tuple``, ``set``,
    ``dict``: a hint without item types, or a type observed or guessed) gets small ints and short strings as
    items, a ``range`` small bounds; anything else ``st.from_type``. Small, so that a function whose output
    grows fast with its input (all partitions of a list) stays within the harness's bounds."""
    items = st.integers(-10, 10) | st.text(max_size=3)
    bare = {list: st.lists(items, max_size=8), tuple: st.lists(items, max_size=6).map(tuple),
            set: st.sets(st.integers(-10, 10), max_size=6), dict: st.dictionaries(st.text(max_size=3),
                                                                                   st.integers(-10, 10),
                                                                                   max_size=5),
            range: st.builds(range, st.integers(-5, 5), st.integers(-5, 15))}
    return bare[kind] if kind in bare else st.from_type(kind)


def _hypothesis_cases(names, types, count):
    try:
        from hypothesis import HealthCheck, given, settings
        from hypothesis import strategies as st
    except ImportError:
        return []
    strategies = []
    for t in types:
        if t is None:
            return []
        try:
            strategies.append(_strategy(st, t))
        except Exception:
            return []
    drawn = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.tuples(*strategies))
    def collect(values):
        try:
            drawn.append({"args": [harness.encode(v) for v in values], "kwargs": {}})
        except harness.Unencodable:
            pass

    try:
        collect()
    except Exception:
        pass
    return drawn


def _edge_cases(observed, types):
    base = observed[0]["args"] if observed else None
    cases = []
    for i, t in enumerate(types):
        origin = typing.get_origin(t) or t
        for value in EDGE.get(origin, []):
            if base is None:
                args = [harness.encode(EDGE.get(typing.get_origin(u) or u, [None])[0]) for u in types]
            else:
                args = list(base)
            args[i] = harness.encode(value)
            cases.append({"args": args, "kwargs": {}})
    return cases


class _Slow(BaseException):
    pass


def _timed(func, case, seconds=3):
    """The reference outcome, or None when one call (with the consumption of a lazy result) takes longer than
    ``seconds`` or its lazy result ran out of the harness's time (such cases are dropped: not comparable)."""
    def alarm(signum, frame):
        raise _Slow()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        got = harness.outcome(func, case)
        return None if harness.timed_out(got) else got
    except _Slow:
        return None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def main(config_path):
    with open(config_path) as handle:
        config = json.load(handle)
    workspace = config["workspace"]
    sys.path.insert(0, workspace)
    func = getattr(importlib.import_module(config["module"]), config["function"])
    observed = _trace(func, config.get("trace_tests", []), workspace)
    names, types = _arg_types(func, observed)
    drawn = _hypothesis_cases(names, types, config.get("hypothesis_examples", 60))
    edges = _edge_cases(observed, types)
    cases, keys, sources = [], set(), {"observed": 0, "hypothesis": 0, "edge": 0}
    for source, batch in (("observed", observed), ("hypothesis", drawn), ("edge", edges)):
        for case in batch:
            key = json.dumps(case, sort_keys=True)
            if key not in keys and len(cases) < config.get("max_cases", 200):
                keys.add(key)
                cases.append(case)
                sources[source] += 1
    first = [_timed(func, case) for case in cases]
    second = [_timed(func, case) for case in cases]
    differ = [i for i, (a, b) in enumerate(zip(first, second))
              if a is not None and b is not None and not harness.agree(a, b)]
    disagreement = None
    if differ:  # one case, for the skip's detail
        i = differ[0]
        disagreement = json.dumps({"args": cases[i].get("args"), "first": first[i], "second": second[i]})[:400]
    keep = [i for i, o in enumerate(first) if o is not None and second[i] is not None]
    cases, expected = [cases[i] for i in keep], [first[i] for i in keep]
    out = config["out_dir"]
    os.makedirs(out, exist_ok=True)
    cases_file = os.path.join(out, "cases.json")
    with open(cases_file, "w") as handle:
        json.dump({"cases": cases, "expected": expected}, handle)
    gate = {"deterministic": not differ, "disagreement": disagreement, "cases": len(cases), "sources": sources,
            "raising_cases": sum(1 for o in expected if o[0] == "raise"), "candidates": {}}
    folder = config["candidates"]
    for name in sorted(os.listdir(folder)):
        runs = config.get("reference_runs", 3) if name == "copy.py" else 1
        results = []
        for _ in range(runs):
            got = harness.candidate_outcomes(cases_file, os.path.join(folder, name), config["module"],
                                             config["function"], workspace)
            results.append(harness.compare(expected, got)[0])
        gate["candidates"][name] = results
    with open(os.path.join(out, "gate.json"), "w") as handle:
        json.dump(gate, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
