"""``repo2rlenv export``: verified tasks as a JSONL task bank, an offline task pack, or a gym task config."""

from pathlib import Path

import rich_click as click

from repo2env.cli.app import cli, emit_json, examples, json_option, output_options
from repo2env.export.task_bank import DEFAULT_MAX_STEPS


@cli.command("export", epilog=examples("repo2rlenv export tasks --format task-bank --out bank.jsonl",
                                       "repo2rlenv export tasks --format task-pack --out pack/",
                                       "repo2rlenv export tasks --format task-config --out configs/task/"))
@click.argument("tasks", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["task-bank", "task-pack", "task-config"]), required=True,
              help="task-bank: one JSONL row per task (task_id, instruction, max_steps, verifier_id, task_spec, "
              "harbor_reset); task-pack: tasks/<task_id>/task_definition.json; task-config: the gym-style "
              "interface's config (task._target_ repo2env.gym.RepoTasks) and its prompt templates.")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="The JSONL file (task-bank) or the folder (task-pack, task-config) to write.")
@click.option("--max-steps", type=click.IntRange(min=1), default=DEFAULT_MAX_STEPS, show_default=True,
              help="Each task's step budget (max_steps; the config's max_env_steps).")
@json_option
@output_options
def export_cmd(tasks, fmt, out, max_steps, as_json) -> None:
    """Export the verified tasks in TASKS (a folder generate or build wrote) as a task bank, a task pack or a gym
    task config. Tasks whose label is not verified are left out and listed."""
    from repo2env.export.task_bank import check_out, exportable, write_bank, write_pack
    from repo2env.export.task_config import write_task_config

    kept, left = exportable(tasks)
    check_out(tasks, out, folder=fmt != "task-bank")
    if fmt == "task-bank":
        written, where = write_bank(kept, out, max_steps), out
    elif fmt == "task-pack":
        written, where = write_pack(kept, out, max_steps), out
    else:
        written, where = len(kept), write_task_config(tasks, len(kept), out, max_env_steps=max_steps)
    if as_json:
        emit_json({"format": fmt, "written": written, "out": str(where), "left_out": left})
        return
    click.echo(f"{fmt}: {written} task(s) -> {where}")
    if fmt == "task-config":
        click.echo(f"prompt templates: {out / 'templates' / 'repo2env'} (copy this folder among your framework's "
                   "prompt template folders; the config names it `repo2env`)")
    for task_id, why in sorted(left.items()):
        click.echo(f"left out: {task_id} ({why})")
