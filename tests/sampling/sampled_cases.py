"""Sampled-loss and sampler cases shared by ``tools/record_tf_sampled.py`` (run under real
TF 2.15, writes ``sampled_golden.json``) and ``test_sampled.py`` (runs them on
estimator_npu). Each case is ``build(tf) -> [tensors]``; the sampled losses get fixed
``sampled_values`` so that both engines see the same classes. Sampler cases fetch only
what does not depend on the random stream (expected counts with ``unique=False``)."""
import numpy as np

V, D, B = 23, 5, 6
_R = np.random.RandomState(7)
W = _R.standard_normal((V, D)).astype(np.float32)
BIAS = (_R.standard_normal(V) * 0.5).astype(np.float32)
X = _R.standard_normal((B, D)).astype(np.float32)
LABELS1 = np.array([[1], [4], [7], [4], [20], [0]], np.int64)
LABELS3 = np.array([[1, 2, 3], [4, 4, 9], [7, 0, 22], [5, 6, 8], [20, 21, 1], [0, 3, 2]],
                   np.int64)
SAMPLED = np.array([4, 0, 9, 13, 2, 17, 22, 11], np.int64)   # 4, 0, 9, 2, 22 are hits
S = SAMPLED.size


def _expected(n_true):
    r = np.random.RandomState(11 + n_true)
    return (r.uniform(0.05, 0.9, (B, n_true)).astype(np.float32),
            r.uniform(0.05, 0.9, S).astype(np.float32))


def _sampled_values(tf, n_true):
    te, se = _expected(n_true)
    return tf.constant(SAMPLED), tf.constant(te), tf.constant(se)


def _loss_case(loss, n_true, shards=None, grads=True, **kw):
    def build(tf):
        labels = LABELS1 if n_true == 1 else LABELS3
        if shards:
            strategy, n = shards
            rows = (np.arange(V) % n if strategy == "mod" else
                    np.repeat(np.arange(n), [len(a) for a in np.array_split(np.arange(V), n)]))
            w = [tf.Variable(W[rows == k]) for k in range(n)]
            b = [tf.Variable(BIAS[rows == k]) for k in range(n)]
            kw["partition_strategy"] = strategy
        else:
            w, b = tf.Variable(W), tf.Variable(BIAS)
        x = tf.constant(X)
        fn = tf.nn.nce_loss if loss == "nce" else tf.nn.sampled_softmax_loss
        out = fn(w, b, labels, x, S, V, num_true=n_true,
                 sampled_values=_sampled_values(tf, n_true), **kw)
        tensors = [out]
        if grads:
            ws = w if isinstance(w, list) else [w]
            bs = b if isinstance(b, list) else [b]
            gs = tf.gradients(tf.reduce_sum(out * np.arange(1, B + 1, dtype=np.float32)),
                              ws + bs + [x])
            tensors += [tf.convert_to_tensor(g) for g in gs]
        return tensors
    return build


def _hits(tf):
    return list(tf.nn.compute_accidental_hits(LABELS3, SAMPLED, num_true=3))


def _sampler_case(name, n_true, **kw):
    def build(tf):
        labels = LABELS1 if n_true == 1 else LABELS3
        fn = getattr(tf.nn, name + "_candidate_sampler")
        _, true_expected, _ = fn(labels, n_true, 7, False, V, seed=3, **kw)
        return [true_expected]
    return build


def _all_sampler(tf):
    return list(tf.nn.all_candidate_sampler(LABELS3, 3, V, True))


UNIGRAMS = list(np.linspace(1.0, 12.0, V - 2))

CASES = {
    "nce_num_true_1": _loss_case("nce", 1),
    "nce_num_true_3": _loss_case("nce", 3),
    "nce_remove_hits": _loss_case("nce", 3, remove_accidental_hits=True),
    "sampled_softmax_num_true_1": _loss_case("softmax", 1),
    "sampled_softmax_keep_hits": _loss_case("softmax", 3, remove_accidental_hits=False),
    "sampled_softmax_num_true_3": _loss_case("softmax", 3),
    "nce_sharded_mod": _loss_case("nce", 1, shards=("mod", 3)),
    "sampled_softmax_sharded_div": _loss_case("softmax", 3, shards=("div", 4)),
    "compute_accidental_hits": _hits,
    "log_uniform_expected": _sampler_case("log_uniform", 3),
    "uniform_expected": _sampler_case("uniform", 1),
    "learned_unigram_first_run": _sampler_case("learned_unigram", 3),
    "fixed_unigram_distorted": _sampler_case("fixed_unigram", 3, unigrams=UNIGRAMS,
                                             distortion=0.75, num_reserved_ids=2),
    "all_candidate_sampler": _all_sampler,
}
