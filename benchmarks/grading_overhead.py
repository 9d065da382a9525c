"""Grading time added by the runtime grader's defenses against the code under test (sentinel tests, pytest as
``nobody`` with the grading inputs locked, the change audit), measured on generated bundles.

    .venv/bin/python benchmarks/grading_overhead.py /path/to/tasks/owner__repo-12 [more bundles] [--repeat 3]

For each bundle: the oracle is applied in a fresh container of its environment, then ``tests/test.sh`` runs and
is timed, with the defenses on (the bundle as generated) and off (a copy with ``sentinels = 0`` and pytest as the
grader's user, its inputs digest re-stamped). Prints the median seconds of each and the overhead in percent.
Needs Docker (scripts/setup_docker.sh) and layout 1.0 bundles.
"""

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from repo2env.bundles.inputs import restamp
from repo2env.environment.containers import TaskContainer, docker_client
from repo2env.environment.images import environment_image
from repo2env.environment.egress import bundle_hosts


def _grade_seconds(client, bundle: Path, image: str) -> tuple[float, str]:
    with TaskContainer(client, image, extra_hosts=bundle_hosts(bundle)) as box:
        box.put_dir(bundle / "solution", "/solution")
        box.exec(["bash", "/solution/solve.sh"])
        box.put_dir(bundle / "tests", "/tests")
        start = time.monotonic()
        box.exec(["bash", "/tests/test.sh"], timeout_sec=1800)
        seconds = time.monotonic() - start
        reward = (box.read_file("/logs/verifier/reward.txt") or b"?").decode().strip()
    return seconds, reward


def _plain_copy(bundle: Path, dest: Path) -> Path:
    copy = shutil.copytree(bundle, dest / bundle.name)
    config = json.loads((copy / "tests/config.json").read_text())
    config.update(sentinels=0, runner_user=None)
    (copy / "tests/config.json").write_text(json.dumps(config))
    restamp(copy)
    return copy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundles", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    client = docker_client()
    print(f"{'bundle':40} {'defended s':>11} {'plain s':>9} {'overhead':>9}")
    with tempfile.TemporaryDirectory(prefix="r2e-grade-bench-") as tmp:
        for bundle in args.bundles:
            image = environment_image(client, bundle / "environment", bundle.name)
            plain = _plain_copy(bundle, Path(tmp))
            defended = [_grade_seconds(client, bundle, image) for _ in range(args.repeat)]
            undefended = [_grade_seconds(client, plain, image) for _ in range(args.repeat)]
            on = statistics.median(s for s, _ in defended)
            off = statistics.median(s for s, _ in undefended)
            rewards = {r for _, r in defended + undefended}
            print(f"{bundle.name:40} {on:11.2f} {off:9.2f} {100 * (on - off) / off:8.1f}%  rewards {sorted(rewards)}")


if __name__ == "__main__":
    main()
