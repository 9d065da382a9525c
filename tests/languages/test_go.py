"""The Go language plugin without Docker: detection, the test/gold split on a real git repository, the install
recipe, and the observed behaviour read from Go's test output."""

import pytest

from repo2env import languages
from repo2env.changes.patches import split_change
from repo2env.core.records import RepoEnvConfig
from repo2env.instructions.actionability import stated
from repo2env.instructions.observed import Evidence
from repo2env.instructions.observed.test_output import observed_from_output
from tests.helpers.repos import commit_files, git


def test_detection_and_skip_reason():
    language, found = languages.detect({"go.mod", "go.sum", "pkg/a.go", "tools/gen.py"})
    assert (language.name, found.supported, found.evidence) == ("go", True, ("go.mod",))
    language, found = languages.detect({"svc/go.mod", "svc/main.go"})
    assert language.name == "go" and not found.supported and "svc/go.mod" in found.reason
    assert languages.detect({"pyproject.toml", "pkg/x.py"})[0].name == "python"


def test_test_files_and_split(new_repo):
    repo = new_repo("go")
    base = commit_files(repo, "base", {"go.mod": "module m\n\ngo 1.21\n", "a/a.go": "package a\n",
                                       "a/a_test.go": "package a\n"})
    head = commit_files(repo, "fix", {"a/a.go": "package a\n\nfunc F() {}\n",
                                      "a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {}\n",
                                      "a/testdata/in.txt": "x\n", "docs/a.md": "# a\n"})
    go = languages.load("go")
    split = split_change(repo, base, head, go.is_test_file)
    assert split.test_files == ("a/a_test.go", "a/testdata/in.txt")
    assert split.source_files == ("a/a.go",) and split.docs_ci_files == ("docs/a.md",)
    assert go.is_runnable_test_file("a/a_test.go", git(repo, "show", f"{head}:a/a_test.go"))
    assert not go.is_runnable_test_file("a/a_test.go", "package a\n")  # no test declared
    assert not go.is_runnable_test_file("a/testdata/in.txt")
    assert set(go.test_config_names) == {"go.mod", "go.sum", "go.work", "go.work.sum"}


def test_recipe_image_and_override(new_repo):
    repo = new_repo("go")
    commit = commit_files(repo, "base", {"go.mod": "module m\n\ngo 1.22\n"})
    go = languages.load("go")
    recipe = go.install_recipe(str(repo), commit, None)
    assert recipe.base_image.startswith("r2e/go:") and recipe.source == "detected:go.mod"
    assert "go mod download" in recipe.commands and recipe.env["GOPROXY"] == "https://proxy.golang.org"
    assert "GOCACHE" not in recipe.env and recipe.exclude_newer is None  # the agent never writes the grader's cache
    assert any("GOCACHE=/opt/r2e/gocache go test" in c for c in recipe.commands)
    pinned = go.install_recipe(str(repo), commit, RepoEnvConfig(toolchain="1.22", env={"GOEXPERIMENT": "x"}))
    assert pinned.base_image == "r2e/go:1.22" and pinned.env["GOEXPERIMENT"] == "x"


def _evidence(failures, sources=None, errors=None, f2p=None):
    return Evidence(failures=failures, import_errors=errors or {}, fail_to_pass=tuple(f2p or failures),
                    test_sources=sources or {})


def test_observed_wrong_value_told_with_its_call():
    seen = _evidence({"s/s_test.go::TestUnits/one": 's_test.go:24: ParseSize("1 KB") = 0, invalid; want 1024'})
    [said] = observed_from_output(seen)
    assert said == 'Calling `ParseSize("1 KB")` returns `0, invalid`, which is not the correct result.'
    assert stated(said) == ["input", "behaviour", "expectation"]


def test_expected_values_told_when_more_checks_fail_than_are_told():
    failures = {f"p/p_test.go::TestF/c{i}": f"p_test.go:9: Parse({i}) = {i}, want {i + 1}" for i in range(4)}
    said = observed_from_output(_evidence(failures))
    assert said[0] == "Calling `Parse(0)` returns `0`; it should return `1`." and len(said) == 3


def test_a_call_copied_from_a_test_line_is_told_by_its_arguments():
    source = "func TestClampAbove(t *testing.T) {\n\tif got := Clamp(15, 0, 10); got != 10 {\n"
    seen = _evidence({"c/c_test.go::TestClampAbove": "c_test.go:3: Clamp(15, 0, 10) = 15, want 10"},
                     {"c/c_test.go": source})
    assert observed_from_output(seen) == ["Calling `Clamp` with `15`, `0` and `10` returns `15`, which is not the "
                                          "correct result."]


def test_test_helpers_and_names_are_never_told():
    source = "func checkSize(t *testing.T, in string) {}\nfunc TestSize(t *testing.T) {}\n"
    seen = _evidence({"s/s_test.go::TestSize": 's_test.go:3: checkSize("x") = 1, want 2'}, {"s/s_test.go": source})
    assert observed_from_output(seen) == []


def test_errors_panics_and_missing_names():
    seen = _evidence({
        "a/a_test.go::TestLoad": 'a_test.go:8: Load("cfg.toml") returned error: unexpected key "x"',
        "a/a_test.go::TestIndex": "panic: runtime error: index out of range [3] with length 3 [recovered]\n"
                                  "goroutine 7 [running]:\nexample.com/m/a.Index(...)\n\t/workspace/a/a.go:9"})
    assert observed_from_output(seen) == [
        'Calling `Load("cfg.toml")` returns the error `unexpected key "x"`; it should succeed.',
        "Calling `Index` panics with `runtime error: index out of range [3] with length 3`; it should not panic."]
    built = _evidence({}, errors={"sizes/sizes_test.go": "./sizes_test.go:12:9: undefined: ParseSizes"},
                      f2p=["sizes/sizes_test.go::TestParseSizes"])
    assert observed_from_output(built) == ["The package `sizes` has no `ParseSizes`; it should provide it."]


@pytest.mark.parametrize("message", ["a_test.go:3: got 1, want 2", "a_test.go:3: something went wrong"])
def test_nothing_is_told_without_a_call(message):
    assert observed_from_output(_evidence({"a/a_test.go::TestX": message})) == []


def test_signature_errors_and_bare_expected_got():
    seen = _evidence({"c/c_test.go::TestV": 'c_test.go:9: Expected "a is less than b", got "a < b"'},
                     errors={"c/c_test.go": "./c_test.go:212:22: too many arguments in call to c.check\n"
                                            "\thave (*Version, bool)\n\twant (*Version)"})
    assert observed_from_output(seen) == [
        "`check` cannot be called with `(*Version, bool)`: it takes `(*Version)`; it should accept "
        "`(*Version, bool)`.", 'A result comes out as `"a < b"`, which is not the correct result.']


def test_more_go_messages():
    seen = _evidence({"d/d_test.go::TestN": 'd_test.go:9: got an err: strconv.ParseInt: parsing "9": value out of '
                                            'range',
                      "d/d_test.go::TestM": 'd_test.go:12: expect "map[Username:Joe]", got: map[:Joe]'},
                     errors={"d/d_test.go": "./d_test.go:5:3: unknown field MatchName in struct literal of type "
                                            "DecoderConfig"})
    assert observed_from_output(seen) == [
        "The type `DecoderConfig` has no field `MatchName`; it should provide it.",
        'The operation fails with the error `strconv.ParseInt: parsing "9": value out of range`; it should succeed.',
        "A result comes out as `map[:Joe]`, which is not the correct result."]


def test_tests_that_only_failed_to_build_are_pass_to_pass(new_repo):
    from repo2env.core.records import TestRun, TestSelection

    repo = new_repo("go")
    old = "package a\n\nimport \"testing\"\n\nfunc TestOld(t *testing.T) {\n\tt.Log(1)\n}\n"
    base = commit_files(repo, "b", {"go.mod": "module m\n", "a/a_test.go": old + "\nfunc TestEdited(t *testing.T) {}\n"})
    head = commit_files(repo, "h", {"a/a_test.go": old + "\nfunc TestEdited(t *testing.T) {\n\tNew()\n}\n"
                                    "\nfunc TestNew(t *testing.T) {\n\tNew()\n}\n"})
    before = [TestRun(label="before", outcomes={}, collection_errors=("a/a_test.go",), exit_code=1, seconds=1)]
    selection = TestSelection(fail_to_pass=("a/a_test.go::TestEdited", "a/a_test.go::TestNew", "a/a_test.go::TestOld"),
                              pass_to_pass=(), flaky=())
    refined = languages.load("go").refine_selection(str(repo), base, head, selection, before)
    assert refined.fail_to_pass == ("a/a_test.go::TestEdited", "a/a_test.go::TestNew")
    assert refined.pass_to_pass == ("a/a_test.go::TestOld",)


def test_a_missing_toolchain_image_is_its_own_skip_reason():
    from types import SimpleNamespace

    from repo2env.environment.ladder import Attempt, EnvironmentSearch

    search = EnvironmentSearch.__new__(EnvironmentSearch)
    search.ctx, search.why = SimpleNamespace(), ""
    search.attempts = [Attempt(rung="go 1.22", python="3.12", outcome="python_unavailable",
                               detail="no base image r2e/go:1.22", base_image="r2e/go:1.22")]
    skip = search.give_up()
    assert skip.reason == "toolchain_unavailable" and "r2e/go:1.22" in skip.detail
    search.attempts = [Attempt(rung="3.9", python="3.9", outcome="python_unavailable", detail="no base image x")]
    assert search.give_up().reason == "python_unavailable"
