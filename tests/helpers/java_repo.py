"""A Maven project with pull requests in its history, built by the tests (``build_java_repo``), and what pr_runtime
must make of it (``EXPECTED_TASKS``, ``EXPECTED_SKIPS``).

====  =========================================================  ==========================================
PR    shape and change                                            expected outcome (pr_runtime)
====  =========================================================  ==========================================
#1    merge: clamp ignored the upper bound; new failing test      task: F2P CalcTest::clampAbove
#2    merge: README only                                          skipped: docs_ci_only
#3    squash: refactor add; its new test passes before            skipped: no_fail_to_pass
#4    squash: parseSize units; a parameterized test               task: F2P both cases (names with spaces)
#5    squash: a new lerp method; the test class does not compile  task: F2P lerpMidpoint; the class's older
      before the fix                                              tests PASS_TO_PASS (unchanged methods)
====  =========================================================  ==========================================

JUnit 5 (Jupiter with its params module) and Surefire 3 come from Maven Central at image build time.
"""

from pathlib import Path

from repo2env.sources.demo_repo import _Builder

CALC_TEST = "src/test/java/com/example/calc/CalcTest.java"
SIZES_TEST = "src/test/java/com/example/calc/SizesTest.java"
EXPECTED_TASKS = {
    1: {"fail_to_pass": [f"{CALC_TEST}::CalcTest::clampAbove"],
        "pass_to_pass": [f"{CALC_TEST}::CalcTest::addsTwoNumbers", f"{CALC_TEST}::CalcTest::clampInside"]},
    4: {"fail_to_pass": [f"{SIZES_TEST}::SizesTest::parsesUnits(String, long)[1]",
                         f"{SIZES_TEST}::SizesTest::parsesUnits(String, long)[2]"],
        "pass_to_pass": [f"{SIZES_TEST}::SizesTest::parsesPlainBytes"]},
    5: {"fail_to_pass": [f"{CALC_TEST}::CalcTest::lerpMidpoint"],
        "pass_to_pass": [f"{CALC_TEST}::CalcTest::addsNegativeNumbers", f"{CALC_TEST}::CalcTest::addsTwoNumbers",
                         f"{CALC_TEST}::CalcTest::clampAbove", f"{CALC_TEST}::CalcTest::clampInside"]},
}
EXPECTED_SKIPS = {2: "docs_ci_only", 3: "no_fail_to_pass"}

POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>calc</artifactId>
  <version>1.0-SNAPSHOT</version>
  <properties>
    <maven.compiler.release>11</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.10.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.13.0</version>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>3.2.5</version>
      </plugin>
    </plugins>
  </build>
</project>
"""

CALC_V1 = """package com.example.calc;

/** Small arithmetic helpers. */
public final class Calc {
    private Calc() {
    }

    /** Returns a + b. */
    public static int add(int a, int b) {
        return a + b;
    }

    /** Limits x to the range [lo, hi]. */
    public static int clamp(int x, int lo, int hi) {
        if (x < lo) {
            return lo;
        }
        return x;
    }
}
"""
CALC_V2 = CALC_V1.replace("        return x;\n    }\n}\n",
                          "        if (x > hi) {\n            return hi;\n        }\n        return x;\n    }\n}\n")
CALC_V3 = CALC_V2.replace("        return a + b;\n", "        int sum = a + b;\n        return sum;\n")
CALC_V5 = CALC_V3.replace("    }\n}\n", """    }

    /** The value a fraction t of the way from a to b. */
    public static double lerp(double a, double b, double t) {
        return a + (b - a) * t;
    }
}
""")

CALC_TEST_V1 = """package com.example.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CalcTest {
    @Test
    void addsTwoNumbers() {
        assertEquals(5, Calc.add(2, 3));
    }

    @Test
    void clampInside() {
        assertEquals(5, Calc.clamp(5, 0, 10));
    }
}
"""
CALC_TEST_V2 = CALC_TEST_V1.replace("    }\n}\n", """    }

    @Test
    void clampAbove() {
        assertEquals(10, Calc.clamp(15, 0, 10));
    }
}
""")
CALC_TEST_V3 = CALC_TEST_V2.replace("    }\n}\n", """    }

    @Test
    void addsNegativeNumbers() {
        assertEquals(-5, Calc.add(-2, -3));
    }
}
""")
CALC_TEST_V5 = CALC_TEST_V3.replace("    }\n}\n", """    }

    @Test
    void lerpMidpoint() {
        assertEquals(15.0, Calc.lerp(10.0, 20.0, 0.5), 1e-9);
    }
}
""")

SIZES_V1 = """package com.example.calc;

/** Sizes in bytes. */
public final class Sizes {
    private Sizes() {
    }

    /** Reads a size in bytes. */
    public static long parseSize(String text) {
        return Long.parseLong(text.trim());
    }
}
"""
SIZES_V2 = """package com.example.calc;

/** Sizes in bytes. */
public final class Sizes {
    private Sizes() {
    }

    /** Reads a size in bytes, with an optional KB or MB suffix. */
    public static long parseSize(String text) {
        String value = text.trim();
        long factor = 1;
        if (value.endsWith("KB")) {
            factor = 1024;
            value = value.substring(0, value.length() - 2).trim();
        } else if (value.endsWith("MB")) {
            factor = 1024 * 1024;
            value = value.substring(0, value.length() - 2).trim();
        }
        return Long.parseLong(value) * factor;
    }
}
"""
SIZES_TEST_V1 = """package com.example.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SizesTest {
    @Test
    void parsesPlainBytes() {
        assertEquals(512L, Sizes.parseSize("512"));
    }
}
"""
SIZES_TEST_V2 = """package com.example.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SizesTest {
    @Test
    void parsesPlainBytes() {
        assertEquals(512L, Sizes.parseSize("512"));
    }

    @ParameterizedTest(name = "{0} is {1} bytes")
    @CsvSource({"1 KB, 1024", "2MB, 2097152"})
    void parsesUnits(String text, long bytes) {
        assertEquals(bytes, Sizes.parseSize(text));
    }
}
"""


def build_java_repo(path: Path) -> Path:
    """Create the Java fixture repository at ``path`` (must not exist) and return it."""
    path = Path(path)
    path.mkdir(parents=True)
    b = _Builder(path)
    b.git("init", "-q", "--initial-branch=main")
    b.commit("Initial calc project", {
        "pom.xml": POM, "README.md": "# calc\n\nSmall arithmetic helpers.\n", ".gitignore": "target/\n",
        "src/main/java/com/example/calc/Calc.java": CALC_V1, CALC_TEST: CALC_TEST_V1,
        "src/main/java/com/example/calc/Sizes.java": SIZES_V1, SIZES_TEST: SIZES_TEST_V1})
    b.merge_pr(1, "alice/clamp", "clamp ignores the upper bound",
               "Calc.clamp(15, 0, 10) returns 15. A value above the range should come back as the upper bound.",
               [("Clamp to the upper bound", {"src/main/java/com/example/calc/Calc.java": CALC_V2,
                                              CALC_TEST: CALC_TEST_V2})])
    b.merge_pr(2, "bob/docs", "Document clamp", "Explain what clamp returns.",
               [("Docs", {"README.md": "# calc\n\n`Calc.clamp(x, lo, hi)` limits x to [lo, hi].\n"})])
    b.commit("Refactor add and cover negative numbers (#3)\n\nadd now names its result; a new test covers negative "
             "operands, which already worked.", {"src/main/java/com/example/calc/Calc.java": CALC_V3,
                                                 CALC_TEST: CALC_TEST_V3})
    b.commit("Parse sizes with unit suffixes (#4)\n\nSizes.parseSize(\"1 KB\") threw a NumberFormatException because "
             "only plain byte counts were accepted. Sizes with a KB or MB suffix, with or without a space, should "
             "be converted to bytes (1 KB = 1024 bytes).",
             {"src/main/java/com/example/calc/Sizes.java": SIZES_V2, SIZES_TEST: SIZES_TEST_V2})
    b.commit("Add linear interpolation (#5)\n\nCalc has no way to interpolate between two values; add lerp(a, b, t), "
             "the value a fraction t of the way from a to b.",
             {"src/main/java/com/example/calc/Calc.java": CALC_V5, CALC_TEST: CALC_TEST_V5})
    return path
