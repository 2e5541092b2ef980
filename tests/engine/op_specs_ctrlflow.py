"""Gradient-check cases for control flow: cond/case (``If``), while_loop/map_fn/scan/fold
(``While``) and TensorArray ops, with known and unknown static shapes, nested constructs
and variables captured only inside a branch or body (``variables=True`` makes the inputs
variables that only the subgraph reads).

Each case is ``(op_type, case_id, build, make_inputs, options)`` (see ``gradcheck``);
control-flow gradients are first order (``WhileGrad``/``IfGrad`` have no gradient).
"""
import numpy as np

import estimator_npu as tf
from op_spec_tools import case_list, normal

CASES, case = case_list(order=1)


def _pos(v):
    return tf.reduce_sum(v) > 0.0


# ------------------------------------------------------------------ cond / case
def _cond_both(x, y):
    return tf.cond(_pos(x), lambda: tf.sin(x) * y, lambda: x * x + y)


def _cond_true(x, y):
    return tf.cond(tf.constant(True), lambda: tf.sin(x) * y, lambda: x * x + y)


def _cond_false(x, y):
    return tf.cond(tf.constant(False), lambda: tf.sin(x) * y, lambda: tf.exp(x) * y)


def _cond_structured(x, y):
    out = tf.cond(tf.constant(True), lambda: {"a": x * y, "b": (x, tf.tanh(y))},
                  lambda: {"a": x + y, "b": (y, x)})
    return out["a"] + out["b"][0] * out["b"][1]


def _cond_nested(x, y):
    def outer():
        return tf.cond(tf.constant(False), lambda: x * 3.0, lambda: tf.tanh(x) * y)
    return tf.cond(tf.constant(True), outer, lambda: y)


def _case(x, y):
    return tf.case([(tf.constant(False), lambda: x * 2.0), (tf.constant(True), lambda: x * y)],
                   default=lambda: y)


for dyn in (False, True):
    tag = "_dynamic" if dyn else ""
    case("If", "true_branch" + tag, _cond_true, normal((3,), (3,)), dynamic=dyn)
    case("If", "false_branch" + tag, _cond_false, normal((2, 3), (2, 3)), dynamic=dyn)
case("If", "data_dependent_pred", _cond_both, normal((4,), (4,)))
case("If", "structured_outputs", _cond_structured, normal((3,), (3,)))
case("If", "nested", _cond_nested, normal((2, 2), (2, 2)), dynamic="rank")
case("If", "case", _case, normal((3,), (3,)))
case("If", "captured_variables", _cond_true, normal((3,), (3,)), variables=True)


# ------------------------------------------------------------------ while_loop
def _while_power(x, y):
    def body(i, a):
        return i + 1, a * y + tf.sin(x)
    _, a = tf.while_loop(lambda i, a: i < 3, body, [tf.constant(0), x])
    return a


def _while_max_iter(x, y):
    _, a = tf.while_loop(lambda i, a: tf.constant(True), lambda i, a: (i + 1, tf.tanh(a) * y),
                         [0, x], maximum_iterations=4)
    return a


def _while_nested(x, y):
    def inner(a):
        return tf.while_loop(lambda j, b: j < 2, lambda j, b: (j + 1, b * y + 0.5),
                             [0, a])[1]

    def body(i, a):
        return i + 1, inner(tf.sin(a))
    return tf.while_loop(lambda i, a: i < 2, body, [0, x])[1]


def _while_cond_inside(x, y):
    def body(i, a):
        b = tf.cond(i < 1, lambda: a * y, lambda: tf.sin(a) + y)
        return i + 1, b
    return tf.while_loop(lambda i, a: i < 3, body, [0, x])[1]


def _while_data_dependent(x, y):
    # runs until the value grows past a bound: the trip count depends on x
    def body(i, a):
        return i + 1, a * 1.5 + tf.abs(y) + 0.1
    return tf.while_loop(lambda i, a: tf.reduce_sum(a) < 20.0, body, [0, x],
                         maximum_iterations=50)[1]


def _while_shape_invariant(x, y):
    def body(i, a):
        return i + 1, tf.concat([a, a[-1:] * y[:1]], 0)
    _, a = tf.while_loop(lambda i, a: i < 2, body, [0, x],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    return tf.reduce_sum(a * a) + tf.reduce_sum(y)


for dyn in (False, True):
    tag = "_dynamic" if dyn else ""
    case("While", "recurrence" + tag, _while_power, normal((3,), (3,)), dynamic=dyn)
case("While", "maximum_iterations", _while_max_iter, normal((2, 3), (2, 3)))
case("While", "nested_loops", _while_nested, normal((3,), (3,)))
case("While", "cond_in_body", _while_cond_inside, normal((3,), (3,)), dynamic=True)
case("While", "data_dependent_trip_count",
     _while_data_dependent, lambda rng: [np.abs(rng.standard_normal(3)),
                                         rng.standard_normal(3)])
case("While", "shape_invariants", _while_shape_invariant, normal((3,), (3,)))
case("While", "captured_variables", _while_power, normal((3,), (3,)), variables=True)
case("While", "map_fn", lambda x, y: tf.map_fn(lambda r: tf.sin(r) * r, x) * y,
     normal((4, 3), (4, 3)), dynamic=True)
case("While", "map_fn_nested", lambda x, y: tf.map_fn(
    lambda p: (p[0] * p[1], p[0] + p[1]), (x, y), dtype=(tf.float64, tf.float64))[0] * x,
     normal((3, 2), (3, 2)))
case("While", "scan", lambda x, y: tf.scan(lambda a, r: a * r + y[0], x),
     normal((4, 3), (4, 3)), dynamic=True)
case("While", "scan_reverse", lambda x, y: tf.scan(lambda a, r: tf.tanh(a + r), x,
                                                   initializer=y[0], reverse=True),
     normal((3, 2), (3, 2)))
case("While", "foldl", lambda x, y: tf.foldl(lambda a, r: a * r, x, initializer=y[0]),
     normal((3, 2), (3, 2)))
case("While", "foldr", lambda x, y: tf.foldr(lambda a, r: tf.sin(a) + r * y[1], x),
     normal((3, 2), (3, 2)))


# ------------------------------------------------------------------ TensorArray
def _ta_loop(x, y):
    ta = tf.TensorArray(tf.float64, size=3, clear_after_read=False)

    def body(i, ta):
        return i + 1, ta.write(i, x * tf.cast(i + 1, tf.float64) + y)
    _, ta = tf.while_loop(lambda i, ta: i < 3, body, [0, ta])
    return ta.stack() * ta.read(1)


def _ta_read(x, y):
    ta = tf.TensorArray(tf.float64, size=2, clear_after_read=False).unstack(tf.stack([x, y]))
    return ta.read(0) * ta.read(1) + ta.read(0)


def _ta_gather_scatter(x, y):
    ta = tf.TensorArray(tf.float64, size=3, clear_after_read=False).scatter([2, 0],
                                                                           tf.stack([x, y]))
    ta = ta.write(1, x * y)
    return ta.gather([0, 2]) * 2.0 + ta.concat()[:1]


def _ta_concat_split(x, y):
    ta = tf.TensorArray(tf.float64, size=2).split(tf.concat([x, y], 0), [3, 3])
    return ta.concat() * tf.concat([y, x], 0)


def _ta_dynamic(x, y):
    ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True)

    def body(i, ta):
        return i + 1, ta.write(i, tf.sin(x) * y)
    _, ta = tf.while_loop(lambda i, ta: i < 2, body, [0, ta])
    return ta.stack()


def _ta_read_in_loop(x, y):
    # a captured TensorArray read in every iteration, entry 1 seven times: the loop's
    # gradient accumulates into the same entry across iterations
    ta = tf.TensorArray(tf.float64, size=2, clear_after_read=False).unstack(tf.stack([x, y]))

    def body(i, a):
        return i + 1, tf.sin(a) * ta.read(tf.minimum(i, 1)) + ta.read(1)
    return tf.while_loop(lambda i, a: i < 4, body, [0, x])[1]


case("TensorArrayWriteV3", "in_loop", _ta_loop, normal((3,), (3,)))
for dyn in (False, True):
    case("TensorArrayReadV3", "captured_in_loop" + ("_dynamic" if dyn else ""),
         _ta_read_in_loop, normal((3,), (3,)), dynamic=dyn)
case("TensorArrayWriteV3", "dynamic_size", _ta_dynamic, normal((2,), (2,)), dynamic=True)
case("TensorArrayReadV3", "unstacked", _ta_read, normal((2, 2), (2, 2)))
case("TensorArrayUnstackV3", "read", _ta_read, normal((3,), (3,)), dynamic=True)
case("TensorArrayStackV3", "in_loop", _ta_loop, normal((2,), (2,)), dynamic=True)
case("TensorArrayGatherV3", "scatter", _ta_gather_scatter, normal((3,), (3,)))
case("TensorArrayScatterV3", "gather", _ta_gather_scatter, normal((2, 2), (2, 2)))
case("TensorArrayConcatV3", "split", _ta_concat_split, normal((3,), (3,)))
case("TensorArraySplitV3", "concat", _ta_concat_split, normal((3, 2), (3, 2)))


# ------------------------------------------------------------------ sequences and RNNs
case("ReverseSequence", "batch_major",
     lambda x, y: tf.reverse_sequence(x, [3, 1], seq_axis=1, batch_axis=0) * y,
     normal((2, 3, 2), (2, 3, 2)), dynamic=True)
case("ReverseSequence", "time_major",
     lambda x, y: tf.reverse_sequence(x * y, [2, 3, 0], seq_axis=0, batch_axis=1),
     normal((3, 3), (3, 3)))


def _lstm_case(x, c):
    cell = tf.nn.rnn_cell.LSTMCell(3, use_peepholes=True, cell_clip=0.8, num_proj=2)
    out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[3, 1],
                                   initial_state=tf.nn.rnn_cell.LSTMStateTuple(c, c[:, :2]),
                                   dtype=tf.float64)
    return tf.reduce_sum(out, 1) + tf.reduce_sum(state.c * state.h[:, :1], 1, keepdims=True)


def _gru_case(x, h):
    x.set_shape([None, None, 3])  # unknown time and batch; TF needs the depth
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(3),
                                        tf.nn.rnn_cell.BasicLSTMCell(3)])
    out, state = tf.nn.dynamic_rnn(cell, x, initial_state=(h, cell.zero_state(2, tf.float64)[1]),
                                   dtype=tf.float64, time_major=True)
    return out * 2.0 + state[0][None, :, :]


def _bidi_case(x, y):
    (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.BasicRNNCell(2), tf.nn.rnn_cell.BasicLSTMCell(2), x * y,
        sequence_length=[3, 2], dtype=tf.float64)
    return fw + bw


_RNN_RANK = {"rank": "TF1's RNN cells size their kernels from the input depth, so "
                     "dynamic_rnn needs inputs of known rank and depth (as in TF)"}
case("While", "dynamic_rnn_lstm_peephole_proj", _lstm_case,
     lambda rng: [rng.standard_normal((2, 3, 2)), 0.5 * rng.standard_normal((2, 3))],
     unknown_shape_skip=_RNN_RANK)
case("While", "dynamic_rnn_multi_gru_time_major", _gru_case,
     lambda rng: [rng.standard_normal((4, 2, 3)), 0.5 * rng.standard_normal((2, 3))],
     dynamic=True, unknown_shape_skip=_RNN_RANK)
case("While", "bidirectional_rnn", _bidi_case, normal((2, 3, 2), (2, 3, 2)),
     unknown_shape_skip=_RNN_RANK)


def _lstm_block(x, h):
    from estimator_npu.rnn.lstm_ops import lstm_block
    k = tf.constant(np.linspace(-0.5, 0.5, 5 * 12).reshape(5, 12))
    b = tf.constant(np.linspace(-0.2, 0.3, 12))
    c, hh = lstm_block(x, h * 0.5, h, k, b, 1.0)
    return c * 1.5 + hh


def _lstm_block_weights(k, b):
    from estimator_npu.rnn.lstm_ops import lstm_block
    x = tf.constant(np.linspace(-1.0, 1.0, 4).reshape(2, 2))
    h = tf.constant(np.linspace(-0.5, 0.5, 6).reshape(2, 3))
    c, hh = lstm_block(x, h, h * 2.0, k, b, 0.5)
    return tf.concat([c, hh], 1)


case("LSTMBlock", "inputs_and_state", _lstm_block, normal((2, 2), (2, 3)))
case("LSTMBlock", "weights", _lstm_block_weights, normal((5, 12), (12,)))
case("LSTMBlock", "in_dynamic_rnn_captured_variables",
     lambda x, k: tf.nn.dynamic_rnn(_KernelCell(k), x, dtype=tf.float64)[0],
     normal((2, 3, 2), (5, 12)), variables=True)


class _KernelCell(tf.nn.rnn_cell.RNNCell):
    """A BasicLSTMCell whose kernel is a given variable (read only inside the loop)."""

    @property
    def state_size(self):
        return tf.nn.rnn_cell.LSTMStateTuple(3, 3)

    @property
    def output_size(self):
        return 3

    def __init__(self, kernel):
        super().__init__(3)
        self._k = kernel

    def __call__(self, inputs, state, scope=None):
        from estimator_npu.rnn.lstm_ops import lstm_block
        c, h = lstm_block(inputs, state.c, state.h, self._k,
                          tf.zeros([12], tf.float64), 1.0)
        return h, tf.nn.rnn_cell.LSTMStateTuple(c, h)


def _while_in_branch(x, y):
    def loop():
        return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, tf.sin(a) * y),
                             [0, x])[1]
    return tf.cond(tf.reduce_sum(y) > -100.0, loop, lambda: x * y)


case("If", "while_in_branch", _while_in_branch, normal((3,), (3,)), dynamic=True)
case("If", "passthrough_branch", lambda x, y: tf.cond(tf.constant(False), lambda: x * y,
                                                      lambda: x), normal((2,), (2,)))
case("While", "passthrough_var", lambda x, y: tf.while_loop(
    lambda i, a, b: i < 2, lambda i, a, b: (i + 1, a, b * a), [0, x, y])[2],
     normal((2,), (2,)))
