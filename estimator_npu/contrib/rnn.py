"""``tf.contrib.rnn``: the TF1 contrib names of the recurrent cells and RNN functions."""
from estimator_npu.rnn.cells import (BasicLSTMCell, BasicRNNCell, DeviceWrapper,  # noqa: F401
                                     DropoutWrapper, GRUCell, LSTMBlockCell, LSTMCell,
                                     LSTMStateTuple, MultiRNNCell, ResidualWrapper, RNNCell)
from estimator_npu.rnn.dynamic import (stack_bidirectional_dynamic_rnn,  # noqa: F401
                                       static_bidirectional_rnn, static_rnn)
from estimator_npu.contrib.rnn_wrappers import (EmbeddingWrapper,  # noqa: F401
                                                OutputProjectionWrapper)

__all__ = ["BasicLSTMCell", "BasicRNNCell", "DeviceWrapper", "DropoutWrapper", "GRUCell",
           "LSTMBlockCell", "LSTMCell", "LSTMStateTuple", "MultiRNNCell", "ResidualWrapper",
           "RNNCell", "static_rnn", "static_bidirectional_rnn",
           "stack_bidirectional_dynamic_rnn", "EmbeddingWrapper", "OutputProjectionWrapper"]
