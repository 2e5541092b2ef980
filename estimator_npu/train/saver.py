"""``Saver``: saves and restores variables of a session to checkpoint files.

The saver reads and writes each variable's value in the session directly (no graph ops),
so it works on finalized graphs and can restore variables that were never initialized::

    saver = tf.train.Saver(max_to_keep=5)
    path = saver.save(sess, os.path.join(model_dir, "model.ckpt"), global_step=step)
    # -> ".../model.ckpt-100"; files model.ckpt-100.index, .data-00000-of-00001, .meta
    saver.restore(sess, tf.train.latest_checkpoint(model_dir))

Save order: data file, index, meta graph, then the ``checkpoint`` state file, each
atomically (see ``checkpoint_io``); only then are checkpoints beyond ``max_to_keep``
deleted. A save that fails part-way leaves the previous latest checkpoint and the state
file naming it intact. ``restore`` checks every name, shape and dtype, then reads every
tensor once into a fresh array (each checked against its crc32c as it arrives) and swaps
the arrays into the variables only when all of them have passed: a damaged checkpoint
changes no variable, and no other copy of a tensor is made.
"""
import json
import os
import time

import numpy as np

from estimator_npu import errors
from estimator_npu.engine.graph import GraphKeys, Tensor, get_default_graph
from estimator_npu.engine.partitioned import PartitionedVariable
from estimator_npu.engine.shape import TensorShape
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.train import checkpoint_io, recovery, tensor_bundle
from estimator_npu.train.training_util import global_step as _global_step_value
from estimator_npu.utils import logging, validation


def _variable(v):
    if isinstance(v, Variable):
        return v
    if isinstance(v, Tensor) and v.op.type == "VariableV2":
        obj = getattr(v.op, "_variable_object", None)
        if obj is not None:
            return obj
    raise TypeError(f"Saver var_list entries must be Variables, got {type(v).__name__}: {v!r}")


def _raw_session(sess):
    """The ``Session`` holding the variable values (unwraps monitored sessions)."""
    if hasattr(sess, "store"):
        return sess
    raw = getattr(sess, "raw_session", None)
    if raw is not None:
        return raw()
    raise TypeError(f"sess must be a Session, got {type(sess).__name__}")


def _var_dict(var_list):
    """``({checkpoint name: Variable}, {checkpoint name: [part Variables]})``: the whole
    variables and the partitioned ones (parts carry their ``_save_slice_info``; a
    ``PartitionedVariable`` gives its parts; in a list they are grouped by full name)."""
    if var_list is None:
        var_list = get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES)
    items = []
    if isinstance(var_list, dict):
        for k, v in var_list.items():
            validation.check_type("var_list key", k, str)
            if isinstance(v, PartitionedVariable) or isinstance(v, (list, tuple)):
                items += [(k, _variable(p), True) for p in v]
            else:
                v = _variable(v)
                items.append((k, v, v._save_slice_info is not None))
    else:
        if isinstance(var_list, (Variable, Tensor, PartitionedVariable)):
            var_list = [var_list]
        for x in var_list:
            for v in (list(x) if isinstance(x, PartitionedVariable) else [x]):
                v = _variable(v)
                info = v._save_slice_info
                items.append((v.op.name, v, False) if info is None else
                             (info.full_name, v, True))
    out, sliced = {}, {}
    for name, v, is_part in items:
        if is_part:
            if v._save_slice_info is None:
                raise ValueError(f"Saver var_list[{name!r}]: {v.op.name} is not a part of a "
                                 "partitioned variable")
            parts = sliced.setdefault(name, [])
            if v not in parts:
                parts.append(v)
            continue
        if name in out:
            if out[name] is v:
                continue
            raise ValueError(f"At least two variables have the same name: {name}")
        out[name] = v
    for name, parts in sliced.items():
        if name in out:
            raise ValueError(f"At least two variables have the same name: {name}")
        shapes = {tuple(p._save_slice_info.full_shape) for p in parts}
        if len(shapes) > 1:
            raise ValueError(f"The parts of partitioned variable {name} disagree on its "
                             f"full shape: {sorted(shapes)}")
    return out, sliced


def _canonical_device(device):
    """TF's canonical device name (``/cpu:0`` -> ``/device:CPU:0``), the shard key."""
    out = []
    for piece in filter(None, (device or "").split("/")):
        kind, _, index = piece.partition(":")
        if kind.lower() in ("cpu", "gpu", "npu"):
            piece = f"device:{kind.upper()}:{index or 0}"
        elif kind.lower() == "device":
            dk, _, di = index.partition(":")
            piece = f"device:{dk.upper()}:{di or 0}"
        out.append(piece)
    return "/" + "/".join(out) if out else ""


def _save_error(error, path, kept):
    """An ``OSError`` of the same kind naming the file written and the intact checkpoint."""
    target = error.filename or path
    previous = [p for p in kept if p != path]
    intact = (f"the previous checkpoint {previous[-1]} is intact" if previous else
              "no earlier checkpoint of this run was affected")
    new = type(error)(error.errno, f"Saving checkpoint {path} failed while writing "
                      f"{target}: {error.strerror or error}; {intact} (its temporary "
                      f"file was removed)", target)
    return new


def install(store, value, dtype):
    """Makes ``value`` (an array just read from a checkpoint, nobody else's) the value of
    variable store ``store``: as it is when it has the variable's dtype, else converted.
    The variable's previous array is dropped, not written to (fused optimizers that hold
    views of it see the new array and re-pack)."""
    store.value = value if value.dtype == dtype and value.flags.writeable else \
        np.array(value, dtype=dtype)


_ITERATORS = "data.Iterator"      # the session resource kind of the input iterators
_STATE_VERSION = 1


class Saver:
    """Saves and restores variables (TF1 ``tf.train.Saver``).

    Args:
        var_list: variables to save: a list, or a dict ``checkpoint name -> variable``
            (default: all global variables at construction).
        max_to_keep: number of recent checkpoints to keep; ``None`` or 0 keeps every file
            (and the state file then names only the latest).
        keep_checkpoint_every_n_hours: additionally keep one checkpoint per this many
            hours among those ``max_to_keep`` would delete.
        save_relative_paths: write paths relative to the save directory in the state file
            (TF's default: no, the paths as given; the Estimator's saver: yes).
        allow_empty: allow a saver with no variables (``save`` then returns ``None``).
        save_iterator_state: also save the state of the session's started iterators next
            to each checkpoint (``<dir>/.<name>.input_state``), so that training resumed
            by a session creator continues its input exactly (beyond TF; ``False``: TF1).
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None,
                 restore_sequentially=False, saver_def=None, builder=None,
                 defer_build=False, allow_empty=False, write_version=2,
                 pad_step_number=False, save_relative_paths=False, filename=None, *,
                 save_iterator_state=True):
        if max_to_keep is not None:
            validation.check_non_negative_int("max_to_keep", max_to_keep)
        self._max_to_keep = max_to_keep or 0
        self._keep_hours = validation.check_positive_number(
            "keep_checkpoint_every_n_hours", keep_checkpoint_every_n_hours)
        self._save_relative_paths = validation.check_bool("save_relative_paths",
                                                          save_relative_paths)
        self._pad_step_number = bool(pad_step_number)
        self._var_dict, self._sliced = _var_dict(var_list)
        self._sharded = bool(sharded)
        self._allow_empty = allow_empty
        if not self._var_dict and not self._sliced and not allow_empty:
            raise ValueError("No variables to save")
        self._name = name or "save"
        self.save_iterator_state = validation.check_bool("save_iterator_state",
                                                         save_iterator_state)
        self._filename = filename
        self._last_checkpoints = []          # [(prefix, timestamp)], oldest first
        self._next_keep_time = time.time() + self._keep_hours * 3600
        self._last_preserved = 0.0

    # ------------------------------------------------------------------ bookkeeping
    @property
    def last_checkpoints(self):
        """Prefixes of the kept checkpoints, oldest first."""
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        self.set_last_checkpoints_with_time([(p, time.time()) for p in last_checkpoints])

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        self._last_checkpoints = [(p, float(t)) for p, t in last_checkpoints_with_time]

    def recover_last_checkpoints(self, checkpoint_paths):
        """Adopts the existing checkpoints among ``checkpoint_paths`` (so ``max_to_keep``
        also counts the checkpoints of an earlier run)."""
        paths = [p for p in checkpoint_paths if checkpoint_io.checkpoint_exists(p)]
        self.set_last_checkpoints_with_time(
            list(zip(paths, checkpoint_io.get_checkpoint_mtimes(paths))))

    def build(self):
        """No graph is built: kept for TF1 compatibility."""

    def _record(self, path):
        """Adds ``path``; returns the checkpoints that fall out of the kept list."""
        now = time.time()
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != path]
        self._last_checkpoints.append((path, now))
        if not self._max_to_keep:
            # TF1: no file is deleted, and the state file names only the latest.
            self._last_checkpoints = self._last_checkpoints[-1:]
            return []
        drop = self._last_checkpoints[:-self._max_to_keep]
        self._last_checkpoints = self._last_checkpoints[-self._max_to_keep:]
        delete = []
        for p, t in drop:
            if t > self._next_keep_time:
                self._next_keep_time += self._keep_hours * 3600
                self._last_preserved = t
                continue
            delete.append(p)
        return delete

    # ------------------------------------------------------------------ save
    def _variables(self):
        """Every variable saved (the parts of the partitioned ones included)."""
        return list(self._var_dict.values()) + [p for ps in self._sliced.values() for p in ps]

    def _values(self, sess):
        """``({name: array or Slices}, {name: shard}, number of shards)``: with
        ``sharded=True`` one shard per device (sorted canonical device names, as TF: on
        one CPU with no ``tf.device`` that is one), else one."""
        sess = _raw_session(sess)

        def value_of(v):
            if v.graph is not sess.graph:
                raise ValueError(f"Variable {v.op.name} is not an element of the session's "
                                 "graph.")
            value = sess.store(v.op).value
            if value is None:
                raise errors.FailedPreconditionError(
                    None, v.op, f"Attempting to use uninitialized value {v.op.name}")
            return value
        out = {name: value_of(v) for name, v in self._var_dict.items()}
        parts_of = {name: sorted(parts, key=lambda p: p._save_slice_info.var_offset)
                    for name, parts in self._sliced.items()}
        keys = sorted({_canonical_device(v.device) for v in self._variables()}) \
            if self._sharded else [""]

        def shard(v):
            return keys.index(_canonical_device(v.device)) if self._sharded else 0
        for name, parts in parts_of.items():
            out[name] = tensor_bundle.Slices(
                parts[0]._save_slice_info.full_shape,
                [(p._save_slice_info.var_offset, value_of(p)) for p in parts],
                [shard(p) for p in parts])
        if not self._sharded:
            return out, None, 1
        return out, {n: shard(v) for n, v in self._var_dict.items()}, len(keys)

    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        """Saves the variables of ``sess`` to ``<save_path>-<global_step>``.

        Returns:
            The checkpoint prefix written (``None`` for an empty saver).

        Raises:
            ValueError: the parent directory of ``save_path`` does not exist, or
                ``latest_filename`` contains a directory.
            errors.FailedPreconditionError: a variable is not initialized.
        """
        validation.check_type("save_path", save_path, (str, os.PathLike))
        save_path = os.fspath(save_path)
        latest_filename = latest_filename or "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components, got "
                             f"{latest_filename!r}")
        if global_step is not None:
            step = global_step if isinstance(global_step, (int, np.integer)) else \
                _global_step_value(sess, global_step)
            path = f"{save_path}-{int(step):08d}" if self._pad_step_number else \
                f"{save_path}-{int(step)}"
        else:
            path = save_path
        save_dir = os.path.dirname(path)
        if save_dir and not os.path.exists(save_dir) and \
                os.path.isdir(os.path.dirname(save_dir) or "."):
            os.mkdir(save_dir)   # TF's checkpoint writer creates the last directory level
        if save_dir and not os.path.isdir(save_dir):
            if os.path.exists(save_dir):
                raise ValueError(f"Parent of {save_path} is {save_dir}, which is a file, not "
                                 "a directory; can't save.")
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        if not self._var_dict and not self._sliced:
            return None
        recovery.remove_temp_files(save_dir or ".")   # of an interrupted save
        values, shard_of, num_shards = self._values(sess)
        try:
            if num_shards > 1:
                checkpoint_io.write_checkpoint(path, values, shard_of, num_shards)
            else:
                checkpoint_io.write_checkpoint(path, values)
            if write_meta_graph:
                self._write_meta(path + "." + meta_graph_suffix)
            self._write_iterator_state(sess, path)
        except OSError as e:
            raise _save_error(e, path, self.last_checkpoints) from None
        if write_state:
            delete = self._record(path)
            try:
                # as TF1's Saver: paths only, no timestamps (byte-identical state file)
                checkpoint_io.update_checkpoint_state(
                    save_dir or ".", path, self.last_checkpoints, latest_filename,
                    save_relative_paths=self._save_relative_paths)
            except OSError as e:
                self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints
                                          if p != path]
                raise _save_error(e, path, self.last_checkpoints) from None
            for p in delete:
                checkpoint_io.delete_checkpoint(p, meta_graph_suffix)
        return path

    def _write_meta(self, path):
        """Writes the MetaGraphDef; its bytes are reused while the graph is unchanged."""
        from estimator_npu.train import meta_graph
        variables = self._variables()
        graph = variables[0].graph if variables else None
        key = (id(graph), getattr(graph, "_version", None), tuple(
            (k, len(graph.get_collection(k))) for k in graph.get_all_collection_keys()))
        cached = getattr(self, "_meta_cache", None)
        if cached is None or cached[0] != key:
            cached = self._meta_cache = (key, meta_graph.meta_graph_def(graph)
                                         .SerializeToString())
        checkpoint_io.atomic_write(path, [cached[1]])

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False,
                          export_scope=None, clear_devices=False, **kwargs):
        """The ``MetaGraphDef`` of the saver's graph, written to ``filename`` if given."""
        from estimator_npu.train import meta_graph
        variables = self._variables()
        graph = variables[0].graph if variables else None
        return meta_graph.export_meta_graph(filename, graph=graph, as_text=as_text,
                                            collection_list=collection_list)

    def _write_iterator_state(self, sess, path):
        side = checkpoint_io.input_state_path(path)
        saved = None
        if self.save_iterator_state:
            # duck-typed: the data layer's iterator resources know their own state
            iterators = {}
            for name, res in _raw_session(sess).resources_of(_ITERATORS).items():
                state = res.checkpoint_state() if hasattr(res, "checkpoint_state") else None
                if state is not None:
                    iterators[name] = state
            if iterators:
                saved = {"version": _STATE_VERSION, "iterators": iterators}
        if saved is None:
            if os.path.exists(side):
                os.remove(side)     # a stale state of an earlier save of this step
            return
        checkpoint_io.atomic_write(side, [json.dumps(saved, sort_keys=True).encode()])

    def forget_iterator_state(self, checkpoint_dir):
        """Removes the iterator states saved beside the checkpoints of ``checkpoint_dir``
        (a run that completed: the next one restarts its input, as TF1 does, and the
        model_dir holds exactly the files TF writes)."""
        import glob
        for side in glob.glob(os.path.join(glob.escape(os.fspath(checkpoint_dir)),
                                           ".*.input_state")):
            try:
                os.remove(side)
            except FileNotFoundError:
                pass

    def restore_iterator_state(self, sess, save_path):
        """Makes the iterators saved with checkpoint ``save_path`` resume where they were
        when they next start (nothing when disabled or when there is no saved state).

        Returns:
            Whether a saved iterator state was found and applied.
        """
        if not self.save_iterator_state:
            return False
        side = checkpoint_io.input_state_path(save_path)
        try:
            with open(side, "rb") as f:
                saved = json.loads(f.read().decode())
            if not isinstance(saved, dict) or saved.get("version") != _STATE_VERSION:
                raise ValueError(f"unknown version {saved.get('version')!r}")
        except FileNotFoundError:
            return False
        except (OSError, ValueError, AttributeError) as e:
            logging.warning("Ignoring the unreadable iterator state %s (%s); the input "
                            "pipeline restarts from its beginning.", side, e)
            return False
        raw = _raw_session(sess)
        existing = raw.resources_of(_ITERATORS)
        pending = raw.resource(("pending_state", _ITERATORS), dict)
        for name, entry in saved.get("iterators", {}).items():
            if name in existing and hasattr(existing[name], "pending"):
                existing[name].pending = entry
            else:
                pending[name] = entry    # taken by the iterator when it is created
        return True

    def export_meta_graph(self, filename=None, **kwargs):
        """Writes the variable list as JSON to ``filename`` (the graph is not exported)."""
        if filename:
            self._write_meta(filename)

    # ------------------------------------------------------------------ restore
    def restore(self, sess, save_path):
        """Restores every variable of this saver in ``sess`` from ``save_path``.

        Raises:
            ValueError: ``save_path`` is ``None`` or not a checkpoint.
            errors.NotFoundError: a variable is missing from the checkpoint.
            errors.InvalidArgumentError: a shape or dtype differs.
            errors.DataLossError: the checkpoint is corrupted.
        """
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if not checkpoint_io.checkpoint_exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        logging.info("Restoring parameters from %s", save_path)
        reader = checkpoint_io.CheckpointReader(save_path)
        shapes = reader.get_variable_to_shape_map()
        kinds = reader.get_variable_to_dtype_map()
        wanted = [(name, v, v.shape.as_list() if v.shape.ndims is not None else None)
                  for name, v in self._var_dict.items()]
        wanted += [(name, parts[0], parts[0]._save_slice_info.full_shape)
                   for name, parts in self._sliced.items()]
        for name, v, shape in wanted:
            label = name if name in self._var_dict else f"{name} (partitioned)"
            if name not in shapes:
                raise errors.NotFoundError(
                    None, v.op, f"Key {name} not found in checkpoint {save_path} (variable "
                    f"{label}){checkpoint_io.nearest_keys_hint(name, sorted(shapes))}")
            if shape is not None and not TensorShape(shape).is_compatible_with(shapes[name]):
                raise errors.InvalidArgumentError(
                    None, v.op, f"Shape mismatch restoring variable {v.op.name} from "
                    f"checkpoint {save_path}: the graph has shape {shape} and "
                    f"the checkpoint has shape {shapes[name]} (tensor {name})")
            if kinds[name] != v.dtype:
                raise errors.InvalidArgumentError(
                    None, v.op, f"Dtype mismatch restoring variable {v.op.name} from "
                    f"checkpoint {save_path}: the graph has {v.dtype.name} and the "
                    f"checkpoint has {kinds[name].name}")
        sess = _raw_session(sess)
        stores = {name: sess.store(v.op) for name, v in self._var_dict.items()}
        # One read of every byte, into fresh arrays, each checked as it arrives; the
        # arrays are swapped in only once all of them have passed, so a damaged
        # checkpoint leaves every variable as it was. A partitioned variable is read
        # whole (whatever partitioning it was saved with) and each part takes its slice.
        try:
            for name, parts in self._sliced.items():
                for p in parts:
                    reader.check_covered(name, p._save_slice_info.index())
            values = reader.read_many(list(stores) + list(self._sliced))
        finally:
            reader.close()
        for name, store in stores.items():
            install(store, values[name], self._var_dict[name].dtype.np)
        for name, parts in self._sliced.items():
            full = values[name]
            for p in parts:
                install(sess.store(p.op), np.ascontiguousarray(full[p._save_slice_info.index()]),
                        p.dtype.np)

    def as_saver_def(self):
        """A ``SaverDef`` of this saver's settings (V2 format). The tensor and op names
        are TF's conventional ones; this saver does not build those graph nodes."""
        from estimator_npu.engine import tf_protos as pb
        return pb.SaverDef(filename_tensor_name=f"{self._name}/Const:0",
                           save_tensor_name=f"{self._name}/control_dependency:0",
                           restore_op_name=f"{self._name}/restore_all",
                           max_to_keep=self._max_to_keep,
                           keep_checkpoint_every_n_hours=self._keep_hours,
                           sharded=self._sharded, version=2)

    def to_proto(self, export_scope=None):
        return self.as_saver_def()


__all__ = ["Saver", "install"]
