"""Estimator-style scripts (custom Estimator, layers CNN, train_and_evaluate), run unmodified."""
import re


def test_custom_estimator_with_metrics_and_predictions(tmp_path, run_script):
    proc = run_script("custom_estimator.py", "--train_steps", "100", cwd=tmp_path)
    accuracy = float(re.search(r"Test set accuracy: ([0-9.]+)", proc.stdout).group(1))
    assert accuracy > 0.9
    predictions = re.findall(r'Prediction is "(\d)" \([0-9.]+%\), expected "(\d)"', proc.stdout)
    assert len(predictions) == 3 and all(p == e for p, e in predictions)
    assert (tmp_path / "iris_model" / "model.ckpt-100.index").exists()
    assert list((tmp_path / "iris_model" / "eval").glob("events.out.tfevents.*"))


def test_layers_cnn_estimator_with_numpy_input_fn(tmp_path, mnist_dir, run_script):
    proc = run_script("layers_cnn_estimator.py", f"--data_dir={mnist_dir}", "--steps=30",
                      cwd=tmp_path)
    # evaluate() returns np.float32 / np.int64 as TF does (numpy 2 reprs wrap them)
    match = re.search(r"EVAL \{'accuracy': (?:np\.float32\()?([0-9.]+).*"
                      r"'global_step': (?:np\.int64\()?(\d+)", proc.stdout)
    assert match and float(match.group(1)) > 0.6 and match.group(2) == "30"
    assert "probabilities" in proc.stderr  # the LoggingTensorHook's line
    checkpoint = (tmp_path / "mnist_convnet_model" / "checkpoint").read_text()
    assert 'model_checkpoint_path: "model.ckpt-30"' in checkpoint


def test_train_and_evaluate_stops_early(tmp_path, run_script):
    proc = run_script("train_and_eval_early_stop.py", tmp_path / "m", cwd=tmp_path)
    match = re.search(r"final global_step (\d+) mse ([0-9.e-]+) exports \[\]", proc.stdout)
    assert match, proc.stdout
    step = int(match.group(1))
    assert step < 500 and float(match.group(2)) < 1e-4  # stopped by the hook, not max_steps
    assert "keep 3 save 10" in proc.stdout
    assert "Running training and evaluation locally (non-distributed)." in proc.stderr
    evals = re.findall(r"Saving dict for global step (\d+)", proc.stderr)
    assert evals[0] == "10" and evals[-1] == str(step)
    assert len(list((tmp_path / "m").glob("model.ckpt-*.index"))) <= 3


def test_relative_paths_in_checkpoint_state(tmp_path, run_script):
    proc = run_script("relative_ckpt.py", cwd=tmp_path)
    assert 'model_checkpoint_path: "model.ckpt-3"' in proc.stdout
    assert "latest rel_dir/model.ckpt-3" in proc.stdout
    assert "restored 8.0" in proc.stdout
    assert "estimator eval step 3" in proc.stdout  # evaluated the trained model, not step 0
    assert (tmp_path / "rel_model" / "checkpoint").read_text().startswith(
        'model_checkpoint_path: "model.ckpt-3"')


def test_estimator_on_keras_datasets_fashion_mnist(tmp_path, mnist_dir, run_script):
    """The data: the same small MNIST-shaped IDX files, placed where Keras caches
    Fashion-MNIST."""
    cache = tmp_path / "keras" / "datasets" / "fashion-mnist"
    cache.mkdir(parents=True)
    for f in mnist_dir.iterdir():
        (cache / f.name).write_bytes(f.read_bytes())
    proc = run_script("keras_data_estimator.py", cwd=tmp_path,
                      env={"KERAS_HOME": str(tmp_path / "keras")})
    match = re.search(r"accuracy ([0-9.]+) at step (\d+)", proc.stdout)
    assert match and float(match.group(1)) > 0.7 and match.group(2) == "60"
