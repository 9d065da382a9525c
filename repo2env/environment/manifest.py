"""The environment manifest the graders check at grading time (``env_guard.snapshot``), taken of a task image at
generation in a fresh container and written as ``tests/python_env.json``."""

import json
import math
from pathlib import Path

import docker

from repo2env.environment.containers import TaskContainer


def env_snapshot(client: docker.DockerClient, image: str, bundle_root: Path,
                 extra_roots: tuple[str, ...] = (), cache_roots: tuple[str, ...] = ()) -> tuple[str, int] | None:
    """``env_guard.py snapshot [extra_roots] [--cache=cache_roots]`` in a fresh container of ``image`` (the
    bundle's ``tests/`` put in at ``/tests``): the JSON text, and the seconds it took rounded up to a multiple
    of 5 (the grader's check costs about the same; coarse, so that two builds write the same budget). ``extra_roots``: folders recorded whole
    besides the Python environment (a toolchain, a module cache); ``cache_roots``: folders recorded whole whose
    differences grading forgives (it then does not read them: ``env_guard.check``). None when it cannot be
    taken."""
    with TaskContainer(client, image) as box:
        box.put_dir(bundle_root / "tests", "/tests")
        return snapshot_in(box, extra_roots, cache_roots)


def snapshot_in(box: TaskContainer, extra_roots: tuple[str, ...] = (), cache_roots: tuple[str, ...] = ()
                ) -> tuple[str, int] | None:
    """``env_snapshot`` in ``box``, a container nothing has run in yet whose ``/tests`` holds the bundle's
    ``tests/``."""
    code, out, seconds = box.exec(["python3", "-I", "-S", "/tests/env_guard.py", "snapshot", *extra_roots,
                                   *(f"--cache={c}" for c in cache_roots)],
                                  timeout_sec=300, tail=None)
    if code != 0:
        return None
    try:
        json.loads(out)
    except ValueError:
        return None
    return out.strip() + "\n", 5 * math.ceil(max(seconds, 0.1) / 5)
