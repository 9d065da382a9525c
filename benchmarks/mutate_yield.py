"""Yield of repo_mutate on one repository: candidates tried and kept, skip reasons, tasks per hour, per-strategy
yield, and the call map's cost.

    .venv/bin/python benchmarks/mutate_yield.py /path/to/clone --out /tmp/mutants [--limit 300] [--jobs 2]
        [--parallel-runs 2] [--max-tasks 100] [--seed 0] [--no-probes] [--samples 10] [--report-only]

Runs ``generate --pipeline repo_mutate`` (a resumed ``--out`` counts only what this run did), then prints the table
from the run's ledger rows, and ``--samples`` instructions of kept tasks. ``--report-only`` prints the table of the
ledger already in ``--out`` (a run stopped at its hour), its wall time from the first row to the last, with
the candidates' strategies saved beside it by the run (``<out>.strategies.json``; planned again when absent). Needs Docker (scripts/setup_docker.sh).
"""

import argparse
import collections
import json
import time
from pathlib import Path

from datetime import datetime

from repo2env.pipeline import GenerateOptions, load_pipeline
from repo2env.run.generate import generate
from repo2env.run.ledger import ledger_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--parallel-runs", type=int, default=None, help="one candidate's containers side by side")
    parser.add_argument("--max-tasks", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-probes", action="store_true")
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    ledger = ledger_path(args.out)
    before = len(ledger.read_text().splitlines()) if ledger.is_file() else 0
    options = GenerateOptions(out=args.out, format="harbor-1.3", limit=args.limit, probes=not args.no_probes,
                              parallel_runs=args.parallel_runs,
                              pipeline_opts={"max_tasks": str(args.max_tasks), "seed": str(args.seed)})
    saved = args.out.with_name(args.out.name + ".strategies.json")  # kept beside the run: a report needs no plan
    if args.report_only and saved.is_file():
        strategies = json.loads(saved.read_text())
    else:
        planned = load_pipeline("repo_mutate").plan(args.repo, options).candidates
        strategies = {f"mutant:{c.mutation.key}": c.mutation.strategy for c in planned}
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(strategies))
    start, started = time.monotonic(), datetime.now().astimezone()
    if args.report_only:
        before, errors = 0, []
    else:
        errors = generate("repo_mutate", args.repo, options, jobs=args.jobs).errors
    hours = (time.monotonic() - start) / 3600
    rows = [json.loads(line) for line in ledger.read_text().splitlines()[before:]]
    if args.report_only and rows:  # from the run's start (its first row, less that row's own time) to its last row
        stamps = [datetime.fromisoformat(r["recorded_at"].replace("Z", "+00:00")) for r in rows]
        started = min(stamps[0].timestamp() - rows[0]["seconds"], stamps[0].timestamp())
        started = datetime.fromtimestamp(started).astimezone()
        hours = (max(stamps) - started).total_seconds() / 3600
    kept = [r for r in rows if r["status"] == "verified"]
    reasons = collections.Counter(r["reason"] or r["status"] for r in rows if r["status"] != "verified")
    print(f"repo_mutate on {args.repo}: {len(rows)} candidates tried, {len(kept)} verified in {hours * 60:.1f} min "
          f"({len(kept) / hours if hours else 0:.0f} tasks/hour, jobs {args.jobs}); errors {len(errors)}")
    first_hour = [r for r in kept
                  if (datetime.fromisoformat(r["recorded_at"].replace("Z", "+00:00")) - started).total_seconds() <= 3600]
    in_out = [r for r in first_hour if (args.out / r["task_id"] / "task.toml").is_file()]
    print(f"verified within the first hour (call map included): {len(first_hour)}, of them in --out now: "
          f"{len(in_out)}")
    print(f"{'reason':<24} {'count':>6}")
    for reason, count in reasons.most_common():
        print(f"{reason:<24} {count:>6}")
    by_strategy: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for row in rows:
        strategy = strategies.get(row["candidate"], "unknown")
        by_strategy[strategy][0] += 1
        by_strategy[strategy][1] += row["status"] == "verified"
    print(f"{'strategy':<22} {'tried':>6} {'kept':>6} {'yield':>7}")
    for strategy, (tried, got) in sorted(by_strategy.items()):
        print(f"{strategy:<22} {tried:>6} {got:>6} {got / tried:>7.0%}")
    seconds = [r["seconds"] for r in rows]
    if seconds:
        print(f"seconds per candidate: mean {sum(seconds) / len(seconds):.1f}, per kept task "
              f"{sum(seconds) / max(1, len(kept)):.1f} (summed over workers)")
    shown = [r for r in kept if (args.out / r["task_id"] / "instruction.md").is_file()]
    for row in shown[:args.samples]:
        text = (args.out / row["task_id"] / "instruction.md").read_text().split("\n\nGrading puts")[0]
        print(f"\n--- {row['task_id']}\n{text.strip()}")


if __name__ == "__main__":
    main()
