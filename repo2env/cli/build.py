"""``repo2rlenv build``, ``report`` and ``merge``: nightly dataset builds from ``dataset.toml``."""


import sys
from pathlib import Path

import rich_click as click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from repo2env.cli.app import cli, emit_json, err_console, examples, json_option, output_options
from repo2env.core.errors import InputError


@cli.command("build", epilog=examples(
    "repo2rlenv build dataset.toml",
    "repo2rlenv build dataset.toml --dry-run",
    "repo2rlenv build dataset.toml --jobs 2 --shard 1/4 --json",
    note="The format of dataset.toml: specs/config-files.md (JSON Schema: specs/dataset.schema.json)."))
@click.argument("config_file", type=click.Path(path_type=Path))
@click.option("--jobs", type=click.IntRange(min=1), help="Candidates built at once (default: the config's jobs).")
@click.option("--shard", help="K/N: build only this shard of the candidates (a job array of N machines).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local threads, or Ray tasks on the cluster named by RAY_ADDRESS (a local Ray without it).")
@click.option("--dry-run", is_flag=True, help="Plan every source and apply the cheap filters only: what would run, "
              "be skipped or stay unchanged. No Docker, nothing written.")
@click.option("--force", is_flag=True, help="Run every candidate again, whatever the state recorded.")
@json_option
@output_options
def build_cmd(config_file, jobs, shard, executor, dry_run, force, as_json) -> None:
    """Build the dataset described by CONFIG_FILE (dataset.toml): incremental, resumable, parallel."""
    from repo2env.build.config import load
    from repo2env.build.runner import Shard, build, dry_run_build

    config = load(config_file)
    shard_spec = Shard.parse(shard) if shard else None
    if dry_run:
        rows = dry_run_build(config, shard=shard_spec, force=force)
        if as_json:
            emit_json({"candidates": rows, "would_run": sum(r["verdict"] == "would run" for r in rows)})
            return
        for row in rows:
            click.echo(f"{row['repo']:<28} {row['pipeline']:<18} {row['key']:<14} {row['verdict']:<10} "
                       f"{row.get('reason') or ''}")
        click.echo(f"{len(rows)} candidates, {sum(r['verdict'] == 'would run' for r in rows)} would run")
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("[dim]{task.fields[stage]}"))
    with Progress(*columns, console=err_console, transient=False, disable=not err_console.is_terminal) as progress:
        bar = progress.add_task("build", total=None, stage="planning")

        def update(done: int, total: int, message: str) -> None:
            progress.update(bar, completed=done, total=total, stage=message)

        summary = build(config, jobs=jobs, shard=shard_spec, executor=executor, progress=update, force=force)
    if as_json:
        emit_json({**{k: v for k, v in summary.__dict__.items()}, "outcomes": dict(summary.outcomes),
                   "report": str(config.out / "report.html")})
        if summary.failed:
            sys.exit(1)
        return
    if summary.run == 0 and not summary.failed_sources:
        click.echo(f"nothing new: {summary.unchanged} candidate(s) unchanged since the last build "
                   f"({summary.wall_seconds:.1f} s)")
    else:
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(summary.outcomes.items())) or "none"
        click.echo(f"build {summary.build_id}: {summary.candidates} candidate(s), {summary.unchanged} unchanged, "
                   f"{summary.run} run ({outcomes}) in {summary.wall_seconds:.1f} s")
    for line in summary.failed_sources + summary.errors:
        click.echo(f"failed: {line}")
    for target in summary.pushed:
        click.echo(f"pushed {target}")
    click.echo(f"report  {config.out / 'report.html'}")
    if summary.failed:
        sys.exit(1)


@cli.command("report", epilog=examples("repo2rlenv report ./dataset", "repo2rlenv report ./tasks --json"))
@click.argument("folder", type=click.Path(path_type=Path))
@json_option
@output_options
def report_cmd(folder, as_json) -> None:
    """Report on FOLDER, the out folder of a build (dataset.toml) or of generate: yields, skip reasons, timings,
    changes since the last run."""
    from repo2env.build.report import write_report

    try:
        report = write_report(folder)
    except FileNotFoundError:
        raise InputError(f"{folder}: no state (state.sqlite inside, or {folder.name}.state.sqlite beside it); pass "
                         "the out folder of a build or of a generate run") from None
    if as_json:
        emit_json(report)
        return
    for g in report["groups"]:
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(g["skipped"].items())) or "-"
        rejected = ", ".join(f"{k} {v}" for k, v in sorted(g["rejected"].items())) or "-"
        errors = f"  errors: {g['errors']}" if g["errors"] else ""
        click.echo(f"{g['repo']:<30} {g['pipeline']:<18} {g['verified']:>4}/{g['candidates']:<4} verified  "
                   f"rejected: {rejected}  skipped: {skipped}{errors}  wall {g['wall_seconds']:.0f} s "
                   f"(tests in containers {g['test_seconds']:.0f} s)")
    diff = report["diff"]
    click.echo(f"since the previous build: {len(diff['added'])} added, {len(diff['removed'])} removed, "
               f"{len(diff['changed'])} changed")
    click.echo(f"report  {report['page']}")


@cli.command("merge")
@click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--into", "dest", required=True, type=click.Path(path_type=Path), help="The combined dataset folder.")
@json_option
@output_options
def merge_cmd(inputs, dest, as_json) -> None:
    """Combine the outputs of sharded builds (their tasks and states) into one dataset folder."""
    from repo2env.build.report import write_report
    from repo2env.build.runner import merge

    added = merge([Path(p) for p in inputs], dest)
    write_report(dest)
    if as_json:
        emit_json({"merged": added, "into": str(dest)})
        return
    click.echo(f"{added} task(s) merged into {dest}")
