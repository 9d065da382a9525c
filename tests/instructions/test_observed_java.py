"""The observed problem from Java test output (instructions/observed/test_output.py): JUnit's and AssertJ's expected
and actual values told of the call the failing test line checks (a test's local receiver told by its type), an
exception the code under test threw, javac's missing symbols; never a test's name."""

from repo2env.instructions.observed.evidence import Evidence
from repo2env.instructions.observed.test_output import observed_from_output

TEST = "src/test/java/com/x/ParserTest.java"
SOURCE = """package com.x;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ParserTest {
    @Test
    void readsWord() {
        Parser parser = new Parser("One two");
        assertEquals("One", parser.word());
    }

    @Test
    void parsesSize() {
        assertEquals(1024L, Sizes.parse("1 KB"));
    }
}
"""


def _told(failures: dict, import_errors: dict | None = None) -> list[str]:
    return observed_from_output(Evidence(failures=failures, import_errors=import_errors or {},
                                         fail_to_pass=tuple(failures) or (TEST + "::ParserTest::parsesSize",),
                                         test_sources={TEST: SOURCE}))


def test_values_of_the_checked_call_on_a_local_told_by_its_type():
    said = _told({TEST + "::ParserTest::readsWord": "org.opentest4j.AssertionFailedError: expected: <One> but was: "
                  "<One two>\n\tat com.x.ParserTest.readsWord(ParserTest.java:11)"})
    assert said == ["Calling `word()` on a `Parser` returns `One two`, which is not the correct result."]


def test_an_exception_of_the_code_under_test():
    said = _told({TEST + "::ParserTest::parsesSize": 'java.lang.NumberFormatException: For input string: "1 KB"\n'
                  "\tat java.base/java.lang.Long.parseLong(Long.java:711)\n\tat com.x.Sizes.parse(Sizes.java:9)\n"
                  "\tat com.x.ParserTest.parsesSize(ParserTest.java:16)"})
    # the whole call would copy the test line: it is told argument by argument
    assert said == ['Calling `Sizes.parse` with `"1 KB"` throws `NumberFormatException: For input string: "1 KB"`; '
                    "it should not throw."]
    assert "parsesSize" not in said[0] and "ParserTest" not in said[0]


def test_a_missing_method_javac_reported():
    said = _told({}, {TEST: f"{TEST}:16: cannot find symbol\n  symbol:   method parse(java.lang.String)\n"
                            "  location: class com.x.Sizes"})
    assert said == ["The class `Sizes` has no method `parse`; it should provide it."]


ENCODER_TEST = "src/test/java/com/x/EncoderTest.java"
ENCODER_SOURCE = """package com.x;

class EncoderTest {
    Encoder encoder() {
        return new Encoder();
    }

    @Test
    void swapped() {
        assertEquals(new Soundex().encode("a-b"), "A1");
    }

    @Test
    void throughHelper() {
        assertEquals(this.encoder().encode(".,-"), "");
    }
}
"""


def test_a_swapped_check_and_a_chain_through_the_tests_own_helper():
    failures = {
        ENCODER_TEST + "::EncoderTest::swapped": "java.lang.ArrayIndexOutOfBoundsException: Index 9 out of bounds\n"
        "\tat com.x.Soundex.encode(Soundex.java:12)\n\tat com.x.EncoderTest.swapped(EncoderTest.java:10)",
        ENCODER_TEST + "::EncoderTest::throughHelper": "java.lang.StringIndexOutOfBoundsException: begin 0, end 1\n"
        "\tat com.x.Encoder.encode(Encoder.java:40)\n\tat com.x.EncoderTest.throughHelper(EncoderTest.java:15)"}
    said = observed_from_output(Evidence(failures=failures, import_errors={}, fail_to_pass=tuple(failures),
                                         test_sources={ENCODER_TEST: ENCODER_SOURCE}))
    assert said == ['Calling `encode` with `"a-b"` on a `Soundex` throws `ArrayIndexOutOfBoundsException: Index 9 out '
                    'of bounds`; it should not throw.',
                    'Calling `Encoder.encode` with `".,-"` throws `StringIndexOutOfBoundsException: begin 0, end 1`; '
                    "it should not throw."]


def test_an_exception_that_should_have_been_thrown():
    source = ("class HandlerTest {\n    @Test\n    void rejects() {\n"
              "        assertThrows(ParseException.class, () -> Handler.create(\"\\uD800\", Character.class));\n"
              "    }\n}\n")
    path = "src/test/java/com/x/HandlerTest.java"
    for message, told in (
            ("Expected org.x.ParseException to be thrown, but nothing was thrown.",
             "does not throw `ParseException`; it should throw it."),
            ("Unexpected exception type thrown, expected: <org.x.ParseException> but was: "
             "<java.lang.IllegalStateException>", "throws `IllegalStateException`; it should throw `ParseException`.")):
        failures = {path + "::HandlerTest::rejects": "org.opentest4j.AssertionFailedError: " + message +
                    "\n\tat com.x.HandlerTest.rejects(HandlerTest.java:4)"}
        said = observed_from_output(Evidence(failures=failures, import_errors={}, fail_to_pass=tuple(failures),
                                             test_sources={path: source}))
        assert len(said) == 1 and said[0].startswith("Calling `Handler.create") and said[0].endswith(told)
