"""LLM synthesis of issue-style problem statements (``--llm``), with the run's ``core.llm`` client.

The model sees the leak-stripped title and body (the deterministic instruction), the public names the gold
patch touches with their signatures at the base commit, and the failing behaviour the tests observed
(``observed``); never the patch, never the tests. When the budget is spent or a call fails, the deterministic
text is used.
"""

from dataclasses import dataclass

from repo2env.core import templates
from repo2env.core.llm import LlmClient, Reply


@dataclass(frozen=True)
class SynthesisInput:
    """What the model may see: a title, a leak-stripped body, public names (``module.func`` or ``Class``), their
    signatures at the base commit (``changes.patches.public_signatures``) and the behaviour the grading tests
    observed before the fix (sentences that name no test)."""

    title: str
    body: str
    symbols: tuple[str, ...] = ()
    observed: tuple[str, ...] = ()
    signatures: tuple[str, ...] = ()


class Synthesizer(LlmClient):
    """Writes problem statements with one model; keeps the run's ``usage``. Build with ``Synthesizer.create``."""

    flag = "--llm"

    def write(self, material: SynthesisInput, finding: str | None = None) -> Reply | None:
        """Ask for a problem statement (``finding``: what the previous answer leaked, to avoid it this time).

        Returns None when the budget is spent or the call failed after the SDK's retries (recorded in
        ``usage``; the caller then uses the deterministic text). Raises ``LlmRejected`` when the key is refused."""
        request = templates.render(
            "synthesis_request.md", title=material.title, body=material.body or "(no description)",
            symbols=", ".join(material.symbols) or "(none found)",
            signatures="\n".join(f"- `{s}`" for s in material.signatures) or "(none found)",
            observed="\n".join(f"- {s}" for s in material.observed) or "(not known)",
            finding=(f"\nYour previous answer leaked {finding}. Write it again without that.\n" if finding else ""))
        return self.ask(templates.read("synthesis_system.md"), request)
