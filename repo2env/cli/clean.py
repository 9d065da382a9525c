"""``repo2rlenv clean``: the Docker images a dataset no longer needs (``environment.cleanup``)."""

from pathlib import Path

import rich_click as click

from repo2env.cli.app import cli, emit_json, examples, json_option, output_options
from repo2env.core.errors import InputError
from repo2env.environment.containers import docker_client


def _size(count: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if count < 1000 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1000
    return f"{count} B"


@cli.command("clean", epilog=examples("repo2rlenv clean --dataset ./tasks", "repo2rlenv clean --dataset ./tasks "
                                      "--dry-run", "repo2rlenv clean --all"))
@click.option("--dataset", type=click.Path(path_type=Path), help="A generate --out or build folder: remove the "
              "images built for it that none of its tasks uses any more.")
@click.option("--all", "everything", is_flag=True, help="Remove every image repo2rlenv built (not the base "
              "stand-ins of scripts/setup_docker.sh).")
@click.option("--dry-run", is_flag=True, help="List what would be removed; remove nothing.")
@json_option
@output_options
def clean_cmd(dataset, everything, dry_run, as_json) -> None:
    """Remove the Docker images a dataset no longer needs (or all of repo2rlenv's), and say how much that
    freed."""
    from repo2env.environment.cleanup import clean

    if (dataset is None) == (not everything):
        raise InputError("clean needs --dataset DIR or --all (one of them)")
    if dataset is not None and not dataset.is_dir():
        raise InputError(f"--dataset {dataset}: not a folder; pass a generate --out or build folder")
    result = clean(docker_client(), dataset=dataset, everything=everything, dry_run=dry_run)
    if as_json:
        emit_json(result.__dict__ | {"dry_run": dry_run})
        return
    for tag in result.removed:
        click.echo(f"{'would remove' if dry_run else 'removed'} {tag}")
    for tag, why in result.failed.items():
        click.echo(f"failed {tag}: {why}")
    verb = "would remove" if dry_run else "removed"
    freed = "" if dry_run else f", freed {_size(result.freed_bytes)}"
    click.echo(f"{verb} {len(result.removed)} image(s), kept {result.kept}{freed}")
