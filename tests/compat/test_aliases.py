"""``estimator_npu.compat.install()``: the tensorflow / npu_bridge / hccl import aliases."""
import importlib
import subprocess
import sys

import numpy as np
import pytest

import estimator_npu
from estimator_npu import compat
from estimator_npu.compat.finder import AliasModule


def test_importing_estimator_npu_leaves_tensorflow_alone():
    code = ("import sys, estimator_npu, estimator_npu.compat, estimator_npu.run; "
            "print(any(m.split('.')[0] in ('tensorflow', 'npu_bridge', 'hccl') "
            "for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_install_and_uninstall(aliases):
    import tensorflow as tf
    import tensorflow.compat.v1 as tf1
    assert tf1 is tf and isinstance(tf, AliasModule)
    assert tf.compat.v1 is tf and tf.compat.v2 is tf
    assert tf.placeholder is estimator_npu.placeholder
    assert tf.nn.relu is estimator_npu.nn.relu
    assert tf.__version__ == tf.VERSION == "1.15.0"
    assert estimator_npu.__version__ == "0.1.0"
    compat.uninstall()
    assert "tensorflow" not in sys.modules and not compat.is_installed()
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tensorflow")
    compat.install()
    assert importlib.import_module("tensorflow.compat.v1").Session is estimator_npu.Session


def test_module_paths_scripts_import(aliases):
    from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig
    from tensorflow.python.framework import dtypes, ops, tensor_shape
    from tensorflow.python.ops import array_ops, control_flow_ops, math_ops, variable_scope
    from tensorflow.python.util import nest
    from tensorflow.examples.tutorials.mnist import input_data
    from npu_bridge.npu_init import npu_config_proto, npu_tf_optimizer, NPUEstimator
    from npu_bridge.estimator.npu import npu_plugin, util
    from npu_bridge.estimator import npu_ops
    from npu_bridge.hccl import hccl_ops
    from hccl.manage.api import get_rank_size, get_rank_id, get_local_rank_id
    from hccl.split.api import set_split_strategy_by_size
    assert RewriterConfig.OFF == estimator_npu.core.protobuf.rewriter_config_pb2.RewriterConfig.OFF
    assert ops.Graph is estimator_npu.Graph and dtypes.float32 is estimator_npu.float32
    assert tensor_shape.TensorShape is estimator_npu.TensorShape
    assert array_ops.reshape is estimator_npu.reshape and math_ops.matmul is estimator_npu.matmul
    assert variable_scope.variable_scope is estimator_npu.variable_scope
    assert isinstance(control_flow_ops, AliasModule)
    assert nest.flatten([1, (2, 3)]) == [1, 2, 3]
    assert input_data.read_data_sets is estimator_npu.datasets.mnist.read_data_sets
    assert NPUEstimator is estimator_npu.npu.NPUEstimator
    assert (get_rank_size(), get_rank_id(), get_local_rank_id()) == (1, 0, 0)
    assert callable(npu_config_proto) and callable(npu_tf_optimizer)
    assert callable(npu_plugin.npu_resource_init) and callable(util.set_iteration_per_loop)
    assert callable(npu_ops.dropout) and callable(hccl_ops.allreduce)
    assert callable(set_split_strategy_by_size)


def test_star_import_of_npu_init_gives_the_adapter_names(aliases):
    namespace = {}
    exec("from npu_bridge.npu_init import *", namespace)
    for name in ("RewriterConfig", "npu_config_proto", "npu_session_config_init",
                 "npu_run_config_init", "npu_hooks_append", "npu_tf_optimizer", "NPURunConfig",
                 "NPUEstimator", "NPUEstimatorSpec", "NPUOptimizer", "NPUDistributedOptimizer",
                 "NPULossScaleOptimizer", "FixedLossScaleManager",
                 "ExponentialUpdateLossScaleManager", "NPUBroadcastGlobalVariablesHook",
                 "npu_ops", "util", "hccl_ops", "get_rank_size", "get_rank_id", "tf", "os",
                 "keras_to_npu", "npu_rnn", "npu_unary_ops", "session_run_hook", "backend"):
        assert name in namespace, name
    assert callable(namespace["keras_to_npu"].model_to_npu_estimator)
    assert callable(namespace["npu_rnn"].npu_dynamic_rnn)
    assert namespace["session_run_hook"].SessionRunHook is sys.modules["tensorflow"].train.\
        SessionRunHook
    assert callable(namespace["backend"].clear_session)
    assert namespace["tf"] is sys.modules["tensorflow"]
    config = namespace["npu_config_proto"]()
    assert config.graph_options.rewrite_options.remapping == namespace["RewriterConfig"].OFF
    session_config = namespace["npu_session_config_init"]()
    assert session_config.graph_options.rewrite_options.custom_optimizers[0].name == \
        "NpuOptimizer"
    run_config = namespace["npu_run_config_init"]()
    assert run_config.session_config.graph_options.rewrite_options.custom_optimizers[0].name \
        == "NpuOptimizer"
    hooks = namespace["npu_hooks_append"]([])
    assert type(hooks[0]).__name__ == "NPUBroadcastGlobalVariablesHook"


def test_missing_names_say_what_is_not_implemented(aliases):
    import tensorflow as tf
    with pytest.raises(AttributeError, match=r"estimator_npu does not implement "
                                             r"tf\.nn\.no_such_op \(yet\); docs/porting\.md"):
        tf.nn.no_such_op
    with pytest.raises(AttributeError, match=r"does not implement tf\.contrib\.gan \(yet\)"):
        tf.contrib.gan
    with pytest.raises(ImportError, match=r"does not implement tf\.contrib\.gan \(yet\)"):
        importlib.import_module("tensorflow.contrib.gan")
    with pytest.raises(ImportError, match=r"does not implement hccl\.manage\.api\.nope"):
        exec("from hccl.manage.api import nope", {})
    with pytest.raises(ImportError, match="does not implement"):
        exec("from tensorflow.python.ops.math_ops import no_such_fn", {})
    assert not hasattr(tf, "no_such_name")


def test_missing_names_without_aliases():
    with pytest.raises(AttributeError, match=r"does not implement tf\.no_such_name \(yet\)"):
        estimator_npu.no_such_name
    with pytest.raises(AttributeError, match=r"tf\.contrib\.nope"):
        estimator_npu.contrib.nope


def test_tf1_mode_switches():
    tf = estimator_npu
    assert tf.compat.v1 is tf
    tf.compat.v1.disable_v2_behavior()
    tf.disable_eager_execution()
    assert tf.executing_eagerly() is False
    with pytest.raises(NotImplementedError, match="graph mode only"):
        tf.enable_eager_execution()
    assert tf.newaxis is None
    assert tf.compat.as_bytes("\u00e9") == b"\xc3\xa9"
    assert tf.compat.as_text(b"\xc3\xa9") == "\u00e9"
    assert tf.compat.as_str_any(3) == "3"
    with pytest.raises(TypeError, match="Expected binary or unicode string, got 3"):
        tf.compat.as_bytes(3)


def test_tf_slim_imports_and_trains_on_top_of_the_aliases(aliases):
    """The tf_slim package (which imports TF internals module by module) imports on the
    aliases, and a small arg_scope'd slim net trains with slim.learning.create_train_op."""
    try:
        import tf_slim as slim
    except ModuleNotFoundError as e:
        if e.name == "tf_slim":
            pytest.skip("tf_slim is not installed")
        raise
    try:
        import tensorflow.compat.v1 as tf
        rng = np.random.RandomState(0)
        xs = rng.rand(16, 6, 6, 1).astype(np.float32)
        ys = (xs.mean((1, 2, 3)) * 6).astype(np.int64) % 3
        with tf.Graph().as_default():
            x = tf.constant(xs)
            with slim.arg_scope([slim.conv2d, slim.fully_connected],
                                weights_regularizer=slim.l2_regularizer(1e-4)):
                net = slim.conv2d(x, 4, [3, 3], scope="conv1")
                net = slim.flatten(slim.max_pool2d(net, [2, 2], scope="pool1"))
                logits = slim.fully_connected(net, 3, activation_fn=None, scope="logits")
            # slim's layers add their variables through variable_scope(custom_getter=...)
            names = ["conv1/weights", "conv1/biases", "logits/weights", "logits/biases"]
            assert [v.op.name for v in slim.get_model_variables()] == names
            assert [v.op.name for v in tf.trainable_variables()] == names
            assert [v.op.name for v in slim.get_variables_to_restore(exclude=["logits"])] \
                == names[:2]
            tf.losses.sparse_softmax_cross_entropy(ys, logits)
            total = tf.losses.get_total_loss()
            train_op = slim.learning.create_train_op(total, tf.train.AdamOptimizer(0.01))
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                first = sess.run(total)
                for _ in range(30):
                    sess.run(train_op)
                last = sess.run(total)
        assert last < 0.7 * first, (first, last)
    finally:
        for name in [m for m in sys.modules if m.startswith("tf_slim")]:
            del sys.modules[name]


def test_npu_unary_ops_gelu_is_the_ascend_tanh_approximation(aliases):
    """``npu_unary_ops.gelu`` (the ModelZoo BERTs' activation) computes the Ascend Gelu
    kernel's formula x / (1 + exp(-sqrt(8/pi) (x + 0.044715 x^3))), and its gradient."""
    import numpy as np
    import tensorflow as tf
    from npu_bridge.estimator.npu_unary_ops import npu_unary_ops
    xv = np.linspace(-6, 6, 41)
    x = tf.placeholder(tf.float64, [None])
    y = npu_unary_ops.gelu(x)
    (dy,) = tf.gradients(tf.reduce_sum(y), [x])
    with tf.Session() as sess:
        yv, dyv = sess.run([y, dy], {x: xv})
    want = xv / (1 + np.exp(-np.sqrt(8 / np.pi) * (xv + 0.044715 * xv ** 3)))
    np.testing.assert_allclose(yv, want, rtol=1e-12, atol=1e-15)
    h = 1e-6
    up = (xv + h) / (1 + np.exp(-np.sqrt(8 / np.pi) * ((xv + h) + 0.044715 * (xv + h) ** 3)))
    dn = (xv - h) / (1 + np.exp(-np.sqrt(8 / np.pi) * ((xv - h) + 0.044715 * (xv - h) ** 3)))
    np.testing.assert_allclose(dyv, (up - dn) / (2 * h), rtol=1e-6, atol=1e-8)
    assert y.shape.as_list() == [None]


def test_set_keras_session_npu_config_sets_the_keras_session(aliases):
    """BERT-NER calls it bare after ``from npu_bridge.npu_init import *`` and closes the
    session with close_session at the end."""
    import tensorflow as tf
    namespace = {}
    exec("from npu_bridge.npu_init import *", namespace)
    with tf.Graph().as_default():
        sess = namespace["set_keras_session_npu_config"]()
        assert tf.keras.backend.get_session() is sess
        opts = sess.config.graph_options.rewrite_options
        assert opts.custom_optimizers[0].name == "NpuOptimizer"
        namespace["close_session"](sess)


def test_variable_v1_paths(aliases):
    # tf_cnn_benchmarks builds its synthetic inputs with variable_v1.VariableV1
    import estimator_npu as tf
    from tensorflow.python.ops import variable_v1, variables
    assert variable_v1.VariableV1 is variables.VariableV1 is tf.Variable
    assert variables.global_variables_initializer is tf.global_variables_initializer
    with tf.Graph().as_default():
        v = variable_v1.VariableV1(tf.ones([2]), trainable=False, name="inputs")
        assert v.op.name == "inputs" and not tf.trainable_variables()
