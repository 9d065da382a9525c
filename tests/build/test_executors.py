"""repo2env/build/executors.py: a unit planned from a local clone pickles whole (a Ray worker builds it without
planning again); the pipeline it carries still answers after the round trip."""

import pickle

from repo2env.build.executors import _picklable
from repo2env.build.runner import Unit
from repo2env.pipeline import GenerateOptions, load_pipeline


def test_a_planned_local_unit_pickles_and_works_after_the_round_trip(demo_repo, tmp_path):
    pipeline = load_pipeline("pr_runtime")
    options = GenerateOptions(out=tmp_path / "out")
    plan = pipeline.plan(str(demo_repo), options)
    pr = plan.candidates[-1]
    unit = Unit(source=str(demo_repo), pipeline="pr_runtime", key=pipeline.candidate_key(pr), repo=plan.repo.slug,
                fingerprint="f", options=options, candidate=pr, pipeline_obj=pipeline, repo_ref=plan.repo)
    assert _picklable(unit)
    copy, repo, candidate, _ = pickle.loads(pickle.dumps((pipeline, plan.repo, pr, options)))
    assert copy.candidate_key(candidate) == "pr#1" and copy.task_id(repo, candidate) == "local__calc-demo-1"
    assert copy._source.problem_statement(candidate).title == pipeline._source.problem_statement(pr).title
    assert copy._source.git.head.commit.hexsha == pipeline._source.git.head.commit.hexsha
