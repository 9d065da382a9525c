"""What the agent leaves in the container cannot carry notes between the grader's sessions (``seal_shared``) nor
read the grading inputs (``/tests`` is root's and closed in the image): red team 6 left a world-writable file in
the agent's home (red team 7: a file granted to ``nobody`` by a POSIX ACL, a System V semaphore) and the code
under test counted the sessions in it; red team 7 left a process that copied the original test files from ``/tests`` after the upload
and told every twin from its original (1.0 without solving). Graded in a real Docker engine as Harbor's shared
verifier grades a 1.0 bundle."""

import json
import re

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.controls import grade_shared, shared_container
from repo2env.environment.images import run_image

pytestmark = pytest.mark.docker

# as the agent (learner): a note file and a folder the runner may write, in its home and in the workspace
WORLD = "touch ~/note && chmod 666 ~/note && mkdir -p /workspace/box && chmod 777 /workspace/box"
ACL = """touch ~/note && chmod 640 ~/note && mkdir -p /workspace/box && chmod 750 /workspace/box && python3 -c '
import os, struct
e = lambda tag, perm, who=0xFFFFFFFF: struct.pack("<HHI", tag, perm, who)
for path, perm in ((os.path.expanduser("~/note"), 6), ("/workspace/box", 7)):
    os.setxattr(path, "system.posix_acl_access", struct.pack("<I", 2) + e(1, 7) + e(2, perm, 65534) + e(4, 5)
                + e(0x10, 7) + e(0x20, 0))
'"""
# and a semaphore set anyone may use (System V IPC: no file at all), as red team 7 counted the sessions in one
SEMAPHORE = ("python3 -c 'import ctypes; print(ctypes.CDLL(\"libc.so.6\").semget(0x5ec7, 1, 0o1666))' | "
             "grep -qv -- -1")
# the code under test writes a mark to both at import, whichever user runs it, and never fails for it
MARK = """

try:
    open("/home/learner/note", "a").write("x")
    open("/workspace/box/mark-%d" % __import__("os").getpid(), "w").close()
except OSError:
    pass
"""
# a process the agent leaves running: it copies whatever it can read of /tests into its home, every 5 ms
READER = ("nohup setsid bash -c 'for i in $(seq 4000); do cp -r /tests/. ~/copied/ 2>/dev/null; sleep 0.005; done'"
          " >/dev/null 2>&1 & mkdir -p ~/copied")


@pytest.mark.parametrize("leave", [WORLD, ACL], ids=["world-writable", "acl"])
def test_nothing_the_agent_left_writable_is_written_by_the_tests(docker_client, demo_generated, leave):
    out, _ = demo_generated
    bundle = out / "local__calc-demo-1"
    config = read_task_toml(bundle)
    image = run_image(docker_client, bundle, config, bundle.name)
    patch = (bundle / "solution/patch.diff").read_text()
    sources = re.findall(r"^\+\+\+ b/(\S+\.py)$", patch, re.MULTILINE)
    with shared_container(docker_client, bundle, image, {"/logs/verifier": None, "/solution": bundle / "solution"}) \
            as box:
        code, text, _ = box.exec(["bash", "-c", leave + " && " + SEMAPHORE], user="learner")
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
        ipc = []
        for _ in range(3):  # an exec that ends at once can lose its output to the engine under load (CI: empty)
            code, text, _ = box.exec(["cat", "/proc/sysvipc/sem"])
            ipc = [line for line in text.splitlines() if line.strip()]
            if ipc:
                break
        _, acls, _ = box.exec(["python3", "-c", "import os; print([os.listxattr(p) for p in "
                               "('/home/learner/note', '/workspace/box')])"])
    assert raw == b"1.0\n" and details["sessions"] == 2, (details, transcript[-2000:])  # the fix, two sessions
    assert note == b"" and listing.strip() == "", (note, listing)  # no session wrote a mark
    assert acls.strip() == "[[], []]", acls
    assert len(ipc) == 1, ipc  # the header alone: the learner's semaphore set went before the first session


def test_a_process_the_agent_left_cannot_read_the_grading_inputs(docker_client, demo_generated):
    out, _ = demo_generated
    bundle = out / "local__calc-demo-1"
    image = run_image(docker_client, bundle, read_task_toml(bundle), bundle.name)
    with shared_container(docker_client, bundle, image, {"/logs/verifier": None}) as box:
        _, mode, _ = box.exec(["stat", "-c", "%a %U", "/tests"])
        code, text, _ = box.exec(["bash", "-c", READER], user="learner")
        assert code == 0, text
        raw, transcript = grade_shared(box, bundle, 300)  # the upload, then test.sh
        _, copied, _ = box.exec(["find", "/home/learner/copied", "-type", "f"])
    assert mode.strip() == "700 root"
    assert raw == b"0.0\n", transcript[-2000:]
    assert copied.strip() == "", copied  # nothing of /tests was readable while the process ran
