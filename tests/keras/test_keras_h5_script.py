"""A TF1-era tf.keras script keeping its models in HDF5 files runs unmodified through
``estimator-npu run`` and prints what it prints under real TF 2.15."""
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("h5py", reason="h5py (the [h5] extra) is not installed")

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = pathlib.Path(__file__).resolve().parent / "scripts" / "keras_h5_script.py"
TF_PYTHON = "/tmp/tf215/bin/python"

EXPECTED = """\
checkpoints: ['weights.01.hdf5', 'weights.02.hdf5', 'weights.03.hdf5']
without custom_objects: True
loaded model evaluates the same: True
layers: ['tokens', 'numbers', 'embedding', 'dense', 'flatten', 'concatenate', \
'batch_normalization', 'scale', 'label']
training goes on: True
model_from_json + load_weights predicts the same: True
to_yaml: Method `model.to_yaml()` has been removed
files: ['model.h5', 'w.h5']
"""


def _run(cmd, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.run(cmd, cwd=str(cwd), env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


def test_keras_h5_script_runs_unmodified(tmp_path):
    out = _run([sys.executable, "-m", "estimator_npu.run", str(SCRIPT)], tmp_path)
    assert out == EXPECTED
    import h5py
    with h5py.File(str(tmp_path / "weights.03.hdf5"), "r") as f:
        assert {"model_config", "training_config", "keras_version"} <= set(f.attrs)


def test_real_tf_prints_the_same(tmp_path):
    if not os.path.exists(TF_PYTHON):
        pytest.skip(f"real TensorFlow 2.15 is not installed at {TF_PYTHON}")
    assert _run([TF_PYTHON, str(SCRIPT)], tmp_path) == EXPECTED
