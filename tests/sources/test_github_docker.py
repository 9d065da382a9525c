"""``generate --pipeline pr_runtime org/repo`` end to end: fake GitHub API on 127.0.0.1 (real PyGithub), real git
over smart HTTP, real Docker. The same PRs give the same tasks as the local source, with the linked issue as the
instruction; a second run is answered from the ETag cache; the token is written nowhere."""

import base64
import json

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.cli import main
from repo2env.sources.demo_repo import EXPECTED_TASKS
from tests.helpers.github_server import ISSUE_7, TOKEN, demo_server

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def github_run(docker_client, demo_repo, tmp_path_factory):
    root = tmp_path_factory.mktemp("gh")
    server = demo_server(demo_repo, root / "server").start()
    out, cache = root / "tasks", root / "cache"
    argv = ["generate", "--no-probes", "--pipeline", "pr_runtime", "org/calc", "--github-url", server.url, "--out", str(out),
            "--cache-dir", str(cache)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GH_ENTERPRISE_TOKEN", TOKEN)
        mp.setenv("COLUMNS", "200")
        first = main(argv)
        first_api = [s for s in server.log if not s.path.startswith("/git/")]
        server.reset_log()
        second = main(argv)
        second_api = [s for s in server.log if not s.path.startswith("/git/")]
    server.stop()
    yield {"root": root, "out": out, "codes": (first, second), "first_api": first_api, "second_api": second_api}


def test_same_tasks_as_the_local_source_with_the_issue_as_instruction(github_run, demo_generated):
    out, (local_out, _) = github_run["out"], demo_generated
    assert github_run["codes"] == (0, 0)
    assert sorted(p.name for p in out.iterdir()) == [f"org__calc-{n}" for n in sorted(EXPECTED_TASKS)]
    for number in EXPECTED_TASKS:
        ours, theirs = out / f"org__calc-{number}", local_out / f"local__calc-demo-{number}"
        for rel in ("tests/f2p.json", "tests/p2p.json", "tests/test.patch", "solution/patch.diff"):
            assert (ours / rel).read_bytes() == (theirs / rel).read_bytes(), (number, rel)
        meta = read_task_toml(ours)["metadata"]["repo2env"]
        assert meta["reference"] == f"https://github.com/org/calc/pull/{number}"
        assert meta["repo"] == "org/calc" and meta["evaluation"]["status"] == "verified"
        assert meta["pr_runtime"]["issue_numbers"] == ([7] if number == 1 else [])
    instruction = (out / "org__calc-1" / "instruction.md").read_text()
    # the issue's last sentence copies the fix's raise line (quote style aside): it goes; the observed behaviour
    # still says what should happen
    assert instruction.startswith(f"# {ISSUE_7[0]}\n") and "ValueError('cannot divide by zero')" not in instruction
    assert "it should raise `ValueError` with a message matching `divide by zero`" in instruction
    assert "#7" not in instruction and "test_divide" not in instruction
    assert json.loads((out / "org__calc-5" / "tests" / "f2p.json").read_text()) == EXPECTED_TASKS[5]["fail_to_pass"]


def test_second_run_costs_no_quota(github_run, capsys):
    first, second = github_run["first_api"], github_run["second_api"]
    print(f"\nGitHub API requests: first run {len(first)}, second run {len(second)} "
          f"({sum(s.status == 304 for s in second)} answered 304 Not Modified)")
    assert [s.path for s in first] == ["/repos/org/calc", "/repos/org/calc/pulls", "/repos/org/calc/issues/7"]
    # the second run keeps every unchanged candidate (<out>.state.sqlite): no problem statement is fetched again
    assert [s.path for s in second] == ["/repos/org/calc", "/repos/org/calc/pulls"]
    assert [s.status for s in second] == [304, 304]


def test_the_token_is_in_no_file_the_run_wrote(github_run):
    basic = base64.b64encode(f"x-access-token:{TOKEN}".encode())
    files = [p for p in github_run["root"].rglob("*") if p.is_file() and "server" not in p.parts]
    assert any(p.name == "tasks.ledger.jsonl" for p in files) and any(p.suffix == ".sqlite" for p in files)
    assert any(p.name == "config" and p.parent.name == "calc.git" for p in files)
    for path in files:
        data = path.read_bytes()
        assert TOKEN.encode() not in data and basic not in data, path
