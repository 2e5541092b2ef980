"""``tensorflow.core.example``: the ``tf.train.Example`` protocol messages."""
