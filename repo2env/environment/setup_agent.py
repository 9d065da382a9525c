"""The optional setup agent (``--setup-llm provider/model``): when every rung of the fallback ladder failed, a model
is shown the last install or test error and the files that decide the recipe, and proposes the next recipe.

It answers one JSON object (``{"python", "extras", "groups", "packages", "apt_packages", "env", "why"}``); the
language checks every name (``Language.plan_from_proposal``) and the ladder builds it like any other rung, so the
model never writes a command. Within a budget: ``max_proposals`` per base commit, and the client's USD budget
(``--setup-llm-budget-usd``) over the run. The model never sees the gold patch or the tests.
"""

import json
import re

from repo2env.core import templates
from repo2env.core.llm import LlmClient

MAX_FILE_CHARS = 6000  # per config file shown to the model
MAX_ERROR_CHARS = 4000


class SetupAgent(LlmClient):
    """Proposes recipes with one model (build with ``SetupAgent.create(LlmConfig)``); ``max_proposals`` per base
    commit."""

    flag = "--setup-llm"
    max_proposals = 2

    def propose(self, files: dict[str, str], recipe, error: str, tried: list[str]) -> dict | None:
        """A proposal (dict, unchecked) for the repository whose deciding ``files`` (path -> text) are given,
        after ``recipe`` (an ``InstallRecipe``) failed with ``error``; ``tried``: the rungs tried so far. None
        when the budget is spent, the call failed, or the answer holds no JSON object."""
        shown = "\n\n".join(f"--- {path}\n{text[:MAX_FILE_CHARS]}" for path, text in sorted(files.items()))
        request = templates.render("setup_request.md", files=shown or "(none)", python=recipe.python,
                                   commands="\n".join(recipe.commands), tried="\n".join(f"- {t}" for t in tried),
                                   error=error[-MAX_ERROR_CHARS:] or "(no output)")
        reply = self.ask(templates.read("setup_system.md"), request)
        if reply is None:
            return None
        return parse_proposal(reply.text)


def parse_proposal(text: str) -> dict | None:
    """The first JSON object in ``text`` (a fenced block or bare), or None."""
    for candidate in re.findall(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.DOTALL) + [text[text.find("{"):]]:
        try:
            value, _ = json.JSONDecoder().raw_decode(candidate.strip())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None
