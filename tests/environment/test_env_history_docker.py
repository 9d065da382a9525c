"""Environments across a repository's history (repo2env/environment/ladder.py, repo2env/languages/python/), end to
end with pr_runtime in a real Docker engine on fixture repositories (tests/helpers/repos.py ``ENV_REPOS``):

* ``shapes``: a backend extra named only by a tox factor, a test-only dependency only in a PEP 735 group, and
  ``requires-python = ">=3.9,<3.12"``: all three must hold for the F2P test to run;
* ``tally``: a test module that skips itself without an extra nothing names; the feedback loop finds it;
* ``oldpin``: pytest pinned below 6 in 2022; the Python of its date (3.10) cannot run it, the ladder goes down.
"""

import json

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.environment.memory import EnvMemory
from repo2env.pipeline import GenerateOptions
from repo2env.run import ledger
from repo2env.run.generate import generate
from tests.helpers.repos import build_env_repo

pytestmark = pytest.mark.docker


def _generate(repo, out, **kw):
    summary = generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=False, runs_before=1, runs_after=1,
                                                                 **kw))
    entries = {e.candidate: e for e in ledger.read(ledger.ledger_path(out))}
    return summary, entries


def _meta(bundle):
    return read_task_toml(bundle)["metadata"]["repo2env"]


def test_tox_factor_extra_pep735_group_and_requires_python(docker_client, tmp_path):
    repo = build_env_repo(tmp_path / "shapes", "shapes")
    out = tmp_path / "tasks"
    summary, entries = _generate(repo, out)
    assert summary.verified == ["local__shapes-1"], entries["pr#1"]
    bundle = out / "local__shapes-1"
    assert json.loads((bundle / "tests/f2p.json").read_text()) == ["tests/test_shapes.py::test_area"]
    # the P2P includes the tests that run only on Python < 3.12 and with the group's package
    assert json.loads((bundle / "tests/p2p.json").read_text()) == [
        "tests/test_shapes.py::test_interpreter_is_below_3_12", "tests/test_shapes.py::test_six"]
    repro = _meta(bundle)["reproducibility"]
    assert repro["python"] == "3.11"
    parts = {(p["kind"], p["name"]): p["why"] for p in repro["recipe"]}
    assert parts[("extra", "crypto")] == "tox.ini [testenv] extras (factor crypto)"
    assert parts[("group", "test")] == "the project's dependency group for tests"
    assert parts[("python", "3.11")].startswith("3.11: newest of 3.9, 3.10, 3.11 (tox envlist)")
    assert "requires-python >=3.9,<3.12" in parts[("python", "3.11")]
    assert "-e '.[crypto]' --group test" in repro["install_commands"][0]
    assert [(a["rung"], a["outcome"]) for a in repro["attempts"]] == [("3.11", "ok")]


def test_the_feedback_loop_installs_the_extra_a_skip_names_and_memory_reuses_it(docker_client, tmp_path):
    repo = build_env_repo(tmp_path / "tally", "tally")
    out = tmp_path / "tasks"
    summary, entries = _generate(repo, out)
    assert summary.verified == ["local__tally-1"], entries["pr#1"]
    bundle = out / "local__tally-1"
    assert json.loads((bundle / "tests/f2p.json").read_text()) == ["tests/test_tally.py::test_total_of_stubs"]
    repro = _meta(bundle)["reproducibility"]
    assert [(a["rung"], a["outcome"]) for a in repro["attempts"]] == [("3.12", "superseded"),
                                                                       ("3.12, +extra fancy", "ok")]
    assert "the feedback loop adds extra fancy" in repro["attempts"][0]["detail"]
    why = {(p["kind"], p["name"]): p["why"] for p in repro["recipe"]}[("extra", "fancy")]
    assert why.startswith("tests said: could not import 'pretend'")
    assert "-e '.[test,fancy]'" in repro["install_commands"][0]
    # the plan that worked is remembered for the repository, keyed by its recipe files ...
    (row,) = EnvMemory(tmp_path / "r2e-cache" / "env-memory.sqlite").entries()
    assert row["repo"] == "local/tally" and row["plan"]["add"]["extra"].keys() == {"fancy"}
    # ... and the next run starts from it: one rung, no feedback round, the same bundle
    again = tmp_path / "again"
    summary, _ = _generate(repo, again)
    assert summary.verified == ["local__tally-1"]
    attempts = _meta(again / "local__tally-1")["reproducibility"]["attempts"]
    assert [(a["rung"], a["outcome"]) for a in attempts] == [("3.12, +extra fancy", "ok")]
    assert attempts[0]["detail"].startswith("first tried: same recipe files as ")
    assert _meta(again / "local__tally-1")["bundle_hash"] == _meta(bundle)["bundle_hash"]


def test_the_ladder_goes_down_a_python_when_the_tests_cannot_run(docker_client, tmp_path):
    repo = build_env_repo(tmp_path / "oldpin", "oldpin")
    out = tmp_path / "tasks"
    summary, entries = _generate(repo, out)
    assert summary.verified == ["local__oldpin-1"], entries["pr#1"]
    repro = _meta(out / "local__oldpin-1")["reproducibility"]
    assert repro["python"] == "3.9"
    assert [(a["rung"], a["outcome"]) for a in repro["attempts"]] == [("3.10", "tests_broken"), ("3.9", "ok")]
    assert json.loads((out / "local__oldpin-1/tests/f2p.json").read_text()) == ["tests/test_oldpin.py::test_two"]


def test_a_python_without_a_base_image_is_a_one_line_skip(docker_client, tmp_path):
    repo = build_env_repo(tmp_path / "shapes", "shapes")
    cfg = tmp_path / "env.toml"
    cfg.write_text('[repos."local/shapes"]\npython = "3.7"\n')
    from repo2env.environment.overrides import load_env_config

    summary, entries = _generate(repo, tmp_path / "tasks", env_config=load_env_config(cfg))
    assert dict(summary.skipped) == {"python_unavailable": 1}
    detail = entries["pr#1"].detail
    assert "\n" not in detail and "no base image for it" in detail
    assert "R2E_PYTHONS=3.7 bash scripts/setup_docker.sh" in detail


_GATED_SETUP = '''\
import os

from setuptools import setup

if os.environ.get("GATED_BUILD") != "1":
    raise SystemExit("gated: set GATED_BUILD=1 to build this package")
setup(name="gated", version="0.1", packages=["gated"])
'''


def test_the_setup_agent_proposes_the_next_recipe_when_the_ladder_fails(docker_client, tmp_path, monkeypatch):
    from tests.helpers.anthropic_server import API_KEY, FakeAnthropic
    from tests.helpers.repos import merged_pr_repo

    tests = "from gated import one\n\n\ndef test_one():\n    assert one() == 1\n"
    repo = merged_pr_repo(tmp_path / "gated", {"setup.py": _GATED_SETUP, "gated/__init__.py": "def one():\n    return 0\n",
                                               "tests/test_gated.py": "from gated import one\n"},
                          {"gated/__init__.py": "def one():\n    return 1\n", "tests/test_gated.py": tests},
                          "one() returns 0\n\none() returns 0 where the documentation promises 1; callers that "
                          "count on it get the wrong total.", date="2025-07-01T00:00:00Z")
    server = FakeAnthropic().start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    server.script = [("reply", 'The build needs its gate variable.\n```json\n{"env": {"GATED_BUILD": "1"}, '
                               '"packages": ["rm -rf /"], "why": "setup.py exits unless GATED_BUILD=1"}\n```')]
    cfg = tmp_path / "env.toml"
    cfg.write_text('[repos."local/gated"]\npython = "3.12"\n')  # one rung: the ladder fails at once
    from repo2env.core.llm import LlmConfig
    from repo2env.environment.overrides import load_env_config

    try:
        summary, entries = _generate(repo, tmp_path / "tasks", env_config=load_env_config(cfg),
                                     setup_llm=LlmConfig(provider="anthropic", model="claude-sonnet-4-6",
                                                         max_retries=0))
    finally:
        server.stop()
    assert summary.verified == ["local__gated-1"], entries["pr#1"]
    repro = _meta(tmp_path / "tasks/local__gated-1")["reproducibility"]
    assert [(a["rung"], a["outcome"]) for a in repro["attempts"]] == [("3.12", "install_failed"),
                                                                       ("3.12, +env GATED_BUILD", "ok")]
    assert "The build backend returned an error; gated: set GATED_BUILD=1 to build this package (exit 1)" \
        in repro["attempts"][0]["detail"]
    assert "rm -rf" not in repro["install_commands"][0]  # what is not a requirement never reaches the recipe
    (request,) = server.requests
    asked = request["messages"][0]["content"]
    assert "--- setup.py" in asked and "gated: set GATED_BUILD=1" in asked  # the config files and the error
    assert "test_one" not in asked and "return 1" not in asked  # never the tests, never the fix
    assert summary.setup_llm_usage.startswith("1 calls")
