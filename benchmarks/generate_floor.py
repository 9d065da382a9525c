"""Where one generate run's time goes, against the floor of its container test runs, and the disk each task adds.

    .venv/bin/python benchmarks/generate_floor.py                 # the demo repository, in a temp dir
    .venv/bin/python benchmarks/generate_floor.py /path/to/clone --limit 20 --jobs 2 [--probes]
    .venv/bin/python benchmarks/generate_floor.py --pipeline commit_runtime /path/to/clone --limit 200

Printed: the wall seconds per stage over all candidates (``core.timings``: image build, container start, the
test runs before and after the fix, controls, probes, container stop, other), each kept task's wall time against
its container test time (the floor: the before/after test runs themselves; and that plus the seconds the oracle's
and the nop's graders ran, every test execution a kept task needs), and the disk per extra task: the
bytes of image layers a task adds (its bundle image's own layers, plus its share of the environment image of its
base commit) against the bootstrap image it starts from. Needs Docker (scripts/setup_docker.sh).
"""

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from repo2env.environment.containers import docker_client  # noqa: E402
from repo2env.environment.images import LABEL_TOOL  # noqa: E402
from repo2env.pipeline import GenerateOptions  # noqa: E402
from repo2env.run.generate import generate  # noqa: E402
from repo2env.sources.demo_repo import build_demo_repo  # noqa: E402


def _added(child, parent) -> int:
    """Bytes of the layers ``child`` has on top of ``parent`` (``docker history``: newest first)."""
    mine, theirs = child.history(), parent.history()
    return sum(entry.get("Size", 0) for entry in mine[:max(0, len(mine) - len(theirs))])


def _parent(client, image, kind: str):
    """The image of ``kind`` (``LABEL_TOOL``) whose history is the tail of ``image``'s, or None."""
    mine = [(e.get("Created"), e.get("CreatedBy")) for e in image.history()]
    for other in client.images.list(filters={"label": f"{LABEL_TOOL}={kind}"}):
        theirs = [(e.get("Created"), e.get("CreatedBy")) for e in other.history()]
        if theirs and len(theirs) < len(mine) and mine[-len(theirs):] == theirs:
            return other
    return None


def disk_per_task(out: Path) -> tuple[list[int], int | None]:
    """``(bytes added per kept task, bootstrap image bytes)`` of the bundles in ``out``."""
    client = docker_client()
    per_task, env_users, bootstrap = [], {}, None
    found = []
    for bundle in sorted(p for p in out.iterdir() if (p / "environment" / "Dockerfile").is_file()):
        text = (bundle / "environment" / "Dockerfile").read_text()
        match = re.search(r"^FROM\s+(\S+)", text, re.MULTILINE)
        bundle_images = client.images.list(filters={"label": f"io.repo2rlenv.task={bundle.name}"})
        if not match or not bundle_images:
            continue
        env = client.images.get(match.group(1))
        env_users[env.id] = env_users.get(env.id, 0) + 1
        found.append((bundle_images[0], env))
    for bundle_image, env in found:
        base = _parent(client, env, "bootstrap")
        bootstrap = base.attrs["Size"] if base is not None else bootstrap
        env_share = _added(env, base) / env_users[env.id] if base is not None else 0
        per_task.append(int(_added(bundle_image, env) + env_share))
    return per_task, bootstrap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", help="clone to mine (default: a fresh demo repository)")
    parser.add_argument("--pipeline", default="pr_runtime")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--parallel-runs", type=int, help="runs of one candidate side by side (default: CPUs/jobs)")
    parser.add_argument("--probes", action="store_true", help="run the adversarial probes too")
    parser.add_argument("--out", type=Path, help="keep the tasks here (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="r2e-bench-") as tmp:
        source = args.source or str(build_demo_repo(Path(tmp) / "calc-demo"))
        out = args.out or Path(tmp) / "tasks"
        start = time.monotonic()
        options = GenerateOptions(out=out, limit=args.limit, probes=args.probes, parallel_runs=args.parallel_runs)
        summary = generate(args.pipeline, source, options, jobs=args.jobs)
        total = time.monotonic() - start
        disk, bootstrap = disk_per_task(out)
    print(f"run: {total:.1f} s wall, {summary.candidates} candidates, {len(summary.verified)} verified, "
          f"{sum(summary.skipped.values())} skipped, {sum(summary.rejected.values())} rejected, jobs {args.jobs}")
    spent = sum(summary.stages.values()) or 1.0
    print(f"\n{'stage':18} {'wall s':>8} {'share':>6}")
    for name, seconds in summary.stages.items():
        print(f"{name:18} {seconds:8.1f} {seconds / spent:6.0%}")
    print(f"\n{'task':40} {'wall s':>8} {'tests s':>8} {'ratio':>7} {'+graders s':>11} {'ratio':>7}")
    for t in summary.timings:
        every = t.test_seconds + t.grading_seconds
        print(f"{t.task_id:40} {t.wall_seconds:8.1f} {t.test_seconds:8.1f} "
              f"{t.wall_seconds / max(t.test_seconds, 1e-9):6.2f}x {every:11.1f} "
              f"{t.wall_seconds / max(every, 1e-9):6.2f}x")
    built = sum(t.wall_seconds for t in summary.timings)
    floor = sum(t.test_seconds for t in summary.timings)
    graders = sum(t.grading_seconds for t in summary.timings)
    if summary.timings:
        print(f"tasks: {built:.1f} s wall vs {floor:.1f} s of container test runs (floor): "
              f"{built / max(floor, 1e-9):.2f}x; vs {floor + graders:.1f} s with the controls' graders "
              f"(test.sh of the oracle and nop): {built / max(floor + graders, 1e-9):.2f}x")
    if disk and bootstrap:
        median = statistics.median(disk)
        print(f"disk per extra task: median {median / 1e6:.1f} MB, max {max(disk) / 1e6:.1f} MB; bootstrap image "
              f"{bootstrap / 1e6:.0f} MB ({median / bootstrap:.1%} of it)")


if __name__ == "__main__":
    main()
