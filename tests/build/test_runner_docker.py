"""repo2rlenv build end to end with three local repositories (one whose environment cannot be built) in a real
Docker engine: a killed build resumed ends hash-identical to an uninterrupted one; an unchanged re-run does no
work and says so; two shards plus merge equal one build; the Ray executor gives the same bundles; a new commit
runs only that repository's new candidate; a source that cannot be planned fails the exit code, not the others."""

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from repo2env.build.runner import STATE_FILE, Shard
from repo2env.bundles.hashing import bundle_hash
from repo2env.cli import main
from repo2env.sources.demo_repo import build_demo_repo
from tests.helpers.repos import commit_files, git, merged_pr_repo

pytestmark = pytest.mark.docker

BROKEN_PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"
[project]
name = "brk"
version = "0.1"
dependencies = ["r2e-no-such-package-xyz==0.0.1"]
[project.optional-dependencies]
test = ["pytest"]
[tool.setuptools]
packages = ["brk"]
"""


def _broken_repo(path: Path) -> Path:
    """A repository with one merged PR whose dependencies cannot be installed (its environment build fails)."""
    return merged_pr_repo(path, {"pyproject.toml": BROKEN_PYPROJECT, "brk/__init__.py": "def f():\n    return 1\n",
                                 "tests/test_f.py": "from brk import f\n\n\ndef test_f():\n    assert f() == 1\n"},
                          {"brk/__init__.py": "def f():\n    return 2\n",
                           "tests/test_f.py": "from brk import f\n\n\ndef test_f():\n    assert f() == 2\n"},
                          "f must return two: the totals computed downstream by every caller depend on that value.")


def _config(root: Path, out: str, sources=("alpha", "beta", "broken")) -> Path:
    lines = [f'out = "{out}"', "jobs = 2", "probes = false"]
    for name in sources:
        lines += ["[[sources]]", f'source = "{name}"', 'pipelines = ["pr_runtime"]']
        if name in ("alpha", "beta"):
            lines.append("limit = 2")
    lines += ["[pipelines.pr_runtime]", "runs_after = 2"]
    path = root / f"{out}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _outcomes(out: Path) -> dict:
    db = sqlite3.connect(out / STATE_FILE)
    try:
        return {(r, k): (s, reason, h) for r, k, s, reason, h in
                db.execute("SELECT repo, key, status, reason, bundle_hash FROM candidates")}
    finally:
        db.close()


def _bundles(out: Path) -> dict:
    """``{"<pipeline>/<task id>": bundle hash}`` of the bundles in ``out/tasks/<pipeline>/`` (the candidates' logs
    folders beside them, ``<pipeline>.logs/``, are not bundles)."""
    return {f"{p.parent.parent.name}/{p.parent.name}": bundle_hash(p.parent)
            for p in sorted((out / "tasks").glob("*/*/task.toml"))}


@pytest.fixture(scope="module")
def repos(docker_client, tmp_path_factory):
    root = tmp_path_factory.mktemp("build")
    build_demo_repo(root / "alpha")
    build_demo_repo(root / "beta")
    _broken_repo(root / "broken")
    return root


@pytest.fixture(scope="module")
def whole(repos):
    """One uninterrupted build: (out, its outcomes)."""
    assert main(["build", str(_config(repos, "whole"))]) == 0
    out = repos / "whole"
    return out, _outcomes(out)


def test_the_build_has_every_repository_and_the_broken_one_is_recorded(whole):
    out, outcomes = whole
    assert {k: v[:2] for k, v in outcomes.items()} == {
        ("local/alpha", "pr#5"): ("verified", None), ("local/alpha", "pr#4"): ("verified", None),
        ("local/beta", "pr#5"): ("verified", None), ("local/beta", "pr#4"): ("verified", None),
        ("local/broken", "pr#1"): ("skipped", "env_build_failed")}
    assert sorted(_bundles(out).values()) == sorted(h for s, _, h in outcomes.values() if s == "verified")
    report = json.loads(next((out / "reports").glob("*.json")).read_text())
    groups = {(g["repo"], g["pipeline"]): g for g in report["groups"]}
    assert groups[("local/broken", "pr_runtime")]["skipped"] == {"env_build_failed": 1}
    assert groups[("local/alpha", "pr_runtime")]["verified"] == 2 and "<svg" in (out / "report.html").read_text()


def test_a_killed_build_resumes_hash_identical(repos, whole):
    _, expected = whole
    config = _config(repos, "killed")
    proc = subprocess.Popen([str(Path(sys.executable).parent / "repo2rlenv"), "build", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state = repos / "killed" / STATE_FILE
    while proc.poll() is None:
        if state.exists():
            try:
                if _outcomes(repos / "killed"):
                    break
            except sqlite3.OperationalError:
                pass
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the build finished before it could be killed"
    assert 0 < len(_outcomes(repos / "killed")) < len(expected)
    assert main(["build", str(config)]) == 0
    assert _outcomes(repos / "killed") == expected
    assert _bundles(repos / "killed") == _bundles(repos / "whole")
    assert not list((repos / "killed" / "tasks").glob("*.staging"))


def test_an_unchanged_rerun_does_no_work_and_says_so(repos, whole, capsys):
    assert main(["build", str(_config(repos, "whole"))]) == 0
    assert "nothing new: 5 candidate(s) unchanged since the last build" in capsys.readouterr().out
    assert _outcomes(repos / "whole") == whole[1]
    assert main(["report", str(repos / "whole")]) == 0
    text = capsys.readouterr().out
    assert "since the previous build: 0 added, 0 removed, 0 changed" in text
    assert "rejected: -  skipped: " in text  # rejections have a column of their own (none here)
    assert re.search(r" wall \d+ s \(tests in containers \d+ s\)\n", text), text  # what the seconds are


def test_two_shards_and_merge_equal_one_build(repos, whole):
    halves = [Shard(1, 2), Shard(2, 2)]
    assert {h.owns("local/alpha", "pr_runtime", "pr#5") for h in halves} == {True, False}
    for shard in halves:
        assert main(["build", str(_config(repos, f"shard{shard.index}")), "--shard", str(shard)]) == 0
    parts = [_outcomes(repos / f"shard{i}") for i in (1, 2)]
    assert parts[0] and parts[1] and not set(parts[0]) & set(parts[1])
    assert main(["merge", str(repos / "shard1"), str(repos / "shard2"), "--into", str(repos / "merged")]) == 0
    assert _outcomes(repos / "merged") == whole[1]
    assert _bundles(repos / "merged") == _bundles(repos / "whole")


def test_the_ray_executor_builds_the_same_bundles(repos, whole):
    assert main(["build", str(_config(repos, "ray", sources=("alpha",))), "--executor", "ray"]) == 0
    alpha = {k: v for k, v in whole[1].items() if k[0] == "local/alpha"}
    assert _outcomes(repos / "ray") == alpha


def test_a_source_that_cannot_be_planned_fails_the_exit_code_only(repos, whole, capsys):
    config = _config(repos, "whole", sources=("alpha", "./missing"))
    assert main(["build", str(config)]) == 1
    out = capsys.readouterr().out
    assert "failed: " in out and "missing" in out and "no such directory" in out
    assert _outcomes(repos / "whole") == whole[1]


def test_a_new_commit_runs_only_that_repositorys_new_candidate(repos, whole, capsys):
    alpha = repos / "alpha"
    git(alpha, "checkout", "-q", "-b", "feature")
    commit_files(alpha, "Add cube", {"calc/ops.py": (alpha / "calc/ops.py").read_text() +
                                     "\n\ndef cube(x):\n    return x * x * x\n",
                                     "tests/test_cube.py": "from calc.ops import cube\n\n\ndef test_cube():\n"
                                                           "    assert cube(3) == 27\n"}, date="2025-04-01T00:00:00Z")
    git(alpha, "checkout", "-q", "main")
    git(alpha, "merge", "-q", "--no-ff", "feature", "-m", "Merge pull request #6 from dan/cube\n\nAdd a cube "
        "helper next to the other arithmetic helpers so callers stop writing x * x * x by hand.",
        env={"GIT_AUTHOR_DATE": "2025-04-01T00:00:00Z", "GIT_COMMITTER_DATE": "2025-04-01T00:00:00Z"})
    assert main(["build", str(_config(repos, "whole"))]) == 0
    out = capsys.readouterr().out
    assert "5 candidate(s), 4 unchanged, 1 run" in out  # alpha's window is now #6 and #5
    outcomes = _outcomes(repos / "whole")
    assert outcomes[("local/alpha", "pr#6")][0] == "verified"
    assert {k: v for k, v in outcomes.items() if k != ("local/alpha", "pr#6")} == whole[1]
