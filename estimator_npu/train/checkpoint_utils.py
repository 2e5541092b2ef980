"""Fine-tuning from checkpoints: ``tf.train.init_from_checkpoint`` and Slim's
``assign_from_checkpoint_fn``.

``init_from_checkpoint(ckpt_dir_or_file, assignment_map)`` (TF1 semantics) replaces the
initializers of the mapped variables, so that running the (global variables)
initializer loads their values from the checkpoint. ``assignment_map`` maps checkpoint
names to graph names:

* ``{"ckpt/scope/w": "graph/scope/w"}`` or ``{"ckpt/scope/w": variable}``: one variable;
* ``{"ckpt_scope/": "graph_scope/"}``: every variable under ``graph_scope`` from the
  tensor of the same relative name under ``ckpt_scope``;
* ``{"/": "graph_scope/"}`` / ``{"ckpt_scope/": "/"}``: the checkpoint's root / the
  graph's root.

A name the checkpoint lacks raises ``ValueError`` listing the nearest existing keys; a
shape mismatch names both shapes and both names.
"""
import os

import numpy as np

from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.engine.partitioned import PartitionedVariable
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.train import checkpoint_io
from estimator_npu.utils import logging

OPS = OpFamily(__name__)  # this family's op definitions (data)


_readers = {}     # prefix -> ((inode, size, mtime) of its index, CheckpointReader)


def _reader(prefix):
    """The checkpoint reader of ``prefix``, kept while its index file is unchanged (so
    restoring N variables parses the index once, not N times)."""
    try:
        st = os.stat(prefix + checkpoint_io.INDEX_SUFFIX)
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        return checkpoint_io.CheckpointReader(prefix)     # raises NotFoundError
    hit = _readers.get(prefix)
    if hit is not None and hit[0] == key:
        return hit[1]
    reader = checkpoint_io.CheckpointReader(prefix)
    if len(_readers) >= 8:
        _readers.clear()
    _readers[prefix] = (key, reader)
    return reader


def _restore_kernel(op, ctx):
    prefix, name, np_dtype = op.attrs["prefix"], op.attrs["tensor_name"], op.attrs["np_dtype"]

    offset, shape = op.attrs.get("var_offset"), op.attrs.get("var_shape")

    def restore():
        value = np.asarray(_reader(prefix).get_tensor(name), dtype=np_dtype)
        if offset is not None:      # a part of a partitioned variable: its slice
            value = np.ascontiguousarray(
                value[tuple(slice(o, o + n) for o, n in zip(offset, shape))])
        return value
    return restore


OPS.define("RestoreV2", kernel=_restore_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


def _resolve(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = checkpoint_io.latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {path}")
        return latest
    return path


def _missing(name, ckpt, shapes, detail=""):
    return ValueError(f"Tensor {name}{detail} is not found in {ckpt} checkpoint"
                      f"{checkpoint_io.nearest_keys_hint(name, sorted(shapes))}")


def _check_shape(var, tensor_name, shapes, ckpt):
    want = shapes[tensor_name]
    if isinstance(var, list):       # the parts of a partitioned variable
        info = var[0]._save_slice_info
        if list(info.full_shape) != list(want):
            raise ValueError(f"Shape of variable {info.full_name} ({info.full_shape}) "
                             f"doesn't match with shape of tensor {tensor_name} "
                             f"({list(want)}) from checkpoint {ckpt}")
        return
    if not var.shape.is_compatible_with(want):
        raise ValueError(f"Shape of variable {var.op.name} ({var.shape.as_list()}) doesn't "
                         f"match with shape of tensor {tensor_name} ({list(want)}) from "
                         f"checkpoint {ckpt}")


def _set_initializer(var, ckpt, tensor_name):
    if isinstance(var, list):       # each part from its slice of the full tensor
        for part in var:
            _set_initializer(part, ckpt, tensor_name)
        return
    g = var.graph
    attrs = {"prefix": ckpt, "tensor_name": tensor_name, "np_dtype": var.dtype.np}
    info = var._save_slice_info
    if info is not None:
        attrs.update(var_offset=list(info.var_offset), var_shape=list(info.var_shape))
    with g.as_default(), g.name_scope(var.op.name + "/"):
        restore = g.create_op("RestoreV2", [], attrs,
                              [(var.dtype, var.shape)], name="checkpoint_initializer")
        var._initializer_op = g.create_op(
            "Assign", [restore.outputs[0]], {"var": var.op, "is_initializer": True},
            [(var.dtype, var.shape)], name="Assign")
        var._initial_value = restore.outputs[0]


def _graph_variables(graph):
    """``{name: Variable}``, a partitioned variable as ``{full name: [its parts]}`` (as
    TF's variable store groups ``name/part_<i>``)."""
    out = {}
    for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES) + graph.get_collection(
            GraphKeys.LOCAL_VARIABLES):
        if isinstance(v, Variable):
            info = v._save_slice_info
            if info is None:
                out.setdefault(v.op.name, v)
            elif v not in out.setdefault(info.full_name, []):
                out[info.full_name].append(v)
    return out


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Initializes variables from a checkpoint (``tf.train.init_from_checkpoint``).

    Raises:
        ValueError: a checkpoint tensor or graph variable is missing (the message lists
            the nearest keys), shapes differ, or a scope maps to a single name.
    """
    if not isinstance(assignment_map, dict):
        raise TypeError(f"assignment_map must be a dict, got {type(assignment_map).__name__}")
    ckpt = _resolve(ckpt_dir_or_file)
    shapes = dict(checkpoint_io.list_variables(ckpt))
    graph = get_default_graph()
    store = _graph_variables(graph)
    for tensor_name, current in sorted(assignment_map.items(), key=lambda kv: kv[0]):
        if isinstance(current, PartitionedVariable):
            current = list(current)
        if isinstance(current, (list, tuple)):
            if not current or any(getattr(p, "_save_slice_info", None) is None
                                  for p in current):
                raise ValueError(f"init_from_checkpoint: {tensor_name!r} maps to a list "
                                 "that is not the parts of a partitioned variable")
            var = list(current)
        else:
            var = current if isinstance(current, Variable) else store.get(current)
            if isinstance(current, Variable) and current._save_slice_info is not None:
                var = [current]
        if var is not None:
            if tensor_name not in shapes:
                raise _missing(tensor_name, ckpt, shapes)
            _check_shape(var, tensor_name, shapes, ckpt)
            _set_initializer(var, ckpt, tensor_name)
            logging.debug("Initialize variable %s from checkpoint %s with %s",
                          current, ckpt, tensor_name)
            continue
        if not isinstance(current, str):
            raise TypeError(f"assignment_map values must be variable names, scopes or "
                            f"Variables, got {current!r}")
        scopes = current[:current.rindex("/")] if "/" in current else ""
        if not tensor_name.endswith("/"):
            raise ValueError(
                f"Assignment map with scope only name {scopes or current} should map to "
                f"scope only {tensor_name}. Should be 'scope/': 'other_scope/'. (no "
                f"variable named {current!r} in the graph"
                f"{checkpoint_io.nearest_keys_hint(current, sorted(store))})")
        matched = sorted(n for n in store if not scopes or n.startswith(scopes + "/"))
        if not matched:
            raise ValueError(f"assignment_map: no variable of the graph is under scope "
                             f"{current!r} (mapped from {tensor_name!r})")
        for var_name in matched:
            full = var_name[len(scopes):]
            if current != "/":
                full = full[1:]
            if tensor_name != "/":
                full = tensor_name + full
            full = full.rstrip("/")
            if full not in shapes:
                raise _missing(full, ckpt, shapes,
                               f" ({var_name[len(scopes) + 1:]} in {tensor_name})")
            var = store[var_name]
            _check_shape(var, full, shapes, ckpt)
            _set_initializer(var, ckpt, full)
            logging.debug("Initialize variable %s from checkpoint %s with %s",
                          var_name, ckpt, full)


def assign_from_checkpoint_fn(model_path, var_list, ignore_missing_vars=False,
                              reshape_variables=False):
    """Slim's ``assign_from_checkpoint_fn``: a ``fn(session)`` restoring ``var_list``
    (a list of variables or a dict ``checkpoint name -> variable``) from ``model_path``.

    With ``ignore_missing_vars`` the variables the checkpoint lacks are skipped with a
    warning; otherwise they raise when the function is built.

    Raises:
        ValueError: ``var_list`` is empty, or a variable is missing (the message lists
            the nearest keys) or has another shape than its tensor.
    """
    from estimator_npu.train.saver import Saver
    if not var_list:
        raise ValueError("var_list cannot be empty")
    path = _resolve(model_path)
    if isinstance(var_list, dict):
        items = dict(var_list)
    else:       # a part of a partitioned variable is restored from its full name's slice
        items = {}
        for x in var_list:
            for v in (list(x) if isinstance(x, PartitionedVariable) else [x]):
                info = getattr(v, "_save_slice_info", None)
                if info is None:
                    items[v.op.name] = v
                else:
                    items.setdefault(info.full_name, []).append(v)
    shapes = dict(checkpoint_io.list_variables(path))
    kept = {}
    for name, var in items.items():
        if name not in shapes:
            if ignore_missing_vars:
                logging.warning("Variable %s missing in checkpoint %s", name, path)
                continue
            label = name if isinstance(var, (list, PartitionedVariable)) else var.op.name
            raise _missing(name, path, shapes, f" (variable {label})")
        if not reshape_variables:
            _check_shape(list(var) if isinstance(var, PartitionedVariable) else var, name,
                         shapes, path)
        kept[name] = var
    if not kept:
        logging.warning("No Variables to restore")
        return None
    saver = Saver(kept, reshape=reshape_variables)

    def callback(session):
        saver.restore(session, path)
    return callback


__all__ = ["init_from_checkpoint", "assign_from_checkpoint_fn"]
