"""Recurrent networks on the engine: ``tf.nn.rnn_cell`` cells and ``tf.nn.dynamic_rnn``.

A layer above ``engine`` (cells are built from engine ops, ``while_loop`` and
TensorArrays); ``nn.py`` and ``contrib/rnn.py`` re-export it under TF1's names.
"""
