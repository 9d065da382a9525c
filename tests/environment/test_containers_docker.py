"""Task containers in a real engine: leftovers of a killed run are removed before a resumed run starts, even when
the engine is already removing them (the killed run had asked) or they vanish between listing and removal; a
command's time limit is kept on the host."""

import subprocess

import pytest

from repo2env.environment import containers
from repo2env.environment.images import BASE_IMAGE

pytestmark = pytest.mark.docker


def _dead_pid() -> str:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return str(proc.pid)  # a process that has exited: its containers are leftovers


def test_leftovers_of_a_dead_run_are_removed_and_a_vanished_one_is_no_error(docker_client):
    dead = _dead_pid()
    made = [docker_client.containers.create(BASE_IMAGE, ["sleep", "60"], labels={containers.LABEL: dead})
            for _ in range(2)]
    stale = docker_client.containers.get(made[1].id)
    made[1].remove(force=True)  # gone between the listing and the removal
    containers._remove(stale)  # before: docker.errors.NotFound ended the resumed build with exit 1
    assert containers.remove_leftovers(docker_client) >= 1
    left = docker_client.containers.list(all=True, filters={"label": f"{containers.LABEL}={dead}"})
    assert left == []


def test_a_live_runs_containers_stay(docker_client):
    box = docker_client.containers.create(BASE_IMAGE, ["sleep", "60"], labels={containers.LABEL: containers.RUN_ID})
    try:
        containers.remove_leftovers(docker_client)
        assert docker_client.containers.get(box.id).id == box.id
    finally:
        box.remove(force=True)


def test_exec_keeps_its_time_limit_on_the_host_not_in_the_container(docker_client):
    """A ``timeout`` the agent replaced in the container never wraps a command (it would decide what runs), and
    a command over its limit is killed with its children (exit 124), leaving the container usable."""
    with containers.TaskContainer(docker_client, BASE_IMAGE, workdir="/") as box:
        box.exec(["sh", "-c", "printf '#!/bin/sh\\necho forged\\n' > /usr/bin/timeout"])
        code, out, _ = box.exec(["sh", "-c", "echo real; exit 3"])
        assert (code, out.strip()) == (3, "real")
        code, _, seconds = box.exec(["sh", "-c", "sleep 300 & sleep 300"], timeout_sec=3)
        assert code == 124 and seconds < 40
        code, out, _ = box.exec(["sh", "-c", "ps -e -o comm= 2>/dev/null | grep -c sleep || "
                                             "grep -l sleep /proc/[0-9]*/comm | wc -l"])
        assert out.strip().splitlines()[-1] == "1", out  # only the container's own `sleep infinity` is left


def test_another_runs_containers_coming_and_going_do_not_break_the_sweep(docker_client):
    """Two runs on one engine: while one creates and removes its containers, the other's start-up sweep
    (remove_leftovers) lists them; one removed between the listing and its inspection is no error (before:
    docker.errors.NotFound ended the other run's start)."""
    import threading
    import time

    stop = threading.Event()

    def churn():
        while not stop.is_set():
            box = docker_client.containers.create(BASE_IMAGE, ["sleep", "60"],
                                                  labels={containers.LABEL: containers.RUN_ID})
            box.remove(force=True)

    workers = [threading.Thread(target=churn) for _ in range(3)]
    for worker in workers:
        worker.start()
    try:
        deadline = time.monotonic() + 8
        sweeps = 0
        while time.monotonic() < deadline:
            containers.remove_leftovers(docker_client)
            sweeps += 1
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    assert sweeps > 10


def _mine(client) -> set[str]:
    return {c.id for c in client.containers.list(all=True, filters={"label": f"{containers.LABEL}={containers.RUN_ID}"})}


def test_a_warm_container_is_the_spare_started_during_the_one_before_and_none_outlives_settle(docker_client,
                                                                                             tmp_path):
    """The second warm container of the same settings is the spare started while the first ran (not one made on
    demand), it gets its folders as a fresh one would, and after ``settle`` no container of this run is left."""
    from repo2env.environment import spares

    spares.settle()
    before = _mine(docker_client)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.txt").write_text("A")
    folders = {"/root": containers.Contents(tmp_path / "tests"), "/tmp/r2e-out": None}
    with containers.TaskContainer(docker_client, BASE_IMAGE, warm=True, memory_mb=512) as first:
        key = next(k for k in spares.SPARES._ready if k[1] == BASE_IMAGE)
        spare = spares.SPARES._ready[key].result()
        assert spare.id != first.container.id
    with containers.TaskContainer(docker_client, BASE_IMAGE, warm=True, memory_mb=512, folders=folders) as second:
        assert second.container.id == spare.id
        # Contents: the image's /root keeps its mode (0700) and gets the file; a missing folder is made 0755
        code, out, _ = second.exec(["sh", "-c", "stat -c %a /root /tmp/r2e-out; cat /root/a.txt"])
        assert (code, out.split()) == (0, ["700", "755", "A"])
        assert second.read_files("/root")["a.txt"] == b"A"
        assert second.read_files("/nowhere") == {}
    spares.settle()
    assert _mine(docker_client) - before == set()


def test_the_plain_path_makes_no_spare(docker_client, monkeypatch):
    from repo2env.environment import spares

    spares.settle()
    monkeypatch.setenv("REPO2RLENV_PLAIN", "1")
    before = _mine(docker_client)
    with containers.TaskContainer(docker_client, BASE_IMAGE, warm=True, memory_mb=512) as box:
        assert _mine(docker_client) - before == {box.container.id}  # no spare beside it
    assert not spares.SPARES._ready and _mine(docker_client) == before  # removed in line


def test_warm_containers_taken_side_by_side_leave_none_after_settle(docker_client):
    """Three threads taking warm containers of the same settings at once (a candidate's oracle and nop side by
    side): a spare one of them made while another's was made is removed too (it once stayed running)."""
    import threading

    from repo2env.environment import spares

    spares.settle()
    before = _mine(docker_client)

    def work():
        for _ in range(3):
            with containers.TaskContainer(docker_client, BASE_IMAGE, warm=True, memory_mb=512):
                pass
    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    spares.settle()
    assert _mine(docker_client) - before == set()


def test_host_root_sees_what_the_agent_left_in_a_tmpfs(docker_client):
    """The probes' state (``checks.probes._tmpfs``) reads ``/dev/shm`` through ``host_root`` with no exec: a
    file an unprivileged process left there is seen, and the container's own root is what is read."""
    from repo2env.checks.probes import _tmpfs

    with containers.TaskContainer(docker_client, BASE_IMAGE, memory_mb=512) as box:
        root = box.host_root()
        assert root is not None and open(f"{root}/etc/hostname").read().strip() == box.container.id[:12]
        before = _tmpfs(box)
        box.exec(["sh", "-c", "echo x > /dev/shm/left"], user="nobody")
        assert before == (("/dev/shm", ()), ("/dev/mqueue", ()))
        assert _tmpfs(box) == (("/dev/shm", ("left",)), ("/dev/mqueue", ()))
