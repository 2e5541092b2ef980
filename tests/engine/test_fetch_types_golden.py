"""``Session.run`` returns what TF 2.15 returns, type for type: a numpy scalar
(``np.float32``, ``np.int64``, ``np.bool_``, ``bytes``) for every computed 0-d result —
random ops, reductions, casts, indexing, control flow, py_func, iterators, variables —
and an ndarray otherwise; a fetched feed is the fed value as an array.
Goldens: tools/record_fetch_type_goldens.py (cases in fetch_type_cases.py)."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = json.loads((HERE / "golden" / "fetch_types_tf215.json").read_text())["cases"]
_spec = importlib.util.spec_from_file_location("fetch_type_cases",
                                               HERE / "fetch_type_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
OURS = cases.run_all(tf)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_fetch_type_matches_tf(name):
    assert OURS[name] == GOLDEN[name], name


def test_golden_covers_the_cases():
    assert set(OURS) == set(GOLDEN) and len(GOLDEN) >= 100


def test_unknown_rank_fetch_is_a_scalar_only_when_the_value_is_0d():
    # the conversion is decided per run for tensors of unknown static rank
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int32, None)
        out = tf.identity(p) * 2
        with tf.Session() as sess:
            scalar = sess.run(out, {p: 3})
            vector = sess.run(out, {p: [1, 2]})
    assert type(scalar) is np.int32 and scalar == 6
    assert type(vector) is np.ndarray and vector.tolist() == [2, 4]


def test_int_random_scalar_is_hashable():
    # the reported case: a 0-d int32 random value is np.int32, as TF returns it (a 0-d
    # ndarray is not hashable: scripts that count draws in a dict or set failed)
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        r = tf.random_uniform([], maxval=10, dtype=tf.int32)
        with tf.Session() as sess:
            values = [sess.run(r) for _ in range(5)]
    assert all(type(v) is np.int32 and 0 <= v < 10 for v in values)
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    assert sum(counts.values()) == 5 and set(counts) <= set(range(10))
