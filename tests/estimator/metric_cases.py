"""tf.metrics extras cases shared by ``tools/record_tf_metrics.py`` (real TF writes
``metrics_golden.json``) and ``test_metrics_extra.py``. Each case ``build(tf, feeds)``
returns ``(value, update_op)`` pairs over placeholders ``feeds`` (labels, predictions,
logits, weights); the runner feeds BATCHES one by one, recording every update_op result
and then every value."""
import numpy as np

R = np.random.RandomState(5)
BATCHES = []
for _ in range(3):
    logits = R.normal(0, 1, (6, 4)).astype(np.float32)
    BATCHES.append({"labels": R.randint(0, 4, 6).astype(np.int64),
                    "predictions": R.randint(0, 4, 6).astype(np.int64),
                    "real_l": R.uniform(0, 2, 6).astype(np.float32),
                    "real_p": R.uniform(0, 2, 6).astype(np.float32),
                    "bin_l": R.randint(0, 2, 6).astype(np.int64),
                    "bin_p": R.randint(0, 2, 6).astype(np.int64),
                    "logits": logits,
                    "weights": R.choice([0.0, 0.5, 1.0, 2.0], 6).astype(np.float32)})
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def errors(tf, f):
    return [tf.metrics.mean_absolute_error(f["real_l"], f["real_p"]),
            tf.metrics.mean_absolute_error(f["real_l"], f["real_p"], weights=f["weights"]),
            tf.metrics.root_mean_squared_error(f["real_l"], f["real_p"]),
            tf.metrics.root_mean_squared_error(f["real_l"], f["real_p"], f["weights"])]


@case
def confusion_counts(tf, f):
    return [tf.metrics.true_positives(f["bin_l"], f["bin_p"]),
            tf.metrics.false_positives(f["bin_l"], f["bin_p"]),
            tf.metrics.false_negatives(f["bin_l"], f["bin_p"]),
            tf.metrics.true_positives(f["bin_l"], f["bin_p"], weights=f["weights"]),
            tf.metrics.false_negatives(f["bin_l"], f["bin_p"], weights=f["weights"])]


@case
def per_class(tf, f):
    return [tf.metrics.mean_iou(f["labels"], f["predictions"], 4),
            tf.metrics.mean_iou(f["labels"], f["predictions"], 5, weights=f["weights"]),
            tf.metrics.mean_per_class_accuracy(f["labels"], f["predictions"], 4),
            tf.metrics.mean_per_class_accuracy(f["labels"], f["predictions"], 5,
                                               weights=f["weights"])]


@case
def at_k(tf, f):
    return [tf.metrics.recall_at_k(f["labels"], f["logits"], 1),
            tf.metrics.recall_at_k(f["labels"], f["logits"], 2),
            tf.metrics.precision_at_k(f["labels"], f["logits"], 2),
            tf.metrics.recall_at_k(f["labels"], f["logits"], 2, class_id=1),
            tf.metrics.precision_at_k(f["labels"], f["logits"], 2, class_id=1),
            tf.metrics.precision_at_k(tf.expand_dims(f["labels"], -1), f["logits"], 3,
                                      weights=f["weights"])]


def run(tf, build):
    """Returns ``{"updates": [...], "values": [...], "dtypes": [...]}`` (plain lists)."""
    g = tf.Graph()
    with g.as_default():
        keys = sorted(BATCHES[0])
        feeds = {k: tf.placeholder(tf.as_dtype(BATCHES[0][k].dtype), [None] +
                                   list(BATCHES[0][k].shape[1:])) for k in keys}
        pairs = build(tf, feeds)
        updates = [u for _, u in pairs]
        values = [v for v, _ in pairs]
        out = {"updates": [], "values": [], "dtypes": [v.dtype.name for v in values]}
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for batch in BATCHES:
                res = sess.run(updates, {feeds[k]: batch[k] for k in keys})
                out["updates"].append([np.asarray(r).tolist() for r in res])
            out["values"] = [np.asarray(r).tolist() for r in sess.run(values)]
    return out
