"""The dataflow graph: ``Graph``, ``Operation`` and ``Tensor``.

A graph is a list of operations. Each operation has a registered type (see
``registry``), input tensors, control inputs, constant attributes and output
tensors whose static shape and dtype are decided when the op is built::

    g = Graph()
    with g.as_default():
        x = placeholder(float32, [None, 3])
        y = x * 2.0          # an Operation of type "Mul"; y is its output 0
    y.name                   # "mul:0"

Graphs know nothing about values: a ``Session`` compiles parts of a graph into
execution plans and holds variable values.
"""
import contextlib
import re
import threading

from estimator_npu.engine import dtypes as _dtypes
from estimator_npu.engine.device_spec import DeviceSpec
from estimator_npu.engine.shape import TensorShape, as_shape


class GraphKeys:
    """Standard collection names (TF1 ``tf.GraphKeys``)."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    MODEL_VARIABLES = "model_variables"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    SUMMARIES = "summaries"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    GLOBAL_STEP = "global_step"
    TRAIN_OP = "train_op"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    SAVERS = "savers"
    METRIC_VARIABLES = "metric_variables"
    QUEUE_RUNNERS = "queue_runners"
    ITERATOR_INITIALIZERS = "iterator_initializers"
    # The rest of TF1's names (layers libraries such as tf_slim file variables under them).
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    EVAL_STEP = "eval_step"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    CONCATENATED_VARIABLES = "concatenated_variables"
    ASSET_FILEPATHS = "asset_filepaths"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    SAVEABLE_OBJECTS = "saveable_objects"
    TABLE_INITIALIZERS = "table_initializer"


class Tensor:
    """A symbolic handle to one output of an ``Operation``."""

    __slots__ = ("op", "value_index", "dtype", "_shape", "__weakref__")
    # Make numpy defer to our operators (``np.ones(3) + t`` builds an op).
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype, shape):
        self.op = op
        self.value_index = value_index
        self.dtype = dtype
        self._shape = shape

    @property
    def name(self):
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self):
        return self.op.graph

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(shape)

    @property
    def device(self):
        return ""

    def consumers(self):
        return [op for op in self.op.graph.get_operations() if self in op.inputs]

    def eval(self, feed_dict=None, session=None):
        """Evaluates this tensor in ``session`` (default: the default session)."""
        from estimator_npu.engine.session import get_default_session_or_raise
        return (session or get_default_session_or_raise()).run(self, feed_dict)

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self.dtype.name}>"

    # hash and == are object identity, as TF1's: object's own, whose hash runs in C (a
    # Python-level __hash__ cost ~0.1 µs per dict lookup on the session's hot path)
    def __bool__(self):
        raise TypeError("Using a tf.Tensor as a Python bool is not allowed; use tf.cond / "
                        "tf.where or evaluate the tensor first.")

    def __iter__(self):
        raise TypeError("Tensor objects are only iterable when eager execution is enabled; "
                        "use tf.unstack or index with t[i].")

    def __len__(self):
        raise TypeError(f"len is not well defined for symbolic Tensor {self.name}; "
                        "use tf.shape(t)[0].")

    # Operator overloads: defined in ``ops.overloads`` to keep this module free of math.
    def __add__(self, o): return _ov().add(self, o, name="add")
    def __radd__(self, o): return _ov().add(o, self, name="add")
    def __sub__(self, o): return _ov().subtract(self, o, name="sub")
    def __rsub__(self, o): return _ov().subtract(o, self, name="sub")
    def __mul__(self, o): return _ov().multiply(self, o, name="mul")
    def __rmul__(self, o): return _ov().multiply(o, self, name="mul")
    def __truediv__(self, o): return _ov().divide(self, o, name="truediv")
    def __rtruediv__(self, o): return _ov().divide(o, self, name="truediv")
    def __floordiv__(self, o): return _ov().floordiv(self, o)
    def __rfloordiv__(self, o): return _ov().floordiv(o, self)
    def __mod__(self, o): return _ov().floormod(self, o)
    def __pow__(self, o): return _ov().pow(self, o)
    def __rpow__(self, o): return _ov().pow(o, self)
    def __matmul__(self, o): return _ov().matmul(self, o)
    def __rmatmul__(self, o): return _ov().matmul(o, self)
    def __neg__(self): return _ov().negative(self)
    def __abs__(self): return _ov().abs(self)
    def __lt__(self, o): return _ov().less(self, o)
    def __le__(self, o): return _ov().less_equal(self, o)
    def __gt__(self, o): return _ov().greater(self, o)
    def __ge__(self, o): return _ov().greater_equal(self, o)
    def __and__(self, o): return _ov().logical_and(self, o)
    def __or__(self, o): return _ov().logical_or(self, o)
    def __invert__(self): return _ov().logical_not(self)
    def __getitem__(self, key): return _ov().getitem(self, key)


def _ov():
    from estimator_npu.engine.ops import overloads
    return overloads


class Operation:
    """A node of the graph: a registered op type applied to input tensors."""

    def __init__(self, graph, name, op_type, inputs, attrs, control_inputs):
        self.graph = graph
        self.name = name
        self.type = op_type
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.control_inputs = list(control_inputs)
        self.outputs = ()
        self._id = None
        self._frame = None  # the subgraph trace frame the op was built in (None: top level)

    @property
    def node_def(self):
        """The op's ``NodeDef`` proto, as ``as_graph_def()`` writes it (TF's type)."""
        from estimator_npu.engine.graph_def import op_to_nodes
        return op_to_nodes(self)[-1]

    @property
    def device(self):
        """The device the ``tf.device`` scopes gave a variable's op (else ``""``)."""
        return self.__dict__.get("_device", "")

    def get_attr(self, name):
        return self.attrs[name]

    def _add_control_input(self, op):
        self.graph._check_not_finalized()
        if op not in self.control_inputs:
            self.control_inputs.append(op)

    def run(self, feed_dict=None, session=None):
        """Runs this operation in ``session`` (default: the default session)."""
        from estimator_npu.engine.session import get_default_session_or_raise
        (session or get_default_session_or_raise()).run(self, feed_dict)

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


class Graph:
    """A TF1-style dataflow graph with name scopes, collections and control dependencies."""
    capture_foreign = None   # tensor of another graph -> one of this graph (create_op)

    def __init__(self):
        self._ops = []
        self._ops_by_name = {}
        self._names_in_use = {}
        self._name_stack = ""
        self._control_stack = []
        self._collections = {}
        self._finalized = False
        self._lock = threading.RLock()
        self.seed = None
        self._var_scope_stack = []
        self._var_store = {}
        self._version = 0
        self._rewrites = []  # graph rewrite passes applied at plan compilation
        self._frames = []  # open subgraph traces (see ``subgraph``), innermost last

    # ----- building -----
    @property
    def finalized(self):
        return self._finalized

    def finalize(self):
        """Makes the graph read-only: any later change raises ``RuntimeError``."""
        self._finalized = True

    def _unsafe_unfinalize(self):
        self._finalized = False

    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    @property
    def version(self):
        return self._version

    def unique_name(self, name, mark_as_used=True):
        """Returns ``name`` prefixed by the name scope and made unique (``a``, ``a_1`` ...)."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = name
            while True:
                name = f"{base}_{i}"
                if name.lower() not in self._names_in_use:
                    break
                i += 1
            if mark_as_used:
                self._names_in_use[name.lower()] = 1
        return name

    def get_name_scope(self):
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name):
        """Pushes a name scope; ``None``/"" resets to the root, a trailing "/" reuses as is."""
        old = self._name_stack
        if name is None or name == "":
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            new = self.unique_name(name)
        self._name_stack = new
        try:
            yield (new + "/") if new else ""
        finally:
            self._name_stack = old

    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Records the device of the variables made inside (``Variable.device``: a string,
        or a function of the variable's op); nothing is placed, all runs on the host.
        ``Saver(sharded=True)`` writes one data file per device, as TF."""
        stack = self.__dict__.setdefault("_device_stack", [])
        stack.append(device_name_or_function)
        try:
            yield
        finally:
            stack.pop()

    def _device_of(self, op):
        """The device the open ``device`` scopes give ``op``, as TF applies them: innermost
        first, a string filling in only the fields the inner scopes left unset, a function
        seeing the device so far as ``op.device``; ``device(None)`` stops the walk."""
        for spec in reversed(self.__dict__.get("_device_stack", ())):
            if spec is None:
                break
            if callable(spec):
                spec = spec(op)
            else:
                spec = DeviceSpec.from_string(spec).make_merged_spec(
                    DeviceSpec.from_string(op.device))
            op._device = getattr(spec, "to_string", lambda: spec or "")()
        return op.device

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created in this context run after ``control_inputs`` (``None`` clears)."""
        if control_inputs is None:
            saved = self._control_stack
            self._control_stack = []
            try:
                yield
            finally:
                self._control_stack = saved
            return
        ops = []
        for c in control_inputs:
            c = _as_op(c)
            if c.graph is not self:
                raise ValueError(f"Control input {c.name} is from a different graph.")
            ops.append(c)
        self._control_stack.append(ops)
        try:
            yield
        finally:
            self._control_stack.pop()

    def create_op(self, op_type, inputs, attrs=None, out_specs=(), name=None,
                  control_inputs=()):
        """Adds an operation; ``out_specs`` is a list of ``(dtype, shape)`` per output."""
        from estimator_npu.engine import registry
        self._check_not_finalized()
        registry.get(op_type)  # raises for unregistered types
        if self.capture_foreign is not None:   # a dataset function's graph: outer constants
            inputs = [self.capture_foreign(t) if isinstance(t, Tensor) and t.graph is not self
                      else t for t in inputs]
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TypeError(f"Input to {op_type} must be a Tensor, got {type(t).__name__}")
            if t.graph is not self:
                other = next((x for x in inputs if isinstance(x, Tensor) and x.graph is self),
                             None)
                where = (f"as Tensor {other.name}, its other input" if other is not None
                         else "in which the op is being created (the default graph)")
                raise ValueError(f"Tensor {t.name} must be from the same graph {where}: "
                                 f"{op_type} op {name or op_type!r} cannot mix tensors of two "
                                 f"graphs.")
        trace_frame = self._frames[-1] if self._frames else None
        if trace_frame is not None:
            # Inside a branch or loop body: outer tensors become explicit captures.
            inputs = [trace_frame.resolve(t) for t in inputs]
        with self._lock:
            if name and name.endswith("/"):
                name = name[:-1]  # an exact name, already reserved by a name scope
                if name in self._ops_by_name:
                    raise ValueError(f"Duplicate op name {name!r}")
            else:
                name = self.unique_name(name or _default_name(op_type))
            ctrl = []
            for frame in self._control_stack:
                for c in frame:
                    if c not in ctrl:
                        ctrl.append(c)
            for c in control_inputs:
                c = _as_op(c)
                if c not in ctrl:
                    ctrl.append(c)
            op = Operation(self, name, op_type, inputs, dict(attrs or {}), ctrl)
            op._frame = trace_frame
            overrides = getattr(self, "_gradient_overrides", None)
            if overrides and op_type in overrides:
                op._gradient_op_type = overrides[op_type]   # see gradient_override.py
            op.outputs = tuple(Tensor(op, i, _dtypes.as_dtype(dt), as_shape(shp))
                               for i, (dt, shp) in enumerate(out_specs))
            op._id = len(self._ops)
            self._ops.append(op)
            self._ops_by_name[name] = op
            self._version += 1
        return op

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Ops of the types in ``op_type_map`` created inside use the gradient registered
        (``RegisterGradient``) under the mapped name (``engine/gradient_override.py``)."""
        if not isinstance(op_type_map, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()):
            raise TypeError("gradient_override_map: op_type_map must be a dict of op type "
                            f"strings to gradient names, got {op_type_map!r}")
        saved = getattr(self, "_gradient_overrides", None)
        self._gradient_overrides = dict(saved or {}, **op_type_map)
        try:
            yield
        finally:
            self._gradient_overrides = saved

    @contextlib.contextmanager
    def _outside_subgraphs(self):
        """Builds ops at the top level even inside a branch or loop body (TF1's
        ``init_scope``: variable initializers are lifted out of control flow)."""
        saved, self._frames = self._frames, []
        try:
            with self.control_dependencies(None):
                yield
        finally:
            self._frames = saved

    # ----- lookup -----
    def get_operations(self):
        return list(self._ops)

    def as_graph_def(self, from_version=None, add_shapes=False):
        """This graph as a TF ``GraphDef`` protobuf (see ``engine.graph_def``)."""
        from estimator_npu.engine.graph_def import graph_to_graph_def
        return graph_to_graph_def(self, add_shapes=add_shapes)

    def get_operation_by_name(self, name):
        try:
            return self._ops_by_name[name]
        except KeyError:
            skipped = getattr(self, "_skipped_imports", {}).get(name)
            why = (f" (left out on import: it is, or depends on, an op of type {skipped!r}, "
                   "which import_graph_def cannot rebuild here)") if skipped else ""
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph."
                           f"{why}") from None

    def get_tensor_by_name(self, name):
        if ":" not in name:
            raise ValueError(f"The name '{name}' looks like an Operation name, not a Tensor "
                             "name; tensor names look like '<op_name>:<output_index>'.")
        op_name, idx = name.rsplit(":", 1)
        op = self.get_operation_by_name(op_name)
        try:
            return op.outputs[int(idx)]
        except (IndexError, ValueError):
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist; "
                           f"operation '{op_name}' has {len(op.outputs)} outputs.") from None

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                return self.get_tensor_by_name(obj)
            if allow_operation:
                return self.get_operation_by_name(obj)
        if isinstance(obj, (Tensor, Operation)):
            return obj
        conv = getattr(obj, "_as_graph_element", None)
        if conv is not None:
            return conv()
        raise TypeError(f"Can not convert a {type(obj).__name__} into a Tensor or Operation.")

    # ----- collections -----
    def add_to_collection(self, name, value):
        self._check_not_finalized()
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        for n in ([names] if isinstance(names, str) else set(names)):
            self.add_to_collection(n, value)

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        items = list(self._collections.get(name, []))
        if scope is None:
            return items
        pat = re.compile(scope)
        return [i for i in items if pat.match(getattr(i, "name", "") or "")]

    def clear_collection(self, name):
        self._collections.pop(name, None)

    def get_all_collection_keys(self):
        return [k for k, v in self._collections.items() if v]

    # ----- default graph -----
    @contextlib.contextmanager
    def as_default(self):
        _default_graph_stack.append(self)
        try:
            yield self
        finally:
            _default_graph_stack.remove(self)

    def __repr__(self):
        return f"<estimator_npu.Graph with {len(self._ops)} ops>"


def _default_name(op_type):
    """TF's default op name: the op type (``MatMul``, ``Relu``, ``Conv2D``)."""
    return op_type


def _as_op(x):
    if isinstance(x, Operation):
        return x
    if isinstance(x, Tensor):
        return x.op
    conv = getattr(x, "op", None)
    if isinstance(conv, Operation):
        return conv
    raise TypeError(f"Control input must be an Operation or Tensor, got {type(x).__name__}")


_global_default_graph = [Graph()]
_default_graph_stack = []
unnested_defaults = []  # InteractiveSession graphs: reset_default_graph() drops them


def get_default_graph():
    """Returns the innermost graph of ``as_default()`` contexts, or the global default graph."""
    if _default_graph_stack:
        return _default_graph_stack[-1]
    return _global_default_graph[0]


def reset_default_graph():
    """Replaces the global default graph with a new empty one."""
    if len(_default_graph_stack) > len(unnested_defaults):
        raise AssertionError("Do not use reset_default_graph() inside a graph.as_default() "
                             "context.")
    del _default_graph_stack[:], unnested_defaults[:]
    _global_default_graph[0] = Graph()


def name_scope(name, default_name=None, values=None):
    """``tf.name_scope`` on the default graph (or the graph of ``values``)."""
    g = get_default_graph()
    return g.name_scope(name if name is not None else default_name)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(name, scope=None):
    return get_default_graph().get_collection(name, scope)


def get_collection_ref(name):
    return get_default_graph().get_collection_ref(name)


def set_random_seed(seed):
    """Sets the graph-level random seed of the default graph."""
    get_default_graph().seed = None if seed is None else int(seed)
