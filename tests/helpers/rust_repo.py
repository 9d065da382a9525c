"""A cargo package with pull requests in its history, built by the tests (``build_rust_repo``), and what
pr_runtime must make of it (``EXPECTED_TASKS``, ``EXPECTED_SKIPS``).

====  ===========================================================  ======================================
PR    shape and change                                              expected outcome (pr_runtime)
====  ===========================================================  ======================================
#1    merge: clamp ignored the upper bound; new integration test    task: F2P tests/clamp.rs::above_range
#2    merge: README only                                            skipped: docs_ci_only
#3    squash: refactor add; its new test passes before              skipped: no_fail_to_pass
#4    squash: new parse_size with units; a table test in the        task: F2P the table test; the unit test
      unit-test module ``src/sizes/tests.rs``, which does not        the patch left alone PASS_TO_PASS
      build before the fix
#5    squash: sign(0) was 1; the fix and its unit test in one       task: F2P the new unit test; the file's
      file (``src/lib.rs``'s ``#[cfg(test)]`` module)                other unit tests PASS_TO_PASS
====  ===========================================================  ======================================

Rust test names are paths of identifiers (no spaces): a table test is one test, its rows told in its failure
message. The module ``sizes`` is behind the non-default feature ``sizes``: its tests compile (and #4 is a task)
only because the image and the grader build with ``--all-features`` when the base commit does. The integration tests use the crate ``itoa`` (a dev-dependency pinned by ``Cargo.lock``, resolved from
crates.io), so the image's crate download is exercised too.
"""

import subprocess
from pathlib import Path

from repo2env.sources.demo_repo import _Builder

EXPECTED_TASKS = {
    1: {"fail_to_pass": ["tests/clamp.rs::above_range"],
        "pass_to_pass": ["tests/clamp.rs::adds", "tests/clamp.rs::inside_range",
                         "tests/clamp.rs::printing::formats_with_itoa"]},
    4: {"fail_to_pass": ["src/lib.rs::sizes::tests::parse_size_units"],
        "pass_to_pass": ["src/lib.rs::sizes::tests::parse_plain_bytes", "src/lib.rs::tests::sign_of_positive"]},
    5: {"fail_to_pass": ["src/lib.rs::tests::sign_of_zero"],
        "pass_to_pass": ["src/lib.rs::sizes::tests::parse_plain_bytes", "src/lib.rs::sizes::tests::parse_size_units",
                         "src/lib.rs::tests::sign_of_positive"]},
}
EXPECTED_SKIPS = {2: "docs_ci_only", 3: "no_fail_to_pass"}

CARGO_TOML = """[package]
name = "rcalc"
version = "0.1.0"
edition = "2021"

[features]
sizes = []

[dev-dependencies]
itoa = "1"
"""

LIB_V1 = """//! Small arithmetic helpers.

#[cfg(feature = "sizes")]
pub mod sizes;

/// Returns `a + b`.
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Limits `x` to the range `[lo, hi]`.
pub fn clamp(x: i64, lo: i64, hi: i64) -> i64 {
    if x < lo {
        return lo;
    }
    x
}

/// The sign of `x`: -1, 0 or 1.
pub fn sign(x: i64) -> i64 {
    if x < 0 {
        -1
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_of_positive() {
        assert_eq!(sign(7), 1);
    }
}
"""
LIB_V2 = LIB_V1.replace("        return lo;\n    }\n    x\n", "        return lo;\n    }\n    if x > hi {\n"
                        "        return hi;\n    }\n    x\n")
LIB_V3 = LIB_V2.replace("    a + b\n", "    let sum = a + b;\n    sum\n")
LIB_V5 = LIB_V3.replace(
    "    } else {\n        1\n", "    } else if x == 0 {\n        0\n    } else {\n        1\n").replace(
    "        assert_eq!(sign(7), 1);\n    }\n",
    "        assert_eq!(sign(7), 1);\n    }\n\n    #[test]\n    fn sign_of_zero() {\n"
    "        assert_eq!(sign(0), 0);\n    }\n")

CLAMP_TEST_V1 = """use rcalc::{add, clamp};

#[test]
fn inside_range() {
    assert_eq!(clamp(5, 0, 10), 5);
}

mod printing {
    #[test]
    fn formats_with_itoa() {
        let mut buffer = itoa::Buffer::new();
        assert_eq!(buffer.format(rcalc::add(2, 3)), "5");
    }
}

#[test]
fn adds() {
    assert_eq!(add(2, 3), 5);
}
"""
CLAMP_TEST_V2 = CLAMP_TEST_V1 + """
#[test]
fn above_range() {
    assert_eq!(clamp(15, 0, 10), 10, "clamp(15, 0, 10)");
}
"""
CLAMP_TEST_V3 = CLAMP_TEST_V2 + """
#[test]
fn adds_negative_numbers() {
    assert_eq!(add(-2, -3), -5);
}
"""

SIZES_V1 = """//! Sizes in bytes.

/// Reads a plain count of bytes.
pub fn parse_plain(text: &str) -> Result<u64, String> {
    text.trim().parse().map_err(|_| format!("invalid size {:?}", text))
}

#[cfg(test)]
mod tests;
"""
SIZES_V2 = SIZES_V1.replace("#[cfg(test)]", """/// Reads a size with an optional `KB` or `MB` suffix.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    for (suffix, factor) in [("KB", 1024), ("MB", 1024 * 1024)] {
        if let Some(number) = text.strip_suffix(suffix) {
            return parse_plain(number).map(|n| n * factor);
        }
    }
    parse_plain(text)
}

#[cfg(test)]""")

SIZES_TESTS_V1 = """use super::*;

#[test]
fn parse_plain_bytes() {
    assert_eq!(parse_plain("512"), Ok(512));
}
"""
SIZES_TESTS_V2 = SIZES_TESTS_V1 + """
#[test]
fn parse_size_units() {
    for (text, want) in [("1 KB", 1024), ("2MB", 2 * 1024 * 1024)] {
        assert_eq!(parse_size(text), Ok(want), "parse_size({:?})", text);
    }
}
"""


def _cargo_lock(folder: Path) -> str:
    """``Cargo.lock`` of ``CARGO_TOML`` as ``cargo generate-lockfile`` writes it (from crates.io)."""
    (folder / "src").mkdir(parents=True, exist_ok=True)
    (folder / "Cargo.toml").write_text(CARGO_TOML)
    (folder / "src" / "lib.rs").write_text("")
    subprocess.run(["cargo", "generate-lockfile"], cwd=folder, check=True, capture_output=True, timeout=300)
    return (folder / "Cargo.lock").read_text()


def build_rust_repo(path: Path, scratch: Path) -> Path:
    """Create the Rust fixture repository at ``path`` (must not exist); ``scratch`` is a folder for
    ``cargo generate-lockfile``. Raises ``subprocess.CalledProcessError`` when crates.io cannot be reached."""
    path = Path(path)
    Path(scratch).mkdir(parents=True, exist_ok=True)
    lock = _cargo_lock(Path(scratch))
    path.mkdir(parents=True)
    b = _Builder(path)
    b.git("init", "-q", "--initial-branch=main")
    b.commit("Initial rcalc crate", {
        "Cargo.toml": CARGO_TOML, "Cargo.lock": lock, ".gitignore": "/target\n",
        "README.md": "# rcalc\n\nSmall arithmetic helpers.\n", "src/lib.rs": LIB_V1,
        "src/sizes.rs": SIZES_V1, "src/sizes/tests.rs": SIZES_TESTS_V1, "tests/clamp.rs": CLAMP_TEST_V1})
    b.merge_pr(1, "alice/clamp", "clamp ignores the upper bound",
               "clamp(15, 0, 10) returns 15. A value above the range should come back as the upper bound.",
               [("Clamp to the upper bound", {"src/lib.rs": LIB_V2, "tests/clamp.rs": CLAMP_TEST_V2})])
    b.merge_pr(2, "bob/docs", "Document clamp", "Explain what clamp returns.",
               [("Docs", {"README.md": "# rcalc\n\n`clamp(x, lo, hi)` limits x to [lo, hi].\n"})])
    b.commit("Refactor add and cover negative numbers (#3)\n\nadd now names its result; a new test covers negative "
             "operands, which already worked.", {"src/lib.rs": LIB_V3, "tests/clamp.rs": CLAMP_TEST_V3})
    b.commit("Parse sizes with unit suffixes (#4)\n\nOnly plain byte counts could be read: \"1 KB\" was rejected. "
             "Sizes with a KB or MB suffix, with or without a space, should be converted to bytes (1 KB = 1024 "
             "bytes) by a new parse_size.", {"src/sizes.rs": SIZES_V2, "src/sizes/tests.rs": SIZES_TESTS_V2})
    b.commit("Give zero its own sign (#5)\n\nsign(0) returned 1; zero has neither sign, so it should return 0.",
             {"src/lib.rs": LIB_V5})
    return path
