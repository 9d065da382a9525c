"""node:test's failures (Node.js's ``assert`` messages) in the observed behaviour
(instructions/observed/test_output.py): the values of ``15 !== 10`` and of a deep-equal diff, a missing expected
exception, a falsy ``assert(...)``, each told of the call the failing line hands to ``assert``."""

from repo2env.instructions.observed.evidence import Evidence
from repo2env.instructions.observed.test_output import observed_from_output

TEST = "tests/clamp.test.js"
SOURCE = """import assert from 'node:assert/strict';
test('clamps', () => {
  assert.equal(clamp(15, 0, 10), 10);
});
test('splits', () => {
  assert.deepEqual(split('a,b'), ['a', 'b']);
});
test('rejects', () => {
  assert.throws(() => parse('x'), /bad/);
});
test('accepts', () => {
  assert(isOk(3));
});
"""


def _told(case: str, line: int, text: str) -> list[str]:
    node = f"{TEST}::{case}"
    text += f"\n    at TestContext.<anonymous> (file:///workspace/{TEST}:{line}:10)"
    return observed_from_output(Evidence(failures={node: text}, import_errors={}, fail_to_pass=(node,),
                                         test_sources={TEST: SOURCE}))


def test_strict_equal_values():
    said = _told("clamps", 3, "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n15 !== 10\n")
    assert said == ["Calling `clamp` with `15`, `0` and `10` returns `15`, which is not the correct result."]


def test_deep_equal_diff_values():
    said = _told("splits", 6, "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:\n"
                              "+ actual - expected\n\n+ [ 'a,b' ]\n- [ 'a', 'b' ]\n")
    assert said == ["Calling `split` with `'a,b'` returns `[ 'a,b' ]`, which is not the correct result."]


def test_missing_exception_and_falsy_value():
    assert _told("rejects", 9, "AssertionError [ERR_ASSERTION]: Missing expected exception (/bad/).") == [
        "Calling `parse('x')` does not throw an error; it should throw one."]
    assert _told("accepts", 12, "AssertionError [ERR_ASSERTION]: The expression evaluated to a falsy value:\n\n"
                                "  assert(isOk(3))\n") == ["Calling `isOk(3)` returns a falsy value; it should "
                                                           "return a truthy one."]
