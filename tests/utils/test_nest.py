"""Tests for estimator_npu.utils.nest."""

import collections
import re

import attr
import numpy as np
import pytest

from estimator_npu.utils import nest

Point = collections.namedtuple("Point", ["x", "y"])
OtherPoint = collections.namedtuple("Point", ["x", "y"])  # same name and fields
Pair = collections.namedtuple("Pair", ["x", "y"])


@attr.s
class AttrsThing:
    a = attr.ib(default=1)
    b = attr.ib(default=2)


def test_leaves():
    array = np.arange(3)
    for leaf in (None, 1, 2.5, "abc", b"abc", array, {1, 2}, AttrsThing()):
        assert not nest.is_nested(leaf)
        flat = nest.flatten(leaf)
        assert len(flat) == 1 and flat[0] is leaf
        assert nest.pack_sequence_as(leaf, ["new"]) == "new"
    assert nest.is_sequence is nest.is_nested


def test_containers_are_nested():
    for container in ([], (), {}, Point(1, 2), collections.OrderedDict(),
                      collections.defaultdict(list)):
        assert nest.is_nested(container)


def test_flatten_order_and_none():
    structure = {"b": [1, None], "a": (2, {"d": 3, "c": 4}), "e": Point(5, 6)}
    assert nest.flatten(structure) == [2, 4, 3, 1, None, 5, 6]
    assert nest.flatten([[], (), {}]) == []
    assert nest.flatten(None) == [None]


def test_pack_sequence_as_round_trip_keeps_types_and_key_order():
    ordered = collections.OrderedDict([("z", 1), ("a", 2)])
    default = collections.defaultdict(int, {"k": 1})
    structure = {"b": [1, (2, 3)], "a": Point(ordered, default), "c": None}
    flat = nest.flatten(structure)
    assert flat == [2, 1, 1, 1, 2, 3, None]  # OrderedDict flattens in sorted key order
    packed = nest.pack_sequence_as(structure, [10 * v if v else v for v in flat])
    assert list(packed) == ["b", "a", "c"]
    assert packed["b"] == [10, (20, 30)]
    assert isinstance(packed["a"], Point)
    assert type(packed["a"].x) is collections.OrderedDict
    assert list(packed["a"].x.items()) == [("z", 10), ("a", 20)]
    assert type(packed["a"].y) is collections.defaultdict
    assert packed["a"].y.default_factory is int and packed["a"].y == {"k": 10}
    assert packed["c"] is None


def test_pack_sequence_as_wrong_count():
    with pytest.raises(ValueError, match="Structure had 3 elements, but flat_sequence had 2"):
        nest.pack_sequence_as([1, (2, 3)], [1, 2])
    with pytest.raises(ValueError, match="Structure had 1 elements, but flat_sequence had 0"):
        nest.pack_sequence_as("leaf", [])


def test_pack_sequence_as_needs_a_sequence():
    with pytest.raises(TypeError, match="flat_sequence must be a sequence.*got str"):
        nest.pack_sequence_as([1], "a")
    with pytest.raises(TypeError, match="got int"):
        nest.pack_sequence_as([1], 5)
    assert nest.pack_sequence_as([1, 2], (7, 8)) == [7, 8]


def test_unsortable_keys():
    with pytest.raises(TypeError, match="sortable keys"):
        nest.flatten({1: "a", "b": 2})


def test_map_structure():
    a = {"x": [1, 2], "y": Point(3, 4)}
    b = {"y": Point(30, 40), "x": [10, 20]}
    result = nest.map_structure(lambda u, v: u + v, a, b)
    assert result == {"x": [11, 22], "y": Point(33, 44)}
    assert isinstance(result["y"], Point)
    assert nest.map_structure(str, None) == "None"
    with pytest.raises(ValueError, match="same nested structure"):
        nest.map_structure(lambda u, v: u, [1, 2], [1])
    with pytest.raises(TypeError, match="func must be callable"):
        nest.map_structure(3, [1])
    with pytest.raises(TypeError, match="at least one structure"):
        nest.map_structure(abs)
    assert nest.map_structure(lambda u, v: v, [1], (2,), check_types=False) == [2]


def test_assert_same_structure_passes():
    nest.assert_same_structure({"a": [1, (2,)]}, {"a": [5, (6,)]})
    nest.assert_same_structure(Point(1, 2), OtherPoint(3, 4))
    nest.assert_same_structure({"a": 1}, collections.OrderedDict(a=2))
    nest.assert_same_structure([1, 2], (3, 4), check_types=False)
    nest.assert_same_structure(np.zeros(3), "leaf")


@pytest.mark.parametrize("a,b,error,detail", [
    ([1, 2], [1], ValueError, "2 elements in one structure but 1"),
    ({"a": 1}, {"b": 1}, ValueError, "same set of keys"),
    ([1, [2]], [1, 2], ValueError, r"\[1\] is a list in one structure but a leaf"),
    ([1, 2], (1, 2), TypeError, "same sequence type"),
    (Point(1, 2), Pair(1, 2), TypeError, "has type Point in the first and Pair"),
    ({"a": 1}, [1], TypeError, "same sequence type"),
])
def test_assert_same_structure_mismatch(a, b, error, detail):
    with pytest.raises(error) as info:
        nest.assert_same_structure(a, b)
    message = str(info.value)
    assert "First structure: %r" % (a,) in message
    assert "Second structure: %r" % (b,) in message
    assert re.search(detail, message), message


def _random_structure(rng, depth=0):
    kind = rng.integers(0, 8) if depth < 4 else 0
    size = int(rng.integers(0, 4))
    if kind == 0:
        return None if rng.random() < 0.1 else int(rng.integers(0, 100))
    children = [_random_structure(rng, depth + 1) for _ in range(size)]
    if kind == 1:
        return children
    if kind == 2:
        return tuple(children)
    if kind == 3:
        keys = list(rng.permutation(["k%d" % i for i in range(size)]))
        return dict(zip([str(k) for k in keys], children))
    if kind == 4:
        return Point(_random_structure(rng, depth + 1), _random_structure(rng, depth + 1))
    if kind == 5:
        keys = [str(k) for k in rng.permutation(["q%d" % i for i in range(size)])]
        return collections.OrderedDict(zip(keys, children))
    if kind == 6:
        keys = [str(k) for k in rng.permutation(["d%d" % i for i in range(size)])]
        return collections.defaultdict(list, zip(keys, children))
    return int(rng.integers(0, 100))


def _same_types(a, b):
    assert type(a) is type(b)
    if isinstance(a, collections.defaultdict):
        assert a.default_factory is b.default_factory
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            _same_types(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        for x, y in zip(a, b):
            _same_types(x, y)


def test_flatten_with_packer_matches_pack_sequence_as():
    rng = np.random.default_rng(0)
    for _ in range(300):
        structure = _random_structure(rng)
        flat, pack = nest.flatten_with_packer(structure)
        assert flat == nest.flatten(structure)
        values = [("v", i) for i in range(len(flat))]
        expected = nest.pack_sequence_as(structure, values)
        for given in (values, tuple(values)):
            got = pack(given)
            assert got == expected
            _same_types(got, expected)


def test_flatten_with_packer_fast_paths():
    flat, pack = nest.flatten_with_packer("t")
    assert flat == ["t"] and pack(["u"]) == "u"
    flat, pack = nest.flatten_with_packer(["a", "b"])
    assert pack is list and flat == ["a", "b"]
    flat, pack = nest.flatten_with_packer(("a", "b"))
    assert pack is tuple
    _, pack = nest.flatten_with_packer({"b": 1, "a": 2})
    assert list(pack([20, 10])) == ["b", "a"] and pack([20, 10]) == {"a": 20, "b": 10}
    _, pack = nest.flatten_with_packer(Point(1, 2))
    assert pack([5, 6]) == Point(5, 6) and type(pack([5, 6])) is Point
    _, pack = nest.flatten_with_packer([])
    assert pack([]) == []


def test_flatten_with_packer_results_are_fresh():
    _, pack = nest.flatten_with_packer({"a": [1, 2], "b": (3,)})
    first = pack([1, 2, 3])
    first["a"].append(99)
    assert pack([1, 2, 3]) == {"a": [1, 2], "b": (3,)}
