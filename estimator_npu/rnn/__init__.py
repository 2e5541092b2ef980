"""Recurrent networks on the engine: ``tf.nn.rnn_cell`` cells and ``tf.nn.dynamic_rnn``.

A layer above ``engine`` (cells are built from engine ops, ``while_loop`` and
TensorArrays); ``nn.py`` and ``contrib/rnn.py`` re-export it under TF1's names.
"""


def _register_op_families():
    """Adds this layer's op families (each module's ``OPS``) to the engine's op table: the
    one place the rnn layer registers ops."""
    from estimator_npu.engine import registry
    from estimator_npu.rnn import cells, lstm_ops
    registry.register_families([cells.OPS, lstm_ops.OPS])


_register_op_families()
