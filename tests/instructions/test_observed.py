"""repo2env/instructions/observed/ on the failures of a real pytest run (its JUnit XML read by the verifier's own
parser), one test per failure shape; and actionability.py on instructions of each kind."""

import os
import re
import subprocess
import sys

import pytest

from repo2env.graders import runtime_verifier
from repo2env.instructions import actionability, observed
from repo2env.instructions.leak_audit import AuditContext, audit

PACKAGE = """\
UNITS = {"B": 1, "kB": 1000}


def area(w, h):
    return w * h - 1


def parse(s):
    return int(s)


def unescape(s):
    return s.replace("&#60;", "<").replace("&#62;", ">")


def to_bytes(text, binary=False, strict=True):
    n, unit = text.split()
    return int(n) * UNITS[unit]


class Parser:
    def __init__(self, base=10):
        self.base = base

    def parse(self, s):
        return int(s, self.base)


def words(s):
    return s.split(",")


class Box:
    width = 2
    height = 4


def items(n):
    return ["item-number-%04d" % i for i in range(n - 1)]


class Range:
    def __init__(self, a, b, step=1):
        self.a, self.b, self.step = a, b, step

    def __repr__(self):
        return f"Range({self.a}, {self.b}, {self.step})"

    def __eq__(self, other):
        return (self.a, self.b, self.step) == (other.a, other.b, other.step)


def explode(x):
    raise RuntimeError("boom")


def check(obj):
    raise TypeError(f"{type(obj).__qualname__} of {type(obj).__module__} is rejected")


def is_wide(r):
    return r.b - r.a > r.step


class Doc:
    def __init__(self, text):
        self.lines = text.splitlines()

    def __setitem__(self, key, value):
        self.lines.append(f"{key} = {value}")

    def as_string(self):
        return "\\n".join(self.lines) + "\\n"


def memo(size=128):
    if size < 0:
        raise ValueError("size must be positive")
    return lambda func: func


class Holder:
    def __init__(self, n):
        self.key = lambda x: x + n


class Bag:
    def __init__(self, items):
        self.items = set(items)

    def __le__(self, other):
        return self.items.issubsett(other.items)


def counted(step=1):
    def wrap(func):
        def inner(*args):
            inner.calls += 1
            return func(*args)
        inner.calls, inner.stats = 0, {}
        return inner
    return wrap


def raises(err, func):
    try:
        func()
    except err:
        return True
    return False


class Callpoint:
    @classmethod
    def from_current(cls, level=1):
        return cls(frame)
"""

BROKEN = """\
def first():
    nonlocal result
    return 1
"""

BROKEN_TESTS = """\
from shapes.broken import first


def test_first():
    assert first() == 1
"""

TESTS = """\
import json
import unittest
import pytest
import shapes as sh
from shapes import area, parse, to_bytes, Parser, words, Box, items, Range, explode, check, Callpoint, is_wide
from shapes import memo


def make_box():
    return 1


WIDE = [Range(12, 400, 7000)]


def test_as_it_ran():
    assert is_wide(WIDE[0])


def test_value():
    assert area(2, 3) == 6


def test_tag_value():
    assert sh.unescape("&#60;b&#62; &#x3e;") == "&#60;b&#62; &#x3e;"


def test_exc():
    value = parse("1 kB")


def test_exc_expected():
    assert to_bytes("3 MiB", binary=True, strict=False) == 3 * 1024 ** 2


def test_raises():
    with pytest.raises(ValueError):
        area(-1, 2)


def test_other_error():
    with pytest.raises(KeyError):
        parse("x")


def test_bound():
    p = Parser(base=16)
    assert p.parse("x1") == 1


def test_len():
    assert len(words("a b,c")) == 3


def test_helper():
    assert make_box() == 2


def test_var():
    text = "1 B"
    result = to_bytes(text)
    assert result == 2


def test_truth():
    assert not area(1, 2)


CASES = [("height", 4), ("width", 3)]


@pytest.mark.parametrize("prop, want", CASES)
@pytest.mark.parametrize("scale", [1])
def test_param(prop, want, scale):
    assert getattr(Box(), prop) == want


def test_missing_item():
    assert items(3) == ["item-number-0000", "item-number-0001", "item-number-0002"]


def test_same():
    assert Range(2, 3) == Range(2, 3, step=5)


def run(x):
    return explode(x)


def test_callee():
    assert area(run(1), 2) == 3


def test_call_form():
    pytest.raises(KeyError, parse, "q").match("bad")


def test_caught_message():
    with pytest.raises(ValueError) as info:
        parse("w")
    assert str(info.value) == "not a number"


class Local:
    pass


def test_names_tests():
    check(Local())


def test_loop():
    for text in ["5 MB"]:
        to_bytes(text)


class TestWithSetUp(unittest.TestCase):
    def setUp(self):
        self.p = Parser(base=2)

    def test_set_up(self):
        self.assertEqual(self.p.parse("11"), 4)


@pytest.mark.parametrize("text, want", [("7", 7), ("", 0)])
def test_empty_id(text, want):
    assert parse(text) == want


def keep(memo):  # a helper whose parameter has the API's name: the API stays the API
    return memo


def test_decorated():
    @memo(size=-1)
    def f():
        return 1
    assert f() == 1


def test_raises_helper():
    assert sh.raises(ValueError, lambda: parse("12"))


def test_steps():
    doc = sh.Doc("a = 1\\nb = 2")
    doc["z"] = 3
    assert doc.as_string() == "z = 3\\na = 1\\nb = 2\\n"


def test_steps_loop():
    doc = sh.Doc("a = 1")
    for key in ["b", "c"]:
        doc[key] = 0
    assert doc.as_string() == "a = 1\\nb = 0\\n"


def test_decorated_read():
    @sh.counted(step=2)
    def g(n=1):
        "Count."
        return n
    g()
    assert g.stats["calls"] == 1


def test_decorated_body():
    @sh.counted(step=3)
    def h():
        return {}["x"]
    h()


def test_library_call():
    import pickle
    pickle.dumps(sh.Holder(2))


def test_reassigned():
    r = parse("1")
    r = parse("x2")
    assert r


def test_helper_args():
    def check_parse(text):
        return parse(text)
    check_parse("q7")


def test_steps_raises():
    q = Parser(base=10)
    q.base = 16
    with pytest.raises(ValueError):
        q.parse("f")


def test_operator_raised():
    small = sh.Bag("a")
    assert small <= sh.Bag("ab")


def test_attribute_of_result():
    assert Parser(base=10).fmt.upper() == "X"


def test_missing_with_patch(monkeypatch):
    monkeypatch.setattr(sh, "UNITS", {"B": 2})
    monkeypatch.setattr(sh, "parse", lambda: 5)
    assert sh.volume_of(2) == 8
    monkeypatch.setattr(sh, "UNITS", {"B": 3})


def test_raises_match():
    with pytest.raises(ValueError, match="negative"):
        area(-3, 2)


def test_round_trip():
    text = "k = 7"
    assert sh.Doc(text).as_string() == text


def test_from_file():
    for name in ["sizes.txt"]:
        text = open("tests/data/" + name).read().strip()
        to_bytes(text)


def test_message_quotes_the_file():
    parse(open("tests/data/sizes.txt").read())


def test_env(monkeypatch):
    monkeypatch.setenv("UNITS_STRICT", "1")
    assert area(2, 2) == 4


@pytest.fixture
def parser():
    return Parser(base=8)


def test_fixture(parser):
    assert parser.parse("17") == 17


@pytest.mark.parametrize("value", [pytest.param("::", id="double")])
@pytest.mark.parametrize("prop", ["width", "height"])
def test_env_case(monkeypatch, prop, value):
    monkeypatch.setenv("BOX_W" if prop == "width" else "BOX_H", value)
    assert getattr(Box(), prop) == {"width": 5, "height": 4}[prop] + 1


def test_env_unknown(monkeypatch):
    monkeypatch.setenv("UNITS", str(area(1, 1)))
    assert area(2, 2) == 4


def test_volatile():
    assert area(10 ** 7, 10 ** 6) == 1


def test_stdlib():
    assert json.dumps(1) == "2"


def test_missing_attr():
    assert sh.percent_of is not None


def test_member():
    assert Parser(base=int("16")).base == 17


@pytest.mark.parametrize("checker", [area])
def test_split(checker):
    assert to_bytes("9 MiB", binary=True, strict=checker) == 1


def test_match():
    with pytest.raises(ValueError, match="a number"):
        parse("y")


def test_nested():
    def inner():
        return Callpoint.from_current(level=2)
    assert inner() is not None


def test_receiver():
    for p in [Parser(base=2)]:
        p.parse("5")


def test_receiver_loop():
    for b in (16,):
        assert Parser(b).parse("21") == 34


def test_changed():
    p = Parser(base=10)
    p.base = 16
    assert p.parse("11") == 11


def test_alias():
    ar = sh.area
    assert ar(3, 3) == 9


class T(unittest.TestCase):
    def test_ut(self):
        self.assertEqual(area(1, 1), 1)

    def test_ut_raises(self):
        self.assertRaises(KeyError, sh.parse, "x")

    def test_ut_regex(self):
        self.assertRaisesRegex(ValueError, "must be a number", lambda: sh.parse("z"))

    def test_ut_not_raised(self):
        self.assertRaises(ValueError, sh.area, -1, 2)

    def test_ut_warns(self):
        with self.assertWarns(DeprecationWarning):
            sh.area(1, 2)
"""

NEW_TESTS = """\
from shapes import percent, ratio


def test_percent():
    assert percent(1, 3) == 33
"""

SAID = {
    "test_value": "Calling `area(2, 3)` returns `5`; it should return `6`.",
    # a value that holds a comparison operator (its "<"): the assertion splits at its operator, not in the value
    "test_tag_value": "Calling `shapes.unescape` with a string of 18 characters `'&#60;b&…62; &#x3e;'` (`…`: left "
                      "out) returns `'<b> &#x3e;'`; it should return the input it was made from.",
    # an exception: where it left the library, as a user's traceback shows
    "test_exc": "Calling `parse('1 kB')` raises `ValueError: invalid literal for int() with base 10: '1 kB'` "
                "(in `parse` of `shapes/__init__.py`); it should not raise.",
    # the whole call is 8+ tokens of a test line: told argument by argument
    "test_exc_expected": "Calling `to_bytes` with `'3 MiB'` and `binary=True` and `strict=False` raises `KeyError: "
                         "'MiB'` (in `to_bytes` of `shapes/__init__.py`); it should return `3 * 1024 ** 2`.",
    "test_raises": "Calling `area(-1, 2)` does not raise an error; it should raise `ValueError`.",
    "test_other_error": "Calling `parse('x')` raises `ValueError: invalid literal for int() with base 10: 'x'` "
                        "(in `parse` of `shapes/__init__.py`); it should raise `KeyError`.",
    "test_bound": "Calling `Parser(base=16).parse('x1')` raises `ValueError: invalid literal for int() with base "
                  "16: 'x1'` (in `parse` of `shapes/__init__.py`); it should return `1`.",
    # len(words('a b,c')) is the test line itself, quote style aside: only the function is named
    "test_len": "A value computed from `words` with `'a b,c'` gives `2`; it should be `3`.",
    # the parametrized case that failed (its id says which), and getattr(x, "name") as x.name
    "test_param": "`Box().width` gives `2`; it should be `3`.",
    "test_helper": None,
    # the argument is the test module's own (WIDE[0]): the call as pytest shows it ran, the Range it was given
    # told part by part (whole, it would copy the test's line)
    "test_as_it_ran": "Calling `is_wide` with a `Range` of `12`, `400` and `7000` returns `False`; it should "
                      "return a true value.",
    # told argument by argument, and still no test variable named
    "test_split": "Calling `to_bytes` with `'9 MiB'` and `binary=True` and `strict=…` raises `KeyError: 'MiB'` (in "
                  "`to_bytes` of `shapes/__init__.py`); it should return `1`.",
    # what the test changed around the call comes first: the observation holds only then
    # a fixture that returns a call stands for it; the conditional and the parametrized value are read
    "test_fixture": "Calling `Parser(base=8).parse('17')` returns `15`; it should return `17`.",
    "test_env_case": "With the environment variable `BOX_W` set to `'::'`: `Box().width` gives `2`; it should be "
                     "`(5 + 1)`.",
    # the whole expression would copy the test's line: told part by part
    "test_member": "Reading `base` of `Parser` with `base` set to `int('16')` gives `16`; it should be `17`.",
    # a value of 12 digits or more (an id, an address, a time) may differ between runs: not told
    "test_volatile": "Calling `area` with `10 ** 7` and `10 ** 6` gives a wrong result; it should return `1`.",
    "test_stdlib": None,
    "test_env_unknown": None,  # what happened holds for a value the test set that cannot be told: not told  # only the standard library is called: not the API under test
    "test_missing_attr": "`shapes.percent_of` does not exist (`AttributeError`); it should.",
    "test_env": "With the environment variable `UNITS_STRICT` set to `'1'`: calling `area(2, 2)` returns `3`; it "
                "should return `4`.",
    # pytest.raises as a call, chained with .match()
    "test_call_form": "Calling `parse('q')` raises `ValueError: invalid literal for int() with base 10: 'q'` (in "
                      "`parse` of `shapes/__init__.py`); it should raise `KeyError`.",
    # the message of a caught exception, checked after the with block
    "test_caught_message": "Calling `parse('w')` raises `ValueError` with the message `\"invalid literal for int() "
                           "with base 10: 'w'\"`; the message should be `'not a number'`.",
    # the message names the test module and a class the tests define: only the type is told
    # ... and the class the tests define is not named as an argument either
    # an object of a class the test defines: told as such, never by its name
    "test_names_tests": "Calling `check` with an instance of a class defined for the test raises `TypeError` (in "
                        "`check` of `shapes/__init__.py`); it should not raise.",
    # a loop variable of the test: its value is not known, so it is not named
    # the loop's value, as the run showed it (--showlocals): the source leaves it unknown
    "test_loop": "Calling `to_bytes('5 MB')` raises `KeyError: 'MB'` (in `to_bytes` of `shapes/__init__.py`); it "
                 "should not raise.",
    # an object made and then changed in steps: each step in words, no span copying a line; the texts compared
    # copy the test's lines, so the lines that differ are told (pytest's diff)
    # what the test class set up (``self.p = Parser(base=2)`` in ``setUp``) stands for ``self.p``
    "test_set_up": "Calling `Parser(base=2).parse('11')` returns `3`; it should return `4`.",
    # a parametrized case whose id holds an empty string's (``test_empty_id[-0]``)
    "test_empty_id": "Calling `parse('')` raises `ValueError: invalid literal for int() with base 10: ''` (in `parse` "
                     "of `shapes/__init__.py`); it should return `0`.",
    # a decorator of a function the test defines raised: its call is told
    "test_decorated": "Calling `memo(size=-1)` raises `ValueError: size must be positive` (in `memo` of "
                      "`shapes/__init__.py`); it should not raise.",
    # a library's own ``raises(E, f)`` helper asserted true: as pytest.raises
    "test_raises_helper": "Calling `parse('12')` does not raise an error; it should raise `ValueError`.",
    "test_steps": "Starting from `shapes.Doc` with a string of 2 lines `'a = 1\\nb = 2…` (`…`: left out), with the "
                  "key `'z'` set to `3`, its `as_string()` gives `'a = 1\\nb = 2\\nz = 3\\n'`; it should be "
                  "`'z = 3\\na = 1\\n… = 2\\n'`: it lacks the line `z = 3` (expected as line 1); it has the line "
                  "`z = 3` more, at line 3.",
    # the object changed in a loop: the loop told after its change, its variable by a stand-in name
    "test_steps_loop": "Starting from `shapes.Doc` with `'a = 1'`, with the key `item` set to `0` for each `item` "
                       "taken from `['b'… 'c']` (`…`: left out), its `as_string()` gives "
                       "`'a = 1\\nb = 0\\nc = 0\\n'`; it should be `'a = 1\\nb … 0\\n'`: it has the line "
                       "`c = 0` more, at line 3.",
    # a function the test defines and decorates with the project's decorator: its decorator and a stand-in name
    "test_decorated_read": "For a function `func(n=1)` that has a docstring, decorated with "
                           "`@shapes.counted(step=2)`, after a call of it, "
                           "reading `func.stats['calls']` raises `KeyError: 'calls'`; it should not raise.",
    # ... whose own body (the test's) raised: nothing the project did
    "test_decorated_body": None,
    # the standard library's C code raised on a value the project made: its call is told, with the library's
    # own <locals> in the message (not the tests')
    "test_library_call": "Calling `pickle.dumps` on `shapes.Holder(2)` raises `AttributeError: Can't pickle local "
                         "object 'Holder.__init__.<locals>.<lambda>'`; it should not raise.",
    # the name the failing line assigns held another call's value before: the call told is the line's own
    "test_reassigned": "Calling `parse('x2')` raises `ValueError: invalid literal for int() with base 10: 'x2'` (in "
                       "`parse` of `shapes/__init__.py`); it should not raise.",
    # a helper the test defines made the call with its parameter: the argument the test passed it is told
    "test_helper_args": "Calling `parse('q7')` raises `ValueError: invalid literal for int() with base 10: 'q7'` (in "
                        "`parse` of `shapes/__init__.py`); it should not raise.",
    # a method of an object the test made and changed did not raise: the object told in steps
    "test_steps_raises": "Starting from `Parser(base=10)`, with `base` set to `16`, calling its `parse('f')` does not "
                         "raise an error; it should raise `ValueError`.",
    # an operator's method raised: the comparison is told, not the call that made its left side
    "test_operator_raised": "Computing `shapes.Bag('a') <= shapes.Bag('ab')` raises `AttributeError: 'set' object "
                            "has no attribute 'issubsett'. Did you mean: 'issubset'?` (in `__le__` of "
                            "`shapes/__init__.py`); it should not raise.",
    # the line itself raised reading an attribute of what the call returned: that read is told
    "test_attribute_of_result": "Reading `fmt` of `Parser(base=10)` raises `AttributeError: 'Parser' object has no "
                                "attribute 'fmt'`; it should not raise.",
    # a name the module lacks, with what the test replaced before the line (and by what), never after it; what
    # the test expects of the name once it exists
    "test_missing_with_patch": "With `sh.UNITS` replaced by `{'B': 2}` and `sh.parse` replaced by a function "
                               "returning `5`: `shapes.volume_of` does not exist (`AttributeError`); it should. Once "
                               "it exists, `shapes.volume_of(2)` should return `8`.",
    # the message the test matches: a fix must word its error so
    "test_raises_match": "Calling `area(-3, 2)` does not raise an error; it should raise `ValueError` with a "
                         "message matching `negative`.",
    "test_round_trip": "Calling `shapes.Doc('k = 7').as_string()` returns `'k = 7\\n'`; it should return `'k = 7'`.",
    # a value read from the test patch's data file: told with the fewest tokens left out so no line of it is copied
    "test_from_file": "Calling `to_bytes` with a string of 23 characters `'12 kB, 3 kB… 4 kB, 5 kB'` (`…`: left out) raises "
                      "`ValueError: too many values to unpack (expected 2)` (in `to_bytes` of "
                      "`shapes/__init__.py`); it should not raise.",
    # the error's message quotes that line: shortened too
    # (the data file of the test patch told by its kind, never by its path)
    "test_message_quotes_the_file": "Calling `parse(open(<path to a *.txt file>).read())` raises `ValueError: invalid "
                                    "literal for int() with base 10: '12 kB, 3 kB… 4 kB, 5 kB\\n'` (in `parse` of "
                                    "`shapes/__init__.py`); it should not raise.",
    # the tests' own helper reached the project's explode(), which raised: the fix makes that call succeed (the
    # test passes after it); the helper's argument is its own parameter, bound to what the test passed it
    "test_callee": "Calling `explode(1)` raises `RuntimeError: boom` (in `explode` of `shapes/__init__.py`); it should "
                   "not raise.",
    # pytest shortened both lists: its explanation says what differs
    "test_missing_item": "Calling `items(3)` gives a wrong result: it has fewer items than expected; the expected "
                         "result goes on with `'item-number-0002'`.",
    "test_same": "`Range(2, 3, 1)` and `Range(2, 3, 5)` (made by `Range`) compare unequal; they should be equal.",  # only the tests' own helper is called: nothing a user would report
    "test_var": "Calling `to_bytes('1 B')` returns `1`; it should return `2`.",
    "test_truth": "Calling `area(1, 2)` returns `1`; it should return a false value.",
    "test_ut": "Calling `area(1, 1)` returns `0`; it should return `1`.",
    # a callable handed to assertRaises, and the module as a user spells it (not the tests' alias)
    "test_ut_raises": "Calling `shapes.parse('x')` raises `ValueError: invalid literal for int() with base 10: 'x'` "
                      "(in `parse` of `shapes/__init__.py`); it should raise `KeyError`.",
    "test_ut_regex": "Calling `shapes.parse('z')` raises `ValueError: invalid literal for int() with base 10: 'z'`; "
                     "it should raise `ValueError` with a message matching `must be a number`.",
    "test_ut_not_raised": "Calling `shapes.area(-1, 2)` does not raise an error; it should raise `ValueError`.",
    "test_ut_warns": "Calling `shapes.area(1, 2)` emits no warning; it should emit `DeprecationWarning`.",
    # a nested function of the test reached the project's code, which raised: its call, whose arguments are
    # literals, is told as a user would write it
    "test_nested": "Calling `Callpoint.from_current` with `level=2` raises `NameError: name 'frame' is not defined` "
                   "(in `from_current` of `shapes/__init__.py`); it should not raise.",
    # the receiver is the test's own (a loop variable): the method is named with its literal arguments
    "test_receiver": "Calling `parse` with `'5'` raises `ValueError: invalid literal for int() with base 2: '5'` (in "
                     "`parse` of `shapes/__init__.py`); it should not raise.",
    # the receiver's argument is the test's loop variable: elided, as an argument of the call is
    "test_receiver_loop": "Calling `Parser(16).parse` with `'21'` returns `33`; it should return `34`.",
    # the object was changed after it was made (``p.base = 16``): the change is told in words, after the call
    # that made it (`Parser(base=10).parse('11')` alone would be false)
    "test_changed": "Starting from `Parser(base=10)`, with `base` set to `16`, its `parse('11')` gives `17`; it "
                    "should be `11`.",
    # the test's short name for the API (``ar = sh.area``) is told as the API itself
    "test_alias": "Calling `shapes.area(3, 3)` returns `8`; it should return `9`.",
    "test_match": "Calling `parse('y')` raises `ValueError: invalid literal for int() with base 10: 'y'`; it should "
                  "raise `ValueError` with a message matching `a number`.",
}


SIZES = "12 kB, 3 kB, 4 kB, 5 kB\n"  # a data file of the test patch: no span copies 8 tokens of its line


@pytest.fixture(scope="module")
def evidence(tmp_path_factory):
    """The failures of a real pytest run (JUnit XML read by the verifier's own parser) on the package above."""
    root = tmp_path_factory.mktemp("shapes")
    (root / "shapes").mkdir()
    (root / "tests").mkdir()
    (root / "shapes/__init__.py").write_text(PACKAGE)
    (root / "tests/test_f.py").write_text(TESTS)
    (root / "tests/test_new.py").write_text(NEW_TESTS)
    (root / "shapes/broken.py").write_text(BROKEN)
    (root / "tests/test_broken.py").write_text(BROKEN_TESTS)
    (root / "tests/data").mkdir()
    (root / "tests/data/sizes.txt").write_text(SIZES)
    # as generation runs them: with the test's locals shown (runtime_verifier.cmd_run)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors",
                    "--showlocals", f"--junitxml={root}/j.xml",
                    "tests"], cwd=root, capture_output=True, env={**os.environ, "PYTHONPATH": str(root)})
    notes, messages = {}, {}
    runtime_verifier.parse_junit((root / "j.xml").read_text(), workspace=str(root), messages=messages, notes=notes)
    sources = {p: (root / p).read_text() for p in ("tests/test_f.py", "tests/test_new.py", "tests/test_broken.py")}
    f2p = tuple(k for k in notes["failures"] if "::" in k) + ("tests/test_new.py::test_percent",)  # not modules
    return observed.Evidence(failures=notes["failures"], import_errors=messages, fail_to_pass=f2p,
                             test_sources=sources, test_patch_lines=tuple(SIZES.splitlines()))


@pytest.mark.parametrize("name", sorted(SAID))
def test_one_sentence_per_failure_shape(evidence, name):
    test_id = next(t for t in evidence.failures if t.endswith("::" + name) or "::" + name + "[" in t)
    assert observed.sentence(evidence.failures[test_id], evidence, test_id=test_id) == SAID[name]


def test_observed_behaviour_leads_with_import_errors_and_keeps_three(evidence):
    said = observed.observed_behaviour(evidence)
    # Python names only the first name it misses: the others of the same import line are told too
    assert said[0] == ("`from shapes import percent` fails with `ImportError`: `shapes` has no `percent`; it "
                       "should provide it. It should provide `ratio` too. Once it exists, `percent(1, 3)` should "
                       "return `33`.")
    # at most MAX_SENTENCES: next, the names the tests need that do not exist (a name cannot be guessed), then
    # each next one the failure that tells the most code spans not told yet
    spans = {name: set(re.findall(r"`[^`]+`", text)) for name, text in SAID.items() if text}
    names = [next(n for n, t in SAID.items() if t == s) for s in said[1:] if s in SAID.values()]
    assert len(said) == 3 and len(set(names)) == 2, said
    missing = sorted(n for n, t in SAID.items() if t and " does not exist (" in t)
    assert names[0] in missing and missing, names
    told = set(re.findall(r"`[^`]+`", said[0] + said[1]))
    if names[1] not in missing:
        others = [s for n, s in spans.items() if n not in missing]
        assert len(spans[names[1]] - told) == max(len(s - told) for s in others), names
    assert observed.section([]) == ""


def test_a_module_that_fails_to_import_is_told_without_its_line(evidence):
    """A project module with a syntax error stops the test module's collection: the collection error's digest
    (``runtime_verifier.collection_digest``) tells which import failed, with what, and in which file; the line
    (a mutant's, or the fix's place) is not told."""
    assert "tests/test_broken.py" in evidence.import_errors
    one = observed.Evidence(failures=evidence.failures, import_errors={
        "tests/test_broken.py": evidence.import_errors["tests/test_broken.py"]},
        fail_to_pass=("tests/test_broken.py::test_first",), test_sources=evidence.test_sources)
    assert observed.observed_behaviour(one) == [
        "`import shapes.broken` fails with `SyntaxError: no binding for nonlocal 'result' found` (raised in "
        "`shapes/broken.py`); the module should import without error."]
    assert actionability.stated(observed.observed_behaviour(one)[0]) == list(actionability.PARTS)


def test_answers_are_kept_back_when_every_check_would_be_told(evidence):
    """One failing check, told with its expected value, could be passed by special-casing the told input."""
    only = "tests/test_f.py::test_value"
    one = observed.Evidence(failures={only: evidence.failures[only]}, import_errors={}, fail_to_pass=(only,),
                            test_sources=evidence.test_sources)
    assert observed.checks(one) == 1
    assert observed.observed_behaviour(one) == ["Calling `area(2, 3)` returns `5`, which is not the correct "
                                                "result."]
    assert observed.checks(evidence) > 3  # the module's whole set: the answers are told


def test_a_round_trip_tells_its_expectation_without_the_answer(evidence):
    """With the answers kept back, a value that should equal the input it was made from says so: the input is
    told already, so nothing is disclosed that the sentence does not hold."""
    only = "tests/test_f.py::test_round_trip"
    one = observed.Evidence(failures={only: evidence.failures[only]}, import_errors={}, fail_to_pass=(only,),
                            test_sources=evidence.test_sources)
    assert observed.observed_behaviour(one) == [
        "Calling `shapes.Doc('k = 7').as_string()` returns `'k = 7\\n'`; it should return the input it was made "
        "from."]


def test_no_span_repeats_a_test_line(evidence):
    ctx = AuditContext(test_added_lines=TESTS.splitlines() + NEW_TESTS.splitlines())
    for text in SAID.values():
        assert text is None or audit(text, ctx) == [], text


@pytest.mark.parametrize("text, states", [
    ("# Float is not a sequence\n", []),
    ("# Crash\n\n`parse_size('1 kB')` raises `ValueError`; it should return 1000.\n", ["input", "behaviour",
                                                                                      "expectation"]),
    ("# Add a percent helper\n\nIt would be nice to have percent(part, whole).\n", ["expectation"]),
    ("# Wrong total\n\ntotal() ignores its input.\n", ["behaviour"]),
    # an import is the input; a call whose arguments are elided states none
    ("# Percent\n\n`from units import percent` fails with `ImportError`; it should provide it.\n",
     ["input", "behaviour", "expectation"]),
    ("# Loads\n\nCalling `tomli.loads(…)` raises `TOMLDecodeError`; it should not raise.\n", ["behaviour", "expectation"]),
    # an input told in words: which object is passed, which setting is missing, what a variable holds
    ("# Key algorithm\n\nWhen a PyJWK object is passed to jwt.encode() without specifying an algorithm, the token "
     "is signed with HS256 instead of the key's algorithm.\n", ["input", "behaviour", "expectation"]),
    ("# fix: don't crash when an XDG dirs variable holds only separators\n", ["input", "behaviour"]),
    # what is missing is what happens (a compile error's "no method", a module that lacks a name)
    ("# Levels\n\nThe type `Level` has no function or method `up`; it should provide it.\n",
     ["behaviour", "expectation"]),
])
def test_actionability(text, states):
    assert actionability.stated(text) == states


def test_a_local_that_reads_differently_between_runs_is_left_out_and_the_failure_kept():
    """tasks.runtime._steady: the test's locals (``L`` lines of the digest) that differ between the runs before
    the fix go, the rest of the failure stays; a failure whose own text differs goes whole."""
    from repo2env.core.records import TestRun
    from repo2env.tasks.runtime import _steady

    def run(digest):
        return TestRun(label="before", outcomes={"t.py::test_a": "failed"}, collection_errors=(),
                       failure_details={"t.py::test_a": digest}, exit_code=1, seconds=0.1)

    head = "assert 1 == 2\n>       assert f(x) == 2\nE       assert 1 == 2\nt.py:3: AssertionError"
    first = head + "\nL x = 'a'\nL path = '/tmp/pytest-0/test_a0'"
    second = head + "\nL x = 'a'\nL path = '/tmp/pytest-1/test_a0'"
    assert _steady("t.py::test_a", first, [run(first), run(second)]) == head + "\nL x = 'a'"
    assert _steady("t.py::test_a", first, [run(first), run(first.replace("assert 1 == 2", "assert 1 != 7 * 2"))]) \
        is None
    # tenacity pr#603: one time in the message differed between the runs, and the whole failure went; now only
    # that time is masked (and so never quoted), the exception and the call kept
    timed = "ValueError: retry at 16:07:12 failed after 3 attempts\n>       r.retry(f)\nt.py:3: ValueError"
    later = timed.replace("16:07:12", "16:07:15")
    assert _steady("t.py::test_a", timed, [run(timed), run(later)]) == timed.replace("16:07:12", "16:07:0x…")
    assert _steady("t.py::test_a", timed, [run(timed), run(timed.replace("retry at", "retry, at"))]) is None
    # an object's address differs from run to run: masked, the failure kept
    shown = "assert not 1\n +  where 1 = <Check object at 0x7f8c761b9a90>(1.0)"
    other = shown.replace("0x7f8c761b9a90", "0x7f11aa20c3d0")
    assert _steady("t.py::test_a", shown, [run(shown), run(other)]) == shown.replace("0x7f8c761b9a90", "0x…")
    # so does an id() a repr shows in decimal (packaging's <cp311-abi-linux_x86_64 @ 139677940805888>)
    shown = "assert [<cp311-whate...0797952>, ...] == []\n  first extra item: <cp311-x-linux @ 139677940805888>"
    other = shown.replace("139677940805888", "140211536125120")
    assert _steady("t.py::test_a", shown, [run(shown), run(other)]) == shown.replace("139677940805888", "0x…")


def test_a_module_the_test_package_imports_for_the_tests_is_told_by_its_own_name(tmp_path):
    """``from . import units`` in a test file, where ``tests/__init__.py`` says ``import shapes as units`` (so
    that the tests can run against another module): the API is `shapes`, told as such; the test package's module
    is among the files the evidence reads (``relative_imports``)."""
    from repo2env.instructions.observed.evidence import relative_imports

    (tmp_path / "shapes").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "shapes/__init__.py").write_text(PACKAGE)
    (tmp_path / "tests/__init__.py").write_text("import shapes as units\n")
    test = "from . import units\n\n\ndef test_area():\n    assert units.area(2, 3) == 6\n"
    (tmp_path / "tests/test_units.py").write_text(test)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--showlocals",
                    f"--junitxml={tmp_path}/j.xml", "tests"], cwd=tmp_path, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(tmp_path)})
    notes = {}
    runtime_verifier.parse_junit((tmp_path / "j.xml").read_text(), workspace=str(tmp_path), messages={}, notes=notes)
    assert relative_imports({"tests/test_units.py": test}) == ["tests/__init__.py"]
    sources = {p: (tmp_path / p).read_text() for p in ("tests/test_units.py", "tests/__init__.py")}
    evidence = observed.Evidence(failures=notes["failures"], import_errors={},
                                 fail_to_pass=("tests/test_units.py::test_area",), test_sources=sources)
    assert observed.observed_behaviour(evidence) == [
        "Calling `shapes.area(2, 3)` returns `5`, which is not the correct result."]


def test_a_module_that_does_not_exist_yet_is_told_with_the_names_the_tests_take_from_it():
    """`import pkg._parse` fails: saying only that the module should exist leaves the agent to guess what it
    must hold; the names the tests import from it are told (iniconfig-49 said neither)."""
    source = "from pkg._parse import _ParsedLine as PL, parse_lines\n\n\ndef test_lines():\n    assert PL\n"
    evidence = observed.Evidence(failures={}, import_errors={"tests/test_p.py": "ModuleNotFoundError: No module "
                                                             "named 'pkg._parse'"},
                                 fail_to_pass=("tests/test_p.py::test_lines",),
                                 test_sources={"tests/test_p.py": source})
    assert observed.observed_behaviour(evidence) == [
        "`import pkg._parse` fails: there is no module `pkg._parse`; it should exist. The tests take `_ParsedLine` "
        "and `parse_lines` from it."]


def test_a_new_name_used_through_the_tests_locals_is_told_with_what_a_check_expects_of_it():
    """A new class the tests make into a local and then call methods of (marshmallow-1735: ``field =
    fields.IPInterface()``, ``result = field.deserialize(s)``, ``assert isinstance(result, T)``): the missing name
    is told with the call as it would run and what it should give; a check on another local's value too."""
    source = ("import ipaddress\nfrom pkg import fields\n\nKINDS = [fields.Span]\n\n\n"
              "def test_span():\n    field = fields.Span(unit='cm')\n    got = field.load('3 m')\n"
              "    assert isinstance(got, ipaddress.IPv4Address)\n\n\n"
              "def test_dump():\n    field = fields.Span()\n    assert field.dump(300) == '3 m'\n")
    evidence = observed.Evidence(failures={}, import_errors={
        "tests/test_s.py": "E   AttributeError: module 'pkg.fields' has no attribute 'Span'"},
        fail_to_pass=("tests/test_s.py::test_span", "tests/test_s.py::test_dump"),
        test_sources={"tests/test_s.py": source})
    assert observed.observed_behaviour(evidence) == [
        # the made receiver told part by part: whole, `fields.Span(unit='cm')` would copy the test's line
        "`pkg.fields.Span` does not exist (`AttributeError`); it should. Once it exists, `load` of a `fields.Span` "
        "with `unit='cm'` with `'3 m'` should return an instance of `ipaddress.IPv4Address`."]
    one = observed.Evidence(failures={}, import_errors=evidence.import_errors,
                            fail_to_pass=("tests/test_s.py::test_dump",), test_sources=evidence.test_sources)
    # one check, told with its answer, could be passed by special-casing it: the answer is kept back
    assert observed.observed_behaviour(one)[0].endswith("Once it exists, `fields.Span().dump(300)` should work.")


def test_a_value_told_beside_another_keeps_what_differs_in_view():
    """A value shortened so that it copies no test line loses a token it shares with the value told beside it,
    not the one that tells them apart (w3lib-285: `https://evil.com…@good.com/` hid the "/" that was wanted)."""
    from repo2env.instructions.observed.spans import Teller
    source = 'CASES = [("https://evil.com\\\\@good.com/", "https://evil.com/@good.com/")]\n'
    teller = Teller(observed.Evidence(failures={}, import_errors={}, fail_to_pass=(),
                                      test_sources={"tests/test_u.py": source}))
    assert teller.elided("https://evil.com/@good.com/") == "`https://evil…com/@good.com/`"  # a separator goes
    assert teller.elided("https://evil.com/@good.com/", against="https://evil.com%5C@good.com/") == \
        "`https://evil…com/@good.com/`"


def test_a_frozen_clock_and_a_moment_are_told_without_the_tests_tokens():
    """humanize-297: the test froze the clock (``@freeze_time("2023-10-15 23:00:00+00:00")``) and called
    ``naturaldate(future.astimezone(aedt))``; the instruction said ``naturaldate(…)``, with neither the moment nor
    the clock. The clock is told in words and the moment as ISO text, so no span copies the test's tokens."""
    import ast as _ast

    from repo2env.instructions.observed.failing_statement import _clock, patches
    from repo2env.instructions.observed.spans import Substitute

    assert _clock("2023-10-15 23:00:00+00:00") == "15 October 2023, 23:00 UTC"
    assert _clock("2020-01-01") == "1 January 2020" and _clock("2020-01-01T10:30:05+11:00") == \
        "1 January 2020, 10:30:05 UTC+11:00" and _clock("next tuesday") is None
    func = _ast.parse('@freeze_time("2023-10-15 23:00:00+00:00")\ndef test_a():\n    pass\n').body[0]
    assert patches(func) == ["the current time set to 15 October 2023, 23:00 UTC"]
    call = _ast.parse("f(dt.datetime(2023, 10, 16, hour=6, tzinfo=dt.timezone.utc).astimezone("
                      "dt.timezone(dt.timedelta(hours=11))), dt.date(2020, 1, 2))", mode="eval").body
    assert _ast.unparse(Substitute({}).visit(call)) == (
        "f(datetime.fromisoformat('2023-10-16T06:00').replace(tzinfo=timezone.utc).astimezone("
        "timezone(timedelta(hours=11))), date.fromisoformat('2020-01-02'))")


def _pytest_evidence(root, files: dict, test: str, path: str = "") -> observed.Evidence:
    """A real pytest run (``--showlocals``, as generation runs it) of ``files`` under ``root``, read by the
    verifier's own JUnit parser; ``path``: another folder (under ``root``) on ``PYTHONPATH``."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    search = os.pathsep.join([str(root)] + ([str(root / path)] if path else []))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--showlocals",
                    f"--junitxml={root}/j.xml", "tests"], cwd=root, capture_output=True,
                   env={**os.environ, "PYTHONPATH": search})
    notes = {}
    runtime_verifier.parse_junit((root / "j.xml").read_text(), workspace=str(root), messages={}, notes=notes)
    return observed.Evidence(failures=notes["failures"], import_errors={}, fail_to_pass=(test,),
                             test_sources={p: t for p, t in files.items() if p.startswith("tests/")},
                             test_patch_lines=tuple(files[test.split("::")[0]].splitlines()))


def test_a_path_into_the_tests_tree_is_told_by_its_kind_and_a_list_item_by_item(tmp_path):
    """glom-277's class: the argument list names a data file of the test patch, through a name assigned under a
    condition that did not hold (which value it has is the run's, not the source's), and whole it would copy
    the test's line: told with a token left out, the path as what it stands for, never the tests' path itself
    (a list that needs more tokens left out is told item by item, as glom-277's was)."""
    test = ("import os\nimport pkg\n\n\ndef test_w():\n    here = os.path.dirname(os.path.abspath(__file__))\n"
            "    if '.tox' in here:\n        here = os.path.join(here.split('.tox')[0], 'tests')\n"
            "    path = os.path.join(here, 'data', 'ok.toml')\n"
            "    argv = ['--file', path, '--format', 'toml', 'key']\n    assert pkg.main(argv) == 0\n")
    files = {"pkg/__init__.py": "def main(argv):\n    raise ValueError('unknown format: ' + argv[3])\n",
             "tests/data/ok.toml": "key = 1\n", "tests/test_w.py": test}
    evidence = _pytest_evidence(tmp_path, files, "tests/test_w.py::test_w")
    said = observed.observed_behaviour(evidence)
    assert said == ["Calling `pkg.main` with `['--file', <path to a *.toml file>, '--format', …toml', 'key']` (`…`: "
                    "left out) raises `ValueError: unknown format: toml` (in `main` of `pkg/__init__.py`); it should "
                    "not raise."], said
    ctx = AuditContext(test_added_lines=test.splitlines(), hidden_paths=["tests/test_w.py", "tests/data/ok.toml"])
    assert audit(said[0], ctx) == []


def test_a_check_a_testing_library_made_is_told_with_what_its_message_says(tmp_path):
    """glom-280's class: an installed library's testing helper (face's ``CommandChecker``) raised its own error,
    whose message says what ran, what came of it and what was expected; told with that message and the first
    line of the output it quotes."""
    checker = ("class CheckError(Exception):\n    pass\n\n\nclass Runner:\n    def __init__(self, func):\n"
               "        self.func = func\n\n    def run(self, args, exit_code=0):\n        code, out = self.func(args)\n"
               "        if code != exit_code:\n            raise CheckError(f'Got exit code {code} (expected "
               "{exit_code}) when running command: {\" \".join(args)}\\nstdout = \"\"\"\\n{out}\\n\"\"\"')\n"
               "        return out\n")
    files = {"site-packages/checklib/__init__.py": "", "site-packages/checklib/testing.py": checker,
             "pkg/__init__.py": "def main(args):\n    if args[0].startswith('--'):\n"
                                "        return 1, f'error: unknown flag \"{args[0]}\"'\n    return 0, args[0]\n",
             "tests/test_w.py": "import pytest\nfrom checklib.testing import Runner\nimport pkg\n\n\n"
                                "@pytest.fixture\ndef cc():\n    return Runner(pkg.main)\n\n\n"
                                "def test_w(cc):\n    cc.run(['--upper', 'abc'])\n"}
    evidence = _pytest_evidence(tmp_path, files, "tests/test_w.py::test_w", path="site-packages")
    assert observed.observed_behaviour(evidence) == [
        "A check run with `checklib.testing` fails: `CheckError: Got exit code 1 (expected 0) when running command: "
        "--upper abc`; the output is `error: unknown flag \"--upper\"`."]


def test_the_same_call_twice_compared_with_is_is_told_as_identity(tmp_path):
    """glom-198's class: ``assert f(x) is f(x)`` (a cache) was told "returns `P('a')`; it should return `P('a')`",
    which says nothing: what is expected is the very same object, whether values are told or kept back."""
    files = {"pkg/__init__.py": "class P:\n    def __init__(self, t):\n        self.t = t\n\n    def __repr__(self):\n"
                                "        return f'P({self.t!r})'\n\n\ndef parse(t):\n    return P(t)\n",
             "tests/test_w.py": "from pkg import parse\n\n\ndef test_w():\n    assert parse('a.b') is parse('a.b')\n"}
    evidence = _pytest_evidence(tmp_path, files, "tests/test_w.py::test_w")
    assert observed.observed_behaviour(evidence) == [
        "Calling `parse` with `'a.b'` gives `P('a.b')`, a new object each time; it should give the very same object "
        "(identity, not only equality)."]


def test_a_value_that_is_a_name_the_tests_assign_is_left_out_not_cut_by_the_audit(tmp_path):
    """glom-277's class: the audit takes out a name the test patch's lines assign (``test_name``), a data file's key
    among them; a span holding it as a value (``'SECRET'``) was cut to ``''`` after the sentence was made, a changed
    input a reader took as the test's. The sentence leaves such a value out itself (``…``) and the audit then
    finds nothing to cut."""
    test = ("import pkg\n\nSECRET = 'x'\n\n\ndef test_w():\n    assert pkg.main(['--key', 'SECRET', '--verbose', 'x']) == 0\n")
    files = {"pkg/__init__.py": "def main(argv):\n    raise ValueError('unknown option: ' + argv[2])\n",
             "tests/test_w.py": test}
    evidence = _pytest_evidence(tmp_path, files, "tests/test_w.py::test_w")
    said = observed.observed_behaviour(evidence)
    assert said == ["Calling `pkg.main` with a list of 4 items (`'--key'`, `…`, `'--verbose'` and `'x'`) raises "
                    "`ValueError: unknown option: --verbose` (in `main` of `pkg/__init__.py`); it should not raise."], said
    ctx = AuditContext(test_ids=["tests/test_w.py::test_w"], test_added_lines=test.splitlines(),
                       hidden_paths=["tests/test_w.py"])
    assert audit(said[0], ctx) == []


def test_an_object_of_a_class_the_tests_define_is_told_with_the_methods_it_defines(tmp_path):
    """glom-250's class: "an instance of a subclass of `dict` (defined for the test)" read as any dict, and what
    the check expects of it as false: the class's own methods are named (never its body, the test's)."""
    files = {"pkg/__init__.py": "def count(obj):\n    return len(obj)\n",
             "tests/test_w.py": "import pkg\n\n\nclass Strict(dict):\n    def __getitem__(self, key):\n"
                                "        raise KeyError(key)\n\n\ndef test_w():\n    assert pkg.count(Strict(a=1)) == 0\n"}
    evidence = _pytest_evidence(tmp_path, files, "tests/test_w.py::test_w")
    assert observed.observed_behaviour(evidence) == [
        "Calling `pkg.count` with an instance of a subclass of `dict` (defined for the test, with its own "
        "`__getitem__`) returns `1`, which is not the correct result."]  # one check: its answer kept back


def test_the_checks_not_reached_that_are_told_are_those_the_test_patch_adds(tmp_path):
    """glom-250's class: "Also, `glom` with ... should return `[1, 2, 3]`" told a check that held before the fix
    (the test function is old; the patch added other checks to it): only the added checks are told then."""
    import dataclasses

    test = ("from pkg import double\n\n\ndef test_w():\n    assert double(2) == 4\n    assert double(-1) == -2\n"
            "    assert double(0.5) == 1.0\n    assert double(3) == 6\n")
    files = {"pkg/__init__.py": "def double(x):\n    if isinstance(x, float):\n        raise TypeError('float')\n"
                                "    return x * 2\n", "tests/test_w.py": test}
    evidence = _pytest_evidence(tmp_path, files, "tests/test_w.py::test_w")
    added = ("    assert double(0.5) == 1.0", "    assert double(3) == 6")  # the patch's lines; the others held
    said = observed.observed_behaviour(dataclasses.replace(evidence, test_patch_lines=added))
    assert said[1:] == ["Also, `double(3)` should return `6`."], said
    assert "Also, `double(-1)` should return `-2`." in observed.observed_behaviour(evidence)  # every line added
