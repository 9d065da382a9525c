"""The Rust language plugin without Docker: detection, the test/gold split on a real git repository, the install
recipe, the selection rule for tests whose target did not build, and the observed behaviour read from libtest's
and rustc's output."""

from repo2env import languages
from repo2env.changes.patches import split_change
from repo2env.core.records import RepoEnvConfig, TestRun, TestSelection
from repo2env.instructions.observed import Evidence
from repo2env.instructions.observed.test_output import observed_from_output
from repo2env.languages.rust.files import function_source
from tests.helpers.repos import commit_files, git


def test_detection():
    language, found = languages.detect({"Cargo.toml", "Cargo.lock", "src/lib.rs"})
    assert (language.name, found.supported, found.evidence) == ("rust", True, ("Cargo.toml", "Cargo.lock"))
    # a Python package built from Rust (maturin, PyO3) is graded by its Python tests
    assert languages.detect({"Cargo.toml", "pyproject.toml", "src/lib.rs", "python/pkg/__init__.py"})[0].name == \
        "python"


def test_test_files_and_split(new_repo):
    repo = new_repo("rust")
    base = commit_files(repo, "base", {"Cargo.toml": "[package]\nname = \"x\"\n", "src/lib.rs": "pub fn f() {}\n",
                                       "src/a/tests.rs": "", "tests/api.rs": ""})
    head = commit_files(repo, "fix", {"src/lib.rs": "pub fn f() -> i32 { 1 }\n",
                                      "src/a/tests.rs": "#[test]\nfn t() {}\n", "tests/api.rs": "#[test] fn x() {}\n",
                                      "tests/fixtures/in.txt": "x\n", "README.md": "# x\n", "benches/b.rs": ""})
    rust = languages.load("rust")
    split = split_change(repo, base, head, rust.is_test_file)
    assert split.test_files == ("src/a/tests.rs", "tests/api.rs", "tests/fixtures/in.txt")
    assert split.source_files == ("benches/b.rs", "src/lib.rs") and split.docs_ci_files == ("README.md",)
    assert rust.is_runnable_test_file("tests/api.rs", "#[test] fn x() {}\n")
    assert not rust.is_runnable_test_file("tests/common/mod.rs", "pub fn helper() {}\n")
    assert not rust.is_runnable_test_file("tests/fixtures/in.txt")
    assert {"Cargo.toml", "Cargo.lock", "build.rs"} <= set(rust.test_config_names)


def test_recipe_with_and_without_a_lockfile(new_repo):
    repo = new_repo("rust")
    unlocked = commit_files(repo, "base", {"Cargo.toml": "[package]\nname = \"x\"\n"})
    rust = languages.load("rust")
    recipe = rust.install_recipe(str(repo), unlocked, None)
    assert recipe.base_image.startswith("r2e/rust:") and recipe.source == "detected:Cargo.toml"
    assert "cargo generate-lockfile" in recipe.commands and "cargo fetch --locked" in recipe.commands
    assert recipe.env["CARGO_HOME"] == "/opt/r2e/cargo" and "CARGO_TARGET_DIR" not in recipe.env
    assert any("CARGO_TARGET_DIR=/opt/r2e/cargo-target cargo test --no-run" in c for c in recipe.commands)
    locked = commit_files(repo, "lock", {"Cargo.lock": "version = 4\n"})
    pinned = rust.install_recipe(str(repo), locked, RepoEnvConfig(toolchain="1.80"))
    assert pinned.base_image == "r2e/rust:1.80" and "cargo generate-lockfile" not in pinned.commands


def test_unchanged_tests_of_a_target_that_did_not_build_pass_to_pass(new_repo):
    repo = new_repo("rust")
    old = "#[test]\nfn old_case() {\n    assert_eq!(parse(\"1\"), Ok(1));\n}\n"
    new = "\n#[test]\nfn new_case() {\n    assert_eq!(parse_size(\"1 KB\"), Ok(1024));\n}\n"
    base = commit_files(repo, "base", {"src/lib.rs": "mod tests;\n", "src/tests.rs": old})
    head = commit_files(repo, "fix", {"src/tests.rs": old + new})

    before = [TestRun(label="before", outcomes={}, collection_errors=("src/lib.rs", "src/tests.rs"), exit_code=1,
                      seconds=1)] * 2
    selection = TestSelection(fail_to_pass=("src/lib.rs::tests::new_case", "src/lib.rs::tests::old_case"),
                              pass_to_pass=(), flaky=())
    refined = languages.load("rust").refine_selection(str(repo), base, head, selection, before)
    assert refined.fail_to_pass == ("src/lib.rs::tests::new_case",)
    assert refined.pass_to_pass == ("src/lib.rs::tests::old_case",)
    assert function_source("fn a() { let s = \"}\"; }\nfn b() {}", "a") == "fn a() { let s = \"}\"; }"


def test_observed_behaviour_from_libtest_and_rustc():
    source = "use rcalc::clamp;\n\n#[test]\nfn above_range() {\n    assert_eq!(clamp(15, 0, 10), 10);\n}\n"
    failure = ("thread 'above_range' panicked at tests/clamp.rs:5:5:\nassertion `left == right` failed\n"
               "  left: 15\n right: 10")
    evidence = Evidence(failures={"tests/clamp.rs::above_range": failure}, import_errors={},
                        fail_to_pass=("tests/clamp.rs::above_range",), test_sources={"tests/clamp.rs": source})
    said = observed_from_output(evidence)
    assert said == ["Calling `clamp` with `15`, `0` and `10` returns `15`, which is not the correct result."]
    build = "error[E0425]: cannot find function `parse_size` in this scope\n --> src/sizes/tests.rs:10:20"
    evidence = Evidence(failures={}, import_errors={"src/lib.rs": build}, fail_to_pass=("src/lib.rs::tests::units",),
                        test_sources={"src/sizes/tests.rs": "#[test]\nfn units() {}\n"})
    assert observed_from_output(evidence) == ["The crate has no `parse_size`; it should provide it."]
    panic = "thread 'x' panicked at src/lib.rs:3:9:\nindex out of bounds: the len is 3 but the index is 3"
    evidence = Evidence(failures={"tests/a.rs::x": panic}, import_errors={}, fail_to_pass=("tests/a.rs::x",),
                        test_sources={"tests/a.rs": "#[test]\nfn x() { rcalc::get(3); }\n"})
    assert observed_from_output(evidence) == ["The code panics with `index out of bounds: the len is 3 but the index "
                                              "is 3`; it should not panic."]


def test_a_fix_and_its_unit_test_in_one_file_split_apart(new_repo, tmp_path):
    code = "pub fn sign(x: i64) -> i64 {\n    if x < 0 { -1 } else { 1 }\n}\n"
    tests = ("\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn positive() {\n"
             "        assert_eq!(sign(7), 1);\n    }\n}\n")
    fixed = code.replace("else { 1 }", "else if x == 0 { 0 } else { 1 }")
    new_tests = tests.replace("    }\n}\n",
                              "    }\n\n    #[test]\n    fn zero() {\n        assert_eq!(sign(0), 0);\n    }\n}\n")
    repo = new_repo("rust")
    base = commit_files(repo, "base", {"Cargo.toml": "[package]\nname = \"x\"\n", "src/lib.rs": code + tests,
                                       "src/only_tests.rs": "pub fn f() {}\n" + tests})
    head = commit_files(repo, "fix", {"src/lib.rs": fixed + new_tests,
                                      "src/only_tests.rs": "pub fn f() {}\n" + new_tests})
    rust = languages.load("rust")
    split = split_change(repo, base, head, rust.is_test_file, rust.split_source)
    assert split.mixed_files == ("src/lib.rs", "src/only_tests.rs") and split.test_files == ()
    assert split.source_files == ("src/lib.rs",)  # only_tests.rs has no code change
    assert "x == 0" in split.gold_patch and "fn zero" not in split.gold_patch and "only_tests" not in split.gold_patch
    assert "fn zero" in split.test_patch and "x == 0" not in split.test_patch
    # the gold patch applies to the base commit, and the test patch on top of it gives the head commit
    git(repo, "checkout", "-q", base)
    (tmp_path / "gold.diff").write_text(split.gold_patch)
    (tmp_path / "test.diff").write_text(split.test_patch)
    git(repo, "apply", str(tmp_path / "gold.diff"))
    assert (repo / "src" / "lib.rs").read_text() == fixed + tests
    git(repo, "apply", str(tmp_path / "test.diff"))
    assert (repo / "src" / "lib.rs").read_text() == fixed + new_tests
    assert (repo / "src" / "only_tests.rs").read_text() == "pub fn f() {}\n" + new_tests

