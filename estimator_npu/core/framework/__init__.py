"""``tensorflow.core.framework``: TF's graph and tensor messages (``*_pb2``)."""
