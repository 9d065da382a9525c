"""``repo2rlenv validate``, ``hash`` and ``score``: checking bundles, their hashes, and a pr_diff reward on the
host."""


import json
import sys
from pathlib import Path

import click
from rich.markup import escape

from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.scoring import score_task
from repo2env.checks.validate import validate_run, validate_static
from repo2env.cli.app import cli, err_console
from repo2env.core.errors import InputError
from repo2env.environment.containers import docker_client


@cli.command("score")
@click.option("--task", "task_dir", type=click.Path(path_type=Path), required=True,
              help="A pr_diff task folder (its solution/patch.diff is the reference).")
@click.option("--patch", "patch_file", type=click.Path(path_type=Path), required=True,
              help="The candidate change as a unified diff.")
@click.option("--json", "as_json", is_flag=True, help="Print the reward details as JSON.")
def score_cmd(task_dir, patch_file, as_json) -> None:
    """Score a candidate patch against a pr_diff task, as its verifier would (no container needed)."""
    reward, details = score_task(task_dir, patch_file)
    if as_json:
        click.echo(json.dumps(details, indent=1, sort_keys=True))
        return
    click.echo(f"reward {reward}")
    for name, value in sorted(details["components"].items()):
        click.echo(f"  {name:<13} {value:.4f}  (weight {details['weights_used'].get(name, 0):.3f})")
    click.echo(f"  judge: {details['judge']}")


@cli.command("validate")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--run", "run_controls", is_flag=True, help="Also run the oracle and nop controls in Docker.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Tasks run in parallel.")
@click.option("--out", type=click.Path(path_type=Path), help="With --run: write labelled copies here.")
@click.option("--in-place", is_flag=True, help="With --run: write the label into the tasks themselves.")
@click.option("--probes", is_flag=True, help="With --run: also run the adversarial probes (repo2env/checks/probes.py).")
@click.option("--json", "as_json", is_flag=True, help="Print the reports as JSON.")
def validate_cmd(path, run_controls, jobs, out, in_place, probes, as_json) -> None:
    """Check every Harbor task at or below PATH (static checks; with --run also the controls)."""
    if out is not None and in_place:
        raise InputError("--out and --in-place: choose one place for the labels")
    if (out is not None or in_place or probes) and not run_controls:
        raise InputError("--out/--in-place/--probes go with --run; add --run")
    reports = validate_static(path)
    if run_controls:
        client = docker_client()
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
        validate_run(client, reports, jobs=jobs, out=out, in_place=in_place, probes=probes)
    if as_json:
        click.echo(json.dumps([r.as_dict() for r in reports], indent=1))
    else:
        for report in reports:
            mark = "ok  " if report.ok else "FAIL"
            click.echo(f"{mark} {report.path}" + (f"  [{report.status}]" if report.status else ""))
            for finding in report.findings:
                click.echo(f"     {finding.level}: {finding.check}: {finding.message}")
        bad = sum(not r.ok for r in reports)
        click.echo(f"{len(reports)} tasks, {bad} with errors")
    if any(not r.ok for r in reports):
        sys.exit(1)


@cli.command("hash")
@click.argument("task_dir", type=click.Path(path_type=Path))
@click.option("--check", is_flag=True, help="Compare with the recorded bundle_hash (exit 1 when it differs).")
def hash_cmd(task_dir, check) -> None:
    """Print the bundle hash of TASK_DIR (specs/bundle-spec.md, "Hashes")."""
    if not (task_dir / "task.toml").is_file():
        raise InputError(f"{task_dir}: no task.toml; pass a task folder")
    digest = bundle_hash(task_dir)
    click.echo(f"{digest}  {task_dir}")
    if check:
        try:
            recorded = read_task_toml(task_dir).get("metadata", {}).get("repo2env", {}).get("bundle_hash")
        except ValueError as exc:
            raise InputError(f"{task_dir}: task.toml does not parse ({exc})") from None
        if recorded is None:
            raise InputError(f"{task_dir}: task.toml records no bundle_hash to check against")
        if recorded != digest:
            err_console.print(f"[red]error:[/red] {escape(str(task_dir))}: bundle hash differs from the recorded "
                              f"{recorded}", highlight=False, soft_wrap=True)
            sys.exit(1)
