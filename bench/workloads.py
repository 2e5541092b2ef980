"""W2 (MLP 784-512-512-10, Adam) and W3 (LeNet-5, momentum) through the Estimator with
``iterations_per_loop=100``, against a hand-fused numpy implementation of the same training
step (the limit of /work/shared/PERFORMANCE.md), timed alternately in the same process.

Both implementations start from the same glorot-uniform weights (numpy, fixed seed; the
Estimator gets them through ``constant_initializer``) and train on the same 100 pre-made
batches of MNIST-shaped random data, in turn. Before timing, the Estimator's losses of the
first steps (``iterations_per_loop=1``) are checked against the hand-written step, and its
loss of step 100 with ``iterations_per_loop=100`` against step 100 with 1 (``check_losses``).

* W2: MLP 784-512-512-10, ReLU, sparse softmax cross entropy, Adam lr 1e-3, batch 128.
* W3: LeNet-5 on 28x28x1 NHWC: conv5x5x6 'same' + ReLU, max-pool 2x2, conv5x5x16 'valid'
  + ReLU, max-pool 2x2, dense 400-120-84-10 (ReLU), momentum 0.9 lr 0.01, batch 64.

The hand-written step: flat buffers for parameters, gradients and optimizer slots (every
layer's tensors are views into them), every intermediate preallocated and written with
``out=``, softmax cross entropy forward and backward fused with ``1/batch`` (and Adam's
``1 - beta1``) folded into the logits gradient, max-pool before bias + ReLU (they
commute), im2col + GEMM per conv and col2im as shifted adds, channel-major activations
(see ``LeNetMomentum`` for where it departs from the plainest recipe, and why).

Three timings, alternating: the hand-written loop; the "bare plan" (the model's compiled
training plan called directly with the batch, no Estimator, input pipeline or hooks:
kernel quality alone); the Estimator with ``NPURunConfig(iterations_per_loop=100)`` and
its default hooks (step counter, loss logging, checkpoints every 1,000 steps, summaries
every 100 steps), whose steady-state steps/s is measured between the first and the last
host call (``RateHook``), so graph building and session creation are excluded.
``--profile`` prints, for one training step of each, the hand-written stages and the
plan's kernels (``_profile.profile_plan``, each line rerun on its own, and each line's
time inside whole steps run in order, which is what adds up to the step time).

Every timed run starts from the initial weights and runs at most a few hundred steps:
on these random labels W2's ReLUs die after ~600 steps, Adam's first moments of the
dead weights then decay into float32 subnormals (and stay there: 0.9 x the smallest
subnormal rounds back to it), and every elementwise op over them becomes ~3x slower
(measured: 6 ms -> 20 ms per step from step ~800 on, in both implementations).

Run: ``python bench/workloads.py [--profile] [--reps N] [--only w2|w3]``
"""
import argparse
import logging
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import estimator_npu as tf  # noqa: E402
from estimator_npu.estimator import NPURunConfig  # noqa: E402
from _common import print_table  # noqa: E402

N_BATCHES = 100
ITERATIONS_PER_LOOP = 100
F32 = np.float32


# ---------------------------------------------------------------- data and initial weights
def make_batches(batch, image_shape, seed=0):
    """100 pre-made batches: ``xs [100, batch, *image_shape]`` in [0, 1), int32 labels."""
    rng = np.random.default_rng(seed)
    xs = rng.random((N_BATCHES, batch, *image_shape), dtype=F32)
    ys = rng.integers(0, 10, (N_BATCHES, batch)).astype(np.int32)
    return xs, ys


def glorot_uniform(rng, shape):
    """Keras/TF glorot uniform: ``U(-l, l)``, ``l = sqrt(6 / (fan_in + fan_out))``."""
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, shape).astype(F32)


def initial_kernels(shapes, seed=1):
    rng = np.random.default_rng(seed)
    return [glorot_uniform(rng, s) for s in shapes]


class Flat:
    """One flat float32 buffer holding named tensors back to back; ``views[name]``."""

    def __init__(self, shapes):
        self.names = list(shapes)
        sizes = [int(np.prod(s)) for s in shapes.values()]
        self.buf = np.zeros(sum(sizes), F32)
        self.views, off = {}, 0
        for (name, shape), n in zip(shapes.items(), sizes):
            self.views[name] = self.buf[off:off + n].reshape(shape)
            off += n

    def like(self):
        return Flat({n: v.shape for n, v in self.views.items()})


def _softmax_xent(z, y, rows, scale):
    """Fused softmax cross entropy on logits ``z`` (in place): returns the mean loss and
    leaves ``scale * (softmax - onehot)`` in ``z``."""
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    p = z[rows, y]
    loss = -float(np.log(p).mean())
    z[rows, y] = p - 1.0
    z *= scale
    return loss


# ---------------------------------------------------------------- W2: MLP, Adam
W2_BATCH, W2_LR, B1, B2, EPS = 128, 1e-3, 0.9, 0.999, 1e-8
W2_KERNELS = [(784, 512), (512, 512), (512, 10)]


class MLPAdam:
    """The hand-fused W2 training step. ``stages`` is a flat list of ``(name, fn)``;
    ``step(x, y)`` runs them and returns the loss."""

    def __init__(self, kernels, batch=W2_BATCH):
        shapes = {}
        for i, k in enumerate(kernels):
            shapes[f"w{i}"], shapes[f"b{i}"] = k.shape, (k.shape[1],)
        self.p = Flat(shapes)
        for i, k in enumerate(kernels):
            self.p.views[f"w{i}"][...] = k
        self.g, self.m, self.v = self.p.like(), self.p.like(), self.p.like()
        self.t = np.empty_like(self.p.buf)
        self.b1p, self.b2p = 1.0, 1.0
        P, G = self.p.views, self.g.views
        n = batch
        h1, h2 = np.empty((n, 512), F32), np.empty((n, 512), F32)
        d1, d2 = np.empty((n, 512), F32), np.empty((n, 512), F32)
        mk1, mk2 = np.empty((n, 512), bool), np.empty((n, 512), bool)
        z = np.empty((n, 10), F32)
        rows = np.arange(n)
        io = {}
        scale = F32((1.0 - B1) / n)  # mean over the batch and Adam's (1 - beta1), folded
        self.loss = 0.0

        def fwd1():
            np.matmul(io["x"], P["w0"], out=h1)
            np.add(h1, P["b0"], out=h1)
            np.maximum(h1, 0, out=h1)

        def fwd2():
            np.matmul(h1, P["w1"], out=h2)
            np.add(h2, P["b1"], out=h2)
            np.maximum(h2, 0, out=h2)

        def fwd3():
            np.matmul(h2, P["w2"], out=z)
            np.add(z, P["b2"], out=z)

        def xent():
            self.loss = _softmax_xent(z, io["y"], rows, scale)

        def bwd3():
            np.matmul(h2.T, z, out=G["w2"])
            np.sum(z, axis=0, out=G["b2"])
            np.matmul(z, P["w2"].T, out=d2)
            np.greater(h2, 0, out=mk2)
            np.multiply(d2, mk2, out=d2)

        def bwd2():
            np.matmul(h1.T, d2, out=G["w1"])
            np.sum(d2, axis=0, out=G["b1"])
            np.matmul(d2, P["w1"].T, out=d1)
            np.greater(h1, 0, out=mk1)
            np.multiply(d1, mk1, out=d1)

        def bwd1():
            np.matmul(io["x"].T, d1, out=G["w0"])
            np.sum(d1, axis=0, out=G["b0"])

        p, g, m, v, t = self.p.buf, self.g.buf, self.m.buf, self.v.buf, self.t
        # g holds (1 - beta1) * grad: v needs (1 - beta2) / (1 - beta1)^2 * g^2.
        cv = F32((1.0 - B2) / (1.0 - B1) ** 2)

        def adam():
            self.b1p *= B1
            self.b2p *= B2
            lr_t = F32(W2_LR * math.sqrt(1.0 - self.b2p) / (1.0 - self.b1p))
            np.multiply(m, F32(B1), out=m)
            np.add(m, g, out=m)
            np.multiply(v, F32(B2), out=v)
            np.multiply(g, g, out=t)
            np.multiply(t, cv, out=t)
            np.add(v, t, out=v)
            np.sqrt(v, out=t)
            np.add(t, F32(EPS), out=t)
            np.divide(m, t, out=t)
            np.multiply(t, lr_t, out=t)
            np.subtract(p, t, out=p)

        self.stages = [("dense fwd 784x512", fwd1), ("dense fwd 512x512", fwd2),
                       ("dense fwd 512x10", fwd3), ("softmax xent fwd+bwd", xent),
                       ("dense bwd 512x10", bwd3), ("dense bwd 512x512", bwd2),
                       ("dense bwd 784x512", bwd1), ("adam (flat, 669,706)", adam)]
        self._fns = [f for _, f in self.stages]
        self._io = io

    def step(self, x, y):
        self._io["x"], self._io["y"] = x, y
        for f in self._fns:
            f()
        return self.loss


def mlp_model_fn(kernels):
    def model_fn(features, labels, mode):
        h = features
        for i, k in enumerate(kernels):
            last = i == len(kernels) - 1
            h = tf.layers.dense(h, k.shape[1], activation=None if last else tf.nn.relu,
                                kernel_initializer=tf.constant_initializer(k))
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=h))
        train_op = tf.train.AdamOptimizer(W2_LR, B1, B2, EPS).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


# ---------------------------------------------------------------- W3: LeNet-5, momentum
W3_BATCH, W3_LR, MOMENTUM = 64, 0.01, 0.9
W3_KERNELS = [(5, 5, 1, 6), (5, 5, 6, 16), (400, 120), (120, 84), (84, 10)]


class LeNetMomentum:
    """The hand-fused W3 training step (same ``stages``/``step`` protocol).

    Activations live channel-major (``[c, n, h, w]``) so that elementwise ops and pooling
    run over long inner loops; only the flatten before the dense layers transposes (to
    TF's NHWC order). conv1 (1 input channel): im2col with ``sliding_window_view`` into
    ``cols [kh*kw, n, 28*28]``, one batched matmul ``kernel.T @ cols`` straight into
    ``[6, n, 28, 28]`` (its weight gradient too, per image then summed: OpenBLAS runs the
    single skinny GEMM with K = n*784 2-3x slower).
    conv2 uses "wide rows": each 14x14 input plane is stored flat (padded to 200), the
    window at ``(i, j)`` is the contiguous slice ``[14 i + j : 14 i + j + 140]``, so im2col
    is 25 contiguous copies and the GEMM computes 10 output rows of 14 columns (4 of them
    garbage, never read; their gradients are kept zero), and col2im is 25 contiguous
    shifted adds. Max-pool 2x2 is two ``maximum``s of even/odd views (along w, then h)
    whose comparisons, kept as masks, route the gradient back; it runs before bias + ReLU.

    Measured on a 2-core Xeon: the plainest recipe (NHWC, ``sliding_window_view`` im2col
    and one 2-D GEMM per conv, pooling by reshape + ``max``) ran at 42 steps/s, the same
    channel-major ~85; the conv1 batched GEMMs and conv2's wide rows (its im2col copies
    and col2im adds then run along rows of 140 instead of 10) bring it to ~110-120, about
    0.85-0.9x this file's W2 limit, as for the reference limits of PERFORMANCE.md.
    """

    def __init__(self, kernels, batch=W3_BATCH):
        names = ["c1", "c2", "f3", "f4", "f5"]
        shapes = {}
        for name, k in zip(names, kernels):
            shapes["w" + name], shapes["b" + name] = k.shape, (k.shape[-1],)
        self.p = Flat(shapes)
        for name, k in zip(names, kernels):
            self.p.views["w" + name][...] = k
        self.g, self.a = self.p.like(), self.p.like()
        self.t = np.empty_like(self.p.buf)
        P, G = self.p.views, self.g.views
        n = batch
        e = np.empty
        w1, w2 = P["wc1"].reshape(25, 6), P["wc2"].reshape(150, 16)
        g1, g2 = G["wc1"].reshape(25, 6), G["wc2"].reshape(150, 16)
        b1, b2 = P["bc1"][:, None], P["bc2"][:, None]
        # conv1 + pool1
        xpad = np.zeros((n, 32, 32), F32)                 # 'same' padding of conv1
        cols1 = e((5, 5, n, 28, 28), F32)                  # im2col [kh, kw, n, oh, ow]
        z1 = e((6, n, 28, 28), F32)                         # conv1 pre-activation
        h1 = e((6, n, 28, 14), F32)                         # max over w pairs
        p1 = e((6, n, 14, 14), F32)                         # pooled (+ bias)
        mw1, mh1 = e(h1.shape, bool), e(p1.shape, bool)     # pooling comparisons
        mr1 = e(p1.shape, bool)                             # ReLU mask
        a1p = np.zeros((6, n, 200), F32)                    # ReLU output, wide rows
        a1 = a1p[:, :, :196].reshape(6, n, 14, 14)
        # conv2 + pool2
        cols2 = e((5, 5, 6, n, 140), F32)
        z2 = e((16, n, 10, 14), F32)                        # 4 garbage columns per row
        h2 = e((16, n, 10, 5), F32)
        p2 = e((16, n, 5, 5), F32)
        mw2, mh2, mr2 = e(h2.shape, bool), e(p2.shape, bool), e(p2.shape, bool)
        # dense
        a2f = e((n, 400), F32)                              # ReLU output, NHWC flatten
        a3, a4, z = e((n, 120), F32), e((n, 84), F32), e((n, 10), F32)
        d4, d3, d2f = e((n, 84), F32), e((n, 120), F32), e((n, 400), F32)
        mk3, mk4 = e((n, 120), bool), e((n, 84), bool)
        # backward
        d2, dh2 = e(p2.shape, F32), e(h2.shape, F32)
        dz2 = np.zeros(z2.shape, F32)                       # garbage columns stay 0
        dcols2 = e(cols2.shape, F32)
        da1p = e(a1p.shape, F32)
        da1, dh1, dz1 = e(p1.shape, F32), e(h1.shape, F32), e(z1.shape, F32)
        rows = np.arange(n)
        io = {}
        scale = F32(1.0 / n)
        self.loss = 0.0
        win1 = sliding_window_view(xpad, (5, 5), axis=(1, 2)).transpose(3, 4, 0, 1, 2)
        c2m, z2m, dz2m = cols2.reshape(150, -1), z2.reshape(16, -1), dz2.reshape(16, -1)
        p1m, p2m, d2m, da1m = (v.reshape(v.shape[0], -1) for v in (p1, p2, d2, da1))
        c1b = cols1.reshape(25, n, 784).transpose(1, 0, 2)   # [n, 25, 784]
        z1b = z1.reshape(6, n, 784).transpose(1, 0, 2)       # [n, 6, 784]
        dz1b = dz1.reshape(6, n, 784).transpose(1, 2, 0)     # [n, 784, 6]
        g1b = e((n, 25, 6), F32)
        shifts = [(i, j, 14 * i + j) for i in range(5) for j in range(5)]
        # even/odd views along w for pooling (z1: flat; z2: the 10 valid columns of 14)
        z1f, dz1f = z1.reshape(-1), dz1.reshape(-1)
        z2v, dz2v = z2.reshape(-1, 14), dz2.reshape(-1, 14)
        pool1_w = (z1f[0::2], z1f[1::2], mw1.reshape(-1), h1.reshape(-1))
        pool2_w = (z2v[:, 0:10:2], z2v[:, 1:10:2], mw2.reshape(-1, 5), h2.reshape(-1, 5))
        unpool1_w = (dh1.reshape(-1), mw1.reshape(-1), dz1f[0::2], dz1f[1::2])
        unpool2_w = (dh2.reshape(-1, 5), mw2.reshape(-1, 5), dz2v[:, 0:10:2], dz2v[:, 1:10:2])

        def pool_fwd(w_views, h, mh, p, ow):
            """2x2 max-pool: along w (even/odd views), then along h."""
            ev, od, mw, hf = w_views
            np.greater_equal(ev, od, out=mw)
            np.maximum(ev, od, out=hf)
            hv = h.reshape(-1, 2, ow)
            np.greater_equal(hv[:, 0], hv[:, 1], out=mh.reshape(-1, ow))
            np.maximum(hv[:, 0], hv[:, 1], out=p.reshape(-1, ow))

        def pool_bwd(d, mh, dh, w_views, ow):
            """Routes ``d`` (pooled grads) to the window maxima."""
            dhv = dh.reshape(-1, 2, ow)
            dm = d.reshape(-1, ow)
            np.multiply(dm, mh.reshape(-1, ow), out=dhv[:, 0])
            np.subtract(dm, dhv[:, 0], out=dhv[:, 1])
            dhf, mw, dev, dod = w_views
            np.multiply(dhf, mw, out=dev)
            np.subtract(dhf, dev, out=dod)

        def conv1():
            xpad[:, 2:30, 2:30] = io["x"].reshape(n, 28, 28)
            np.copyto(cols1, win1)
            np.matmul(w1.T, c1b, out=z1b)       # per image: [6, 25] @ [25, 784]

        def pool1():
            pool_fwd(pool1_w, h1, mh1, p1, 14)
            np.add(p1m, b1, out=p1m)
            np.maximum(p1, 0, out=a1)

        def conv2():
            for i, j, o in shifts:
                np.copyto(cols2[i, j], a1p[:, :, o:o + 140])
            np.matmul(w2.T, c2m, out=z2m)

        def pool2():
            pool_fwd(pool2_w, h2, mh2, p2, 5)
            np.add(p2m, b2, out=p2m)
            np.maximum(p2, 0, out=a2f.reshape(n, 5, 5, 16).transpose(3, 0, 1, 2))

        def dense_fwd():
            np.matmul(a2f, P["wf3"], out=a3)
            np.add(a3, P["bf3"], out=a3)
            np.maximum(a3, 0, out=a3)
            np.matmul(a3, P["wf4"], out=a4)
            np.add(a4, P["bf4"], out=a4)
            np.maximum(a4, 0, out=a4)
            np.matmul(a4, P["wf5"], out=z)
            np.add(z, P["bf5"], out=z)

        def xent():
            self.loss = _softmax_xent(z, io["y"], rows, scale)

        def dense_bwd():
            np.matmul(a4.T, z, out=G["wf5"])
            np.sum(z, axis=0, out=G["bf5"])
            np.matmul(z, P["wf5"].T, out=d4)
            np.greater(a4, 0, out=mk4)
            np.multiply(d4, mk4, out=d4)
            np.matmul(a3.T, d4, out=G["wf4"])
            np.sum(d4, axis=0, out=G["bf4"])
            np.matmul(d4, P["wf4"].T, out=d3)
            np.greater(a3, 0, out=mk3)
            np.multiply(d3, mk3, out=d3)
            np.matmul(a2f.T, d3, out=G["wf3"])
            np.sum(d3, axis=0, out=G["bf3"])
            np.matmul(d3, P["wf3"].T, out=d2f)

        def pool2_bwd():
            np.greater(p2, 0, out=mr2)
            np.multiply(d2f.reshape(n, 5, 5, 16).transpose(3, 0, 1, 2), mr2, out=d2)
            np.sum(d2m, axis=1, out=G["bc2"])
            pool_bwd(d2, mh2, dh2, unpool2_w, 5)

        def conv2_bwd():
            np.matmul(c2m, dz2m.T, out=g2)
            np.matmul(w2, dz2m, out=dcols2.reshape(150, -1))
            da1p.fill(0)
            for i, j, o in shifts:                   # col2im: 25 shifted adds
                dst = da1p[:, :, o:o + 140]
                np.add(dst, dcols2[i, j], out=dst)

        def pool1_bwd():
            np.greater(p1, 0, out=mr1)
            np.multiply(da1p[:, :, :196].reshape(p1.shape), mr1, out=da1)
            np.sum(da1m, axis=1, out=G["bc1"])
            pool_bwd(da1, mh1, dh1, unpool1_w, 14)

        def conv1_bwd():
            np.matmul(c1b, dz1b, out=g1b)       # per image, then summed: skinny GEMMs
            np.sum(g1b, axis=0, out=g1)         # with K = n*784 run 2-3x slower

        p, g, acc, t = self.p.buf, self.g.buf, self.a.buf, self.t

        def momentum():
            np.multiply(acc, F32(MOMENTUM), out=acc)
            np.add(acc, g, out=acc)
            np.multiply(acc, F32(W3_LR), out=t)
            np.subtract(p, t, out=p)

        self.stages = [("conv1 im2col+gemm", conv1), ("pool1+bias+relu", pool1),
                       ("conv2 im2col+gemm", conv2), ("pool2+bias+relu+flatten", pool2),
                       ("dense fwd 400-120-84-10", dense_fwd), ("softmax xent fwd+bwd", xent),
                       ("dense bwd", dense_bwd), ("pool2 bwd (relu, bias, unpool)", pool2_bwd),
                       ("conv2 bwd (dW, col2im)", conv2_bwd),
                       ("pool1 bwd (relu, bias, unpool)", pool1_bwd),
                       ("conv1 bwd (dW)", conv1_bwd), ("momentum (flat, 61,706)", momentum)]
        self._fns = [f for _, f in self.stages]
        self._io = io

    def step(self, x, y):
        self._io["x"], self._io["y"] = x, y
        for f in self._fns:
            f()
        return self.loss


def lenet_model_fn(kernels):
    def model_fn(features, labels, mode):
        init = [tf.constant_initializer(k) for k in kernels]
        h = tf.layers.conv2d(features, 6, 5, padding="same", activation=tf.nn.relu,
                             kernel_initializer=init[0])
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.conv2d(h, 16, 5, padding="valid", activation=tf.nn.relu,
                             kernel_initializer=init[1])
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.flatten(h)
        h = tf.layers.dense(h, 120, activation=tf.nn.relu, kernel_initializer=init[2])
        h = tf.layers.dense(h, 84, activation=tf.nn.relu, kernel_initializer=init[3])
        logits = tf.layers.dense(h, 10, kernel_initializer=init[4])
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        train_op = tf.train.MomentumOptimizer(W3_LR, MOMENTUM).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


WORKLOADS = {
    "w2": dict(title="W2: MLP 784-512-512-10, Adam, batch 128", batch=W2_BATCH,
               image=(784,), kernels=W2_KERNELS, hand=MLPAdam, model_fn=mlp_model_fn,
               steps=300),
    "w3": dict(title="W3: LeNet-5, momentum, batch 64", batch=W3_BATCH, image=(28, 28, 1),
               kernels=W3_KERNELS, hand=LeNetMomentum, model_fn=lenet_model_fn, steps=300),
}


# ---------------------------------------------------------------- the two implementations
def numpy_loop(w, xs, ys, kernels, steps):
    """The hand-fused training from the initial weights: seconds per step."""
    hand = w["hand"](kernels, w["batch"])
    step = hand.step
    t0 = time.perf_counter()
    for i in range(steps):
        step(xs[i % N_BATCHES], ys[i % N_BATCHES])
    return (time.perf_counter() - t0) / steps


class RateHook(tf.train.SessionRunHook):
    """Steady-state steps/s between the first and the last host call."""

    def __init__(self):
        self.marks = []

    def after_run(self, run_context, run_values):
        self.marks.append((time.perf_counter(), run_values.global_step))

    def seconds_per_step(self):
        (t0, s0), (t1, s1) = self.marks[0], self.marks[-1]
        return (t1 - t0) / (s1 - s0)


class LossHook(tf.train.SessionRunHook):
    """Fetches the model's loss at every host call: ``losses`` is ``[(global_step, loss)]``.
    ``estimator_train`` fills ``model`` with the ``EstimatorSpec`` the model_fn returned."""

    def __init__(self):
        self.losses, self.model = [], {}

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self.model["spec"].loss)

    def after_run(self, run_context, run_values):
        self.losses.append((run_values.global_step, float(run_values.results)))


def estimator_train(w, xs, ys, kernels, steps, hooks, iterations_per_loop=ITERATIONS_PER_LOOP):
    model_dir = tempfile.mkdtemp(prefix="bench_workloads_")
    try:
        config = NPURunConfig(model_dir=model_dir, iterations_per_loop=iterations_per_loop,
                              save_checkpoints_steps=1000, save_summary_steps=100,
                              log_step_count_steps=100)
        model_fn = w["model_fn"](kernels)
        model = {}

        def wrapped(features, labels, mode):
            model["spec"] = model_fn(features, labels, mode)
            return model["spec"]
        for h in hooks:
            if isinstance(h, LossHook):
                h.model = model
        est = tf.estimator.Estimator(wrapped, config=config)

        def input_fn():
            return tf.data.Dataset.from_tensor_slices((xs, ys)).repeat()
        est.train(input_fn, steps=steps, hooks=hooks)
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def estimator_run(w, xs, ys, kernels, steps):
    rate = RateHook()
    estimator_train(w, xs, ys, kernels, steps, [rate])
    return rate.seconds_per_step()


def check_losses(w, xs, ys, kernels, n_first=5):
    """The Estimator and the hand-written step compute the same losses.

    The first ``n_first`` steps (``iterations_per_loop=1``, the loss fetched at every
    step) must match the hand-written step within float32 tolerance. Step 100 with
    ``iterations_per_loop=100`` (100 batches taken in turn inside the loop) must match
    step 100 with ``iterations_per_loop=1``; it is compared with the hand-written step
    only for information, as training on random labels is chaotic (W2: Adam's first
    updates are ``lr * sign(g)``, so float32 rounding of gradients near 0 grows to
    ~1e-2 in the loss within 50 steps).
    """
    hand = w["hand"](kernels, w["batch"])
    ref = [hand.step(xs[i % N_BATCHES], ys[i % N_BATCHES])
           for i in range(ITERATIONS_PER_LOOP)]
    each = LossHook()
    estimator_train(w, xs, ys, kernels, ITERATIONS_PER_LOOP, [each], iterations_per_loop=1)
    got = [loss for _, loss in each.losses]
    assert [s for s, _ in each.losses] == list(range(1, ITERATIONS_PER_LOOP + 1))
    for i in range(n_first):
        a, b = ref[i], got[i]
        assert abs(a - b) <= 1e-5 * max(1.0, abs(a)), (f"step {i + 1}", a, b)
    looped = LossHook()
    estimator_train(w, xs, ys, kernels, ITERATIONS_PER_LOOP, [looped])
    (gs, last), = looped.losses
    assert gs == ITERATIONS_PER_LOOP, looped.losses
    assert abs(last - got[-1]) <= 1e-5 * max(1.0, abs(last)), ("step 100", got[-1], last)
    print(f"  losses agree, steps 1-{n_first} (hand/Estimator): "
          + " ".join(f"{a:.5f}/{b:.5f}" for a, b in zip(ref, got[:n_first]))
          + f"\n  step {ITERATIONS_PER_LOOP}: Estimator iterations_per_loop=100 {last:.5f}, "
          f"=1 {got[-1]:.5f}; hand {ref[-1]:.5f}")


# ---------------------------------------------------------------- the bare plan
def engine_plan(w, kernels):
    """The model's training plan compiled with placeholders for the batch, as a
    ``BarePlan``: ``fn(x, y)`` runs one training step with no Session.run, Estimator, input
    pipeline or hooks around it (the kernels alone, in the plan's order); ``reset()``
    reloads the initial weights."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, *w["image"]])
        y = tf.placeholder(tf.int32, [None])
        tf.train.create_global_step()
        spec = w["model_fn"](kernels)(x, y, tf.estimator.ModeKeys.TRAIN)
        init = tf.global_variables_initializer()
        sess = tf.Session()
        sess.run(init)
        plan = sess.compile([spec.train_op], [x, y])
        plan.check_initialized()
    return BarePlan(plan, sess, init)


class BarePlan:
    def __init__(self, plan, sess, init):
        self.plan, self.sess, self.init, self.fn = plan, sess, init, plan.fn

    def reset(self):
        self.sess.run(self.init)


def plan_loop(plan, xs, ys, steps):
    """Seconds per step of the bare training plan over the pre-made batches, from the
    initial weights (as the other two: see the module docstring on subnormals)."""
    plan.reset()
    fn = plan.fn
    t0 = time.perf_counter()
    for i in range(steps):
        fn(xs[i % N_BATCHES], ys[i % N_BATCHES])
    return (time.perf_counter() - t0) / steps


# ---------------------------------------------------------------- profiles
def in_sequence_plan(plan, xs, ys, steps=30, clock=time.perf_counter):
    """µs of each kernel of the plan timed inside whole training steps of the real plan
    function (each kernel sees the caches and allocator state the previous ones left, as
    in training): ``{(type, name): µs}``. Each ``k_*`` kernel the plan calls is wrapped by
    a timer for the duration; lines that call no kernel (variable reads, constants) take
    no measurable time and are left out. A kernel object shared by several lines (``k_dot``
    of every 2-D MatMul) is counted under the first line's op. ``clock``:
    ``time.thread_time`` gives CPU time (with one BLAS and one pool thread, all the
    kernel's work)."""
    ns = plan.fn.__globals__
    lines = plan.source.splitlines()
    acc, wrapped = {}, {}
    pc = clock
    for lineno, line in enumerate(lines, start=1):
        m = re.search(r"= (k_\w+)\(", line)
        op = plan.line_ops.get(lineno)
        if not m or m.group(1) in wrapped or op is None:
            continue
        key = (op.type, op.name)
        acc[key] = 0.0

        def timed(*a, _k=ns[m.group(1)], _key=key):
            t0 = pc()
            try:
                return _k(*a)
            finally:
                acc[_key] += pc() - t0
        wrapped[m.group(1)] = ns[m.group(1)]
        ns[m.group(1)] = timed
    try:
        for i in range(steps):
            plan.fn(xs[i % N_BATCHES], ys[i % N_BATCHES])
    finally:
        ns.update(wrapped)
    return {key: t / steps * 1e6 for key, t in acc.items()}


def in_sequence_hand(hand, xs, ys, steps=30):
    acc = {name: 0.0 for name, _ in hand.stages}
    pc = time.perf_counter
    for i in range(steps):
        hand._io["x"], hand._io["y"] = xs[i % N_BATCHES], ys[i % N_BATCHES]
        for name, fn in hand.stages:
            t0 = pc()
            fn()
            acc[name] += pc() - t0
    return {name: t / steps * 1e6 for name, t in acc.items()}


def in_sequence_both(w, xs, ys, kernels, plan, rounds=5, steps=8):
    """In-sequence profiles of the hand-written step and of the plan, taken alternately
    (``rounds`` of ``steps`` each, from the initial weights): per-line medians."""
    hand = w["hand"](kernels, w["batch"])
    plan.reset()
    for i in range(3):
        hand.step(xs[i], ys[i])
        plan.fn(xs[i], ys[i])
    hs, es = [], []
    for _ in range(rounds):
        hs.append(in_sequence_hand(hand, xs, ys, steps))
        es.append(in_sequence_plan(plan.plan, xs, ys, steps))
    return ({k: statistics.median(d[k] for d in hs) for k in hs[0]},
            {k: statistics.median(d[k] for d in es) for k in es[0]})


def profile_engine(plan, xs, ys, seq, top, rounds=5, reps=20):
    """Per-kernel profile of the training plan: ``_profile.profile_plan`` (each line rerun
    on its own, median of ``rounds``) next to ``seq``, each line's time inside whole steps
    (``in_sequence_plan``). Returns the in-sequence total (µs)."""
    from _profile import profile_plan
    plan.reset()
    for i in range(3):
        plan.fn(xs[i], ys[i])
    samples = {}
    for _ in range(rounds):
        for t, name, us in profile_plan(plan.plan, [xs[0], ys[0]], reps=reps):
            samples.setdefault((t, name), []).append(us)
    alone = {key: statistics.median(v) for key, v in samples.items()}
    total = sum(seq.values())
    print(f"engine, per-kernel profile of one training step (plan with placeholders; "
          f"'alone': profile_plan, median of {rounds} x {reps}; 'in steps': inside whole "
          f"steps, medians of rounds alternating with the hand-written step):")
    print(f"{'op type':22s} {'op name':38s} {'alone µs':>9s} {'in steps':>9s} {'share':>6s}")
    for (t, name), us in sorted(seq.items(), key=lambda r: -r[1])[:top]:
        print(f"{t[:22]:22s} {name[:38]:38s} {alone[(t, name)]:9.1f} {us:9.1f} "
              f"{us / total:6.1%}")
    print(f"{len(seq)} kernels: {sum(alone.values()):.0f} µs alone, {total:.0f} µs in steps")
    return total


def profile_hand(w, xs, ys, kernels, seq, rounds=5, reps=20):
    """Per-stage profile of the hand-fused step, alone (median of ``rounds``) and inside
    whole steps (``seq``, from ``in_sequence_hand``). Returns the in-sequence total (µs)."""
    hand = w["hand"](kernels, w["batch"])
    for i in range(3):
        hand.step(xs[i], ys[i])
    hand._io["x"], hand._io["y"] = xs[0], ys[0]
    samples = {name: [] for name, _ in hand.stages}
    with np.errstate(all="ignore"):  # a stage rerun on its own output (xent: log(0))
        for _ in range(rounds):
            for name, fn in hand.stages:
                t0 = time.perf_counter()
                for _ in range(reps):
                    fn()
                samples[name].append((time.perf_counter() - t0) / reps * 1e6)
    alone = {name: statistics.median(v) for name, v in samples.items()}
    total = sum(seq.values())
    print("hand-fused numpy, per-stage profile of one training step:")
    print(f"{'stage':61s} {'alone µs':>9s} {'in steps':>9s} {'share':>6s}")
    for name, us in seq.items():
        print(f"{name:61s} {alone[name]:9.1f} {us:9.1f} {us / total:6.1%}")
    print(f"{len(seq)} stages: {sum(alone.values()):.0f} µs alone, {total:.0f} µs in steps")
    return total


# ---------------------------------------------------------------- main
TARGETS = {"w2": 1.0, "w3": 0.9}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--only", choices=sorted(WORKLOADS), action="append")
    parser.add_argument("--profile", action="store_true",
                        help="print a per-kernel profile of one training step of each")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    logging.getLogger("estimator_npu").setLevel(logging.ERROR)
    names = args.only or sorted(WORKLOADS)
    rows, data = [], {}
    for name in names:
        w = WORKLOADS[name]
        xs, ys = make_batches(w["batch"], w["image"])
        kernels = initial_kernels(w["kernels"])
        print(w["title"])
        check_losses(w, xs, ys, kernels)
        plan = engine_plan(w, kernels)
        data[name] = xs, ys, kernels, plan
        steps = w["steps"]
        numpy_loop(w, xs, ys, kernels, steps // 3)                  # warm-up
        plan_loop(plan, xs, ys, steps // 3)
        estimator_run(w, xs, ys, kernels, 2 * ITERATIONS_PER_LOOP)
        base, bare, est = [], [], []
        for _ in range(args.reps):
            base.append(numpy_loop(w, xs, ys, kernels, steps))
            bare.append(plan_loop(plan, xs, ys, steps))
            est.append(estimator_run(w, xs, ys, kernels, steps))
        t_np, t_plan, t_est = (statistics.median(v) for v in (base, bare, est))
        for label, v in (("hand numpy", base), ("bare plan", bare), ("Estimator", est)):
            print(f"  {label:10s} steps/s: " + " ".join(f"{1 / t:.0f}" for t in v))
        rows.append([w["title"], f"{1 / t_np:.0f}", f"{1 / t_plan:.0f} ({t_np / t_plan:.2f})",
                     f"{1 / t_est:.0f}", f"{t_np / t_est:.2f}", f"{TARGETS[name]:.1f}"])
    print()
    print_table(rows, ["workload", "hand numpy", "bare plan (ratio)",
                       "Estimator, N=100", "ratio", "target"])
    print("(steps/s, medians of alternate runs; ratio = steps/s over hand numpy's; 'bare "
          "plan' calls the compiled training plan directly, no Estimator/input/hooks)")
    if args.profile:
        for name in names:
            w = WORKLOADS[name]
            xs, ys, kernels, plan = data[name]
            print(f"\n== {w['title']}")
            seq_hand, seq_eng = in_sequence_both(w, xs, ys, kernels, plan)
            t_hand = profile_hand(w, xs, ys, kernels, seq_hand)
            print()
            t_eng = profile_engine(plan, xs, ys, seq_eng, args.top)
            print(f"time in steps, engine / hand: {t_eng:.0f} / {t_hand:.0f} µs = "
                  f"{t_eng / t_hand:.2f}x")


if __name__ == "__main__":
    main()
