"""What a model's reply asks the environment to do: the ``answer_parser`` of ``repo2env.gym.RepoTask``.

A reply acts through its **last** fenced code block (```` ```bash ````, ```` ```sh ````, ```` ```shell ```` or a bare
```` ``` ````): the block's text is one shell action. A reply whose last line (outside any block) or whose last
block is the marker ``SUBMIT`` (any case; ``<submit/>`` too) submits the work for grading. A reply with neither is
the empty action, which the task answers with a hint and counts as a step.
"""

import re

SUBMIT = "SUBMIT"
_FENCE = re.compile(r"```[ \t]*(?P<lang>[\w+-]*)[ \t]*\n(?P<body>.*?)```", re.DOTALL)
_SHELLS = {"", "bash", "sh", "shell", "console", "zsh"}
_MARKER = re.compile(r"^\s*(?:SUBMIT|<submit\s*/?>)\s*$", re.IGNORECASE)


def parse_action(raw_response: str) -> str:
    """The action in ``raw_response`` (module docstring): ``SUBMIT``, a shell command, or ``""``."""
    text = raw_response or ""
    blocks = [m for m in _FENCE.finditer(text) if m.group("lang").lower() in _SHELLS]
    tail = text[blocks[-1].end():] if blocks else text
    lines = [line for line in tail.strip().splitlines() if line.strip()]
    if lines and _MARKER.match(lines[-1]):
        return SUBMIT
    if blocks:
        body = blocks[-1].group("body").strip()
        return SUBMIT if _MARKER.match(body) else body
    return ""
