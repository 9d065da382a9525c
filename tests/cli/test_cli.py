"""repo2env/cli/: bad input gets one clear line and a non-zero exit, and writes nothing."""

from repo2env.cli import main
from tests.helpers.repos import commit_files


def run_cli(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_not_a_git_repository(tmp_path, capsys):
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(tmp_path), "--out", str(tmp_path / "o"))
    assert code == 2 and "not a git repository" in out and "Traceback" not in out
    assert out.startswith("error: ") and out.count("\n") == 1, repr(out)  # one line, none empty before it
    assert not (tmp_path / "o").exists() and not (tmp_path / "o.ledger.jsonl").exists()


def test_empty_history(new_repo, tmp_path, capsys):
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(new_repo()), "--out", str(tmp_path / "o"))
    assert code == 2 and "no commits" in out


def test_unknown_pr(demo_repo, tmp_path, capsys):
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(tmp_path / "o"),
                        "--pr", "999")
    assert code == 2 and "no merged pull request #999" in out
    assert not (tmp_path / "o").exists()


def test_unknown_pipeline_lists_installed(demo_repo, tmp_path, capsys):
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "nope", str(demo_repo), "--out", str(tmp_path / "o"))
    assert code == 2 and "no such pipeline" in out and "pr_runtime" in out


def test_bad_date_and_pipeline_opt(demo_repo, tmp_path, capsys):
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(tmp_path / "o"),
                        "--since", "yesterday")
    assert code == 2 and "--since yesterday: not a date" in out
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(tmp_path / "o"),
                        "--pipeline-opt", "novalue")
    assert code == 2 and "KEY=VALUE" in out


def test_unreachable_github_api_says_so(tmp_path, capsys):
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", "acme/widgets", "--out", str(tmp_path / "o"),
                        "--github-url", "http://127.0.0.1:9/api/v3", "--cache-dir", str(tmp_path / "c"))
    assert code == 1 and "acme/widgets: cannot reach the GitHub API at http://127.0.0.1:9/api/v3" in out
    assert not (tmp_path / "o").exists()


def test_docker_unreachable_says_how_to_fix(demo_repo, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(tmp_path / "o"))
    assert code == 3 and "Docker is not reachable" in out and "scripts/setup_docker.sh" in out
    assert not (tmp_path / "o").exists()


def test_pipelines_lists_pr_runtime(capsys):
    code, out = run_cli(capsys, "pipelines")
    assert code == 0 and "pr_runtime" in out.split()


def test_repo_without_prs_yields_no_candidates(new_repo, tmp_path, capsys, docker_client):
    repo = new_repo()
    commit_files(repo, "just a commit", {"a.py": "1\n"})
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(repo), "--out", str(tmp_path / "o"))
    assert code == 0 and "candidates" in out
    assert "━" not in out and "0:00:0" not in out  # stderr is no terminal here: no frame of the progress bar


def test_since_after_until(demo_repo, tmp_path, capsys):
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(tmp_path / "o"),
                        "--since", "2030-01-01", "--until", "2020-01-01")
    assert code == 2 and "swap them" in out and not (tmp_path / "o").exists()


def test_env_config_not_utf8(demo_repo, tmp_path, capsys):
    cfg = tmp_path / "env.toml"
    cfg.write_bytes(b"\xff\xfe[repos]\n")
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(tmp_path / "o"),
                        "--env-config", str(cfg))
    assert code == 2 and "not UTF-8" in out


def test_unwritable_out_is_one_line(demo_repo, tmp_path, capsys, docker_client):
    blocker = tmp_path / "o.ledger.jsonl"
    blocker.mkdir()  # the ledger path is taken by a directory
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(tmp_path / "o"),
                        "--pr", "2")
    assert code == 2 and "cannot write there" in out and "Traceback" not in out


def test_stale_staging_is_cleared_and_a_second_run_is_locked_out(demo_repo, tmp_path, capsys, docker_client):
    import fcntl
    stale = tmp_path / "o.staging" / "local__calc-demo-1.abc"
    stale.mkdir(parents=True)
    (stale / "task.toml").write_text("half-written")
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(tmp_path / "o"),
                        "--pr", "2")
    assert code == 0 and not (tmp_path / "o.staging").exists()
    with open(tmp_path / "o.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(demo_repo), "--out",
                            str(tmp_path / "o"), "--pr", "2")
    assert code == 2 and "another repo2rlenv run" in out


def test_github_errors_are_one_line_without_the_token(fake_github, tmp_path, capsys, monkeypatch):
    from tests.helpers.github_server import TOKEN

    base = ["generate", "--no-probes", "--pipeline", "pr_runtime", "--github-url", fake_github.url, "--out", str(tmp_path / "o"),
            "--cache-dir", str(tmp_path / "cache")]
    code, out = run_cli(capsys, *base, "org/nope")
    assert code == 2 and len(out.strip().splitlines()) == 1 and "org/nope: not found on 127.0.0.1 (404" in out
    monkeypatch.setenv("GH_ENTERPRISE_TOKEN", "bad" + TOKEN)
    code, out = run_cli(capsys, *base, "org/calc")
    assert code == 2 and len(out.strip().splitlines()) == 1 and "rejected the token" in out and TOKEN not in out
    code, out = run_cli(capsys, *base, "--label", "bug", str(tmp_path))
    assert code == 2 and "--github-url" in out
    assert not (tmp_path / "o").exists()


def test_local_label_filter_needs_github(demo_repo, tmp_path, capsys):
    code, out = run_cli(capsys, "generate", "--no-probes", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(tmp_path / "o"),
                        "--label", "bug")
    assert code == 2 and "need a GitHub source" in out


def test_commit_runtime_bad_range_and_option(demo_repo, tmp_path, capsys):
    base = ["generate", "--no-probes", "--pipeline", "commit_runtime", str(demo_repo), "--out", str(tmp_path / "o")]
    code, out = run_cli(capsys, *base, "--branch", "main..nope")
    assert code == 2 and "no range 'main..nope'" in out
    code, out = run_cli(capsys, *base, "--branch", "main..main")
    assert code == 2 and "main..main has no commits" in out
    code, out = run_cli(capsys, *base, "--pipeline-opt", "colour=blue")
    assert code == 2 and "--pipeline-opt colour: commit_runtime knows" in out
    assert not (tmp_path / "o").exists()


def test_pr_diff_options_and_score_errors(demo_repo, tmp_path, capsys):
    base = ["generate", "--no-probes", "--pipeline", "pr_diff", str(demo_repo), "--out", str(tmp_path / "o")]
    code, out = run_cli(capsys, *base, "--pipeline-opt", "weights=file_f1:x")
    assert code == 2 and "expected name:weight pairs" in out
    code, out = run_cli(capsys, *base, "--pipeline-opt", "weights=judge:1")
    assert code == 2 and "at least one deterministic component" in out
    code, out = run_cli(capsys, *base, "--pipeline-opt", "emit_harbor_env=maybe")
    assert code == 2 and "expected true or false" in out
    assert not (tmp_path / "o").exists()
    code, out = run_cli(capsys, "score", "--task", str(tmp_path), "--patch", str(tmp_path / "none.diff"))
    assert code == 2 and "no task.toml" in out


def test_a_format_the_pipeline_does_not_write_is_refused_first(demo_repo, tmp_path, capsys):
    code = main(["generate", "--no-probes", "--pipeline", "pr_diff", str(demo_repo), "--out", str(tmp_path / "o"),
                 "--format", "harbor-1.3"])
    assert code == 2 and "--format harbor-1.3: pr_diff writes only harbor-1.0; use --format harbor-1.0" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    assert main(["generate", "--no-probes", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(tmp_path / "o"),
                 "--format", "harbor-2"]) == 2
    assert "'harbor-2' is not one of 'harbor-1.0', 'harbor-1.3'" in capsys.readouterr().err


def test_the_summary_says_when_the_cheap_filters_ate_the_limit(tmp_path, capsys):
    """humanize: ``--limit 10`` ran 2 candidates, the other 8 bot, CI or docs PRs; the summary says that
    ``--limit`` counts them, and says nothing when most candidates ran."""
    from collections import Counter

    from repo2env.cli.generate import _print_summary
    from repo2env.run.generate import Summary

    _print_summary(Summary(repo="acme/x", candidates=10, skipped=Counter(docs_ci_only=5, bot_author=3),
                           verified=["a", "b"]), tmp_path / "o")
    assert "8 of 10 candidates were skipped by the cheap filters (no Docker); --limit counts them too" in \
        " ".join(capsys.readouterr().out.split())
    _print_summary(Summary(repo="acme/x", candidates=10, skipped=Counter(docs_ci_only=2, no_fail_to_pass=6),
                           verified=["a", "b"]), tmp_path / "o")
    assert "cheap filters" not in capsys.readouterr().out
