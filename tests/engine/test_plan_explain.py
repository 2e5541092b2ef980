"""Readable plans: names from op names, a ``# OpType op/name`` comment per line, linecache
registration, ``Session.explain`` (with branch and loop-body plans) and the
``estimator-npu explain`` command; compiler properties are flags on op definitions."""
import linecache
import pathlib
import subprocess
import sys
import traceback
import weakref

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import registry

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_explain_prints_named_lines_and_subplans(graph, capsys):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.ones((3, 2), np.float32), name="weights")
    y = tf.matmul(x, w, name="dense")
    z = tf.while_loop(lambda a: tf.reduce_sum(a) < 10.0, lambda a: a * 2.0, [y], name="grow")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        text = sess.explain(z, {x: np.ones((1, 3))})
    assert text == capsys.readouterr().out.rstrip("\n")
    assert "t_weights = " in text and "# VariableV2 weights" in text
    # the line that last reads the fed value and the weights releases them
    assert "t_dense = k_dot(in_x_0, t_weights); del in_x_0, t_weights  # MatMul dense" in text
    assert "# While grow/While" in text
    assert "# body of While grow/While:" in text and "# Mul grow/mul" in text


def test_tracebacks_show_the_generated_line(graph):
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.py_func(lambda v: 1 // 0, [x], tf.float32, name="divider")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(y, {x: np.ones(2)})
    frames = traceback.extract_tb(info.value.__cause__.__traceback__)
    plan_lines = [f.line for f in frames if f.filename.startswith("<plan ")]
    assert plan_lines and "# PyFunc divider" in plan_lines[0]
    assert any(linecache.getline(f.filename, f.lineno) for f in frames
               if f.filename.startswith("<plan "))


def test_compiler_properties_are_flags_not_type_strings():
    source = (ROOT / "estimator_npu" / "engine" / "plan.py").read_text()
    for type_string in ('"VariableV2"', '"IteratorGetNext"', '"Assign"', '"run_first"'):
        assert type_string not in source
    import estimator_npu.data  # noqa: F401 - its package registers IteratorGetNext
    import estimator_npu.device  # noqa: F401 - its package registers IterationLoop
    assert registry.get("IterationLoop").runs_first and registry.get("IterationLoop").subgraphs
    assert registry.get("IteratorGetNext").input_source
    assert registry.get("VariableV2").reads_variable
    assert registry.get("Assign").initializes_variable
    assert registry.get("While").subgraphs and registry.get("If").subgraphs
    with pytest.raises(TypeError, match="unknown flags"):
        registry.register("NoSuchOpForFlagTest", kernel=None, grad=registry.NOT_DIFFERENTIABLE,
                          runs_last=True)


def test_cli_explain_runs_a_script_and_prints_its_plans(tmp_path):
    script = tmp_path / "tiny.py"
    script.write_text("import estimator_npu as tf\n"
                      "x = tf.constant(2.0, name='two')\n"
                      "y = tf.cond(x > 1.0, lambda: x * 3.0, lambda: x, name='pick')\n"
                      "print(tf.Session().run(y))\n")
    proc = subprocess.run([sys.executable, "-m", "estimator_npu.cli", "explain", str(script)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "6.0"
    assert "# If pick/If" in proc.stderr and "# true branch of If pick/If:" in proc.stderr


def test_op_table_groups_definitions_by_family():
    fam = registry.families()
    assert "If" in fam["estimator_npu.engine.ops.control_ops"]
    assert "While" in fam["estimator_npu.engine.ops.loop_ops"]
    assert "LSTMBlock" in fam["estimator_npu.rnn.lstm_ops"]  # a layer above registers its own
    assert registry.get("MatMul").family == "estimator_npu.engine.ops.math_ops"


def test_needed_ops_into_subgraphs_lists_body_ops(graph):
    from estimator_npu.engine.plan import needed_ops
    x = tf.placeholder(tf.float32, [])
    y = tf.cond(x > 0.0, lambda: tf.while_loop(lambda a: a < 3.0, lambda a: tf.exp(a), [x]),
                lambda: x)
    flat = {op.type for op in needed_ops([y], set())}
    deep = [op.type for op in needed_ops([y], set(), into_subgraphs=True)]
    assert "Exp" not in flat and "Exp" in deep
    assert deep.index("Exp") < deep.index("While") < deep.index("If")


def test_plans_release_intermediates_after_their_last_use(graph):
    # TF frees a tensor once its last consumer ran; a plan that kept every intermediate
    # alive until it returned made a long forward pass hold all its activations at once
    seen = []

    def keep(v):
        out = v + 1.0
        seen.append(weakref.ref(out))
        return out

    def alive_count(v):
        return np.float32(sum(r() is not None for r in seen))

    x = tf.placeholder(tf.float32, [None], name="x")
    h = x
    for i in range(5):
        h = tf.py_func(keep, [h], tf.float32, name=f"step{i}")
    # the count runs after the chain, when only the chain's last output is still needed
    count = tf.py_func(alive_count, [h], tf.float32, name="count")
    total = tf.reduce_sum(h, name="total")
    with tf.Session() as sess:
        n, t = sess.run([count, total], {x: np.zeros(4, np.float32)})
    assert n == 1.0  # step0..step3 were released, step4 is still read by total
    assert t == 20.0
