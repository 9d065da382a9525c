"""What the Python grader records of a task image at generation: the pytest plugins installed
(``verifier.py plugins``, pinned in ``tests/config.json``) and the Python environment manifest
(``env_guard.py snapshot``, ``tests/python_env.json``), taken in one fresh container of the image."""

import json
from pathlib import Path

import docker

from repo2env.environment.containers import Contents, TaskContainer
from repo2env.environment.egress import bundle_hosts
from repo2env.environment.manifest import env_snapshot, snapshot_in
from repo2env.graders import runtime_verifier

SNAPSHOT_CACHE_ROOTS = (runtime_verifier.BYTECODE_TREE,)  # grading forgives changes there (env_guard.check)


def _plugins_in(box: TaskContainer) -> list[str] | None:
    """The pytest plugin modules installed (``verifier.py plugins``, run in ``box`` with the bundle's tests at
    ``/tests``): recorded in config.json so that every later run, and the grader, loads exactly these. None when
    they cannot be listed (then pytest auto-loads, as before)."""
    code, out, _ = box.exec(["python3", "/tests/verifier.py", "plugins"], timeout_sec=120)
    try:
        return list(json.loads(out.strip().splitlines()[-1])) if code == 0 else None
    except (ValueError, IndexError):
        return None


def python_env_snapshot(client: docker.DockerClient, image: str, bundle_root: Path) -> tuple[str, int] | None:
    """The Python environment the grader checks against (``tests/python_env.json``):
    ``environment.manifest.env_snapshot`` of ``image``, with the image's bytecode tree
    (``runtime_verifier.BYTECODE_TREE``) recorded whole as a cache root when it has one, so that grading reads
    it while it is intact (``runtime_verifier.pinned_bytecode``)."""
    return env_snapshot(client, image, bundle_root, cache_roots=SNAPSHOT_CACHE_ROOTS)


def image_facts(client: docker.DockerClient, image: str, bundle_root: Path
                ) -> tuple[tuple[str, int] | None, list[str] | None]:
    """``(python_env_snapshot, pinned_plugins)`` of ``image`` from one fresh container (one start and removal
    fewer, issue 20): the snapshot first, while nothing has run there (listing the plugins imports them, which
    may write bytecode the snapshot would record). The container has the bundle's egress guard and is warm
    (``TaskContainer``'s), as the test runs that follow are: the first of them takes the spare this one leaves
    (neither the snapshot nor the plugins read ``/etc/hosts``)."""
    with TaskContainer(client, image, extra_hosts=bundle_hosts(bundle_root), warm=True,
                       folders={"/tests": Contents(bundle_root / "tests")}) as box:
        snapshot = snapshot_in(box, cache_roots=SNAPSHOT_CACHE_ROOTS)
        return snapshot, _plugins_in(box)
