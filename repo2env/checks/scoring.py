"""``repo2rlenv score``: the pr_diff reward of a candidate patch, computed on the host with the bundle's own
verifier code (``repo2env.graders.diff_verifier``), so the number equals what ``tests/verifier.py`` gives in Docker."""

from pathlib import Path

from repo2env.bundles.task_toml import read_task_toml
from repo2env.core.errors import InputError
from repo2env.graders import diff_verifier


def score_task(task_dir: Path, patch_file: Path) -> tuple[float, dict]:
    """(reward, details) of ``patch_file`` against the pr_diff task in ``task_dir`` (its ``solution/patch.diff``,
    the weights in ``[metadata.repo2env.pr_diff]`` and ``instruction.md`` for the optional judge).
    Raises ``InputError`` for a folder that is not a pr_diff task or an unreadable patch."""
    oracle_file = task_dir / "solution" / "patch.diff"
    try:
        meta = read_task_toml(task_dir)["metadata"]["repo2env"]
    except (OSError, KeyError, ValueError):
        raise InputError(f"{task_dir}: no task.toml with [metadata.repo2env]; pass a task folder made by "
                         "repo2rlenv") from None
    if "pr_diff" not in meta or not oracle_file.is_file():
        raise InputError(f"{task_dir}: not a pr_diff task (pipeline {meta.get('pipeline')!r}); score works "
                         "on pr_diff tasks only")
    try:
        candidate = patch_file.read_bytes().decode("utf-8", "replace")
    except OSError as exc:
        raise InputError(f"--patch {patch_file}: cannot read it ({exc.strerror}); pass a unified diff file") from None
    instruction = (task_dir / "instruction.md").read_text(encoding="utf-8") if (task_dir / "instruction.md").is_file() else None
    oracle = oracle_file.read_bytes().decode("utf-8", "replace")
    return diff_verifier.score(oracle, candidate, meta["pr_diff"]["weights"], instruction)
