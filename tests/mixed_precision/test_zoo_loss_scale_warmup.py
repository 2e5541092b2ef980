"""The ModelZoo ShuffleNetV2 setting: NPUEstimator with NPURunConfig(iterations_per_loop=2),
``allow_mix_precision`` and NPULossScaleOptimizer(ExponentialUpdateLossScaleManager(
init_loss_scale=2**32, decr_every_n_nan_or_inf=2, decr_ratio=0.8)).

Its log shows ``step = 0`` for its first ~100 steps. That is the adapter's behaviour, not a
lost increment: with fp16 cube ops the scaled gradients overflow until the scale is small
enough; each overflowing step is skipped, global_step included (the adapter applies the
update, global step and all, only under ``cond(is_overall_finite)``), and the scale is
multiplied by 0.8 every second overflow. Once the scale fits, every step counts. In fp32
(``force_fp32``, or TF on a CPU) 2**32 does not overflow and no step is skipped."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import mixed_precision as mp
from estimator_npu.npu import NPUEstimator, NPURunConfig
from estimator_npu.npu.npu_init import npu_tf_optimizer
from estimator_npu.train.loss_scale_optimizer import NPULossScaleOptimizer


class Record(tf.train.SessionRunHook):
    def __init__(self):
        self.seen = []

    def before_run(self, run_context):
        graph = tf.get_default_graph()
        scale = [v for v in tf.global_variables() if v.op.name.endswith("loss_scale")][0]
        return tf.train.SessionRunArgs([graph.get_tensor_by_name("global_step:0"), scale])

    def after_run(self, run_context, run_values):
        self.seen.append(tuple(float(v) for v in run_values.results))


def train(tmp_path, precision_mode, max_steps):
    rng = np.random.RandomState(0)
    xs = rng.randn(64, 12).astype(np.float32)
    ys = (xs[:, 0] > 0).astype(np.int32)
    record = Record()

    def input_fn():
        return tf.data.Dataset.from_tensor_slices((xs, ys)).repeat().batch(16)

    def model_fn(features, labels, mode):
        h = tf.layers.dense(features, 8, activation=tf.nn.relu)
        loss = tf.losses.sparse_softmax_cross_entropy(labels, tf.layers.dense(h, 2))
        manager = mp.ExponentialUpdateLossScaleManager(
            init_loss_scale=2 ** 32, incr_every_n_steps=1000, decr_every_n_nan_or_inf=2,
            decr_ratio=0.8)
        opt = npu_tf_optimizer(NPULossScaleOptimizer(
            tf.train.MomentumOptimizer(0.05, 0.9), manager))
        train_op = opt.apply_gradients(opt.compute_gradients(loss),
                                       tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                          training_hooks=[record])

    config = NPURunConfig(model_dir=str(tmp_path / precision_mode), iterations_per_loop=2,
                          precision_mode=precision_mode, save_checkpoints_steps=1000,
                          log_step_count_steps=None)
    NPUEstimator(model_fn, config=config).train(input_fn, max_steps=max_steps)
    return record.seen


def test_overflowing_steps_are_skipped_until_the_scale_fits_then_every_step_counts(tmp_path):
    seen = train(tmp_path, "allow_mix_precision", max_steps=6)
    # seen: (global_step, loss scale) read after each loop of 2 iterations.
    steps = [int(s) for s, _ in seen]
    first = next(i for i, s in enumerate(steps) if s > 0)
    assert first > 10, "2**32 * gradients overflow fp16 for many loops"
    assert steps[:first] == [0] * first
    # Each loop of 2 overflowing iterations lowers the scale by 0.8 exactly once (the
    # scale is read as the loop starts, the global step as it ends).
    assert seen[0][1] == 2.0 ** 32
    for i in range(first):
        assert seen[i + 1][1] == pytest.approx(seen[i][1] * 0.8, rel=1e-6)
    # Near the threshold a batch with larger gradients may still overflow once; the scale
    # only ever moves by factors of 0.8, and training reaches max_steps.
    assert steps[-1] == 6 and steps == sorted(steps)
    for _, scale in seen:
        k = np.log(scale / 2.0 ** 32) / np.log(0.8)
        assert abs(k - round(k)) < 1e-3, scale


def test_fp32_does_not_overflow_at_2_to_the_32(tmp_path):
    seen = train(tmp_path, "force_fp32", max_steps=6)
    assert [int(s) for s, _ in seen] == [2, 4, 6]
    assert all(scale == 2.0 ** 32 for _, scale in seen)
