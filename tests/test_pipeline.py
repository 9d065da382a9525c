"""repo2env/pipeline.py: pipelines are found through entry points, so a third party adds one without editing us."""

import sys

import pytest

from repo2env.core.errors import PipelineNotFound
from repo2env.pipeline import Pipeline, available, load_pipeline

PLUGIN = '''
from repo2env.pipeline import Plan, Skip
from repo2env.core.outcomes import SkipReason


class EchoPipeline:
    name = "echo"
    version = "9.9"

    def plan(self, source, options):
        return Plan(repo=None, candidates=[source])

    def candidate_key(self, candidate):
        return candidate

    def task_id(self, repo, candidate):
        return "echo-" + candidate

    def build(self, repo, candidate, ctx):
        return Skip(SkipReason.NO_TEST_PATCH, "echo")
'''


@pytest.fixture
def third_party_plugin(tmp_path, monkeypatch):
    """Install a distribution 'echo-plugin' (a dist-info with an entry point) on sys.path, as pip would."""
    (tmp_path / "echo_plugin.py").write_text(PLUGIN)
    dist = tmp_path / "echo_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[repo2env.pipelines]\necho = echo_plugin:EchoPipeline\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("echo_plugin", None)


def test_builtin_pipeline_loads():
    pipeline = load_pipeline("pr_runtime")
    assert isinstance(pipeline, Pipeline) and pipeline.name == "pr_runtime"


def test_third_party_pipeline_is_found(third_party_plugin):
    assert "echo" in available()
    pipeline = load_pipeline("echo")
    assert pipeline.version == "9.9" and pipeline.plan("src", None).candidates == ["src"]


def test_missing_pipeline():
    with pytest.raises(PipelineNotFound, match="installed: .*pr_runtime"):
        load_pipeline("does_not_exist")


class _Twice:
    """A pipeline whose plan lists one key twice (as repo_mutate's did when two functions made one edit)."""

    def plan(self, source, options):
        from repo2env.core.records import Plan, RepoRef
        return Plan(repo=RepoRef(slug="local/x", path=source), candidates=[("a", 1), ("b", 2), ("a", 3)])

    def candidate_key(self, candidate):
        return candidate[0]


def test_a_plan_holds_each_candidate_key_once(tmp_path):
    """Two candidates of one key are one task id: were both built, the second's skip would remove the bundle the
    first verified. The first in plan order stays."""
    from repo2env.pipeline import GenerateOptions
    from repo2env.run.generate import plan_candidates

    plan = plan_candidates(_Twice(), str(tmp_path), GenerateOptions(out=tmp_path / "out", repo_name="org/x"))
    assert plan.candidates == [("a", 1), ("b", 2)] and plan.repo.slug == "org/x"
