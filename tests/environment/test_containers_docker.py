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
