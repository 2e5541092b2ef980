"""Protocol message classes under their TensorFlow module paths (``*_pb2``)."""
