"""A dataset folder, and publishing it to a git remote or a Hugging Face Hub dataset repository, and back.

Layout (what ``push --dataset`` publishes and ``pull`` fetches)::

    manifest.json   {"schema": "repo2env.publish.dataset/1", "tasks": [one entry per task, sorted by id]}
    README.md       the dataset card, generated from the manifest (Hugging Face card front matter included)
    tasks/<id>/     the Harbor task bundles

A manifest entry: ``id``, ``pipeline``, ``repo``, ``base_commit``, ``fail_to_pass_count``, ``pass_to_pass_count``,
``bundle_hash``, ``evaluation_status``, ``image_ref``, ``executables`` (the bundle's 0755 files: the Hub keeps no
file modes, so ``pull`` restores them before checking the hashes). It holds no time stamps, so the same tasks always give
the same manifest bytes.

Targets: ``git+<url>`` (``git+file:///srv/d.git``, ``git+https://…``, ``git+ssh://…``) through GitPython; a
missing ``file://`` repository is created bare. ``hf://<owner>/<name>`` through ``huggingface_hub`` (endpoint
from ``HF_ENDPOINT``, token from ``HF_TOKEN`` or the Hub's login cache). Publishing replaces the remote's
``tasks/``, ``manifest.json`` and ``README.md`` with the folder's: tasks that are gone are deleted, unchanged
files are not re-sent (git stores the same blobs; the Hub client drops no-op uploads).
"""

import json
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlparse

import git

from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.task_toml import read_task_toml
from repo2env.core.errors import InputError, R2EError, redact_url

MANIFEST = "manifest.json"
CARD = "README.md"
TASKS = "tasks"
MANAGED = (MANIFEST, CARD, TASKS)  # what a dataset repository's publish replaces; anything else is left alone
BRANCH = "main"


class DatasetError(R2EError):
    """A dataset could not be published or fetched, or does not match its manifest."""

    exit_code = 1


def parse_target(target: str, label: str = "--dataset") -> tuple[str, str]:
    """``("git", url)`` or ``("hf", "owner/name")``. Raises ``InputError`` (naming ``label``) for anything else."""
    shown = redact_url(target)
    if target.startswith("git+"):
        url = target[4:]
        if urlparse(url).scheme not in ("file", "https", "http", "ssh"):
            raise InputError(f"{label} {shown}: git+ needs a file://, https:// or ssh:// URL")
        return "git", url
    if target.startswith("hf://"):
        repo_id = target[5:].removeprefix("datasets/").strip("/")
        if repo_id.count("/") != 1 or not all(repo_id.split("/")):
            raise InputError(f"{label} {shown}: expected hf://OWNER/NAME")
        return "hf", repo_id
    raise InputError(f"{label} {shown}: expected hf://OWNER/NAME or git+URL (e.g. git+file:///srv/d.git)")


def _git_error(exc: git.GitCommandError) -> str:
    lines = [line.strip() for line in (exc.stderr or "").strip().splitlines() if line.strip().strip("'")]
    return redact_url(lines[-1].strip("'").strip() if lines else f"git exited with {exc.status}")[:300]


def manifest_entry(task: Path) -> dict:
    """One manifest entry for the task directory ``task`` (its name is the id)."""
    config = read_task_toml(task)
    r2e = config.get("metadata", {}).get("repo2env", {})
    calibration = r2e.get("reward_calibration") or {}
    return {
        "id": task.name, "pipeline": r2e.get("pipeline"), "repo": r2e.get("repo"), "base_commit": r2e.get("ref"),
        "fail_to_pass_count": calibration.get("fail_to_pass_count"),
        "pass_to_pass_count": calibration.get("pass_to_pass_count"),
        "bundle_hash": bundle_hash(task), "evaluation_status": (r2e.get("evaluation") or {}).get("status"),
        "image_ref": (r2e.get("reproducibility") or {}).get("image_ref"),
        "executables": sorted(p.relative_to(task).as_posix() for p in task.rglob("*")
                              if p.is_file() and p.stat().st_mode & 0o111),
    }


def build_manifest(tasks: list[Path]) -> dict:
    """The manifest of these task directories (ids must be unique). Raises ``InputError`` on a duplicate id."""
    entries = sorted((manifest_entry(t) for t in tasks), key=lambda e: e["id"])
    ids = [e["id"] for e in entries]
    if len(set(ids)) != len(ids):
        raise InputError("two tasks share a folder name; a dataset needs unique task ids")
    return {"schema": "repo2env.publish.dataset/1", "tasks": entries}


def manifest_bytes(manifest: dict) -> bytes:
    """``manifest.json``'s bytes: sorted keys, one-space indent, a final newline (the same tasks, the same bytes)."""
    return (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()


def dataset_card(manifest: dict) -> str:
    """README.md for the dataset: Hugging Face card front matter, counts, and one row per task."""
    entries = manifest["tasks"]
    by = {}
    for e in entries:
        key = (e["repo"] or "?", e["pipeline"] or "?")
        by.setdefault(key, {"tasks": 0, "verified": 0})
        by[key]["tasks"] += 1
        by[key]["verified"] += e["evaluation_status"] == "verified"
    lines = ["---", "pretty_name: repo2rlenv tasks", "tags:", "- harbor", "- code", "- reinforcement-learning",
             "configs: []", "---", "", "# repo2rlenv tasks", "",
             f"{len(entries)} Harbor task bundles made by repo2rlenv from real repositories. Each `tasks/<id>/` is a "
             "Harbor task (task.toml, instruction.md, environment/, solution/, tests/); `manifest.json` lists them "
             "with their bundle hashes, and `repo2rlenv pull` checks every bundle against it.", "",
             "| repository | pipeline | tasks | verified |", "|---|---|---|---|"]
    lines += [f"| {repo} | {pipeline} | {n['tasks']} | {n['verified']} |" for (repo, pipeline), n in sorted(by.items())]
    lines += ["", "| id | pipeline | base commit | F2P | P2P | status |", "|---|---|---|---|---|---|"]
    lines += [f"| {e['id']} | {e['pipeline']} | {(e['base_commit'] or '')[:12]} | {e['fail_to_pass_count'] or ''} | "
              f"{e['pass_to_pass_count'] or ''} | {e['evaluation_status'] or ''} |" for e in entries]
    return "\n".join(lines) + "\n"


def export(tasks: list[Path], dest: Path) -> dict:
    """Write the dataset folder for ``tasks`` into the empty or missing directory ``dest``; returns the manifest."""
    manifest = build_manifest(tasks)
    (dest / TASKS).mkdir(parents=True, exist_ok=True)
    for task in tasks:
        shutil.copytree(task, dest / TASKS / task.name)
    (dest / MANIFEST).write_bytes(manifest_bytes(manifest))
    (dest / CARD).write_text(dataset_card(manifest), encoding="utf-8")
    return manifest


def _replace_managed(src: Path, dest: Path) -> None:
    """Replace ``dest``'s managed entries (``tasks/``, manifest, card) with ``src``'s. Git then records only
    what differs: an unchanged file is the same blob, a task that is gone is a deletion."""
    for name in MANAGED:
        there = dest / name
        if there.is_dir():
            shutil.rmtree(there)
        elif there.exists():
            there.unlink()
        if (src / name).is_dir():
            shutil.copytree(src / name, there)
        elif (src / name).exists():
            shutil.copy2(src / name, there)


_IDENTITY = {"GIT_AUTHOR_NAME": "repo2rlenv", "GIT_AUTHOR_EMAIL": "repo2rlenv@invalid",
             "GIT_COMMITTER_NAME": "repo2rlenv", "GIT_COMMITTER_EMAIL": "repo2rlenv@invalid"}


def _publish_git(folder: Path, url: str, message: str) -> str:
    parsed = urlparse(url)
    if parsed.scheme == "file" and not Path(parsed.path).exists():
        git.Repo.init(parsed.path, bare=True, initial_branch=BRANCH)
    work = Path(tempfile.mkdtemp(prefix="r2e-dataset-"))
    try:
        try:
            repo = git.Repo.clone_from(url, work / "repo", env={"GIT_TERMINAL_PROMPT": "0"})
        except git.GitCommandError as exc:
            raise DatasetError(f"cannot clone the dataset remote {redact_url(url)}: {_git_error(exc)}") from None
        if not repo.head.is_valid():
            repo.git.checkout("-B", BRANCH)
        _replace_managed(folder, work / "repo")
        repo.git.add("-A")
        if repo.head.is_valid() and not repo.is_dirty(index=True, working_tree=False):
            return "unchanged"
        with repo.git.custom_environment(**_IDENTITY):
            repo.git.commit("-q", "-m", message)
            try:
                repo.git.push("origin", f"HEAD:refs/heads/{BRANCH}")
            except git.GitCommandError as exc:
                raise DatasetError(f"pushing the dataset to {redact_url(url)} failed: {_git_error(exc)}") from None
        return repo.head.commit.hexsha
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _publish_hf(folder: Path, repo_id: str, message: str, private: bool) -> str:
    from huggingface_hub import HfApi  # noqa: PLC0415 - only for hf:// targets

    api = HfApi()
    try:
        api.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
        before = api.repo_info(repo_id, repo_type="dataset", revision=BRANCH).sha
        info = api.upload_folder(repo_id=repo_id, repo_type="dataset", folder_path=str(folder),
                                 commit_message=message, revision=BRANCH,
                                 delete_patterns=[f"{TASKS}/**", MANIFEST, CARD])
    except _hub_errors() as exc:
        raise DatasetError(f"publishing to hf://{repo_id} failed: {_hub_message(exc)}") from None
    oid = getattr(info, "oid", None)
    return "unchanged" if oid is None or oid == before else oid


def _hub_errors() -> tuple:
    """What the Hub client raises for a refused request or an unreachable server."""
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError  # noqa: PLC0415

    errors = [HfHubHTTPError, LocalEntryNotFoundError, OSError]
    try:
        import httpx2  # noqa: PLC0415 - the transport of huggingface_hub 2.x
        errors.append(httpx2.HTTPError)
    except ImportError:
        pass
    return tuple(errors)


def _hub_message(exc: Exception) -> str:
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:250]
    server = getattr(exc, "server_message", None)
    return f"{first} ({server.strip()[:120]})" if server else first


def publish(folder: Path, target: str, *, private: bool = True) -> str:
    """Publish the dataset folder ``folder`` to ``target`` (module docstring); returns the new commit id, or
    ``"unchanged"``. Raises ``InputError`` for a bad target, ``DatasetError`` when the remote refuses."""
    kind, where = parse_target(target)
    manifest = json.loads((folder / MANIFEST).read_text())
    message = f"repo2rlenv dataset: {len(manifest['tasks'])} tasks"
    if kind == "git":
        return _publish_git(folder, where, message)
    return _publish_hf(folder, where, message, private)


def _fetch(target: str, dest: Path) -> None:
    kind, where = parse_target(target)
    if kind == "git":
        try:
            git.Repo.clone_from(where, dest, depth=1, branch=BRANCH, env={"GIT_TERMINAL_PROMPT": "0"})
        except git.GitCommandError as exc:
            raise DatasetError(f"cannot fetch the dataset {redact_url(target)}: {_git_error(exc)}") from None
        shutil.rmtree(dest / ".git")
        return
    from huggingface_hub import snapshot_download  # noqa: PLC0415 - only for hf:// sources

    try:
        snapshot_download(repo_id=where, repo_type="dataset", revision=BRANCH, local_dir=str(dest))
    except _hub_errors() as exc:
        raise DatasetError(f"cannot fetch the dataset {redact_url(target)}: {_hub_message(exc)}") from None
    shutil.rmtree(dest / ".cache", ignore_errors=True)
    _restore_modes(dest)


def _restore_modes(folder: Path) -> None:
    """Set 0755 on the manifest's ``executables`` (a Hub download is 0644), 0644 on the rest of each task."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return  # verify reports it
    for entry in manifest.get("tasks", []):
        task = folder / TASKS / str(entry.get("id"))
        executables = set(entry.get("executables") or [])
        for path in task.rglob("*") if task.is_dir() else []:
            if path.is_file() and not path.is_symlink():
                path.chmod(0o755 if path.relative_to(task).as_posix() in executables else 0o644)


def verify(folder: Path) -> dict:
    """Check a dataset folder against its manifest: the same task ids, each bundle's hash as recorded, modes
    0644/0755. Returns the manifest. Raises ``DatasetError`` naming the first mismatch."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise DatasetError(f"{folder}: no readable {MANIFEST} ({exc})") from None
    expected = {e["id"]: e["bundle_hash"] for e in manifest.get("tasks", [])}
    present = {p.name for p in (folder / TASKS).iterdir()} if (folder / TASKS).is_dir() else set()
    if present != set(expected):
        raise DatasetError(f"{folder}: tasks differ from the manifest (missing {sorted(set(expected) - present)[:5]}, "
                           f"extra {sorted(present - set(expected))[:5]})")
    for task_id, digest in sorted(expected.items()):
        actual = bundle_hash(folder / TASKS / task_id)
        if actual != digest:
            raise DatasetError(f"{folder / TASKS / task_id}: bundle hash {actual} differs from the manifest's {digest}")
    return manifest


def pull(source: str, dest: Path) -> dict:
    """Fetch the dataset ``source`` (a ``--dataset`` target) into the new folder ``dest`` and verify it; the
    folder appears only once every bundle matched its manifest. Returns the manifest. Raises ``InputError`` when
    ``dest`` exists, ``DatasetError`` when fetching or verifying fails."""
    parse_target(source, "pull source")
    if dest.exists():
        raise InputError(f"{dest}: already exists; pull into a new folder")
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{dest.name}.pull-", dir=dest.parent))
    try:
        _fetch(source, partial / "d")
        if not (partial / "d" / MANIFEST).is_file():
            raise DatasetError(f"{redact_url(source)}: not a repo2rlenv dataset (no {MANIFEST} at its top); "
                               "pull what `repo2rlenv push --dataset` published")
        manifest = verify(partial / "d")
        os.replace(partial / "d", dest)
        return manifest
    finally:
        shutil.rmtree(partial, ignore_errors=True)
