"""answer_parser: the last fenced shell block is the action; SUBMIT (as the last line, or a block of its own)
submits; anything else is the empty action."""

import pytest

from repo2env.gym.actions import SUBMIT, parse_action


@pytest.mark.parametrize("reply, action", [
    ("I will look around.\n```bash\nls -la\n```", "ls -la"),
    ("First\n```sh\necho one\n```\nthen\n```bash\ncd src && grep -n foo *.py\n```\n", "cd src && grep -n foo *.py"),
    ("```\nsed -i 's/a/b/' x.py\n```", "sed -i 's/a/b/' x.py"),
    ("```python\nprint(1)\n```", ""),  # not a shell block
    ("The fix is in.\nSUBMIT", SUBMIT),
    ("```bash\nsubmit\n```", SUBMIT),
    ("```bash\npytest -q\n```\n<submit/>", SUBMIT),
    ("Thinking about SUBMIT later.\n```bash\nmake test\n```", "make test"),
    ("no action here", ""),
])
def test_parse_action(reply, action):
    assert parse_action(reply) == action
