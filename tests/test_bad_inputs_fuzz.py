"""Random shapes, dtypes and nestings thrown at ``Session.run`` feeds and
``Dataset.from_tensor_slices`` (issue 17): every value either works (and then has the
placeholder's dtype and a compatible shape) or fails with a documented error type —
``TypeError`` or ``ValueError`` — whose message names the placeholder (or
``from_tensor_slices`` and the component)."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import estimator_npu as tf

DTYPES = [tf.float32, tf.float64, tf.int32, tf.int64, tf.uint8, tf.bool, tf.float16]
NP_DTYPES = [np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.bool_,
             np.float16, np.uint16]

scalars = st.one_of(
    st.integers(min_value=-2**70, max_value=2**70), st.floats(allow_nan=True),
    st.booleans(), st.text(max_size=3), st.none(), st.just(object()), st.just({"k": 1}))


def nested_lists(leaf):
    return st.recursive(leaf, lambda inner: st.lists(inner, max_size=4), max_leaves=12)


arrays = st.builds(
    lambda dt, shape, seed: (np.random.default_rng(seed).normal(size=shape) * 100).astype(dt),
    st.sampled_from(NP_DTYPES), st.lists(st.integers(0, 3), max_size=3).map(tuple),
    st.integers(0, 2**16))
feed_values = st.one_of(nested_lists(scalars), arrays,
                        st.lists(arrays, min_size=1, max_size=3))
placeholder_shapes = st.one_of(
    st.none(), st.lists(st.one_of(st.none(), st.integers(0, 3)), max_size=3))


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(DTYPES), placeholder_shapes, feed_values)
def test_session_run_feeds(dtype, shape, value):
    with tf.Graph().as_default() as graph:
        ph = tf.placeholder(dtype, shape, name="fuzzed_input")
        with tf.Session(graph=graph) as sess:
            try:
                out = sess.run(ph, {ph: value})
            except (TypeError, ValueError) as e:
                assert "fuzzed_input" in str(e), f"{type(e).__name__}: {e}"
                return
    out = np.asarray(out)
    assert out.dtype == dtype.np, (out.dtype, dtype)
    assert ph.shape.is_compatible_with(out.shape), (out.shape, ph.shape)


def structures(leaf):
    return st.recursive(
        leaf, lambda inner: st.one_of(
            st.tuples(inner, inner), st.dictionaries(st.sampled_from("abc"), inner,
                                                     min_size=1, max_size=3)),
        max_leaves=4)


slice_leaves = st.one_of(nested_lists(scalars), arrays)


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(structures(slice_leaves))
def test_from_tensor_slices(value):
    with tf.Graph().as_default():
        try:
            ds = tf.data.Dataset.from_tensor_slices(value)
        except (TypeError, ValueError) as e:
            assert "from_tensor_slices" in str(e), f"{type(e).__name__}: {e}"
            if isinstance(value, (tuple, dict)) and ("ragged" in str(e) or "holds" in str(e)):
                assert "component" in str(e), str(e)
            return
        # it worked: every element comes out with the declared dtypes
        it = ds.make_one_shot_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            try:
                first = sess.run(nxt)
            except tf.errors.OutOfRangeError:
                return      # an empty dataset
        for got, want in zip(_flatten(first), _flatten(ds.output_types)):
            kind = np.asarray(got).dtype.kind
            assert kind in "OSU" if want == tf.string else np.asarray(got).dtype == want.np, \
                (got, want)


def _flatten(x):
    if isinstance(x, dict):
        return [y for k in sorted(x) for y in _flatten(x[k])]
    if isinstance(x, tuple):
        return [y for v in x for y in _flatten(v)]
    return [x]
