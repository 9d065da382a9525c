"""Rust's grader runner (graders/rust_runner.py, run by graders/toolchain_verifier.py) on real cargo runs with this
host's toolchain: node ids of unit and integration tests, build failures, sentinels, planted files and a report
that disagrees with the binary's exit status. That the code under test cannot read the test sources is proven in
Docker, where the runner user exists (the ``rust_code_forge`` probe, tests/pipelines/test_rust_docker.py)."""

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from repo2env.graders import rust_runner as rr

CARGO = shutil.which("cargo")
pytestmark = pytest.mark.skipif(CARGO is None, reason="no Rust toolchain on this host")

LIB = """pub fn double(x: i64) -> i64 { x * 2 }

pub mod inner {
    pub fn half(x: i64) -> i64 { x / 2 }

    #[cfg(test)]
    mod tests {
        #[test]
        fn half_of_four() {
            assert_eq!(super::half(4), 2);
        }
    }
}
"""
API = """#[test]
fn double_two() {
    assert_eq!(crate_under_test::double(2), 4);
}

#[test]
fn double_wrong() {
    assert_eq!(crate_under_test::double(3), 7, "double(3)");
}

#[test]
#[ignore]
fn slow() {}
"""


def _toolchain(tmp: Path) -> dict:
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout
    return {"rust": sysroot.strip(), "cargo_home": str(tmp / "no-home"), "target": str(tmp / "no-target"),
            "lock": str(tmp / "no-lock")}


@pytest.fixture
def crate(tmp_path):
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "tests").mkdir()
    (ws / "Cargo.toml").write_text('[package]\nname = "crate_under_test"\nversion = "0.1.0"\nedition = "2021"\n')
    (ws / "Cargo.lock").write_text('version = 4\n\n[[package]]\nname = "crate_under_test"\nversion = "0.1.0"\n')
    (ws / "src" / "lib.rs").write_text(LIB)
    (ws / "tests" / "api.rs").write_text(API)
    return ws, _toolchain(tmp_path)


def test_outcomes_of_unit_and_integration_tests(crate):
    ws, tc = crate
    code, _, outcomes, errors, _, notes, _ = rr.run(str(ws), [], 300, tc)
    assert code == 1 and errors == []
    assert outcomes == {"src/lib.rs::inner::tests::half_of_four": "passed", "tests/api.rs::double_two": "passed",
                        "tests/api.rs::double_wrong": "failed", "tests/api.rs::slow": "skipped"}
    said = notes["failures"]["tests/api.rs::double_wrong"]
    assert "panicked at tests/api.rs:8:5" in said and "left: 6" in said and "(" not in said.split("'")[2][:3]
    # a target selects its binary: the integration test alone
    _, _, only, _, _, _, _ = rr.run(str(ws), ["tests/api.rs"], 300, tc)
    assert set(only) == {"tests/api.rs::double_two", "tests/api.rs::double_wrong", "tests/api.rs::slow"}
    assert not (ws / "target").exists()  # the run builds in its own target folder


def test_a_target_that_does_not_build_is_a_collection_error(crate):
    ws, tc = crate
    (ws / "tests" / "api.rs").write_text(API + "\n#[test]\nfn new_api() { crate_under_test::triple(1); }\n")
    _, _, outcomes, errors, messages, _, _ = rr.run(str(ws), ["tests/api.rs"], 300, tc)
    assert errors == ["tests/api.rs"] and not any(k.startswith("tests/api.rs") for k in outcomes)
    assert "cannot find function `triple`" in messages["tests/api.rs"]


def test_sentinels_fail_and_are_told_apart_by_nothing(crate):
    ws, tc = crate
    planted = rr.plant_sentinels(str(ws), ["tests/api.rs", "src/lib.rs"], 3, random.Random(5))
    assert len(planted) == 3 and planted[0].startswith("tests/api.rs::") and planted[1].startswith("src/lib.rs::")
    _, _, outcomes, errors, _, _, _ = rr.run(str(ws), [], 300, tc)
    assert errors == [] and all(outcomes[s] == "failed" for s in planted)
    assert outcomes["tests/api.rs::double_two"] == "passed"


def test_module_path_at_a_line():
    lines = LIB.splitlines(True)
    at = next(n for n, line in enumerate(lines) if "#[test]" in line)
    assert rr.module_path_at(lines, at) == ["inner", "tests"]
    assert rr.module_path_at(lines, 1) == []


def test_a_report_that_disagrees_with_the_exit_status_passes_nothing():
    forged = '{ "type": "test", "event": "started", "name": "a" }\n{ "type": "test", "name": "a", "event": "ok" }\n'
    for code in (0, 101):
        failing = forged + '{ "type": "test", "name": "b", "event": "failed" }\n' if code == 0 else forged
        outcomes, _, _ = rr.parse_events([{"root": "tests/x.rs", "kind": "test", "code": code, "events": failing}],
                                         {}, "/nonexistent")
        assert outcomes["tests/x.rs::a"] == "failed"
    honest = forged + '{ "type": "test", "name": "b", "event": "failed" }\n'
    outcomes, _, _ = rr.parse_events([{"root": "tests/x.rs", "kind": "test", "code": 101, "events": honest}], {},
                                     "/nonexistent")
    assert outcomes == {"tests/x.rs::a": "passed", "tests/x.rs::b": "failed"}


def test_planted_files_and_ancestor_configuration(crate, tmp_path):
    ws, _ = crate
    (ws / ".cargo").mkdir()
    (ws / ".cargo" / "config.toml").write_text('[target.x86_64-unknown-linux-gnu]\nrunner = "/bin/true"\n')
    (ws / "build.rs").write_text("fn main() {}\n")
    (ws / "tests" / "extra.rs").write_text("#[test] fn x() {}\n")
    (ws / "src" / "config.toml").write_text("not cargo's\n")
    base = {"Cargo.toml": "", "Cargo.lock": "", "src/lib.rs": "", "tests/api.rs": ""}
    assert rr.planted(str(ws), base, []) == [".cargo/config.toml", "build.rs", "tests/extra.rs"]
    (tmp_path / ".cargo").mkdir()
    assert rr.clear_ancestors(str(ws)) == [str(tmp_path / ".cargo")] and not (tmp_path / ".cargo").exists()


def test_splice_resets_the_tests_and_keeps_the_agents_code():
    wanted = LIB.replace("assert_eq!(super::half(4), 2);", "assert_eq!(super::half(8), 4);")
    agent = LIB.replace("x / 2 }", "x >> 1 }").replace("assert_eq!(super::half(4), 2);", "assert!(true);")
    agent += "\n#[cfg(test)]\nmod mine {\n    #[test]\n    fn planted() {}\n}\n"
    spliced = rr.splice(agent.encode(), wanted.encode()).decode()
    assert "x >> 1 }" in spliced and "half(8), 4" in spliced  # the agent's code, the graded tests
    assert "assert!(true)" not in spliced and "mod mine" not in spliced  # its own tests replaced, its module gone
    # a file the agent removed gets the graded tests alone
    alone = wanted[wanted.index("    #[cfg(test)]"):].strip()[:-1].strip()
    assert rr.splice(None, wanted.encode()).decode().strip() == alone


def test_deny_warnings_of_an_older_commit_does_not_break_the_build(crate):
    ws, tc = crate
    (ws / "src" / "lib.rs").write_text("#![deny(warnings)]\n#[cfg(old_compiler_cfg)]\nfn unused() {}\n" + LIB)
    _, _, outcomes, errors, _, _, _ = rr.run(str(ws), ["tests/api.rs"], 300, tc)
    assert errors == [] and outcomes["tests/api.rs::double_two"] == "passed"


def test_sentinels_never_go_inside_a_macro_that_writes_tests(crate):
    ws, tc = crate
    macro = ("macro_rules! doubles {\n    ($name:ident, $x:expr) => {\n        #[test]\n        fn $name() {\n"
             "            assert_eq!(crate_under_test::double($x), $x * 2);\n        }\n    };\n}\n\n"
             "doubles!(doubles_one, 1);\n\n#[test]\nfn plain() {}\n")
    (ws / "tests" / "api.rs").write_text(macro)
    planted = rr.plant_sentinels(str(ws), ["tests/api.rs"], 3, random.Random(2))
    text = (ws / "tests" / "api.rs").read_text()
    assert text.index("macro_rules!") < text.index("};\n}\n") < min(text.index("fn " + p.rsplit("::", 1)[1])
                                                                     for p in planted)
    _, _, outcomes, errors, _, _, _ = rr.run(str(ws), ["tests/api.rs"], 300, tc)
    assert errors == [] and outcomes["tests/api.rs::doubles_one"] == "passed"
    assert all(outcomes[p] == "failed" for p in planted)
