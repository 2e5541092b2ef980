"""``tf.estimator.export`` and ``Estimator.export_saved_model``: TF1's SavedModel export.

``export_saved_model(export_dir_base, serving_input_receiver_fn)`` builds the serving graph
(the receiver's placeholders, ``model_fn`` in ``PREDICT`` mode), restores the latest
checkpoint into it and writes TF's SavedModel layout, as TF does, into
``<export_dir_base>/<unix seconds>`` (built under ``temp-<seconds>``, then renamed):

* ``saved_model.pb``: a ``SavedModel`` proto (schema version 1) holding one
  ``MetaGraphDef`` tagged ``serve`` with its ``signature_def`` map;
* ``variables/variables.index`` and ``variables/variables.data-00000-of-00001``: a
  tensor-bundle checkpoint of the graph's variables.

Signatures come from ``EstimatorSpec.export_outputs`` (``PredictOutput``,
``ClassificationOutput``, ``RegressionOutput``), else one ``serving_default`` predict
signature of ``predictions``. Like TF, the directory name is returned as ``bytes``.
"""
import os
import shutil
import time

from google.protobuf import text_format

from estimator_npu.data.example_parsing import parse_example
from estimator_npu.engine import graph_def as _gd
from estimator_npu.engine import tf_protos as pb
from estimator_npu.engine.graph import Graph, Tensor
from estimator_npu.engine.ops.core import placeholder
from estimator_npu.engine.session import Session
from estimator_npu.engine.sparse_tensor import SparseTensor
from estimator_npu.estimator.model_fn import ModeKeys
from estimator_npu.estimator.model_fn_call import call_model_fn
from estimator_npu.train import checkpoint_io, training_util
from estimator_npu.train.meta_graph import import_meta_graph, meta_graph_def
from estimator_npu.train.saver import Saver
from estimator_npu.utils import logging

SERVING = "serve"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
_SINGLE_FEATURE_KEY = "feature"
_SINGLE_RECEIVER_KEY = "input"


def _tensor_dict(value, default_key, what):
    if isinstance(value, (Tensor, SparseTensor)):
        value = {default_key: value}
    if not isinstance(value, dict) or not value:
        raise ValueError(f"{what} must be a Tensor or a non-empty dict of Tensors, got "
                         f"{type(value).__name__}")
    for k, v in value.items():
        if not isinstance(k, str):
            raise ValueError(f"{what} keys must be strings, got {k!r}")
        if not isinstance(v, (Tensor, SparseTensor)):
            raise ValueError(f"{what}[{k!r}] must be a Tensor or SparseTensor, got "
                             f"{type(v).__name__}")
    return dict(value)


class ServingInputReceiver:
    """What a serving input function returns: the ``features`` ``model_fn`` gets and the
    ``receiver_tensors`` (placeholders) a served request feeds."""

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        self.features = _tensor_dict(features, _SINGLE_FEATURE_KEY, "features")
        self.receiver_tensors = _tensor_dict(receiver_tensors, _SINGLE_RECEIVER_KEY,
                                             "receiver_tensors")
        self.receiver_tensors_alternatives = receiver_tensors_alternatives


class TensorServingInputReceiver(ServingInputReceiver):
    """A receiver whose ``features`` is a single Tensor handed to ``model_fn`` as is."""

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        if not isinstance(features, Tensor):
            raise ValueError(f"features must be a Tensor, got {type(features).__name__}")
        super().__init__({_SINGLE_FEATURE_KEY: features}, receiver_tensors,
                         receiver_tensors_alternatives)
        self.features = features


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A serving input function that parses serialized ``tf.train.Example`` protos fed to
    the string placeholder ``input_example_tensor`` (receiver key ``examples``)."""
    def serving_input_receiver_fn():
        serialized = placeholder("string", [default_batch_size], name="input_example_tensor")
        return ServingInputReceiver(parse_example(serialized, feature_spec),
                                    {"examples": serialized})
    return serving_input_receiver_fn


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A serving input function with one placeholder per feature (same dtype and shape,
    batch dimension ``default_batch_size``), each fed directly."""
    features = _tensor_dict(features, _SINGLE_FEATURE_KEY, "features")

    def serving_input_receiver_fn():
        phs = {}
        for key, t in features.items():
            dims = t.shape.as_list() if t.shape.ndims is not None else None
            shape = None if dims is None else [default_batch_size] + dims[1:]
            phs[key] = placeholder(t.dtype, shape, name=key)
        return ServingInputReceiver(phs, phs)
    return serving_input_receiver_fn


def _tensor_info(t):
    if isinstance(t, SparseTensor):
        raise ValueError(f"a SparseTensor ({t.indices.name}) cannot be a signature input or "
                         f"output here; use dense tensors")
    return pb.TensorInfo(name=t.name, dtype=_gd.dtype_enum(t.dtype),
                         tensor_shape=_gd.shape_proto(t.shape))


def _signature(inputs, outputs, method):
    sig = pb.SignatureDef(method_name=method)
    for k, t in inputs.items():
        sig.inputs[k].CopyFrom(_tensor_info(t))
    for k, t in outputs.items():
        sig.outputs[k].CopyFrom(_tensor_info(t))
    return sig


def _single_string_input(receiver_tensors, what):
    if len(receiver_tensors) != 1:
        raise ValueError(f"{what} requires exactly one receiver tensor (a serialized "
                         f"tf.Example string), got {sorted(receiver_tensors)}")
    (t,) = receiver_tensors.values()
    if t.dtype.name != "string":
        raise ValueError(f"{what} requires a string receiver tensor, got {t.dtype.name}")
    return {"inputs": t}


class PredictOutput:
    """A ``tensorflow/serving/predict`` signature over ``outputs`` (a Tensor or dict)."""

    def __init__(self, outputs):
        self.outputs = _tensor_dict(outputs, "output", "PredictOutput outputs")

    def as_signature_def(self, receiver_tensors):
        return _signature(receiver_tensors, self.outputs, PREDICT_METHOD_NAME)


class ClassificationOutput:
    """A ``tensorflow/serving/classify`` signature: ``scores`` (float, ``[batch, classes]``)
    and/or ``classes`` (string, ``[batch, classes]``)."""

    def __init__(self, scores=None, classes=None):
        if scores is None and classes is None:
            raise ValueError("ClassificationOutput: at least one of scores and classes must "
                             "be set")
        if scores is not None and (not isinstance(scores, Tensor) or
                                   not scores.dtype.is_floating):
            raise ValueError(f"ClassificationOutput: scores must be a float Tensor, got "
                             f"{scores!r}")
        if classes is not None and (not isinstance(classes, Tensor) or
                                    classes.dtype.name != "string"):
            raise ValueError(f"ClassificationOutput: classes must be a string Tensor, got "
                             f"{classes!r}")
        self.scores, self.classes = scores, classes

    @property
    def outputs(self):
        return {k: v for k, v in (("scores", self.scores), ("classes", self.classes))
                if v is not None}

    def as_signature_def(self, receiver_tensors):
        return _signature(_single_string_input(receiver_tensors, "ClassificationOutput"),
                          self.outputs, CLASSIFY_METHOD_NAME)


class RegressionOutput:
    """A ``tensorflow/serving/regress`` signature of one float ``value`` per example."""

    def __init__(self, value):
        if not isinstance(value, Tensor) or not value.dtype.is_floating:
            raise ValueError(f"RegressionOutput: value must be a float Tensor, got {value!r}")
        self.value = value

    @property
    def outputs(self):
        return {"outputs": self.value}

    def as_signature_def(self, receiver_tensors):
        return _signature(_single_string_input(receiver_tensors, "RegressionOutput"),
                          self.outputs, REGRESS_METHOD_NAME)


def _export_outputs(spec):
    outputs = spec.export_outputs
    if outputs is None:
        if spec.predictions is None:
            raise ValueError("export_saved_model: model_fn returned no predictions and no "
                             "export_outputs in PREDICT mode")
        return {DEFAULT_SERVING_SIGNATURE_DEF_KEY: PredictOutput(spec.predictions)}
    if not isinstance(outputs, dict):
        raise ValueError(f"export_outputs must be a dict of signature name -> "
                         f"PredictOutput/ClassificationOutput/RegressionOutput, got "
                         f"{type(outputs).__name__}")
    return outputs


def _timestamped_dir(base):
    """``<base>/<unix seconds>``, waiting a second rather than reusing a name (as TF)."""
    while True:
        name = str(int(time.time()))
        path = os.path.join(base, name)
        if not os.path.exists(path):
            return path, os.path.join(base, "temp-" + name)
        time.sleep(1)


def export_saved_model(estimator, export_dir_base, serving_input_receiver_fn,
                       assets_extra=None, as_text=False, checkpoint_path=None):
    """Writes a SavedModel of ``estimator``'s latest (or the given) checkpoint; returns the
    export directory as ``bytes``.

    Raises:
        ValueError: no checkpoint to export, or a receiver / export output that is not
            valid (named in the message).
    """
    if serving_input_receiver_fn is None:
        raise ValueError("serving_input_receiver_fn must be defined.")
    checkpoint_path = checkpoint_path or estimator.latest_checkpoint()
    if checkpoint_path is None:
        raise ValueError(f"Couldn't find trained model at {estimator.model_dir}.")
    export_dir_base = os.fspath(export_dir_base)
    graph = Graph()
    graph.seed = estimator.config.tf_random_seed
    with graph.as_default():
        training_util.get_or_create_global_step()
        receiver = serving_input_receiver_fn()
        if not isinstance(receiver, ServingInputReceiver):
            raise ValueError(f"serving_input_receiver_fn must return a "
                             f"ServingInputReceiver, got {type(receiver).__name__}")
        spec = call_model_fn(estimator.model_fn, receiver.features, None, ModeKeys.PREDICT,
                             estimator.params, estimator.config)
        signatures = {}
        for key, out in _export_outputs(spec).items():
            try:
                signatures[key] = out.as_signature_def(receiver.receiver_tensors)
            except ValueError as e:
                logging.warning("Export output %s is not valid for these receiver tensors, "
                                "skipping it: %s", key, e)
        if not signatures:
            raise ValueError("export_saved_model: no valid signature to export")
        saver = Saver(sharded=True, allow_empty=True)
        meta = meta_graph_def(graph, saver)
        meta.meta_info_def.tags.append(SERVING)
        for key in sorted(signatures):
            meta.signature_def[key].CopyFrom(signatures[key])
        export_dir, temp_dir = _timestamped_dir(export_dir_base)
        os.makedirs(os.path.join(temp_dir, "variables"))
        try:
            with Session(graph=graph) as sess:
                saver.restore(sess, checkpoint_path)
                saver.save(sess, os.path.join(temp_dir, "variables", "variables"),
                           write_meta_graph=False, write_state=False)
            _write_saved_model(temp_dir, meta, as_text)
            for dest, src in (assets_extra or {}).items():
                target = os.path.join(temp_dir, "assets.extra", dest)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(src, target)
            os.rename(temp_dir, export_dir)
        except BaseException:
            shutil.rmtree(temp_dir, ignore_errors=True)
            raise
    logging.info("SavedModel written to: %s", export_dir)
    return export_dir.encode()


def _write_saved_model(directory, meta, as_text):
    model = pb.SavedModel(saved_model_schema_version=1)
    model.meta_graphs.add().CopyFrom(meta)
    if as_text:
        name, data = "saved_model.pbtxt", text_format.MessageToString(model).encode()
    else:
        name, data = "saved_model.pb", model.SerializeToString()
    checkpoint_io.atomic_write(os.path.join(directory, name), [data])


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """``tf.saved_model.loader.load``: imports the meta graph tagged ``tags`` from the
    SavedModel in ``export_dir`` into ``sess``'s graph, restores its variables and returns
    the ``MetaGraphDef``.

    Raises:
        IOError: no ``saved_model.pb`` / ``saved_model.pbtxt`` in ``export_dir``.
        RuntimeError: no meta graph with exactly these tags.
    """
    export_dir = os.fspath(export_dir.decode() if isinstance(export_dir, bytes) else
                           export_dir)
    model = pb.SavedModel()
    pb_path = os.path.join(export_dir, "saved_model.pb")
    txt_path = os.path.join(export_dir, "saved_model.pbtxt")
    if os.path.exists(pb_path):
        with open(pb_path, "rb") as f:
            model.ParseFromString(f.read())
    elif os.path.exists(txt_path):
        with open(txt_path) as f:
            text_format.Merge(f.read(), model)
    else:
        raise IOError(f"SavedModel file does not exist at: {export_dir}/{{saved_model.pbtxt|"
                      f"saved_model.pb}}")
    want = set(tags)
    for meta in model.meta_graphs:
        if set(meta.meta_info_def.tags) == want:
            break
    else:
        found = [list(m.meta_info_def.tags) for m in model.meta_graphs]
        raise RuntimeError(f"MetaGraphDef associated with tags {sorted(want)} could not be "
                           f"found in SavedModel {export_dir}; it has tags {found}")
    with sess.graph.as_default():
        saver = import_meta_graph(meta, import_scope=import_scope, **saver_kwargs)
        if saver is not None:
            saver.restore(sess, os.path.join(export_dir, "variables", "variables"))
    return meta


__all__ = ["ServingInputReceiver", "TensorServingInputReceiver", "PredictOutput",
           "ClassificationOutput", "RegressionOutput", "build_parsing_serving_input_receiver_fn",
           "build_raw_serving_input_receiver_fn"]


# ------------------------------------------------------------------ exporters (EvalSpec)
class Exporter:
    """What ``EvalSpec(exporters=...)`` runs after an evaluation: ``export(estimator,
    export_path, checkpoint_path, eval_result, is_the_final_export)`` returns the export
    directory (``bytes``) or ``None`` when it did not export."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        if not name:
            raise ValueError("An Exporter needs a non-empty name.")
        self._name = name
        self._fn = serving_input_receiver_fn
        self._assets_extra, self._as_text = assets_extra, as_text

    @property
    def name(self):
        return self._name

    def _export(self, estimator, export_path, checkpoint_path):
        return export_saved_model(estimator, export_path, self._fn, self._assets_extra,
                                  self._as_text, checkpoint_path)


def _prune(export_path, keep):
    """Deletes all but the newest ``keep`` timestamped exports under ``export_path``."""
    if not keep or not os.path.isdir(export_path):
        return
    stamps = sorted(int(n) for n in os.listdir(export_path) if n.isdigit())
    for stamp in stamps[:-keep]:
        shutil.rmtree(os.path.join(export_path, str(stamp)), ignore_errors=True)


class LatestExporter(Exporter):
    """Exports after every evaluation and keeps the newest ``exports_to_keep``."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False,
                 exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError(f"`exports_to_keep`, if provided, must be a positive number. "
                             f"Got {exports_to_keep}")
        self._keep = exports_to_keep

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        out = self._export(estimator, export_path, checkpoint_path)
        _prune(export_path, self._keep)
        return out


class FinalExporter(Exporter):
    """Exports once, after the final evaluation."""

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        if not is_the_final_export:
            return None
        return self._export(estimator, export_path, checkpoint_path)


def _loss_smaller(best_eval_result, current_eval_result):
    for r in (best_eval_result, current_eval_result):
        if not r or "loss" not in r:
            raise ValueError("BestExporter's default compare_fn needs 'loss' in the "
                             "evaluation results")
    return current_eval_result["loss"] < best_eval_result["loss"]


class BestExporter(Exporter):
    """Exports when ``compare_fn(best, current)`` says the evaluation is the best so far
    (default: a smaller ``loss``); keeps the newest ``exports_to_keep``."""

    def __init__(self, name="best_exporter", serving_input_receiver_fn=None,
                 event_file_pattern="eval/*.tfevents.*", compare_fn=_loss_smaller,
                 assets_extra=None, as_text=False, exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        if not callable(compare_fn):
            raise ValueError("`compare_fn` must be callable.")
        self._compare, self._keep, self._best = compare_fn, exports_to_keep, None

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        if self._best is not None and not self._compare(self._best, eval_result):
            return None
        self._best = dict(eval_result)
        out = self._export(estimator, export_path, checkpoint_path)
        _prune(export_path, self._keep)
        return out


__all__ += ["Exporter", "LatestExporter", "FinalExporter", "BestExporter"]
