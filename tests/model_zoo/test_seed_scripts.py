"""The seed's scripts, ported by changing imports only, train and insert the loop."""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run(module, timeout=300):
    env = dict(os.environ, ASCEND_GLOBAL_LOG_LEVEL="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", module], cwd=ROOT, env=env, timeout=timeout,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout, proc.stderr


def _epoch_costs(stdout):
    return [float(c) for c in re.findall(r"cost= ([0-9.]+)", stdout)]


@pytest.mark.parametrize("module", ["model_zoo.mnist_softmax_sessrun",
                                    "model_zoo.mnist_softmax_frozen"])
def test_seed_script_trains_and_logs_the_inserted_loop(module):
    out, err = _run(module)
    costs = _epoch_costs(out)
    assert len(costs) == 10, out
    assert costs[-1] < 0.8 * costs[0], costs
    assert all(b <= a + 1e-6 for a, b in zip(costs, costs[1:])), costs
    assert "Insert op success, name:" in err
    assert "load iterations_per_loop value 10" in err
    acc = float(re.search(r"Test accuracy: ([0-9.]+)", out).group(1))
    assert acc > 0.8, out


@pytest.mark.parametrize("module", ["model_zoo.mnist_softmax_sessrun",
                                    "model_zoo.mnist_softmax_frozen"])
def test_seed_script_flags(module, tmp_path):
    env = dict(os.environ, ASCEND_GLOBAL_LOG_LEVEL="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "--iterations_per_loop" in proc.stdout, proc.stderr
    assert "--data_dir" in proc.stdout and "--epochs" in proc.stdout
    from estimator_npu.datasets import digits, mnist
    data = digits.load(mnist_shape=True)
    # MNIST-named files (read_data_sets keeps 5000 training images for validation)
    for split, prefix, copies in ((data.train, "train", 4), (data.test, "t10k", 1)):
        images = (split.images.reshape(-1, 28, 28) * 255).astype("uint8")
        labels = split.labels.argmax(1) if split.labels.ndim == 2 else split.labels
        mnist.write_idx(str(tmp_path / f"{prefix}-images-idx3-ubyte.gz"),
                        np.concatenate([images] * copies))
        mnist.write_idx(str(tmp_path / f"{prefix}-labels-idx1-ubyte.gz"),
                        np.concatenate([labels.astype("uint8")] * copies))
    proc = subprocess.run([sys.executable, "-m", module, "--epochs", "2",
                           "--iterations_per_loop", "5", "--data_dir", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(_epoch_costs(proc.stdout)) == 2, proc.stdout
    assert "load iterations_per_loop value 5" in proc.stderr
    assert "Test accuracy:" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", module, "--epochs", "x"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--epochs" in proc.stderr


def test_seed_scripts_differ_from_the_documentation_only_in_imports_and_data():
    """Everything after the imports is the adapter's documented code."""
    for name in ("mnist_softmax_sessrun.py", "mnist_softmax_frozen.py"):
        text = (ROOT / "model_zoo" / name).read_text()
        assert "util.set_iteration_per_loop(sess, optimizer, FLAGS.iterations_per_loop)" \
            in text or "iteration.create_iteration_per_loop_var(optimizer)" in text
        assert 'custom_op.name = "NpuOptimizer"' in text
        assert "config.graph_options.rewrite_options.remapping = RewriterConfig.OFF" in text


def test_main_job_reaches_its_stated_accuracy(capsys):
    sys.path.insert(0, str(ROOT))
    from model_zoo import mnist_softmax
    assert mnist_softmax.main([]) == 0
    out = capsys.readouterr().out
    acc = float(re.search(r"Test accuracy: ([0-9.]+)", out).group(1))
    assert acc >= mnist_softmax.STATED_ACCURACY, out
