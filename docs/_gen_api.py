"""Generates ``docs/api.md`` by introspecting the package.

    python docs/_gen_api.py            # rewrites docs/api.md
    python docs/_gen_api.py --check    # exit status 1 if docs/api.md is out of date

The public names of a module are its ``__all__`` (plus names its ``__dir__`` adds lazily,
as ``estimator_npu.train`` does for the hook names), else every name of ``dir()`` that
does not start with ``_``; submodules are left out of the lists (each has its own
section). A name's description is the first paragraph of its docstring, or, for the TF1
ops that have none, the one-liner in ``DESCRIPTIONS`` below. ``tests/test_docs.py``
checks that every documented name exists and every public name is documented.
"""
import importlib
import inspect
import pathlib
import re
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# (module, what it is, as a reader would import it). Modules that do not exist (yet) are
# left out of the page.
MODULES = [
    ("estimator_npu", "The TF1 `tf` namespace: `import estimator_npu as tf`."),
    ("estimator_npu.nn", "`tf.nn`: activations, losses, convolution, pooling, normalization."),
    ("estimator_npu.layers", "`tf.layers`: functional layers that create their variables."),
    ("estimator_npu.losses", "`tf.losses`: TF1 loss functions, reductions, loss collections."),
    ("estimator_npu.math", "`tf.math`: the math namespace."),
    ("estimator_npu.random", "`tf.random`: the random-op namespace."),
    ("estimator_npu.image", "`tf.image`: resizing, crops, flips, colour and dtype conversion."),
    ("estimator_npu.train", "`tf.train`: optimizers, schedules, global step, checkpoints, "
                            "hooks and monitored sessions."),
    ("estimator_npu.data", "`tf.data`: input pipelines and iterators."),
    ("estimator_npu.data.experimental", "`tf.data.experimental`."),
    ("estimator_npu.estimator", "`tf.estimator`: Estimator, EstimatorSpec, RunConfig, warm "
                                "start, and the hook names TF1 exports here."),
    ("estimator_npu.metrics", "`tf.metrics`: streaming metrics as `(value, update_op)`."),
    ("estimator_npu.feature_column", "`tf.feature_column`: TF1 feature columns, "
     "`input_layer`, `linear_model`."),
    ("estimator_npu.summary", "`tf.summary`: summary ops and the event-file writer."),
    ("estimator_npu.logging", "`tf.logging`: the library logger `estimator_npu`."),
    ("estimator_npu.errors", "`tf.errors`: `OpError`, its subclasses and error codes."),
    ("estimator_npu.hooks", "The hook layer: `SessionRunHook`, built-in hooks, timers, "
                            "priorities, monitored sessions."),
    ("estimator_npu.npu", "The Ascend adapter's names (`npu_bridge.estimator.npu`)."),
    ("estimator_npu.npu.util", "`npu_bridge.estimator.npu.util`."),
    ("estimator_npu.npu.hccl", "`hccl.split.api` and `hccl.manage.api`: gradient segments, "
                               "ranks."),
    ("estimator_npu.npu.npu_init", "`npu_bridge.npu_init`: every adapter name "
                                   "(`from estimator_npu.npu.npu_init import *`)."),
    ("estimator_npu.mixed_precision", "`tf.contrib.mixed_precision`: loss scaling."),
    ("estimator_npu.distribute", "Collectives for data-parallel training (MPI)."),
    ("estimator_npu.datasets", "Bundled and downloadable example data."),
    ("estimator_npu.datasets.digits", "The bundled UCI handwritten digits."),
    ("estimator_npu.datasets.iris", "The bundled UCI Iris flowers."),
    ("estimator_npu.datasets.mnist", "The MNIST IDX reader (`input_data.read_data_sets`)."),
    ("estimator_npu.core.protobuf.config_pb2", "`tensorflow.core.protobuf.config_pb2`."),
    ("estimator_npu.core.protobuf.rewriter_config_pb2",
     "`tensorflow.core.protobuf.rewriter_config_pb2`."),
]

# One-liners for names whose object has no docstring of its own (mostly TF1 ops); a
# docstring, where there is one, wins.
DESCRIPTIONS = {
    "AUTO_REUSE": "`variable_scope(..., reuse=AUTO_REUSE)`: create variables or reuse them.",
    "abs": "Elementwise absolute value.",
    "add": "Elementwise `x + y` (numpy broadcasting).",
    "add_to_collection": "Adds `value` to the default graph's collection `name`.",
    "add_to_collections": "Adds `value` to several collections of the default graph.",
    "argmax": "Index of the largest value along `axis` (int64).",
    "argmin": "Index of the smallest value along `axis` (int64).",
    "assign": "An op that sets a variable to `value`; returns the new value.",
    "assign_add": "An op that adds `value` to a variable in place.",
    "assign_sub": "An op that subtracts `value` from a variable in place.",
    "bfloat16": "DType bfloat16 (through `ml_dtypes`; `None` when it is not installed).",
    "boolean_mask": "The elements of `tensor` where `mask` is true.",
    "broadcast_to": "Broadcasts `input` to `shape`.",
    "ceil": "Elementwise ceiling.",
    "concat": "Concatenates tensors along `axis`.",
    "constant_initializer": "Initializer filling a variable with `value`.",
    "control_dependencies": "Context manager: ops built inside run after `control_inputs`.",
    "cos": "Elementwise cosine.",
    "equal": "Elementwise `x == y` (bool).",
    "exp": "Elementwise `e ** x`.",
    "expand_dims": "Inserts a dimension of size 1 at `axis`.",
    "fill": "A tensor of shape `dims` filled with `value`.",
    "floor": "Elementwise floor.",
    "floordiv": "Elementwise `x // y`.",
    "floormod": "Elementwise `x % y` (sign of `y`, as Python).",
    "gather": "Slices of `params` at `indices` along `axis`.",
    "get_collection": "The items of a collection of the default graph (filtered by `scope`).",
    "get_collection_ref": "The list object of a collection of the default graph.",
    "get_default_session": "The session of the innermost `with Session():` (or `None`).",
    "get_local_variable": "`get_variable` for a local (not saved, not trained) variable.",
    "get_variable_scope": "The current `VariableScope`.",
    "global_variables": "The `GLOBAL_VARIABLES` collection (what a `Saver` saves).",
    "global_variables_initializer": "An op that initializes every global variable.",
    "glorot_normal_initializer": "Xavier/Glorot normal initializer.",
    "glorot_uniform_initializer": "Xavier/Glorot uniform initializer (`get_variable`'s "
                                  "default).",
    "greater": "Elementwise `x > y`.",
    "greater_equal": "Elementwise `x >= y`.",
    "he_normal": "He normal initializer (variance scaling, fan-in, scale 2).",
    "he_uniform": "He uniform initializer (variance scaling, fan-in, scale 2).",
    "initialize_all_variables": "Old TF1 name of `global_variables_initializer`.",
    "is_finite": "Elementwise: not inf and not NaN.",
    "is_inf": "Elementwise: is +-inf.",
    "is_nan": "Elementwise: is NaN.",
    "less": "Elementwise `x < y`.",
    "less_equal": "Elementwise `x <= y`.",
    "local_variables": "The `LOCAL_VARIABLES` collection (metrics, loop counters).",
    "local_variables_initializer": "An op that initializes every local variable.",
    "log": "Elementwise natural logarithm.",
    "log1p": "Elementwise `log(1 + x)`.",
    "logical_and": "Elementwise boolean and.",
    "logical_not": "Elementwise boolean not.",
    "logical_or": "Elementwise boolean or.",
    "maximum": "Elementwise maximum (NaN propagates).",
    "minimum": "Elementwise minimum (NaN propagates).",
    "mod": "Elementwise `x % y`.",
    "model_variables": "The `MODEL_VARIABLES` collection.",
    "multiply": "Elementwise `x * y`.",
    "negative": "Elementwise `-x`.",
    "not_equal": "Elementwise `x != y`.",
    "one_hot": "One-hot encodes integer `indices` to `depth` classes.",
    "ones": "A tensor of ones.",
    "ones_initializer": "Initializer filling a variable with ones.",
    "ones_like": "Ones with the shape (and dtype) of `tensor`.",
    "pad": "Pads a tensor (`CONSTANT`, `REFLECT`, `SYMMETRIC`).",
    "pow": "Elementwise `x ** y`.",
    "random_normal": "Normal random values (seeded as TF1: graph and op seeds).",
    "random_normal_initializer": "Initializer drawing normal values.",
    "random_shuffle": "Shuffles a tensor along its first dimension.",
    "random_uniform": "Uniform random values in `[minval, maxval)`.",
    "random_uniform_initializer": "Initializer drawing uniform values.",
    "range": "`start, start + delta, ...` below `limit` (as Python `range`).",
    "rank": "The number of dimensions of a tensor (a scalar tensor).",
    "reciprocal": "Elementwise `1 / x`.",
    "reduce_all": "Logical and over `axis`.",
    "reduce_any": "Logical or over `axis`.",
    "reduce_max": "Maximum over `axis` (`keepdims`; `reduction_indices` alias).",
    "reduce_mean": "Mean over `axis` (`keepdims`; `reduction_indices` alias).",
    "reduce_min": "Minimum over `axis` (`keepdims`; `reduction_indices` alias).",
    "reduce_prod": "Product over `axis` (`keepdims`; `reduction_indices` alias).",
    "reduce_sum": "Sum over `axis` (`keepdims`; `reduction_indices` alias).",
    "reverse": "Reverses a tensor along the dimensions in `axis`.",
    "round": "Elementwise rounding, half to even.",
    "rsqrt": "Elementwise `1 / sqrt(x)`.",
    "shape": "The shape of a tensor as an int32 tensor (known at run time).",
    "sigmoid": "Elementwise logistic function `1 / (1 + exp(-x))`.",
    "sign": "Elementwise sign (-1, 0, 1).",
    "sin": "Elementwise sine.",
    "size": "The number of elements of a tensor (a scalar tensor).",
    "split": "Splits a tensor into pieces along `axis`.",
    "sqrt": "Elementwise square root.",
    "square": "Elementwise `x * x`.",
    "squared_difference": "Elementwise `(x - y) ** 2`.",
    "squeeze": "Removes dimensions of size 1.",
    "stack": "Stacks tensors along a new `axis`.",
    "subtract": "Elementwise `x - y`.",
    "tanh": "Elementwise hyperbolic tangent.",
    "tile": "Repeats a tensor `multiples` times along each dimension.",
    "to_float": "`cast(x, float32)`.",
    "to_int32": "`cast(x, int32)`.",
    "to_int64": "`cast(x, int64)`.",
    "trainable_variables": "The `TRAINABLE_VARIABLES` collection (what optimizers update).",
    "transpose": "Permutes the dimensions of a tensor (reverses them by default).",
    "truncated_normal_initializer": "Initializer drawing normal values within 2 stddev.",
    "unstack": "Splits a tensor into a list along `axis`.",
    "zeros": "A tensor of zeros.",
    "zeros_initializer": "Initializer filling a variable with zeros.",
    "zeros_like": "Zeros with the shape (and dtype) of `tensor`.",
    # tf.nn
    "elu": "Exponential linear unit.",
    "embedding_lookup": "Rows of `params` at `ids` (gradient: scattered rows).",
    "gelu": "Gaussian error linear unit (exact, or the tanh approximation).",
    "in_top_k": "Whether each target is among the `k` largest predictions.",
    "l2_normalize": "`x / sqrt(max(sum(x ** 2), epsilon))` along `axis`.",
    "leaky_relu": "`max(x, alpha * x)`.",
    "log_softmax": "`logits - log(sum(exp(logits)))` along `axis`, computed stably.",
    "relu": "`max(x, 0)` (NaN propagates).",
    "relu6": "`min(max(x, 0), 6)`.",
    "softmax": "Softmax along `axis`, computed stably (shifted by the maximum).",
    "softplus": "`log(1 + exp(x))`, computed stably.",
    # tf.data
    "AUTOTUNE": "`num_parallel_calls` / `prefetch` value: let the library choose.",
    "get_output_classes": "The output classes of a dataset or iterator (TF1 compat).",
    "get_output_shapes": "The output shapes of a dataset or iterator.",
    "get_output_types": "The output dtypes of a dataset or iterator.",
    # tf.summary
    "get_summary_description": "The description stored on a summary op (TF1 compat).",
    # tf.logging levels
    "DEBUG": "Level `logging.DEBUG`.",
    "INFO": "Level `logging.INFO`.",
    "WARN": "Level `logging.WARNING`.",
    "WARNING": "Level `logging.WARNING`.",
    "ERROR": "Level `logging.ERROR`.",
    "FATAL": "Level `logging.FATAL`.",
    # hooks
    "PRIORITY_WRITER": "Hook priority: changes feeds or model state; runs first.",
    "PRIORITY_EDITOR": "Hook priority: judges a step, may stop or fail it; runs second.",
    "PRIORITY_READER": "Hook priority: only observes (the default); runs last.",
    # datasets
    "NUM_CLASSES": "10 digit classes.",
    "NUM_EXAMPLES": "1,797 images.",
    "FILE_NAMES": "The four MNIST file names `read_data_sets` expects.",
}

_ERROR_CODES = ("OK CANCELLED UNKNOWN INVALID_ARGUMENT DEADLINE_EXCEEDED NOT_FOUND "
                "ALREADY_EXISTS PERMISSION_DENIED RESOURCE_EXHAUSTED FAILED_PRECONDITION "
                "ABORTED OUT_OF_RANGE UNIMPLEMENTED INTERNAL UNAVAILABLE DATA_LOSS "
                "UNAUTHENTICATED").split()


def _import(module_name):
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and module_name.startswith(e.name):
            return None  # the module itself does not exist (yet)
        raise


def public_names(module):
    """The public, non-module names of ``module``, sorted."""
    if hasattr(module, "__all__"):
        names = set(module.__all__) | (set(dir(module)) - set(vars(module)))
    else:
        names = set(dir(module))
    return sorted(n for n in names if not n.startswith("_")
                  and not isinstance(getattr(module, n), types.ModuleType))


def public_entries():
    """``[(module name, name)]`` for every module of ``MODULES`` that exists."""
    out = []
    for module_name, _ in MODULES:
        module = _import(module_name)
        if module is not None:
            out.extend((module_name, n) for n in public_names(module))
    return out


def _first_paragraph(doc):
    paragraph = []
    for line in inspect.cleandoc(doc).splitlines():
        if not line.strip():
            break
        paragraph.append(line.strip())
    text = " ".join(paragraph)
    if len(text) > 160:  # keep the first sentence of long paragraphs
        m = re.match(r"(.+?[.:])(\s|$)", text)
        text = m.group(1) if m else text
    return text.replace("``", "`").replace("|", "\\|")


def _own_doc(obj):
    doc = getattr(obj, "__doc__", None)
    if not doc or not isinstance(doc, str):
        return None
    if not isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)) and \
            doc == type(obj).__doc__:
        return None  # an instance: its class's docstring says nothing about it
    return doc


def kind_of(obj):
    from estimator_npu.engine.dtypes import DType
    if isinstance(obj, DType):
        return "dtype"
    if isinstance(obj, type):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return "constant"


def description(module_name, name, obj):
    if module_name == "estimator_npu.errors" and name in _ERROR_CODES:
        return f"Canonical error code {obj}."
    doc = _own_doc(obj)
    if doc:
        return _first_paragraph(doc)
    if name in DESCRIPTIONS:
        return DESCRIPTIONS[name]
    kind = kind_of(obj)
    if kind == "dtype":
        return f"DType `{obj.name}`."
    return f"TF1 `{name}`." if kind != "constant" else f"`{obj!r}`."


def signature(obj):
    if not callable(obj) or kind_of(obj) in ("dtype", "exception"):
        return ""
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return ""
    sig = sig.replace("tf.", "")
    sig = re.sub(r"<object object at 0x[0-9a-fA-F]+>", "<default>", sig)  # sentinels
    sig = re.sub(r" at 0x[0-9a-fA-F]+", "", sig)       # so that the page is reproducible
    sig = re.sub(r"<class '([\w.]+)'>", r"\1", sig)
    return f"`{sig}`".replace("|", "\\|")


HEADER = """# API reference

The public names of each module, with one line each. This page is generated by
`python docs/_gen_api.py` from the package itself (docstrings and signatures), and
`tests/test_docs.py` fails when a name listed here does not exist or a public name is
missing, so it does not drift. For the TF1 equivalents and the differences see
[porting.md](porting.md); for the concepts, the [user guide](index.md).

`import estimator_npu as tf` gives the TF1 spelling used throughout: `tf.placeholder`,
`tf.train.AdamOptimizer`, `tf.estimator.Estimator`, `tf.nn.conv2d` ... Signatures are shown
without `self`; `float32` stands for `tf.float32`.

"""


def generate():
    parts = [HEADER, "Modules:\n\n"]
    present = [(m, what) for m, what in MODULES if _import(m) is not None]
    for module_name, what in present:
        anchor = module_name.replace(".", "")
        parts.append(f"* [`{module_name}`](#{anchor}) — {what}\n")
    for module_name, what in present:
        module = _import(module_name)
        parts.append(f"\n## `{module_name}`\n\n{what}\n\n")
        names = public_names(module)
        if not names:
            parts.append("(no public names of its own)\n")
            continue
        parts.append("| name | kind | signature | description |\n|---|---|---|---|\n")
        for name in names:
            obj = getattr(module, name)
            parts.append(f"| `{name}` | {kind_of(obj)} | {signature(obj)} | "
                         f"{description(module_name, name, obj)} |\n")
    return "".join(parts)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    text = generate()
    path = ROOT / "docs" / "api.md"
    if "--check" in argv:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            print("docs/api.md is out of date: run python docs/_gen_api.py")
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
