"""``tf.contrib.layers.python.layers.utils``: the output-collection helpers that Slim-style
layer code calls at its end (``return utils.collect_named_outputs(outputs_collections,
sc.name, outputs)``).

TF stores a tensor's aliases on the tensor (``tensor.aliases``); estimator_npu's tensors have
fixed attributes, so the aliases live in a per-graph table here, read back by
``convert_collection_to_dict`` (``{alias: tensor}``) and ``get_tensor_aliases``.
"""
import weakref

from estimator_npu.engine.graph import get_default_graph

# graph -> {tensor name: [aliases]}
_ALIASES = weakref.WeakKeyDictionary()


def _table(graph):
    return _ALIASES.setdefault(graph, {})


def append_tensor_alias(tensor, alias):
    """Records ``alias`` (a trailing ``/`` dropped, as TF does) for ``tensor``; returns it."""
    if alias.endswith("/"):
        alias = alias[:-1]
    _table(tensor.graph).setdefault(tensor.name, []).append(alias)
    return tensor


def get_tensor_aliases(tensor):
    """The aliases recorded for ``tensor`` (TF: ``tensor.aliases``, else its name)."""
    return list(_table(tensor.graph).get(tensor.name, [])) or [tensor.name]


def collect_named_outputs(collections, alias, outputs):
    """Adds ``outputs`` to ``collections`` under ``alias`` when ``collections`` is given;
    returns ``outputs``."""
    if collections:
        append_tensor_alias(outputs, alias)
        g = get_default_graph()
        for c in collections:
            g.add_to_collection(c, outputs)
    return outputs


def convert_collection_to_dict(collection, clear_collection=False):
    """``{alias: tensor}`` for the tensors in ``collection`` (each of its aliases)."""
    g = get_default_graph()
    out = {}
    for tensor in g.get_collection(collection):
        for alias in get_tensor_aliases(tensor):
            out[alias] = tensor
    if clear_collection:
        g.clear_collection(collection)
    return out


__all__ = ["append_tensor_alias", "collect_named_outputs", "convert_collection_to_dict",
           "get_tensor_aliases"]
