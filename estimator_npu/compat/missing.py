"""The error a TF1 script gets for a name estimator_npu does not have (yet).

``NotImplementedName`` is an ``AttributeError`` (``tf.losses.cosine_distance``) and
``NotImplementedModule`` a ``ModuleNotFoundError`` (``import tensorflow.contrib.learn``), so
``hasattr`` and ``try: import ... except ImportError`` keep working; the message says what
is missing and where the supported names are listed::

    estimator_npu does not implement tf.losses.cosine_distance (yet); docs/porting.md
    lists what is supported
"""
import importlib

PORTING_DOC = "docs/porting.md"


# TF 0.x names that TF 1.0 removed, with the TF1 name that replaced each: TF1 (and so
# estimator_npu) has no attribute of the old name; the error says what to write instead.
RENAMED_IN_TF1 = {
    "tf.mul": "tf.multiply", "tf.sub": "tf.subtract", "tf.neg": "tf.negative",
    "tf.select": "tf.where", "tf.pack": "tf.stack", "tf.unpack": "tf.unstack",
    "tf.batch_matmul": "tf.matmul", "tf.listdiff": "tf.setdiff1d", "tf.complex_abs": "tf.abs",
    "tf.inv": "tf.reciprocal",
    "tf.merge_all_summaries": "tf.summary.merge_all", "tf.merge_summary": "tf.summary.merge",
    "tf.scalar_summary": "tf.summary.scalar", "tf.histogram_summary": "tf.summary.histogram",
    "tf.image_summary": "tf.summary.image", "tf.audio_summary": "tf.summary.audio",
    "tf.train.SummaryWriter": "tf.summary.FileWriter", "tf.SummaryWriter": "tf.summary.FileWriter",
    "tf.nn.deconv2d": "tf.nn.conv2d_transpose", "tf.nn.rnn": "tf.nn.static_rnn",
    "tf.nn.bidirectional_rnn": "tf.nn.static_bidirectional_rnn",
    "tf.nn.state_saving_rnn": "tf.nn.static_state_saving_rnn",
    "tf.nn.seq2seq": "tf.contrib.legacy_seq2seq",
    "tf.batch_matrix_inverse": "tf.matrix_inverse",
    "tf.batch_matrix_determinant": "tf.matrix_determinant",
    "tf.batch_matrix_diag": "tf.matrix_diag", "tf.batch_matrix_diag_part": "tf.matrix_diag_part",
    "tf.batch_self_adjoint_eig": "tf.self_adjoint_eig", "tf.batch_fft": "tf.fft",
    "tf.batch_ifft": "tf.ifft", "tf.batch_matrix_band_part": "tf.matrix_band_part",
    "tf.batch_matrix_solve": "tf.matrix_solve", "tf.batch_cholesky": "tf.cholesky",
}


def _message(qualified_name):
    renamed = RENAMED_IN_TF1.get(qualified_name)
    if renamed:
        return (f"estimator_npu does not implement {qualified_name}: it is TF 0.x's name, "
                f"removed in TF 1.0 (TF1 has no {qualified_name} either); use {renamed}")
    return (f"estimator_npu does not implement {qualified_name} (yet); "
            f"{PORTING_DOC} lists what is supported")


class NotImplementedName(AttributeError):
    """A TF1 / npu_bridge attribute that estimator_npu does not provide."""

    def __init__(self, qualified_name):
        super().__init__(_message(qualified_name))
        self.qualified_name = qualified_name


class NotImplementedModule(ModuleNotFoundError):
    """A TF1 / npu_bridge module path that estimator_npu does not provide."""

    def __init__(self, qualified_name):
        # ``name`` stays None: the import system then reports this error as it is instead
        # of replacing it with its own "cannot import name" message.
        super().__init__(_message(qualified_name))
        self.qualified_name = qualified_name


def display_name(module_name):
    """How a module is spelled in the message: ``tf.nn`` for TensorFlow's public modules,
    the full path for ``tensorflow.python.*`` / ``tensorflow.core.*`` and the adapter's."""
    for prefix in ("tensorflow.compat.v1", "tensorflow.compat.v2"):
        if module_name == prefix or module_name.startswith(prefix + "."):
            return "tf" + module_name[len(prefix):]
    if module_name == "estimator_npu":
        return "tf"
    if module_name.startswith("estimator_npu."):
        return "tf." + module_name[len("estimator_npu."):]
    internal = ("tensorflow.python", "tensorflow.core", "tensorflow.examples")
    if module_name == "tensorflow":
        return "tf"
    if module_name.startswith("tensorflow.") and not module_name.startswith(internal):
        return "tf." + module_name[len("tensorflow."):]
    return module_name


def module_getattr(module_name, lazy_submodules=()):
    """A PEP 562 module ``__getattr__`` for a facade module: the names in
    ``lazy_submodules`` are imported on first use, any other name raises
    ``NotImplementedName``."""

    def __getattr__(name):
        if name in lazy_submodules:
            return importlib.import_module(f"{module_name}.{name}")
        if name.startswith("__"):
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        raise NotImplementedName(f"{display_name(module_name)}.{name}")
    return __getattr__
