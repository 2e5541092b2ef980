"""k-means cases shared by ``tools/record_tf_kmeans.py`` (real TF 2.15's graph-level
``KMeans``, the class ``tf.contrib.factorization.KMeans`` was in TF 1.x) and
``test_kmeans.py``. Given initial centers make every run deterministic; each case feeds a
sequence of batches and records, before each training step, the scores, assignments and
all-pairs scores, and at the end the centers variable."""
import numpy as np

_R = np.random.RandomState(3)
CENTERS = np.array([[0.0, 0.0, 1.0], [4.0, 4.0, 0.0], [-3.0, 5.0, 2.0]], np.float32)
DATA = (CENTERS[_R.randint(0, 3, 60)] + _R.normal(0, 0.8, (60, 3))).astype(np.float32)
INIT = DATA[[0, 1, 2]] + np.float32(0.5)

CASES = {
    "full_batch_euclidean": dict(distance_metric="squared_euclidean", use_mini_batch=False,
                                 batches=[DATA] * 4),
    "full_batch_cosine": dict(distance_metric="cosine", use_mini_batch=False,
                              batches=[DATA] * 4),
    "mini_batch_euclidean": dict(distance_metric="squared_euclidean", use_mini_batch=True,
                                 batches=[DATA[i * 15:(i + 1) * 15] for i in range(4)]),
    "mini_batch_cosine": dict(distance_metric="cosine", use_mini_batch=True,
                              batches=[DATA[i * 15:(i + 1) * 15] for i in range(4)]),
    "mini_batch_3_steps_per_iteration": dict(
        distance_metric="squared_euclidean", use_mini_batch=True,
        mini_batch_steps_per_iteration=3, batches=[DATA[i * 10:(i + 1) * 10] for i in range(6)]),
    "mini_batch_2_steps_cosine": dict(
        distance_metric="cosine", use_mini_batch=True, mini_batch_steps_per_iteration=2,
        batches=[DATA[i * 12:(i + 1) * 12] for i in range(5)]),
}


def run(tf, kmeans_class, case):
    """Values of one case: a list of per-step [all_scores, cluster_idx, scores], then the
    initialized flag and the final centers."""
    kw = dict(CASES[case])
    batches = kw.pop("batches")
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        km = kmeans_class(x, 3, initial_clusters=INIT, **kw)
        all_scores, idx, scores, initialized, init_op, train_op = km.training_graph()
        centers = [v for v in tf.global_variables() if v.op.name.endswith("clusters")][0]
        out = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init_op, {x: batches[0]})
            for b in batches:
                a, i, s = sess.run([all_scores[0], idx[0], scores[0]], {x: b})
                out.append([a.tolist(), i.tolist(), s.tolist()])
                sess.run(train_op, {x: b})
            out.append(bool(sess.run(initialized)))
            out.append(sess.run(centers).tolist())
    return out


def run_estimator(tf, estimator_class, model_dir, **kw):
    """The k-means Estimator on DATA: the score after each of 3 training steps, the
    centers, the cluster index and distances of every point."""
    def input_fn():
        return tf.data.Dataset.from_tensors(DATA)
    km = estimator_class(3, model_dir=model_dir, initial_clusters=INIT, **kw)
    scores = []
    for _ in range(3):
        km.train(input_fn, steps=1)
        scores.append(float(km.score(input_fn)))
    return {"scores": scores, "centers": km.cluster_centers().tolist(),
            "index": [int(i) for i in km.predict_cluster_index(input_fn)],
            "distances": [d.tolist() for d in km.transform(input_fn)]}


ESTIMATOR_CASES = {"full_batch": dict(use_mini_batch=False),
                   "full_batch_cosine": dict(use_mini_batch=False, distance_metric="cosine")}
