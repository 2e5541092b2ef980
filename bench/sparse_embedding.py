"""word2vec-style training step (embedding 50000x128, batch 128, nce_loss with 64 sampled
classes, GradientDescent/Adagrad): the sparse path (gradients of the lookups update only
the rows looked up, train/sparse_apply.py) against the dense path (the same gradients
passed through ``tf.identity``, which scatters them into full-size arrays), timed
alternately in one process.

    python bench/sparse_embedding.py [--optimizer Adagrad] [--steps 50]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import estimator_npu as tf  # noqa: E402
from _common import alternate, print_table  # noqa: E402

V, D, B, NS = 50000, 128, 128, 64


def build(optimizer, dense):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        inputs = tf.placeholder(tf.int32, [B])
        labels = tf.placeholder(tf.int32, [B, 1])
        emb = tf.Variable(tf.random_uniform([V, D], -1.0, 1.0))
        w = tf.Variable(tf.truncated_normal([V, D], stddev=1.0 / np.sqrt(D)))
        b = tf.Variable(tf.zeros([V]))
        loss = tf.reduce_mean(tf.nn.nce_loss(weights=w, biases=b, labels=labels,
                                             inputs=tf.nn.embedding_lookup(emb, inputs),
                                             num_sampled=NS, num_classes=V))
        opt = getattr(tf.train, optimizer + "Optimizer")(1.0)
        gvs = opt.compute_gradients(loss)
        if dense:
            gvs = [(tf.identity(gr), v) for gr, v in gvs]
        train = opt.apply_gradients(gvs)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
    rng = np.random.RandomState(0)
    feeds = [{inputs: rng.randint(0, V, B), labels: rng.randint(0, V, (B, 1))}
             for _ in range(20)]
    state = {"i": 0}

    def step():
        sess.run([train, loss], feeds[state["i"] % len(feeds)])
        state["i"] += 1
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--optimizer", default="GradientDescent")
    ap.add_argument("--steps", type=int, default=30)
    args = ap.parse_args()
    res = alternate([("sparse", build(args.optimizer, False)),
                     ("dense", build(args.optimizer, True))], args.steps, reps=5)
    print(f"word2vec step ({args.optimizer}), load average {os.getloadavg()[0]:.2f}")
    print_table([[k, f"{v * 1e3:.2f}"] for k, v in res.items()] +
                [["dense / sparse", f"{res['dense'] / res['sparse']:.1f}x"]],
                ["path", "ms/step"])


if __name__ == "__main__":
    main()
