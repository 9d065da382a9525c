"""repo2env/graders/env_guard.py: the environment snapshot never hangs and never reads more than it must, and
catches what was added (a FIFO, a socket, a huge sparse file, a symlinked folder)."""

import os
import socket
import time
from pathlib import Path

import pytest

from repo2env.graders import env_guard


def test_a_fifo_a_socket_and_a_huge_sparse_file_are_recorded_without_blocking(tmp_path, monkeypatch):
    root = tmp_path / "site-packages"
    root.mkdir()
    (root / "mod.py").write_text("x = 1\n")
    monkeypatch.setattr(env_guard, "roots", lambda: [str(root)])
    recorded = env_guard.snapshot()
    os.mkfifo(root / "pipe.pth")  # opening it for reading would block forever
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock"))
    with open(root / "huge.bin", "wb") as fh:
        fh.truncate(64 << 30)  # 64 GiB, sparse
    (tmp_path / "elsewhere").mkdir()
    (root / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    started = time.monotonic()
    now = env_guard.snapshot()
    assert time.monotonic() - started < 5
    files = now["files"]
    assert files[str(root / "pipe.pth")].startswith("special:") and files[str(root / "sock")].startswith("special:")
    assert files[str(root / "linked")] == "link:" + str(tmp_path / "elsewhere")
    assert len(files[str(root / "huge.bin")]) == 16
    assert env_guard.compare(recorded).startswith("python environment changed since the task was built: added")
    server.close()


def test_a_large_file_is_digested_by_its_head_and_its_size(tmp_path, monkeypatch):
    root = tmp_path / "lib"
    root.mkdir()
    monkeypatch.setattr(env_guard, "FULL_DIGEST_BYTES", 1024)
    big = root / "big.so"
    big.write_bytes(b"a" * 4096)
    monkeypatch.setattr(env_guard, "roots", lambda: [str(root)])
    first = env_guard.snapshot()["files"][str(big)]
    big.write_bytes(b"a" * 4097)  # same head, other size
    assert env_guard.snapshot()["files"][str(big)] != first


def test_a_preload_list_or_a_shell_that_appears_or_changes_is_caught(tmp_path, monkeypatch):
    """Outside the Python environment, the loader's preload list (absent in a clean image) and the shells are
    part of the snapshot: one that appears or changes after generation is named by ``compare``."""
    root = tmp_path / "site-packages"
    root.mkdir()
    shell = tmp_path / "bash"
    shell.write_bytes(b"\x7fELF real")
    preload = tmp_path / "ld.so.preload"
    monkeypatch.setattr(env_guard, "roots", lambda: [str(root)])
    monkeypatch.setattr(env_guard, "SYSTEM_FILES", (str(preload), str(shell)))
    recorded = env_guard.snapshot()
    assert recorded["files"][str(preload)] == "absent"
    assert env_guard.compare(recorded) is None
    preload.write_text("/tmp/hook.so\n")
    assert env_guard.compare(recorded).startswith("python environment changed since the task was built: changed "
                                                  + str(preload))
    preload.unlink()
    shell.write_bytes(b"#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n")
    assert str(shell) in env_guard.compare(recorded)


def test_a_cache_root_that_changed_is_reported_not_intact_and_forgiven(tmp_path, monkeypatch):
    """A cache root (the task image's bytecode tree) is recorded whole; a file added, changed or removed under it
    leaves ``check`` without a reason but drops that root from the intact ones, while a change outside it is a
    reason as before."""
    root, cache, other = tmp_path / "site-packages", tmp_path / "bytecode", tmp_path / "other-cache"
    for folder in (root, cache, other):
        folder.mkdir()
    (root / "mod.py").write_text("x = 1\n")
    (cache / "mod.cpython-312.pyc").write_bytes(b"compiled")
    (other / "a.pyc").write_bytes(b"a")
    monkeypatch.setattr(env_guard, "roots", lambda: [str(root)])
    monkeypatch.setattr(env_guard, "SYSTEM_FILES", ())
    recorded = env_guard.snapshot(cache_roots=(str(cache), str(other), str(tmp_path / "absent")))
    assert recorded["cache_roots"] == [str(cache), str(other)]
    assert str(cache / "mod.cpython-312.pyc") in recorded["files"]
    assert env_guard.check(recorded) == (None, [str(cache), str(other)])
    (cache / "planted.cpython-312.pyc").write_bytes(b"the fix")
    assert env_guard.check(recorded) == (None, [str(other)])
    (cache / "planted.cpython-312.pyc").unlink()
    (other / "a.pyc").unlink()
    assert env_guard.check(recorded) == (None, [str(cache)])
    (cache / "mod.cpython-312.pyc").write_bytes(b"changed")
    (root / "mod.py").write_text("x = 2\n")
    reason, intact = env_guard.check(recorded)
    assert intact == [] and reason == ("python environment changed since the task was built: changed "
                                       + str(root / "mod.py"))
    assert env_guard.compare(recorded) == reason


def test_a_cache_root_is_walked_whole_and_excuses_only_what_its_walk_found(tmp_path, monkeypatch):
    """Inside a cache root nothing is left out: a ``.pyc`` planted under a ``__pycache__`` folder there (which
    Python loads for a source reached through a package path pointing at such a folder) spoils it, and so does a
    file too large to digest whole. A path of the environment whose real path lies inside a cache root (a
    preload list linked into the tree) is a reason, not a forgiven cache change."""
    root, cache = tmp_path / "site-packages", tmp_path / "bytecode"
    root.mkdir()
    (cache / "workspace" / "pkg").mkdir(parents=True)
    (cache / "mod.cpython-312.pyc").write_bytes(b"compiled")
    preload = tmp_path / "ld.so.preload"
    monkeypatch.setattr(env_guard, "roots", lambda: [str(root)])
    monkeypatch.setattr(env_guard, "SYSTEM_FILES", (str(preload),))
    monkeypatch.setattr(env_guard, "FULL_DIGEST_BYTES", 1024)
    recorded = env_guard.snapshot(cache_roots=(str(cache),))
    assert env_guard.check(recorded) == (None, [str(cache)])
    planted = cache / "workspace" / "pkg" / "__pycache__" / "mod.cpython-312.pyc"
    planted.parent.mkdir()
    planted.write_bytes(b"unchecked-hash pyc of the fix")
    assert env_guard.check(recorded) == (None, [])
    planted.unlink()
    big = cache / "big.cpython-312.pyc"
    big.write_bytes(b"a" * 2048)
    assert env_guard.check(env_guard.snapshot(cache_roots=(str(cache),))) == (None, [])
    big.unlink()
    (cache / "hook.so").write_text("evil")
    preload.symlink_to(cache / "hook.so")
    reason, intact = env_guard.check(recorded)
    assert intact == [] and reason == ("python environment changed since the task was built: %s lies inside the "
                                       "cache %s" % (cache / "hook.so", cache))


HOPPER_C = r"""
#include <fcntl.h>
#include <unistd.h>
int main(void) {
    int beat = open("/tmp/beat", O_WRONLY | O_CREAT | O_APPEND, 0644);
    for (;;) {
        pid_t child = fork();
        if (child > 0) _exit(0);   /* the parent leaves: the live pid keeps changing */
        if (write(beat, ".", 1) < 0) _exit(1);
        usleep(500);
    }
}
"""


@pytest.mark.docker
def test_a_process_that_keeps_forking_does_not_outlive_kill_strays(tmp_path, docker_client):
    """A stray whose pid changes all the time (fork, parent exits) slips between a listing of /proc and the kill
    that follows it; stopping every process at once first (``kill(-1, SIGSTOP)``) leaves it nowhere to go."""
    import shutil
    import subprocess

    from repo2env.environment.containers import TaskContainer
    from repo2env.environment.images import BASE_IMAGE
    if shutil.which("gcc") is None:
        pytest.fail("gcc is needed to build the forking stray (the polyglot machine has it)")
    (tmp_path / "hop.c").write_text(HOPPER_C)
    subprocess.run(["gcc", "-static", "-O2", "-o", str(tmp_path / "hop"), str(tmp_path / "hop.c")], check=True)
    (tmp_path / "env_guard.py").write_bytes(Path(env_guard.__file__).read_bytes())
    with TaskContainer(docker_client, BASE_IMAGE, workdir="/") as box:
        box.put_dir(tmp_path, "/r2e")
        box.exec(["sh", "-c", "for i in 1 2 3; do (setsid /r2e/hop </dev/null >/dev/null 2>&1 &); done; sleep 1"])
        beats = "a=$(stat -c %s /tmp/beat); sleep 0.5; b=$(stat -c %s /tmp/beat); echo $((b - a))"
        assert int(box.exec(["sh", "-c", beats])[1].split()[-1]) > 0, "the strays are alive"
        code, out, _ = box.exec(["sh", "-c", "R2E_IN_TASK_CONTAINER=1 python3 -I -S /r2e/env_guard.py kill-strays"])
        assert code == 0, out
        assert box.exec(["sh", "-c", beats])[1].split()[-1] == "0", "a stray survived"
        assert box.exec(["true"])[0] == 0, "the container's own processes were continued"
