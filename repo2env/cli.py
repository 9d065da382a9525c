"""The ``repo2rlenv`` command line (click). The only place that prints or exits: library errors
(``R2EError``) become one line on stderr and their exit code."""

import json
import logging
import sys
from datetime import UTC, datetime
from pathlib import Path

import click
from rich.console import Console
from rich.logging import RichHandler
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__
from .config import load_env_config
from .containers import docker_client
from .errors import InputError, R2EError, redact_url
from .generate import Summary, generate
from .hashing import bundle_hash
from .layout13 import FORMATS
from .ledger import ledger_path
from .outcomes import SKIP_REASONS, SkipReason
from .pipeline import GenerateOptions, available
from .scoring import score_task
from .sources import PrFilters
from .synthesis import LlmConfig, parse_llm
from .task_toml import read_task_toml
from .validate import validate_run, validate_static

err_console = Console(stderr=True)


class RichReporter:
    """Draws generate's progress: one bar over candidates, the current stage as text."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.task = None
        self.key = ""

    def start(self, total, repo):
        self.progress.start()  # only once the input is known to be good: errors print without a bar
        self.task = self.progress.add_task(repo, total=total, stage="")

    def candidate(self, index, key):
        self.key = key
        self.progress.update(self.task, stage=key)

    def stage(self, message):
        self.progress.update(self.task, stage=f"{self.key}: {message}")

    def outcome(self, key, status, reason):
        self.progress.console.print(f"  {key}: {status}" + (f" ({reason})" if reason else ""))
        self.progress.advance(self.task)


def _parse_date(value: str | None, flag: str, *, end_of_day: bool = False) -> datetime | None:
    """An ISO date or timestamp (UTC when no zone is given); a bare date with ``end_of_day`` means its last second,
    so ``--until 2025-03-01`` includes that day."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise InputError(f"{flag} {value}: not a date; use YYYY-MM-DD or an ISO 8601 timestamp") from None
    if end_of_day and len(value) == 10:
        parsed = parsed.replace(hour=23, minute=59, second=59)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _parse_opts(pairs: tuple[str, ...]) -> dict[str, str]:
    opts = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--pipeline-opt {pair}: expected KEY=VALUE")
        opts[key] = value
    return opts


def _cache_dir(path: str | None) -> Path | None:
    try:
        return Path(path).expanduser().resolve() if path is not None else None
    except RuntimeError:
        raise InputError(f"--cache-dir {path}: cannot expand '~' (unknown user); pass an absolute path") from None


def _llm_config(llm, budget, temperature, max_tokens, timeout, retries, price) -> LlmConfig | None:
    """``--llm*`` options as an ``LlmConfig`` (None without ``--llm``). Raises ``InputError``."""
    if llm is None:
        if budget is not None or price is not None:
            raise InputError("--llm-budget-usd/--llm-price need --llm PROVIDER/MODEL")
        return None
    provider, model = parse_llm(llm)
    price_in = price_out = None
    if price is not None:
        try:
            price_in, price_out = (float(x) for x in price.split("/"))
        except ValueError:
            raise InputError(f"--llm-price {price}: expected IN/OUT in USD per million tokens, e.g. 3/15") from None
    return LlmConfig(provider=provider, model=model, temperature=temperature, max_tokens=max_tokens,
                     timeout_sec=timeout, max_retries=retries, budget_usd=budget, price_in=price_in,
                     price_out=price_out)


def _print_summary(summary: Summary, out: Path) -> None:
    table = Table(title=f"repo2rlenv generate: {summary.repo}", show_header=False)
    table.add_row("candidates examined", str(summary.candidates))
    for reason, count in sorted(summary.skipped.items()):
        meaning = SKIP_REASONS.get(SkipReason(reason), "") if reason in SkipReason else ""
        table.add_row(f"skipped: {reason}", f"{count}  [dim]{meaning}[/dim]")
    table.add_row("verified (oracle 1.0, nop 0.0 or baseline)", str(len(summary.verified)))
    for reason, count in sorted(summary.rejected.items()):
        table.add_row(f"rejected by controls: {reason}", str(count))
    if summary.errors:
        table.add_row("errors", ", ".join(summary.errors))
    if summary.source_stats:
        table.add_row("GitHub API", summary.source_stats)
    if summary.llm_usage:
        table.add_row("LLM synthesis", summary.llm_usage)
    table.add_row("wall time", f"{summary.wall_seconds:.1f} s")
    err_console.print(table)
    err_console.print(f"tasks in {out}\nledger   {ledger_path(out)}", highlight=False, soft_wrap=True)


@click.group()
@click.version_option(__version__, prog_name="repo2rlenv")
def cli() -> None:
    """Turn repositories into verifiable Harbor tasks for coding agents."""
    _show_library_log()


def _show_library_log() -> None:
    """Library progress that is not per candidate (cloning, rate-limit waits) goes to the ``repo2env`` logger;
    show it on stderr, through the same console as the progress bar."""
    logger = logging.getLogger("repo2env")
    if not any(isinstance(h, RichHandler) for h in logger.handlers):
        logger.addHandler(RichHandler(console=err_console, show_time=False, show_path=False, markup=False))
        logger.setLevel(logging.INFO)


@cli.command("generate")
@click.argument("source")
@click.option("--pipeline", "pipeline_name", required=True, help="Pipeline plugin, e.g. pr_runtime.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Folder for verified task bundles.")
@click.option("--format", "bundle_format", type=click.Choice(FORMATS), default="harbor-1.0", show_default=True,
              help="Bundle layout: Harbor layout 1.0 (grading in the agent's container) or schema 1.3 (source "
              "snapshots, artifacts, a separate verifier container, no network).")
@click.option("--no-probes", is_flag=True, help="Skip the adversarial probes (by default every task that passes "
              "its controls must also resist reward forgery, test-runner tampering, test deletion and history "
              "digging, and score 1.0 on a reformatted reference).")
@click.option("--limit", type=click.IntRange(min=1), help="Examine at most N candidates (newest first).")
@click.option("--since", help="Only candidates merged (commits: committed) on or after this date (YYYY-MM-DD or "
              "ISO 8601, UTC).")
@click.option("--until", help="Only candidates merged (commits: committed) on or before this date (a bare date "
              "includes the whole day).")
@click.option("--pr", "prs", type=int, multiple=True, help="Only this PR number (repeatable).")
@click.option("--branch", help="Branch whose first-parent history is mined (default: HEAD or the default branch); "
              "commit_runtime also takes a range A..B.")
@click.option("--max-source-files", type=click.IntRange(min=1), default=10, show_default=True,
              help="Skip PRs whose gold patch touches more non-test, non-docs files.")
@click.option("--runs-before", type=click.IntRange(min=2), default=2, show_default=True,
              help="Test runs without the fix (flakiness check).")
@click.option("--runs-after", type=click.IntRange(min=1), default=3, show_default=True,
              help="Test runs with the fix (K).")
@click.option("--whole-suite", is_flag=True, help="Run the whole suite (wider PASS_TO_PASS), not only touched files.")
@click.option("--env-config", type=click.Path(path_type=Path), help="TOML file of per-repository environment overrides.")
@click.option("--pipeline-opt", "pipeline_opts", multiple=True, help="KEY=VALUE passed to the pipeline.")
@click.option("--github-url", help="API root of a GitHub Enterprise server, e.g. https://ghe.example.com/api/v3.")
@click.option("--cache-dir",
              help="Clones and the GitHub API cache (default: $R2E_CACHE_DIR or ~/.cache/repo2rlenv).")
@click.option("--include-drafts", is_flag=True, help="GitHub: keep draft PRs.")
@click.option("--include-bots", is_flag=True, help="GitHub: keep PRs by bot accounts (e.g. dependabot[bot]).")
@click.option("--label", "labels", multiple=True, help="GitHub: only PRs carrying this label (repeatable: all).")
@click.option("--exclude-label", "exclude_labels", multiple=True, help="GitHub: leave out PRs carrying this label.")
@click.option("--max-rate-wait", type=click.FloatRange(min=0), default=3600, show_default=True,
              help="GitHub: longest wait, in seconds, for a rate limit to reset before giving up.")
@click.option("--llm", help="Rewrite instructions as issue-style problem statements with this model, e.g. "
              "anthropic/claude-sonnet-4-6 (key from ANTHROPIC_API_KEY).")
@click.option("--llm-budget-usd", type=click.FloatRange(min=0), help="Stop synthesizing once this much is spent.")
@click.option("--llm-temperature", type=click.FloatRange(0, 1), help="Sampling temperature (default: the model's).")
@click.option("--llm-max-tokens", type=click.IntRange(min=64), default=1024, show_default=True)
@click.option("--llm-timeout", type=click.FloatRange(min=1), default=60, show_default=True, help="Seconds per request.")
@click.option("--llm-retries", type=click.IntRange(min=0), default=4, show_default=True,
              help="Retries of 429/5xx/timeouts (the SDK's own backoff).")
@click.option("--llm-price", help="IN/OUT: USD per million input/output tokens, when the model's price is not known.")
def generate_cmd(source, pipeline_name, out, bundle_format, no_probes, limit, since, until, prs, branch,
                 max_source_files, runs_before,
                 runs_after, whole_suite, env_config, pipeline_opts, github_url, cache_dir, include_drafts,
                 include_bots, labels, exclude_labels, max_rate_wait, llm, llm_budget_usd, llm_temperature,
                 llm_max_tokens, llm_timeout, llm_retries, llm_price) -> None:
    """Mine SOURCE into Harbor task bundles in --out.

    SOURCE is a clone's path or file:// URL, or a GitHub repository: org/repo or https://github.com/org/repo
    (token from GITHUB_TOKEN, GH_TOKEN or `gh auth token`; public repositories also work without one)."""
    if any(not label.strip() for label in labels + exclude_labels):
        raise InputError("--label/--exclude-label: a label name cannot be empty")
    if cache_dir is not None and not cache_dir.strip():
        raise InputError("--cache-dir: empty path; pass a folder for clones and the API cache")
    since_at, until_at = _parse_date(since, "--since"), _parse_date(until, "--until", end_of_day=True)
    if since_at and until_at and since_at > until_at:
        raise InputError(f"--since {since} is after --until {until}; swap them")
    options = GenerateOptions(
        out=out.resolve(), limit=limit, since=since_at, until=until_at,
        numbers=tuple(prs), branch=branch, max_source_files=max_source_files, runs_before=runs_before,
        runs_after=runs_after, whole_suite=whole_suite, env_config=load_env_config(env_config),
        pipeline_opts=_parse_opts(pipeline_opts), github_url=github_url,
        cache_dir=_cache_dir(cache_dir), github_max_wait=max_rate_wait,
        pr_filters=PrFilters(include_drafts=include_drafts, include_bots=include_bots, labels=tuple(labels),
                             exclude_labels=tuple(exclude_labels)),
        llm=_llm_config(llm, llm_budget_usd, llm_temperature, llm_max_tokens, llm_timeout, llm_retries, llm_price),
        format=bundle_format, probes=not no_probes)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("[dim]{task.fields[stage]}"))
    progress = Progress(*columns, console=err_console, transient=False)
    try:
        summary = generate(pipeline_name, source, options, RichReporter(progress))
    finally:
        progress.stop()
    _print_summary(summary, options.out)
    if summary.candidates == 0:
        err_console.print(f"no candidates found{': ' + summary.empty_hint if summary.empty_hint else ''}",
                          highlight=False)
    if summary.errors:
        sys.exit(1)


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
@click.option("--probes", is_flag=True, help="With --run: also run the adversarial probes (repo2env/probes.py).")
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


@cli.command("push")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--registry", help="Where images go: HOST[:PORT]/PATH, e.g. ghcr.io/acme/r2e or localhost:5000/r2e.")
@click.option("--dataset", "dataset_target", help="Publish the dataset: hf://OWNER/NAME or git+URL "
              "(git+file:///srv/datasets/d.git, git+https://…).")
@click.option("--registry-username", help="Registry user (default: the docker config's credentials).")
@click.option("--registry-password-stdin", is_flag=True, help="Read the registry password from standard input.")
@click.option("--image-visibility", type=click.Choice(["private", "public"]), default="private", show_default=True,
              help="Recorded in each task; also the Hub dataset's visibility when it is created.")
@click.option("--partial", is_flag=True, help="Replace each task as soon as it is pushed (default: all or none).")
def push_cmd(folder, registry, dataset_target, registry_username, registry_password_stdin, image_visibility,
             partial) -> None:
    """Push the images of the tasks in FOLDER, pin each task to its image digest, and publish the dataset."""
    from .push import push
    from .registry import RegistryAuth, check_registry

    if registry is None and dataset_target is None:
        raise InputError("push needs --registry, --dataset or both")
    if registry_password_stdin and not registry_username:
        raise InputError("--registry-password-stdin needs --registry-username")
    password = sys.stdin.read().rstrip("\n") if registry_password_stdin else None
    auth = RegistryAuth(username=registry_username, password=password)
    registry = check_registry(registry) if registry is not None else None
    client = docker_client() if registry is not None else None
    with err_console.status("pushing") as status:
        result = push(folder.resolve(), registry=registry, auth=auth, dataset_target=dataset_target,
                      visibility=image_visibility, partial=partial, client=client,
                      report=lambda message: status.update(f"pushing: {message}"))
    click.echo(f"{len(result.tasks)} task(s) pinned to registry images; {result.stats.describe()}")
    if result.stale:
        click.echo(f"{len(result.stale)} evaluation label(s) marked stale (the bundle changed); run "
                   "`repo2rlenv validate --run --in-place` to measure them again")
    for task_id, reason in sorted(result.failed.items()):
        click.echo(f"failed: {task_id}: {reason}")
    if result.failed:
        click.echo("nothing was published; fix the failures and run the same command again (finished tasks are "
                   "kept)" if not partial else "the failed tasks were left as they were; nothing was published")
        sys.exit(1)
    if result.published is not None:
        count = len(result.manifest["tasks"])
        click.echo(f"dataset {redact_url(dataset_target)}: {count} tasks, commit {result.published}")


@cli.command("pull")
@click.argument("source")
@click.argument("dest", type=click.Path(path_type=Path))
def pull_cmd(source, dest) -> None:
    """Fetch the dataset SOURCE (hf://OWNER/NAME or git+URL) into the new folder DEST and check every bundle
    hash against its manifest."""
    from .dataset import pull

    manifest = pull(source, dest.resolve())
    click.echo(f"{len(manifest['tasks'])} tasks in {dest / 'tasks'}, every bundle hash matches the manifest")


@cli.command("build")
@click.argument("config_file", type=click.Path(path_type=Path))
@click.option("--jobs", type=click.IntRange(min=1), help="Candidates built at once (default: the config's jobs).")
@click.option("--shard", help="K/N: build only this shard of the candidates (a job array of N machines).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local threads, or Ray tasks on the cluster named by RAY_ADDRESS (a local Ray without it).")
def build_cmd(config_file, jobs, shard, executor) -> None:
    """Build the dataset described by CONFIG_FILE (dataset.toml): incremental, resumable, parallel."""
    from .build import Shard, build
    from .build_config import load

    config = load(config_file)
    shard_spec = Shard.parse(shard) if shard else None
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("[dim]{task.fields[stage]}"))
    with Progress(*columns, console=err_console, transient=False) as progress:
        bar = progress.add_task("build", total=None, stage="planning")

        def update(done: int, total: int, message: str) -> None:
            progress.update(bar, completed=done, total=total, stage=message)

        summary = build(config, jobs=jobs, shard=shard_spec, executor=executor, progress=update)
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


@cli.command("report")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def report_cmd(folder, as_json) -> None:
    """Report on the dataset FOLDER that build wrote: yields, skip reasons, timings, changes since last build."""
    from .report import write_report

    try:
        report = write_report(folder)
    except FileNotFoundError:
        raise InputError(f"{folder}: no state.sqlite; pass the out folder of a dataset.toml") from None
    if as_json:
        click.echo(json.dumps(report, indent=1, sort_keys=True))
        return
    for g in report["groups"]:
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(g["skipped"].items())) or "-"
        click.echo(f"{g['repo']:<30} {g['pipeline']:<18} {g['verified']:>4}/{g['candidates']:<4} verified  "
                   f"skipped: {skipped}  test {g['test_seconds']:.0f} s")
    diff = report["diff"]
    click.echo(f"since the previous build: {len(diff['added'])} added, {len(diff['removed'])} removed, "
               f"{len(diff['changed'])} changed")
    click.echo(f"report  {folder / 'report.html'}")


@cli.command("merge")
@click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--into", "dest", required=True, type=click.Path(path_type=Path), help="The combined dataset folder.")
def merge_cmd(inputs, dest) -> None:
    """Combine the outputs of sharded builds (their tasks and states) into one dataset folder."""
    from .build import merge
    from .report import write_report

    added = merge([Path(p) for p in inputs], dest)
    write_report(dest)
    click.echo(f"{added} task(s) merged into {dest}")


@cli.command("pipelines")
def pipelines_cmd() -> None:
    """List the installed pipelines (entry-point group repo2env.pipelines)."""
    for name in available():
        click.echo(name)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (callable from tests)."""
    try:
        cli.main(args=argv, prog_name="repo2rlenv", standalone_mode=False)
    except click.exceptions.Abort:
        err_console.print("aborted")
        return 130
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except R2EError as exc:
        err_console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        return exc.exit_code
    except SystemExit as exc:
        return int(exc.code or 0)
    except OSError as exc:  # a file system problem outside --out's checks: one line, not a traceback
        err_console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        return 1
    return 0


def console_main() -> None:  # pragma: no cover - the console script
    sys.exit(main())
