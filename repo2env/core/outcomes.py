"""Outcome enums: why a candidate was skipped, and the evaluation status a bundle carries.

``SKIP_REASONS`` / ``EVALUATION_STATUSES`` are the one table that says what each code means; the ledger, the run
summary and ``specs/`` all use these values.
"""

from enum import StrEnum


class SkipReason(StrEnum):
    """Why a candidate did not become a task (recorded in the ledger)."""

    REVERT_OR_RELEASE = "revert_or_release"
    DOCS_CI_ONLY = "docs_ci_only"
    NO_TEST_PATCH = "no_test_patch"
    NO_SOURCE_CHANGE = "no_source_change"
    TOO_MANY_SOURCE_FILES = "too_many_source_files"
    BINARY_TEST_FILES = "binary_test_files"
    MERGE_COMMIT = "merge_commit"
    BOT_AUTHOR = "bot_author"
    MESSAGE_TOO_SHORT = "message_too_short"
    NOT_A_FIX_TYPE = "not_a_fix_type"
    NO_FIX_SIGNAL = "no_fix_signal"
    NO_NEW_TEST_FUNCTIONS = "no_new_test_functions"
    TOO_MANY_FILES = "too_many_files"
    NONDETERMINISTIC = "nondeterministic"
    TOO_FEW_CASES = "too_few_cases"
    STUB_PASSES = "stub_passes"
    DELEGATION_PASSES = "delegation_passes"
    REFERENCE_FAILS = "reference_fails"
    WEAK_TESTS = "weak_tests"
    DIFF_TOO_SMALL = "diff_too_small"
    PATCH_DOES_NOT_APPLY = "patch_does_not_apply"
    ENV_BUILD_FAILED = "env_build_failed"
    PYTHON_UNAVAILABLE = "python_unavailable"
    TOOLCHAIN_UNAVAILABLE = "toolchain_unavailable"
    LANGUAGE_UNSUPPORTED = "language_unsupported"
    TEST_RUN_FAILED = "test_run_failed"
    NO_FAIL_TO_PASS = "no_fail_to_pass"
    SUBMODULE_MISSING = "submodule_missing"
    TEST_ENVIRONMENT_BROKEN = "test_environment_broken"
    INSTRUCTION_TOO_THIN = "instruction_too_thin"
    INSTRUCTION_NOT_ACTIONABLE = "instruction_not_actionable"
    UNTWINNED_FAIL_TO_PASS = "untwinned_fail_to_pass"
    ORACLE_FAILED = "oracle_failed"
    NOP_FAILED = "nop_failed"
    CONTROL_ERROR = "control_error"
    NO_COVERING_TEST = "no_covering_test"
    EQUIVALENT_MUTANT = "equivalent_mutant"
    DUPLICATE_MUTANT = "duplicate_mutant"
    BREAKS_TOO_MUCH = "breaks_too_much"
    MAX_TASKS_REACHED = "max_tasks_reached"


# the skips decided from metadata and the diff alone, before any image or container (``Pipeline.screen``)
CHEAP_SKIPS = frozenset({SkipReason.REVERT_OR_RELEASE, SkipReason.DOCS_CI_ONLY, SkipReason.NO_TEST_PATCH,
                         SkipReason.NO_SOURCE_CHANGE, SkipReason.TOO_MANY_SOURCE_FILES, SkipReason.BINARY_TEST_FILES,
                         SkipReason.MERGE_COMMIT, SkipReason.BOT_AUTHOR, SkipReason.MESSAGE_TOO_SHORT,
                         SkipReason.NOT_A_FIX_TYPE, SkipReason.NO_FIX_SIGNAL, SkipReason.TOO_MANY_FILES,
                         SkipReason.DIFF_TOO_SMALL})

SKIP_REASONS: dict[SkipReason, str] = {
    SkipReason.REVERT_OR_RELEASE: "the title says revert, version bump or release",
    SkipReason.DOCS_CI_ONLY: "only documentation or CI files change",
    SkipReason.NO_TEST_PATCH: "no test file changes, so nothing can grade the fix",
    SkipReason.NO_SOURCE_CHANGE: "only test files change: there is no fix to make",
    SkipReason.TOO_MANY_SOURCE_FILES: "the fix touches more source files than --max-source-files",
    SkipReason.BINARY_TEST_FILES: "the test patch carries binary files",
    SkipReason.MERGE_COMMIT: "a merge commit: its change belongs to the commits it merges",
    SkipReason.BOT_AUTHOR: "written by a bot account (dependabot, renovate, pre-commit-ci, ...)",
    SkipReason.MESSAGE_TOO_SHORT: "the commit message is too short to state a problem",
    SkipReason.NOT_A_FIX_TYPE: "a conventional-commit type that is not a fix (docs, chore, ci, style, test, build, "
                               "refactor)",
    SkipReason.NO_FIX_SIGNAL: "nothing says it fixes a bug: no fix type, closing trailer or fix word in the subject",
    SkipReason.NO_NEW_TEST_FUNCTIONS: "the test change adds or edits no test function",
    SkipReason.NONDETERMINISTIC: "the function gave different outcomes for the same inputs on two runs",
    SkipReason.TOO_FEW_CASES: "fewer comparable inputs than min_cases could be generated",
    SkipReason.STUB_PASSES: "the NotImplementedError stub already agrees with the reference on every input",
    SkipReason.DELEGATION_PASSES: "a stub that calls the original still passed (the block did not hold)",
    SkipReason.REFERENCE_FAILS: "the reference copy did not agree with itself on every run",
    SkipReason.WEAK_TESTS: "the inputs detect fewer mutants of the reference than min_kill_rate",
    SkipReason.TOO_MANY_FILES: "the diff touches more files than --max-source-files",
    SkipReason.DIFF_TOO_SMALL: "the diff changes fewer lines than the pipeline's minimum (min_changed_lines)",
    SkipReason.PATCH_DOES_NOT_APPLY: "the test or reference patch does not `git apply --check` at the base commit",
    SkipReason.ENV_BUILD_FAILED: "the environment image for the base commit did not build on any rung of the "
                                  "fallback ladder",
    SkipReason.PYTHON_UNAVAILABLE: "the base commit needs a Python this machine has no base image for (run "
                                    "`R2E_PYTHONS=X.Y bash scripts/setup_docker.sh` with that CPython installed), or "
                                    "its requires-python allows none of 3.8-3.13",
    SkipReason.TOOLCHAIN_UNAVAILABLE: "the repository's language needs a toolchain image this machine has not "
                                      "built (run `bash scripts/setup_docker.sh` on a host with that toolchain)",
    SkipReason.LANGUAGE_UNSUPPORTED: "the repository's language or build tool is recognised but not supported "
                                     "(the detail says which and why)",
    SkipReason.TEST_RUN_FAILED: "the test runner could not run in the task container (no structured results)",
    SkipReason.NO_FAIL_TO_PASS: "no test fails before the fix and passes after it, consistently",
    SkipReason.TEST_ENVIRONMENT_BROKEN: "a test module cannot be imported in any run, even with the fix (a missing "
                                         "test dependency or data file): the environment is broken, not the code",
    SkipReason.SUBMODULE_MISSING: "the tests need a submodule the source clone has not initialised (run `git "
                                   "submodule update --init` there)",
    SkipReason.INSTRUCTION_TOO_THIN: "after leak stripping the instruction is too short to act on",
    SkipReason.INSTRUCTION_NOT_ACTIONABLE: "the instruction states fewer of an input, what happens and what should "
                                           "happen than --min-actionability asks",
    SkipReason.UNTWINNED_FAIL_TO_PASS: "a FAIL_TO_PASS test has no twin that fails with the reference: code under "
                                       "test that forges its report would score 1.0",
    SkipReason.ORACLE_FAILED: "the reference solution did not score 1.0",
    SkipReason.NOP_FAILED: "doing nothing did not score 0.0",
    SkipReason.CONTROL_ERROR: "a control run could not be executed",
    SkipReason.NO_COVERING_TEST: "repo_mutate: no test that passes at the revision calls the mutated function",
    SkipReason.EQUIVALENT_MUTANT: "repo_mutate: no covering test fails with the synthetic bug, consistently (an "
                                  "equivalent mutant, or one the tests cannot see)",
    SkipReason.DUPLICATE_MUTANT: "repo_mutate: another kept mutant fails the same tests with the same normalised diff",
    SkipReason.BREAKS_TOO_MUCH: "repo_mutate: the synthetic bug fails more of the tests run than max_break_share",
    SkipReason.MAX_TASKS_REACHED: "repo_mutate: this run already made max_tasks tasks",
}

# Reasons that mean "the bundle was built but its controls rejected it".
CONTROL_REASONS = frozenset({SkipReason.ORACLE_FAILED, SkipReason.NOP_FAILED, SkipReason.CONTROL_ERROR})


class EvaluationStatus(StrEnum):
    """``[metadata.repo2env.evaluation].status`` of a bundle."""

    UNVERIFIED = "unverified"
    VERIFIED = "verified"
    FAILED_CONTROLS = "failed_controls"
    STALE = "stale"


EVALUATION_STATUSES: dict[EvaluationStatus, str] = {
    EvaluationStatus.UNVERIFIED: "controls have not been run (reason_codes says why)",
    EvaluationStatus.VERIFIED: "in Docker the oracle scored 1.0 and the nop 0.0, on the bundle with this hash",
    EvaluationStatus.FAILED_CONTROLS: "a control scored the wrong reward; reason_codes names which",
    EvaluationStatus.STALE: "measured on an earlier version of the bundle (subject_bundle_hash differs, e.g. after "
                            "push pinned the image); run validate --run to measure this one",
}
