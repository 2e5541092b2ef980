"""model_zoo.mlp_tfrecord writes the bundled digits as TFRecord files and trains from
them to the same accuracy (the same loss, to the digit) as model_zoo.mlp's in-memory
pipeline."""
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import estimator_npu as tf  # noqa: E402
from model_zoo import mlp, mlp_tfrecord  # noqa: E402


def _run(module, *argv):
    # A child process with one BLAS thread, as tests/model_zoo/test_models.py does.
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH",
                                                                              ""))
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    proc = subprocess.run([sys.executable, "-W", "error", "-m", module.__name__, *argv],
                          cwd=ROOT, env=env, timeout=600, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _result(out):
    acc = float(re.search(r"Test accuracy: ([0-9.]+)", out).group(1))
    loss = float(re.search(r"Test loss: ([0-9.]+)", out).group(1))
    return acc, loss


def test_trains_from_its_tfrecords_as_well_as_in_memory(tmp_path):
    data_dir = tmp_path / "tfr"
    assert mlp_tfrecord.main(["--make_tfrecords", str(data_dir)]) == 0
    files = sorted(p.name for p in data_dir.iterdir())
    assert files == ["test.tfrecord"] + [f"train-{k:05d}-of-00004.tfrecord"
                                          for k in range(4)]
    first = next(tf.python_io.tf_record_iterator(str(data_dir / "test.tfrecord")))
    ex = tf.train.Example.FromString(first)
    assert len(ex.features.feature["image"].float_list.value) == 784
    steps = ["--steps", "150"]
    from_files = _result(_run(mlp_tfrecord, "--data_dir", str(data_dir), "--model_dir",
                              str(tmp_path / "a"), *steps))
    in_memory = _result(_run(mlp, "--model_dir", str(tmp_path / "b"), *steps))
    assert from_files == in_memory
    assert from_files[0] >= 0.9


def test_needs_a_data_dir(capsys):
    assert mlp_tfrecord.main([]) == 2
    assert "--make_tfrecords" in capsys.readouterr().err
