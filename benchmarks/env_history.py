"""Environments across a repository's history: for N base commits spread evenly over its first-parent history,
the Python chosen, the rungs of the fallback ladder tried, and whether the tests ran; then the totals.

    .venv/bin/python benchmarks/env_history.py /path/to/clone --commits 20
    .venv/bin/python benchmarks/env_history.py /path/to/clone --commits 20 --memory /tmp/mem.sqlite

"The tests ran" means: an image built, pytest ran the suite (its own discovery, or --tests paths) and at least
one test passed. A commit with no test file at all (a first commit) is shown as "no tests" and counted apart:
its environment built and pytest ran, but there was nothing to run. The ladder, the feedback loop and the environment
memory are the ones ``generate`` uses (``repo2env/environment/ladder.py``); each commit starts without memory
unless --memory names a file (then a commit uses what earlier commits learned, as a nightly build does).
Needs Docker with the base images (scripts/setup_docker.sh).
"""

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from repo2env import languages
from repo2env.core import gitrepo
from repo2env.core.errors import TestRunError
from repo2env.core.options import BuildContext, GenerateOptions
from repo2env.core.records import RepoRef
from repo2env.environment.containers import docker_client
from repo2env.environment.ladder import EnvironmentSearch
from repo2env.environment.memory import EnvMemory
from repo2env.environment.testrun import run_tests


def spread_commits(repo: str, n: int) -> list[str]:
    """``n`` first-parent commits of HEAD at even steps from the oldest to the newest."""
    shas = subprocess.run(["git", "-C", repo, "rev-list", "--first-parent", "--reverse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.split()
    if n >= len(shas):
        return shas
    return [shas[round(i * (len(shas) - 1) / max(n - 1, 1))] for i in range(n)]


def _stage_tests(folder: Path, language, repo: str, commit: str, targets: list[str], timeout: int) -> None:
    tests = folder / "tests"
    tests.mkdir(parents=True, exist_ok=True)
    for name, data in language.grader_files().items():
        (tests / name).write_bytes(data)
    (tests / "config.json").write_text(json.dumps({
        "workspace": "/workspace", "base_commit": commit, "overlay": {"write": {}, "delete": []},
        "run_targets": targets, "timeout_sec": timeout}))
    (tests / "base_files.json").write_text(json.dumps(gitrepo.ls_tree_entries(repo, commit)))


def tests_ran(run) -> tuple[bool, str]:
    """Whether a run counts as "the tests ran", and a one-line summary of it."""
    counts = {k: sum(1 for v in run.outcomes.values() if v == k) for k in ("passed", "failed", "error", "skipped")}
    summary = " ".join(f"{v} {k}" for k, v in counts.items() if v) or "no tests"
    if run.collection_errors:
        summary += f", {len(run.collection_errors)} files not importable"
    return counts["passed"] > 0, summary


def has_tests(language, repo: str, commit: str) -> bool:
    """Whether the commit has any file the language's runner collects tests from."""
    return any(language.is_runnable_test_file(p, gitrepo.show_file(repo, commit, p) or "")
               for p in gitrepo.ls_tree(repo, commit) if p.endswith(".py"))


def one_commit(client, language, ref: RepoRef, commit: str, memory: EnvMemory, work: Path, targets, timeout):
    ctx = BuildContext(client=client, options=GenerateOptions(out=work / "out", env_memory=memory.path))
    ctx.env_memory = memory
    search = EnvironmentSearch(ctx, language, ref, commit)
    ran, summary, python = False, "", ""
    _stage_tests(work / commit[:12], language, ref.path, commit, targets, timeout)
    for recipe in search:
        image = search.build(recipe)
        if image is None:
            continue
        try:
            run = run_tests(client, image.image_ref, work / commit[:12], "before", language=language, extra_hosts={},
                            timeout_sec=timeout)
        except TestRunError as exc:
            search.broken(recipe, str(exc))
            continue
        ok, summary = tests_ran(run)
        if ok and search.feedback(recipe, [run]):
            continue
        if not ok:
            if search.feedback(recipe, [run], broken=summary):
                continue
            search.broken(recipe, summary)
            continue
        search.accept(recipe)
        ran, python = True, recipe.python
        break
    if not ran and search.attempts and search.attempts[-1].outcome == "superseded":
        search.keep_previous(None)
        ran = True
        python = search.attempts[-1].python
    why = search.give_up().detail if not ran else ""
    return ran, python or (search.attempts[0].python if search.attempts else "-"), search.attempts, summary, why


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="a local clone")
    parser.add_argument("--commits", type=int, default=20)
    parser.add_argument("--tests", nargs="*", default=[], help="test paths to run (default: pytest's discovery)")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per test run")
    parser.add_argument("--memory", type=Path, help="environment memory file shared across commits (default: none)")
    args = parser.parse_args()
    repo = str(Path(args.repo).resolve())
    ref = RepoRef(slug=f"local/{Path(repo).name}", path=repo)
    client = docker_client()
    rows, started = [], time.monotonic()
    with tempfile.TemporaryDirectory(prefix="r2e-envhist-") as tmp:
        work = Path(tmp)
        for commit in spread_commits(repo, args.commits):
            language, _ = languages.for_commit(repo, commit)
            if not has_tests(language, repo, commit):
                date = gitrepo.commit_date_iso(repo, commit)[:10]
                rows.append((commit[:12], date, "-", None, 0.0, "", "no tests at this commit"))
                print(f"{commit[:12]} {date} {'':7} no tests at this commit", flush=True)
                continue
            memory = EnvMemory(args.memory or work / f"mem-{commit[:12]}.sqlite")
            t0 = time.monotonic()
            ran, python, attempts, summary, why = one_commit(client, language, ref, commit, memory, work,
                                                             args.tests, args.timeout)
            date = gitrepo.commit_date_iso(repo, commit)[:10]
            rungs = "; ".join(f"{a.rung}: {a.outcome}" for a in attempts)
            rows.append((commit[:12], date, python, ran, time.monotonic() - t0, rungs, summary or why))
            print(f"{commit[:12]} {date} py{python:5} {'ran ' if ran else 'FAIL'} {rows[-1][4]:6.0f}s  [{rungs}]  "
                  f"{(summary or why)[:160]}", flush=True)
    ok = sum(1 for r in rows if r[3])
    tried = sum(1 for r in rows if r[3] is not None)
    print(f"\n{ref.slug}: tests ran for {ok}/{tried} commits with tests ({100 * ok / max(tried, 1):.0f} %; "
          f"{len(rows) - tried} of {len(rows)} spread commits have no test file), "
          f"{sum(len(r[5].split('; ')) for r in rows if r[5])} rungs tried, {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
