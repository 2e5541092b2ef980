"""A k-means script in the style of the TF1-era examples (tf.contrib.factorization.KMeans,
cosine, mini-batch), run unmodified through ``estimator-npu run``."""
import re


def test_kmeans_script_runs_to_the_end_with_falling_distance(tmp_path, mnist_dir, run_script):
    proc = run_script("kmeans_mnist.py", "--data_dir", mnist_dir, "--num_steps", "20",
                      cwd=tmp_path)
    assert "initialized: True" in proc.stdout
    steps = [(int(s), float(d)) for s, d in
             re.findall(r"Step (\d+), Avg Distance: ([0-9.]+)", proc.stdout)]
    assert [s for s, _ in steps] == [1, 10, 20]
    assert steps[-1][1] < steps[0][1], steps
    accuracy = float(re.search(r"Test Accuracy: ([0-9.]+)", proc.stdout).group(1))
    assert accuracy > 0.5, proc.stdout     # the fixture's classes are well separated


def test_kmeans_plus_plus_init(tmp_path, mnist_dir, run_script):
    proc = run_script("kmeans_mnist.py", "--data_dir", mnist_dir, "--num_steps", "10",
                      "--k", "12", "--init", "kmeans_plus_plus", cwd=tmp_path, via="cli")
    assert "initialized: True" in proc.stdout and "Test Accuracy:" in proc.stdout
