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

and ``<out>/templates/repo2env/``: ``system.jinja`` (the instruction, and how to act: one fenced shell block per
reply, ``SUBMIT`` to be graded; ``repo2env.gym.actions``) and ``observation.jinja`` (an action's result, or the
reward at the end), Jinja2 templates over the observation dicts ``RepoTask`` returns. The interface looks the
folder ``repo2env`` up among its own prompt template folders (``agent.prompt_builder.template_paths``): copy
``<out>/templates/repo2env`` there. Files are replaced by rename; the YAML is written by PyYAML with keys in
this order.
"""

from pathlib import Path

import yaml

from repo2env.core.files import write_atomic
from repo2env.export.task_bank import DEFAULT_MAX_STEPS

TARGET = "repo2env.gym.RepoTasks"
TEMPLATES = {
    # rendered with the observation reset() returns: task_id, instruction, workdir, max_env_steps
    "system.jinja": (
        "You are working in a software repository at {{ workdir }} inside a Linux container.\n"
        "Each reply runs exactly one shell command: put it in a single ```bash fenced block (the last block of a "
        "reply is the one that runs). You see its exit code and the end of its output.\n"
        "When the task is done, reply with the single line SUBMIT; your work is then graded. You have "
        "{{ max_env_steps }} actions.\n\n"
        "{{ instruction }}\n"),
    # rendered with the observation step() returns: exit_code, output, truncated, step, steps_left; at the end
    # submitted and reward
    "observation.jinja": (
        "{% if reward is defined %}Submitted: reward {{ reward }}.\n"
        "{% else %}{% if exit_code is defined and exit_code is not none %}exit code {{ exit_code }}"
        "{% if truncated %} (output truncated to its end){% endif %}\n{% endif %}"
        "{{ output | default('') }}\n"
        "{% if steps_left is defined %}({{ steps_left }} actions left){% endif %}\n{% endif %}"),
}


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
    write_atomic(path, ("# @package _global_\n" + yaml.safe_dump(config, sort_keys=False)).encode())
    for file, text in TEMPLATES.items():
        write_atomic(out / "templates" / "repo2env" / file, text.encode())
    return path
