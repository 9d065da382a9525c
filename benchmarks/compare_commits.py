"""commit_runtime on a clone's newest commits: tasks, wall time, container runs per candidate.

    .venv/bin/python benchmarks/compare_commits.py /path/to/clone --limit 200 [--jobs 2] [--probes] [--out DIR]

The figure to compare with another miner's on the same clone (issue 20: "5 tasks in 148 s" before, the other
tool's 7 in 32 s with 2 runs per candidate and no controls). Printed: candidates, tasks kept, skips by reason,
wall seconds, the stages (``core.timings``), and for the candidates that reached Docker how many test runs and
control runs each had (counted from their artefacts, ``<out>.logs/<task id>/``), and the floor of the kept tasks:
the seconds their test runs and their controls' graders ran in containers, and that over the CPUs. Images warm:
run it twice and read the second. Needs Docker (scripts/setup_docker.sh).
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from repo2env.pipeline import GenerateOptions  # noqa: E402
from repo2env.run.generate import generate, logs_root  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="a local clone")
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--parallel-runs", type=int, help="runs of one candidate side by side (default: CPUs/jobs)")
    parser.add_argument("--probes", action="store_true")
    parser.add_argument("--out", type=Path, help="keep the tasks here (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="r2e-commits-") as tmp:
        out = args.out or Path(tmp) / "tasks"
        start = time.monotonic()
        options = GenerateOptions(out=out, limit=args.limit, force=True, probes=args.probes,
                                  parallel_runs=args.parallel_runs)
        summary = generate("commit_runtime", args.repo, options, jobs=args.jobs)
        wall = time.monotonic() - start
        runs, controls = [], []
        for folder in sorted(p for p in logs_root(out).glob("*") if p.is_dir()):
            tests = len(list(folder.glob("tests-*.log")))
            if tests:
                runs.append(tests)
                controls.append(len(list(folder.glob("control-*.log"))))
    print(f"commit_runtime on {args.repo}: {summary.candidates} candidates, {len(summary.verified)} tasks, "
          f"{wall:.1f} s wall (jobs {args.jobs}, probes {'on' if args.probes else 'off'})")
    print("skipped: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.skipped.items())))
    if summary.rejected:
        print("rejected: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.rejected.items())))
    print("stages: " + ", ".join(f"{k} {v:.1f} s" for k, v in summary.stages.items() if v >= 0.05))
    if runs:
        print(f"{len(runs)} candidates reached Docker: test runs per candidate mean {statistics.mean(runs):.1f} "
              f"(max {max(runs)}), controls per candidate mean {statistics.mean(controls):.1f}")
    if summary.timings:  # what the kept tasks need at the least: their test executions, on every CPU at once
        tests = sum(t.test_seconds for t in summary.timings)
        graders = sum(t.grading_seconds for t in summary.timings)
        cpus = os.cpu_count() or 1
        print(f"floor of the {len(summary.timings)} kept tasks: {tests:.1f} s of test runs before/after the fix + "
              f"{graders:.1f} s of their oracle and nop graders in containers = {tests + graders:.1f} s; over "
              f"{cpus} CPUs at least {(tests + graders) / cpus:.1f} s wall")


if __name__ == "__main__":
    main()
