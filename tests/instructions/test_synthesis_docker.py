"""``generate --llm`` end to end: the real anthropic client against a fake Messages API on 127.0.0.1, a real
Docker engine; the synthesized instruction lands in a verified bundle with its usage and audit recorded."""

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.core.llm import LlmConfig
from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from repo2env.tasks.runtime import GRADER_RULES
from tests.helpers.anthropic_server import API_KEY, FakeAnthropic

pytestmark = pytest.mark.docker

STATEMENT = ("# Dividing by zero raises the wrong error\n\n`calc.ops.divide(1, 0)` lets a ZeroDivisionError escape. "
             "Callers handle bad input by catching ValueError, so dividing by zero should raise ValueError with "
             "the message 'cannot divide by zero'.\n")


def test_synthesized_instruction_in_a_verified_bundle(docker_client, demo_repo, tmp_path, monkeypatch):
    server = FakeAnthropic().start()
    server.script.append(("reply", STATEMENT))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    try:
        options = GenerateOptions(probes=False, out=tmp_path / "tasks", numbers=(1,),
                                  llm=LlmConfig(provider="anthropic", model="claude-sonnet-4-6", budget_usd=1.0))
        summary = generate("pr_runtime", str(demo_repo), options)
    finally:
        server.stop()
    bundle = tmp_path / "tasks" / "local__calc-demo-1"
    assert summary.verified == ["local__calc-demo-1"]
    assert (bundle / "instruction.md").read_text() == STATEMENT.rstrip("\n") + "\n\n" + GRADER_RULES + "\n"
    meta = read_task_toml(bundle)["metadata"]["repo2env"]
    assert meta["synthesis_llm"] == "anthropic/claude-sonnet-4-6"
    assert meta["synthesis"] == {"model": "anthropic/claude-sonnet-4-6", "outcome": "used", "attempts": 1,
                                 "input_tokens": 1200, "output_tokens": 300, "cost_usd": 0.0081}
    assert meta["leak_audit"] == {"source": "synthesized", "rules_fired": [], "action": "none", "observed": 0,
                                  "states": ["input", "behaviour", "expectation"], "words": 37}
    assert summary.llm_usage == "1 calls, 1200 input / 300 output tokens, $0.0081 of $1.00 budget"
    sent = server.requests[0]["messages"][0]["content"]
    assert "calc.ops.divide" in sent and "test_divide" not in sent and "#7" not in sent
