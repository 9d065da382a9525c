"""What the Python grader records of a task image at generation: the pytest plugins installed
(``verifier.py plugins``, pinned in ``tests/config.json``) and the Python environment manifest
(``env_guard.py snapshot``, ``tests/python_env.json``). Both run in fresh containers of the image."""

import json
import math
from pathlib import Path

import docker

from repo2env.environment.containers import TaskContainer


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
    """``env_guard.py snapshot`` in a fresh container of ``image``: the Python environment the grader checks
    against (``tests/python_env.json``), and the seconds it took rounded up to a multiple of 5 (the grader's
    check costs about the same; coarse, so that two builds write the same budget). None when it cannot be taken
    (the check is then skipped)."""
    with TaskContainer(client, image) as box:
        box.put_dir(bundle_root / "tests", "/tests")
        code, out, seconds = box.exec(["python3", "-I", "-S", "/tests/env_guard.py", "snapshot"], timeout_sec=300,
                                      tail=None)
    if code != 0:
        return None
    try:
        json.loads(out)
    except ValueError:
        return None
    return out.strip() + "\n", 5 * math.ceil(max(seconds, 0.1) / 5)
