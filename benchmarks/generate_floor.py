"""Per-task wall time of one generate run against the sum of its container test runs (the floor).

    .venv/bin/python benchmarks/generate_floor.py                 # the demo repository, in a temp dir
    .venv/bin/python benchmarks/generate_floor.py /path/to/clone --limit 20

The floor is what the K before/after pytest runs cost inside containers; the rest is image builds, container
start-up, controls and bookkeeping. Needs Docker (scripts/setup_docker.sh).
"""

import argparse
import tempfile
import time
from pathlib import Path

from repo2env.pipeline import GenerateOptions
from repo2env.run.generate import generate
from repo2env.sources.demo_repo import build_demo_repo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", help="clone to mine (default: a fresh demo repository)")
    parser.add_argument("--pipeline", default="pr_runtime")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="r2e-bench-") as tmp:
        source = args.source or str(build_demo_repo(Path(tmp) / "calc-demo"))
        start = time.monotonic()
        summary = generate(args.pipeline, source, GenerateOptions(out=Path(tmp) / "tasks", limit=args.limit))
        total = time.monotonic() - start
    print(f"{'task':40} {'wall s':>8} {'tests s':>8} {'overhead':>9}")
    for t in summary.timings:
        print(f"{t.task_id:40} {t.wall_seconds:8.1f} {t.test_seconds:8.1f} {t.wall_seconds / max(t.test_seconds, 1e-9):8.1f}x")
    built = sum(t.wall_seconds for t in summary.timings)
    floor = sum(t.test_seconds for t in summary.timings)
    print(f"run: {total:.1f} s wall for {summary.candidates} candidates, {len(summary.verified)} verified; "
          f"tasks built: {built:.1f} s wall vs {floor:.1f} s of container test runs (floor)")


if __name__ == "__main__":
    main()
