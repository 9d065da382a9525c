"""``repo2rlenv export --format task-config``: the config file of the gym-style task interface for a folder of
tasks (``../shared/reference/gym-task-interface.txt``), and the prompt templates it names.

``<out>/<name>.yaml``::

    # @package _global_
    agent:
      prompt_builder:
        template_paths: [repo2env, default]
    task:
      _target_: repo2env.gym.RepoTasks
      tasks_dir: /abs/path/of/the/tasks
      max_env_steps: 100
    max_episodes: <number of verified tasks>
    max_env_steps: 100

and ``<out>/templates/repo2env/``: ``system.jinja`` (how to act: one fenced shell block per reply, ``SUBMIT``
to be graded; ``repo2env.gym.actions``) and ``observation.jinja`` (an action's result). Files are replaced by
rename; the YAML is written by PyYAML with keys in this order.
"""

import os
from pathlib import Path

import yaml

from repo2env.export.task_bank import DEFAULT_MAX_STEPS

TARGET = "repo2env.gym.RepoTasks"
TEMPLATES = {
    "system.jinja": (
        "You are working in a software repository at {{ workdir }} inside a Linux container.\n"
        "Each reply runs exactly one shell command: put it in a single ```bash fenced block (the last block of a "
        "reply is the one that runs).\nYou see its exit code and the end of its output.\n"
        "When the task is done, reply with the single line SUBMIT; your work is then graded. You have "
        "{{ max_env_steps }} actions.\n"),
    "observation.jinja": (
        "{% if exit_code is not none %}exit code {{ exit_code }}{% if truncated %} (output truncated){% endif %}\n"
        "{% endif %}{{ output }}\n"),
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_task_config(tasks_dir: Path, count: int, out: Path, *, name: str | None = None,
                      max_env_steps: int = DEFAULT_MAX_STEPS) -> Path:
    """Write the config of ``count`` tasks in ``tasks_dir`` and its templates under ``out`` (module
    docstring); returns the config's path (``<out>/<name>.yaml``, ``name`` defaulting to the folder's)."""
    config = {
        "agent": {"prompt_builder": {"template_paths": ["repo2env", "default"]}},
        "task": {"_target_": TARGET, "tasks_dir": str(tasks_dir.resolve()), "max_env_steps": max_env_steps},
        "max_episodes": count,
        "max_env_steps": max_env_steps,
    }
    path = out / f"{name or tasks_dir.resolve().name}.yaml"
    _write(path, "# @package _global_\n" + yaml.safe_dump(config, sort_keys=False))
    for file, text in TEMPLATES.items():
        _write(out / "templates" / "repo2env" / file, text)
    return path
