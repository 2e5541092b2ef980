"""``tf.estimator.inputs.numpy_input_fn`` as an Estimator's ``model_fn`` sees it, built by
both frameworks (real TF through ``tools/record_numpy_input_goldens.py``, ours in
``test_numpy_input_golden.py``): the static shapes and dtypes of the batch, and the rows
of each batch (for ``shuffle=False``; for ``shuffle=True`` which rows came out at all,
since TF's order is not reproducible, see ``shuffle_orders``)."""
import numpy as np

N = 10

# (name, x kind, y kind, batch_size, num_epochs, shuffle, queue_capacity)
CONFIGS = [
    ("array_1epoch", "array", "array", 4, 1, False, 1000),
    ("array_2epochs", "array", "array", 4, 2, False, 1000),
    ("array_forever", "array", "array", 4, None, False, 1000),
    ("dict_1epoch", "dict", "array", 3, 1, False, 1000),
    ("dict_forever", "dict", "array", 3, None, False, 1000),
    ("dict_y_dict", "dict", "dict", 4, 1, False, 1000),
    ("no_labels", "dict", None, 4, 1, False, 1000),
    ("column_y", "array", "column", 5, 1, False, 1000),
    ("shuffle_1epoch", "dict", "array", 4, 1, True, 1000),
    ("shuffle_2epochs", "dict", "array", 4, 2, True, 8),
    ("shuffle_forever", "array", "array", 4, None, True, 16),
    ("batch_larger_than_data", "dict", "array", 16, 1, False, 1000),
]


def data(x_kind, y_kind):
    rows = np.arange(N)
    x = np.stack([rows, 10 * rows], axis=1).astype(np.float32)   # row i: [i, 10 i]
    if x_kind == "dict":
        x = {"b": rows.astype(np.int64), "a": x.astype(np.float64)}
    y = {None: None, "array": rows.astype(np.int32),
         "column": rows.astype(np.float32)[:, None],
         "dict": {"label": rows.astype(np.int64), "weight": rows.astype(np.float32)}}[y_kind]
    return x, y


def _spec(t):
    return {"shape": t.shape.as_list() if t.shape.ndims is not None else None,
            "dtype": t.dtype.name}


def _structure(value, leaf):
    if value is None:
        return None
    if isinstance(value, dict):
        return {k: leaf(v) for k, v in sorted(value.items())}
    return leaf(value)


def _rows(batch):
    """The row numbers a fetched batch holds (every feature encodes its row)."""
    if isinstance(batch, dict):
        batch = batch["b"]
    batch = np.asarray(batch)
    return [int(r) for r in (batch[:, 0] if batch.ndim == 2 else batch)]


def run_config(tf, tmp, name, x_kind, y_kind, batch_size, num_epochs, shuffle, capacity,
               max_batches=8):
    """``{"static": ..., "batches": [rows...], "batch_sizes": [...]}`` for one config."""
    x, y = data(x_kind, y_kind)
    input_fn = tf.estimator.inputs.numpy_input_fn(
        x, y, batch_size=batch_size, num_epochs=num_epochs, shuffle=shuffle,
        queue_capacity=capacity)
    seen = {}

    def model_fn(features, labels, mode):
        seen.setdefault("static", {})[mode] = {"features": _structure(features, _spec),
                          "labels": _structure(labels, _spec)}
        step = tf.train.get_global_step()
        return tf.estimator.EstimatorSpec(
            mode, predictions={"row": tf.identity(features["b"] if x_kind == "dict"
                                                  else features[:, 0])},
            loss=tf.constant(0.0), train_op=tf.assign_add(step, 1))

    est = tf.estimator.Estimator(model_fn, model_dir=f"{tmp}/{name}",
                                 config=tf.estimator.RunConfig(tf_random_seed=7))
    est.train(input_fn, steps=1)
    rows = []
    for i, pred in enumerate(est.predict(input_fn, yield_single_examples=False)):
        if i >= max_batches:
            break
        rows.append(_rows(pred["row"]))
    out = {"static": seen["static"]}
    if shuffle:
        out["batch_sizes"] = [len(r) for r in rows]
        if num_epochs is not None:
            out["rows_seen"] = sorted(r for b in rows for r in b)
    else:
        out["batches"] = rows
    return out


def run_all(tf, tmp):
    """Returns ``{config: record}``; ``tmp`` is an empty directory for the model_dirs."""
    return {c[0]: run_config(tf, tmp, *c) for c in CONFIGS}


def shuffle_orders(tf, seed, num_epochs, capacity, batches=3):
    """The rows of the first ``batches`` batches of ``shuffle=True`` under graph seed
    ``seed``; the recorder runs it three times per setting in TF, to see whether the order
    repeats (it does not: TF's feeding queue starts at a row drawn from ``random.seed(None)``,
    i.e. the system's entropy). TF only: TF's ``input_fn()`` returns tensors fed by a
    queue runner, ours a Dataset."""
    x, y = data("dict", "array")
    with tf.Graph().as_default():
        tf.set_random_seed(seed)
        features, _ = tf.estimator.inputs.numpy_input_fn(
            x, y, batch_size=4, num_epochs=num_epochs, shuffle=True,
            queue_capacity=capacity)()
        with tf.train.MonitoredSession() as sess:
            return [_rows(sess.run(features)) for _ in range(batches)]
