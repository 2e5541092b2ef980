"""The TF <-> estimator_npu checkpoint matrix (tests/train/test_tf_matrix.py): one script,
run by real TF 2.15 (``import tensorflow.compat.v1``) and by estimator_npu (``tf`` passed
in), that writes checkpoints and reads the other side's.

    python matrix.py write OUT_DIR        # real TF writes OUT_DIR/{plain,sharded,est}
    python matrix.py read IN_DIR WORK_DIR # real TF reads what estimator_npu wrote

``write`` saves, under ``OUT_DIR``: ``plain/model.ckpt-7`` (every dtype TF writes for
variables, string scalars and arrays, 0-d and empty tensors, a partitioned variable,
Slim-style nested names with batch norm moving statistics, Momentum, Adam and RMSProp
slots after one step, the global step), ``sharded/model.ckpt`` (``Saver(sharded=True)``
over two CPU devices) and ``est/`` (an Estimator model_dir after 3 steps), plus
``expected.npz`` / ``expected.json``: the values the writer's session held and their
dtypes. ``read`` reports, as JSON on the last stdout line, what the reader saw through
``list_variables``, ``load_variable``, ``Saver.restore`` (also with a ``var_list``
dict mapping checkpoint names onto other variables), ``warm_start_from``
(``WarmStartSettings`` with ``var_name_to_prev_var_name`` and regexes) and
``init_from_checkpoint`` with an ``assignment_map``: every mismatch by name.
"""
import json
import os
import sys

import numpy as np

DTYPES = ["float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64",
          "uint8", "bool"]
SLIM = "resnet_v1_50/block1/unit_1/bottleneck_v1/conv1"
PARTS = {"part/emb": 3, "part/tall": 2}       # partitioned variables: number of parts
STRINGS = {"text/scalar": b"label map", "text/array": [b"a", b"", b"\x00\xff", b"xyz" * 7]}


def _values():
    rng = np.random.RandomState(3)
    out = {}
    for dt in DTYPES:
        raw = rng.uniform(-100, 100, (2, 3))
        if dt == "bool":
            v = raw > 0
        elif dt == "uint8":
            v = np.abs(raw).astype(np.uint8)
        elif dt == "bfloat16":
            v = raw.astype(np.float32).round(1)      # exactly representable after rounding?
            v = (v.view(np.uint32) & 0xFFFF0000).view(np.float32)
        else:
            v = raw.astype(dt)
        out["dtypes/" + dt] = v
    out["shapes/scalar"] = np.float32(2.5)
    out["shapes/scalar_int"] = np.int32(-7)
    out["shapes/empty"] = np.zeros((0, 3), np.float32)
    out["shapes/empty_int"] = np.zeros((4, 0), np.int64)
    out[SLIM + "/weights"] = rng.standard_normal((3, 3, 2, 4)).astype(np.float32)
    for n, k in (("gamma", 1), ("beta", 0), ("moving_mean", 0), ("moving_variance", 1)):
        out[SLIM + "/BatchNorm/" + n] = (k + rng.standard_normal(4) * 0.1).astype(np.float32)
    out["part/emb"] = rng.standard_normal((10, 4)).astype(np.float32)
    out["part/tall"] = rng.standard_normal((300, 2)).astype(np.float32)   # 2-byte offsets
    for opt in ("mom", "adam", "rms"):
        out[opt + "/w"] = rng.standard_normal((3, 2)).astype(np.float32)
    return out


def _variables(tf, values, dtype_of=None):
    """Creates the variables of ``values`` (names as keys) in the default graph."""
    out = {}
    for name, v in values.items():
        dt = dtype_of(name) if dtype_of else None
        if name in PARTS:
            def init(shape, dtype=None, partition_info=None, v=v):
                # TF calls it per partition, at the partition's offset
                off = partition_info.var_offset[0] if partition_info is not None else 0
                return tf.constant(v[off:off + int(shape[0])])
            out[name] = tf.get_variable(
                name, shape=v.shape, dtype=tf.float32, initializer=init,
                partitioner=tf.fixed_size_partitioner(PARTS[name]))
        elif dt == "bfloat16":
            out[name] = tf.Variable(tf.cast(tf.constant(v, tf.float32), tf.bfloat16),
                                    name=name)
        else:
            out[name] = tf.Variable(v, name=name, dtype=getattr(tf, dt) if dt else None)
    return out


def _fetch(tf, var):
    return tf.convert_to_tensor(var) if isinstance(var, (list, tuple)) or \
        type(var).__name__ == "PartitionedVariable" else var.value()


def _plain_name(v):
    n = v.op.name
    return n.rsplit("/part_", 1)[0] if "/part_" in n else n


def _as_np(value):
    """Comparable numpy value: bfloat16 as float32, string tensors as lists of bytes."""
    a = np.asarray(value)
    if a.dtype.kind in "OSU":
        return a.tolist()
    if a.dtype.name == "bfloat16":
        return a.astype(np.float32)
    return a


def _same(got, want):
    got, want = _as_np(got), _as_np(want)
    if isinstance(want, (list, bytes)) or isinstance(got, (list, bytes)):
        return got == want
    return got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want)


# ------------------------------------------------------------------ write
def write(tf, out):
    values = _values()
    for sub in ("plain", "sharded"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    dtypes = {n: n.split("/")[1] if n.startswith("dtypes/") else None for n in values}
    expected, kinds = {}, {}
    g = tf.Graph()
    with g.as_default():
        variables = _variables(tf, values, lambda n: dtypes[n])
        for name, v in STRINGS.items():
            variables[name] = tf.Variable(v, dtype=tf.string, name=name)
        gs = tf.train.get_or_create_global_step()
        steps = []
        for scope, opt in (("mom", tf.train.MomentumOptimizer(0.1, 0.9)),
                           ("adam", tf.train.AdamOptimizer(0.01)),
                           ("rms", tf.train.RMSPropOptimizer(0.01, momentum=0.5))):
            w = variables[scope + "/w"]
            loss = tf.reduce_sum(w * tf.constant([[1.0, -2.0], [0.5, 3.0], [-1.0, 0.25]]))
            steps.append(opt.minimize(loss))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(steps)
            sess.run(tf.assign(gs, 7))
            prefix = tf.train.Saver().save(sess, os.path.join(out, "plain", "model.ckpt"),
                                           global_step=7)
            for v in tf.global_variables():
                name = _plain_name(v)
                if name in expected:
                    continue
                expected[name] = sess.run(_fetch(tf, variables.get(name, v)))
                kinds[name] = v.dtype.base_dtype.name
    assert os.path.basename(prefix) == "model.ckpt-7", prefix

    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            a = tf.Variable(values["dtypes/float32"], name="shard/a")
            i = tf.Variable(values["dtypes/int64"], name="shard/i")
        with tf.device("/cpu:1"):
            b = tf.Variable(values["dtypes/float64"], name="shard/b")
            s = tf.Variable(STRINGS["text/array"], dtype=tf.string, name="shard/s")
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver(sharded=True).save(sess, os.path.join(out, "sharded", "model.ckpt"))
            for v in (a, i, b, s):
                expected[v.op.name] = sess.run(v)
                kinds[v.op.name] = v.dtype.base_dtype.name

    est = tf.estimator.Estimator(_model_fn(tf), os.path.join(out, "est"),
                                 config=tf.estimator.RunConfig(tf_random_seed=1))
    est.train(_input_fn(tf), steps=3)
    for name in est.get_variable_names():
        expected["est:" + name] = est.get_variable_value(name)
        kinds["est:" + name] = None
    np.savez(os.path.join(out, "expected.npz"),
             **{k: (np.asarray(v, np.float32) if kinds.get(k) == "bfloat16" else
                    np.asarray(v, dtype=object) if np.asarray(v).dtype.kind in "OSU"
                    else np.asarray(v)) for k, v in expected.items()})
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(kinds, f)


def _model_fn(tf):
    def model_fn(features, labels, mode):
        h = tf.layers.dense(features["x"], 3, activation=tf.nn.relu, name="hidden")
        logits = tf.layers.dense(h, 1, name="logits")
        loss = tf.losses.mean_squared_error(labels, logits)
        train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(
            loss, global_step=tf.train.get_or_create_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)
    return model_fn


def _input_fn(tf):
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)
    y = np.array([[1.0], [0.0], [2.0], [-1.0]], np.float32)
    return lambda: tf.data.Dataset.from_tensors(({"x": x}, y)).repeat()


# ------------------------------------------------------------------ read
def read(tf, d, work):
    """Reads the checkpoints under ``d`` (a section whose directory is missing is
    skipped); Estimators write into ``work``."""
    with np.load(os.path.join(d, "expected.npz"), allow_pickle=True) as npz:
        expected = dict(npz)
    with open(os.path.join(d, "expected.json")) as f:
        kinds = json.load(f)
    report = {"mismatch": []}

    def check(what, name, got, want=None):
        want = expected[name] if want is None else want
        if not _same(got, want):
            report["mismatch"].append(f"{what}: {name}: got {_as_np(got)!r:.200} want "
                                      f"{_as_np(want)!r:.200}")

    # list_variables / load_variable / reader dtypes: plain, sharded
    for sub in ("plain", "sharded"):
        ckpt = os.path.join(d, sub)
        if not os.path.isdir(ckpt):
            continue
        names = sorted(n for n in kinds if not n.startswith("est:") and
                       (n.startswith("shard/") == (sub == "sharded")))
        listed = dict(tf.train.list_variables(ckpt))
        report[sub + "_listed"] = {n: list(s) for n, s in listed.items()}
        reader = tf.train.load_checkpoint(ckpt)
        dtype_map = reader.get_variable_to_dtype_map()
        for n in names:
            if n not in listed:
                report["mismatch"].append(f"list_variables {sub}: {n} missing")
                continue
            if list(listed[n]) != list(np.shape(expected[n])):
                report["mismatch"].append(f"list_variables {sub}: {n} {listed[n]}")
            check("load_variable", n, tf.train.load_variable(ckpt, n))
            if dtype_map[n].name != kinds[n]:
                report["mismatch"].append(f"dtype: {n}: {dtype_map[n].name} != {kinds[n]}")
        extra = sorted(set(listed) - set(names))
        if extra:
            report["mismatch"].append(f"list_variables {sub}: unexpected {extra}")

        # Saver.restore into a graph with the same variables
        with tf.Graph().as_default():
            vs = {}
            for n in names:
                if n in PARTS:
                    vs[n] = tf.get_variable(n, shape=listed[n], dtype=tf.float32,
                                            partitioner=tf.fixed_size_partitioner(PARTS[n]))
                else:
                    vs[n] = tf.get_variable(n, shape=listed[n],
                                            dtype=getattr(tf, kinds[n]),
                                            initializer=tf.zeros_initializer())
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                prefix = tf.train.latest_checkpoint(ckpt) or os.path.join(ckpt, "model.ckpt")
                tf.train.Saver().restore(sess, prefix)
                for n, v in vs.items():
                    check("Saver.restore", n, sess.run(_fetch(tf, v)))
    report["plain_latest"] = os.path.basename(tf.train.latest_checkpoint(
        os.path.join(d, "plain")))

    # Estimator warm start: renamed variables, regex lists (global variables: the moving
    # statistics too), a partitioned variable
    plain = os.path.join(d, "plain")
    renames = {"new/mom": "mom/w", "new/slot": "mom/w/Momentum", "new/adam_v": "adam/w/Adam_1",
               "new/b1p": "beta1_power", "new/rms": "rms/w/RMSProp", "new/f16": "dtypes/float16"}

    def ws_model_fn(features, labels, mode):
        created = []
        for n in sorted(kinds):
            if n.startswith(SLIM) or n in PARTS:
                created.append(tf.get_variable(
                    n, shape=np.shape(expected[n]), dtype=tf.float32,
                    partitioner=tf.fixed_size_partitioner(PARTS[n]) if n in PARTS else None))
        for new, old in renames.items():
            created.append(tf.get_variable(new, shape=np.shape(expected[old]),
                                           dtype=getattr(tf, kinds[old])))
        created.append(tf.get_variable("new/untouched", [2], initializer=tf.ones_initializer()))
        loss = tf.add_n([tf.reduce_sum(tf.cast(_fetch(tf, v), tf.float32)) * 0.0
                         for v in created])
        train = tf.train.GradientDescentOptimizer(0.0).minimize(
            loss, global_step=tf.train.get_or_create_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)

    ws = tf.estimator.WarmStartSettings(
        plain, vars_to_warm_start=["resnet_v1_50/.*", "part/.*", "new/(mom|slot|adam_v|b1p|"
                                   "rms|f16)"],
        var_name_to_prev_var_name=renames)
    est = tf.estimator.Estimator(ws_model_fn, os.path.join(work, "ws"),
                                 warm_start_from=ws)
    est.train(_input_fn(tf), steps=1)
    for n in sorted(kinds):
        if n.startswith(SLIM):
            check("warm_start", n, est.get_variable_value(n))
    for p in PARTS:     # TF: <name>/part_<i>; estimator_npu does not partition: <name>
        got = [est.get_variable_value(n) for n in sorted(
            est.get_variable_names(), key=lambda n: int(n.rsplit("_", 1)[1]) if "/part_"
            in n else 0) if n == p or n.startswith(p + "/part_")]
        check("warm_start", p, np.concatenate(got, 0) if len(got) > 1 else got[0])
    for new, old in renames.items():
        check("warm_start " + new, old, est.get_variable_value(new))
    check("warm_start untouched", "new/untouched", est.get_variable_value("new/untouched"),
          np.ones(2, np.float32))

    # Saver(var_list=dict): checkpoint names mapped onto other variables
    with tf.Graph().as_default():
        remap = {"mom/w/Momentum": tf.get_variable("other/slot", [3, 2]),
                 "text/array": tf.Variable([b""] * 4, dtype=tf.string, name="other/text"),
                 "dtypes/int8": tf.get_variable("other/i8", [2, 3], dtype=tf.int8,
                                                initializer=tf.zeros_initializer())}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver(remap).restore(sess, tf.train.latest_checkpoint(plain))
            for n, v in remap.items():
                check("Saver(dict).restore", n, sess.run(v))

    # init_from_checkpoint: a scope map, a single name, a partitioned variable
    with tf.Graph().as_default():
        fine = {}
        for n in sorted(kinds):
            if n.startswith(SLIM):
                fine[n] = tf.get_variable("fine/" + n[len("resnet_v1_50/"):],
                                          shape=np.shape(expected[n]))
        single = tf.get_variable("single", shape=[3, 2])
        pemb = tf.get_variable("pemb", shape=[10, 4], partitioner=tf.fixed_size_partitioner(3))
        tf.train.init_from_checkpoint(plain, {"resnet_v1_50/": "fine/", "adam/w": "single",
                                              "part/emb": "pemb"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for n, v in fine.items():
                check("init_from_checkpoint", n, sess.run(v))
            check("init_from_checkpoint single", "adam/w", sess.run(single))
            check("init_from_checkpoint pemb", "part/emb", sess.run(_fetch(tf, pemb)))

    # the Estimator model_dir: files, the checkpoint state, the meta graph, warm start
    est_dir = os.path.join(d, "est")
    if not os.path.isdir(est_dir):
        return report
    files = sorted(os.listdir(est_dir))
    report["est_files"] = [f for f in files if not f.startswith("events.")]
    state = tf.train.get_checkpoint_state(est_dir)
    report["est_state"] = [os.path.basename(state.model_checkpoint_path),
                           [os.path.basename(p) for p in state.all_model_checkpoint_paths]]
    est_names = sorted(n[4:] for n in kinds if n.startswith("est:"))
    with tf.Graph().as_default():
        with tf.Session() as sess:
            saver = tf.train.import_meta_graph(state.model_checkpoint_path + ".meta")
            saver.restore(sess, state.model_checkpoint_path)
            got = {v.op.name: sess.run(v) for v in tf.global_variables()}
    report["est_meta_variables"] = sorted(got)
    for n in est_names:
        if n in got:
            check("import_meta_graph+restore", "est:" + n, got[n])
    again = tf.estimator.Estimator(_model_fn(tf), os.path.join(work, "ws2"),
                                   warm_start_from=est_dir)
    again.train(_input_fn(tf), steps=1)          # lr 0.05: the values move; read before
    reader = tf.train.load_checkpoint(os.path.join(work, "ws2"))
    report["est_warm_started_names"] = sorted(
        n for n in est_names if n != "global_step" and reader.has_tensor(n))
    for n in est_names:
        check("Estimator list/load", "est:" + n, tf.train.load_variable(est_dir, n))
    return report


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow.compat.v1 as real_tf
    real_tf.disable_v2_behavior()
    real_tf.logging.set_verbosity(real_tf.logging.ERROR)
    if sys.argv[1] == "write":
        write(real_tf, sys.argv[2])
        print(json.dumps({"written": True}))
    else:
        print(json.dumps(read(real_tf, sys.argv[2], sys.argv[3])))
