"""The ``ApplyUpdates`` range protocol that the tailing optimization uses: a ``grad_hook``
returning an iterator of ``(group, start, stop)`` ranges gets the update applied range by
range, with exactly the numbers of one whole-buffer update."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors

OPTIMIZERS = {
    "sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
    "adam": lambda: tf.train.AdamOptimizer(0.01),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.5),
    "lamb": lambda: tf.train.LAMBOptimizer(0.01, weight_decay_rate=0.1,
                                           exclude_from_weight_decay=["b"]),
}


def _run(kind, hook_factory, steps=3):
    rng = np.random.default_rng(7)
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(rng.standard_normal((4, 3)), name="w")
        b = tf.Variable(rng.standard_normal(3), name="b")
        c = tf.Variable(rng.standard_normal(5), name="c")
        loss = (tf.reduce_sum(tf.square(tf.matmul(tf.ones([2, 4], tf.float64), w) + b))
                + tf.reduce_sum(tf.sin(c)))
        opt = OPTIMIZERS[kind]()
        gs = tf.train.get_or_create_global_step()
        op = opt.apply_gradients(opt.compute_gradients(loss), global_step=gs,
                                 grad_hook=hook_factory() if hook_factory else None)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            applied = [bool(sess.run(op.outputs[0])) for _ in range(steps)]
            return sess.run([w, b, c, gs]), applied


def _ranges_hook(cuts):
    """A hook yielding consecutive ranges of group 0 cut at ``cuts`` (plus the end)."""
    def hook(flat_grads, layouts):
        size = layouts[0].size
        bounds = [0] + [c for c in cuts if 0 < c < size] + [size]

        def ranges():
            for a, b in zip(bounds, bounds[1:]):
                yield 0, a, b
        return ranges()
    return hook


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_tensor_aligned_ranges_equal_the_whole_update(kind):
    want, _ = _run(kind, None)
    got, applied = _run(kind, lambda: _ranges_hook([12, 15]))   # [w] [b] [c]
    assert applied == [True] * 3
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kind", ["sgd", "adam", "rmsprop"])
def test_elementwise_rules_accept_any_ranges(kind):
    want, _ = _run(kind, None)
    got, _ = _run(kind, lambda: _ranges_hook([1, 7, 13, 14, 19]))
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_lamb_needs_tensor_boundaries():
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"LAMB applies per-tensor math.*tensor boundaries "
                             r"\[0, 12, 15, 20\]; got \[0:7\]"):
        _run("lamb", lambda: _ranges_hook([7]))


@pytest.mark.parametrize("ranges, match", [
    ([(0, 0, 12), (0, 13, 20)], "does not follow the previous range of group 0, which "
                                "ended at 12"),
    ([(0, 0, 12)], "end at 12, not at its size 20"),
    ([(0, 0, 25)], "within the group's 20 elements"),
])
def test_ranges_must_cover_the_buffer_in_order(ranges, match):
    def factory():
        return lambda flat_grads, layouts: iter(ranges)
    with pytest.raises(errors.InvalidArgumentError, match=match):
        _run("sgd", factory)


@pytest.mark.parametrize("skip", [False, np.False_])
def test_a_false_result_still_skips(skip):
    (w, b, c, gs), applied = _run("adam", lambda: (lambda fg, lay: skip))
    assert applied == [False] * 3 and gs == 0
