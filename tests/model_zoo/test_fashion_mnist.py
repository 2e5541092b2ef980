"""Every model-zoo example on Fashion-MNIST, a short budget each: the training loss falls
and a modest test accuracy (on the first 1,000 test images) is reached. Skips when the
dataset is not installed. The presets' full accuracies are docs/results.md's business
(``estimator-npu benchmark``), not the unit tests'."""
import math
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from estimator_npu.datasets import fashion_mnist  # noqa: E402

try:
    fashion_mnist.find_data_dir()
    INSTALLED = True
except FileNotFoundError:
    INSTALLED = False
needs_data = pytest.mark.skipif(
    not INSTALLED, reason="Fashion-MNIST not installed (apt-get install dataset-fashion-mnist)")

# model: (flags of the short budget, accuracy it must reach on 1,000 test images)
BUDGETS = {
    # learning rate 0.1, not the preset's 0.5: at 0.5 the first 100 steps oscillate (loss
    # 1 to 9), so the accuracy at step 100 swings with the last bits of the BLAS in use
    # (0.614 in a fresh CI venv, 0.697 here); at 0.1 the loss falls steadily (0.723 here)
    "softmax_estimator": (["--steps", "100", "--batch_size", "100", "--learning_rate", "0.1"],
                          0.65),
    "mlp": (["--steps", "100", "--batch_size", "64"], 0.65),
    "lenet": (["--steps", "100", "--batch_size", "32", "--learning_rate", "0.01"], 0.45),
    "cnn": (["--steps", "30", "--batch_size", "32"], 0.45),
    "resnet": (["--steps", "40", "--batch_size", "16", "--learning_rate", "0.05"], 0.25),
    "bert": (["--steps", "60", "--batch_size", "32"], 0.25),
    "lstm_rows": (["--steps", "60", "--batch_size", "32"], 0.25),
}


@needs_data
@pytest.mark.parametrize("model", sorted(BUDGETS))
def test_short_budget_on_fashion_mnist(model, tmp_path):
    flags, accuracy = BUDGETS[model]
    env = dict(os.environ, ASCEND_GLOBAL_LOG_LEVEL="1", OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-m", f"model_zoo.{model}", "--dataset", "fashion_mnist",
         "--model_dir", str(tmp_path), "--iterations_per_loop", "5",
         "--log_step_count_steps", "5", "--test_examples", "1000", "--lr_schedule",
         "constant", *flags], cwd=ROOT, env=env, timeout=300, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    losses = [float(m) for m in re.findall(r"loss = ([-+0-9.eE]+|nan|inf), step = \d+",
                                           proc.stderr)]
    assert len(losses) >= 4, proc.stderr[-3000:]
    assert all(math.isfinite(v) for v in losses), losses
    head, tail = losses[:2], losses[-2:]
    assert sum(tail) < 0.8 * sum(head), losses
    found = re.search(r"Test accuracy: ([0-9.]+)", proc.stdout)
    assert found, proc.stdout
    assert float(found.group(1)) >= accuracy, proc.stdout
    assert re.search(r"at global step %s\b" % flags[1], proc.stdout), proc.stdout


def test_stated_fashion_mnist_accuracies_are_the_results_pages():
    """Each example's ``FASHION_MNIST_ACCURACY`` is its row of docs/results.md (measured by
    ``estimator-npu benchmark``) to within 0.5 points; unmeasured presets state None."""
    import importlib
    import json
    rows = {r["model"]: r for r in json.loads(
        (ROOT / "docs" / "results" / "results.json").read_text())}
    page = (ROOT / "docs" / "results.md").read_text()
    for model in BUDGETS:
        stated = importlib.import_module(f"model_zoo.{model}").FASHION_MNIST_ACCURACY
        if stated is None:
            continue
        assert model in rows, f"{model} states {stated} but has no row in docs/results.md"
        assert abs(rows[model]["accuracy"] - stated) <= 0.005, (model, stated, rows[model])
        assert f"| {model} |" in page and "%.4f" % rows[model]["accuracy"] in page
