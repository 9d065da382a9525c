"""Where every pipeline's instruction.md is made: deterministic or synthesized text, always leak-audited.

Flow (``make_instruction``):

1. The deterministic text: the title and body with leaks stripped (``leak_strip.build_instruction``), then the
   behaviour the grading tests observed before the fix (``observed.section``), when there is any.
2. With a synthesizer (``--llm``), the model rewrites it as an issue-style problem statement. A reply that fails
   the leak audit is re-asked once with the finding; if it fails again, or the call fails, or the budget is spent,
   the deterministic text is used.
3. The deterministic text is audited too; a finding loses its span (``leak_audit.remove_findings``).
4. Under the quality floor (``leak_strip.is_too_thin``, applied to the whole text) there is no instruction: the
   candidate is skipped with ``instruction_too_thin``. A bare title with a clear failing behaviour passes.

What happened is returned as records for ``[metadata.repo2env]`` (``leak_audit`` and ``synthesis``).
"""

from dataclasses import dataclass
from typing import Literal

from repo2env.core.metadata import LeakAuditRecord, SynthesisRecord
from repo2env.instructions import actionability, observed
from repo2env.instructions.leak_audit import AuditContext, Finding, audit, remove_findings, rules_fired
from repo2env.instructions.leak_strip import build_instruction, fill_empty_title, is_too_thin
from repo2env.instructions.synthesis import SynthesisInput, Synthesizer


@dataclass(frozen=True)
class Instruction:
    """The instruction.md text and how it was made. ``too_thin``: under the quality floor (the candidate is
    skipped). ``synthesis`` is None without ``--llm``."""

    text: str
    source: Literal["deterministic", "synthesized"]
    leak_audit: LeakAuditRecord
    synthesis: SynthesisRecord | None = None
    too_thin: bool = False


def _normalise(reply: str, fallback_title: str) -> str:
    lines = [line.rstrip() for line in reply.replace("\r\n", "\n").replace("\r", "\n").strip().split("\n")]
    if not lines or not lines[0].startswith("# "):
        lines = [f"# {fallback_title}", ""] + lines
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text + "\n"


def _describe(findings) -> str:
    shown = "; ".join(f"{f.rule} {f.text!r}" for f in findings[:5])
    return shown + (f" and {len(findings) - 5} more" if len(findings) > 5 else "")


def _synthesize(deterministic: str, symbols, ctx: AuditContext, synthesizer: Synthesizer, observed_sentences=(),
                signatures=()):
    """(text or None, SynthesisRecord, every finding of the audit along the way)."""
    title, _, body = deterministic.partition("\n")
    body = body.split("## Observed behaviour", 1)[0]  # the model gets the evidence on its own
    material = SynthesisInput(title=title.lstrip("# ").strip(), body=body.strip(), symbols=tuple(symbols),
                              observed=tuple(observed_sentences), signatures=tuple(signatures))
    record = SynthesisRecord(model=synthesizer.config.name, outcome="failed")
    seen: list[Finding] = []
    finding = None
    for attempt in (1, 2):
        reply = synthesizer.write(material, finding=finding)
        if reply is None:
            outcome = "budget_reached" if not synthesizer.budget_left() else "failed"
            error = synthesizer.last_error if outcome == "failed" else None
            return None, record.model_copy(update={"outcome": outcome, "error": error}), seen
        record = record.model_copy(update={
            "attempts": attempt, "input_tokens": record.input_tokens + reply.input_tokens,
            "output_tokens": record.output_tokens + reply.output_tokens,
            "cost_usd": None if reply.cost_usd is None else round((record.cost_usd or 0) + reply.cost_usd, 6)})
        text = _normalise(reply.text, material.title)
        findings = audit(text, ctx)
        seen += findings
        if not findings:
            if is_too_thin(text):
                return None, record.model_copy(update={"outcome": "too_thin"}), seen
            return text, record.model_copy(update={"outcome": "used" if attempt == 1 else "used_after_reask"}), seen
        finding = _describe(findings)
    return None, record.model_copy(update={"outcome": "leaked_twice"}), seen


def make_instruction(title: str, body: str, ctx: AuditContext, *, symbols=(),
                     synthesizer: Synthesizer | None = None, observed_sentences=(), signatures=()) -> Instruction:
    """The instruction for a change described by ``title``/``body``; ``ctx`` says what must not leak, ``symbols``
    are the public names the gold patch touches and ``signatures`` theirs at the base commit (both shown to the
    model only), ``observed_sentences`` what the
    grading tests saw before the fix (``observed.observed_behaviour``; shown to the model and, without one,
    appended as the "Observed behaviour" section)."""
    deterministic = build_instruction(title, body, test_ids=ctx.test_ids, hidden_paths=ctx.hidden_paths,
                                      allowed_names=ctx.allowed_names, test_lines=ctx.test_added_lines)
    extra = observed.section(list(observed_sentences))
    if extra:
        deterministic = fill_empty_title(deterministic.rstrip("\n") + "\n\n" + extra)
    synthesis = None
    seen: list[Finding] = []
    if synthesizer is not None:
        text, synthesis, seen = _synthesize(deterministic, symbols, ctx, synthesizer, observed_sentences,
                                                 signatures)
        if text is not None:
            action = "none" if synthesis.outcome == "used" else "reasked"
            record = LeakAuditRecord(source="synthesized", rules_fired=rules_fired(seen), action=action,
                                     **_quality(text, 0))
            return Instruction(text, "synthesized", record, synthesis)
    text, findings = deterministic, []
    for _ in range(1 + MAX_REMOVALS):  # what a removal left can read as a copy again (a run across two lines)
        found = audit(text, ctx)
        if not found:
            break
        text, findings = fill_empty_title(remove_findings(text, found)), findings + found
    else:
        left = audit(text, ctx)
        if left:  # still not clean: keep the title alone, audited in turn
            text = fill_empty_title(remove_findings(text, left).split("\n", 1)[0] + "\n")
    seen += findings
    action = "spans_removed" if findings else ("fell_back" if synthesizer is not None else "none")
    record = LeakAuditRecord(source="deterministic", rules_fired=rules_fired(seen), action=action,
                             **_quality(text, len(observed_sentences) if extra else 0))
    return Instruction(text, "deterministic", record, synthesis, too_thin=is_too_thin(text))


MAX_REMOVALS = 3  # rounds of audit and removal after the first


def _quality(text: str, observed_count: int) -> dict:
    """``LeakAuditRecord``'s ``states``/``words``/``observed`` for the instruction ``text``."""
    return {"states": actionability.stated(text), "words": actionability.words(text), "observed": observed_count}
