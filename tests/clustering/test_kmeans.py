"""``tf.contrib.factorization.KMeans`` against real TF 2.15's graph-level ``KMeans``
(recorded by ``tools/record_tf_kmeans.py``), and against a numpy model of its mini-batch
rule.

Full-batch runs are deterministic in TF and must match every step. TF's mini-batch step
reads the counts it updates in the same step without ordering them (two TF runs of the
same case gave different centers), so for mini-batch cases the recording is compared
only while the centers used for assignments are still the initial ones (the first step;
with ``mini_batch_steps_per_iteration = m``, the first ``m + 1`` steps, which checks
when the copy-back happens), and the whole run against the documented rule
``c += (sum - n c) / (N + n)``."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.contrib.factorization import KMeans

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "kmeans_golden.json").read_text())
_spec = importlib.util.spec_from_file_location("estimator_npu_tests_kmeans_cases",
                                               HERE / "kmeans_cases.py")
CASES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CASES)


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=1e-4, atol=1e-4)


def test_every_case_has_a_golden_record():
    assert sorted(CASES.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_steps_match_tf(name):
    got, want = CASES.run(tf, KMeans, name), GOLDEN[name]
    kw = CASES.CASES[name]
    n_steps = len(kw["batches"])
    exact = n_steps if not kw["use_mini_batch"] else \
        1 + kw.get("mini_batch_steps_per_iteration", 1) * (
            kw.get("mini_batch_steps_per_iteration", 1) > 1)
    for step in range(exact):
        for g, w in zip(got[step], want[step]):
            _close(g, w)
    assert got[n_steps] is True and want[n_steps] is True
    if not kw["use_mini_batch"]:
        _close(got[-1], want[-1])


def _normalize(a):
    return a / np.sqrt(np.maximum((a * a).sum(1, keepdims=True), 1e-12))


def _numpy_mini_batch(kw):
    """The documented mini-batch rule, with the copy-back every m steps: the assignments
    seen before each step, and the final centers."""
    m, cosine = kw.get("mini_batch_steps_per_iteration", 1), kw["distance_metric"] == "cosine"
    init = CASES.INIT.astype(np.float64)
    init = _normalize(init) if cosine else init
    used, updated = init.copy(), init.copy()
    counts, left, idxs = np.zeros(3) if m > 1 else np.ones(3), m, []
    def assign(b, c):
        c = _normalize(c) if cosine and m == 1 else c
        return (1 - b @ c.T if cosine else ((b[:, None] - c[None]) ** 2).sum(2)).argmin(1)

    for b in kw["batches"]:
        b = _normalize(b.astype(np.float64)) if cosine else b.astype(np.float64)
        idxs.append(assign(b, used if m > 1 else updated).tolist())   # seen before the step
        if m > 1:
            if left <= 0:
                used, counts, left = (_normalize(updated) if cosine else updated.copy(),
                                      np.zeros(3), m - 1)
            else:
                left -= 1
        idx = assign(b, used if m > 1 else updated)      # the step's, after the copy-back
        n = np.bincount(idx, minlength=3)
        sums = np.zeros_like(updated)
        np.add.at(sums, idx, b)
        updated = updated + (sums - n[:, None] * updated) / np.maximum(counts + n, 1)[:, None]
        counts = counts + n
    return idxs, (used if m > 1 else updated)


@pytest.mark.parametrize("name", [n for n in sorted(CASES.CASES)
                                  if CASES.CASES[n]["use_mini_batch"]])
def test_mini_batch_follows_the_update_rule(name):
    got = CASES.run(tf, KMeans, name)
    idxs, centers = _numpy_mini_batch(CASES.CASES[name])
    assert [step[1] for step in got[:len(idxs)]] == idxs
    _close(got[-1], centers)


def _blobs(seed=0, n=300):
    r = np.random.RandomState(seed)
    centers = r.uniform(-10, 10, (4, 2))
    return (centers[r.randint(0, 4, n)] + r.normal(0, 0.7, (n, 2))).astype(np.float32)


@pytest.mark.parametrize("init", ["random", "kmeans_plus_plus"])
def test_initializers_choose_data_points_once_and_training_converges(init):
    data = _blobs()
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        km = KMeans(x, 4, initial_clusters=init, random_seed=5)
        _, idx, scores, initialized, init_op, train_op = km.training_graph()
        avg = tf.reduce_mean(scores)
        centers = [v for v in tf.global_variables() if v.op.name == "clusters"][0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert not sess.run(initialized)
            sess.run(init_op, {x: data})
            first = sess.run(centers)
            sess.run(init_op, {x: data[::-1]})          # already initialized: no change
            np.testing.assert_array_equal(sess.run(centers), first)
            dists = []
            for _ in range(8):
                _, d = sess.run([train_op, avg], {x: data})
                dists.append(d)
            assert sess.run(initialized)
            assignments = sess.run(idx[0], {x: data})
    assert all(any(np.array_equal(c, p) for p in data) for c in first)
    if init == "kmeans_plus_plus":
        assert len({tuple(c) for c in first}) == 4
    assert dists[-1] <= dists[0] and all(b <= a + 1e-5 for a, b in zip(dists, dists[1:]))
    assert dists[-1] < 1.5 and assignments.dtype == np.int64 and assignments.shape == (300,)


def test_constructor_errors_and_missing_names():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        with pytest.raises(ValueError, match="Unsupported distance metric `manhattan`"):
            KMeans(x, 3, distance_metric="manhattan")
        with pytest.raises(ValueError, match="Unsupported initialization algorithm `first`"):
            KMeans(x, 3, initial_clusters="first")
        with pytest.raises(NotImplementedError, match="initial_clusters='kmc2'"):
            KMeans(x, 3, initial_clusters="kmc2")
        with pytest.raises(ValueError, match="feature dimension statically"):
            KMeans(tf.placeholder(tf.float32), 3).training_graph()
    with pytest.raises(AttributeError, match=r"does not implement "
                                             r"tf\.contrib\.factorization\.WALSModel \(yet\)"):
        tf.contrib.factorization.WALSModel


ESTIMATOR_GOLDEN = json.loads((HERE / "kmeans_estimator_golden.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES.ESTIMATOR_CASES))
def test_estimator_matches_tf(tmp_path, name):
    """KMeansClustering (tf.contrib.factorization; tf.estimator.experimental.KMeans) against
    TF 2.15's estimator: scores after each step, centers, indices, transform distances."""
    assert sorted(CASES.ESTIMATOR_CASES) == sorted(ESTIMATOR_GOLDEN)
    got = CASES.run_estimator(tf, tf.contrib.factorization.KMeansClustering, str(tmp_path),
                              **CASES.ESTIMATOR_CASES[name])
    want = ESTIMATOR_GOLDEN[name]
    assert got["index"] == want["index"]
    for key in ("scores", "centers", "distances"):
        _close(got[key], want[key])
    assert tf.estimator.experimental.KMeans is tf.contrib.factorization.KMeansClustering


def test_estimator_mini_batch_random_init_and_relative_tolerance(tmp_path):
    data = _blobs(1)
    est = tf.contrib.factorization.KMeansClustering(
        4, model_dir=str(tmp_path), initial_clusters="kmeans_plus_plus",
        relative_tolerance=1e-4, random_seed=3)
    est.train(lambda: tf.data.Dataset.from_tensors(data).repeat(), steps=200)
    steps = est.get_variable_value("global_step")
    assert 2 <= steps < 200            # the relative-change hook stopped training
    score = est.score(lambda: tf.data.Dataset.from_tensors(data))
    assert score / len(data) < 2.0 and est.cluster_centers().shape == (4, 2)
    with pytest.raises(ValueError, match="Unsupported distance metric 'l1'"):
        tf.contrib.factorization.KMeansClustering(3, distance_metric="l1")
