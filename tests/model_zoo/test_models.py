"""The model-zoo examples train on the bundled digits: softmax, MLP and LeNet reach their
stated accuracy with their defaults; ResNet and BERT run a short budget and their loss
falls; every example takes the common flags, and the flags take effect."""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import estimator_npu as tf  # noqa: E402
from model_zoo import bert, common, lenet, mlp, resnet, softmax_estimator  # noqa: E402

MODELS = [softmax_estimator, mlp, lenet, resnet, bert]


def _parse(out):
    acc = re.search(r"Test accuracy: ([0-9.]+)", out)
    loss = re.search(r"Test loss: ([0-9.]+) at global step (\d+)", out)
    assert acc and loss, out
    return float(acc.group(1)), float(loss.group(1)), int(loss.group(2))


def run_main(module, capsys, *argv):
    """Runs ``module.main(argv)`` in this process; returns its printed
    ``(test accuracy, test loss, global step)``."""
    assert module.main(list(argv)) == 0
    return _parse(capsys.readouterr().out)


def run_module(module, *argv):
    """Runs ``python -m <module> argv``; returns ``(accuracy, loss, step)`` and the training
    losses the Estimator logged (``loss = ..., step = ...``), in step order.

    A child process with one OpenBLAS thread: when other processes load the machine, a
    2-thread BLAS on 2 cores spends its time waiting for the busy core (5x slower here),
    and one thread is about as fast on an idle machine for these small matrices.
    """
    env = dict(os.environ, ASCEND_GLOBAL_LOG_LEVEL="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    proc = subprocess.run([sys.executable, "-W", "error", "-m", module.__name__, *argv],
                          cwd=ROOT, env=env, timeout=600, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    losses = [float(m) for m in re.findall(r"loss = ([-+0-9.eE]+|nan|inf), step = \d+",
                                           proc.stderr)]
    return _parse(proc.stdout), losses


@pytest.mark.parametrize("module", [softmax_estimator, mlp, lenet],
                         ids=lambda m: m.__name__.split(".")[-1])
def test_reaches_its_stated_accuracy_with_its_defaults(module, tmp_path):
    (acc, _, step), losses = run_module(module, "--model_dir", str(tmp_path))
    assert step == module.DEFAULTS["steps"]
    assert acc >= module.STATED_ACCURACY, (module.__name__, acc)
    assert losses[-1] < losses[0], losses


@pytest.mark.parametrize("module, steps, argv", [
    # 120 steps with the learning rate decayed to 0 (cosine): at a constant 0.1 the weights
    # still move fast at the end, the batch-norm moving averages lag them, and test
    # accuracy (computed with them) ranged 0.63-0.92 over seeds 0-2 (0.10-0.83 at 60
    # steps) and failed the bound intermittently; decayed, it is 0.97-0.99 for seeds 0-2.
    (resnet, 120, ["--iterations_per_loop", "5", "--lr_schedule", "cosine"]),
    # and the default: LAMB under NPUOptimizer with dynamic loss scaling
    (bert, 100, ["--precision_mode", "allow_mix_precision"]),
], ids=["resnet", "bert"])
def test_short_budget_loss_falls(module, steps, argv, tmp_path):
    (acc, _, step), losses = run_module(module, "--model_dir", str(tmp_path), "--steps",
                                        str(steps), "--log_step_count_steps", "5", *argv)
    assert step == steps
    assert len(losses) >= steps // 10, losses
    assert np.all(np.isfinite(losses)), losses
    assert np.mean(losses[-3:]) < 0.8 * losses[0], losses
    assert acc > 0.2, acc  # chance is 0.1 (batch-norm statistics lag early in training)


@pytest.mark.parametrize("module", MODELS, ids=lambda m: m.__name__.split(".")[-1])
def test_every_model_takes_the_common_flags(module):
    parser = common.make_parser(module.__doc__, **module.DEFAULTS)
    args = parser.parse_args(["--iterations_per_loop", "10", "--precision_mode",
                              "allow_mix_precision", "--loss_scale", "dynamic", "--steps", "5",
                              "--model_dir", "d", "--data_dir", "m", "--batch_size", "8",
                              "--learning_rate", "0.1", "--seed", "3"])
    assert (args.iterations_per_loop, args.precision_mode, args.loss_scale, args.steps) == \
        (10, "allow_mix_precision", "dynamic", 5)
    config = common.run_config(args)
    assert isinstance(config, tf.npu.NPURunConfig)
    assert (config.iterations_per_loop, config.precision_mode, config.tf_random_seed) == \
        (10, "allow_mix_precision", 3)
    assert 0 < module.STATED_ACCURACY <= 1
    assert f"{module.STATED_ACCURACY:.2f}" in module.__doc__  # the docstring states it


def _weights(model_dir):
    return {name: tf.train.load_variable(model_dir, name) for name in ("W", "b")}


def test_iterations_per_loop_gives_the_same_weights(tmp_path, capsys):
    """SPEC §5: the same data and steps give the same weights for any iterations_per_loop."""
    results = {}
    for ipl in (1, 10):
        model_dir = str(tmp_path / f"ipl{ipl}")
        results[ipl] = run_main(softmax_estimator, capsys, "--model_dir", model_dir,
                                "--steps", "100", "--iterations_per_loop", str(ipl))
        results[ipl] += (_weights(model_dir),)
    assert results[1][:3] == results[10][:3]
    for name in ("W", "b"):
        np.testing.assert_allclose(results[1][3][name], results[10][3][name], rtol=1e-6,
                                   atol=1e-7)


def test_precision_mode_computes_in_fp16_and_still_trains(tmp_path, capsys):
    fp32, mixed = str(tmp_path / "fp32"), str(tmp_path / "mixed")
    run_main(softmax_estimator, capsys, "--model_dir", fp32, "--steps", "100")
    acc, _, _ = run_main(softmax_estimator, capsys, "--model_dir", mixed, "--steps", "100",
                         "--precision_mode", "allow_mix_precision")
    a, b = _weights(fp32)["W"], _weights(mixed)["W"]
    assert not np.array_equal(a, b)  # the matmuls were rounded to fp16
    np.testing.assert_allclose(a, b, atol=2e-2)
    assert acc >= softmax_estimator.STATED_ACCURACY - 0.02


@pytest.mark.parametrize("loss_scale", ["128", "dynamic"])
def test_loss_scale_of_a_power_of_two_changes_nothing_in_fp32(loss_scale, tmp_path, capsys):
    """Scaling the loss by 2**k and the gradients by 2**-k is exact in fp32 (the dynamic
    scale starts at 2**15 and, without overflow, stays there for 1000 steps)."""
    plain, scaled = str(tmp_path / "plain"), str(tmp_path / "scaled")
    run_main(softmax_estimator, capsys, "--model_dir", plain, "--steps", "50")
    run_main(softmax_estimator, capsys, "--model_dir", scaled, "--steps", "50",
             "--loss_scale", loss_scale)
    np.testing.assert_array_equal(_weights(plain)["W"], _weights(scaled)["W"])
    if loss_scale == "dynamic":  # the manager's scale is a checkpointed variable
        names = [n for n, _ in tf.train.list_variables(scaled) if n.endswith("loss_scale")]
        assert len(names) == 1, tf.train.list_variables(scaled)
        assert tf.train.load_variable(scaled, names[0]) == 2.0 ** 15


def test_evaluate_mode_reads_the_checkpoint(tmp_path, capsys):
    model_dir = str(tmp_path)
    trained = run_main(softmax_estimator, capsys, "--model_dir", model_dir, "--steps", "50")
    assert run_main(softmax_estimator, capsys, "--model_dir", model_dir, "--mode",
                    "evaluate") == trained
    assert softmax_estimator.main(["--mode", "evaluate", "--model_dir",
                                   str(tmp_path / "empty")]) == 2
    assert "needs a checkpoint in --model_dir" in capsys.readouterr().err


@pytest.mark.parametrize("value, expected", [
    ("dynamic", "dynamic"), ("DYNAMIC", "dynamic"), ("128", 128.0), ("1", 1.0),
    ("none", None)])
def test_loss_scale_flag(value, expected):
    assert common.loss_scale_flag(value) == expected


@pytest.mark.parametrize("value", ["0.5", "abc", "inf", "-4"])
def test_loss_scale_flag_rejects(value, capsys):
    parser = common.make_parser(mlp.__doc__, **mlp.DEFAULTS)
    with pytest.raises(SystemExit) as e:
        parser.parse_args(["--loss_scale", value])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--loss_scale" in err and repr(value) in err


def test_loss_scale_managers():
    from estimator_npu import mixed_precision
    assert common.loss_scale_manager(None) is None
    assert isinstance(common.loss_scale_manager("dynamic"),
                      mixed_precision.ExponentialUpdateLossScaleManager)
    assert isinstance(common.loss_scale_manager(64.0), mixed_precision.FixedLossScaleManager)


def test_data_dir_reads_mnist_idx_files(tmp_path, capsys):
    """``--data_dir``: MNIST IDX files (here the bundled digits written in MNIST's format)."""
    from estimator_npu.datasets import digits, mnist
    data = digits.load(mnist_shape=True, flatten=False, dtype=np.uint8)
    for split, prefix in ((data.train, "train"), (data.test, "t10k")):
        images = (split.images[..., 0].astype(np.int32) * 255 // 16).astype(np.uint8)
        mnist.write_idx(str(tmp_path / f"{prefix}-images-idx3-ubyte.gz"), images)
        mnist.write_idx(str(tmp_path / f"{prefix}-labels-idx1-ubyte.gz"),
                        split.labels.astype(np.uint8))
    args = common.parse_args(["--data_dir", str(tmp_path)], mlp.__doc__, **mlp.DEFAULTS)
    arrays = common.load_digits(args, "image32")
    assert arrays.train_x.shape == (data.train.num_examples, 32, 32, 1)
    assert arrays.test_x.shape == (data.test.num_examples, 32, 32, 1)
    acc, _, _ = run_main(softmax_estimator, capsys, "--data_dir", str(tmp_path), "--model_dir",
                         str(tmp_path / "model"), "--steps", "100")
    assert acc >= softmax_estimator.STATED_ACCURACY - 0.05


def test_load_digits_layouts():
    args = common.parse_args([], mlp.__doc__, **mlp.DEFAULTS)
    shapes = {layout: common.load_digits(args, layout).train_x.shape[1:]
              for layout in ("flat784", "image28", "image32", "rows")}
    assert shapes == {"flat784": (784,), "image28": (28, 28, 1), "image32": (32, 32, 1),
                      "rows": (8, 8)}
    data = common.load_digits(args, "rows")
    assert data.train_x.shape[0] + data.test_x.shape[0] == 1797
    assert data.train_y.dtype == np.int64 and data.train_x.dtype == np.float32
    with pytest.raises(ValueError, match="layout must be one of"):
        common.load_digits(args, "image64")


def test_resnet_augmentation_flips_and_crops_each_image_with_tf_image_ops():
    """ResNet's Fashion-MNIST input pipeline: every image is a 2-pixel-shifted crop of the
    zero-padded image, mirrored or not, each image drawing its own offset and flip, made of
    tf.image graph ops (RandomCrop, ReverseV2), not a py_func."""
    rng = np.random.default_rng(0)
    x = rng.random((64, 8, 8, 1)).astype(np.float32) + 0.5   # no zeros inside an image
    y = np.arange(64, dtype=np.int64)

    class Config:
        num_workers, worker_index = 1, 0
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        ds = common.train_input_fn(x, y, 64, augment=common.random_flip_crop(2, 0))(Config())
        images, labels = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess:
            out, order = sess.run([images, labels])
    with tf.Graph().as_default() as graph:   # the ops map traces (in a graph of its own)
        common.random_flip_crop(2, 0)(tf.placeholder(tf.float32, [8, 8, 1]), 0)
        op_types = {op.type for op in graph.get_operations()}
    assert "RandomCrop" in op_types and "PyFunc" not in op_types, op_types
    padded = np.pad(x, ((0, 0), (2, 2), (2, 2), (0, 0)))
    seen = set()
    for image, label in zip(out, order):
        matches = [(dy, dx, flip) for dy in range(5) for dx in range(5) for flip in (0, 1)
                   if np.array_equal(image, (padded[label, dy:dy + 8, dx:dx + 8, :]
                                             [:, ::-1] if flip else
                                             padded[label, dy:dy + 8, dx:dx + 8, :]))]
        assert matches, label
        seen.update(matches)
    assert {flip for _, _, flip in seen} == {0, 1}           # some mirrored, some not
    assert len({(dy, dx) for dy, dx, _ in seen}) > 5         # offsets differ per image
