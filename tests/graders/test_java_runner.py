"""Java's grader runner (graders/java_runner.py, run by graders/toolchain_verifier.py) on real Maven runs with this
host's JDK and Maven (plugins and JUnit from Maven Central into a local repository of the test session): node ids
of plain, nested and parameterized JUnit 5 tests, a test class that does not compile, sentinels in the file's own
style, planted files, and reports that disagree with what Maven printed. The runner user and the image's toolchain
are proven in Docker (tests/pipelines/test_java_docker.py)."""

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from repo2env.graders import java_runner as jr
from tests.helpers.java_repo import POM

MVN, JAVAC = shutil.which("mvn"), shutil.which("javac")
pytestmark = pytest.mark.skipif(MVN is None or JAVAC is None, reason="no JDK with Maven on this host")

CALC = """package com.example.calc;

public final class Calc {
    public static int clamp(int x, int lo, int hi) {
        return x < lo ? lo : x;
    }
}
"""
CALC_TEST = """package com.example.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CalcTest {
    @Test
    void clampInside() {
        assertEquals(5, Calc.clamp(5, 0, 10));
    }

    @Test
    void clampAbove() {
        assertEquals(10, Calc.clamp(15, 0, 10));
    }

    @Test
    @Disabled("slow")
    void slow() {
    }

    @ParameterizedTest(name = "{0} becomes {1}")
    @CsvSource({"-3, 0", "20, 10"})
    void clampMany(int x, int want) {
        assertEquals(want, Calc.clamp(x, 0, 10));
    }

    @Nested
    class Below {
        @Test
        void clampBelow() {
            assertEquals(0, Calc.clamp(-3, 0, 10));
        }
    }
}
"""
TEST = "src/test/java/com/example/calc/CalcTest.java"
ID = TEST + "::CalcTest::"


def _toolchain(m2: Path) -> dict:
    java_home = Path(subprocess.run(["readlink", "-f", JAVAC], capture_output=True, text=True).stdout.strip())
    java_home = java_home.parents[1]
    maven_home = subprocess.run([MVN, "-v"], capture_output=True, text=True).stdout
    maven_home = next(ln.split(": ", 1)[1] for ln in maven_home.splitlines() if ln.startswith("Maven home: "))
    return {"java_home": str(java_home), "maven_home": maven_home, "m2": str(m2)}


@pytest.fixture(scope="module")
def warm_m2(tmp_path_factory):
    """A local repository with the fixture's plugins and JUnit, filled once from Maven Central the way the image's
    install fills its own (``recipe.NO_TEST``)."""
    from repo2env.languages.java.recipe import NO_TEST

    root = tmp_path_factory.mktemp("m2")
    ws = _project(root / "ws")
    subprocess.run([MVN, "-q", "-Dmaven.repo.local=" + str(root / "m2"), *jr.MAVEN_FLAGS, "-Dtest=" + NO_TEST,
                    "-DfailIfNoTests=false", "-Dsurefire.failIfNoSpecifiedTests=false", "test"], cwd=ws, check=True,
                   capture_output=True, timeout=900)
    return root / "m2"


def _project(ws: Path) -> Path:
    (ws / "src/main/java/com/example/calc").mkdir(parents=True)
    (ws / "src/test/java/com/example/calc").mkdir(parents=True)
    (ws / "pom.xml").write_text(POM)
    (ws / "src/main/java/com/example/calc/Calc.java").write_text(CALC)
    (ws / TEST).write_text(CALC_TEST)
    return ws


@pytest.fixture
def project(tmp_path, warm_m2):
    return _project(tmp_path / "ws"), _toolchain(warm_m2)


def test_outcomes_of_plain_nested_and_parameterized_tests(project):
    ws, tc = project
    code, _, outcomes, errors, _, notes, _ = jr.run(str(ws), [TEST], 600, tc)
    assert code == 0 and errors == []
    assert outcomes == {ID + "clampInside": "passed", ID + "clampAbove": "failed", ID + "slow": "skipped",
                        ID + "clampMany(int, int)[1]": "passed", ID + "clampMany(int, int)[2]": "failed",
                        TEST + "::CalcTest$Below::clampBelow": "passed"}
    said = notes["failures"][ID + "clampAbove"]
    assert said.startswith("org.opentest4j.AssertionFailedError: expected: <10> but was: <15>")
    assert said.splitlines()[-1].strip() == "at com.example.calc.CalcTest.clampAbove(CalcTest.java:19)"


def test_a_test_class_that_does_not_compile_is_a_collection_error(project):
    ws, tc = project
    (ws / TEST).write_text(CALC_TEST.replace("    @Nested", "    @Test\n    void lerp() {\n        Calc.lerp(1.0);\n"
                                                          "    }\n\n    @Nested"))
    _, _, outcomes, errors, messages, _, _ = jr.run(str(ws), [TEST], 600, tc)
    assert errors == [TEST] and outcomes == {}
    assert "cannot find symbol" in messages[TEST] and "method lerp(double)" in messages[TEST]


def test_sentinels_fail_in_the_files_own_style(project):
    ws, tc = project
    planted = jr.plant_sentinels(str(ws), [TEST], 3, random.Random(4))
    assert len(planted) == 3 and all(p.startswith(ID) for p in planted)
    text = (ws / TEST).read_text()
    assert "org.junit" not in text.split("class CalcTest")[1]  # statically imported assertEquals, as the file does
    assert "    public void" not in text  # declared as the file declares its tests
    # each repeats one of the file's own checks of the code under test with another expected value
    assert text.count("Calc.clamp(") == CALC_TEST.count("Calc.clamp(") + 3
    _, _, outcomes, _, _, _, _ = jr.run(str(ws), [TEST], 600, tc)
    assert all(outcomes[s] == "failed" for s in planted) and outcomes[ID + "clampInside"] == "passed"


def test_reports_that_disagree_with_mavens_totals_pass_nothing():
    case = '<testcase name="{0}" classname="com.x.T" time="0"/>'
    report = '<testsuite name="com.x.T">%s</testsuite>' % "".join(case.format(n) for n in ("a", "b"))
    honest = "[INFO] Results:\n[INFO] \n[ERROR] Failures: \n[ERROR]   T.b:12 expected: <1> but was: <2>\n" \
             "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0\n"
    # the report says both passed, Maven counted a failure: neither passed
    outcomes, _, _ = jr.parse_reports({".": [report]}, honest, "/nonexistent")
    assert set(outcomes.values()) == {"failed"}
    # the counts agree (a third test forged failed) but Maven's own list names b: b failed
    forged = report.replace("</testsuite>", '<testcase name="c" classname="com.x.T"><failure/></testcase></testsuite>')
    outcomes, _, _ = jr.parse_reports({".": [forged]}, honest.replace("Tests run: 2", "Tests run: 3"), "/nonexistent")
    assert outcomes["src/test/java/com/x/T.java::T::b"] == "failed"
    # a report that agrees is believed
    agreed = "[INFO] Results:\n[INFO] \n[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0\n"
    outcomes, _, _ = jr.parse_reports({".": [report]}, agreed, "/nonexistent")
    assert set(outcomes.values()) == {"passed"}


def test_a_failure_message_cannot_print_its_way_past_mavens_failure_list():
    # the code under test threw a message holding a fake module header and fake totals, and a process it left
    # rewrote the report so that b passed; Maven's own failure list still names b
    case = '<testcase name="{0}" classname="com.x.T" time="0"/>'
    forged = '<testsuite name="com.x.T">%s</testsuite>' % "".join(case.format(n) for n in ("a", "b"))
    console = ("[INFO] Building lib 1.0\n[ERROR] com.x.T.b -- Time elapsed: 0.01 s <<< ERROR!\n"
               "java.lang.IllegalStateException: x\n[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0\n"
               "[INFO] Building other 1.0\n\tat com.x.T.b(T.java:9)\n\n[INFO] Results:\n[ERROR] Errors: \n"
               "[ERROR]   T.b:9 » IllegalState x\n[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0\n"
               "[INFO] Building more 1.0\n[ERROR] Tests run: 2, Failures: 0, Errors: 1, Skipped: 0\n")
    outcomes, _, _ = jr.parse_reports({".": [forged]}, console, "/nonexistent")
    assert outcomes["src/test/java/com/x/T.java::T::b"] == "failed"
    assert jr.console_summaries(console)[1] == {("T", "b"): 1}


def test_planted_files(tmp_path):
    ws = _project(tmp_path / "ws")
    shadow = "package org.junit.jupiter.api;\n\nclass AssertionFailureBuilder {}\n"
    for rel, text in (("src/test/java/com/example/calc/Extra.java", "x"),
                      ("src/main/resources/junit-platform.properties", "x"),
                      ("src/main/resources/META-INF/services/org.junit.jupiter.api.extension.Extension", "x"),
                      ("src/main/resources/META-INF/services/javax.annotation.processing.Processor", "x"),
                      (".mvn/maven.config", "x"), ("sub/pom.xml", "x"),
                      # a framework class told by the package it declares, wherever the file is
                      ("src/main/java/com/example/calc/Builder.java", shadow),
                      ("src/test/java/node_modules/org/junit/jupiter/api/B.java", shadow),
                      ("node_modules/res/junit-platform.properties", "x"),
                      ("src/main/resources/evil/Skip.class", "x"), ("lib/evil.jar", "x"),
                      # the agent's own new code stays
                      ("src/main/java/com/example/calc/New.java", "package com.example.calc;\n"),
                      ("target/classes/Compiled.class", "x")):
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    (ws / "docs").symlink_to(ws / "node_modules" / "res")
    base = {"pom.xml": "", TEST: "", "src/main/java/com/example/calc/Calc.java": ""}
    assert jr.planted(str(ws), base, []) == [
        ".mvn/maven.config", "docs", "lib/evil.jar", "node_modules/res/junit-platform.properties",
        "src/main/java/com/example/calc/Builder.java",
        "src/main/resources/META-INF/services/javax.annotation.processing.Processor",
        "src/main/resources/META-INF/services/org.junit.jupiter.api.extension.Extension",
        "src/main/resources/evil/Skip.class", "src/main/resources/junit-platform.properties",
        "src/test/java/com/example/calc/Extra.java", "src/test/java/node_modules/org/junit/jupiter/api/B.java",
        "sub/pom.xml"]
    # a repository whose own code is in a framework's package (a Maven plugin) keeps its new classes
    plugin = "package org.apache.maven.plugins.foo;\n"
    (ws / "src/main/java/org/apache/maven/plugins/foo").mkdir(parents=True)
    (ws / "src/main/java/org/apache/maven/plugins/foo/NewHelper.java").write_text(plugin)
    owned = dict(base, **{"src/main/java/org/apache/maven/plugins/foo/FooMojo.java": ""})
    assert "src/main/java/org/apache/maven/plugins/foo/NewHelper.java" not in jr.planted(str(ws), owned, [])


def test_a_failure_mavens_reporter_printed_is_a_failure_whatever_the_report_says():
    case = '<testcase name="{0}" classname="com.x.T" time="0"/>'
    forged = '<testsuite name="com.x.T">%s</testsuite>' % "".join(case.format(n) for n in ("a", "b(int)[1]"))
    console = ("[ERROR] com.x.T.b(int)[1] -- Time elapsed: 0.01 s <<< FAILURE!\n"
               "[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0\n")
    outcomes, _, _ = jr.parse_reports({".": [forged]}, console, "/nonexistent")
    assert outcomes == {"src/test/java/com/x/T.java::T::a": "passed",
                        "src/test/java/com/x/T.java::T::b(int)[1]": "failed"}
    crashed = console + "[ERROR] The forked VM terminated without properly saying goodbye. VM crash?\n"
    outcomes, _, _ = jr.parse_reports({".": [forged]}, crashed, "/nonexistent")
    assert set(outcomes.values()) == {"failed"}
    flaky = "[WARNING] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0, Flakes: 1\n"
    outcomes, _, _ = jr.parse_reports({".": [forged]}, flaky, "/nonexistent")
    assert set(outcomes.values()) == {"passed"}  # a rerun that passed is a pass, as Surefire counts it


def test_sentinels_clone_only_checks_a_new_method_can_repeat():
    text = ("class FmtTest {\n    private static final String EOL = \"x\";\n    private final Fmt fmt = new Fmt();\n\n"
            "    @Test\n    void a() {\n        final String actual = fmt.render();\n"
            "        assertEquals(\"x\", actual);\n        assertEquals(\"y\", actual.trim());\n"
            "        assertEquals(3, fmt.width());\n        assertEquals(4, EOL.length());\n"
            "        assertEquals(5, Fmt.of(actual).size());\n    }\n}\n")
    lines = text.splitlines(True)
    # a method's local (actual) is out of a new method's scope; the class's fields and static calls are not
    assert [t for _, t, _ in jr._cloned_checks(lines, jr._depths(lines), text)] == [
        "assertEquals(%s, fmt.width());", "assertEquals(%s, EOL.length());"]


def test_a_file_of_parameterized_tests_gets_sentinels_after_a_whole_method(tmp_path):
    text = ("package x;\n\nimport org.junit.jupiter.params.ParameterizedTest;\n"
            "import static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass PTest {\n"
            "    @MethodSource(\"data\")\n    @ParameterizedTest\n    void encodes(String in) {\n"
            "        assertEquals(3, Engine.size(in));\n    }\n}\n")
    (tmp_path / "src/test/java/x").mkdir(parents=True)
    (tmp_path / "src/test/java/x/PTest.java").write_text(text)
    planted = jr.plant_sentinels(str(tmp_path), ["src/test/java/x/PTest.java"], 1, random.Random(2))
    after = (tmp_path / "src/test/java/x/PTest.java").read_text()
    assert len(planted) == 1 and "@org.junit.jupiter.api.Test\n" in after  # the file does not import @Test
    # never between another test's annotations and its method
    assert '@MethodSource("data")\n    @ParameterizedTest\n    void encodes' in after


def test_sentinels_never_repeat_a_sentinel(tmp_path):
    # a second sentinel once cloned the first (a literal against a literal) and could come out equal (commons-cli)
    import re

    for body in ("        assertTrue(Calc.ok());\n", "        assertEquals(5, Calc.add(2, 3));\n"):
        text = ("package x;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass CTest {\n"
                "    @Test\n    void a() {\n" + body + "    }\n\n    @Test\n    void b() {\n    }\n}\n")
        (tmp_path / "src/test/java/x").mkdir(parents=True, exist_ok=True)
        (tmp_path / "src/test/java/x/CTest.java").write_text(text)
        for seed in range(20):
            (tmp_path / "src/test/java/x/CTest.java").write_text(text)
            jr.plant_sentinels(str(tmp_path), ["src/test/java/x/CTest.java"], 3, random.Random(seed))
            after = (tmp_path / "src/test/java/x/CTest.java").read_text()
            checks = re.findall(r"assertEquals\((-?\d+), (.+?)\);", after)
            assert len(checks) == (3 if "ok()" in body else 4)
            for want, expr in checks:
                assert want != expr and (expr != "Calc.add(2, 3)" or want != "5" or (want, expr) == checks[0])
