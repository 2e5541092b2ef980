"""Every queue test builds its pipeline in a fresh default graph."""
import pytest

import estimator_npu as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g
