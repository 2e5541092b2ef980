"""MetaGraphDefs and graph files: ``write_graph``, ``export_meta_graph``,
``import_meta_graph``.

``Saver.save`` writes ``<prefix>.meta`` as a binary ``MetaGraphDef``: the ``GraphDef``, a
``SaverDef`` of the saver's settings, and ``collection_def`` with the variable
collections (``VariableDef`` bytes, as TF) and the collections of tensors/ops (node
lists). The ``SaverDef`` is left out of the file where the graph has no save/restore
nodes for it to name (ours never has): TF's ``import_meta_graph`` then builds its own
``Saver`` over the imported variables, which is what restoring needs. Importing TF's
meta graphs drops the save/restore subgraph its ``SaverDef`` names (``save/...``) and
returns a ``Saver`` of ours over the imported variables instead.

Our own ops that TF's node form cannot carry back get a record each
(``graph_def_spec``), and the ``queue_runners`` collection is written as TF's
``QueueRunnerDef``s (``COLLECTION_CODECS``), so a meta graph we export imports back
whole: the TF1 idiom ``export_meta_graph()`` -> ``import_meta_graph`` in a new graph ->
train there gives the numbers of the original graph.
"""
import os

from google.protobuf import text_format

from estimator_npu.engine import tf_protos as pb
from estimator_npu.engine.graph import GraphKeys, Operation, Tensor, get_default_graph
from estimator_npu.train import graph_def_spec
from estimator_npu.train.graph_import import import_graph_def, importable_types
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.train.checkpoint_io import atomic_write

_VARIABLE_COLLECTIONS = (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES,
                         GraphKeys.LOCAL_VARIABLES, GraphKeys.MODEL_VARIABLES,
                         GraphKeys.MOVING_AVERAGE_VARIABLES)


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a graph (or ``GraphDef``) to ``logdir/name`` as text or binary, atomically;
    returns the path (``tf.io.write_graph`` / ``tf.train.write_graph``)."""
    gd = graph_or_graph_def.as_graph_def() if hasattr(graph_or_graph_def, "as_graph_def") \
        else graph_or_graph_def
    logdir = os.fspath(logdir)
    if logdir:
        os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    data = text_format.MessageToString(gd).encode() if as_text else gd.SerializeToString()
    atomic_write(path, [data])
    return path


def variable_def(v):
    init = v.initializer
    return pb.VariableDef(variable_name=v.name, initializer_name=init.name,
                          snapshot_name=v.name,
                          initial_value_name=init.inputs[0].name if init.inputs else "",
                          trainable=bool(v.trainable))


# collections of objects other than tensors, ops and variables, in TF's message form:
# ``COLLECTION_CODECS[key] = (to_bytes(item) -> bytes, from_bytes(raw, graph, prefix) ->
# item)`` (``queue_runners``: ``QueueRunnerDef``, registered by the queues layer)
COLLECTION_CODECS = {}


def _collection(items, key):
    c = pb.CollectionDef()
    if key in COLLECTION_CODECS:
        c.bytes_list.value.extend(COLLECTION_CODECS[key][0](i) for i in items)
        return c
    if key in _VARIABLE_COLLECTIONS and all(isinstance(i, Variable) for i in items):
        c.bytes_list.value.extend(variable_def(v).SerializeToString() for v in items)
        return c
    names = []
    for i in items:
        if isinstance(i, (Tensor, Operation, Variable)):
            names.append(i.name)
        else:
            return None
    c.node_list.value.extend(names)
    return c


def meta_graph_def(graph=None, saver=None, collection_list=None):
    """The ``MetaGraphDef`` of ``graph`` (default graph)."""
    graph = graph or get_default_graph()
    meta = pb.MetaGraphDef()
    meta.meta_info_def.meta_graph_version = "v2"
    meta.graph_def.CopyFrom(graph.as_graph_def())
    # our ops that TF's node form does not carry back: one JSON record each
    graph_def_spec.annotate(meta.graph_def, graph, importable_types())
    keys = collection_list if collection_list is not None else graph.get_all_collection_keys()
    for key in keys:
        items = graph.get_collection(key)
        if not items or not isinstance(key, str):
            continue
        c = _collection(items, key)
        if c is not None:
            meta.collection_def[key].CopyFrom(c)
    return meta


def export_meta_graph(filename=None, graph=None, as_text=False, collection_list=None,
                      saver=None, **kwargs):
    """Writes (if ``filename``) and returns the ``MetaGraphDef`` of ``graph``."""
    meta = meta_graph_def(graph, saver, collection_list)
    if filename:
        data = text_format.MessageToString(meta).encode() if as_text else \
            meta.SerializeToString()
        atomic_write(os.fspath(filename), [data])
    return meta


def read_meta_graph_file(path):
    """A ``MetaGraphDef`` from a binary or text file."""
    with open(path, "rb") as f:
        data = f.read()
    meta = pb.MetaGraphDef()
    try:
        meta.ParseFromString(data)
        return meta
    except Exception:
        pass
    try:
        text_format.Merge(data.decode("utf-8"), meta)
    except Exception as e:
        raise IOError(f"Cannot parse file {path}: it is neither a binary nor a text "
                      f"MetaGraphDef ({e})") from None
    return meta


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None,
                      **kwargs):
    """Imports a ``MetaGraphDef`` (ours or TF's) into the default graph and returns a
    ``Saver`` over its variables (``None`` if it has none).

    Raises:
        ValueError: an op type estimator_npu does not have (named in the message).
    """
    from estimator_npu.train.saver import Saver
    meta = meta_graph_or_file if isinstance(meta_graph_or_file, pb.MetaGraphDef) else \
        read_meta_graph_file(os.fspath(meta_graph_or_file))
    graph = get_default_graph()
    before = len(getattr(graph, "_imported_variables", []))
    gd = meta.graph_def
    if meta.HasField("saver_def") and "/" in meta.saver_def.filename_tensor_name:
        # TF's save/restore subgraph (SaveV2/RestoreV2 ...): a Saver of ours replaces it
        scope = meta.saver_def.filename_tensor_name.split("/")[0] + "/"
        gd = pb.GraphDef()
        gd.CopyFrom(meta.graph_def)
        del gd.node[:]
        gd.node.extend(n for n in meta.graph_def.node if not n.name.startswith(scope))
    import_graph_def(gd, name=import_scope or "", skip_unsupported=True)
    new_vars = graph._imported_variables[before:]
    prefix = (import_scope + "/") if import_scope else ""
    by_name = {v.name: v for v in new_vars}
    left_out = []
    for key, c in meta.collection_def.items():
        kind = c.WhichOneof("kind")
        if kind == "bytes_list" and key in COLLECTION_CODECS:
            for raw in c.bytes_list.value:
                try:
                    item = COLLECTION_CODECS[key][1](raw, graph, prefix)
                except KeyError as e:     # an op it names was left out
                    left_out.append(f"an entry of {key!r}: {e.args[0]}")
                    continue
                graph.add_to_collection(key, item)
        elif kind == "bytes_list":
            for raw in c.bytes_list.value:
                try:
                    vd = pb.VariableDef.FromString(raw)
                except Exception:           # a bytes collection of something else
                    break
                v = by_name.get(prefix + vd.variable_name)
                if v is not None and v not in graph.get_collection(key):
                    graph.add_to_collection(key, v)
                    if key == GraphKeys.TRAINABLE_VARIABLES or (
                            key == GraphKeys.GLOBAL_VARIABLES and vd.trainable):
                        v._trainable = True
        elif kind == "node_list":
            for name in c.node_list.value:
                try:
                    item = by_name.get(prefix + name) or graph.as_graph_element(prefix + name)
                except (KeyError, ValueError):
                    why = getattr(graph, "_skipped_imports", {}).get(
                        prefix + name.split(":")[0].lstrip("^"))
                    left_out.append(f"{name!r} of {key!r}" +
                                    (f" (op type {why!r})" if why else " (not in the graph)"))
                    continue
                graph.add_to_collection(key, item)
    if left_out:
        from estimator_npu.utils import logging
        logging.warning("import_meta_graph: collection entries left out (their nodes, or "
                        "nodes they depend on, have op types the import cannot rebuild): %s",
                        ", ".join(left_out))
    if not any(k in meta.collection_def for k in _VARIABLE_COLLECTIONS):
        for v in new_vars:              # a graph without collections: all its variables
            graph.add_to_collection(GraphKeys.GLOBAL_VARIABLES, v)
    for v in new_vars:
        if v._trainable and v not in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES):
            graph.add_to_collection(GraphKeys.TRAINABLE_VARIABLES, v)
    variables = [v for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES) if v in new_vars]
    if not variables:
        return None
    return Saver(variables)


__all__ = ["write_graph", "export_meta_graph", "import_meta_graph", "meta_graph_def",
           "read_meta_graph_file", "variable_def"]
