"""``tf.io.gfile``: the file API (local filesystem), over ``estimator_npu.utils.gfile``."""
from estimator_npu.utils.gfile import (GFile, copy, exists, glob, isdir, join,  # noqa: F401
                                       listdir, makedirs, mkdir, remove, rename, rmtree,
                                       stat, walk)

__all__ = ["GFile", "copy", "exists", "glob", "isdir", "join", "listdir", "makedirs",
           "mkdir", "remove", "rename", "rmtree", "stat", "walk"]
