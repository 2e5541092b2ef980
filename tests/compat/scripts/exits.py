"""Exit paths: sys.exit(code), an uncaught exception, a name estimator_npu lacks."""
import os
import pickle
import sys
import tensorflow as tf


class Point:
    def __init__(self, x):
        self.x = x


what = sys.argv[1]
print("argv0", sys.argv[0].endswith("exits.py"), "name", __name__, "file_abs",
      os.path.isabs(__file__), "pickle", pickle.loads(pickle.dumps(Point(4))).x)
if what == "exit":
    sys.exit(int(sys.argv[2]))
if what == "raise":
    def inner():
        raise KeyError("boom")
    inner()
if what == "missing":
    tf.contrib.gan.gan_model
if what == "missing_import":
    from tensorflow.contrib import gan  # noqa: F401
if what == "eager":
    tf.enable_eager_execution()
