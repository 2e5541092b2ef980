"""Records the Apply* nodes real TF 1 optimizers put into a GraphDef (run once, by hand).

    /tmp/tf215/bin/python tools/record_tf_apply_ops.py [OUT.json]

For each optimizer (a variable ``w`` of shape [3, 2], ``minimize`` of a linear loss with
a global step): the Apply node's op type, its data inputs with the variable's and
optimizer's names replaced by ``VAR`` / ``OPT`` (slots keep their suffix), and its
attrs (bool and type attrs by value). tests/train/test_apply_op_encodings.py compares
the nodes estimator_npu exports with these. Default OUT:
tests/train/golden_tf/apply_ops.json.
"""
import json
import os
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "tests", "train", "golden_tf", "apply_ops.json")

# name -> [tf.train class, positional args, keyword args]; written into the golden so
# that the test builds the same optimizers.
OPTIMIZERS = {
    "adadelta": ["AdadeltaOptimizer", [0.5], {"rho": 0.9, "epsilon": 1e-06}],
    "ftrl": ["FtrlOptimizer", [0.1], {"l1_regularization_strength": 0.01,
                                      "l2_regularization_strength": 0.02}],
    "ftrl_v2": ["FtrlOptimizer", [0.1], {"l1_regularization_strength": 0.01,
                                         "l2_shrinkage_regularization_strength": 0.05}],
    "proximal_adagrad": ["ProximalAdagradOptimizer", [0.1], {
        "l1_regularization_strength": 0.01, "l2_regularization_strength": 0.02}],
    "proximal_gd": ["ProximalGradientDescentOptimizer", [0.1], {
        "l1_regularization_strength": 0.01, "l2_regularization_strength": 0.02}],
    "momentum": ["MomentumOptimizer", [0.1, 0.9], {}],
    "rmsprop": ["RMSPropOptimizer", [0.01], {"momentum": 0.5}],
}


def record(spec):
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(tf.ones([3, 2]), name="w")
        gs = tf.train.get_or_create_global_step()
        opt = getattr(tf.train, spec[0])(*spec[1], **spec[2])
        opt.minimize(tf.reduce_sum(w * 2.0), global_step=gs)
    nodes = [n for n in g.as_graph_def().node if n.op.startswith("Apply")]
    assert len(nodes) == 1, [n.op for n in nodes]
    n = nodes[0]
    prefix = opt.get_name()

    def norm(i):
        i = i.replace(f"{prefix}/update_w/", "OPT/update/")
        return i.replace("w/", "VAR/").replace(prefix + "/", "OPT/") if i != "w" else "VAR"
    attrs = {}
    for k, v in sorted(n.attr.items()):
        kind = v.WhichOneof("value")
        attrs[k] = v.b if kind == "b" else tf.as_dtype(v.type).name if kind == "type" \
            else kind
    return {"optimizer": spec, "op": n.op,
            "inputs": [norm(i) for i in n.input if not i.startswith("^")], "attrs": attrs}


out = {k: record(f) for k, f in sorted(OPTIMIZERS.items())}
with open(OUT, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print(json.dumps(out, indent=1))
