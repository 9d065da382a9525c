"""Finding Harbor task bundles under a folder (``validate``, ``push`` and ``report`` walk the same way)."""

from pathlib import Path

from repo2env.core.errors import InputError


def find_tasks(root: Path) -> list[Path]:
    """Task directories at or below ``root`` (a directory holding ``task.toml``; tasks do not nest).
    Raises ``InputError`` when there is none."""
    if not root.exists():
        raise InputError(f"{root}: no such file or directory; pass a task folder or a folder of tasks")
    if (root / "task.toml").is_file():
        return [root]
    tasks = sorted(p.parent for p in root.rglob("task.toml") if p.is_file())
    tasks = [t for t in tasks if not any(parent in tasks for parent in t.parents)]
    if not tasks:
        raise InputError(f"{root}: no task.toml at or below it; pass a Harbor task folder")
    return tasks


def has_tasks(root: Path) -> bool:
    """True when a task directory is at or below ``root`` (``find_tasks`` would find one); never raises."""
    return root.is_dir() and any(p.is_file() for p in root.rglob("task.toml"))
