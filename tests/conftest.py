"""Shared fixtures.

``run_real_tf(code)`` runs ``code`` under a Python with real TensorFlow 2.15 (``$TF_PYTHON``,
default ``/tmp/tf215/bin/python``) and asserts it exits 0; without one the test skips,
saying why. Tests write what TF should read into ``tmp_path`` and read back what it wrote.

``gradcheck`` is the finite-difference checker of tests/engine/gradcheck.py, for tests of
other folders. ``aliases`` installs the ``tensorflow`` / ``npu_bridge`` module aliases
(``estimator_npu.compat.install()``) for the test and removes them after."""
import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

TF_PYTHON = os.environ.get("TF_PYTHON", "/tmp/tf215/bin/python")
_PRELUDE = ("import os\nos.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'\nimport numpy as np\n"
            "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n")


@pytest.fixture
def run_real_tf():
    if not os.path.exists(TF_PYTHON):
        pytest.skip(f"real TensorFlow not installed ({TF_PYTHON} missing; set TF_PYTHON)")

    def run(code):
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
        env.pop("PYTHONPATH", None)
        proc = subprocess.run([TF_PYTHON, "-c", _PRELUDE + code], capture_output=True,
                              text=True, timeout=300, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc
    return run


@pytest.fixture
def check_recorded_values():
    """``check(tf, build, want, rtol, atol)``: runs ``build(tf)`` (a list of tensors) in a
    fresh graph, variables initialised, and compares the values and dtypes with ``want``,
    a ``{"values", "dtypes"}`` record of real TF (``tools/record_tf_op_values.record``)."""
    import numpy as np
    import estimator_npu as tf

    def check(build, want, rtol=2e-6, atol=2e-6):
        with tf.Graph().as_default():
            tensors = build(tf)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                values = sess.run(tensors)
        assert [t.dtype.name for t in tensors] == want["dtypes"]
        assert len(values) == len(want["values"])
        for got, exp in zip(values, want["values"]):
            if not np.size(exp):  # the JSON of an empty array keeps no shape
                assert np.size(got) == 0
                continue
            assert np.shape(got) == np.shape(exp)
            np.testing.assert_allclose(np.asarray(got, np.float64),
                                       np.asarray(exp, np.float64), rtol=rtol, atol=atol)
    return check


@pytest.fixture
def gradcheck():
    """tests/engine/gradcheck.py (the module test_gradients loads, under the same name)."""
    name = "estimator_npu_tests_engine_gradcheck"
    if name not in sys.modules:
        path = pathlib.Path(__file__).parent / "engine" / "gradcheck.py"
        spec = importlib.util.spec_from_file_location(name, path)
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def aliases():
    from estimator_npu import compat
    compat.install()
    try:
        yield
    finally:
        compat.uninstall()
