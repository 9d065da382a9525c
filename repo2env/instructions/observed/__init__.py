"""The observed problem, derived from the tests' own evidence: what a user would report, as the FAIL_TO_PASS tests
saw it before the fix.

For each failed FAIL_TO_PASS test, its failure text (``runtime_verifier.py run``'s ``failure_details``: pytest's
JUnit XML message and traceback, with assertion rewriting) gives *what happened*, and the test's own failing
statement, read with ``ast`` from the test file at the head commit (the frame ``path:line`` of the traceback),
gives *which call* and *what was expected*:

* a wrong value (``assert area(2, 3) == 6`` / ``assert 5 == 6``; unittest's ``5 != 6``):
  "Calling `area(2, 3)` returns `5`; it should return `6`."; when pytest shortened the values, what its
  explanation says differs ("... gives a wrong result: the expected result also holds `'x'`.");
* two results of one function that should compare equal: "`numeric_range` gives `a` and `b`, which compare
  unequal; they should be equal.";
* an exception under the statement (``E ValueError: ...``), told of the call the traceback entered:
  "Calling `parse('1 kB')` raises `ValueError: ...`; it should return `1000`." (or "it should not raise", or,
  under ``pytest.raises(KeyError)``/``assertRaises``, "it should raise `KeyError`", or "... with a message
  matching `pattern`" when the type was right and the message not);
* an exception not raised (``DID NOT RAISE``, unittest's ``not raised``): "Calling `area(-1, 2)` does not raise
  an error; it should raise `ValueError`.";
* an object the test made and changed in steps (a ``for`` loop of changes is one): "Starting from `parse` with
  `'a = 1'`, with the key `item` set to `0` for each `item` taken from a list, its `as_string()` gives …";
* a function the test defines and wraps with the project's decorator, told by a stand-in name and its
  decorator: "For a function `func` decorated with `@retry(stop=…)`, after a call of it, reading
  `func.retry.statistics` gives `{}`; …";
* a module that cannot be imported (``cannot import name 'X' from 'pkg'``, ``No module named``): the name asked
  for, and what a call to it in the tests expects ("Once it exists, `percent(1, 3)` should return `33`.");
* a check made by the tests' helpers (``_check(url, output=...)`` passing ``func=safe_url_string`` on): told as
  the call of the API the helper makes, with the case's values;
* the checks a failed test did not reach (pytest stops at the first): "Also, `join([])` should return `''`.",
  while room is left and one check at least stays untold (``shapes.other_checks``).

A name the test function assigns (``p = Parser()``) is shown as its value when that is a literal or a call
(`` `Parser().parse('x')` ``). Sentences never name a test file, a test function or a helper the tests define
(a failure whose only call is one says nothing), and no code span repeats ``leak_audit.DEFAULT_NGRAM`` tokens of
a test file's line: a call that would is told as "`f` with `a` and `b`". The instruction they join is audited
as every instruction is, with the test patch's lines in the n-gram audit.

Files: ``evidence.py`` (what the runs collected), ``failing_statement.py`` (where in the test file),
``spans.py`` (how a call is written), ``shapes.py`` (one sentence per failure), this file (which sentences,
and whether their expected values may be told).
"""

import ast
import re

from repo2env.instructions.observed.evidence import Evidence, helper_names, parse_source
from repo2env.instructions.observed.failing_statement import RAISES
from repo2env.instructions.observed.shapes import _NO_MODULE, import_sentence, module_failure, other_checks, \
    sentence, usage
from repo2env.instructions.observed.spans import Teller, attr_name, joined

__all__ = ["Evidence", "checks", "helper_names", "observed_behaviour", "section", "sentence"]


MAX_SENTENCES = 3
MAX_CONSIDERED = 40  # failures read to choose the sentences from
_SPAN = re.compile(r"`[^`]+`")
_LEFT_OUT = re.compile(r"`[^`]*…[^`]*`")  # a code span with a token left out


def observed_behaviour(evidence: Evidence) -> list[str]:
    """Up to ``MAX_SENTENCES`` distinct sentences of what the FAIL_TO_PASS tests saw before the fix (module
    docstring), FAIL_TO_PASS order; empty when no failure has a shape that can be told without the tests.

    The expected values are told only while the tests make more checks (``checks``) than sentences are told: an
    agent that special-cases the told inputs still fails the checks it was not told. Otherwise the sentences
    keep inputs and what happens, and say only that the result should be correct (an expected exception or
    message, which cannot be guessed, is still told)."""
    out = _sentences(evidence, Teller(evidence))
    if checks(evidence) <= len(out):  # every check would be told with its answer: keep the answers back
        out = _sentences(evidence, Teller(evidence, disclose=False))
    return out


def checks(evidence: Evidence) -> int:
    """How many checks the FAIL_TO_PASS tests make: per test id (each parametrized case counts), its function's
    ``assert`` statements, ``self.assert*`` calls and ``pytest.raises``/``warns``, one in a loop counting
    twice, and those of the helpers of its module it calls (``_check(url, output)``), once per call."""
    trees: dict[str, ast.Module | None] = {}
    total = 0
    for test_id in evidence.fail_to_pass:
        path, _, rest = test_id.partition("::")
        name = rest.split("::")[-1].split("[")[0]
        if path not in trees:
            trees[path] = parse_source(evidence.test_sources.get(path, ""))
        tree = trees[path]
        func = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                     and n.name == name), None) if tree else None
        helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)} \
            if tree else {}
        total += _count_checks(func, 1, helpers, {name}) if func is not None else 0
    return total


def _count_checks(node, weight: int, helpers: dict, seen: set) -> int:
    count = 0
    for child in ast.iter_child_nodes(node):
        inner = 2 * weight if isinstance(child, ast.For | ast.AsyncFor | ast.While | ast.comprehension) else weight
        if isinstance(child, ast.Assert) or (isinstance(child, ast.Call) and (
                (attr_name(child.func) or "").startswith("assert") or attr_name(child.func) in RAISES)):
            count += weight
        elif isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id in helpers \
                and child.func.id not in seen:  # a helper of the module: its checks, made for this call
            count += _count_checks(helpers[child.func.id], weight, helpers, seen | {child.func.id})
        count += _count_checks(child, inner, helpers, seen)
    return count


def _sentences(evidence: Evidence, teller: Teller) -> list[str]:
    out: list[str] = []
    for path in sorted({t.split("::", 1)[0] for t in evidence.fail_to_pass} & set(evidence.import_errors)):
        said = import_sentence(evidence.import_errors[path])
        if said is None:  # the module exists but its import failed: a syntax error, an exception at import
            failed = module_failure(evidence.failures.get(path), evidence.import_errors[path], evidence, teller)
            if failed and failed not in out:
                out.append(failed)
            continue
        if said and said[0] not in out:
            told = usage(said[1], path, evidence, teller)
            source = evidence.test_sources.get(path, "")
            also = _imported_with(said[1], source, teller)
            module = _NO_MODULE.search(evidence.import_errors[path])
            provided = _imported_from(module.group(1), source, teller) if module else None
            out.append(said[0] + (f" It should provide {also} too." if also else "")
                       + (f" The tests take {provided} from it." if provided else "") + (f" {told}" if told else ""))
    found: list[str] = []
    for test_id in evidence.fail_to_pass[:MAX_CONSIDERED]:
        text = evidence.failures.get(test_id)
        said = sentence(text, evidence, teller, test_id) if text else None
        if said and said not in out and said not in found:
            found.append(said)
    missing = [s for s in found if " does not exist (" in s]  # a name the tests need and cannot be guessed
    for said in missing[:MAX_SENTENCES - len(out)]:
        out.append(said)
        found.remove(said)
    while found and len(out) < MAX_SENTENCES:  # the most that is not told yet: parametrized cases differ
        told = {span for s in out for span in _SPAN.findall(s)}
        best = max(found, key=lambda s: len(set(_SPAN.findall(s)) - told))  # the first of equals: F2P order
        out.append(best)
        found.remove(best)
    room = min(MAX_SENTENCES, checks(evidence) - 1) - len(out)  # one check at least stays untold
    if out and room > 0:  # the checks the failures did not reach (a test stops at its first failed one)
        out += other_checks(evidence, teller, {span for s in out for span in _SPAN.findall(s)})[:room]
    return out[:MAX_SENTENCES]


def _imported_with(name: str, source: str, teller: Teller) -> str | None:
    """The other names imported in the same ``from m import ...`` as ``name`` (Python reports only the first
    one it misses), as code spans: "`b` and `c`"; None when there are none (or one would name the tests')."""
    tree = parse_source(source)
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.ImportFrom) and any(a.name == name for a in node.names):
            others = [teller.code(a.name) for a in node.names if a.name != name and not teller.names_tests(a.name)]
            others = [o for o in others if o]
            if others:
                return joined(others)
    return None


def _imported_from(module: str, source: str, teller: Teller) -> str | None:
    """The names the tests import from ``module`` (``from module import a, b``), a module that does not exist
    yet, as code spans ("`a` and `b`"): what it must provide; None when there are none (or one would name the
    tests')."""
    tree = parse_source(source)
    names: list[str] = []
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.ImportFrom) and node.module == module and not node.level:
            names += [a.name for a in node.names if a.name != "*" and a.name not in names]
    if any(teller.names_tests(n) for n in names):
        return None
    spans = [span for span in (teller.code(n) for n in names) if span]
    return joined(spans) if spans else None


def section(sentences: list[str]) -> str:
    """The instruction's "Observed behaviour" section (Markdown), or "" without sentences; a code span with a
    token left out (``…``, so that it copies no test line) that its sentence does not explain gets a closing
    note saying so."""
    if not sentences:
        return ""
    unexplained = any(_LEFT_OUT.search(s.replace("`…`: left out", "")) and "`…`: left out" not in s
                      for s in sentences)
    note = "\n(`…` in a value: text left out.)\n" if unexplained else ""
    return "## Observed behaviour\n\n" + "\n".join(f"- {s}" for s in sentences) + "\n" + note
