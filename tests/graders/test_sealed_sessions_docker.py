"""What the agent leaves writable cannot carry notes between the grader's sessions (``seal_shared``): red team 6
left a world-writable file in the agent's home, the code under test counted the sessions in it and so learnt
which one it ran in. Graded in a real Docker engine as Harbor's shared verifier grades a 1.0 bundle."""

import json
import re

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.controls import grade_shared, shared_container
from repo2env.environment.images import run_image

pytestmark = pytest.mark.docker

# as the agent (learner): a note file and a folder anyone may write, in its home and in the workspace
LEAVE = "touch ~/note && chmod 666 ~/note && mkdir -p /workspace/box && chmod 777 /workspace/box"
# the code under test writes a mark to both at import, whichever user runs it, and never fails for it
MARK = """

try:
    open("/home/learner/note", "a").write("x")
    open("/workspace/box/mark-%d" % __import__("os").getpid(), "w").close()
except OSError:
    pass
"""


def test_nothing_the_agent_left_writable_is_written_by_the_tests(docker_client, demo_generated):
    out, _ = demo_generated
    bundle = out / "local__calc-demo-1"
    config = read_task_toml(bundle)
    image = run_image(docker_client, bundle, config, bundle.name)
    patch = (bundle / "solution/patch.diff").read_text()
    sources = re.findall(r"^\+\+\+ b/(\S+\.py)$", patch, re.MULTILINE)
    with shared_container(docker_client, bundle, image, {"/logs/verifier": None, "/solution": bundle / "solution"}) \
            as box:
        code, text, _ = box.exec(["bash", "-c", LEAVE], user="learner")
        assert code == 0, text
        code, text, _ = box.exec(["bash", "/solution/solve.sh"])
        assert code == 0, text
        for rel in sources:
            code, text, _ = box.exec(["bash", "-c", f"cat >> /workspace/{rel} <<'PY'\n{MARK}PY"])
            assert code == 0, text
        raw, transcript = grade_shared(box, bundle, 300)
        details = json.loads(box.read_file("/logs/verifier/reward-details.json") or b"{}")
        note = box.read_file("/home/learner/note")
        _, listing, _ = box.exec(["ls", "-A", "/workspace/box"])
        _, modes, _ = box.exec(["stat", "-c", "%a %U", "/home/learner/note", "/workspace/box"])
    assert raw == b"1.0\n" and details["sessions"] == 2, (details, transcript[-2000:])  # the fix, two sessions
    assert note == b"" and listing.strip() == "", (note, listing)  # no session wrote a mark
    assert modes.split("\n")[:2] == ["664 learner", "775 learner"], modes

