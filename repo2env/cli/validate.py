"""``repo2rlenv validate``, ``hash`` and ``score``: checking bundles, their hashes, and a pr_diff reward on the
host."""


import json
import sys
from pathlib import Path

import rich_click as click
from rich.markup import escape

from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.task_toml import read_task_toml
from repo2env.checks.scoring import score_task
from repo2env.checks.validate import validate_run, validate_static
from repo2env.cli.app import cli, emit_json, err_console, error_console, examples, json_option, output_options
from repo2env.core.errors import InputError
from repo2env.environment.containers import docker_client


@cli.command("score", epilog=examples("repo2rlenv score tasks/org__repo-12 agent.diff",
                                      "repo2rlenv score tasks/org__repo-12 agent.diff --json"))
@click.argument("task_dir", type=click.Path(path_type=Path), required=False)
@click.argument("patch_file", type=click.Path(path_type=Path), required=False)
@click.option("--task", "task_opt", type=click.Path(path_type=Path), hidden=True,
              help="Former spelling of TASK_DIR (still read).")
@click.option("--patch", "patch_opt", type=click.Path(path_type=Path), hidden=True,
              help="Former spelling of PATCH_FILE (still read).")
@json_option
@output_options
def score_cmd(task_dir, patch_file, task_opt, patch_opt, as_json) -> None:
    """Score PATCH_FILE (a unified diff) against the pr_diff task TASK_DIR, as its verifier would (no container
    needed)."""
    task_dir, patch_file = task_dir or task_opt, patch_file or patch_opt
    if task_dir is None or patch_file is None:
        raise InputError("score needs TASK_DIR and PATCH_FILE, e.g. repo2rlenv score tasks/org__repo-12 agent.diff")
    if task_opt is not None or patch_opt is not None:
        err_console.print("warning: --task/--patch are deprecated; pass TASK_DIR PATCH_FILE", highlight=False)
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
@click.option("--probes/--no-probes", default=False, show_default=True,
              help="With --run: also run the adversarial probes (repo2env/checks/probes.py).")
@json_option
@output_options
def validate_cmd(path, run_controls, jobs, out, in_place, probes, as_json) -> None:
    """Check every Harbor task at or below PATH (static checks; with --run also the controls); a task bank
    (.jsonl) or task pack (export's) is checked against its JSON Schema."""
    from repo2env.export.task_bank import check_export, is_export

    if is_export(path):
        if run_controls:
            raise InputError(f"{path}: --run measures task bundles; a task bank or pack is checked against its "
                             "schema only")
        count, problems = check_export(path)
        if as_json:
            emit_json({"path": str(path), "checked": count, "problems": problems})
        else:
            for problem in problems:
                click.echo(f"FAIL {problem}")
            click.echo(f"{count} row(s) in {path}, {len(problems)} problem(s)")
        if problems:
            sys.exit(1)
        return
    if out is not None and in_place:
        raise InputError("--out and --in-place: choose one place for the labels")
    if (out is not None or in_place or probes) and not run_controls:
        raise InputError("--out/--in-place/--probes go with --run; add --run")
    reports = validate_static(path)
    if run_controls and in_place:
        reports = [_restamped(r) for r in reports]
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
        click.echo(f"{len(reports)} task{'' if len(reports) == 1 else 's'}, {bad} with errors")
    if any(not r.ok for r in reports):
        sys.exit(1)


@cli.command("restamp", epilog=examples(
    "repo2rlenv restamp tasks/owner__repo-12",
    "repo2rlenv restamp tasks/* --run",
    note="After a deliberate edit (an instruction rewritten by hand): the hashes are computed again and the "
         "label becomes stale until the controls are measured again (--run, or validate --run --in-place)."))
@click.argument("tasks", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--run", "run_controls", is_flag=True, help="Measure the controls again in Docker (oracle 1.0, nop "
              "0.0) and label each task with the result.")
@click.option("--probes/--no-probes", default=False, show_default=True, help="With --run: the adversarial probes "
              "too.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="With --run: tasks at once.")
@json_option
@output_options
def restamp_cmd(tasks, run_controls, probes, jobs, as_json) -> None:
    """Recompute the hashes of edited TASKS (bundle folders) and mark their labels stale; with --run measure the
    controls again."""
    from repo2env.bundles.restamp import restamp

    for task in tasks:
        if not (task / "task.toml").is_file():
            raise InputError(f"{task}: no task.toml; pass task folders")
    stamped = [restamp(task) for task in tasks]
    reports = []
    if run_controls:
        reports = [r for task in tasks for r in validate_static(task)]
        validate_run(docker_client(), reports, jobs=jobs, out=None, in_place=True, probes=probes)
    if as_json:
        emit_json({"restamped": [s.__dict__ | {"changed": s.changed} for s in stamped],
                   "reports": [r.as_dict() for r in reports]})
    else:
        for s in stamped:
            what = f"{(s.before or 'none')[:19]}… -> {s.after[:19]}…" if s.changed else "unchanged"
            click.echo(f"{s.path}: {what}" + ("  (label now stale)" if s.stale else ""))
        for report in reports:
            click.echo(f"{'ok  ' if report.ok else 'FAIL'} {report.path}  [{report.status}]")
    if any(not r.ok for r in reports):
        sys.exit(1)


def _restamped(report):
    """With ``--run --in-place``, a task whose only errors are of its hash (it was edited since it was stamped)
    is re-stamped (``bundles.restamp``) and checked again, so that its controls are measured."""
    from repo2env.bundles.restamp import restamp
    from repo2env.checks.validate import static_report

    errors = [f for f in report.findings if f.level == "error"]
    if not errors or any(f.check != "hash" for f in errors):
        return report
    stamped = restamp(Path(report.path))
    fresh = static_report(Path(report.path))
    fresh.warn("hash", f"edited since it was stamped: re-stamped ({(stamped.before or 'none')[:19]}… -> "
                       f"{stamped.after[:19]}…) and measured again")
    return fresh


@cli.command("hash")
@click.argument("task_dir", type=click.Path(path_type=Path))
@click.option("--check", is_flag=True, help="Compare with the recorded bundle_hash (exit 1 when it differs).")
@json_option
@output_options
def hash_cmd(task_dir, check, as_json) -> None:
    """Print the bundle hash of TASK_DIR (specs/bundle-spec.md, "Hashes")."""
    if not (task_dir / "task.toml").is_file():
        raise InputError(f"{task_dir}: no task.toml; pass a task folder")
    digest = bundle_hash(task_dir)
    if as_json and not check:
        emit_json({"task": str(task_dir), "bundle_hash": digest})
        return
    if not as_json:
        click.echo(f"{digest}  {task_dir}")
    if check:
        try:
            recorded = read_task_toml(task_dir).get("metadata", {}).get("repo2env", {}).get("bundle_hash")
        except ValueError as exc:
            raise InputError(f"{task_dir}: task.toml does not parse ({exc})") from None
        if recorded is None:
            raise InputError(f"{task_dir}: task.toml records no bundle_hash to check against")
        if as_json:
            emit_json({"task": str(task_dir), "bundle_hash": digest, "recorded": recorded,
                       "matches": recorded == digest})
        if recorded == digest and not as_json:
            click.echo(f"matches the recorded bundle_hash of {task_dir}")
        if recorded != digest:
            error_console.print(f"[red]error:[/red] {escape(str(task_dir))}: bundle hash differs from the recorded "
                              f"{recorded}", highlight=False, soft_wrap=True)
            sys.exit(1)
