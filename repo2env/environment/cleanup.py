"""``repo2rlenv clean``: remove the Docker images a dataset no longer needs, and say how much that freed.

Every image repo2rlenv builds carries ``io.repo2rlenv.tool`` (its kind: bootstrap, env, bundle) and the folder
of the run that built it (``io.repo2rlenv.dataset``); bundle images carry their task id (``environment.images``).

* ``--dataset DIR``: the images DIR used (``image_uses``: built or found by its runs) that none of its tasks uses
  any more (a bundle image whose task is gone from DIR, an environment image that no task's
  ``environment/Dockerfile`` names in its ``FROM``) and that no other folder uses either. Bootstrap images
  stay (one per repository and toolchain, the base of every environment image).
* ``--all``: every image repo2rlenv built, whatever dataset (the offline base stand-ins of
  ``scripts/setup_docker.sh`` are never touched: they are not built by a run).

What was freed is the drop in Docker's own count of image layer bytes (``docker system df``), so layers still
shared with another image are not counted.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import docker
import docker.errors

from repo2env.environment import image_uses
from repo2env.environment.images import LABEL_TASK, LABEL_TOOL
from repo2env.sources.clone_cache import default_cache_dir

_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)", re.I | re.M)


@dataclass
class Cleaned:
    """What ``clean`` removed (image tags, or ids of untagged ones), what it kept, and the bytes freed."""

    removed: list[str] = field(default_factory=list)
    kept: int = 0
    freed_bytes: int = 0
    failed: dict[str, str] = field(default_factory=dict)


def needed_images(dataset: Path) -> tuple[set[str], set[str]]:
    """(task ids present in ``dataset``, image references its tasks' ``environment/Dockerfile`` start FROM);
    ``dataset`` is a ``generate --out`` folder or a build folder (``tasks/<pipeline>/<id>``)."""
    tasks, refs = set(), set()
    for toml in list(dataset.glob("*/task.toml")) + list(dataset.glob("tasks/*/*/task.toml")):
        tasks.add(toml.parent.name)
        dockerfile = toml.parent / "environment" / "Dockerfile"
        if dockerfile.is_file():
            refs.update(_FROM.findall(dockerfile.read_text(encoding="utf-8", errors="replace")))
    return tasks, refs


def _layers(client) -> int:
    return int(client.df().get("LayersSize") or 0)


def clean(client: docker.DockerClient, *, dataset: Path | None = None, everything: bool = False,
          dry_run: bool = False) -> Cleaned:
    """Remove the images ``dataset`` no longer needs, or every repo2rlenv image (``everything``); with
    ``dry_run`` only list them. Returns what was done (module docstring)."""
    result = Cleaned()
    folder = str(dataset.resolve()) if dataset is not None else None
    tasks, refs = needed_images(dataset) if dataset is not None else (set(), set())
    cache = default_cache_dir()
    before = _layers(client)
    doomed = []
    for image in client.images.list(filters={"label": LABEL_TOOL}):
        labels = image.labels or {}
        tags = image.tags or [image.short_id]
        if not everything:
            using = image_uses.users(cache, tags)
            if folder not in using:
                continue
            kind = labels.get(LABEL_TOOL)
            needed = (kind == "bundle" and labels.get(LABEL_TASK) in tasks) or bool(set(tags) & refs) \
                or kind == "bootstrap"
            if needed or (using - {folder}):
                result.kept += 1  # this folder needs it, or another one does
                if not needed and not dry_run:
                    image_uses.drop(cache, tags, folder)
                continue
            if not dry_run:
                image_uses.drop(cache, tags, folder)
        doomed.append((image, tags))
    for image, tags in doomed:
        if dry_run:
            result.removed += tags
            continue
        try:
            client.images.remove(image.id, force=True)
            result.removed += tags
        except docker.errors.APIError as exc:
            result.failed[tags[0]] = str(exc.explanation or exc)[:200]
    if not dry_run:
        result.freed_bytes = max(0, before - _layers(client))
    return result
