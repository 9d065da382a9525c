"""``repo2rlenv push``: pin every task's images to a registry by digest, then publish the dataset.

For each task (a directory with ``task.toml`` below the dataset folder):

1. every ``FROM`` image of ``environment/Dockerfile`` and ``tests/Dockerfile`` that is not pinned yet is pushed
   (``registry.push_image``) and the line becomes ``FROM <registry>/<name>@sha256:…``;
2. ``[metadata.repo2env.reproducibility]`` becomes ``mode = "registry"`` with that ``image_ref``,
   ``image_visibility`` and ``pushed_at``;
3. the images the task runs in are built from ``environment/`` (and, for a separate verifier, ``tests/``) as
   Harbor builds them, pushed under their content-named tags (``images.environment_tag``; one already in the
   registry under that tag is not built again) and named by digest in ``[environment].docker_image`` (and
   ``[verifier.environment].docker_image``): consumers that pull instead of building (Harbor runs a task's
   ``docker_image`` when set; the ``verifiers`` library needs it) get the exact images. ``environment/`` stays,
   as Harbor requires it;
4. the bundle hash is recomputed; an evaluation label measured on the old hash becomes ``stale``.

The rewrite happens in a staged copy, ``<folder>.push/tasks/<id>``, with a marker ``<folder>.push/done/<id>.json``
(the source and result hashes) written after each task. Only when every task succeeded are the tasks replaced
(each by two renames), unless ``--partial``, which replaces each task as soon as it is done. A killed push keeps
its finished tasks in the staging folder; the same command resumes: done tasks are not redone, and a task moved
aside but not yet replaced is put in place first. Re-pushing pinned tasks changes nothing (their images are in
the registry with the same digest), so every run converges on the same dataset.
"""

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import docker
import tomlkit

from repo2env.bundles.find import find_tasks
from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.stage import remove_tree
from repo2env.bundles.task_toml import pin_registry_image, rebind_labels
from repo2env.core import locks
from repo2env.core.errors import InputError, R2EError, redact_url
from repo2env.core.files import write_atomic
from repo2env.environment.images import environment_image, environment_tag
from repo2env.publish import dataset
from repo2env.publish import harbor_registry as harbor_registry_file
from repo2env.publish.registry import PushStats, RegistryAuth, is_digest_ref, push_image, pushed_ref

DOCKERFILES = ("environment/Dockerfile", "tests/Dockerfile")
_FROM = re.compile(r"^(?P<head>\s*FROM\s+(?:--\S+\s+)*)(?P<image>\S+)(?P<tail>.*)$", re.IGNORECASE | re.MULTILINE)


@dataclass
class PushReport:
    """What a push did: tasks rewritten (or already pinned), failures by task id, image statistics, the
    dataset commit (or ``"unchanged"``), the labels made stale, and the Harbor registry entry written."""

    tasks: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    stale: list[str] = field(default_factory=list)
    stats: PushStats = field(default_factory=PushStats)
    published: str | None = None
    manifest: dict | None = None
    harbor_entry: dict | None = None  # the dataset spec written to --harbor-registry


def _paths(root: Path) -> tuple[Path, Path, Path]:
    stage = root.parent / (root.name + ".push")
    return stage, stage / "tasks", stage / "done"


def _pin_dockerfiles(client, task: Path, task_id: str, registry: str | None, auth: RegistryAuth,
                     stats: PushStats) -> str | None:
    """Push and pin every FROM image of the Dockerfiles of the task ``task_id`` (in the folder ``task``);
    returns the environment's pinned image."""
    main_image = None
    for rel in DOCKERFILES:
        path = task / rel
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        stages = {m.group(1).lower() for m in re.finditer(r"\bAS\s+(\S+)\s*$", text, re.IGNORECASE | re.MULTILINE)}

        def pin(match: re.Match) -> str:
            image = match.group("image")
            if is_digest_ref(image) or image.lower() in stages or image.lower() == "scratch":
                return match.group(0)
            if registry is None:
                raise InputError(f"{task_id}: {rel} starts FROM {image}, which is not pinned; pass --registry")
            return match.group("head") + push_image(client, image, registry, auth, stats) + match.group("tail")

        pinned = _FROM.sub(pin, text)
        if pinned != text:
            path.write_text(pinned, encoding="utf-8")
        first = _FROM.search(pinned)
        if rel == DOCKERFILES[0] and first is not None:
            main_image = first.group("image")
    return main_image


def _pin_run_images(client, task: Path, task_id: str, registry: str, auth: RegistryAuth, stats: PushStats) -> None:
    """Build, push and name by digest the images the task ``task_id`` (in the folder ``task``) runs in (module
    docstring, step 3)."""
    config = tomlkit.parse((task / "task.toml").read_text(encoding="utf-8"))
    targets = [("environment", config.setdefault("environment", tomlkit.table()), task_id)]
    verifier = config.get("verifier") or {}
    if verifier.get("environment_mode") == "separate" and (task / "tests" / "Dockerfile").is_file():
        targets.append(("tests", verifier.setdefault("environment", tomlkit.table()), task_id + "-verifier"))
    for folder, table, name in targets:
        if not (task / folder / "Dockerfile").is_file():
            continue
        local = environment_tag(task / folder, name)
        ref = pushed_ref(client, local, registry, auth)
        if ref is None:
            ref = push_image(client, environment_image(client, task / folder, name), registry, auth, stats)
        table["docker_image"] = ref
    (task / "task.toml").write_text(tomlkit.dumps(config), encoding="utf-8")


def _write_json_atomic(path: Path, data: dict) -> None:
    write_atomic(path, (json.dumps(data) + "\n").encode())


def rewrite_task(client, source: Path, dest: Path, *, registry: str | None, auth: RegistryAuth, visibility: str,
                 stats: PushStats) -> bool:
    """Write the pushed version of the task ``source`` to ``dest`` (a new path; see the module docstring).
    Returns True when its evaluation label became stale. Raises ``PushError``/``InputError``; ``dest`` is then absent."""
    tmp = dest.with_name(dest.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    shutil.copytree(source, tmp, symlinks=True)
    try:
        image = _pin_dockerfiles(client, tmp, source.name, registry, auth, stats)
        if image is not None and is_digest_ref(image):
            pin_registry_image(tmp, image_ref=image, visibility=visibility,
                               pushed_at=datetime.now(UTC).replace(microsecond=0).isoformat())
        if registry is not None:
            _pin_run_images(client, tmp, source.name, registry, auth, stats)
        stale = rebind_labels(tmp, bundle_hash(tmp))
        os.replace(tmp, dest)
        return stale
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _recover(root: Path) -> None:
    """A task moved aside by a killed swap is put in place from the staging folder."""
    stage, staged, done = _paths(root)
    if not done.is_dir():
        return
    for marker in done.glob("*.json"):
        task_id = marker.stem
        if not (root / task_id).exists() and (staged / task_id).is_dir():
            os.replace(staged / task_id, root / task_id)


def _swap(root: Path, task_id: str) -> None:
    stage, staged, _ = _paths(root)
    if (staged / task_id).is_dir():
        remove_tree(root / task_id, stage / "trash")
        os.replace(staged / task_id, root / task_id)


def push(root: Path, *, registry: str | None, auth: RegistryAuth = RegistryAuth(), dataset_target: str | None = None,
         visibility: str = "private", partial: bool = False, client: docker.DockerClient | None = None,
         report: Callable[[str], None] = lambda message: None,
         harbor_registry: Path | None = None, harbor_dataset: tuple[str, str] | None = None) -> PushReport:
    """Push the tasks below ``root`` (module docstring) and publish them to ``dataset_target`` when given; with
    ``harbor_registry`` (and ``harbor_dataset`` = (name, version)), then write the dataset's entry into that
    Harbor JSON registry (``harbor_registry.write_entry``).
    Raises ``InputError`` for bad input; per-task failures are in the report (nothing is replaced, or with
    ``partial`` only the failed tasks are left as they were, and nothing is published when any failed)."""
    if dataset_target is not None:
        dataset.parse_target(dataset_target)
    if not root.is_dir():
        raise InputError(f"{root}: no such folder; pass the folder of tasks that generate wrote")
    lock = locks.hold(root)
    try:
        _recover(root)
        tasks = find_tasks(root)
        nested = [t for t in tasks if t.parent != root]
        if nested:
            raise InputError(f"{nested[0]}: push expects the tasks directly in {root} (one folder per task)")
        result = PushReport()
        stage, staged, done = _paths(root)
        staged.mkdir(parents=True, exist_ok=True)
        done.mkdir(parents=True, exist_ok=True)
        for task in tasks:
            task_id = task.name
            report(task_id)
            marker = done / f"{task_id}.json"
            try:
                source_hash = bundle_hash(task)
            except (R2EError, ValueError, OSError) as exc:
                result.failed[task_id] = f"cannot read the task ({str(exc).splitlines()[0][:200]})"
                continue
            if marker.exists() and (staged / task_id).is_dir() \
                    and json.loads(marker.read_text()).get("source") == source_hash:
                result.tasks.append(task_id)
                continue
            try:
                stale = rewrite_task(client, task, staged / task_id, registry=registry, auth=auth,
                                      visibility=visibility, stats=result.stats)
            except (R2EError, ValueError, OSError) as exc:
                result.failed[task_id] = redact_url(str(exc).splitlines()[0][:300])
                continue
            _write_json_atomic(marker, {"source": source_hash, "result": bundle_hash(staged / task_id)})
            result.tasks.append(task_id)
            if stale:
                result.stale.append(task_id)
            if partial:
                _swap(root, task_id)
        if result.failed and not partial:
            return result  # the staging folder keeps the finished tasks for the next run
        for task_id in result.tasks:
            _swap(root, task_id)
        if not result.failed:
            shutil.rmtree(stage, ignore_errors=True)
        if dataset_target is not None and not result.failed:
            report("dataset")
            with tempfile.TemporaryDirectory(prefix="r2e-export-") as tmp:
                result.manifest = dataset.export(find_tasks(root), Path(tmp) / "dataset")
                result.published = dataset.publish(Path(tmp) / "dataset", dataset_target,
                                                   private=visibility == "private")
        if harbor_registry is not None and not result.failed:
            report("Harbor registry")
            name, version = harbor_dataset or (root.name, "head")
            spec = harbor_registry_file.dataset_spec(find_tasks(root), name=name, version=version,
                                                     dataset_target=dataset_target)
            harbor_registry_file.write_entry(harbor_registry, spec)
            result.harbor_entry = spec
        return result
    finally:
        lock.close()
