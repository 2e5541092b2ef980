"""Training scenarios run by ``test_mpi.py`` under ``mpiexec -n 2`` (one process per rank).

Run as a script (``python mpi_scenarios.py OUT_DIR``), every rank runs every scenario
and pickles its results to ``OUT_DIR/rank<r>.pkl``. Imported, the same functions with
``size=1`` give the one-worker reference (batch ``GLOBAL_BATCH`` on one worker instead
of ``GLOBAL_BATCH / 2`` on each of two).

The model is a float64 MLP whose initial values depend on the rank (seed ``100 + rank``):
the broadcast hook must make them equal to rank 0's, which the reference uses.
"""
import os
import pickle
import sys
import tempfile

import numpy as np

import estimator_npu as tf
from estimator_npu import distribute
from estimator_npu.device import util as device_util
from estimator_npu.distribute import collective, hccl
from estimator_npu.estimator.estimator import Estimator
from estimator_npu.estimator.model_fn import EstimatorSpec
from estimator_npu.estimator.run_config import RunConfig
from estimator_npu.hooks.broadcast_hook import NPUBroadcastGlobalVariablesHook
from estimator_npu.train import distributed_optimizer
from estimator_npu.train.distributed_optimizer import NPUDistributedOptimizer
from estimator_npu.train.saver import Saver
from estimator_npu.train.summary_writer import FileWriter

GLOBAL_BATCH = 8
STEPS = 5
IN, HID, OUT = 6, 10, 3   # 103 parameters: the default split gives segments [w1 b1 w2] [b2]


def data(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n_rows, IN))
    y = np.eye(OUT)[rng.integers(0, OUT, n_rows)]
    return x, y


def model(x, y, seed):
    rng = np.random.default_rng(seed)
    w1 = tf.Variable(rng.standard_normal((IN, HID)) * 0.5, name="w1")
    b1 = tf.Variable(rng.standard_normal(HID) * 0.1, name="b1")
    w2 = tf.Variable(rng.standard_normal((HID, OUT)) * 0.5, name="w2")
    b2 = tf.Variable(rng.standard_normal(OUT) * 0.1, name="b2")
    logits = tf.matmul(tf.tanh(tf.matmul(x, w1) + b1), w2) + b2
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    return loss, [w1, b1, w2, b2]


def make_optimizer(kind):
    if kind == "sgd":
        return tf.train.GradientDescentOptimizer(0.5)
    if kind == "adam":
        return tf.train.AdamOptimizer(0.05)
    if kind == "lamb":
        return tf.train.LAMBOptimizer(0.05, weight_decay_rate=0.01,
                                      exclude_from_weight_decay=["b1"])
    raise ValueError(kind)


def broadcast_initial_values(sess):
    hook = NPUBroadcastGlobalVariablesHook(root_rank=0)
    hook.begin()
    hook.after_create_session(sess, None)


def train_feed(kind, rank, size, tailing=False, poison_step=None, poison_rank=None,
               steps=STEPS):
    """``steps`` steps with feed_dict batches; an overflow on ``poison_rank`` at
    ``poison_step`` (the loss times inf) must make every rank skip that step."""
    b = GLOBAL_BATCH // size
    g = tf.Graph()
    with g.as_default():
        xp = tf.placeholder(tf.float64, [None, IN])
        yp = tf.placeholder(tf.float64, [None, OUT])
        poison = tf.placeholder_with_default(tf.constant(1.0, tf.float64), [])
        loss, variables = model(xp, yp, seed=100 + rank)
        gs = tf.train.get_or_create_global_step()
        opt = NPUDistributedOptimizer(make_optimizer(kind), is_tailing_optimization=tailing)
        gv = opt.compute_gradients(loss * poison)
        bad = tf.add_n([tf.reduce_sum(tf.cast(tf.logical_not(tf.is_finite(grad)), tf.float64))
                        for grad, _ in gv])
        finite = tf.equal(distribute.allreduce(bad, reduction="sum"), 0.0)
        train_op = opt.apply_gradients(gv, global_step=gs, condition=finite)
        x, y = data(GLOBAL_BATCH * steps)
        applied = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            initial = sess.run(variables)
            broadcast_initial_values(sess)
            broadcast = sess.run(variables)
            for t in range(steps):
                rows = slice(t * GLOBAL_BATCH + rank * b, t * GLOBAL_BATCH + (rank + 1) * b)
                feed = {xp: x[rows], yp: y[rows]}
                if t == poison_step and rank == poison_rank:
                    feed[poison] = np.inf
                with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 in backprop
                    applied.append(bool(sess.run(train_op.outputs[0], feed)))
            values = sess.run(variables + [gs])
        stats = opt.communication_stats()
    return {"values": values[:-1], "global_step": int(values[-1]), "applied": applied,
            "messages": stats.messages, "steps_reduced": stats.steps, "initial": initial,
            "broadcast": broadcast}


def train_npu_optimizer(rank, size, tailing, poison_step=2, poison_rank=None, steps=STEPS):
    """``NPUOptimizer(is_distributed=True, is_loss_scale=True)`` with a dynamic scale; an
    overflow on ``poison_rank`` must skip the step and shrink the scale on every rank.
    ``None`` when the loss-scale wrappers are not in the package."""
    try:
        from estimator_npu.train.loss_scale import ExponentialUpdateLossScaleManager
        from estimator_npu.train.npu_optimizer import NPUOptimizer
    except ImportError:
        return None
    b = GLOBAL_BATCH // size
    g = tf.Graph()
    with g.as_default():
        xp = tf.placeholder(tf.float64, [None, IN])
        yp = tf.placeholder(tf.float64, [None, OUT])
        poison = tf.placeholder_with_default(tf.constant(1.0, tf.float64), [])
        loss, variables = model(xp, yp, seed=100 + rank)
        gs = tf.train.get_or_create_global_step()
        manager = ExponentialUpdateLossScaleManager(init_loss_scale=2.0 ** 10,
                                                    incr_every_n_steps=1000,
                                                    decr_every_n_nan_or_inf=1, decr_ratio=0.5)
        opt = NPUOptimizer(make_optimizer("lamb"), manager, is_distributed=True,
                           is_loss_scale=True, is_tailing_optimization=tailing)
        train_op = opt.minimize(loss * poison, global_step=gs)
        scale = manager.get_loss_scale()
        x, y = data(GLOBAL_BATCH * steps)
        steps_seen, scales = [], []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            broadcast_initial_values(sess)
            for t in range(steps):
                rows = slice(t * GLOBAL_BATCH + rank * b, t * GLOBAL_BATCH + (rank + 1) * b)
                feed = {xp: x[rows], yp: y[rows]}
                if t == poison_step and rank == poison_rank:
                    feed[poison] = np.inf
                with np.errstate(invalid="ignore", over="ignore"):
                    sess.run(train_op, feed)
                steps_seen.append(int(sess.run(gs)))
                scales.append(float(sess.run(scale)))
            values = sess.run(variables + [gs])
    return {"values": values[:-1], "global_step": int(values[-1]), "steps": steps_seen,
            "scales": scales}


def train_loop(kind, rank, size, iterations_per_loop=3, loops=2):
    """Batches from an initializable iterator over ``dataset.shard(size, rank)``, run by
    the device loop (``set_iteration_per_loop``)."""
    g = tf.Graph()
    with g.as_default():
        x, y = data(GLOBAL_BATCH * iterations_per_loop * loops, seed=1)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank).batch(
            GLOBAL_BATCH // size)
        it = ds.make_initializable_iterator()
        xb, yb = it.get_next()
        loss, variables = model(xb, yb, seed=100 + rank)
        gs = tf.train.get_or_create_global_step()
        opt = NPUDistributedOptimizer(make_optimizer(kind))
        train_op = opt.minimize(loss, global_step=gs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(it.initializer)
            broadcast_initial_values(sess)
            loop_op = device_util.set_iteration_per_loop(sess, train_op, iterations_per_loop)
            for _ in range(loops):
                sess.run(loop_op)
            values = sess.run(variables + [gs])
    return {"values": values[:-1], "global_step": int(values[-1])}


def graph_ops(rank, size):
    g = tf.Graph()
    with g.as_default():
        v = tf.constant(np.array([1.0, 2.0, 3.0]) * (rank + 1))
        w = tf.Variable(np.ones(3), name="w")
        y = distribute.allreduce(v * w, "sum")
        grad = tf.gradients(tf.reduce_sum(y), [w])[0]
        fetches = {
            "sum": y, "mean": distribute.allreduce(v, "mean"),
            "max": distribute.allreduce(v, "max"), "min": distribute.allreduce(v, "min"),
            "bcast": distribute.broadcast(v, root_rank=size - 1),
            "gather": distribute.allgather(v), "grad": grad,
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run(fetches)


def collectives(rank, size):
    out = {"rank": collective.rank(), "size": collective.size(),
           "local_rank": collective.local_rank(), "local_size": collective.local_size()}
    a = np.arange(4, dtype=np.float32) * (rank + 1)
    collective.allreduce(a, "sum")
    out["sum"] = a.copy()
    h = np.full(3, 0.5 * (rank + 1), dtype=np.float16)
    collective.allreduce(h, "mean")
    out["f16_mean"] = h.copy()
    flags = np.array([rank == 0, False, True])
    collective.allreduce(flags, "sum")
    out["bool_or"] = flags.copy()
    big = np.full(1 << 16, float(rank + 1))
    req = collective.iallreduce(big, "max")
    while not req.test():
        pass
    req.wait()
    out["imax"] = float(big[0]), float(big[-1])
    b = np.full((2, 2), rank, dtype=np.int64)
    collective.broadcast(b, root=size - 1)
    out["bcast"] = b.copy()
    out["gather"] = collective.allgather(np.array([rank, 10 * rank]))
    collective.barrier()
    return out


def estimator_run(rank, size, model_dir):
    """Estimator.train on sharded input with NPUDistributedOptimizer and the broadcast
    hook, in two calls (the second resumes: rank 0 restores, rank 1 starts fresh with
    other values, and the broadcast makes rank 0's win); only rank 0 writes."""
    x, y = data(GLOBAL_BATCH * 6, seed=2)

    def input_fn(config):
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        ds = ds.shard(config.num_workers, config.worker_index)
        return ds.batch(GLOBAL_BATCH // config.num_workers)

    def model_fn(features, labels, mode, config):
        loss, _ = model(features, labels, seed=100 + rank + 7 * len(os.listdir(model_dir)))
        opt = NPUDistributedOptimizer(make_optimizer("adam"))
        train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
        return EstimatorSpec(mode, loss=loss, train_op=train_op)

    writes = {"checkpoints": 0, "summary_writers": 0}
    save, writer_init = Saver.save, FileWriter.__init__

    def counting_save(self, *args, **kwargs):
        writes["checkpoints"] += 1
        return save(self, *args, **kwargs)

    def counting_writer_init(self, *args, **kwargs):
        writes["summary_writers"] += 1
        return writer_init(self, *args, **kwargs)

    config = RunConfig(model_dir=model_dir, num_workers=size, worker_index=rank,
                       save_checkpoints_steps=2, save_summary_steps=2,
                       log_step_count_steps=1)
    est = Estimator(model_fn, config=config)
    hooks = [NPUBroadcastGlobalVariablesHook(0)] if size > 1 else []
    Saver.save, FileWriter.__init__ = counting_save, counting_writer_init
    try:
        est.train(input_fn, hooks=hooks, max_steps=3)
        collective.barrier()   # rank 0's checkpoints are complete before anyone reads them
        est.train(input_fn, hooks=hooks, max_steps=6)
        collective.barrier()
    finally:
        Saver.save, FileWriter.__init__ = save, writer_init
    ckpt = est.latest_checkpoint()
    return {"final": {n: est.get_variable_value(n) for n in ("w1", "b1", "w2", "b2")},
            "global_step": int(est.get_variable_value("global_step")),
            "checkpoint": os.path.basename(ckpt), "writes": writes}


def estimator_auto(rank, size, model_dir):
    """The Estimator on its own under MPI: ``config.num_workers``/``worker_index`` from
    MPI, the broadcast hook added, rank 0 alone writing, the workers agreeing on where to
    resume (a third ``train`` finds ``max_steps`` reached on every rank). ``None`` when
    the Estimator does not configure itself from MPI."""
    x, y = data(GLOBAL_BATCH * 6, seed=2)
    calls = [0]

    def input_fn(config):
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        return ds.shard(config.num_workers, config.worker_index).batch(
            GLOBAL_BATCH // config.num_workers)

    def model_fn(features, labels, mode):
        calls[0] += 1   # rank 1 starts each call from other values; the broadcast fixes it
        loss, _ = model(features, labels, seed=100 + rank + 7 * calls[0])
        opt = NPUDistributedOptimizer(make_optimizer("adam"))
        train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
        return EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = Estimator(model_fn, config=RunConfig(model_dir=model_dir, save_checkpoints_steps=2,
                                               save_summary_steps=2))
    if (est.config.num_workers, est.config.worker_index) != (size, rank):
        return None
    saves = [0]
    save = Saver.save

    def counting_save(self, *args, **kwargs):
        saves[0] += 1
        return save(self, *args, **kwargs)
    Saver.save = counting_save
    try:
        for max_steps in (3, 6, 6):
            est.train(input_fn, max_steps=max_steps)
    finally:
        Saver.save = save
    return {"final": {n: est.get_variable_value(n) for n in ("w1", "b1", "w2", "b2")},
            "global_step": int(est.get_variable_value("global_step")), "saves": saves[0]}


def run_all(rank, size, model_dir):
    """Every scenario; the keys are what test_mpi.py compares."""
    piece = distributed_optimizer.MIN_PIECE_ELEMENTS
    distributed_optimizer.MIN_PIECE_ELEMENTS = 16  # several pieces per segment (tailing)
    try:
        return _run_all(rank, size, model_dir)
    finally:
        distributed_optimizer.MIN_PIECE_ELEMENTS = piece


def _run_all(rank, size, model_dir):
    res = {}
    for kind in ("sgd", "adam", "lamb"):
        res[f"feed_{kind}"] = train_feed(kind, rank, size)
        res[f"tail_{kind}"] = train_feed(kind, rank, size, tailing=True)
    res["overflow"] = train_feed("adam", rank, size, poison_step=2, poison_rank=size - 1)
    res["overflow_tail"] = train_feed("adam", rank, size, tailing=True, poison_step=2,
                                      poison_rank=size - 1)
    res["npu_opt"] = train_npu_optimizer(rank, size, False, poison_rank=size - 1)
    res["npu_opt_tail"] = train_npu_optimizer(rank, size, True, poison_rank=size - 1)
    hccl.set_split_strategy_by_size([50, 30, 20])
    try:
        res["split3"] = train_feed("lamb", rank, size)
        res["split3_tail"] = train_feed("lamb", rank, size, tailing=True)
    finally:
        hccl.reset_split_strategy()
    hccl.set_split_strategy_by_idx([1, 3])
    try:
        res["idx2_tail"] = train_feed("adam", rank, size, tailing=True)
    finally:
        hccl.reset_split_strategy()
    res["loop_sgd"] = train_loop("sgd", rank, size)
    res["loop_adam"] = train_loop("adam", rank, size)
    res["graph_ops"] = graph_ops(rank, size)
    res["collectives"] = collectives(rank, size)
    res["estimator"] = estimator_run(rank, size, model_dir)
    auto_dir = os.path.join(model_dir, "auto")
    if rank == 0:
        os.makedirs(auto_dir, exist_ok=True)
    collective.barrier()
    res["estimator_auto"] = estimator_auto(rank, size, auto_dir)
    return res


def main(argv):
    out_dir = argv[1]
    rank, size = collective.rank(), collective.size()
    model_dir = os.path.join(out_dir, "model")
    if rank == 0:
        os.makedirs(model_dir, exist_ok=True)
    collective.barrier()
    res = run_all(rank, size, model_dir)
    path = os.path.join(out_dir, f"rank{rank}.pkl")
    with open(path + ".tmp", "wb") as f:
        pickle.dump(res, f)
    os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv if len(sys.argv) > 1 else [None, tempfile.mkdtemp()]))
