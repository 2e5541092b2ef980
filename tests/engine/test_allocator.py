"""A session keeps freed array memory in the process (engine/allocator.py): a training
step that frees and re-allocates the same memory every step does not page-fault."""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# An LSTM training step over a while_loop (the pattern that faulted: ~465 minor page
# faults per step of the bench model with glibc's default thresholds); prints the minor
# faults per step once warm.
_SCRIPT = """
import resource, sys
import numpy as np
import estimator_npu as tf
from estimator_npu.engine import allocator
if sys.argv[1] == "default":
    allocator.retain_freed_memory = lambda: False  # keep glibc's defaults
rng = np.random.default_rng(0)
x = rng.standard_normal((64, 28, 28)).astype(np.float32)
xs = tf.placeholder(tf.float32, [64, 28, 28])
out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(128), xs, dtype=tf.float32)
train = tf.train.GradientDescentOptimizer(0.01).minimize(tf.reduce_mean(out[:, -1] ** 2))
sess = tf.Session()
sess.run(tf.global_variables_initializer())
for _ in range(3):
    sess.run(train, {xs: x})
r0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    sess.run(train, {xs: x})
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - r0) / 5)
print(allocator._applied)
"""


def _faults_per_step(mode):
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, mode], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": str(ROOT),
                                                       "PATH": "/usr/bin:/bin",
                                                       "OPENBLAS_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr
    faults, applied = proc.stdout.split()
    return float(faults), applied == "True"


def test_a_session_retains_freed_memory_so_training_steps_do_not_page_fault():
    if not sys.platform.startswith("linux"):
        pytest.skip("mallopt thresholds are glibc's (Linux); elsewhere the call does nothing")
    faults, applied = _faults_per_step("retain")
    if not applied:
        pytest.skip("this libc has no mallopt: nothing to check")
    default, _ = _faults_per_step("default")
    print(f"minor page faults per training step: {faults:.0f} (glibc defaults: {default:.0f})")
    assert faults < 20, faults
