"""Premade estimators with and without partitioners, and ``PartitionedVariable.assign``,
run by both frameworks (real TF 2.15 through ``tools/record_estimator_matrix.py canned``,
estimator_npu in ``test_canned_partitioned.py``). Each scenario returns JSON data: the
variables of the training graph (names, shapes, whether trainable), the checkpoint's keys
and shapes, the ``evaluate`` result and the first predictions.

Linear models start from zeros; the DNNs from seeded random initial values, which
estimator_npu draws as TF does (``tf_random_seed`` and the op-level seeds), so the numbers
of every model are compared.
"""
import os
import tempfile

import numpy as np

F32 = np.float32
N = 24
X = ((np.arange(N * 2, dtype=F32).reshape(N, 2) * 5) % 11 - 5.0) / 4.0
IDS = (np.arange(N) * 7 % 6).astype(np.int64)
LABEL = ((X[:, 0] - 0.5 * X[:, 1] + (IDS % 2) * 0.3) > 0).astype(np.int64).reshape(N, 1)


def input_fn_factory(tf, finite):
    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices(({"x": X, "id": IDS}, LABEL))
        if not finite:
            ds = ds.repeat()
        return ds.batch(8)
    return input_fn


def columns(tf):
    fc = tf.feature_column
    x = fc.numeric_column("x", shape=[2])
    ident = fc.categorical_column_with_identity("id", num_buckets=6)
    return x, ident, fc.embedding_column(ident, dimension=3)


def graph_variables(tf):
    """A hook recording the training graph's global variables at ``begin``."""
    class Vars(tf.train.SessionRunHook):
        def __init__(self):
            self.rows = []

        def begin(self):
            trainable = {v.op.name for v in tf.trainable_variables()}
            self.rows = sorted([v.op.name, [int(d) for d in v.shape], v.op.name in trainable]
                               for v in tf.global_variables())
    return Vars()


def _rounded(v, digits=4):
    return np.round(np.asarray(v).astype(np.float64), digits).tolist()


def _value(est, name):
    """A checkpoint value, or the error class (TF saves the slots of a partitioned linear
    model's parts as slices of ``<var>/part_<i>/<slot>`` that no full tensor covers, and
    cannot read them back whole)."""
    try:
        return _rounded(est.get_variable_value(name))
    except Exception as e:   # noqa: BLE001 - TF raises ValueError, ours its own kind
        return "error"


def make_estimator(tf, name, model_dir):
    x, ident, emb = columns(tf)
    part2 = tf.fixed_size_partitioner(2)
    config = tf.estimator.RunConfig(tf_random_seed=3, save_summary_steps=100,
                                    log_step_count_steps=100)
    est = tf.estimator
    if name == "linear":
        return est.LinearClassifier([x, ident], model_dir=model_dir, config=config)
    if name == "linear_part2":
        return est.LinearClassifier([x, ident], model_dir=model_dir, config=config,
                                    partitioner=part2)
    if name == "linear_regressor_part3":
        return est.LinearRegressor([x, ident], model_dir=model_dir, config=config,
                                   partitioner=tf.fixed_size_partitioner(3))
    if name == "dnn":
        return est.DNNClassifier([4], [x, emb], model_dir=model_dir, config=config)
    if name == "dnn_input_part2":
        return est.DNNClassifier([4], [x, emb], model_dir=model_dir, config=config,
                                 input_layer_partitioner=part2)
    if name == "combined_part2":
        return est.DNNLinearCombinedClassifier(
            model_dir=model_dir, linear_feature_columns=[x, ident],
            dnn_feature_columns=[emb], dnn_hidden_units=[3], config=config,
            input_layer_partitioner=part2)
    raise KeyError(name)


CANNED = ["linear", "linear_part2", "linear_regressor_part3", "dnn", "dnn_input_part2",
          "combined_part2"]


def canned_scenario(tf, name):
    numbers = True
    with tempfile.TemporaryDirectory() as d:
        model_dir = os.path.join(d, "model")
        est = make_estimator(tf, name, model_dir)
        hook = graph_variables(tf)
        est.train(input_fn_factory(tf, False), steps=6, hooks=[hook])
        keys = [[k, [int(s) for s in shape]] for k, shape in tf.train.list_variables(model_dir)]
        result = est.evaluate(input_fn_factory(tf, True))
        preds = list(est.predict(input_fn_factory(tf, True)))
        out = {"graph_variables": hook.rows, "checkpoint_keys": keys,
               "variable_names": sorted(est.get_variable_names()),
               "evaluate": {k: [type(v).__name__, _rounded(v) if numbers else None]
                            for k, v in sorted(result.items())},
               "predict_count": len(preds),
               "predict_first": {k: [str(np.asarray(v).dtype), list(np.shape(v)),
                                     (_rounded(v) if numbers and np.asarray(v).dtype.kind
                                      in "fi" else None)]
                                 for k, v in sorted(preds[0].items())}}
        if numbers:
            out["values"] = {k: _value(est, k) for k, _ in keys if k != "global_step"}
    return out


def partitioned_assign_scenario(tf):
    """``PartitionedVariable.assign`` of a full value, of a variable, and its result."""
    out = {}
    with tf.Graph().as_default():
        pv = tf.get_variable("pv", [5, 2], initializer=tf.zeros_initializer(),
                             partitioner=tf.fixed_size_partitioner(2))
        full = np.arange(10, dtype=F32).reshape(5, 2)
        op = pv.assign(full)
        out["assign_type"] = type(op).__name__
        op2 = pv.assign(tf.constant(full * 2.0))
        parts = list(pv)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            res = sess.run(op)
            out["assign_result"] = [_rounded(r) for r in res] if isinstance(res, list) \
                else str(type(res).__name__)
            out["after"] = [_rounded(sess.run(p)) for p in parts]
            sess.run(op2)
            out["after2"] = _rounded(sess.run(tf.concat(parts, 0)))
        try:
            pv.assign(np.zeros((4, 2), F32))
            out["bad_shape"] = "no error"
        except (ValueError, TypeError) as e:
            out["bad_shape"] = type(e).__name__
    return out


def slot_names_scenario(tf):
    """The names of optimizer variables made under variable and name scopes (TF puts
    the variable scope in front of the slot's name: ``foo/foo/w/Adam``)."""
    with tf.Graph().as_default():
        with tf.variable_scope("foo"):
            w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
            loss = tf.reduce_sum(w * w)
            with tf.name_scope("ns"):
                tf.train.AdamOptimizer(0.1).minimize(loss)
        with tf.name_scope("bar"):
            v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
            tf.train.MomentumOptimizer(0.1, 0.9).minimize(tf.reduce_sum(v * v))
        with tf.variable_scope("foo"):
            tf.train.AdagradOptimizer(0.1).minimize(loss)
        with tf.variable_scope("outer"):
            p = tf.get_variable("p", [4, 2], initializer=tf.ones_initializer(),
                                partitioner=tf.fixed_size_partitioner(2))
            tf.train.AdagradOptimizer(0.1).minimize(tf.reduce_sum(tf.square(p.as_tensor())))
        return {"global_variables": [x.op.name for x in tf.global_variables()],
                "slices": [[x.op.name, x._save_slice_info.full_name]
                           for x in tf.global_variables() if x._save_slice_info]}


def all_scenarios():
    out = {f"canned/{n}": (lambda tf, lg, n=n: canned_scenario(tf, n)) for n in CANNED}
    out["canned/partitioned_assign"] = lambda tf, lg: partitioned_assign_scenario(tf)
    out["canned/slot_names"] = lambda tf, lg: slot_names_scenario(tf)
    return out
