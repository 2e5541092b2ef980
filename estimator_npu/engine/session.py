"""``Session``: runs parts of a graph through cached execution plans.

Each distinct (fetches, fed tensors) signature is compiled once (see ``plan``); later
``run`` calls with the same signature replay the plan. Variable values live in the
session (one ``VarStore`` per variable op), so two sessions on one graph are independent.
"""
import contextlib
import threading
import time

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import _errstate, allocator
from estimator_npu.engine import graph as _graph_mod
from estimator_npu.engine import plan as _plan
from estimator_npu.engine import precision, sparse_tensor
from estimator_npu.engine.dtypes import tf_string_value
from estimator_npu.engine.graph import Operation, Tensor, get_default_graph
from estimator_npu.utils import blas_governor as governor
from estimator_npu.utils import feeds as _feeds, nest, philox, validation


class VarStore:
    """The value of one variable in one session (``None`` until initialized)."""

    __slots__ = ("op", "value")

    def __init__(self, op):
        self.op = op
        self.value = None


def _whole(a):
    """Every element of the float array ``a`` is a finite whole number."""
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.isfinite(a)) and np.all(a == np.trunc(a)))


class _FeedConverter:
    """Checks and converts one fed value against the static dtype/shape of its tensor."""

    __slots__ = ("tensor", "np_dtype", "rank", "known", "label", "ok")

    def __init__(self, tensor):
        self.tensor = tensor
        self.np_dtype = tensor.dtype.np
        dims = tensor.shape.as_list() if tensor.shape.ndims is not None else None
        self.rank = None if dims is None else len(dims)
        self.known = () if dims is None else tuple(
            (i, d) for i, d in enumerate(dims) if d is not None)
        self.label = (f"placeholder '{tensor.op.name}'" if tensor.op.type == "Placeholder"
                      else f"tensor '{tensor.name}'")
        self.ok = None  # the last shape fed as an array of the dtype (checked once)

    def __call__(self, value):
        if type(value) is np.ndarray and value.dtype is self.np_dtype and \
                value.shape == self.ok:  # the steady state of a loop: one comparison
            return value
        a = value if type(value) is np.ndarray else self._asarray(value)
        if a.dtype != self.np_dtype:
            src, dst = a.dtype.kind, self.np_dtype.kind
            if src in "SU" and dst in "iufc":   # numeric text ("5.1"): parsed, as TF does
                try:
                    return self._check_shape(a.astype(self.np_dtype))
                except ValueError as e:
                    if "shape" in str(e):
                        raise
                    raise ValueError(f"Cannot feed value of dtype {a.dtype} for {self.label}, "
                                     f"which has dtype {self.tensor.dtype.name}: {e}") from None
            if src == "O" and dst in "biufc" and type(value) is np.ndarray:
                try:  # a numpy object array of numbers: converted element-wise, as TF does
                    return self._check_shape(a.astype(self.np_dtype))
                except (TypeError, ValueError) as e:
                    if "shape" in str(e):
                        raise
                    raise type(e)(f"Cannot feed value of dtype object for {self.label}, "
                                  f"which has dtype {self.tensor.dtype.name}: {e}") from None
            python_ints = src in "iu" and dst in "iu" and type(value) is not np.ndarray \
                and not isinstance(value, np.generic)   # [1, 2] fed to uint8: range-checked
            if src == "f" and dst in "iu" and _whole(a):
                # ids kept in floats (np.zeros(...) filled with indices): range-checked as
                # ints. Other floats, numpy arrays and Python lists alike, are truncated
                # toward zero as TF1's np.asarray(value, dtype) does (below).
                src = "i"
                python_ints = True
            if (src in "OSU") != (dst in "OSU") or (
                    src not in "OSU" and not np.can_cast(a.dtype, self.np_dtype, "same_kind")
                    and not (src == "b" and dst in "iuf") and not python_ints
                    and not (src == "f" and dst in "iu")):
                raise ValueError(f"Cannot feed value of dtype {a.dtype} for {self.label}, "
                                 f"which has dtype {self.tensor.dtype.name}")
            if src in "iu" and dst in "iu" and a.size:
                self._check_range(a)
            with np.errstate(over="ignore", invalid="ignore"):   # beyond the range: inf
                a = a.astype(self.np_dtype)
        return self._check_shape(a)

    def _check_shape(self, a):
        if self.rank is not None:
            shp = a.shape
            if len(shp) != self.rank or any(shp[i] != d for i, d in self.known):
                raise ValueError(f"Cannot feed value of shape {shp} for {self.label}, which "
                                 f"has shape {self.tensor.shape}")
        if a.dtype is self.np_dtype:
            self.ok = a.shape
        return a

    def _asarray(self, value):
        try:
            a = np.asarray(value)
        except ValueError as e:
            ragged = validation.ragged_description(value)
            if ragged is None:
                raise ValueError(f"Cannot feed this value for {self.label}: its elements "
                                 f"have different shapes ({e})") from None
            raise ValueError(f"Cannot feed a ragged value for {self.label}: {ragged}; every "
                             f"row of a tensor must have the same length.") from None
        if a.dtype.kind != "O":
            return a
        found, leaf = validation.unconvertible_leaf(value)
        if found:
            raise TypeError(f"Cannot feed a value of type {type(value).__name__} for "
                            f"{self.label}" + ("" if leaf is value else
                                               f": it holds a {type(leaf).__name__} value") +
                            "; feed numbers, booleans, strings or numpy arrays.")
        if self.np_dtype.kind not in "OSU":
            raise ValueError(f"Cannot feed value {value!r:.80} for {self.label}, which has "
                             f"dtype {self.tensor.dtype.name}: an integer out of range or a "
                             f"mix of types.")
        return a

    def _check_range(self, a):
        info = np.iinfo(self.np_dtype)
        lo, hi = a.min(), a.max()
        if lo < info.min or hi > info.max:
            bad = lo if lo < info.min else hi
            raise ValueError(f"Cannot feed value {int(bad)} for {self.label}: it is outside the "
                             f"range of {self.tensor.dtype.name} [{info.min}, {info.max}].")


_local = threading.local()
# A text stream: every plan ``Session.run`` compiles is printed there (``explain`` CLI).
EXPLAIN_TO = None


def _session_stack():
    st = getattr(_local, "stack", None)
    if st is None:
        st = _local.stack = []
    return st


def get_default_session():
    st = _session_stack()
    return st[-1] if st else None


def get_default_session_or_raise():
    s = get_default_session()
    if s is None:
        raise ValueError("Cannot evaluate tensor using `eval()` or `run()`: No default session "
                         "is registered. Use `with sess.as_default()` or pass session=sess.")
    return s


def _governed(plan, gov, args):
    """Runs ``plan`` with the thread setting its governor chooses and times the call."""
    governor.apply(gov.current())
    t0 = time.perf_counter()
    out = plan.fn(*args)
    gov.record(time.perf_counter() - t0)
    if gov.retired:
        plan.governor = None
        governor.apply(0)
    return out


def _fetch_key(fetches):
    t = type(fetches)
    if t is Operation or t is Tensor:
        return fetches
    if t is list or t is tuple:
        try:
            k = (t,) + tuple(fetches)
            hash(k)
            return k
        except TypeError:
            pass
    elif t is not dict and not isinstance(fetches, (tuple, list, dict)):
        try:
            hash(fetches)
            return fetches
        except TypeError:
            pass
    flat, _ = nest.flatten_with_packer(fetches)
    return ("nested", repr(_structure_sig(fetches)), tuple(flat))


def _structure_sig(x):
    if isinstance(x, dict):
        return ("d", tuple((k, _structure_sig(x[k])) for k in sorted(x)))
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("nt", type(x).__name__, tuple(_structure_sig(v) for v in x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_structure_sig(v) for v in x))
    return "."


def _precision_mode(config):
    """The ``precision_mode`` of the config's ``NpuOptimizer`` entry (``None`` if unset)."""
    from estimator_npu.engine import config_pb
    if not isinstance(config, config_pb.ConfigProto):
        return None
    mode = config_pb.npu_settings(config).get("precision_mode")
    if mode is not None and mode not in precision.PRECISION_MODES:
        raise ValueError(f"precision_mode must be one of {precision.PRECISION_MODES}, got "
                         f"{mode!r}")
    return mode


class Session:
    """Runs fetches of a graph: ``Session(graph=None, config=None)``.

    Example::

        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            loss_value = sess.run(loss, feed_dict={x: batch})
    """

    def __init__(self, target="", graph=None, config=None):
        allocator.retain_freed_memory()  # once per process: see engine/allocator.py
        self._graph = graph if graph is not None else get_default_graph()
        self._config = config
        self._stores = {}
        self._rngs = {}
        self._resources = {}
        self._resource_lock = threading.RLock()
        self._plans = {}
        self._last_plan = None  # the plan run last (its kept buffers go on a switch)
        self._closed = False
        self._context = None
        self.precision_mode = _precision_mode(config)
        self.float_status = precision.FloatStatus()  # the overflow register (saturation)
        self.compile_count = 0
        self.sess_str = target

    # ----- the runtime interface that kernels see -----
    @property
    def session(self):
        return self

    def store(self, var_op):
        """The ``VarStore`` holding the value of variable op ``var_op`` in this session."""
        s = self._stores.get(var_op)
        if s is None:  # setdefault: threads compiling plans at once get the same store
            s = self._stores.setdefault(var_op, VarStore(var_op))
        return s

    def rng(self, op):
        """A numpy ``Generator`` for a random op, seeded from its (graph, op) seeds."""
        r = self._rngs.get(op)
        if r is None:
            seed = op.attrs.get("seed2")
            r = self._rngs.setdefault(op, np.random.default_rng(seed))
        return r

    def philox(self, op):
        """TF's generator of a random op, kept across runs as TF's kernel keeps it."""
        r = self._rngs.get((op, "philox"))
        if r is None:
            r = self._rngs.setdefault((op, "philox"),
                                      philox.Stream(*(op.attrs.get("seed2") or (0, 0))))
        return r

    def resource(self, key, factory):
        """A per-session resource (iterator state, ...) created on first use."""
        r = self._resources.get(key)
        if r is None:
            with self._resource_lock:  # one resource per key, whichever thread asks first
                r = self._resources.get(key)
                if r is None:
                    r = self._resources[key] = factory()
        return r

    def resources_of(self, kind):
        """``{name: resource}`` of the per-session resources keyed ``(kind, name)``."""
        return {k[1]: r for k, r in list(self._resources.items())
                if isinstance(k, tuple) and len(k) == 2 and k[0] == kind}

    def compile(self, targets, feeds=()):
        """Compiles (or returns the cached) plan for ``targets`` given ``feeds``."""
        key = (tuple(targets), tuple(feeds))
        p = self._plans.get(key)
        if p is None:
            self.compile_count += 1
            p = self._plans[key] = _plan.compile_plan(self, list(targets), list(feeds))
        return p

    # ----- public API -----
    @property
    def graph(self):
        return self._graph

    @property
    def graph_def(self):
        """The session graph's ``GraphDef`` (TF1 ``sess.graph_def``)."""
        return self._graph.as_graph_def()

    @property
    def config(self):
        return self._config

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops needed for ``fetches`` and returns their values in the same structure.

        Args:
            fetches: a Tensor, Operation, Variable, tensor name, or any nesting of them in
                lists, tuples, dicts and namedtuples. Operations fetch ``None``.
            feed_dict: maps tensors (usually placeholders) or their names to values.

        Raises:
            ValueError: a fed value has the wrong shape or dtype.
            errors.InvalidArgumentError: a needed placeholder was not fed.
            errors.FailedPreconditionError: a needed variable is not initialized.
            RuntimeError: the session is closed.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if feed_dict is not None and type(feed_dict) is not dict and not hasattr(
                feed_dict, "items"):
            raise TypeError(f"feed_dict must be a dict mapping tensors to values, got "
                            f"{type(feed_dict).__name__}")
        for k in feed_dict or ():
            if type(k) is not Tensor:  # a tuple or SparseTensor key stands for several
                feed_dict = _feeds.expand_tuple_keys(feed_dict)
                break
        key = (_fetch_key(fetches), frozenset(feed_dict) if feed_dict else None)
        try:
            entry = self._plans.get(key)
        except TypeError:  # an unhashable fetch (a numpy array): _resolve names it
            self._compile_run(fetches, feed_dict)
            raise
        if entry is None:
            entry = self._plans[key] = self._compile_run(fetches, feed_dict)
        plan, convs, pack = entry
        if convs:
            try:
                args = [c(feed_dict[k]) for k, c in convs]
            except KeyError as e:  # pragma: no cover - keys are in the signature
                raise ValueError(f"Missing feed for {e}") from None
        else:
            args = ()
        if not plan.checked:
            plan.check_initialized()
        if plan is not self._last_plan:
            self._switch_to(plan)
        # Kernels follow IEEE semantics silently, as TF does: log(0) is -inf, 0/0 NaN.
        token = _errstate.ignore()
        gov = plan.governor
        self.float_status.overflow = False  # each run starts with a clear overflow register
        try:
            if gov is None:
                out = plan.fn(*args)
            else:
                out = _governed(plan, gov, args)
        except Exception as exc:  # noqa: BLE001 - re-raised with the failing op named
            _plan.reraise_from_plan(plan, exc)
        finally:
            _errstate.restore(token)
        if True in plan.fetch_alias:
            # a fetched variable is a copy; a 0-d one a numpy scalar, as TF returns
            out = [(v[()] if v.ndim == 0 else np.array(v))
                   if a and isinstance(v, np.ndarray) else v
                   for v, a in zip(out, plan.fetch_alias)]
        return pack(out)

    def _switch_to(self, plan):
        """Fetch sets run in turn (a GAN's train ops): the plan run before drops what it
        keeps between runs, so peak memory is the largest plan's, not the sum."""
        last, self._last_plan = self._last_plan, plan
        if last is not None and last.release is not None:
            last.release()

    def _resolve(self, x):
        g = self._graph
        if isinstance(x, (Tensor, Operation)):
            if x.graph is not g:
                raise ValueError(f"Fetch argument {x.name} is not an element of this graph.")
            return x
        if isinstance(x, str):
            return g.as_graph_element(x)
        conv = getattr(x, "_as_graph_element", None)
        if conv is not None:
            return conv()
        if x is None:
            raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
        raise TypeError(f"Fetch argument {x!r} has invalid type {type(x)}, must be a string "
                        "or Tensor or Operation.")

    def _compile_run(self, fetches, feed_dict):
        flat, pack = nest.flatten_with_packer(sparse_tensor.as_fetch_structure(fetches))
        targets = [self._resolve(x) for x in flat]
        feeds = []
        convs = []
        if feed_dict is not None and not hasattr(feed_dict, "items"):
            raise TypeError(f"feed_dict must be a dict mapping tensors to values, got "
                            f"{type(feed_dict).__name__}")
        for k in (feed_dict or {}):
            if not isinstance(k, (Tensor, str)) and getattr(k, "_as_graph_element",
                                                            None) is None:
                raise TypeError(f"feed_dict key {k!r:.80} has invalid type "
                                f"{type(k).__name__}: a key must be a Tensor (usually a "
                                f"placeholder) or a tensor name.")
            t = self._resolve(k)
            if isinstance(t, Operation):
                raise TypeError(f"Cannot feed operation {t.name}; feed keys must be tensors.")
            feeds.append(t)
            convs.append((k, _FeedConverter(t)))
        self.compile_count += 1
        plan = _plan.compile_plan(self, targets, feeds)
        if EXPLAIN_TO is not None:  # ``estimator-npu explain``: show each new plan once
            names = ", ".join(getattr(t, "name", "?") for t in targets)
            print(f"# ---- plan for fetches [{names}]", file=EXPLAIN_TO)
            print(_plan.explain(self, plan), file=EXPLAIN_TO)
        # a plan that may wait for input (a queue's dequeue) is not timed: its waits
        # would read as slowness and steer the thread setting (``queues`` marks them)
        waits = any(op.attrs.get("waits_for_input") for op in plan.ops)
        plan.governor = None if waits else governor.for_plan()
        fed = set(feeds)
        strs = [i for i, t in enumerate(targets) if isinstance(t, Tensor)
                and t.dtype.name == "string" and t not in fed]
        if strs:  # TF returns string tensors as bytes (0-d) or object arrays of bytes
            def pack(out, inner=pack, strs=frozenset(strs)):
                return inner([tf_string_value(v) if i in strs else v
                              for i, v in enumerate(out)])
        # as TF: a computed 0-d result is a numpy scalar (np.float32, np.bool_, ...) whatever
        # the kernel returned; a fetched feed stays the fed array
        scalars = tuple((i, t.dtype.as_numpy_dtype) for i, t in enumerate(targets) if i not in
                        strs and isinstance(t, Tensor) and t not in fed and t.shape.ndims in
                        (None, 0) and t.dtype.as_numpy_dtype is not np.object_)
        if scalars:
            def pack(out, inner=pack, scalars=scalars, kinds=(np.ndarray, np.generic, float, int)):
                out = list(out)
                for i, dtype in scalars:
                    v = out[i]
                    if type(v) is not dtype and isinstance(v, kinds) and not np.ndim(v):
                        out[i] = np.asarray(v, dtype)[()]
                return inner(out)
        return plan, convs, pack

    def explain(self, fetches, feed_dict=None, file=None):
        """Prints (and returns) the execution plan ``run(fetches, feed_dict)`` replays.

        Each line is one kernel call named after its op, with a ``# OpType op/name``
        comment; the plans of cond branches, loop bodies and the device loop follow,
        indented. Nothing runs: only the plan is compiled (and cached, as ``run`` would).
        """
        fkey = _fetch_key(fetches)
        key = (fkey, frozenset(feed_dict) if feed_dict else None)
        entry = self._plans.get(key)
        if entry is None:
            entry = self._plans[key] = self._compile_run(fetches, feed_dict)
        text = _plan.explain(self, entry[0])
        print(text, file=file)
        return text

    def make_callable(self, fetches, feed_list=None):
        """Returns ``f(*feed_values)`` equivalent to ``run(fetches, dict(zip(feed_list, ..)))``."""
        feed_list = list(feed_list or [])

        def call(*values):
            return self.run(fetches, dict(zip(feed_list, values)))
        return call

    def close(self):
        self._closed = True
        # A closed session runs nothing: drop its compiled plans now, with the work
        # buffers their kernels keep (a whole-test-set evaluation's hold hundreds of MB),
        # rather than whenever the garbage collector breaks the plan -> session cycle.
        self._plans.clear()
        self._last_plan = None
        for r in list(self._resources.values()):  # queues wake their blocked threads
            close = getattr(r, "close", None)
            if close is not None:
                close()
        self._resources.clear()

    @contextlib.contextmanager
    def as_default(self):
        st = _session_stack()
        st.append(self)
        try:
            yield self
        finally:
            st.remove(self)

    def __enter__(self):
        self._context = contextlib.ExitStack()  # as TF1, g is the default graph inside too
        self._context.enter_context(self._graph.as_default())
        self._context.enter_context(self.as_default())
        return self

    def __exit__(self, *exc):
        self._context.__exit__(*exc)
        self._context = None
        self.close()
        return False

    def list_devices(self):
        return []


class InteractiveSession(Session):
    """A session that installs itself as the default session on construction."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        _session_stack().append(self)
        for stack in (_graph_mod._default_graph_stack, _graph_mod.unnested_defaults):
            stack.append(self._graph)  # TF1: its graph is the default graph too (unnested)
        self._graph_installed = True

    def close(self):
        super().close()
        st = _session_stack()
        if self in st:
            st.remove(self)
        if self.__dict__.pop("_graph_installed", False):
            for stack in (_graph_mod.unnested_defaults, _graph_mod._default_graph_stack):
                if self._graph in stack:
                    stack.remove(self._graph)
