"""``tf.contrib.rnn``: the TF1 contrib names of the recurrent cells and RNN functions."""
from estimator_npu.rnn.cells import (BasicLSTMCell, BasicRNNCell, DropoutWrapper,  # noqa: F401
                                     GRUCell, LSTMBlockCell, LSTMCell, LSTMStateTuple,
                                     MultiRNNCell, ResidualWrapper, RNNCell)
from estimator_npu.rnn.dynamic import static_bidirectional_rnn, static_rnn  # noqa: F401

__all__ = ["BasicLSTMCell", "BasicRNNCell", "DropoutWrapper", "GRUCell", "LSTMBlockCell",
           "LSTMCell", "LSTMStateTuple", "MultiRNNCell", "ResidualWrapper", "RNNCell",
           "static_rnn", "static_bidirectional_rnn"]
