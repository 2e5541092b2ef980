"""The session config an npu_bridge script builds to pick a precision mode: a custom
``NpuOptimizer`` rewriter with ``precision_mode`` in its parameter map (None: no rewriter,
plain float32)."""
import estimator_npu as tf


def session_config(mode="allow_mix_precision"):
    config = tf.ConfigProto()
    if mode is not None:
        entry = config.graph_options.rewrite_options.custom_optimizers.add()
        entry.name = "NpuOptimizer"
        entry.parameter_map["precision_mode"].s = mode.encode()
    return config
