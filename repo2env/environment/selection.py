"""FAIL_TO_PASS / PASS_TO_PASS from repeated test runs before and after the fix (a pure function).

Rules (SWE-bench's, with repeats):
* a run "before" is the base commit + test patch, a run "after" adds the gold patch; outcomes come from JUnit XML;
* a test absent from a before-run whose file failed to collect in that run counts as ``error`` there
  (SWE-bench counts every test of a module that cannot be imported before the fix as failing);
* otherwise an absent test is ``absent``; any test whose outcome differs between repeats of the same side is
  flaky and is left out of both lists;
* FAIL_TO_PASS: failed or errored in every before-run, passed in every after-run;
  PASS_TO_PASS: passed in every run of both sides. Tests that fail in every run (e.g. they need the network) are
  in neither.
"""

from repo2env.core.records import TestRun, TestSelection

_FAILING = {"failed", "error"}


def _outcome(run: TestRun, test_id: str) -> str:
    found = run.outcomes.get(test_id)
    if found is not None:
        return found
    return "error" if test_id.split("::", 1)[0] in run.collection_errors else "absent"


def select_tests(before: list[TestRun], after: list[TestRun]) -> TestSelection:
    """Compute the selection; ``before`` and ``after`` must each hold at least one run. Ids are sorted."""
    if not before or not after:
        raise ValueError("select_tests needs at least one run before and one after the fix")
    ids = set().union(*(r.outcomes for r in before), *(r.outcomes for r in after))
    f2p, p2p, flaky = [], [], []
    for test_id in sorted(ids):
        was = {_outcome(r, test_id) for r in before}
        now = {_outcome(r, test_id) for r in after}
        if len(was) > 1 or len(now) > 1:
            flaky.append(test_id)
        elif now == {"passed"} and was <= _FAILING:
            f2p.append(test_id)
        elif now == {"passed"} and was == {"passed"}:
            p2p.append(test_id)
    return TestSelection(fail_to_pass=tuple(f2p), pass_to_pass=tuple(p2p), flaky=tuple(flaky))
