"""``tf.gfile``: TF1's file API (local filesystem), CamelCase names over
``estimator_npu.utils.gfile``. ``tf.io.gfile`` has the same functions in lowercase."""
from estimator_npu.utils.gfile import GFile  # noqa: F401
from estimator_npu.utils.gfile import copy as Copy  # noqa: F401
from estimator_npu.utils.gfile import exists as Exists  # noqa: F401
from estimator_npu.utils.gfile import glob as Glob  # noqa: F401
from estimator_npu.utils.gfile import isdir as IsDirectory  # noqa: F401
from estimator_npu.utils.gfile import listdir as ListDirectory  # noqa: F401
from estimator_npu.utils.gfile import makedirs as MakeDirs  # noqa: F401
from estimator_npu.utils.gfile import mkdir as MkDir  # noqa: F401
from estimator_npu.utils.gfile import remove as Remove  # noqa: F401
from estimator_npu.utils.gfile import rename as Rename  # noqa: F401
from estimator_npu.utils.gfile import rmtree as DeleteRecursively  # noqa: F401
from estimator_npu.utils.gfile import stat as Stat  # noqa: F401
from estimator_npu.utils.gfile import walk as Walk  # noqa: F401

Open = GFile
FastGFile = GFile

__all__ = ["GFile", "Open", "FastGFile", "Copy", "DeleteRecursively", "Exists", "Glob",
           "IsDirectory", "ListDirectory", "MakeDirs", "MkDir", "Remove", "Rename", "Stat",
           "Walk"]
