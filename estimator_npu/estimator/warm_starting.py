"""Warm start: initialize some variables from another model's checkpoint (fine-tuning).

    ws = WarmStartSettings("pretrained_dir", vars_to_warm_start="hidden.*")
    est = Estimator(model_fn, model_dir, warm_start_from=ws)   # or warm_start_from=dir

Warm-starting happens in the scaffold's ``init_fn``, which runs only when the session is
not restored from a checkpoint: once ``model_dir`` has a checkpoint of its own, that
checkpoint wins and the pretrained values are not loaded again.

Which variables (TF1's rules): a regex string selects TRAINABLE variables whose name
matches it from the start; a list selects, per item, GLOBAL variables matching a regex
string, or the given ``Variable``; ``None`` selects none. Each selected variable is loaded
from the checkpoint tensor of the same name, or of ``var_name_to_prev_var_name[name]``.
"""
import collections
import os
import re

from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.engine.shape import TensorShape
from estimator_npu.train import checkpoint_io
from estimator_npu.train.saver import install
from estimator_npu.utils import logging


class WarmStartSettings(collections.namedtuple("WarmStartSettings", [
        "ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info",
        "var_name_to_prev_var_name"])):
    """Where to warm-start from and which variables.

    Args:
        ckpt_to_initialize_from: a checkpoint directory (its latest checkpoint) or prefix.
        vars_to_warm_start: a regex (TRAINABLE variables), a list of regexes (GLOBAL
            variables) and/or ``Variable``s, or ``None``. Default ``".*"``.
        var_name_to_vocab_info: not supported (must be empty).
        var_name_to_prev_var_name: ``{name in this model: name in the checkpoint}``.

    Raises:
        TypeError, ValueError: arguments of the wrong type, or vocabulary remapping.
    """

    __slots__ = ()

    def __new__(cls, ckpt_to_initialize_from, vars_to_warm_start=".*",
                var_name_to_vocab_info=None, var_name_to_prev_var_name=None):
        if not isinstance(ckpt_to_initialize_from, (str, os.PathLike)) or not os.fspath(
                ckpt_to_initialize_from):
            raise ValueError("ckpt_to_initialize_from must be a non-empty checkpoint path or "
                             f"directory, got {ckpt_to_initialize_from!r}")
        if not (vars_to_warm_start is None or isinstance(vars_to_warm_start, str) or (
                isinstance(vars_to_warm_start, (list, tuple)) and all(
                    isinstance(v, (str, Variable)) for v in vars_to_warm_start))):
            raise TypeError("vars_to_warm_start must be a regex string, a list of regex "
                            f"strings and/or Variables, or None; got {vars_to_warm_start!r}")
        patterns = ([vars_to_warm_start] if isinstance(vars_to_warm_start, str)
                    else [v for v in vars_to_warm_start or () if isinstance(v, str)])
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"vars_to_warm_start: {pattern!r} is not a valid regular "
                                 f"expression ({e})") from None
        if var_name_to_vocab_info:
            raise ValueError("var_name_to_vocab_info (vocabulary remapping) is not supported, "
                             f"got {var_name_to_vocab_info!r}")
        if var_name_to_prev_var_name is not None and not isinstance(
                var_name_to_prev_var_name, dict):
            raise TypeError("var_name_to_prev_var_name must be a dict, got "
                            f"{var_name_to_prev_var_name!r}")
        return super().__new__(cls, os.fspath(ckpt_to_initialize_from), vars_to_warm_start,
                               {}, dict(var_name_to_prev_var_name or {}))


def as_warm_start_settings(warm_start_from):
    """``warm_start_from`` (a path or ``WarmStartSettings``) as settings, or ``None``.

    Raises:
        ValueError: neither a path nor ``WarmStartSettings``.
    """
    if warm_start_from is None or isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    if isinstance(warm_start_from, (str, os.PathLike)):
        return WarmStartSettings(ckpt_to_initialize_from=warm_start_from)
    raise ValueError("warm_start_from must be a string path or a WarmStartSettings, got "
                     f"{type(warm_start_from).__name__}: {warm_start_from!r}")


def _checkpoint_path(path):
    if os.path.isdir(path):
        latest = checkpoint_io.latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"warm start: no checkpoint found in directory {path}")
        return latest
    return path


def variables_to_warm_start(vars_to_warm_start, graph=None):
    """The variables selected by ``vars_to_warm_start`` (see the module docstring)."""
    graph = graph or get_default_graph()
    if vars_to_warm_start is None:
        return []
    if isinstance(vars_to_warm_start, str):
        return graph.get_collection(GraphKeys.TRAINABLE_VARIABLES, vars_to_warm_start)
    selected = []
    for item in vars_to_warm_start:
        found = [item] if isinstance(item, Variable) else graph.get_collection(
            GraphKeys.GLOBAL_VARIABLES, item)
        selected.extend(v for v in found if v not in selected)
    return selected


def make_init_fn(settings, graph=None):
    """A scaffold ``init_fn(scaffold, session)`` that applies ``settings``.

    The variables are selected now (while the graph can be read); the checkpoint is read
    when the function runs.
    """
    variables = variables_to_warm_start(settings.vars_to_warm_start, graph)
    prev = settings.var_name_to_prev_var_name

    def init_fn(scaffold, session):
        path = _checkpoint_path(settings.ckpt_to_initialize_from)
        logging.info("Warm-starting from: %s", path)
        reader = checkpoint_io.load_checkpoint(path)
        shapes = reader.get_variable_to_shape_map()
        names = {}
        for var in variables:
            # a part of a partitioned variable is warm-started, by its full name, from
            # its slice of the full tensor (TF groups the parts by full name)
            info = var._save_slice_info
            own = var.op.name if info is None else info.full_name
            name = prev.get(own, own)
            if name not in shapes:
                raise ValueError(f"warm start: variable {own} (checkpoint name "
                                 f"{name!r}) is not in checkpoint {path}"
                                 f"{checkpoint_io.nearest_keys_hint(name, sorted(shapes))}")
            shape = var.shape if info is None else TensorShape(info.full_shape)
            if not shape.is_compatible_with(shapes[name]):
                raise ValueError(f"warm start: variable {own} has shape {shape} "
                                 f"but {name!r} in {path} has shape {list(shapes[name])}")
            names[var] = name
        # one pass over the data files, every checksum checked before any variable
        # changes; the fresh arrays read are installed as the variables' values
        values = reader.read_many(sorted(set(names.values())))
        taken = set()
        for var in variables:
            value = values[names[var]]
            if var._save_slice_info is not None:
                value = value[var._save_slice_info.index()].copy()
            elif id(value) in taken:        # two variables warm-started from one tensor
                value = value.copy()
            taken.add(id(value))
            install(session.store(var.op), value, var.dtype.np)
        if not variables:
            logging.warning("Warm-starting selected no variables (vars_to_warm_start=%r).",
                            settings.vars_to_warm_start)
        logging.info("Warm-started %d variables.", len(variables))

    return init_fn

