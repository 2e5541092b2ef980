"""Sampled losses and candidate samplers against real TF 2.15 (values recorded by
``tools/record_tf_sampled.py`` with the same fixed ``sampled_values``), and the samplers'
distributions, expected counts, per-session state, seeds and errors (their random streams
differ from TF's, so those are checked as properties)."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "sampled_golden.json").read_text())


def _load_cases():
    spec = importlib.util.spec_from_file_location("estimator_npu_tests_sampled_cases",
                                                  HERE / "sampled_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load_cases()


def test_every_case_has_a_golden_record():
    assert sorted(CASES.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_values_match_tf(name):
    with tf.Graph().as_default():
        tensors = CASES.CASES[name](tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(tensors)
    want = GOLDEN[name]
    assert [t.dtype.name for t in tensors] == want["dtypes"]
    assert len(values) == len(want["values"])
    for got, exp in zip(values, want["values"]):
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(exp, np.float64),
                                   rtol=2e-5, atol=2e-5)


def _run(fetches, feed=None, n=1):
    with tf.Session() as sess:
        return [sess.run(fetches, feed) for _ in range(n)]


def _log_uniform_p(k, n):
    return np.log((k + 2.0) / (k + 1.0)) / np.log(n + 1.0)


def test_log_uniform_frequencies_and_expected_counts():
    with tf.Graph().as_default():
        sampled, true_exp, samp_exp = tf.random.log_uniform_candidate_sampler(
            [[0, 5]], 2, 20000, False, 10, seed=1)
        (s, te, se), = _run([sampled, true_exp, samp_exp])
    p = _log_uniform_p(np.arange(10), 10)
    freq = np.bincount(s, minlength=10) / s.size
    np.testing.assert_allclose(freq, p, atol=0.01)
    np.testing.assert_allclose(te, [p[[0, 5]] * 20000], rtol=1e-6)
    np.testing.assert_allclose(se, p[s] * 20000, rtol=1e-6)
    assert s.dtype == np.int64 and te.dtype == np.float32 and se.dtype == np.float32


@pytest.mark.parametrize("name", ["log_uniform", "uniform"])
def test_unique_sampling_expected_counts(name):
    """unique=True: distinct values; every expected count is 1 - (1 - p)^T for the one
    number of tries T > num_sampled it took (p * num_sampled when no value repeated), TF's
    approximation of the inclusion probability; uniform classes are included n/range of
    the time, log-uniform ones less often for larger ids."""
    n_range, n = 10, 4
    with tf.Graph().as_default():
        fn = getattr(tf.nn, name + "_candidate_sampler")
        out = fn([[1], [7]], 1, n, True, n_range, seed=5)
        runs = _run(list(out), n=400)
    p = (_log_uniform_p(np.arange(n_range), n_range) if name == "log_uniform"
         else np.full(n_range, 1.0 / n_range))
    included = np.zeros(n_range)
    for s, te, se in runs:
        assert len(set(s.tolist())) == n
        if np.allclose(se, p[s] * n, rtol=1e-6):
            t = n                                          # no value was drawn twice
        else:
            tries = np.log1p(-se) / np.log1p(-p[s])       # solves se = 1 - (1 - p)^T
            t = int(round(tries[0]))
            assert t > n and np.allclose(tries, t, rtol=1e-3), tries
        want = -np.expm1(t * np.log1p(-p)) if t > n else p * n
        np.testing.assert_allclose(te[:, 0], want[[1, 7]], rtol=1e-5)
        included[s] += 1
    rate = included / len(runs)
    if name == "uniform":
        np.testing.assert_allclose(rate, n / n_range, atol=0.08)
    else:
        assert rate[0] > 0.75 and rate[0] > 2.5 * rate[9] and rate[:3].sum() > rate[-3:].sum()


def test_learned_unigram_learns_the_true_classes_per_session():
    with tf.Graph().as_default():
        labels = tf.placeholder(tf.int64, [None, 1])
        _, te, _ = tf.nn.learned_unigram_candidate_sampler(labels, 1, 3, False, 5, seed=2)
        feed = {labels: [[3], [3], [3]]}
        with tf.Session() as sess:
            first, second = sess.run(te, feed), sess.run(te, feed)
        with tf.Session() as sess:
            again = sess.run(te, feed)
    np.testing.assert_allclose(first, 3 * np.full((3, 1), 1 / 5), rtol=1e-6)
    np.testing.assert_allclose(second, 3 * np.full((3, 1), 4 / 8), rtol=1e-6)
    np.testing.assert_allclose(again, first)   # a new session starts from counts of 1


def test_fixed_unigram_distortion_reserved_ids_and_vocab_file(tmp_path):
    unigrams = [1.0, 4.0, 9.0, 16.0]
    vocab = tmp_path / "vocab.csv"
    vocab.write_text("".join(f"w{i},{u}\n" for i, u in enumerate(unigrams)))
    with tf.Graph().as_default():
        a = tf.nn.fixed_unigram_candidate_sampler([[2]], 1, 20000, False, 6, unigrams=unigrams,
                                                  distortion=0.5, num_reserved_ids=2, seed=4)
        b = tf.nn.fixed_unigram_candidate_sampler([[2]], 1, 5, False, 6, vocab_file=str(vocab),
                                                  distortion=0.5, num_reserved_ids=2)
        (s, te, _), (_, te_file, _) = _run([list(a), list(b)])[0]
    w = np.array([0, 0, 1, 2, 3, 4]) / 10.0
    np.testing.assert_allclose(np.bincount(s, minlength=6) / s.size, w, atol=0.01)
    np.testing.assert_allclose(te, [[w[2] * 20000]], rtol=1e-6)
    np.testing.assert_allclose(te_file, [[w[2] * 5]], rtol=1e-6)
    with pytest.raises(ValueError, match="exactly one of vocab_file and unigrams"):
        tf.nn.fixed_unigram_candidate_sampler([[2]], 1, 5, False, 6)


def test_seeds_reproduce_and_unseeded_samplers_vary():
    def draws(seed, graph_seed=None):
        with tf.Graph().as_default():
            if graph_seed is not None:
                tf.set_random_seed(graph_seed)
            s, _, _ = tf.nn.uniform_candidate_sampler([[0]], 1, 30, False, 1000, seed=seed)
            return _run(s)[0]
    np.testing.assert_array_equal(draws(9), draws(9))
    np.testing.assert_array_equal(draws(None, 3), draws(None, 3))
    assert not np.array_equal(draws(None), draws(None))


def test_sampler_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="num_true"):
            tf.nn.log_uniform_candidate_sampler([[1, 2]], 1, 3, True, 10)
        with pytest.raises(ValueError, match="matrix"):
            tf.nn.log_uniform_candidate_sampler([1, 2], 1, 3, True, 10)
        small, _, _ = tf.nn.uniform_candidate_sampler([[1]], 1, 5, True, 3)
        out_of_range, _, _ = tf.nn.log_uniform_candidate_sampler([[12]], 1, 3, False, 10)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="range is too small"):
                sess.run(small)
            with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
                sess.run(out_of_range)


def test_default_sampler_trains_and_remove_hits_masks_with_flt_max():
    """Without ``sampled_values`` the losses draw log-uniform unique classes themselves; the
    accidental-hit addend is -FLT_MAX, as TF's."""
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        w = tf.Variable(CASES.W)
        b = tf.Variable(CASES.BIAS)
        x = tf.constant(CASES.X)
        loss = tf.reduce_mean(tf.nn.nce_loss(w, b, CASES.LABELS1, x, 8, CASES.V))
        soft = tf.reduce_mean(tf.nn.sampled_softmax_loss(w, b, CASES.LABELS1, x, 8, CASES.V))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss + soft)
        idx, ids, weights = tf.nn.compute_accidental_hits([[3], [5]], [5, 3, 3, 1], 1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(loss + soft)
            for _ in range(30):
                sess.run(train)
            last = sess.run(loss + soft)
            hits = sess.run([idx, ids, weights])
    assert last < first * 0.7, (first, last)
    np.testing.assert_array_equal(hits[0], [0, 1])
    np.testing.assert_array_equal(hits[1], [2, 0])     # the last position of a repeated id
    assert hits[2].dtype == np.float32 and np.all(hits[2] == -np.finfo(np.float32).max)


def test_static_shapes_as_tf():
    """TF 2.15: (8,), (?,) and (?,) for known, unknown-batch and unknown-rank inputs; the
    samplers' outputs [num_sampled], [batch, num_true], [num_sampled]; hits [?] each."""
    with tf.Graph().as_default():
        w, b = tf.Variable(tf.zeros([20, 4])), tf.Variable(tf.zeros([20]))
        for batch in (8, None):
            x = tf.placeholder(tf.float32, [batch, 4])
            labels = tf.placeholder(tf.int64, [batch, 2])
            for fn in (tf.nn.nce_loss, tf.nn.sampled_softmax_loss):
                assert fn(w, b, labels, x, 5, 20, num_true=2).shape.as_list() == [batch]
            shapes = [t.shape.as_list() for t in
                      tf.nn.log_uniform_candidate_sampler(labels, 2, 5, True, 20)]
            assert shapes == [[5], [batch, 2], [5]]
            hits = tf.nn.compute_accidental_hits(labels, tf.constant([1, 2], tf.int64), 2)
            assert [t.shape.as_list() for t in hits] == [[None]] * 3
        x, labels = tf.placeholder(tf.float32), tf.placeholder(tf.int64)
        for fn in (tf.nn.nce_loss, tf.nn.sampled_softmax_loss):
            assert fn(w, b, labels, x, 5, 20).shape.as_list() == [None]
