"""Random ops in GraphDefs: written as TF builds them (raw op on a shape Const, then Mul and
Add under the op's name), so real TF imports graphs with variable initializers."""
import numpy as np

import estimator_npu as tf


def _graph():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(7)
        tf.random_uniform([3, 4], minval=-2.0, maxval=3.0, seed=1, name="u")
        tf.truncated_normal([2, 5], mean=1.0, stddev=0.5, name="t")
        tf.random_normal([6], stddev=2.0, dtype=tf.float64, name="n")
    return g


def test_random_ops_are_tf_raw_op_then_mul_and_add():
    nodes = {n.name: n for n in _graph().as_graph_def().node}
    for name, raw, scale, shift in [("u", "RandomUniform", 5.0, -2.0),
                                    ("t", "TruncatedNormal", 0.5, 1.0),
                                    ("n", "RandomStandardNormal", 2.0, 0.0)]:
        r = nodes[f"{name}/{raw}"]
        assert r.op == raw and r.attr["T"].type == 3 and list(r.input) == [f"{name}/shape"]
        assert nodes[f"{name}/mul"].op == "Mul" and nodes[name].op == "Add"
        assert list(nodes[name].input) == [f"{name}/mul", f"{name}/shift"]
        assert nodes[f"{name}/scale"].attr["value"].tensor.ListFields()  # a value is set
        got_scale = tf.make_ndarray(nodes[f"{name}/scale"].attr["value"].tensor)
        got_shift = tf.make_ndarray(nodes[f"{name}/shift"].attr["value"].tensor)
        assert float(got_scale) == scale and float(got_shift) == shift
    assert nodes["u/RandomUniform"].attr["seed"].i == 7
    assert nodes["u/RandomUniform"].attr["seed2"].i == 1
    assert nodes["n/RandomStandardNormal"].attr["dtype"].type == 2   # float64


def test_real_tensorflow_imports_and_runs_them(tmp_path, run_real_tf):
    path = tmp_path / "g.pb"
    path.write_bytes(_graph().as_graph_def().SerializeToString())
    run_real_tf(
        f"gd = tf.GraphDef.FromString(open({str(path)!r}, 'rb').read())\n"
        "with tf.Graph().as_default() as g:\n"
        "    tf.import_graph_def(gd, name='')\n"
        "    with tf.Session() as s:\n"
        "        u, t, n = s.run(['u:0', 't:0', 'n:0'])\n"
        f"np.savez({str(tmp_path / 'out.npz')!r}, u=u, t=t, n=n)\n")
    out = np.load(tmp_path / "out.npz")
    assert out["u"].shape == (3, 4) and out["u"].min() >= -2 and out["u"].max() < 3
    assert out["t"].shape == (2, 5) and np.all(np.abs(out["t"] - 1.0) <= 2 * 0.5)
    assert out["n"].shape == (6,) and out["n"].dtype == np.float64
