"""``push --harbor-registry FILE``: a dataset entry Harbor runs by name (``harbor run -d NAME@VERSION
--registry-path FILE``).

Harbor 0.26's JSON registry (``harbor.models.registry.Registry.from_path``; ``harbor.registry.client.json``) is a
JSON list of dataset specs: ``{"name", "version", "description", "tasks": [{"name", "path", "git_url",
"git_commit_id"}], "metrics": []}``. A task with a ``git_url`` is cloned by Harbor at ``git_commit_id`` and run
from ``path`` inside it (``GitTaskId``); one without is a folder on this machine (``LocalTaskId``). Without a
version in ``-d``, Harbor picks ``head`` when present, else the highest PEP 440 version
(``harbor.registry.client.base.resolve_version``).

The entry written here: the dataset's tasks from the published git remote (``--dataset git+URL``: ``git_url`` the
remote, ``git_commit_id`` the published commit, ``path`` ``tasks/<id>``), or, with no git dataset, from the
pushed folder itself (absolute paths). Entries of other names or versions in FILE are kept; the same name and
version is replaced. The file is written whole, by rename, so a crash leaves the old one.
"""

import json
import re
from pathlib import Path

import git

from repo2env.core.errors import InputError, redact_url, strip_userinfo
from repo2env.core.files import write_atomic
from repo2env.publish.dataset import BRANCH, TASKS, DatasetError, parse_target

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")


def parse_dataset(value: str) -> tuple[str, str]:
    """``NAME[@VERSION]`` -> (name, version; default ``head``). Raises ``InputError``."""
    name, _, version = value.partition("@")
    if not _NAME.match(name) or ".." in name or (version and not _NAME.match(version)):
        raise InputError(f"--harbor-dataset {value!r}: expected NAME or NAME@VERSION (letters, digits, . _ - /)")
    return name, version or "head"


def _remote_commit(url: str) -> str:
    try:
        out = git.cmd.Git().ls_remote(url, f"refs/heads/{BRANCH}", env={"GIT_TERMINAL_PROMPT": "0"})
    except git.GitCommandError as exc:
        raise DatasetError(f"cannot read the dataset remote {redact_url(url)}: {exc.stderr.strip()[:200]}") from None
    if not out.strip():
        raise DatasetError(f"the dataset remote {redact_url(url)} has no {BRANCH} branch")
    return out.split()[0]


def dataset_spec(tasks: list[Path], *, name: str, version: str, dataset_target: str | None) -> dict:
    """One Harbor dataset spec (module docstring) for ``tasks`` (task folders, sorted by id). With a ``git+URL``
    ``dataset_target`` the tasks are referenced in the remote at its current commit. Raises ``DatasetError``
    when that remote cannot be read, ``InputError`` for an ``hf://`` target (Harbor's JSON registry names git
    repositories; use the Hub's own dataset manifest there)."""
    rows = []
    if dataset_target is not None:
        kind, url = parse_target(dataset_target)
        if kind != "git":
            raise InputError("--harbor-registry: a Hub dataset is not a git task source Harbor's JSON registry "
                             "can name; publish with --dataset git+URL, or leave --dataset out to name the folder")
        commit = _remote_commit(url)
        public = strip_userinfo(url)  # never a token in the file
        rows = [{"name": t.name, "git_url": public, "git_commit_id": commit, "path": f"{TASKS}/{t.name}"}
                for t in tasks]
    else:
        rows = [{"name": t.name, "path": str(t.resolve())} for t in tasks]
    return {"name": name, "version": version, "description": f"{len(rows)} tasks made by repo2rlenv",
            "tasks": rows, "metrics": []}


def write_entry(registry_file: Path, spec: dict) -> None:
    """Put ``spec`` into the JSON registry ``registry_file`` (created when absent; module docstring). Raises
    ``InputError`` when the file exists and is not a JSON list."""
    entries = []
    if registry_file.exists():
        try:
            entries = json.loads(registry_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"--harbor-registry {registry_file}: not a readable JSON registry ({exc}); "
                             "give a new file or a Harbor registry.json") from None
        if not isinstance(entries, list):
            raise InputError(f"--harbor-registry {registry_file}: a Harbor registry is a JSON list of datasets")
    entries = [e for e in entries if not (isinstance(e, dict) and (e.get("name"), e.get("version"))
                                          == (spec["name"], spec["version"]))]
    entries.append(spec)
    entries.sort(key=lambda e: (str(e.get("name")), str(e.get("version"))) if isinstance(e, dict) else ("", ""))
    write_atomic(registry_file, (json.dumps(entries, indent=1) + "\n").encode())
