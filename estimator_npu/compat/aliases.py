"""Which estimator_npu modules each TensorFlow / npu_bridge / hccl module path maps to.

Data only; ``finder.py`` reads it. A path not listed here is resolved generically against
its parent's targets (``tensorflow.nn`` -> ``estimator_npu.nn`` because ``estimator_npu``
has an ``nn`` module), so a module a later change adds to estimator_npu shows up under its
TensorFlow name without an entry here.

``TARGETS[path]`` lists the modules whose names the alias offers, searched in order.
``SAME_AS`` names paths that are the very same module object as another alias.
``PERMISSIVE_PACKAGES`` are TF's internal packages and the adapter's: any module path
directly under one imports, taking its names from its parent's targets; a name that is not
there still raises the "does not implement ... (yet)" error when used. Everything else (``tensorflow.contrib.X``,
``tensorflow.X``) imports only when estimator_npu has the module.
"""

ROOTS = ("tensorflow", "npu_bridge", "hccl")

SAME_AS = {
    "tensorflow.compat.v1": "tensorflow",
    "tensorflow.compat.v2": "tensorflow",
}

# TF's internal packages and the adapter's packages: any module path directly under one
# of them imports (its names come from its parent's targets); a name used that is not
# there still raises the "does not implement ... (yet)" error.
PERMISSIVE_PACKAGES = (
    "tensorflow.python", "tensorflow.python.ops", "tensorflow.python.framework",
    "tensorflow.python.training", "tensorflow.python.util", "tensorflow.python.client",
    "tensorflow.python.platform", "tensorflow.python.summary", "tensorflow.python.layers",
    "tensorflow.python.eager", "tensorflow.python.lib", "tensorflow.python.lib.io",
    "tensorflow.python.data", "tensorflow.python.data.ops", "tensorflow.python.data.util",
    "tensorflow.python.keras", "tensorflow.python.keras.engine",
    "tensorflow.python.keras.utils", "tensorflow.python.estimator",
    "tensorflow.python.saved_model", "tensorflow.python.tools", "tensorflow.python.debug",
    "tensorflow.python.profiler", "tensorflow.python.distribute", "tensorflow.python.compiler",
    "tensorflow.python.data.experimental", "tensorflow.python.data.experimental.ops",
    "npu_bridge", "npu_bridge.estimator", "npu_bridge.estimator.npu", "npu_bridge.hccl",
    "npu_bridge.helper", "hccl", "hccl.manage", "hccl.split")

# TF's internal packages whose attributes are modules: ``from tensorflow.python.ops import
# variable_scope`` must give a module even though ``tf.variable_scope`` is a function.
# (tensorflow.python.keras and its layers package export classes: Dense, Model, ...)
MODULE_PACKAGES = tuple(p for p in PERMISSIVE_PACKAGES[:PERMISSIVE_PACKAGES.index("npu_bridge")]
                        if p not in ("tensorflow.python.keras",
                                     "tensorflow.python.keras.utils"))

_ROOT = "estimator_npu"
_NN = ["estimator_npu.nn", _ROOT]
_TRAIN = ["estimator_npu.train", _ROOT]

TARGETS = {
    "tensorflow.python.keras": ["estimator_npu.keras"],
    "tensorflow.python.keras.layers": ["estimator_npu.keras.layers"],
    "tensorflow.python.keras.utils": ["estimator_npu.keras.utils"],
    "tensorflow.python.keras.utils.np_utils": ["estimator_npu.keras.utils"],
    "tensorflow.keras.utils.np_utils": ["estimator_npu.keras.utils"],
    "tensorflow": [_ROOT],
    "tensorflow.compat": ["estimator_npu.compat"],
    "tensorflow.core": ["estimator_npu.core"],
    "tensorflow.core.framework.summary_pb2": ["estimator_npu.summary", _ROOT],
    "tensorflow.python": [_ROOT, "estimator_npu.compat.tf_internals"],
    "tensorflow.python.framework.dtypes": ["estimator_npu.engine.dtypes", _ROOT],
    "tensorflow.python.framework.tensor_shape": ["estimator_npu.engine.shape", _ROOT],
    "tensorflow.python.framework.errors": ["estimator_npu.errors"],
    "tensorflow.python.framework.errors_impl": ["estimator_npu.errors"],
    "tensorflow.python.ops.nn": _NN,
    "tensorflow.python.ops.nn_ops": _NN,
    "tensorflow.python.ops.nn_impl": _NN,
    "tensorflow.python.ops.gen_nn_ops": _NN,
    "tensorflow.python.ops.metrics": ["estimator_npu.metrics"],
    "tensorflow.python.ops.summary_ops": ["estimator_npu.summary"],
    "tensorflow.python.ops.clip_ops": [_ROOT],
    # VariableV1 (tf.compat.v1.Variable; tf_cnn_benchmarks' synthetic inputs)
    "tensorflow.python.ops.variables": ["estimator_npu.engine.ops.state_ops", _ROOT],
    "tensorflow.python.ops.variable_v1": ["estimator_npu.engine.ops.state_ops"],
    "tensorflow.python.training.evaluation": ["estimator_npu.hooks.evaluation_loop"],
    "tensorflow.python.training": _TRAIN,
    "tensorflow.python.training.training": _TRAIN,
    "tensorflow.python.training.training_util": _TRAIN,
    "tensorflow.python.training.session_run_hook": _TRAIN,
    "tensorflow.python.training.basic_session_run_hooks": _TRAIN,
    "tensorflow.python.training.monitored_session": _TRAIN,
    "tensorflow.python.training.checkpoint_management": _TRAIN,
    "tensorflow.python.training.optimizer": _TRAIN,
    "tensorflow.python.pywrap_tensorflow": _TRAIN,
    "tensorflow.python.tools.inspect_checkpoint": ["estimator_npu.train.checkpoint_inspect"],
    "tensorflow.python.util.nest": ["estimator_npu.utils.nest"],
    "tensorflow.python.util.compat": ["estimator_npu.compat"],
    "tensorflow.python.util.tf_contextlib": ["estimator_npu.compat.tf_util"],
    "tensorflow.python.util.tf_decorator": ["estimator_npu.compat.tf_util"],
    "tensorflow.python.util.tf_inspect": ["estimator_npu.compat.tf_util"],
    "tensorflow.python.util.deprecation": ["estimator_npu.compat.tf_util"],
    "tensorflow.python.util.all_util": ["estimator_npu.compat.tf_util"],
    "tensorflow.python.util.tf_export": ["estimator_npu.compat.tf_util"],
    "tensorflow.python.platform.gfile": ["estimator_npu.gfile"],
    "tensorflow.python.lib.io.file_io": ["estimator_npu.io.gfile", "estimator_npu.gfile"],
    "tensorflow.python.platform.tf_logging": ["estimator_npu.logging"],
    "tensorflow.python.platform.flags": ["estimator_npu.flags"],
    "tensorflow.python.platform.app": ["estimator_npu.app"],
    "tensorflow.python.platform.test": ["estimator_npu.test"],
    "tensorflow.python.client.timeline": ["estimator_npu.compat.timeline"],
    "tensorflow.python.client.device_lib": ["estimator_npu.compat.device_lib"],
    "tensorflow.python.summary": ["estimator_npu.summary"],
    "tensorflow.python.summary.summary": ["estimator_npu.summary"],
    "tensorflow.python.estimator": ["estimator_npu.estimator"],
    "tensorflow.python.data": ["estimator_npu.data"],
    "tensorflow.python.layers": ["estimator_npu.layers"],
    "tensorflow.python.layers.utils": ["estimator_npu.math_ops_extra.tensor_utils"],
    "tensorflow.python.framework.smart_cond": ["estimator_npu.math_ops_extra.tensor_utils"],
    "tensorflow.python.data.experimental": ["estimator_npu.data.experimental"],
    "tensorflow.python.data.experimental.ops": ["estimator_npu.data.experimental"],
    "tensorflow.python.data.experimental.ops.threadpool": ["estimator_npu.data.threadpool"],
    "tensorflow.examples": [],
    "tensorflow.examples.tutorials": [],
    "tensorflow.examples.tutorials.mnist": [],
    "tensorflow.examples.tutorials.mnist.input_data": ["estimator_npu.datasets.mnist"],
    "tensorflow.examples.tutorials.mnist.mnist": ["estimator_npu.compat.tutorial_mnist"],
    "tensorflow.contrib.learn.python": [],
    "tensorflow.contrib.learn.python.learn": ["estimator_npu.contrib.learn"],
    "tensorflow.contrib.learn.python.learn.datasets": ["estimator_npu.contrib.learn.datasets"],
    "tensorflow.contrib.learn.python.learn.datasets.mnist": ["estimator_npu.datasets.mnist"],
    "tensorflow.contrib.learn.python.learn.datasets.base": [
        "estimator_npu.contrib.learn.datasets_base"],
    "tensorflow.contrib.learn.python.learn.run_config": ["estimator_npu.contrib.learn.run_config"],
    "tensorflow.contrib.learn.python.learn.estimators": ["estimator_npu.contrib.learn"],
    "tensorflow.contrib.learn.python.learn.estimators.run_config": [
        "estimator_npu.contrib.learn.run_config"],
    "tensorflow.contrib.learn.python.learn.learn_runner": [
        "estimator_npu.contrib.learn.learn_runner"],
    "tensorflow.contrib.learn.python.learn.experiment": ["estimator_npu.contrib.learn"],
    "tensorflow.contrib.slim.python": [],
    "tensorflow.contrib.slim.python.slim": [],
    "tensorflow.contrib.slim.python.slim.data": [],
    "tensorflow.contrib.slim.python.slim.data.prefetch_queue": [
        "estimator_npu.contrib.slim_prefetch_queue"],
    "tensorflow.contrib.framework.python": ["estimator_npu.contrib.framework"],
    "tensorflow.contrib.framework.python.ops": ["estimator_npu.contrib.framework"],
    "tensorflow.contrib.framework.python.ops.arg_scope": ["estimator_npu.contrib.framework"],
    "tensorflow.contrib.framework.python.ops.variables": ["estimator_npu.contrib.framework"],
    "tensorflow.contrib.layers.python": ["estimator_npu.contrib.layers"],
    "tensorflow.contrib.layers.python.layers": ["estimator_npu.contrib.layers"],
    "tensorflow.contrib.layers.python.layers.layers": ["estimator_npu.contrib.layers"],
    "tensorflow.contrib.layers.python.layers.initializers": ["estimator_npu.contrib.layers"],
    "tensorflow.contrib.layers.python.layers.regularizers": ["estimator_npu.contrib.layers"],
    "tensorflow.contrib.layers.python.layers.utils": ["estimator_npu.contrib.layers_utils"],
    "tensorflow.contrib.image.python": ["estimator_npu.contrib.image"],
    "tensorflow.contrib.image.python.ops": ["estimator_npu.contrib.image"],
    "tensorflow.contrib.image.python.ops.distort_image_ops": ["estimator_npu.contrib.image"],
    "tensorflow.python.ops.clustering_ops": ["estimator_npu.clustering.kmeans"],
    "tensorflow.python.ops.candidate_sampling_ops": ["estimator_npu.sampling.samplers"],
    "tensorflow.contrib.factorization.python": ["estimator_npu.contrib.factorization"],
    "tensorflow.contrib.factorization.python.ops": ["estimator_npu.contrib.factorization"],
    "tensorflow.contrib.factorization.python.ops.clustering_ops": [
        "estimator_npu.clustering.kmeans"],
    "npu_bridge": ["estimator_npu.npu"],
    "npu_bridge.npu_init": ["estimator_npu.npu.npu_init"],
    "npu_bridge.estimator": ["estimator_npu.npu"],
    "npu_bridge.estimator.npu": ["estimator_npu.npu"],
    "npu_bridge.hccl": ["estimator_npu.npu"],
    "hccl": ["estimator_npu.npu.hccl"],
    "hccl.manage": ["estimator_npu.npu.hccl"],
    "hccl.manage.api": ["estimator_npu.npu.hccl"],
    "hccl.split": ["estimator_npu.npu.hccl"],
    "hccl.split.api": ["estimator_npu.npu.hccl"],
    "tensorflow.python.ops.check_ops": ["estimator_npu.checks.asserts", _ROOT],
    "tensorflow.python.ops.logging_ops": ["estimator_npu.checks.logging_ops", _ROOT],
    "tensorflow.python.ops.data_flow_ops": ["estimator_npu.partition.stitch_ops", _ROOT],
    "tensorflow.python.ops.embedding_ops": ["estimator_npu.partition.embedding", _NN],
    "tensorflow.python.ops.linalg_ops": ["estimator_npu.linalg", _ROOT],
    "tensorflow.python.ops.linalg": ["estimator_npu.linalg"],
    "tensorflow.python.ops.linalg.linalg": ["estimator_npu.linalg"],
    "tensorflow.python.ops.rnn_cell": ["estimator_npu.rnn.cells"],
    "tensorflow.python.ops.rnn_cell_impl": ["estimator_npu.rnn.cells"],
    "tensorflow.python.ops.rnn": ["estimator_npu.rnn.dynamic"],
}

# Attributes an alias module has that its targets do not: TensorFlow's own version strings
# (estimator_npu.__version__ stays the package's version).
EXTRA_ATTRIBUTES = {
    "tensorflow": ("estimator_npu.compat.versions", ["__version__", "VERSION", "GIT_VERSION",
                                                     "COMPILER_VERSION", "CXX11_ABI_FLAG",
                                                     "MONOLITHIC_BUILD", "GRAPH_DEF_VERSION",
                                                     "GRAPH_DEF_VERSION_MIN_CONSUMER",
                                                     "GRAPH_DEF_VERSION_MIN_PRODUCER"]),
}
