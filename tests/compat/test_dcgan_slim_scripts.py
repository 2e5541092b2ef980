"""A DCGAN (conv2d_transpose, two var_list optimizers) run unmodified via estimator-npu run."""
import re


def test_dcgan_with_conv2d_transpose_and_two_var_list_optimizers(tmp_path, run_script):
    proc = run_script("dcgan_transpose.py", "--steps", "10", "--out_dir", "ckpt", cwd=tmp_path)
    out = proc.stdout
    # the stacked output_shape keeps its constant entries, as TF1's shape inference does
    assert "generator output (?, 8, 8, 1)" in out
    assert "gen vars 7 disc vars 6" in out
    assert ("transpose kernels ['gen/conv2d_transpose/kernel', 'gen/dense/kernel', "
            "'gen/up_kernel']") in out
    assert "generator unchanged by the discriminator step: True" in out
    losses = re.findall(r"step (\d+): d_loss ([0-9.]+) g_loss ([0-9.]+)", out)
    assert [s for s, _, _ in losses] == ["1", "5", "10"]
    assert all(0 < float(d) < 5 and 0 < float(g) < 5 for _, d, g in losses)
    assert "samples (4, 8, 8, 1) in [-1, 1]: True" in out
    state = (tmp_path / "ckpt" / "checkpoint").read_text()
    assert 'model_checkpoint_path: "dcgan.ckpt-10"' in state
    assert (tmp_path / "ckpt" / "dcgan.ckpt-10.index").exists()


def _slim_run(run_script, tmp_path, package):
    proc = run_script("slim_arg_scope.py", "--package", package, "--steps", "40",
                      "--ckpt_dir", "ck_" + package, cwd=tmp_path)
    out = proc.stdout
    assert "model variables 18" in out
    assert ("first ['block/block_1/weights', 'block/block_1/BatchNorm/beta', "
            "'block/block_1/BatchNorm/moving_mean', 'block/block_1/BatchNorm/moving_variance']"
            in out)
    assert "regularization losses 5" in out and "update ops 8" in out
    first, last = map(float, re.search(r"loss ([0-9.]+) -> ([0-9.]+)", out).groups())
    assert last < 0.3 * first
    assert "moving mean updated: True" in out
    assert "restoring 16 of 18" in out and "trunk restored: True" in out
    assert (tmp_path / ("ck_" + package) / "model.ckpt.index").exists()
    return first, last


def test_slim_arg_scope_net_with_tf_contrib_slim(tmp_path, run_script):
    _slim_run(run_script, tmp_path, "contrib")


def test_slim_arg_scope_net_with_the_tf_slim_package(tmp_path, run_script):
    import importlib.util

    import pytest
    if importlib.util.find_spec("tf_slim") is None:
        pytest.skip("the tf_slim package is not installed")
    assert _slim_run(run_script, tmp_path, "tf_slim") == _slim_run(run_script, tmp_path,
                                                                   "contrib")
