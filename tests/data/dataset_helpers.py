"""What the dataset tests share: a fresh default graph per test (an autouse fixture for the
modules that import it) and ``collect``, every element of a dataset through a one-shot
iterator and ``Session.run``."""
import pytest

import estimator_npu as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def collect(ds, feed=None):
    """All elements of ``ds`` through a one-shot iterator and ``Session.run``."""
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(nxt, feed))
            except tf.errors.OutOfRangeError:
                return out
