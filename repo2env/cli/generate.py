"""``repo2rlenv generate`` (and ``pipelines``): one source through one pipeline into ``--out``, with progress
and the run summary."""


import re
import statistics
import sys
import threading
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import rich_click as click
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from repo2env.bundles.layout13 import FORMATS, pipeline_formats
from repo2env.cli.app import VERBOSE, cli, emit_json, err_console, examples, json_option, out_console, output_options
from repo2env.core.errors import InputError
from repo2env.core.llm import LlmConfig, parse_llm
from repo2env.core.options import GenerateOptions, PrFilters
from repo2env.core.outcomes import CHEAP_SKIPS, SKIP_REASONS, SkipReason
from repo2env.core.timings import STAGES
from repo2env.environment.overrides import load_env_config
from repo2env.pipeline import available, load_pipeline
from repo2env.run.generate import Summary, generate, logs_root
from repo2env.run.generate import dry_run as dry_run_plan
from repo2env.run.ledger import ledger_path
from repo2env.tasks.options import describe as describe_options


class RichReporter:
    """Draws generate's progress: one bar over candidates, the current stage as text (with ``--jobs``, each
    worker thread's stage names its own candidate)."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.task = None
        self._keys: dict[int, str] = {}  # thread -> the candidate it builds

    @property
    def key(self) -> str:
        return self._keys.get(threading.get_ident(), "")

    def start(self, total, repo):
        self.progress.start()  # only once the input is known to be good: errors print without a bar
        self.task = self.progress.add_task(repo, total=total, stage="")

    def candidate(self, index, key):
        self._keys[threading.get_ident()] = key
        self.progress.update(self.task, stage=key)

    def stage(self, message):
        self.progress.update(self.task, stage=f"{self.key}: {message}")
        if VERBOSE:
            self.progress.console.print(f"    {self.key}: {message}", style="dim", highlight=False)

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


def _setup_llm_config(spec: str | None, budget: float | None) -> LlmConfig | None:
    """``--setup-llm*`` as an ``LlmConfig`` (None without ``--setup-llm``). Raises ``InputError``."""
    if spec is None:
        if budget is not None:
            raise InputError("--setup-llm-budget-usd needs --setup-llm PROVIDER/MODEL")
        return None
    try:
        provider, model = parse_llm(spec)
    except InputError as exc:
        raise InputError(str(exc).replace("--llm", "--setup-llm", 1)) from None
    return LlmConfig(provider=provider, model=model, max_tokens=1024, budget_usd=budget)


def instruction_figures(rows: list[dict]) -> str:
    """One line on the verified tasks' instructions: median words, how many state an input, what happens,
    what should happen, and how many carry observed behaviour."""
    n = len(rows)
    count = {part: sum(part in (r.get("states") or []) for r in rows) for part in ("input", "behaviour", "expectation")}
    return (f"median {statistics.median(r.get('words') or 0 for r in rows):.0f} words; state an input {count['input']}"
            f"/{n}, what happens {count['behaviour']}/{n}, what should happen {count['expectation']}/{n}; "
            f"observed behaviour in {sum(1 for r in rows if r.get('observed'))}/{n}")


def _print_summary(summary: Summary, out: Path) -> None:
    table = Table(title=f"repo2rlenv generate: {summary.repo}", show_header=False)
    table.add_row("candidates examined", str(summary.candidates))
    for reason, count in sorted(summary.skipped.items()):
        meaning = SKIP_REASONS.get(SkipReason(reason), "") if reason in SkipReason else ""
        table.add_row(f"skipped: {reason}", f"{count}  [dim]{meaning}[/dim]")
    table.add_row("verified (oracle 1.0, nop 0.0 or baseline)", str(len(summary.verified)))
    if summary.unchanged:
        table.add_row("unchanged since the last run (outcome reused)", str(len(summary.unchanged)))
    for reason, count in sorted(summary.rejected.items()):
        table.add_row(f"rejected by controls: {reason}", str(count))
    if summary.errors:
        table.add_row("errors", ", ".join(summary.errors))
    if summary.source_stats:
        table.add_row("GitHub API", summary.source_stats)
    if summary.llm_usage:
        table.add_row("LLM synthesis", summary.llm_usage)
    if summary.setup_llm_usage:
        table.add_row("setup agent", summary.setup_llm_usage)
    if summary.instructions:
        table.add_row("instructions", instruction_figures(summary.instructions))
    if summary.environments:
        tried = sum(summary.environments.values())
        table.add_row("environments", f"{summary.environments['ok']} of {tried} base commits built and ran the tests")
    table.add_row("wall time", f"{summary.wall_seconds:.1f} s")
    spent = {k: summary.stages[k] for k in sorted(summary.stages, key=lambda k: (
        STAGES.index(k) if k in STAGES else len(STAGES), k)) if summary.stages[k] >= 0.05}
    if spent:  # per candidate, added up: with --jobs they overlap, so the sum exceeds the wall time
        table.add_row("time by stage (summed over candidates)", ", ".join(f"{k} {v:.1f} s" for k, v in spent.items()))
    if summary.verified and not summary.unchanged:  # kept tasks took no time this run
        table.add_row("time per kept task", f"{summary.wall_seconds / len(summary.verified):.1f} s")
    out_console.print(table)
    out_console.print(f"tasks in {out}\nledger   {ledger_path(out)}\nlogs     {logs_root(out)}/<task id>/",
                      highlight=False, soft_wrap=True)
    cheap = sum(n for reason, n in summary.skipped.items() if reason in CHEAP_SKIPS)
    if summary.candidates >= 4 and 2 * cheap >= summary.candidates:  # --limit counts what the filters skip
        out_console.print(f"{cheap} of {summary.candidates} candidates were skipped by the cheap filters (no Docker); "
                          "--limit counts them too: raise it, or narrow with --since/--pr, to run more",
                          highlight=False, soft_wrap=True)
    if summary.candidates and not summary.verified:
        out_console.print("no task was kept: the reasons are above, each candidate's build and test logs in "
                          f"{logs_root(out)}/<task id>/", highlight=False, soft_wrap=True)




SELECT, TESTS, ENV, TEXT, GITHUB, OUTPUT = ("Which candidates", "Tests and controls", "Environments",
                                             "Instructions", "GitHub", "Output")


@cli.command("generate", epilog=examples(
    "repo2rlenv generate --pipeline pr_runtime ./clone --out ./tasks",
    "repo2rlenv generate --pipeline pr_runtime org/repo --since 2025-01-01 --limit 50 --dry-run",
    "repo2rlenv generate --pipeline commit_runtime ./clone --branch v1.0..main --out ./tasks --json",
    "repo2rlenv generate --pipeline pr_runtime ./clone --out ./tasks --llm anthropic/claude-sonnet-4-6",
    note="A re-run with the same --out keeps the outcome of every unchanged candidate (--force runs them "
         "again). Beside --out: <out>.ledger.jsonl (every outcome), <out>.state.sqlite, <out>.rejected/, "
         "<out>.logs/<task id>/ (image build logs, every test run's output and JUnit XML, control transcripts). "
         "`repo2rlenv pipelines --verbose` lists each pipeline's --pipeline-opt keys."))
@click.argument("source")
@click.option("--pipeline", "pipeline_name", required=True, panel=OUTPUT,
              help="Pipeline plugin: pr_runtime, commit_runtime, pr_diff, equivalence_tests, repo_mutate "
              "(`repo2rlenv pipelines`).")
@click.option("--out", type=click.Path(path_type=Path), required=True, panel=OUTPUT,
              help="Folder for verified task bundles.")
@click.option("--format", "bundle_format", type=click.Choice(FORMATS), default=None,
              panel=OUTPUT, help="Bundle layout: Harbor layout 1.0 (grading in the agent's container) or schema "
              "1.3/1.4 (source snapshots, artifacts, a separate verifier container, no network; 1.4 adds "
              "[task].version). Default: the pipeline's first (harbor-1.0; repo_mutate: harbor-1.3).")
@click.option("--pipeline-opt", "pipeline_opts", multiple=True, panel=OUTPUT,
              help="KEY=VALUE passed to the pipeline (keys: `repo2rlenv pipelines --verbose`).")
@click.option("--dry-run", is_flag=True, panel=OUTPUT,
              help="Plan and apply the cheap filters only: a table of candidates and what would happen to each. "
              "No Docker, nothing written.")
@click.option("--force", is_flag=True, panel=OUTPUT, help="Run every candidate again, even those whose inputs are "
              "unchanged since the last run into --out.")
@click.option("--repo-name", panel=OUTPUT, help="owner/name of the repository, for task ids and metadata (default: "
              "the clone's origin remote, else local/<folder>).")
@click.option("--dataset-name", panel=OUTPUT, help="The org part of each task's \\[task] name "
              "(<dataset-name>/<task id>; default: default).")
@click.option("--keep-rejected", is_flag=True, panel=OUTPUT, help="Also keep the bundles thrown away after staging "
              "(a skip found once the bundle was written), in <out>.logs/<task id>/bundle-N/; a bundle that fails "
              "its controls always goes to <out>.rejected/.")
@json_option
@output_options
@click.option("--limit", type=click.IntRange(min=1), panel=SELECT, help="Examine at most N candidates (newest first).")
@click.option("--since", panel=SELECT, help="Only candidates merged (commits: committed) on or after this date "
              "(YYYY-MM-DD or ISO 8601, UTC).")
@click.option("--until", panel=SELECT, help="Only candidates merged (commits: committed) on or before this date (a "
              "bare date includes the whole day).")
@click.option("--pr", "prs", type=int, multiple=True, panel=SELECT, help="Only this PR number (repeatable).")
@click.option("--branch", panel=SELECT, help="Branch whose first-parent history is mined (default: HEAD or the "
              "default branch); commit_runtime also takes a range A..B.")
@click.option("--max-source-files", type=click.IntRange(min=1), default=10, show_default=True, panel=SELECT,
              help="Skip PRs whose gold patch touches more non-test, non-docs files.")
@click.option("--include-drafts", is_flag=True, panel=GITHUB, help="Keep draft PRs.")
@click.option("--include-bots", is_flag=True, panel=SELECT, help="Keep PRs by bots (GitHub: a bot account; a local "
              "clone: an author such as dependabot, renovate or pre-commit-ci).")
@click.option("--label", "labels", multiple=True, panel=GITHUB, help="Only PRs carrying this label (repeatable: all).")
@click.option("--exclude-label", "exclude_labels", multiple=True, panel=GITHUB,
              help="Leave out PRs carrying this label.")
@click.option("--github-url", panel=GITHUB, help="API root of a GitHub Enterprise server, e.g. "
              "https://ghe.example.com/api/v3 (token: GITHUB_TOKEN, GH_TOKEN, GH_ENTERPRISE_TOKEN or `gh auth token`).")
@click.option("--max-rate-wait", type=click.FloatRange(min=0), default=3600, show_default=True, panel=GITHUB,
              help="Longest wait, in seconds, for a rate limit to reset before giving up.")
@click.option("--runs-before", type=click.IntRange(min=2), default=2, show_default=True, panel=TESTS,
              help="Test runs without the fix (flakiness check).")
@click.option("--runs-after", type=click.IntRange(min=1), default=3, show_default=True, panel=TESTS,
              help="Test runs with the fix (K).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, panel=TESTS,
              help="Candidates built at a time (each needs about one CPU and its containers' memory).")
@click.option("--parallel-runs", type=click.IntRange(min=1), panel=TESTS,
              help="A candidate's test runs, controls and probes side by side, each in its own container, at most "
              "this many (default: CPUs / --jobs; 1: one after the other).")
@click.option("--whole-suite", is_flag=True, panel=TESTS,
              help="Run the whole suite (wider PASS_TO_PASS), not only touched files.")
@click.option("--probes/--no-probes", default=True, show_default=True, panel=TESTS,
              help="Adversarial probes on every task that passes its controls: it must resist reward forgery, "
              "test-runner tampering, test deletion and history digging, and score 1.0 on a reformatted reference.")
@click.option("--env-config", type=click.Path(path_type=Path), panel=ENV,
              help="TOML file of per-repository environment overrides (specs/config-files.md).")
@click.option("--cache-dir", panel=ENV,
              help="Clones, the GitHub API cache and the environment memory (default: $R2E_CACHE_DIR or "
              "~/.cache/repo2rlenv).")
@click.option("--setup-llm", panel=ENV, help="When every rung of the environment ladder fails, ask this model for "
              "the next recipe, e.g. anthropic/claude-sonnet-4-6 (key from ANTHROPIC_API_KEY).")
@click.option("--setup-llm-budget-usd", type=click.FloatRange(min=0), panel=ENV,
              help="Stop asking once this much is spent.")
@click.option("--setup-llm-attempts", type=click.IntRange(min=1), default=2, show_default=True, panel=ENV,
              help="Proposals asked for per base commit.")
@click.option("--llm", panel=TEXT, help="Rewrite instructions as issue-style problem statements with this model, "
              "e.g. anthropic/claude-sonnet-4-6 (key from ANTHROPIC_API_KEY).")
@click.option("--llm-budget-usd", type=click.FloatRange(min=0), panel=TEXT, help="Stop synthesizing once this much "
              "is spent.")
@click.option("--llm-temperature", type=click.FloatRange(0, 1), panel=TEXT,
              help="Sampling temperature (default: the model's).")
@click.option("--llm-max-tokens", type=click.IntRange(min=64), default=1024, show_default=True, panel=TEXT)
@click.option("--llm-timeout", type=click.FloatRange(min=1), default=60, show_default=True, panel=TEXT,
              help="Seconds per request.")
@click.option("--llm-retries", type=click.IntRange(min=0), default=4, show_default=True, panel=TEXT,
              help="Retries of 429/5xx/timeouts (the SDK's own backoff).")
@click.option("--llm-price", panel=TEXT,
              help="IN/OUT: USD per million input/output tokens, when the model's price is not known.")
@click.option("--min-actionability", type=click.IntRange(0, 3), default=0, show_default=True, panel=TEXT,
              help="Skip a task whose instruction states fewer of: an input, what happens, what should happen.")
def generate_cmd(source, pipeline_name, out, bundle_format, pipeline_opts, dry_run, force, repo_name, dataset_name,
                 keep_rejected, as_json, limit, since, until, prs, branch, max_source_files, include_drafts, include_bots, labels,
                 exclude_labels, github_url, max_rate_wait, runs_before, runs_after, whole_suite, probes,
                 env_config, cache_dir, setup_llm, setup_llm_budget_usd, setup_llm_attempts, llm, llm_budget_usd,
                 llm_temperature, llm_max_tokens, llm_timeout, llm_retries, llm_price, min_actionability,
                 jobs, parallel_runs) -> None:
    """Mine SOURCE into Harbor task bundles in --out.

    SOURCE is a clone's path or file:// URL, or a GitHub repository: org/repo or https://github.com/org/repo
    (token from GITHUB_TOKEN, GH_TOKEN or `gh auth token`; public repositories also work without one)."""
    if any(not label.strip() for label in labels + exclude_labels):
        raise InputError("--label/--exclude-label: a label name cannot be empty")
    if cache_dir is not None and not cache_dir.strip():
        raise InputError("--cache-dir: empty path; pass a folder for clones and the API cache")
    if repo_name is not None and not REPO_NAME.fullmatch(repo_name):
        raise InputError(f"--repo-name {repo_name}: expected owner/name (letters, digits, '.', '_', '-')")
    if dataset_name is not None and not DATASET_NAME.fullmatch(dataset_name):
        raise InputError(f"--dataset-name {dataset_name}: expected a name of letters, digits, '.', '_' and '-'")
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
        format=bundle_format, probes=probes,
        setup_llm=_setup_llm_config(setup_llm, setup_llm_budget_usd), setup_llm_attempts=setup_llm_attempts,
        min_actionability=min_actionability, force=force, repo_name=repo_name, dataset_name=dataset_name,
        keep_rejected=keep_rejected, parallel_runs=parallel_runs)
    if dry_run:
        _print_dry_run(*dry_run_plan(pipeline_name, source, options), as_json=as_json)
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("[dim]{task.fields[stage]}"))
    # no bar when stderr is not a terminal (a log file): only the per-candidate lines, no frame of the bar
    progress = Progress(*columns, console=err_console, transient=False, disable=not err_console.is_terminal)
    try:
        summary = generate(pipeline_name, source, options, RichReporter(progress), jobs=jobs)
    finally:
        if progress.live.is_started:  # stopping a bar never started prints an empty line before the error
            progress.stop()
    if as_json:
        emit_json({**summary.as_dict(), "out": str(options.out), "ledger": str(ledger_path(options.out))})
    else:
        _print_summary(summary, options.out)
    if summary.candidates == 0:
        err_console.print(f"no candidates found{': ' + summary.empty_hint if summary.empty_hint else ''}",
                          highlight=False)
    if summary.errors:
        sys.exit(1)


REPO_NAME = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")
DATASET_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")


def _print_dry_run(repo: str, rows: list, *, as_json: bool) -> None:
    """The candidates of a dry run, on stdout: one row each (text table or JSON)."""
    if as_json:
        emit_json({"repo": repo, "candidates": [row.__dict__ for row in rows],
                   "would_run": sum(r.verdict == "would run" for r in rows)})
        return
    table = Table(title=f"repo2rlenv generate --dry-run: {repo}", show_lines=False)
    for column in ("candidate", "task id", "verdict", "reason"):
        table.add_column(column)
    for row in rows:
        code = row.detail if row.verdict == "unchanged" else row.reason  # unchanged: (its status, its reason)
        meaning = SKIP_REASONS.get(SkipReason(code), "") if code in SkipReason else ""
        shown = f"{row.reason}: {code}" if row.verdict == "unchanged" and code else (row.reason or "")
        table.add_row(row.key, row.task_id, row.verdict, escape(shown) + (f" [dim]({meaning})[/dim]" if meaning
                                                                          else ""))
    out_console.print(table)
    counts = Counter(r.verdict for r in rows)
    out_console.print(f"{_plural(len(rows), 'candidate')}: " + ", ".join(
        f"{counts[v]} {v}" for v in ("would run", "skip", "unchanged") if counts[v]), highlight=False)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


@cli.command("pipelines", epilog=examples("repo2rlenv pipelines", "repo2rlenv pipelines --verbose",
                                           "repo2rlenv pipelines --json"))
@click.option("--verbose", "-v", "detailed", is_flag=True,
              help="Each pipeline's --pipeline-opt keys (what they expect, their defaults) and formats, and the "
              "skip reason codes.")
@json_option
@output_options(verbose=False)
def pipelines_cmd(detailed, as_json) -> None:
    """List the installed pipelines (entry-point group repo2env.pipelines)."""
    rows = []
    for name in available():
        pipeline = load_pipeline(name)
        doc = (type(pipeline).__doc__ or "").strip().split("\n")[0]
        rows.append({"name": name, "version": getattr(pipeline, "version", ""), "about": doc,
                     "formats": list(pipeline_formats(getattr(pipeline, "formats", ("harbor-1.0",)))),
                     "options": describe_options(getattr(pipeline, "options", {}) or {})})
    reasons = {reason.value: meaning for reason, meaning in SKIP_REASONS.items()}
    if as_json:
        emit_json({"pipelines": rows, "skip_reasons": reasons})
        return
    for row in rows:
        out_console.print(f"[b]{row['name']}[/b] {row['version']}  {escape(row['about'])}", highlight=False)
        if not detailed:
            continue
        out_console.print(f"  formats: {', '.join(row['formats'])}", highlight=False)
        if not row["options"]:
            out_console.print("  --pipeline-opt: none", highlight=False)
        for opt in row["options"]:
            default = "" if opt["default"] is None else f" (default {opt['default']})"
            out_console.print(f"  --pipeline-opt {opt['key']}=…  {escape(opt['expects'])}{escape(default)}"
                              + (f": {escape(opt['help'])}" if opt["help"] else ""), highlight=False)
    if detailed:
        out_console.print("\n[b]skip reason codes[/b] (ledger, state, report)", highlight=False)
        for code, meaning in sorted(reasons.items()):
            out_console.print(f"  {code:<28} {escape(meaning)}", highlight=False)
