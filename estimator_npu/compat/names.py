"""The supported-name tables of docs/porting.md, generated from the alias machinery.

``supported_names()`` maps each documented TensorFlow / npu_bridge module path to the names
it offers (those of its estimator_npu targets); ``missing_names()`` lists the commonly used
TF1 names in ``COMMON_TF1_NAMES`` that are not there. ``render()`` is the Markdown block
between the ``GENERATED`` markers of docs/porting.md; ``tests/compat/test_porting_doc.py``
keeps the committed block equal to it.
"""
import importlib
import importlib.util
import types

from estimator_npu.compat.finder import resolve_targets

DOCUMENTED_PATHS = [
    "tensorflow", "tensorflow.nn", "tensorflow.train", "tensorflow.estimator",
    "tensorflow.estimator.experimental", "tensorflow.data", "tensorflow.data.experimental",
    "tensorflow.layers", "tensorflow.metrics", "tensorflow.summary", "tensorflow.logging",
    "tensorflow.errors", "tensorflow.compat", "tensorflow.app", "tensorflow.flags",
    "tensorflow.gfile", "tensorflow.io.gfile", "tensorflow.test",
    "tensorflow.keras.datasets.mnist", "tensorflow.keras.datasets.fashion_mnist",
    "tensorflow.keras.datasets.cifar10", "tensorflow.keras.datasets.cifar100",
    "tensorflow.keras.datasets.imdb", "tensorflow.keras.datasets.boston_housing", "tensorflow.contrib.data",
    "tensorflow.contrib.framework", "tensorflow.contrib.mixed_precision",
    "tensorflow.contrib.factorization", "tensorflow.contrib.tensorboard.plugins.projector",
    "tensorflow.python.util.nest", "tensorflow.python.client.timeline",
    "tensorflow.python.client.device_lib", "tensorflow.core.protobuf.config_pb2",
    "tensorflow.core.protobuf.rewriter_config_pb2", "tensorflow.contrib.learn",
    "tensorflow.contrib.learn.learn_runner", "tensorflow.contrib.learn.datasets",
    "tensorflow.examples.tutorials.mnist.input_data",
    "tensorflow.examples.tutorials.mnist.mnist",
    "npu_bridge.npu_init", "npu_bridge.estimator.npu.npu_config",
    "npu_bridge.estimator.npu.npu_estimator", "npu_bridge.estimator.npu.npu_optimizer",
    "npu_bridge.estimator.npu.npu_loss_scale_optimizer",
    "npu_bridge.estimator.npu.npu_loss_scale_manager", "npu_bridge.estimator.npu.util",
    "npu_bridge.estimator.npu.npu_hook", "npu_bridge.estimator.npu.npu_plugin",
    "npu_bridge.estimator.npu_ops", "npu_bridge.hccl.hccl_ops", "hccl.manage.api",
    "hccl.split.api", "npu_bridge.estimator.npu.npu_rnn",
    "tensorflow.keras", "tensorflow.keras.layers", "tensorflow.keras.models",
    "tensorflow.keras.backend", "tensorflow.keras.optimizers", "tensorflow.keras.losses",
    "tensorflow.keras.metrics", "tensorflow.keras.callbacks",
    "tensorflow.keras.initializers", "tensorflow.keras.regularizers",
    "tensorflow.keras.activations", "tensorflow.keras.utils",
    "tensorflow.keras.preprocessing.sequence", "tensorflow.keras.preprocessing.text",
    "tensorflow.keras.preprocessing.image",
    "tensorflow.math", "tensorflow.lookup", "tensorflow.contrib.lookup",
    "tensorflow.queue", "tensorflow.train.queue_runner",
]

# TF1 names real scripts use; the ones estimator_npu lacks are listed as not implemented.
COMMON_TF1_NAMES = [
    "tf.losses", "tf.keras.layers", "tf.keras.Model", "tf.feature_column", "tf.image", "tf.cond", "tf.while_loop",
    "tf.case", "tf.map_fn", "tf.scan", "tf.TensorArray", "tf.einsum", "tf.eye",
    "tf.scatter_nd", "tf.gather_nd", "tf.cumsum", "tf.unique", "tf.norm", "tf.strided_slice",
    "tf.io.write_graph", "tf.train.write_graph", "tf.train.import_meta_graph",
    "tf.train.init_from_checkpoint", "tf.train.ExponentialMovingAverage",
    "tf.train.Example", "tf.parse_single_example", "tf.data.TFRecordDataset",
    "tf.data.TextLineDataset", "tf.nn.xw_plus_b", "tf.nn.dynamic_rnn",
    "tf.nn.conv2d_transpose", "tf.nn.depthwise_conv2d", "tf.nn.lrn", "tf.layers.Dense",
    "tf.layers.Conv2D", "tf.layers.conv2d_transpose", "tf.estimator.DNNClassifier",
    "tf.estimator.export", "tf.saved_model", "tf.contrib.layers", "tf.contrib.slim",
    "tf.contrib.rnn", "tf.contrib.learn.Estimator", "tf.contrib.factorization", "tf.contrib.summary", "tf.python_io",
    "tf.OptimizerOptions", "npu_bridge.estimator.npu.npu_dynamic_rnn.DynamicRNN",
    "tf.FIFOQueue", "tf.RandomShuffleQueue", "tf.train.shuffle_batch", "tf.train.batch",
    "tf.train.string_input_producer", "tf.train.slice_input_producer",
    "tf.train.start_queue_runners", "tf.train.QueueRunner", "tf.TFRecordReader",
    "tf.TextLineReader", "tf.FixedLengthRecordReader", "tf.WholeFileReader",
]


def _display(path):
    if path == "tensorflow":
        return "tf"
    if path.startswith("tensorflow.") and not path.startswith(
            ("tensorflow.python", "tensorflow.core", "tensorflow.examples")):
        return "tf." + path[len("tensorflow."):]
    return path


def _module_names(module_name):
    module = importlib.import_module(module_name)
    public = getattr(module, "__all__", None)
    if public is None:
        public = [n for n in dir(module) if not n.startswith("_")]
    # Submodules are left out: which of them are attributes depends on what was imported
    # (their paths are rows of their own).
    return [n for n in public if not n.startswith("_")
            and not isinstance(getattr(module, n, None), types.ModuleType)]


def supported_names():
    """``{display path: sorted names}`` for ``DOCUMENTED_PATHS`` that resolve."""
    out = {}
    for path in DOCUMENTED_PATHS:
        targets = resolve_targets(path)
        if not targets:
            continue
        names = []
        for target in targets:
            names += [n for n in _module_names(target) if n not in names]
        out[_display(path)] = sorted(names, key=str.lower)
    return out


def _exists(qualified):
    parts = qualified.split(".")
    root = "tensorflow" if parts[0] == "tf" else parts[0]
    path = [root]
    for part in parts[1:]:
        targets = resolve_targets(".".join(path))
        if targets is None:
            return False
        if not any(_has(t, part) for t in targets):
            sub = resolve_targets(".".join(path + [part]))
            # a permissive path that only falls back to its parent's names is not a module
            return bool(sub) and sub != targets
        path.append(part)
    return True


def _has(target, name):
    module = importlib.import_module(target)
    try:
        getattr(module, name)
        return True
    except AttributeError:
        return importlib.util.find_spec(f"{target}.{name}") is not None \
            if hasattr(module, "__path__") else False


def missing_names():
    """The names of ``COMMON_TF1_NAMES`` that estimator_npu does not have."""
    return [n for n in COMMON_TF1_NAMES if not _exists(n)]


def render():
    """The generated Markdown block of docs/porting.md."""
    lines = ["<!-- BEGIN GENERATED by estimator_npu.compat.names.render(); "
             "python -m estimator_npu.compat.names --write -->", "",
             "### Supported module paths and their names", "",
             "| module (as a script imports it) | names |", "|---|---|"]
    for path, names in supported_names().items():
        lines.append(f"| `{path}` | {', '.join(f'`{n}`' for n in names)} |")
    lines += ["", "### Not implemented (yet)", "",
              "Commonly used TF1 names that estimator_npu does not have; using one raises "
              "`estimator_npu does not implement <name> (yet)`:", ""]
    lines += [f"- `{n}`" for n in missing_names()]
    lines += ["", "<!-- END GENERATED -->"]
    return "\n".join(lines) + "\n"


def update(path):
    """Rewrites the generated block of the file at ``path``; returns True if it changed."""
    text = open(path, encoding="utf-8").read()
    start = text.index("<!-- BEGIN GENERATED by estimator_npu.compat.names")
    end = text.index("<!-- END GENERATED -->") + len("<!-- END GENERATED -->\n")
    new = text[:start] + render() + text[end:]
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return new != text


if __name__ == "__main__":
    import pathlib
    import sys
    doc = pathlib.Path(__file__).resolve().parents[2] / "docs" / "porting.md"
    if "--write" in sys.argv:
        print("updated" if update(doc) else "up to date", doc)
    else:
        sys.stdout.write(render())
