"""A CIFAR-10-tutorial-style queue pipeline (scripts/cifar_queue_train.py, our own code)
run unmodified through ``estimator-npu run``: FixedLengthRecordReader over generated
binary files, shuffle_batch, MonitoredTrainingSession; then one evaluation epoch through
tf.train.batch(allow_smaller_final_batch=True), Coordinator and start_queue_runners."""
import re

import estimator_npu as tf


def test_cifar_style_queue_script(tmp_path, run_script):
    proc = run_script("cifar_queue_train.py", f"--data_dir={tmp_path / 'data'}",
                      f"--train_dir={tmp_path / 'train'}", "--max_steps=60",
                      "--batch_size=16", cwd=tmp_path, via="cli")
    out = proc.stdout
    assert "queue runners: 2" in out                    # filenames + shuffle_batch
    assert "batch shape: [16, 8, 8, 3]" in out
    assert "eval batch shape: [None, 8, 8, 3]" in out    # allow_smaller_final_batch
    losses = [float(x) for x in re.findall(r"step \d+ loss ([0-9.]+)", out)]
    assert [int(s) for s in re.findall(r"step (\d+) loss", out)] == [20, 40, 60]
    assert losses[-1] < 0.3      # class 1 has a bright red plane: learnable in 60 steps
    # 2 files x 150 records, one epoch: 18 full batches of 16, then one of 12
    assert "end of epoch" in out
    assert "eval examples: 300 in 19 batches" in out
    accuracy = float(re.search(r"eval accuracy: ([0-9.]+)", out).group(1))
    assert accuracy > 0.9
    assert tf.train.latest_checkpoint(str(tmp_path / "train")).endswith("model.ckpt-60")
