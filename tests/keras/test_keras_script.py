"""A TF1 tf.keras script run unmodified through ``estimator-npu run``."""
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = pathlib.Path(__file__).resolve().parent / "scripts" / "keras_cnn_script.py"


def test_keras_cnn_script_runs_unmodified(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", "import sys; from estimator_npu.cli import "
                           "main; sys.exit(main())", "run", str(SCRIPT), "--epochs", "4"],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = proc.stdout
    assert 'Model: "sequential"' in out and "Total params: " in out
    assert "Train on 500 samples, validate on 100 samples" in out
    epochs = re.findall(r"500/500 - \d+s - loss: ([\d.e+-]+) - acc: ([\d.e+-]+) - val_loss: "
                        r"[\d.e+-]+ - val_acc: ([\d.e+-]+)", out)
    assert len(epochs) == 4, out
    assert float(epochs[-1][0]) < float(epochs[0][0])
    acc = float(re.search(r"Test accuracy: ([\d.]+)", out).group(1))
    assert acc > 0.9, out
    pred = re.search(r"predicted classes: (\[.*\])", out).group(1)
    true = re.search(r"true classes: (\[.*\])", out).group(1)
    assert sum(a == b for a, b in zip(eval(pred), eval(true))) >= 8
    assert "history keys: ['acc', 'loss', 'val_acc', 'val_loss']" in out
    assert "graph loss went down: True" in out
    assert "graph variables: ['conv2d/kernel', 'conv2d/bias', 'dense/kernel', 'dense/bias']" \
        in out
    assert (tmp_path / "ckpt" / "final.index").exists()
    assert any(p.name.startswith("weights.") for p in (tmp_path / "ckpt").iterdir())
