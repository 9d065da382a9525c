"""repo2env/graders/eqv_harness.py: outcomes of lazy results and of objects with value semantics are their
items and values, so two runs of a deterministic function agree and a different behaviour does not."""

import collections
import dataclasses
import decimal
import enum
import itertools
import time

from repo2env.graders import eqv_harness as harness


def _out(value):
    return harness.outcome(lambda: value, {"args": []})


def _gen(n):
    for i in range(n):
        yield i * i


def test_an_iterator_is_its_items_and_how_it_ended():
    assert _out(_gen(3)) == ["ok", {"$iter": [[0, 1, 4], "exhausted"]}]
    endless = _out(itertools.count(7))[1]["$iter"]
    assert endless[0] == list(range(7, 7 + harness.ITER_ITEMS)) and endless[1] == "truncated"

    def lazily(items):
        for x in items:
            if x < 0:
                raise ValueError(x)
            yield x
    assert _out(lazily([1, -1, 2])) == ["ok", {"$iter": [[1], ["raise", "ValueError"]]}]
    grouped = _out(itertools.groupby("aab"))[1]  # nested iterators are consumed as they are reached
    assert grouped == {"$iter": [[{"$tuple": ["a", {"$iter": [["a", "a"], "exhausted"]}]},
                                  {"$tuple": ["b", {"$iter": [["b"], "exhausted"]}]}], "exhausted"]}
    assert harness.agree(_out(_gen(3)), _out(_gen(3))) and not harness.agree(_out(_gen(3)), _out([0, 1, 4]))


def test_a_slow_iterator_is_marked_timeout():
    def slow():
        while True:
            time.sleep(0.5)
            yield 1
    assert harness.timed_out(_out(slow())) and not harness.timed_out(_out(_gen(2)))


@dataclasses.dataclass
class Point:
    x: int
    y: list
    note: str = dataclasses.field(default="", compare=False)


class Money:
    def __init__(self, cents):
        self._cents = cents

    def __eq__(self, other):
        return self._cents == other._cents


class Bag:
    __slots__ = ("size",)

    def __init__(self, size):
        self.size = size


class Colour(enum.Enum):
    RED = 1


def test_objects_with_value_semantics_are_their_values():
    assert _out(Point(1, [2], "ignored")) == ["ok", {"$obj": ["Point", [["x", 1], ["y", [2]]]]}]
    assert _out(Money(5)) == ["ok", {"$obj": ["Money", [["_cents", 5]]]}]  # __eq__: private attributes count
    assert _out(Bag(3)) == ["ok", {"$obj": ["Bag", [["size", 3]]]}]
    assert _out(Colour.RED) == ["ok", {"$enum": ["Colour", "RED"]}]
    assert _out(collections.namedtuple("NT", "a b")(1, 2)) == ["ok", {"$named": ["NT", [["a", 1], ["b", 2]]]}]
    assert _out(decimal.Decimal("1.10")) == ["ok", {"$value": ["Decimal", "Decimal('1.10')"]}]
    assert _out(collections.Counter("aab")) == ["ok", {"$map": ["Counter", [["a", 2], ["b", 1]]]}]
    assert _out([1, (2, 3)]) == ["ok", harness.encode([1, (2, 3)])], "plain values encode as before"
    assert harness.agree(_out(Money(5)), _out(Money(5))) and not harness.agree(_out(Money(5)), _out(Money(6)))


def test_a_repr_with_a_memory_address_is_never_compared_raw():
    first, second = _out(object()), _out(object())
    assert first == second == ["ok-opaque", "object", "<object object>"]
    assert _out(len) == ["ok-opaque", "builtin_function_or_method", "<built-in function len>"]
