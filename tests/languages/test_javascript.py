"""The JavaScript/TypeScript plugin without Docker: detection with its skip reasons, test files, the install
recipe as of the base commit's date, and the runners' JSON reports parsed into node ids."""

import json

from repo2env import languages
from repo2env.graders import js_runner
from repo2env.instructions.observed import Evidence
from repo2env.instructions.observed.test_output import observed_from_output
from tests.helpers.repos import commit_files


def _package(**deps):
    return json.dumps({"name": "p", "devDependencies": deps, "scripts": {"test": "x"}})


def test_detection_reads_package_json(new_repo):
    repo = new_repo("js")
    vitest = commit_files(repo, "v", {"package.json": _package(vitest="^2.0.0"), "src/a.ts": ""})
    language, found = languages.for_commit(repo, vitest)
    assert (language.name, found.supported) == ("javascript", True)
    assert language.grader_config(str(repo), vitest) == {"runner": "vitest"}
    berry = commit_files(repo, "b", {".yarnrc.yml": "nodeLinker: pnp\n", "yarn.lock": "__metadata:\n"})
    _, found = languages.for_commit(repo, berry)
    assert not found.supported and "Yarn Berry" in found.reason
    other = new_repo("ava")
    none = commit_files(other, "n", {"package.json": _package(ava="^6"), "index.js": ""})
    assert "no supported test runner" in (languages.for_commit(other, none)[1].reason or "")


def test_python_project_with_a_package_json_stays_python(new_repo):
    repo = new_repo("py")
    commit = commit_files(repo, "p", {"package.json": _package(webpack="^5"), "pyproject.toml": "", "pkg/a.py": ""})
    assert languages.for_commit(repo, commit)[0].name == "python"


def test_test_files_and_runnable_files():
    js = languages.load("javascript")
    for path in ("src/a.test.ts", "src/__tests__/a.js", "test/parse.js", "src/a.spec.tsx", "test/fixtures/x.json"):
        assert js.is_test_file(path), path
    assert not js.is_test_file("src/testing.ts") and not js.is_test_file("src/contest.js")
    assert js.is_runnable_test_file("test/parse.js", "describe('x', () => { it('y', () => {}) })")
    assert not js.is_runnable_test_file("test/helpers.js", "module.exports = {}")
    assert "jest.config.js" in js.test_config_names and "package.json" in js.test_config_names


def test_recipe_honours_the_lockfile_or_the_date(new_repo):
    repo = new_repo("js")
    plain = commit_files(repo, "p", {"package.json": _package(jest="^29")}, date="2025-02-03T04:05:06Z")
    js = languages.load("javascript")
    recipe = js.install_recipe(str(repo), plain, None)
    assert recipe.commands[0] == "npm install --no-audit --no-fund --before=2025-02-03T04:05:06Z"
    assert recipe.base_image.startswith("r2e/node:") and recipe.exclude_newer == "2025-02-03T04:05:06Z"
    locked = commit_files(repo, "l", {"package-lock.json": "{}"})
    assert js.install_recipe(str(repo), locked, None).commands[0] == "npm ci --no-audit --no-fund"


def test_jest_and_mocha_reports(tmp_path):
    jest = {"testResults": [
        {"name": "/w/src/a.test.js", "status": "failed", "assertionResults": [
            {"ancestorTitles": ["sum", "edge"], "title": "adds zero", "status": "passed"},
            {"ancestorTitles": ["sum"], "title": "adds two", "status": "failed", "failureMessages": ["\x1b[31mboom"]},
            {"ancestorTitles": [], "title": "later", "status": "pending"}]},
        {"name": "/w/src/b.test.js", "status": "failed", "message": "SyntaxError: x", "assertionResults": []}]}
    notes = {}
    outcomes, errors, messages = js_runner.parse_results("jest", json.dumps(jest), "/w", notes)
    assert outcomes == {"src/a.test.js::sum > edge > adds zero": "passed", "src/a.test.js::sum > adds two": "failed",
                        "src/a.test.js::later": "skipped"}
    assert errors == ["src/b.test.js"] and messages["src/b.test.js"] == "SyntaxError: x"
    assert notes["failures"] == {"src/a.test.js::sum > adds two": "boom"}
    mocha = {"passes": [{"title": "t", "fullTitle": "suite t", "file": "/w/test/a.js"}],
             "failures": [{"title": "u", "fullTitle": "suite u", "file": "/w/test/a.js", "err": {"message": "no"}},
                          {"title": "t", "fullTitle": "suite t", "file": "/w/test/a.js", "err": {}}],
             "pending": []}
    outcomes, _, _ = js_runner.parse_results("mocha", json.dumps(mocha), "/w")
    assert outcomes == {"test/a.js::suite t": "failed", "test/a.js::suite u": "failed"}  # the worst report wins


def test_sentinels_assert_the_way_the_file_does(tmp_path):
    import random

    (tmp_path / "a.test.js").write_text("const { expect, it } = require('vitest');\nit('adds two numbers', () => "
                                        "{ expect(1).toBe(1) });\n")
    (tmp_path / "b.test.js").write_text("const assert = require('assert');\ntest('parses sizes', () => "
                                        "{ assert.strictEqual(1, 1) });\n")
    planted = js_runner.plant_sentinels(str(tmp_path), ["a.test.js", "b.test.js"], 2, random.Random(3))
    assert [p.split("::")[0] for p in planted] == ["a.test.js", "b.test.js"]
    a, b = (tmp_path / "a.test.js").read_text(), (tmp_path / "b.test.js").read_text()
    assert "\nit(" in a and ").toBe(" in a.split("\nit(")[-1]
    assert "\ntest(" in b and "assert.strictEqual(" in b.split("\ntest(")[-1]
    assert all(set(p.split("::")[1].split()) <= {"adds", "two", "numbers", "parses", "sizes"} for p in planted)


def test_planted_config_and_tests_are_removed(tmp_path):
    for rel in ("src/a.ts", "src/a.test.ts", "vitest.config.ts", "src/zz.test.ts", "jest.config.js",
                "node_modules/x/a.test.js", "src/helper.ts"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    base = {"src/a.ts": "", "src/a.test.ts": "", "vitest.config.ts": ""}
    assert js_runner.planted(str(tmp_path), base, []) == ["jest.config.js", "src/zz.test.ts"]


def test_observed_vitest_and_jest_failures():
    source = "import { it, expect } from 'vitest'\nit('x', () => {\n  expect(area(2, 3)).toBe(6)\n})\n"
    vitest = Evidence(failures={"t/a.test.ts::x": "AssertionError: expected 5 to be 6 // Object.is equality\n"
                                                  "    at /workspace/t/a.test.ts:3:22"},
                      import_errors={}, fail_to_pass=("t/a.test.ts::x",), test_sources={"t/a.test.ts": source})
    assert observed_from_output(vitest) == ["Calling `area(2, 3)` returns `5`, which is not the correct result."]
    jest = Evidence(failures={"t/a.test.ts::x": "expect(received).toBe(expected)\n\nExpected: 6\nReceived: 5\n\n"
                                                "    at Object.<anonymous> (t/a.test.ts:3:22)"},
                    import_errors={}, fail_to_pass=("t/a.test.ts::x",), test_sources={"t/a.test.ts": source})
    assert observed_from_output(jest) == ["Calling `area(2, 3)` returns `5`, which is not the correct result."]


def test_observed_thrown_errors_of_an_arrow_function():
    source = "it('x', () => {\n  expect(() => parse(\"/foo\\\\\")).toThrow(\n    new PathError('x'),\n  );\n});\n"
    def seen(message):
        return Evidence(failures={"t/a.spec.ts::x": message + "\n    at /workspace/t/a.spec.ts:2:37"},
                        import_errors={}, fail_to_pass=("t/a.spec.ts::x",), test_sources={"t/a.spec.ts": source})
    assert observed_from_output(seen("AssertionError: expected function to throw an error, but it didn't")) == [
        'Calling `parse` with `"/foo\\\\"` does not throw an error; it should throw one.']
    assert observed_from_output(seen("AssertionError: expected a thrown error to be TypeError: Unexpected end")) == [
        'Calling `parse` with `"/foo\\\\"` throws a different error than expected.']


def test_what_node_would_read_above_the_workspace_is_removed(tmp_path):
    workspace = tmp_path / "a" / "workspace"
    (workspace / "node_modules" / "vitest").mkdir(parents=True)
    (tmp_path / "node_modules" / "supports-color").mkdir(parents=True)
    (tmp_path / "a" / "tsconfig.json").write_text("{}")
    removed = js_runner.clear_ancestors(str(workspace))
    assert sorted(removed) == [str(tmp_path / "a" / "tsconfig.json"), str(tmp_path / "node_modules")]
    assert (workspace / "node_modules" / "vitest").is_dir()


def test_sentinels_clone_the_files_own_expectations(tmp_path):
    import random

    (tmp_path / "c.test.ts").write_text('import { clamp } from "./clamp";\ndescribe("clamp", () => {\n'
                                        '  it("keeps a value inside", () => {\n'
                                        '    expect(clamp(5, 0, 10)).toBe(5);\n  });\n});\n')
    [node] = js_runner.plant_sentinels(str(tmp_path), ["c.test.ts"], 1, random.Random(1))
    text = (tmp_path / "c.test.ts").read_text()
    assert node.startswith("c.test.ts::clamp > ") and "expect(clamp(5, 0, 10)).toBe(" in text.split("\n")[3]
    assert text.count("expect(clamp(5, 0, 10)).toBe(5);") == 1  # the sentinel expects another value


def test_the_test_script_decides_the_runner(new_repo):
    repo = new_repo("js")
    node_test = commit_files(repo, "n", {"package.json": json.dumps(
        {"devDependencies": {"jest": "^29"}, "scripts": {"test": "node --test dist/test/*.js"}}), "a.js": ""})
    found = languages.for_commit(repo, node_test)[1]
    assert not found.supported and "node --test on built files (dist/test/*.js)" in found.reason
    own = commit_files(repo, "o", {"package.json": json.dumps({"devDependencies": {"tsx": "^4"}, "scripts": {
        "test": "cross-env TZ=UTC node --import tsx --test --test-reporter=spec test/*.test.ts && tsc"}})})
    assert languages.for_commit(repo, own)[1].supported
    assert languages.load("javascript").grader_config(str(repo), own) == {"runner": "node:test",
                                                                           "runner_flags": ["--import", "tsx"]}
    wrapped = commit_files(repo, "w", {"package.json": json.dumps({"scripts": {  # bench-node: behind c8
        "test": "c8 node --test --allow-natives-syntax --expose-gc && npm run lint:ci"}})})
    assert languages.load("javascript").grader_config(str(repo), wrapped)["runner_flags"] == [
        "--allow-natives-syntax", "--expose-gc"]
    mocha = commit_files(repo, "m", {"package.json": json.dumps(
        {"devDependencies": {"jest": "^29", "mocha": "^10"}, "scripts": {"test": "mocha test/"}})})
    assert languages.load("javascript").grader_config(str(repo), mocha) == {"runner": "mocha"}


def test_mocha_sentinel_ids_are_its_full_titles(tmp_path):
    import random

    (tmp_path / "t.js").write_text("describe('picomatch', () => {\n  it('matches stars', () => {\n"
                                   "    assert.strictEqual(1, 1);\n  });\n});\n")
    nodes = js_runner.plant_sentinels(str(tmp_path), ["t.js"], 3, random.Random(2), runner="mocha")
    assert any(n.startswith("t.js::picomatch ") and " > " not in n for n in nodes)


def test_node_test_runs_report_nested_names_skips_and_files_that_do_not_load(tmp_path):
    """The host's Node.js runs node:test files through the grader's reporter module; a suite is no test, a parent
    test with subtests is one, ``skip``/``todo`` are skipped, a file that does not load is a collection error
    carrying what it wrote to stderr, and the failure message is the assertion's."""
    import os
    import shutil

    node = os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("node"))))
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "a.test.mjs").write_text(
        'import { describe, it, test } from "node:test";\nimport assert from "node:assert/strict";\n'
        'describe("outer", () => {\n  describe("in ner", () => {\n    it("adds 1 and 1", () => '
        'assert.equal(1 + 1, 3));\n  });\n  it.skip("skipped one", () => {});\n  it.todo("later");\n});\n'
        'test("with sub", async (t) => { await t.test("sub a", () => {}); });\n')
    (tmp_path / "test" / "b.test.mjs").write_text('import "./missing.mjs";\n')
    code, _, outcomes, errors, messages, notes, _ = js_runner.run(
        str(tmp_path), ["test/a.test.mjs", "test/b.test.mjs"], 60, {"node": node, "runner": "node:test"})
    assert code == 1 and outcomes == {
        "test/a.test.mjs::outer > in ner > adds 1 and 1": "failed", "test/a.test.mjs::outer > skipped one": "skipped",
        "test/a.test.mjs::outer > later": "skipped", "test/a.test.mjs::with sub > sub a": "passed",
        "test/a.test.mjs::with sub": "passed"}
    assert errors == ["test/b.test.mjs"] and "missing.mjs" in messages["test/b.test.mjs"]
    assert "2 !== 3" in notes["failures"]["test/a.test.mjs::outer > in ner > adds 1 and 1"]


def test_sentinels_never_clone_a_line_that_reads_a_tests_own_variable(tmp_path):
    """commander.js: a clone of ``expect(program.configureOutput()).toEqual(x)`` fails with a ReferenceError
    outside its test, whatever ``expect`` does, so code that neutered ``expect`` went unseen; only a call from a
    name the file binds at its top is cloned."""
    import random

    local = ('const { Command } = require("../");\n\ntest("a", () => {\n  const program = new Command();\n'
             '  expect(program.configureOutput()).toEqual(1);\n});\n')
    (tmp_path / "a.test.js").write_text(local)
    js_runner.plant_sentinels(str(tmp_path), ["a.test.js"], 1, random.Random(3))
    assert (tmp_path / "a.test.js").read_text().count("expect(program.configureOutput())") == 1
    top = 'const { parse } = require("../");\n\ntest("b", () => {\n  expect(parse("1")).toBe(1);\n});\n'
    (tmp_path / "b.test.js").write_text(top)
    js_runner.plant_sentinels(str(tmp_path), ["b.test.js"], 1, random.Random(3))
    assert (tmp_path / "b.test.js").read_text().count('expect(parse("1")).toBe(') == 2
