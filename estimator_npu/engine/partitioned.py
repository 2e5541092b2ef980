"""Partitioned variables (TF1's ``get_variable(..., partitioner=...)``).

A partitioner maps ``(shape, dtype)`` to the number of parts along each axis (one axis
only). ``get_variable`` then makes one variable per part, ``<name>/part_<i>``, splitting
the axis as TF does (the first ``size % n`` parts one row longer), and returns a
``PartitionedVariable`` over them::

    emb = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(3))
    [v.op.name for v in emb]          # ['emb/part_0', 'emb/part_1', 'emb/part_2']
    tf.nn.embedding_lookup(emb, ids)  # gathers from the parts ('mod' strategy)
    tf.matmul(x, tf.transpose(emb))   # the parts concatenated (as_tensor)

Each part carries a ``SaveSliceInfo`` (the full name, full shape, the part's offset and
shape): the ``Saver`` writes the full tensor under the full name as slices (TF's
checkpoint layout) and restores each part from the full tensor, whatever the
partitioning it was saved with. Optimizer slots of a part get the slot's slice of the
full slot (``emb/part_0/Adagrad`` is saved as a slice of ``emb/Adagrad``).
"""
from estimator_npu.engine import dtypes
from estimator_npu.engine.shape import TensorShape, as_shape


class PartitionInfo:
    """What an initializer of one part is told: the full shape and the part's offset."""

    def __init__(self, full_shape, var_offset):
        self.full_shape = list(full_shape)
        self.var_offset = list(var_offset)

    def single_offset(self, shape):
        """The offset along the one partitioned axis (0 when none is)."""
        axis = self.single_slice_dim(shape)
        return 0 if axis is None else self.var_offset[axis]

    def single_slice_dim(self, shape):
        """The one axis on which ``shape`` is smaller than the full shape (or ``None``)."""
        dims = [i for i, (s, f) in enumerate(zip(shape, self.full_shape)) if int(s) != f]
        if len(dims) > 1:
            raise ValueError(f"Cannot use single_slice_dim() with shape {list(shape)} of "
                             f"full shape {self.full_shape}: more than one axis is sliced")
        return dims[0] if dims else None


class SaveSliceInfo:
    """Where a part lies in its full variable (TF's ``Variable.SaveSliceInfo``)."""

    def __init__(self, full_name, full_shape, var_offset, var_shape):
        self.full_name = full_name
        self.full_shape = [int(d) for d in full_shape]
        self.var_offset = [int(d) for d in var_offset]
        self.var_shape = [int(d) for d in var_shape]

    @property
    def spec(self):
        """TF's slice spec: ``"10 4 0,4:0,4"`` (full shape, then ``start,length`` each)."""
        full = " ".join(str(d) for d in self.full_shape)
        sl = ":".join(f"{o},{s}" for o, s in zip(self.var_offset, self.var_shape))
        return f"{full} {sl}"

    def index(self):
        """The numpy index of the part in the full value."""
        return tuple(slice(o, o + s) for o, s in zip(self.var_offset, self.var_shape))


def slot_slice_info(primary, slot, slot_name):
    """The ``SaveSliceInfo`` a slot variable of a part gets: its slice of the full slot
    ``<full name>/<slot_name>`` (``None`` when ``primary`` is not a part)."""
    info = getattr(primary, "_save_slice_info", None)
    if info is None:
        return None
    n = slot.shape.ndims if slot.shape.ndims is not None else len(info.full_shape)
    return SaveSliceInfo(info.full_name + "/" + slot_name, info.full_shape[:n],
                         info.var_offset[:n], info.var_shape[:n])


class PartitionedVariable:
    """The parts of one partitioned variable, in order (TF1's ``PartitionedVariable``).

    Iterating gives the part variables; ``as_tensor()`` (also what
    ``convert_to_tensor`` gives) concatenates them along the partitioned axis.
    """

    def __init__(self, name, shape, dtype, variable_list, partitions):
        self._name = name
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._variable_list = list(variable_list)
        self._partitions = [int(p) for p in partitions]

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self):
        return len(self._variable_list)

    def __repr__(self):
        return (f"<PartitionedVariable '{self._name}' shape={self._shape} "
                f"dtype={self._dtype.name} parts={len(self._variable_list)}>")

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def graph(self):
        return self._variable_list[0].graph

    def _get_variable_list(self):
        return list(self._variable_list)

    def _get_partitions(self):
        return list(self._partitions)

    def _partition_axis(self):
        axes = [i for i, p in enumerate(self._partitions) if p > 1]
        return axes[0] if axes else 0

    def as_tensor(self):
        """The full value: the parts concatenated (a new op named after the variable)."""
        from estimator_npu.engine.graph import get_default_graph
        from estimator_npu.engine.ops import array_ops
        from estimator_npu.engine.ops.core import identity
        with get_default_graph().name_scope(None):
            if len(self._variable_list) == 1:
                return identity(self._variable_list[0], name=self._name)
            return array_ops.concat(self._variable_list, self._partition_axis(),
                                    name=self._name)

    def _as_tensor(self):
        return self.as_tensor()

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Assigns the full value (or a list of one per part) part by part, as TF: the
        list of the parts' assign results (their ops when ``read_value`` is false)."""
        from estimator_npu.engine.ops import array_ops, core
        parts, axis = self._variable_list, self._partition_axis()
        if isinstance(value, (list, tuple, PartitionedVariable)):
            values = list(value)
        else:
            value = core.convert_to_tensor(value, dtype=self._dtype)
            if not value.shape.is_compatible_with(self._shape):
                raise ValueError(f"PartitionedVariable {self._name}.assign: value of shape "
                                 f"{value.shape} for a variable of shape {self._shape}")
            values = array_ops.split(value, [int(p.shape[axis]) for p in parts], axis) \
                if len(parts) > 1 else [value]
        if len(values) != len(parts):
            raise ValueError(f"PartitionedVariable {self._name}.assign: {len(values)} values "
                             f"for {len(parts)} parts")
        out = [p.assign(v, use_locking=use_locking, name=name) for p, v in zip(parts, values)]
        return out if read_value else [getattr(t, "op", t) for t in out]


def part_layout(name, shape, partitions):
    """``[(offset, part shape)]`` of the parts of ``shape`` split by ``partitions`` (one
    entry per axis; TF's split: at most one part per row, the first ``size % n`` parts
    one longer).

    Raises:
        ValueError: the partitions do not fit the shape, or split more than one axis.
    """
    shape = [int(d) for d in shape]
    try:
        parts = [int(p) for p in partitions]
    except TypeError:
        raise ValueError(f"Partitioner of variable {name} must return a list of "
                         f"integers, got {partitions!r}") from None
    if len(parts) != len(shape) or any(p < 1 for p in parts):
        raise ValueError(f"Partitioner of variable {name} returned {parts}, expected "
                         f"{len(shape)} positive integers for shape {shape}")
    axes = [i for i, p in enumerate(parts) if p > 1]
    if len(axes) > 1:
        raise ValueError(f"Can only slice a variable along one dimension: variable {name} "
                         f"of shape {shape}, partitioning {parts}")
    axis = axes[0] if axes else 0
    size = shape[axis] if shape else 1
    n = max(1, min(parts[axis], size))      # as TF: no more parts than rows
    out, start = [], 0
    for i in range(n):
        length = size // n + (1 if i < size % n else 0)
        offset = [0] * len(shape)
        part = list(shape)
        if shape:
            offset[axis] = start
            part[axis] = length
        out.append((offset, part))
        start += length
    return out


def make_partitioned(name, shape, dtype, initializer, partitions, make_part):
    """A ``PartitionedVariable`` ``name``: ``make_part(part name, initial value thunk)``
    makes each part variable, initialized with ``initializer(part shape, dtype=...,
    partition_info=PartitionInfo(...))``."""
    shape = TensorShape(shape).as_list()
    parts = []
    for i, (offset, part_shape) in enumerate(part_layout(name, shape, partitions)):
        info = PartitionInfo(shape, offset)

        def initial(part_shape=part_shape, info=info):
            return initializer(part_shape, dtype=dtype, partition_info=info)
        v = make_part(f"{name}/part_{i}", initial)
        v._save_slice_info = SaveSliceInfo(name, shape, offset, part_shape)
        parts.append(v)
    return PartitionedVariable(name, shape, dtype, parts, partitions)


__all__ = ["PartitionedVariable", "PartitionInfo", "SaveSliceInfo", "make_partitioned",
           "part_layout", "slot_slice_info"]
