"""The version strings a TF1 script reads (``tf.VERSION``, ``tf.__version__``, ...): those
of TensorFlow 1.15, whose API estimator_npu follows. The package's own version is
``estimator_npu.__version__``; ``ESTIMATOR_NPU_VERSION`` repeats it next to TF's."""

import estimator_npu as _package

VERSION = "1.15.0"
__version__ = VERSION
ESTIMATOR_NPU_VERSION = _package.__version__
GIT_VERSION = "v1.15.0-estimator_npu-" + ESTIMATOR_NPU_VERSION
COMPILER_VERSION = "estimator_npu (pure Python, numpy)"
CXX11_ABI_FLAG = 0
MONOLITHIC_BUILD = 0
GRAPH_DEF_VERSION = 134
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
