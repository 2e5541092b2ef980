"""Records ``str()`` of TF 2.15's session-config protos (their text format) for a few
configurations; tests/engine/test_config_text.py builds the same ones with estimator_npu.

Run: ``/tmp/tf215/bin/python tools/record_tf_config_text.py`` -> tests/engine/golden_config_text.json
(each case: the code that builds ``c`` with ``tf`` and ``RewriterConfig`` in scope, and TF's text).
Map fields get one entry each: TF prints several in a hash order.
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "engine", "golden_config_text.json")

CASES = {
    "empty": "c = tf.ConfigProto()",
    "soft_placement_gpu": (
        "c = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)\n"
        "c.gpu_options.allow_growth = True\n"
        "c.gpu_options.per_process_gpu_memory_fraction = 0.4\n"
        "c.intra_op_parallelism_threads = 2"),
    "threads_devices_jit": (
        "c = tf.ConfigProto(device_count={'GPU': 0}, inter_op_parallelism_threads=1)\n"
        "c.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_1\n"
        "c.graph_options.optimizer_options.opt_level = tf.OptimizerOptions.L0\n"
        "c.device_filters.extend(['/job:ps', '/job:worker/task:0'])\n"
        "c.operation_timeout_in_ms = -1"),
    "npu_custom_optimizer": (
        "c = tf.ConfigProto()\n"
        "o = c.graph_options.rewrite_options.custom_optimizers.add()\n"
        "o.name = 'NpuOptimizer'\n"
        "o.parameter_map['iterations_per_loop'].i = 10\n"
        "p = c.graph_options.rewrite_options.custom_optimizers.add()\n"
        "p.name = 'Other'\n"
        "p.parameter_map['mode'].s = tf.compat.as_bytes('a\"b\\\\c\\nd')\n"
        "q = c.graph_options.rewrite_options.custom_optimizers.add()\n"
        "q.parameter_map['scale'].f = 0.1\n"
        "r = c.graph_options.rewrite_options.custom_optimizers.add()\n"
        "r.parameter_map['ids'].list.i.extend([1, 2])\n"
        "c.graph_options.rewrite_options.custom_optimizers.add().parameter_map['on'].b = False\n"
        "c.graph_options.rewrite_options.remapping = RewriterConfig.OFF\n"
        "c.graph_options.rewrite_options.memory_optimization = RewriterConfig.NO_MEM_OPT\n"
        "c.graph_options.rewrite_options.disable_model_pruning = True\n"
        "c.graph_options.rewrite_options.meta_optimizer_iterations = RewriterConfig.ONE\n"
        "c.graph_options.rewrite_options.optimizers.extend(['pruning', 'constfold'])"),
    "gpu_options_double": ("c = tf.GPUOptions(per_process_gpu_memory_fraction=1.0, "
                           "visible_device_list='0,1', polling_active_delay_usecs=5)"),
    "run_options": "c = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, timeout_in_ms=50)",
    "run_options_unknown_enum": "c = tf.RunOptions(trace_level=7)",
}


def main():
    import tensorflow.compat.v1 as tf
    from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig
    out = {}
    for name, code in CASES.items():
        scope = {"tf": tf, "RewriterConfig": RewriterConfig}
        exec(code, scope)  # noqa: S102 - our own case code
        out[name] = {"code": code, "text": str(scope["c"])}
    with open(OUT, "w") as f:
        json.dump({"tf_version": tf.__version__, "cases": out}, f, indent=1)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
