"""The command line's contract (repo2env/cli/app.py): results on stdout, progress and errors on stderr, --json on
every command, -h/-q/-v, help with panels and examples, dry runs without Docker, pipeline options listed and
checked. Through the real entry point (``main``), no Docker engine: DOCKER_HOST points nowhere."""

import json

import pytest

from repo2env.cli import main
from repo2env.cli.app import cli
from repo2env.core import locks


@pytest.fixture(autouse=True)
def no_docker(monkeypatch):
    """Any attempt to reach Docker fails: what these commands do must not need it."""
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:9")


def run(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_command_has_json_help_and_quiet(capsys):
    for name, command in sorted(cli.commands.items()):
        options = {opt for param in command.params for opt in param.opts}
        assert {"--json", "-h", "--help", "-q", "--quiet"} <= options | {"-h", "--help"}, name
        code, out, _ = run(capsys, name, "-h")
        assert code == 0 and "Usage: repo2rlenv " + name in out, name


def test_generate_help_has_panels_and_examples(capsys):
    code, out, _ = run(capsys, "generate", "--help")
    assert code == 0
    for panel in ("Which candidates", "Tests and controls", "Environments", "Instructions", "GitHub", "Output",
                  "Examples"):
        assert panel in out, panel
    assert "--probes" in out and "--no-probes" in out and "--dry-run" in out
    code, out, _ = run(capsys, "-h")
    assert code == 0 and "Exit codes: 0 done, 1 something failed, 2 bad input, 3 Docker unavailable" in out
    assert "restamp" in out and "clean" in out


def test_dry_run_plans_and_filters_without_docker_and_writes_nothing(demo_repo, tmp_path, capsys):
    out_dir = tmp_path / "o"
    code, out, err = run(capsys, "generate", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(out_dir),
                         "--dry-run", "--json")
    assert code == 0, err
    data = json.loads(out)
    verdicts = {row["key"]: (row["verdict"], row["reason"]) for row in data["candidates"]}
    new = ("would run", "not run before")
    assert verdicts == {"pr#5": new, "pr#4": new, "pr#3": new, "pr#2": ("skip", "docs_ci_only"), "pr#1": new}
    assert data["would_run"] == 4 and data["repo"] == "local/calc-demo"
    assert not out_dir.exists() and list(tmp_path.iterdir()) == []  # no folder, no ledger, no lock
    code, out, _ = run(capsys, "generate", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(out_dir),
                       "--dry-run", "--repo-name", "acme/calc")
    assert code == 0 and "acme__calc-2" in out and "docs_ci_only" in out and "4 would run, 1 skip" in out


def test_a_bots_pull_request_in_a_local_clone_is_skipped_without_docker(demo_repo, tmp_path, capsys):
    """humanize's ``[pre-commit.ci] pre-commit autoupdate`` (author ``pre-commit-ci[bot]``) built an image and ran
    the tests before it was skipped: a local merge commit carries no account type, so its PR's author (the merged
    branch's) is matched as commit_runtime matches commit authors; ``--include-bots`` keeps it."""
    import shutil
    import subprocess

    repo = tmp_path / "calc"
    shutil.copytree(demo_repo, repo)

    def git(*args, **env):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env})
    bot = {"GIT_AUTHOR_NAME": "pre-commit-ci[bot]", "GIT_AUTHOR_EMAIL": "66853113+pre-commit-ci[bot]@users.noreply"
           ".github.com", "GIT_COMMITTER_NAME": "bot", "GIT_COMMITTER_EMAIL": "bot@example.com"}
    git("checkout", "-q", "-b", "pre-commit-ci-update-config")
    (repo / "calc" / "sizes.py").write_text((repo / "calc" / "sizes.py").read_text() + "\n")
    (repo / "tests" / "test_sizes.py").write_text((repo / "tests" / "test_sizes.py").read_text() + "\n")
    git("commit", "-qam", "[pre-commit.ci] auto fixes", **bot)
    git("checkout", "-q", "main")
    git("merge", "-q", "--no-ff", "-m", "Merge pull request #6 from acme/pre-commit-ci-update-config\n\n"
        "[pre-commit.ci] pre-commit autoupdate", "pre-commit-ci-update-config",
        GIT_AUTHOR_NAME="Maintainer", GIT_AUTHOR_EMAIL="m@example.com", GIT_COMMITTER_NAME="Maintainer",
        GIT_COMMITTER_EMAIL="m@example.com")
    for flags, verdict in (((), ("skip", "bot_author")), (("--include-bots",), ("would run", "not run before"))):
        code, out, err = run(capsys, "generate", "--pipeline", "pr_runtime", str(repo), "--out", str(tmp_path / "o"),
                             "--dry-run", "--json", "--pr", "6", *flags)
        assert code == 0, err
        assert [(r["key"], r["verdict"], r["reason"]) for r in json.loads(out)["candidates"]] == [("pr#6", *verdict)]


def test_pipelines_verbose_lists_options_and_reason_codes(capsys):
    code, out, _ = run(capsys, "pipelines", "--verbose")
    assert code == 0
    assert "--pipeline-opt include_types=" in out and "feat, fix, docs" in out
    assert "no_fail_to_pass" in out and "instruction_too_thin" in out
    code, out, _ = run(capsys, "pipelines", "--json")
    data = json.loads(out)
    names = {p["name"]: p for p in data["pipelines"]}
    assert set(names) >= {"pr_runtime", "commit_runtime", "pr_diff", "equivalence_tests"}
    assert {o["key"] for o in names["pr_diff"]["options"]} == {"emit_harbor_env", "weights", "min_changed_lines"}
    assert data["skip_reasons"]["docs_ci_only"] == "only documentation or CI files change"


def test_invalid_pipeline_opt_values_are_refused_with_the_allowed_ones(demo_repo, tmp_path, capsys):
    code, _, err = run(capsys, "generate", "--pipeline", "commit_runtime", str(demo_repo), "--out",
                       str(tmp_path / "o"), "--dry-run", "--pipeline-opt", "include_types=nonsense")
    assert code == 2 and "include_types=nonsense" in err and "'nonsense' is not one of feat, fix" in err
    code, _, err = run(capsys, "generate", "--pipeline", "pr_diff", str(demo_repo), "--out", str(tmp_path / "o"),
                       "--dry-run", "--pipeline-opt", "colour=red")
    assert code == 2 and "pr_diff knows emit_harbor_env, min_changed_lines, weights" in err


def test_bad_names_are_refused(demo_repo, tmp_path, capsys):
    code, _, err = run(capsys, "generate", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(tmp_path / "o"),
                       "--dry-run", "--repo-name", "no-slash")
    assert code == 2 and "--repo-name no-slash: expected owner/name" in err


def test_errors_go_to_stderr_even_when_quiet(tmp_path, capsys):
    code, out, err = run(capsys, "-q", "hash", str(tmp_path))
    assert code == 2 and out == "" and "no task.toml" in err
    code, out, err = run(capsys, "report", str(tmp_path), "--json")
    assert code == 2 and out == "" and "no state" in err


def test_a_finished_run_leaves_no_lock_file(tmp_path):
    folder = tmp_path / "o"
    first = locks.hold(folder)
    with pytest.raises(Exception, match="another repo2rlenv run is writing there"):
        locks.hold(folder)
    first.close()
    assert not locks.lock_path(folder).exists()
    again = locks.hold(folder)  # and the next run takes it as usual
    again.close()
    assert not locks.lock_path(folder).exists()


def test_build_dry_run_plans_every_source_without_docker(demo_repo, tmp_path, capsys):
    config = tmp_path / "dataset.toml"
    config.write_text(f'out = "ds"\n\n[[sources]]\nsource = "{demo_repo}"\npipelines = ["pr_runtime", "pr_diff"]\n'
                      '\n[[sources]]\nsource = "acme/not-here"\npipelines = ["pr_runtime"]\n')
    code, out, err = run(capsys, "build", str(config), "--dry-run", "--json")
    assert code == 0, err
    rows = json.loads(out)["candidates"]
    runtime = {r["key"]: r["verdict"] for r in rows if r["pipeline"] == "pr_runtime" and r["repo"] == "local/calc-demo"}
    assert runtime == {"pr#5": "would run", "pr#4": "would run", "pr#3": "would run", "pr#2": "skip",
                       "pr#1": "would run"}
    assert any(r["pipeline"] == "pr_diff" and r["key"] == "pr#2" and r["verdict"] == "skip" for r in rows)
    failed = [r for r in rows if r["verdict"] == "plan failed"]
    assert len(failed) == 1 and failed[0]["repo"] == "acme/not-here"  # GitHub is not reachable here
    assert not (tmp_path / "ds").exists()


def test_usage_errors_are_one_line_too(capsys):
    code, out, err = run(capsys, "generate", "--bogus")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "No such option '--bogus'" in err and "repo2rlenv generate --help" in err
