"""Unit checks of the TF1 surface added for real scripts (behaviour taken from TF 2.15's
tf.compat.v1 where TF defines it)."""
import os

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.datasets import mnist
from estimator_npu.train import checkpoint_io


def test_gfile_semantics(tmp_path):
    d = tmp_path / "a"
    tf.gfile.MakeDirs(str(d / "b"))
    tf.gfile.MakeDirs(str(d / "b"))          # existing: fine
    tf.gfile.MkDir(str(d))                   # existing: fine (as TF 2.15)
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.MkDir(str(tmp_path / "x" / "y"))
    with tf.gfile.GFile(str(d / "f.txt"), "w") as f:
        f.write("x\ny\n")
        f.write(b"z")
    assert tf.gfile.GFile(str(d / "f.txt")).read() == "x\ny\nz"
    assert tf.gfile.GFile(str(d / "f.txt"), "rb").read() == b"x\ny\nz"
    assert list(tf.gfile.GFile(str(d / "f.txt"))) == ["x\n", "y\n", "z"]
    assert tf.gfile.ListDirectory(str(d)) == ["b", "f.txt"]
    assert list(tf.gfile.Walk(str(d))) == [(str(d), ["b"], ["f.txt"]), (str(d / "b"), [], [])]
    assert list(tf.gfile.Walk(str(tmp_path / "nope"))) == []
    assert tf.gfile.Stat(str(d / "f.txt")).length == 5
    assert tf.io.gfile.glob(str(d / "*")) == [str(d / "b"), str(d / "f.txt")]
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.gfile.Copy(str(d / "f.txt"), str(d / "f.txt"))
    for fn in (tf.gfile.Remove, tf.gfile.DeleteRecursively, tf.gfile.ListDirectory):
        with pytest.raises(tf.errors.NotFoundError):
            fn(str(tmp_path / "nope"))
    with pytest.raises(tf.errors.NotFoundError, match="nope"):
        tf.gfile.GFile(str(tmp_path / "nope")).read()
    tf.io.gfile.rmtree(str(d))
    assert not tf.io.gfile.exists(str(d))


def test_relative_save_dir_writes_relative_state(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs("rel_dir")
    for step in (3, 4):
        checkpoint_io.write_checkpoint(f"rel_dir/model.ckpt-{step}", {"v": np.ones(2)})
    checkpoint_io.update_checkpoint_state("rel_dir", "rel_dir/model.ckpt-4",
                                          ["rel_dir/model.ckpt-3"])
    text = (tmp_path / "rel_dir" / "checkpoint").read_text()
    assert text.splitlines()[:3] == ['model_checkpoint_path: "model.ckpt-4"',
                                     'all_model_checkpoint_paths: "model.ckpt-3"',
                                     'all_model_checkpoint_paths: "model.ckpt-4"']
    assert tf.train.latest_checkpoint("rel_dir") == os.path.join("rel_dir", "model.ckpt-4")


def _write_mnist(folder, n_train=12, n_test=4):
    rng = np.random.default_rng(0)
    for images, labels, n in ((mnist.TRAIN_IMAGES, mnist.TRAIN_LABELS, n_train),
                              (mnist.TEST_IMAGES, mnist.TEST_LABELS, n_test)):
        mnist.write_idx(folder / images, rng.integers(0, 255, (n, 28, 28)).astype(np.uint8))
        mnist.write_idx(folder / labels, rng.integers(0, 10, n).astype(np.uint8))


def test_read_data_sets_positional_order_and_fake_data(tmp_path):
    _write_mnist(tmp_path)
    data = mnist.read_data_sets(str(tmp_path), False, True, tf.float32, True, 2)
    assert data.train.num_examples == 10 and data.validation.num_examples == 2
    assert data.train.labels.shape == (10, 10)
    first = data.train.next_batch(4, False)   # (batch_size, fake_data): shuffles as default
    assert first[0].shape == (4, 784)
    fake = mnist.read_data_sets("/nonexistent", fake_data=True, one_hot=True)
    assert fake.train.num_examples == 10000
    images, labels = fake.train.next_batch(3, True)
    assert images.shape == (3, 784) and (images == 1).all()
    np.testing.assert_array_equal(labels, np.eye(10, dtype=np.float32)[[0, 0, 0]])
    _, dense = mnist.read_data_sets("", True).test.next_batch(2, fake_data=True)
    np.testing.assert_array_equal(dense, [0, 0])


def test_data_options_and_transformations():
    options = tf.data.Options()
    options.experimental_optimization.map_fusion = True
    with pytest.raises(AttributeError, match="no option 'bogus'"):
        options.bogus = 1
    ds = tf.data.Dataset.range(6).with_options(options)
    assert ds.options().experimental_optimization.map_fusion is True
    with pytest.raises(TypeError, match="tf.data.Options"):
        ds.with_options({"a": 1})
    ds = ds.apply(tf.data.experimental.map_and_batch(lambda x: x * 10, 4))
    assert [b.tolist() for b in ds.as_numpy_iterator()] == [[0, 10, 20, 30], [40, 50]]
    rep = tf.data.Dataset.range(3).apply(tf.data.experimental.shuffle_and_repeat(3, 2, seed=1))
    assert sorted(int(v) for v in rep.as_numpy_iterator()) == [0, 0, 1, 1, 2, 2]
    drop = tf.data.Dataset.range(5).apply(tf.contrib.data.batch_and_drop_remainder(2))
    assert [b.tolist() for b in drop.as_numpy_iterator()] == [[0, 1], [2, 3]]


def test_specs_validate_as_tf():
    fn = lambda: None  # noqa: E731
    with pytest.raises(ValueError, match="max_steps > 0"):
        tf.estimator.TrainSpec(fn, max_steps=0)
    with pytest.raises(TypeError, match="callable"):
        tf.estimator.TrainSpec(3)
    with pytest.raises(ValueError, match="throttle_secs >= 0"):
        tf.estimator.EvalSpec(fn, throttle_secs=-1)
    spec = tf.estimator.EvalSpec(fn)
    assert (spec.steps, spec.start_delay_secs, spec.throttle_secs) == (100, 120, 600)
    with pytest.raises(TypeError, match="tf.estimator.Estimator"):
        tf.estimator.train_and_evaluate(object(), tf.estimator.TrainSpec(fn), spec)


def test_npu_estimator_spec_host_call_validation():
    from estimator_npu.npu.npu_estimator import NPUEstimatorSpec
    g = tf.Graph()
    with g.as_default():
        loss = tf.constant(1.0)
        mode = tf.estimator.ModeKeys.EVAL
        with pytest.raises(ValueError, match="host_call should be tuple or list"):
            NPUEstimatorSpec(mode, loss=loss, host_call=3)
        with pytest.raises(ValueError, match="two elements"):
            NPUEstimatorSpec(mode, loss=loss, host_call=(print,))
        with pytest.raises(TypeError, match=r"host_call\[0\] should be callable"):
            NPUEstimatorSpec(mode, loss=loss, host_call=(1, []))
        with pytest.raises(RuntimeError, match="length of tensors 1 does not match"):
            NPUEstimatorSpec(mode, loss=loss, host_call=(lambda a, b: None, [loss]))
        spec = NPUEstimatorSpec(mode, loss=loss, host_call=(lambda *t: None, [loss, loss]))
        assert spec.host_call[1] == [loss, loss] and isinstance(spec, tf.estimator.EstimatorSpec)


def test_npu_run_config_accepts_the_adapter_options():
    config = tf.npu.NPURunConfig(iterations_per_loop=4, hcom_parallel=True, op_debug_level=2,
                                 enable_exception_dump=1, modify_mixlist="x.json")
    assert config.iterations_per_loop == 4 and config.hcom_parallel is True
    assert config.replace(iterations_per_loop=2).iterations_per_loop == 2


def test_early_stopping_predicates():
    from estimator_npu.estimator.early_stopping import _no_improvement, _threshold
    import operator
    no_decrease = _no_improvement("loss", 20, operator.lt)
    assert not no_decrease([(10, 3.0), (20, 2.0), (30, 2.5)])
    assert no_decrease([(10, 3.0), (20, 2.0), (30, 2.5), (40, 2.1)])
    higher = _threshold("acc", 0.9, operator.gt)
    assert not higher([(10, 0.5), (20, 0.9)]) and higher([(10, 0.5), (30, 0.95)])


def test_run_main_in_process(tmp_path, capsys, monkeypatch):
    from estimator_npu import run
    assert run.main([str(tmp_path / "missing.py")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing.py" in err
    assert run.main([]) == 2


def test_flags_parse_sys_argv_on_first_read_and_accept_old_keyword_names(tmp_path):
    import subprocess
    import sys
    script = tmp_path / "lazy.py"
    script.write_text(
        "import estimator_npu as tf\n"
        "tf.flags.DEFINE_integer(flag_name='steps', default_value=3, docstring='n')\n"
        "tf.app.flags.DEFINE_string('name', 'a', 'who')\n"
        "print(tf.flags.FLAGS.steps, tf.app.flags.FLAGS.name, 'steps' in tf.flags.FLAGS)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, str(script), "--steps=7", "--name", "b"],
                         capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=root)).stdout
    assert out.strip() == "7 b True"
    assert tf.test.is_gpu_available() is False and tf.test.gpu_device_name() == ""


def test_keras_datasets_read_the_keras_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    (tmp_path / "datasets" / "fashion-mnist").mkdir(parents=True)
    rng = np.random.default_rng(0)
    x = rng.integers(0, 255, (5, 28, 28)).astype(np.uint8)
    y = rng.integers(0, 10, 5).astype(np.uint8)
    np.savez(tmp_path / "datasets" / "mnist.npz", x_train=x, y_train=y, x_test=x[:2],
             y_test=y[:2])
    (xt, yt), (xe, ye) = tf.keras.datasets.mnist.load_data()
    np.testing.assert_array_equal(xt, x)
    assert ye.shape == (2,)
    folder = tmp_path / "datasets" / "fashion-mnist"
    for images, labels in ((mnist.TRAIN_IMAGES, mnist.TRAIN_LABELS),
                           (mnist.TEST_IMAGES, mnist.TEST_LABELS)):
        mnist.write_idx(folder / (images + ".gz"), x)
        mnist.write_idx(folder / (labels + ".gz"), y)
    (fx, fy), _ = tf.keras.datasets.fashion_mnist.load_data()
    np.testing.assert_array_equal(fy, y)
    (folder / (mnist.TEST_LABELS + ".gz")).unlink()
    from estimator_npu.keras.datasets import fashion_mnist  # the system copy: not there
    monkeypatch.setattr(fashion_mnist, "SYSTEM_DIR", str(tmp_path / "no-system-copy"))
    with pytest.raises(FileNotFoundError, match="does not download"):
        tf.keras.datasets.fashion_mnist.load_data()
    with pytest.raises(AttributeError,
                       match=r"does not implement tf\.keras\.layers\.ConvLSTM2D \(yet\)"):
        tf.keras.layers.ConvLSTM2D


def test_npu_ops_dropout_allreduce_and_hccl_groups():
    from estimator_npu.npu import hccl, npu_ops, npu_optimizer
    g = tf.Graph()
    with g.as_default():
        x = tf.ones([200, 50])
        keep = tf.placeholder(tf.float32, [])
        dropped = npu_ops.dropout(x, keep)
        grad = tf.constant([1.0, 3.0])
        averaged = npu_optimizer.allreduce(grad, None, average=True)
        with tf.Session() as sess:
            kept = sess.run(dropped, {keep: 0.5})
            assert set(np.unique(kept).tolist()) <= {0.0, 2.0}
            assert 0.4 < (kept > 0).mean() < 0.6
            assert (sess.run(dropped, {keep: 1.0}) == 1.0).all()
            np.testing.assert_allclose(sess.run(averaged), [1.0, 3.0])  # one process
    hccl.create_group("pair", 1, [0])
    assert hccl.get_rank_size("pair") == 1 and hccl.get_rank_id("pair") == 0
    assert hccl.get_world_rank_from_group_rank("pair", 0) == 0
    hccl.destroy_group("pair")
    with pytest.raises(ValueError, match="unknown hccl group 'pair'"):
        hccl.get_rank_size("pair")
