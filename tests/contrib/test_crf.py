"""``tf.contrib.crf`` against brute force: the log-likelihood is the log-softmax of a tag
sequence's score over every tag sequence of its length, Viterbi is the argmax over them;
gradients against finite differences with known and unknown shapes."""
import itertools

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.contrib import crf

TAGS, STEPS = 3, 4
LENGTHS = np.array([4, 2, 1, 3], np.int32)


def _score(x, trans, tags):
    return sum(x[t, k] for t, k in enumerate(tags)) + sum(
        trans[a, b] for a, b in zip(tags[:-1], tags[1:]))


def _brute(x, trans, tags, n):
    scores = {seq: _score(x[:n], trans, seq)
              for seq in itertools.product(range(x.shape[1]), repeat=n)}
    vals = np.array(list(scores.values()))
    log_z = np.log(np.sum(np.exp(vals - vals.max()))) + vals.max()
    best = max(scores, key=scores.get)
    return _score(x[:n], trans, tuple(tags[:n])) - log_z, list(best), scores[best]


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(len(LENGTHS), STEPS, TAGS))
    trans = rng.normal(size=(TAGS, TAGS))
    tags = rng.integers(0, TAGS, size=(len(LENGTHS), STEPS)).astype(np.int32)
    return x, trans, tags


@pytest.mark.parametrize("shape", [[len(LENGTHS), STEPS, TAGS], [None, None, TAGS]])
def test_log_likelihood_and_decode_match_brute_force(data, shape):
    x, trans, tags = data
    with tf.Graph().as_default():
        xp = tf.placeholder(tf.float64, shape)
        tp = tf.placeholder(tf.int32, shape[:2])
        lp = tf.placeholder(tf.int32, shape[:1])
        ll, t = crf.crf_log_likelihood(xp, tp, lp, tf.constant(trans))
        dec, best = crf.crf_decode(xp, t, lp)
        assert ll.shape.as_list() == shape[:1]
        assert dec.shape.as_list() == shape[:2]
        with tf.Session() as s:
            ll_v, dec_v, best_v = s.run([ll, dec, best], {xp: x, tp: tags, lp: LENGTHS})
    for b, n in enumerate(LENGTHS):
        want_ll, want_seq, want_best = _brute(x[b], trans, tags[b], n)
        np.testing.assert_allclose(ll_v[b], want_ll, rtol=1e-10)
        assert list(dec_v[b, :n]) == want_seq and not dec_v[b, n:].any()
        np.testing.assert_allclose(best_v[b], want_best, rtol=1e-10)
        seq, score = crf.viterbi_decode(x[b, :n], trans)
        assert seq == want_seq
        np.testing.assert_allclose(score, want_best, rtol=1e-12)


def test_transitions_variable_is_made_when_not_given(data):
    x, _, tags = data
    with tf.Graph().as_default():
        with tf.variable_scope("crf_layer"):
            ll, t = crf.crf_log_likelihood(tf.constant(x), tags, LENGTHS)
        assert t.name == "crf_layer/transitions:0"
        assert t.shape.as_list() == [TAGS, TAGS]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            trans = s.run(t)
            got = s.run(ll)
    for b, n in enumerate(LENGTHS):
        np.testing.assert_allclose(got[b], _brute(x[b], trans, tags[b], n)[0], rtol=1e-5)


def test_empty_sequence_has_zero_likelihood(data):
    x, trans, tags = data
    with tf.Graph().as_default(), tf.Session() as s:
        ll, _ = crf.crf_log_likelihood(tf.constant(x[:1]), tags[:1], [0], tf.constant(trans))
        assert s.run(ll)[0] == 0.0


@pytest.mark.parametrize("dynamic", [False, True, "batch"])
def test_log_likelihood_gradients(data, dynamic, gradcheck):
    gc = gradcheck
    x, trans, tags = data

    def build(xs, ts):
        return crf.crf_log_likelihood(xs, tags, LENGTHS, ts)[0]
    gc.check_grads(build, [x, trans], np.random.default_rng(0), dynamic=dynamic,
                   rtol=1e-5, atol=1e-7)


def test_bad_shapes_are_named():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="number of tags"):
            crf.crf_log_likelihood(tf.placeholder(tf.float32, [None, None, None]),
                                   tf.placeholder(tf.int32, [None, None]), [1])
    with pytest.raises(ValueError, match="viterbi_decode"):
        crf.viterbi_decode(np.zeros((3, 4)), np.zeros((3, 3)))
