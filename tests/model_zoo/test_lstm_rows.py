"""The row-by-row LSTM classifier reaches its stated accuracy on the bundled digits (8
steps of 8 pixels) and, when Fashion-MNIST is installed, on it (28 steps of 28 pixels);
its variables carry TF1's names."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import estimator_npu as tf  # noqa: E402
from model_zoo import lstm_rows  # noqa: E402

FASHION = pathlib.Path("/usr/share/datasets/fashion-mnist")


def _run(*argv):
    env = dict(os.environ, ASCEND_GLOBAL_LOG_LEVEL="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("OPENBLAS_NUM_THREADS", "1")  # see test_models.run_module
    proc = subprocess.run([sys.executable, "-W", "error", "-m", "model_zoo.lstm_rows", *argv],
                          cwd=ROOT, env=env, timeout=600, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    acc = re.search(r"Test accuracy: ([0-9.]+)", proc.stdout)
    step = re.search(r"at global step (\d+)", proc.stdout)
    assert acc and step, proc.stdout
    return float(acc.group(1)), int(step.group(1))


def test_reaches_its_stated_accuracy_on_the_bundled_digits(tmp_path):
    acc, step = _run("--model_dir", str(tmp_path))
    assert step == lstm_rows.DEFAULTS["steps"]
    assert acc >= lstm_rows.STATED_ACCURACY, acc


def test_fashion_mnist_accuracy(tmp_path):
    if not (FASHION / "train-images-idx3-ubyte.gz").exists():
        pytest.skip(f"Fashion-MNIST is not installed at {FASHION} "
                    "(apt-get install dataset-fashion-mnist)")
    acc, step = _run("--model_dir", str(tmp_path), "--data_dir", str(FASHION), "--steps",
                     str(lstm_rows.FASHION_STEPS))
    assert step == lstm_rows.FASHION_STEPS
    assert acc >= lstm_rows.FASHION_ACCURACY, acc


def test_variables_have_tf1_names():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8])
        lstm_rows.model_fn(x, tf.placeholder(tf.int64, [None]), tf.estimator.ModeKeys.PREDICT,
                           {"learning_rate": 0.01})
        names = sorted(v.name for v in tf.global_variables())
    assert names == ["logits/bias:0", "logits/kernel:0", "rnn/basic_lstm_cell/bias:0",
                     "rnn/basic_lstm_cell/kernel:0"]
