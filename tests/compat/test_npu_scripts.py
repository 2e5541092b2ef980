"""ModelZoo / npu_bridge-style scripts, run unmodified."""
import re


def test_modelzoo_sessrun_with_npu_init_helpers(tmp_path, mnist_dir, run_script):
    proc = run_script("modelzoo_sessrun_npu.py", f"--data_path={mnist_dir}",
                      "--iterations_per_loop=5", cwd=tmp_path)
    assert re.search(r"Epoch: 0001 cost= [0-9.]+", proc.stdout)
    assert float(re.search(r"Accuracy: ([0-9.]+)", proc.stdout).group(1)) > 0.5
    assert "rank 0 of 1 proto ConfigProto" in proc.stdout


def test_modelzoo_npuestimator_with_loss_scaling(tmp_path, run_script):
    proc = run_script("modelzoo_npuestimator.py", "--max_steps=40",
                      "--iterations_per_loop=10", cwd=tmp_path)
    match = re.search(r"FINAL global_step=(\d+) acc=([0-9.]+)", proc.stdout)
    assert match.group(1) == "40" and float(match.group(2)) > 0.8
    assert "'model.ckpt-20.index', 'model.ckpt-40.index'" in proc.stdout


def test_npu_host_call_plugin_ops_and_hccl(tmp_path, run_script):
    proc = run_script("npu_host_call.py", cwd=tmp_path)
    assert "host_call steps [1, 2, 3, 4, 5, 6]" in proc.stdout
    assert "ranks 0 0 1" in proc.stdout
    assert "length of tensors 1 does not match method args" in proc.stdout


def test_gan_with_two_var_list_optimizers(tmp_path, run_script):
    proc = run_script("gan_two_optimizers.py", "--iters=40", cwd=tmp_path)
    assert "d step moves g: False" in proc.stdout
    assert "d step moves d: True" in proc.stdout
    assert "vars d=4 g=4" in proc.stdout  # the reused discriminator made no new variables
    assert re.search(r"iter 20 d_loss [0-9.]+ g_loss [0-9.]+", proc.stdout)


def test_modelzoo_dynamic_rnn_flip_gradient_loss_scaling(tmp_path, run_script):
    proc = run_script("modelzoo_rnn_flipgrad.py", "--steps=60", "--loop=3", cwd=tmp_path)
    assert "reversed gradient: True" in proc.stdout
    assert "gates in (0, 1): True" in proc.stdout
    match = re.search(r"FINAL global_step=(\d+) acc=([0-9.]+) loss_scale=(\d+)", proc.stdout)
    # 20 runs of 3 loop steps; the scale doubled after each 20 finite steps: 2^10 -> 2^13
    assert match.group(1) == "60" and float(match.group(2)) >= 0.9
    assert match.group(3) == "8192"
    assert (tmp_path / "ckpt_rnn" / "rnn.ckpt.index").exists()
