"""Throughput of `repo2rlenv build` with --jobs 1 against --jobs 2 on the same input, and the unchanged re-run.

    .venv/bin/python benchmarks/build_throughput.py            # three demo repositories, 5 PRs each, in a temp dir
    .venv/bin/python benchmarks/build_throughput.py --repos 2

Images are built once first (a warm-up build into its own folder), so both timed builds do the same work: the
K before/after test runs and the controls of every candidate. Then the --jobs 2 build is run again with nothing
new. Needs Docker (scripts/setup_docker.sh).
"""

import argparse
import tempfile
import time
from pathlib import Path

from repo2env.build.config import load
from repo2env.build.runner import build
from repo2env.sources.demo_repo import build_demo_repo


def _config(root: Path, out: str, repos: list[str]) -> Path:
    lines = [f'out = "{out}"', "probes = false"] + [line for name in repos for line in
                                  ("[[sources]]", f'source = "{name}"', 'pipelines = ["pr_runtime"]')]
    path = root / f"{out}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _timed(config: Path, jobs: int):
    start = time.monotonic()
    summary = build(load(config), jobs=jobs)
    return summary, time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="r2e-bench-build-") as tmp:
        root = Path(tmp)
        names = [f"bench{i}" for i in range(args.repos)]
        for name in names:
            build_demo_repo(root / name)
        _timed(_config(root, "warmup", names), 2)
        rows = []
        for jobs in (1, 2):
            summary, seconds = _timed(_config(root, f"jobs{jobs}", names), jobs)
            rows.append((jobs, summary.run, seconds))
        _, unchanged = _timed(_config(root, "jobs2", names), 2)
    print(f"{'jobs':>4} {'candidates':>10} {'seconds':>8} {'candidates/min':>15}")
    for jobs, run, seconds in rows:
        print(f"{jobs:>4} {run:>10} {seconds:>8.1f} {60 * run / seconds:>15.2f}")
    print(f"speed-up with --jobs 2: {rows[0][2] / rows[1][2]:.2f}x")
    print(f"unchanged re-run: {unchanged:.2f} s")


if __name__ == "__main__":
    main()
