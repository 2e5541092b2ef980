"""The device loop: run the training iteration ``k`` times per host call.

On an Ascend NPU, ``iterations_per_loop`` makes one ``Session.run`` execute the training
graph ``k`` times on the device before returning to the host. Here the "device" is an
``IterationLoop`` op whose kernel replays the compiled plan of the training op ``k - 1``
times; the plan that contains it then runs the last iteration normally, so everything
fetched next to the loop (loss, summaries) comes from the last iteration, as on the device::

    loop_vars = create_loop_variables()              # npu_runconfig/iterations_per_loop, ...
    iteration_op = make_iteration_op(train_op, loop_vars)
    loop_vars.load(sess, 10)
    sess.run([iteration_op, loss], feed_dict)        # 10 updates, loss of the 10th

* Batches come from inside the loop when the training op pulls them from an
  initializable iterator (``IteratorGetNext`` in its plan): each iteration gets a new one.
* With a ``feed_dict``, every iteration reuses the fed batch (as on the device).
* When the input ends inside the loop, the loop stops after the last complete step and
  ``OutOfRangeError`` reaches the host (the state of the completed steps is kept).
* A one-shot iterator (or ``enable_data_pre_proc=False``) keeps ``get_next`` on the host:
  the loop then runs a single step per call (``effective_iterations`` says so).
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, Operation, get_default_graph
from estimator_npu.engine.ops.core import group, make_op
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.engine.plan import needed_ops, reraise_from_plan
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.subgraph import RepeatedBody
from estimator_npu.utils import logging

OPS = OpFamily(__name__)  # this family's op definitions (data)

LOOP_SCOPE = "npu_runconfig"
LOOP_VAR_NAMES = ("iterations_per_loop", "loop_cond", "zero", "one")


class LoopVariables:
    """The four int64 loop variables of the adapter (``npu_runconfig/...``)."""

    def __init__(self, variables):
        self.variables = variables

    def __getitem__(self, name):
        return self.variables[name]

    @property
    def iterations_per_loop(self):
        return self.variables["iterations_per_loop"]

    def load(self, session, iterations_per_loop):
        """Sets the loop count in ``session`` without changing the graph."""
        values = {"iterations_per_loop": iterations_per_loop, "loop_cond": 0, "zero": 0,
                  "one": 1}
        for name, v in self.variables.items():
            v.load(np.int64(values[name]), session)

    def current(self, session):
        store = session.store(self.iterations_per_loop.op)
        return None if store.value is None else int(store.value)


def create_loop_variables(graph=None):
    """Creates (or reuses) ``npu_runconfig/{iterations_per_loop,loop_cond,zero,one}``.

    They are int64, non-trainable and local (not saved in checkpoints).
    """
    g = graph or get_default_graph()
    existing = getattr(g, "_npu_loop_variables", None)
    if existing is not None:
        return existing
    init = {"iterations_per_loop": 1, "loop_cond": 0, "zero": 0, "one": 1}
    with g.as_default(), g.name_scope(None), g.name_scope(LOOP_SCOPE + "/"):
        variables = {name: Variable(np.int64(init[name]), trainable=False, name=name,
                                    dtype=dtypes.int64,
                                    collections=[GraphKeys.LOCAL_VARIABLES])
                     for name in LOOP_VAR_NAMES}
    g._npu_loop_variables = LoopVariables(variables)
    return g._npu_loop_variables


def _iterator_kinds(train_op):
    """The ``iterator_kind`` of every iterator ``get_next`` the training op depends on."""
    return {op.attrs.get("iterator_kind", "one_shot")
            for op in needed_ops([train_op], set(), into_subgraphs=True)
            if "iterator_kind" in op.attrs}


def host_side_input_reason(train_op, enable_data_pre_proc=True):
    """Why ``get_next`` cannot run inside the loop (``None`` when it can)."""
    kinds = _iterator_kinds(train_op)
    if not kinds:
        return None
    if not enable_data_pre_proc:
        return "enable_data_pre_proc is False, so getNext stays on the host"
    if kinds != {"initializable"}:
        return ("the input comes from a one-shot iterator (make_one_shot_iterator); only an "
                "initializable iterator lets getNext run inside the loop")
    return None


def check_train_op(train_op):
    """The adapter's check: the loop wraps an ``Operation`` (``ValueError`` otherwise)."""
    if not isinstance(train_op, Operation):
        raise ValueError(f"The incoming 'train_op' type is '{type(train_op).__name__}', and "
                         "the need type is 'Operation'")


def make_iteration_op(train_op, loop_vars, name="IterationOp", single_step=False):
    """Returns a group op that runs ``train_op`` ``iterations_per_loop`` times per call.

    Args:
        train_op: the training ``Operation``.
        loop_vars: ``LoopVariables`` holding the count.
        name: name of the returned group op.
        single_step: run one step per call whatever the count (input on the host).
    """
    check_train_op(train_op)
    g = train_op.graph
    placeholders = [op.outputs[0] for op in needed_ops([train_op], set())
                    if op.type == "Placeholder"]
    with g.as_default():
        with g.name_scope(name + "/"):
            body = RepeatedBody([train_op], placeholders, name + "/body")
            loop = make_op("IterationLoop", placeholders, [],
                           {"body": train_op, "count": loop_vars.iterations_per_loop.op,
                            "single_step": single_step, "subgraphs": (body,)},
                           name="loop")
        op = group(loop, train_op, name=name)
    cond = loop_vars["loop_cond"].op
    for node, node_type in ((cond.name, "LoopCond"), (loop.name, "IterationLoop"),
                            (op.name, "IterationOp")):
        logging.info("Insert op success, name:%s, type:%s.", node, node_type)
    return op


def _loop_kernel(op, ctx):
    count = ctx.store(op.attrs["count"])
    single = op.attrs["single_step"]
    body = op.attrs["subgraphs"][0].compile(ctx)

    def run_loop(*feed_values):
        k = 1 if single else int(count.value)
        if k > 1:
            if not body.checked:
                body.check_initialized()
            fn = body.fn
            try:
                for _ in range(k - 1):
                    fn(*feed_values)
            except Exception as exc:  # noqa: BLE001 - re-raised naming the op in the body
                reraise_from_plan(body, exc)
    return run_loop


_loop_kernel.subplans = lambda op, ctx: [("body (runs k - 1 times)",
                                          op.attrs["subgraphs"][0].compile(ctx))]
# runs_first: the loop and its ancestors run before the rest of the plan, which then runs
# the last iteration itself (so fetches next to the loop come from the last iteration).
OPS.define("IterationLoop", kernel=_loop_kernel, grad=NOT_DIFFERENTIABLE, stateful=True,
           runs_first=True, subgraphs=True)


class DeviceLoopRunner:
    """Runs ``iterations`` training steps per host call (the Estimator's runner).

    It swaps the training op for its ``IterationOp`` in the fetches and loads the loop
    count into the session only when it changes (the last loop is clamped by the caller).
    Returns one value per fetch, from the last iteration, and the steps run.
    """

    def __init__(self, train_op, loop_vars=None):
        self.train_op = train_op
        self.loop_vars = loop_vars or create_loop_variables(train_op.graph)
        self.iteration_op = make_iteration_op(train_op, self.loop_vars)
        self._count_op = self.loop_vars.iterations_per_loop.op

    def __call__(self, session, fetches, feed_dict, options, iterations):
        store = session.store(self._count_op)
        if store.value is None or int(store.value) != iterations:
            self.loop_vars.load(session, iterations)
        train_op, loop_op = self.train_op, self.iteration_op
        swapped = tuple(loop_op if f is train_op else f for f in fetches)
        return session.run(swapped, feed_dict, options), iterations


def interval_warnings(settings, iterations_per_loop, start_step, last_step, fire_steps):
    """Warning messages for step intervals that are not multiples of the loop size.

    Args:
        settings: ``{setting name: interval or None}`` (e.g. ``save_checkpoints_steps``).
        iterations_per_loop: the loop size ``k``.
        start_step: the global step training starts from.
        last_step: the step it ends at (``None`` when it runs until the input ends).
        fire_steps: ``fire_steps(setting name, interval, boundaries) -> steps``: where the
            hook of that setting fires over the given loop boundaries (the hooks' own timer
            code; the device layer does not know the hooks).

    Returns:
        A list of messages, one per interval that is not a multiple of ``k``, naming the
        setting, both numbers and the steps at which the hook will actually fire, plus
        one when the total number of steps is not a multiple of ``k``.
    """
    k = iterations_per_loop
    messages = []
    if k <= 1:
        return messages
    end = last_step if last_step is not None else start_step + 10 * k * max(
        [v for v in settings.values() if v] + [1])
    boundaries = list(range(start_step + k, end, k)) + [end]
    for name, every in settings.items():
        if not every or every % k == 0:
            continue
        fired = fire_steps(name, every, boundaries)
        shown = ", ".join(str(s) for s in fired[:8]) + (", ..." if len(fired) > 8 else "")
        when = f"i.e. at steps {shown}" if fired else \
            f"which does not happen before training ends at step {end}"
        messages.append(f"{name}={every} is not a multiple of iterations_per_loop={k}: hooks "
                        f"run once per loop, so it will fire at the first loop boundary at "
                        f"least {every} steps after its previous event, {when}")
    if last_step is not None and (last_step - start_step) % k:
        messages.append(f"The number of training steps ({last_step - start_step}) is not a "
                        f"multiple of iterations_per_loop={k}; the last loop runs "
                        f"{(last_step - start_step) % k} steps so training stops at step "
                        f"{last_step}.")
    return messages
