"""``tf.test``: the device queries scripts make (there is no GPU: every answer says so) and
``TestCase`` / ``main`` for TF-style unit tests (``unittest``'s, with TF's helpers
``assertAllClose`` / ``assertAllEqual`` and a ``session()`` context)."""
import contextlib
import unittest

import numpy as np

main = unittest.main


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """False: estimator_npu computes on the host CPU."""
    return False


def is_built_with_cuda():
    return False


def is_built_with_gpu_support():
    return False


def gpu_device_name():
    """``''``: there is no GPU device."""
    return ""


class TestCase(unittest.TestCase):
    """``unittest.TestCase`` plus TF's array assertions and ``session()``."""

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=msg or "")

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        np.testing.assert_array_equal(a, b, err_msg=msg or "")

    @contextlib.contextmanager
    def session(self, graph=None, config=None):
        from estimator_npu.engine.session import Session
        with Session(graph=graph, config=config) as sess:
            yield sess

    cached_session = session
    test_session = session
