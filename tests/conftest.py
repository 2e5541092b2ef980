"""Shared fixtures.

``run_real_tf(code)`` runs ``code`` under a Python with real TensorFlow 2.15 (``$TF_PYTHON``,
default ``/tmp/tf215/bin/python``) and asserts it exits 0; without one the test skips,
saying why. Tests write what TF should read into ``tmp_path`` and read back what it wrote."""
import os
import subprocess

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
