"""repo2env/instructions/make.py with repo2env/instructions/synthesis.py: the deterministic and synthesized paths, against a fake
Messages API on 127.0.0.1 (tests/anthropic_server.py) through the real ``anthropic`` client."""

import pytest

from repo2env.core.errors import InputError
from repo2env.core.llm import LlmConfig, LlmRejected, list_price
from repo2env.instructions.leak_audit import AuditContext
from repo2env.instructions.make import make_instruction
from repo2env.instructions.synthesis import Synthesizer
from tests.helpers.anthropic_server import API_KEY, FakeAnthropic
from tests.instructions.test_leak_strip import CASES, _function_names

CTX = AuditContext(test_ids=["tests/test_retry.py::test_max_retries_respected"],
                   hidden_paths=["tests/test_retry.py"],
                   gold_added_lines=["        if attempt >= self.max_retries:", "            raise RetryLimitError(url)"])
TITLE, BODY = "Respect max_retries in the HTTP client", "Client(max_retries=2) retries forever when the server answers 503."


@pytest.fixture
def fake_llm(monkeypatch):
    server = FakeAnthropic().start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    yield server
    server.stop()


def synth(**kw) -> Synthesizer:
    config = dict(provider="anthropic", model="claude-sonnet-4-6", timeout_sec=1.0, max_retries=2)
    config.update(kw)
    return Synthesizer.create(LlmConfig(**config))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
@pytest.mark.parametrize("path", ["deterministic", "synthesized"])
def test_every_shared_leak_case_on_both_paths(case, path, request):
    synthesizer = None
    if path == "synthesized":
        server = request.getfixturevalue("fake_llm")
        synthesizer = synth()
    ctx = AuditContext(test_ids=case.get("test_ids", []))
    made = make_instruction(case["title"], case["body"], ctx, synthesizer=synthesizer)
    out = (made.text or "").lower()
    for s in case["must_drop"]:
        assert s.lower() not in out, f"leaked {s!r}"
    for s in case["must_keep"]:
        assert s.lower() in out, f"lost {s!r}"
    for name in _function_names(case.get("test_ids", [])):
        assert name.lower() not in out
    if path == "synthesized":  # a title-only case stays under the floor, synthesized or not
        assert (made.source, made.synthesis.outcome) in (("synthesized", "used"), ("deterministic", "too_thin"))
        assert made.too_thin == (made.synthesis.outcome == "too_thin") and len(server.requests) == 1


def test_model_sees_stripped_text_and_symbols_never_tests_or_patch(fake_llm):
    made = make_instruction(TITLE, BODY + "\n\nFixes #12, see tests/test_retry.py", CTX,
                            symbols=["client.http.Client"], signatures=["client.http.Client(max_retries=None)"],
                            observed_sentences=["Calling `Client(max_retries=2).get('/')` hangs; it should stop."],
                            synthesizer=synth())
    sent = fake_llm.requests[0]["messages"][0]["content"]
    assert "client.http.Client" in sent and "Client(max_retries=2) retries forever" in sent
    assert "- `client.http.Client(max_retries=None)`" in sent  # the signature at the base commit
    assert "- Calling `Client(max_retries=2).get('/')` hangs; it should stop." in sent  # the evidence
    assert "test_retry" not in sent and "#12" not in sent and "RetryLimitError" not in sent
    assert "temperature" not in fake_llm.requests[0] and fake_llm.requests[0]["max_tokens"] == 1024
    make_instruction(TITLE, BODY, CTX, synthesizer=synth(temperature=0.3, max_tokens=500))
    assert fake_llm.requests[1]["temperature"] == 0.3 and fake_llm.requests[1]["max_tokens"] == 500
    assert made.synthesis.model == "anthropic/claude-sonnet-4-6"
    # 1200 input and 300 output tokens at the list price of claude-sonnet-4 ($3 / $15 per million)
    assert made.synthesis.cost_usd == pytest.approx(1200 * 3 / 1e6 + 300 * 15 / 1e6)
    assert list_price("anthropic", "claude-sonnet-4-6") == (3.0, 15.0)


@pytest.mark.parametrize("step", [("status", 429, "rate_limit_error"), ("status", 529, "overloaded_error"),
                                  ("sleep", 1.6)], ids=["429", "529", "timeout"])
def test_transient_failures_are_retried_by_the_sdk(fake_llm, step):
    fake_llm.script.append(step)
    made = make_instruction(TITLE, BODY, CTX, synthesizer=synth())
    assert made.source == "synthesized" and made.synthesis.outcome == "used"
    assert len(fake_llm.requests) == 2


def test_persistent_failure_falls_back_to_the_deterministic_text(fake_llm):
    fake_llm.script += [("status", 529, "overloaded_error")] * 3
    synthesizer = synth()
    made = make_instruction(TITLE, BODY, CTX, synthesizer=synthesizer)
    assert made.source == "deterministic" and made.synthesis.outcome == "failed"
    assert made.leak_audit.action == "fell_back" and made.text == f"# {TITLE}\n\n{BODY}\n"
    assert made.synthesis.error and "529" in made.synthesis.error
    assert synthesizer.usage.failures == 1 and len(fake_llm.requests) == 3


def test_a_leaking_reply_is_reasked_once_with_the_finding(fake_llm):
    fake_llm.script.append(("reply", "# Retries\n\nMake test_max_retries_respected pass."))
    made = make_instruction(TITLE, BODY, CTX, synthesizer=synth())
    assert made.synthesis.outcome == "used_after_reask" and made.synthesis.attempts == 2
    assert made.leak_audit.action == "reasked" and made.leak_audit.rules_fired == ["test_name"]
    second = fake_llm.requests[1]["messages"][0]["content"]
    assert "Your previous answer leaked test_name 'test_max_retries_respected'" in second
    assert "test_max_retries_respected" not in made.text


def test_leaking_twice_falls_back(fake_llm):
    fake_llm.script += [("reply", "# R\n\nAdd `if attempt >= self.max_retries:` before the loop."),
                        ("reply", "# R\n\nSee https://github.com/acme/client/pull/7 for the fix.")]
    made = make_instruction(TITLE, BODY, CTX, synthesizer=synth())
    assert made.source == "deterministic" and made.synthesis.outcome == "leaked_twice"
    assert made.leak_audit.rules_fired == ["repo_url", "gold_overlap"] and made.leak_audit.action == "fell_back"
    assert made.synthesis.input_tokens == 2400


def test_budget_stops_synthesis(fake_llm):
    synthesizer = synth(budget_usd=0.001)  # one call costs $0.0081
    first = make_instruction(TITLE, BODY, CTX, synthesizer=synthesizer)
    second = make_instruction(TITLE, BODY, CTX, synthesizer=synthesizer)
    assert first.source == "synthesized" and second.source == "deterministic"
    assert second.synthesis.outcome == "budget_reached" and len(fake_llm.requests) == 1
    assert synthesizer.usage.budget_stops == 1
    assert synthesizer.usage.describe(0.001) == ("1 calls, 1200 input / 300 output tokens, $0.0081 of $0.00 "
                                                 "budget, 1 left to the deterministic text (budget reached)")


def test_a_refused_key_ends_the_run_and_a_missing_key_is_bad_input(fake_llm, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-wrong")
    with pytest.raises(LlmRejected, match="refused the key \\(401\\)") as info:
        make_instruction(TITLE, BODY, CTX, synthesizer=synth())
    assert "sk-wrong" not in str(info.value)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(InputError, match="ANTHROPIC_API_KEY is not set"):
        synth()
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    with pytest.raises(InputError, match="no list price known for mystery-1"):
        synth(model="mystery-1", budget_usd=1.0)


def test_deterministic_findings_lose_their_span():
    ctx = AuditContext(gold_added_lines=["    return round(100 * part / whole, ndigits=0)"])
    made = make_instruction("Round percent() properly", "Today it truncates. The fix is "
                            "return round(100 * part / whole, ndigits=0) in percent().", ctx)
    assert made.leak_audit.action == "spans_removed" and made.leak_audit.rules_fired == ["gold_overlap"]
    assert "ndigits" not in made.text and "Today it truncates." in made.text
