"""repo2env/tasks/eqv/discover.py, mutants.py and task_module.py on hand-made sources."""

import ast

from repo2env.tasks.eqv.discover import functions_in, module_name, select
from repo2env.tasks.eqv.mutants import mutants
from repo2env.tasks.eqv.task_module import delegating, reference_copy, strip_from_module, stub
from tests.helpers.repos import CORE

SOURCE = '''\
import os
import random
from .util import norm

LIMIT = 10


def good(a, b=2):
    """Add."""
    c = norm(a) + b
    if c > LIMIT:
        return LIMIT
    return c


def uses_random(n):
    x = random.random()
    y = n * x
    return y


def uses_os(p):
    q = os.path.join(p, "x")
    r = q.upper()
    return r


def _private(a):
    b = a
    c = b
    return c


def star(*args):
    a = 1
    b = 2
    return args


def bad_default(a, b=LIMIT):
    c = a
    d = b
    return c + d


def tiny(a):
    return a


def mutates_global(a):
    global LIMIT
    LIMIT = a
    return a
'''


def test_module_names():
    assert module_name("src/pkg/mod.py") == "pkg.mod" and module_name("pkg/__init__.py") == "pkg"
    assert module_name("tests/test_x.py") is None and module_name("setup.py") is None
    assert module_name("pkg/tests/helpers.py") is None and module_name("docs/conf.py") is None


def test_only_pure_public_functions_with_stub_able_signatures():
    found = functions_in("pkg/mod.py", SOURCE)
    assert [f.name for f in found] == ["good"]
    good = found[0]
    assert good.free_names == ("LIMIT", "norm") and good.arg_names == ("a", "b")
    assert good.signature == "def good(a, b=2)" and good.docstring == "Add."
    assert [f.name for f in functions_in("textkit/core.py", CORE)] == ["slugify", "clamp", "count_vowels"]


def test_selection_is_seeded_and_reproducible():
    found = functions_in("textkit/core.py", CORE)
    assert [f.name for f in select(found, 1, 2)] == [f.name for f in select(found, 1, 2)]
    assert {tuple(f.name for f in select(found, s, None)) for s in range(6)} != {("slugify", "clamp", "count_vowels")}


def test_task_module_variants_compile_and_import_their_context():
    fn = functions_in("pkg/mod.py", SOURCE)[0]
    for text in (stub(fn), reference_copy(fn), delegating(fn)):
        ast.parse(text)
        assert "from pkg.mod import LIMIT, norm" in text
    assert "raise NotImplementedError" in stub(fn) and '"""Add.' in stub(fn)
    stripped = strip_from_module(SOURCE, fn)
    assert "c = norm(a) + b" not in stripped and '"""Add."""\n    raise NotImplementedError' in stripped
    assert "def uses_random(n):" in stripped


def test_mutants_change_one_thing_each():
    fn = functions_in("textkit/core.py", CORE)[1]  # clamp
    made = mutants(fn.source, limit=50)
    kinds = {d.split("@")[0] for d, _ in made}
    assert {"compare", "negate_if", "return_none"} <= kinds
    assert len({src for _, src in made}) == len(made) and all(src != fn.source for _, src in made)
    for _, src in made:
        ast.parse(src)
    assert mutants(fn.source, limit=5, seed=1) == mutants(fn.source, limit=5, seed=1)
