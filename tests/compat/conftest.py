"""Fixtures for the compat tests: a small MNIST-shaped IDX folder, a runner that runs a
script through ``python -m estimator_npu.run`` in a subprocess, and ``aliases`` (the
tensorflow / npu_bridge import aliases installed for one test)."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from estimator_npu.datasets import mnist

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = pathlib.Path(__file__).resolve().parent / "scripts"


def _images(labels, rng):
    """28x28 uint8 images: noise plus a bright band of rows whose place is the label."""
    images = rng.integers(0, 60, size=(labels.size, 28, 28)).astype(np.uint8)
    for k in range(10):
        images[labels == k, 2 * k + 3:2 * k + 6, 4:24] = 230
    return images


@pytest.fixture(scope="session")
def mnist_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mnist")
    rng = np.random.default_rng(0)
    for images_name, labels_name, n in ((mnist.TRAIN_IMAGES, mnist.TRAIN_LABELS, 5100),
                                        (mnist.TEST_IMAGES, mnist.TEST_LABELS, 200)):
        labels = rng.integers(0, 10, size=n).astype(np.uint8)
        mnist.write_idx(folder / (images_name + ".gz"), _images(labels, rng))
        mnist.write_idx(folder / (labels_name + ".gz"), labels)
    return folder


def _run_script(name, *args, cwd, expect_rc=0, via="module", env=None):
    """Runs ``scripts/<name>`` with ``args`` unmodified; returns the CompletedProcess."""
    env = dict(os.environ, **(env or {}), PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    script = name if os.path.isabs(str(name)) else str(SCRIPTS / name)
    if via == "module":
        cmd = [sys.executable, "-m", "estimator_npu.run", script, *map(str, args)]
    else:
        cmd = [sys.executable, "-c", "import sys; from estimator_npu.cli import main; "
               "sys.exit(main())", "run", script, *map(str, args)]
    proc = subprocess.run(cmd, cwd=str(cwd), env=env, capture_output=True, text=True,
                          timeout=300)
    if expect_rc is not None and proc.returncode != expect_rc:
        raise AssertionError(f"{name} exited {proc.returncode}, expected {expect_rc}\n"
                             f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-5000:]}")
    return proc


@pytest.fixture
def run_script():
    """``run_script(name, *args, cwd=..., expect_rc=0, via="module"|"cli")``."""
    return _run_script


