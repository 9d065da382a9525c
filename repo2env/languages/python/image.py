"""What the Python grader records of a task image at generation: the pytest plugins installed
(``verifier.py plugins``, pinned in ``tests/config.json``) and the Python environment manifest
(``env_guard.py snapshot``, ``tests/python_env.json``). Both run in fresh containers of the image."""

import json
from pathlib import Path

import docker

from repo2env.environment.containers import TaskContainer
from repo2env.environment.manifest import env_snapshot
from repo2env.graders import runtime_verifier


def pinned_plugins(client: docker.DockerClient, image: str, bundle_root: Path) -> list[str] | None:
    """The pytest plugin modules installed in ``image`` (``verifier.py plugins``): recorded in config.json so
    that every later run, and the grader, loads exactly these. None when they cannot be listed (then pytest
    auto-loads, as before)."""
    with TaskContainer(client, image) as box:
        box.put_dir(bundle_root / "tests", "/tests")
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
    return env_snapshot(client, image, bundle_root, cache_roots=(runtime_verifier.BYTECODE_TREE,))
