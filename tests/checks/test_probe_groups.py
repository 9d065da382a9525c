"""Which probes share a container (``checks.probes.groups``): no two attacks of a group change the same thing, at
most one breaks the tools the others use and it acts last, the checks act first, and every probe the grader
answers by reporting tampering or an error acts alone (its verdict could hide another's)."""

import json

from repo2env.checks.probes import PROBES, groups

PYTHON_RUNTIME = [p for p in PROBES if "runtime" in p.applies and ("*" in p.languages or "python" in p.languages)]


def test_every_probe_is_run_once():
    planned = [p.name for g in groups(PYTHON_RUNTIME) for p in g]
    assert sorted(planned) == sorted(p.name for p in PYTHON_RUNTIME)


def test_a_group_never_changes_one_thing_twice_and_its_checks_act_first():
    for group in groups(PYTHON_RUNTIME):
        attacks = [p for p in group if not p.check]
        surfaces = [s for p in attacks for s in p.surfaces]
        assert len(surfaces) == len(set(surfaces)), [p.name for p in group]
        assert [p.check for p in group] == sorted((p.check for p in group), reverse=True)


def test_what_the_grader_reports_as_tampering_and_the_valid_alternative_act_alone():
    alone = {g[0].name for g in groups(PYTHON_RUNTIME) if len(g) == 1}
    # measured on the demo: the grader reports an error or tampering for these (environment manifest, FIFO in
    # site-packages, sentinels), so a group's verdict could not tell them apart
    reported = {"site_pth", "sitecustomize", "fifo_site_packages", "code_runner_flip", "code_early_exit",
                "code_spare_copies"}
    # and the attacks that replace a program other attacks' payloads run (python3, timeout, the standard library)
    replacers = {"path_interpreter", "system_program", "stdlib_zip"}
    assert reported | {"valid_alternative"} | replacers <= alone
    # measured on the demo with the unprivileged agent, the grader's answer to these is the nop's exactly (strays
    # killed before it reads its inputs, the report write-only to the runner, planted files cleaned up), so they
    # share a container; where it is not (a root agent's bundle), the group's verdict is not the nop's and each
    # runs again alone (run_probes)
    shared = {"input_rewriter", "grader_swapper", "code_result_rewrite", "shadow_pytest", "reward_late_writer"}
    assert not shared & alone
    assert (len(PYTHON_RUNTIME), len(groups(PYTHON_RUNTIME))) == (30, 15)  # container starts: 30 -> 15


def test_only_probes_that_declare_what_they_change_are_grouped():
    undeclared = [p for p in PROBES if not p.surfaces and not p.check]
    grouped = {p.name for g in groups(undeclared) for p in g if len(g) > 1}
    assert grouped == set()


def test_a_grading_that_stopped_on_an_error_has_no_outcome_to_compare_and_tampering_is_part_of_one():
    from repo2env.checks.controls import OUTCOME_KEYS, graded_outcome
    clean = {key: 0 for key in OUTCOME_KEYS} | {"not_passed": ["t::a"], "reward": 0.0, "audit": ["x"]}
    seen = graded_outcome(json.dumps(clean).encode())
    assert seen == {key: clean[key] for key in OUTCOME_KEYS} | {"tampering": None}
    assert graded_outcome(json.dumps({**clean, "tampering": "a sentinel passed"}).encode()) != seen
    for spoiled in ({**clean, "error": "RuntimeError: inputs"}, {k: v for k, v in clean.items()
                                                                 if k != "statuses_sha256"}):
        assert graded_outcome(json.dumps(spoiled).encode()) is None
    assert graded_outcome(None) is None and graded_outcome(b"not json") is None
