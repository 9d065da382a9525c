"""The observed-behaviour sentences never tell the tests' own modules as the API: a helper module under a test
folder (``tests/support.py``, imported as ``tests.support``, ``support`` or ``.support``) is the tests', and so is
a call made through it; an ambiguous or guarded call is not told wrongly. Each case is a real pytest run read by
the verifier's own JUnit parser, with the repository's test files listed as the pipelines list them."""

import os
import subprocess
import sys

import pytest

from repo2env.graders import runtime_verifier
from repo2env.instructions import observed
from repo2env.instructions.leak_audit import AuditContext, audit
from repo2env.instructions.observed.evidence import module_names_of
from repo2env.languages.python.files import is_test_path

BROKEN_AT_IMPORT = "def scale(x):\n    return x / 0\n\n\nFACTOR = scale(3)\n"
RAISES = "def scale(x):\n    return x / 0\n"

CASES = {
    # a test helper module imports the project, which fails at import: the helper is not the project's module
    "helper_module_absolute": ({
        "pkg/mod.py": BROKEN_AT_IMPORT, "tests/__init__.py": "",
        "tests/support.py": "from pkg.mod import FACTOR\n\n\ndef make_widget():\n    return FACTOR\n",
        "tests/test_w.py": "from tests.support import make_widget\n\n\ndef test_w():\n    assert make_widget() == 1\n",
    }, []),
    "helper_module_bare": ({
        "pkg/mod.py": BROKEN_AT_IMPORT,
        "tests/support.py": "from pkg.mod import FACTOR\n\n\ndef make_widget():\n    return FACTOR\n",
        "tests/test_w.py": "from support import make_widget\n\n\ndef test_w():\n    assert make_widget() == 1\n",
    }, []),
    "helper_module_relative": ({
        "pkg/mod.py": BROKEN_AT_IMPORT, "tests/__init__.py": "",
        "tests/support.py": "from pkg.mod import FACTOR\n\n\ndef make_widget():\n    return FACTOR\n",
        "tests/test_w.py": "from .support import make_widget\n\n\ndef test_w():\n    assert make_widget() == 1\n",
    }, []),
    # the project's own module fails at import, through another of its modules: told, with the file that raised
    "project_module": ({
        "pkg/mod.py": "import pkg.inner\n", "pkg/inner.py": BROKEN_AT_IMPORT,
        "tests/test_w.py": "import pkg.mod\n\n\ndef test_w():\n    assert pkg.mod\n",
    }, ["`import pkg.mod` fails with `ZeroDivisionError: division by zero` (raised in `pkg/inner.py`); the module "
        "should import without error."]),
    # a helper function of a test module reached the project: the helper's call is the tests', not the API
    "helper_function": ({
        "pkg/mod.py": RAISES,
        "tests/helpers.py": "from pkg.mod import scale\n\n\ndef build_widget(n):\n    return scale(n) + 1\n",
        "tests/test_w.py": "from helpers import build_widget\n\n\ndef test_w():\n    def inner():\n"
                           "        return build_widget(3)\n    assert inner() is not None\n",
    }, []),
    # the helper itself raised: nothing of the project's to tell
    "helper_raises": ({
        "pkg/__init__.py": "def kind():\n    return 'round'\n",
        "tests/helpers.py": "SIZES = {'square': 4}\n\n\ndef widget_size(k):\n    return SIZES[k]\n",
        "tests/test_w.py": "import pkg\nfrom helpers import widget_size\n\n\ndef test_w():\n    def inner():\n"
                           "        return widget_size(pkg.kind())\n    assert inner() == 4\n",
    }, []),
    # a test module's name bound to a helper (an alias of the tests', not of the API)
    "helper_alias": ({
        "pkg/__init__.py": "def area(w, h):\n    return w * h - 1\n",
        "tests/fakes.py": "import pkg\n\n\ndef fake_area(w, h):\n    return pkg.area(w, h)\n",
        "tests/test_w.py": "import fakes\n\n\ndef test_w():\n    compute = fakes.fake_area\n    assert compute(3, 3) == 9\n",
    }, []),
    # two calls of the function on the line: the traceback does not say which one raised
    "two_calls": ({
        "pkg/__init__.py": "def load(name):\n    if name == 'bad.json':\n        raise ValueError('cannot read ' + name)"
                           "\n    return {}\n",
        "tests/test_w.py": "from pkg import load\n\n\ndef both():\n    return load('good.json'), load('bad.json')\n\n\n"
                           "def test_w():\n    assert both() == ({}, {})\n",
    }, []),
    # a data-driven test whose helpers pass the API on (w3lib-285: ``_check(url, output=...)`` ->
    # ``_check_func(url, output=..., func=safe_url_string)`` -> ``assert func(url, **kwargs) == output``): told
    # as the API's call, its arguments from the case, ``**kwargs`` left empty where the test set no option
    "helper_passes_the_api": ({
        "pkg/__init__.py": "def slug(s, sep='-'):\n    return s.replace(' ', '_')\n",
        "tests/test_w.py": "import pytest\nfrom pkg import slug\n\n\ndef _check_func(text, *, output, func, sep=None):\n"
                           "    kwargs = {}\n    if sep is not None:\n        kwargs['sep'] = sep\n"
                           "    actual = func(text, **kwargs)\n    assert actual == output\n\n\n"
                           "def _check(text, *, output):\n    return _check_func(text, output=output, func=slug)\n\n\n"
                           "@pytest.mark.parametrize(('text', 'output'), [('a b', 'a-b'), ('c d', 'c-d'), ('e f', 'e-f'),"
                           " ('g h', 'g-h')])\ndef test_w(text, output):\n    _check(text, output=output)\n",
    }, ["Calling `slug('a b')` returns `'a_b'`; it should return `'a-b'`.",
        "Calling `slug('c d')` returns `'c_d'`; it should return `'c-d'`.",
        "Calling `slug('e f')` returns `'e_f'`; it should return `'e-f'`."]),
    # a test stops at its first failed check: the checks after it are told too, with their answers while one
    # check at least stays untold (here four checks: the failure, then two more)
    "checks_not_reached": ({
        "pkg/__init__.py": "def join(parts, sep=';'):\n    return ','.join(parts)\n",
        "tests/test_w.py": "from pkg import join\n\n\ndef test_w():\n    assert join(['a', 'b']) == 'a;b'\n"
                           "    assert join(['c']) == 'c'\n    assert join(['x', 'y'], sep='|') == 'x|y'\n"
                           "    assert join([]) == ''\n",
    }, ["Calling `join` with `['a'… 'b']` (`…`: left out) returns `'a,b'`; it should return `'a;b'`.",
        "Also, `join` with `['c']` should return `'c'`.", "Also, `join([])` should return `''`."]),
    # the checks not reached are told under what the test changed above them, as the failure is (a clock set,
    # an attribute replaced): without it "should return" would claim a result that holds only then
    "checks_not_reached_under_a_change": ({
        "pkg/__init__.py": "SEP = ','\n\n\ndef join(parts):\n    return SEP.join(parts)\n",
        "tests/test_w.py": "import pkg\nfrom pkg import join\n\n\ndef test_w(monkeypatch):\n"
                           "    monkeypatch.setattr(pkg, 'SEP', '+')\n    assert join(['a', 'b']) == 'a;b'\n"
                           "    assert join(['c']) == 'c'\n    assert join([]) == ''\n",
    }, ["With `pkg.SEP` replaced by `'+'`: calling `join` with `['a'… 'b']` (`…`: left out) returns `'a+b'`; it "
        "should return `'a;b'`.", "Also, with `pkg.SEP` replaced by `'+'`, `join` with `['c']` should return `'c'`."]),
    # a value the test states whole (its expected message, its expected result) would copy the test's line: it
    # is told with the fewest tokens left out, a separator before a word that differs (tomli-229, tomli-238)
    "expected_message_stated_whole": ({
        "pkg/__init__.py": "def loads(s):\n    return s.replace('=', ':')\n",
        "tests/test_w.py": "import pytest\nimport pkg\n\n\ndef test_w():\n    with pytest.raises(TypeError) as info:\n"
                           "        pkg.loads(b'v = 1')\n"
                           "    assert str(info.value) == \"Expected str object, not 'bytes'\"\n",
    }, ["Calling `pkg.loads` with `b'v = 1'` raises `TypeError` with the message `\"a bytes-like object is required, "
        "not 'str'\"`; the message should be `\"Expected str object, … 'bytes'\"`."]),
    "expected_value_stated_whole": ({
        "pkg/__init__.py": "class Err(Exception):\n    pass\n",
        "tests/test_w.py": "import pkg\n\n\ndef test_w():\n    formatted = 'error parsing (at line 3, column 2)'\n"
                           "    e = pkg.Err('error parsing', 13)\n    assert e.args == (formatted,)\n    assert e.lineno == 3\n",
    }, ["Reading `args` of `pkg.Err` with `'error parsing'` and `13` gives `(…error parsing', 13)`; it should be "
        "`('… parsing (at line 3… column 2)',)`: it has more items than expected; it goes on with `13`."]),
    # the value under test on the comparison's right (``assert 'col' == f(x)``): what it returned is the failure's
    # right side (sqlparse-397 told the expected value as the result)
    "value_on_the_right": ({
        "pkg/__init__.py": "def last(text):\n    return text.split('.')[1]\n",
        "tests/test_w.py": "import pkg\n\n\ndef test_w():\n    assert 'col' == pkg.last('db.schema.col')\n"
                           "    assert 'b' == pkg.last('a.b')\n",
    }, ["Calling `pkg.last` with `'db.schema.col'` returns `'schema'`; it should return `'col'`."]),
    # names bound by unpacking (``p, = parse(s)``) and a lambda standing for a call (``f = lambda s: parse(s)``):
    # told as the call they stand for (sqlparse-633, sqlparse-398)
    "unpacked_through_a_lambda": ({
        "pkg/__init__.py": "class Stmt:\n    def kind(self):\n        return 'UNKNOWN'\n\n\n"
                           "def parse(text):\n    return [Stmt()]\n",
        "tests/test_w.py": "import pkg\n\n\ndef test_w():\n    f = lambda sql: pkg.parse(sql)\n"
                           "    p, = f('with x select 1')\n    assert p.kind() == 'SELECT'\n    assert len(f('a')) == 1\n",
    }, ["Calling `pkg.parse('with x select 1'…[0].kind()` returns `'UNKNOWN'`; it should return `'SELECT'`."]),
    # the test replaces a name the fix adds (``monkeypatch.setattr("pkg.timer", …)``): pytest's own message says
    # the module lacks it (funcy-118)
    "replaced_name_the_fix_adds": ({
        "pkg/__init__.py": "import time\n\n\ndef elapsed(start):\n    return time.time() - start\n",
        "tests/test_w.py": "import pkg\n\n\ndef test_w(monkeypatch):\n    monkeypatch.setattr('pkg.timer', lambda: 5)\n"
                           "    assert pkg.elapsed(2) == 3\n",
    }, ["`pkg.timer` does not exist (`AttributeError`); it should."]),
    # the project's own function named like a builtin, imported from the project (funcy's ``map``): its API
    "project_function_named_like_a_builtin": ({
        "pkg/__init__.py": "def map(f, xs):\n    return [f(x) for x in xs][:-1]\n",
        "tests/test_w.py": "from pkg import map\n\n\ndef test_w():\n    assert map(str, [1, 2]) == ['1', '2']\n"
                           "    assert map(str, []) == []\n",
    }, ["Calling `map` with `str` and `[1, 2]` returns `['1']`; it should return `['…', '2']`: it has fewer items than "
        "expected; the expected result goes on with `'2'`."]),
    # an isinstance check: what the call returned and the class it should be (validators-411 said "gives `False`;
    # it should be a true value", the check's own False, and sent the reader the wrong way)
    "instance_check": ({
        "pkg/__init__.py": "class Invalid:\n    pass\n\n\ndef email(s):\n    return True\n",
        "tests/test_w.py": "from pkg import Invalid, email\n\n\ndef test_w():\n"
                           "    assert isinstance(email('a b@c.com'), Invalid)\n    assert email('a@c.com')\n",
    }, ["Calling `email` with a string of 9 characters `'a b@c…com'` (`…`: left out) returns `True`; it should return "
        "an instance of `Invalid`."]),
    # a fixture is not a function the project decorates (glom-280 was told "For a function `func` decorated with
    # `@pytest.fixture`, calling `func.run([...])`": pytest's name read as the project's, since the test imports it)
    "fixture_is_not_the_projects_decorator": ({
        "pkg/__init__.py": "class Checker:\n    def run(self, a):\n        return 1\n",
        "tests/test_w.py": "import pytest\nimport pkg\n\n\n@pytest.fixture\ndef cc():\n    checker = pkg.Checker()\n"
                           "    return checker\n\n\ndef test_w(cc):\n    assert cc.run('x') == 0\n"
                           "    assert cc.run('y') == 0\n",
    }, []),
    # an f-string whose parts are known is told as the string it makes (bleach-488: ``clean(f"<{tag}>")`` with
    # ``tag`` a parametrized case was told ``clean(f'<{'wbr'}>')``)
    "f_string_of_known_parts": ({
        "pkg/__init__.py": "def clean(text):\n    return text + '</' + text[1:]\n",
        "tests/test_w.py": "import pytest\nfrom pkg import clean\n\n\n@pytest.mark.parametrize('tag', ['br', 'hr'])\n"
                           "def test_w(tag):\n    assert clean(f'<{tag}>') == f'<{tag}>'\n",
    }, ["Calling `clean('<br>')` returns `'<br></br>'`; it should return the input it was made from.",
        "Calling `clean('<hr>')` returns `'<hr></hr>'`; it should return the input it was made from."]),
    # a call's arguments that do not fit raise before its body runs (no frame of it in the traceback): only the
    # call named in the TypeError may be told, never another call on the line (python-semver-462 blamed
    # `bump_patch` for `v.bump_patch().bump_prerelease(bump_when_empty=True)`)
    "bad_keyword_in_a_chain": ({
        "pkg/__init__.py": "class V:\n    def bump(self):\n        return V()\n\n    def pre(self):\n"
                           "        return self\n\n\ndef make(text):\n    return V()\n",
        "tests/test_w.py": "from pkg import make\n\n\ndef test_w():\n    v = make('3.4.5')\n"
                           "    assert v.bump().pre(when_empty=True) is not None\n",
    }, ["Calling `make('3.4…5').bump()…pre(when_empty=True)` raises `TypeError: V.pre() got an unexpected keyword "
        "argument 'when_empty'`; it should not raise."]),  # the whole chain, a token or two left out: not `bump`
    # the project's code raised in a lambda: its entry has no def line, and the test function's name (an
    # earlier entry's) is never taken for it
    "lambda": ({
        "pkg/__init__.py": "def pick(which):\n    keep = lambda name: name in which\n    return keep('a')\n",
        "tests/test_w.py": "from pkg import pick\n\n\ndef test_w():\n    assert pick(None)\n",
    }, ["Calling `pick(None)` raises `TypeError: argument of type 'NoneType' is not iterable` (in `pkg/__init__.py`); "
        "it should return a true value."]),
    # the innermost frame expects an exception: what should happen is that one, not "no error"
    "inner_raises": ({
        "pkg/__init__.py": "def strict(name):\n    raise ValueError('wrong kind')\n",
        "tests/test_w.py": "import pytest\nimport pkg\n\n\ndef test_w():\n    def check():\n"
                           "        with pytest.raises(KeyError):\n            pkg.strict('x')\n    check()\n",
    }, ["Calling `pkg.strict` with `'x'` raises `ValueError: wrong kind` (in `strict` of `pkg/__init__.py`); it should "
        "raise `KeyError`."]),
}


def _evidence(root, files: dict) -> observed.Evidence:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1",
                    "--continue-on-collection-errors", f"--junitxml={root}/j.xml", f"--rootdir={root}", "tests"],
                   cwd=root, capture_output=True, env={**os.environ, "PYTHONPATH": str(root)})
    notes, messages = {}, {}
    runtime_verifier.parse_junit((root / "j.xml").read_text(), workspace=str(root), messages=messages, notes=notes)
    failures = notes.get("failures", {})
    f2p = tuple(k for k in failures if "::" in k) + tuple(f"{p}::test_w" for p in messages)
    return observed.Evidence(failures=failures, import_errors=messages, fail_to_pass=f2p,
                             test_sources={"tests/test_w.py": files["tests/test_w.py"]},
                             test_modules=module_names_of(p for p in files if is_test_path(p)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_tests_own_modules_are_never_the_api(tmp_path, name):
    files, said = CASES[name]
    evidence = _evidence(tmp_path, files)
    assert evidence.failures or evidence.import_errors  # the case did fail before the fix
    told = observed.observed_behaviour(evidence)
    assert told == said
    ctx = AuditContext(test_added_lines=files["tests/test_w.py"].splitlines(), hidden_paths=["tests/test_w.py"])
    assert all(audit(text, ctx) == [] for text in told)


def test_module_names_of_test_files():
    assert module_names_of(["tests/helpers/fakes.py", "tests/__init__.py", "tests/data.json"]) == frozenset(
        {"tests.helpers.fakes", "helpers.fakes", "fakes", "tests"})
