"""The Go grader's runner (graders/go_runner.py, run by graders/toolchain_verifier.py) on real `go` runs with
this host's toolchain: node ids with subtests, build failures, sentinels, planted files, forged reports, and test sources hidden from the code under
test."""

import json
import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from repo2env.graders import go_runner as tv

GO = shutil.which("go")
pytestmark = pytest.mark.skipif(GO is None, reason="no Go toolchain on this host")

A_SRC = "package a\n\nfunc Double(x int) int { return x * 2 }\n"
A_TEST = """package a

import "testing"

func TestDoubleTwo(t *testing.T) {
\tif got := Double(2); got != 4 {
\t\tt.Errorf("Double(2) = %d, want 4", got)
\t}
}

func TestDoubleWrong(t *testing.T) {
\tif got := Double(3); got != 7 {
\t\tt.Errorf("Double(3) = %d, want 7", got)
\t}
}

func TestTable(t *testing.T) {
\tfor _, c := range []struct{ name string; in, want int }{{"two words", 1, 2}, {"bad case", 2, 5}} {
\t\tt.Run(c.name, func(t *testing.T) {
\t\t\tif got := Double(c.in); got != c.want {
\t\t\t\tt.Errorf("Double(%d) = %d, want %d", c.in, got, c.want)
\t\t\t}
\t\t})
\t}
}
"""
B_TEST = "package b\n\nimport \"testing\"\n\nfunc TestMissing(t *testing.T) { _ = Missing(1) }\n"


@pytest.fixture(scope="module")
def warm_cache():
    """A build cache with the standard library's test dependencies compiled (each run copies it, as the grader
    copies the image's), so each test does not compile ``testing`` afresh."""
    folder = Path(tempfile.mkdtemp(prefix="r2e-gocache-"))
    work = folder / "warm"
    (work / "w").mkdir(parents=True)
    (work / "go.mod").write_text("module warm\n\ngo 1.21\n")
    (work / "w" / "w_test.go").write_text('package w\n\nimport (\n\t"os"\n\t"testing"\n)\n\n'
                                          'func TestW(t *testing.T) { _ = os.Getpid() }\n')
    env = dict(os.environ, GOCACHE=str(folder / "cache"), GOFLAGS="-mod=mod", CGO_ENABLED="0", GOTOOLCHAIN="local")
    subprocess.run([GO, "test", "-count=1", "./..."], cwd=work, env=env, check=True, capture_output=True, timeout=600)
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    yield folder / "cache"
    shutil.rmtree(folder, ignore_errors=True)


def _toolchain(root: Path, cache: Path) -> dict:
    goroot = subprocess.run([GO, "env", "GOROOT"], capture_output=True, text=True, check=True).stdout.strip()
    return {"goroot": goroot, "gopath": str(root / "gopath"), "gocache": str(cache)}


@pytest.fixture
def module(warm_cache):
    """A module in a world-readable folder (the runner user must reach it): packages a (tests pass, fail, a
    table) and b (its test does not build)."""
    root = Path(tempfile.mkdtemp(prefix="r2e-go-"))
    root.chmod(0o755)
    ws = root / "ws"
    for rel, text in {"go.mod": "module example.com/m\n\ngo 1.21\n", "a/a.go": A_SRC, "a/a_test.go": A_TEST,
                      "b/b.go": "package b\n", "b/b_test.go": B_TEST}.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    for folder, dirs, files in os.walk(root):
        os.chmod(folder, 0o755)
    (root / "cache").symlink_to(warm_cache)
    yield ws
    shutil.rmtree(root, ignore_errors=True)


def _run(ws: Path, targets, runner_uid=None):
    toolchain = _toolchain(ws.parent, (ws.parent / "cache").resolve())
    code, seconds, events, tail = tv.run_go(str(ws), targets, 300, toolchain,
                                         runner_uid)
    notes = {}
    outcomes, errors, messages = tv.parse_go_events(events, str(ws), targets, notes)
    return code, outcomes, errors, messages, notes


def test_outcomes_node_ids_and_build_failures(module):
    code, outcomes, errors, messages, notes = _run(module, ["a/a_test.go", "b/b_test.go"])
    assert code == 1
    assert outcomes == {"a/a_test.go::TestDoubleTwo": "passed", "a/a_test.go::TestDoubleWrong": "failed",
                        "a/a_test.go::TestTable": "failed", "a/a_test.go::TestTable/two_words": "passed",
                        "a/a_test.go::TestTable/bad_case": "failed"}
    assert errors == ["b/b_test.go"] and "undefined: Missing" in messages["b/b_test.go"]
    assert notes["failures"]["a/a_test.go::TestDoubleWrong"] == "a_test.go:13: Double(3) = 6, want 7"


def test_whole_module_when_no_target(module):
    _, outcomes, errors, _, _ = _run(module, [])
    assert "a/a_test.go::TestDoubleTwo" in outcomes and errors == ["b/b_test.go"]


def test_sentinels_fail_and_are_named_from_the_file(module):
    original = (module / "a" / "a_test.go").read_text()
    rng = random.Random(7)
    planted = tv.plant_sentinels(str(module), ["a/a_test.go"], 3, rng)
    assert len(planted) == 3 and len(set(planted)) == 3
    assert all(p.startswith("a/a_test.go::Test") for p in planted)
    assert not set(planted) & {"a/a_test.go::TestDoubleTwo", "a/a_test.go::TestDoubleWrong", "a/a_test.go::TestTable"}
    _, outcomes, _, _, _ = _run(module, ["a/a_test.go"])
    assert [outcomes[p] for p in planted] == ["failed"] * 3
    # the same seed plants the same sentinels in the same file
    (module / "a" / "a_test.go").write_text(original)
    again = tv.plant_sentinels(str(module), ["a/a_test.go"], 3, random.Random(7))
    assert again == planted


def test_forged_reports_never_turn_a_failure_into_a_pass(module):
    forged = "\n".join(json.dumps(e) for e in [
        {"Action": "fail", "Package": "example.com/m/a", "Test": "TestDoubleWrong"},
        {"Action": "pass", "Package": "example.com/m/a", "Test": "TestDoubleWrong"}])
    outcomes, _, _ = tv.parse_go_events(forged + "\nnot json\n{broken", str(module))
    assert outcomes == {"a/a_test.go::TestDoubleWrong": "failed"}


def test_planted_test_files_and_go_work_are_removed(module):
    base = {"go.mod": "100644 blob x", "a/a.go": "100644 blob x", "a/a_test.go": "100644 blob x",
            "b/b.go": "100644 blob x", "b/b_test.go": "100644 blob x"}
    (module / "a" / "zz_main_test.go").write_text("package a\n")
    (module / "a" / "helper.go").write_text("package a\n")
    (module / "go.work").write_text("go 1.21\n")
    (module / "c").mkdir()
    (module / "c" / "go.mod").write_text("module x\n")
    assert tv.planted(str(module), base, ["a/new_test.go"]) == ["a/zz_main_test.go", "c/go.mod", "go.work"]


@pytest.mark.skipif(os.geteuid() != 0, reason="the runner user needs root to switch to")
def test_code_under_test_cannot_read_the_test_sources(module):
    """The binary runs after every _test.go was made root-only: a test (or the code under test) that opens one
    gets permission denied, and the modes are restored afterwards."""
    (module / "a" / "read_test.go").write_text(
        'package a\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestReadSource(t *testing.T) {\n'
        '\tif _, err := os.ReadFile("a_test.go"); err == nil {\n\t\tt.Fatal("the test source was readable")\n\t}\n}\n')
    _, outcomes, _, _, _ = _run(module, ["a/a_test.go", "a/read_test.go"], runner_uid=65534)
    assert outcomes["a/read_test.go::TestReadSource"] == "passed"
    assert outcomes["a/a_test.go::TestDoubleTwo"] == "passed"
    assert (module / "a" / "a_test.go").stat().st_mode & 0o777 == 0o644


def test_the_environment_is_built_from_nothing():
    env = tv.go_env({"goroot": "/g", "gopath": "/p"}, "/h", "/c")
    assert env["GOFLAGS"] == "-mod=readonly -buildvcs=false" and env["GOPROXY"] == "off"
    assert env["GOENV"] == "off" and env["GOWORK"] == "off" and env["GOTOOLCHAIN"] == "local"
    assert env["PATH"].startswith("/g/bin:") and env["GOCACHE"] == "/c" and env["HOME"] == "/h"


def test_a_test_that_panics_fails_and_tells_its_panic(module):
    (module / "a" / "panic_test.go").write_text(
        'package a\n\nimport "testing"\n\nfunc TestPanics(t *testing.T) {\n\tvar m map[string]int\n'
        '\tm["x"] = 1\n}\n\nfunc TestZAfter(t *testing.T) {}\n')
    _, outcomes, _, _, notes = _run(module, ["a/panic_test.go"])
    assert outcomes["a/panic_test.go::TestPanics"] == "failed"
    assert "a/panic_test.go::TestZAfter" not in outcomes  # never ran: absent, neither F2P nor P2P
    assert "assignment to entry in nil map" in notes["failures"]["a/panic_test.go::TestPanics"]
