"""``Optimizer``: the TF1 optimizer interface over a pure update rule (``update_rules``).

Lifecycle (as TF1)::

    opt = tf.train.AdamOptimizer(1e-3)
    grads_and_vars = opt.compute_gradients(loss, var_list)     # [(grad or None, var)]
    train_op = opt.apply_gradients(grads_and_vars, global_step)
    # or, both at once: train_op = opt.minimize(loss, global_step)

``apply_gradients`` creates the slot variables (``<var>/Adam``, ``<var>/Adam_1`` ...) and
shared non-slot variables (``beta1_power`` ...) as non-trainable global variables, so
``Saver`` checkpoints them, and adds ONE fused ``ApplyUpdates`` op (``apply_op``) that
updates every variable in place and then increments ``global_step``.

Interface for wrappers (loss scaling, distributed aggregation): a wrapper holds an inner
optimizer and calls its public methods; no subclassing is needed.

* ``apply_gradients(grads_and_vars, global_step=None, name=None, condition=None,
  grad_hook=None)``:

  - ``condition``: a scalar bool tensor. When it is false at run time the op changes
    nothing at all: variables, slots, shared scalars and ``global_step`` keep their
    values. Loss scaling passes ``all gradients finite`` here.
  - ``grad_hook(flat_grads, layouts)``: a Python callable run inside the kernel after
    the gradients are packed and before the update. ``flat_grads`` is a list of 1-D
    arrays (one per variable dtype, usually one) holding every gradient back to back;
    ``layouts[i]`` (an ``update_rules.Layout``) gives the variable names, shapes and
    offsets in ``flat_grads[i]``. The hook may modify the arrays in place (e.g. an
    in-place MPI all-reduce and division by the worker count, bucketed by byte offsets)
    and may return ``False`` to skip the update exactly as a false ``condition`` does.

  The returned op has one output, a scalar bool tensor (``op.outputs[0]``): whether the
  update was applied on this run. Fetching the op itself returns ``None`` as in TF1.
* Graph-level transforms need nothing special: ``compute_gradients`` returns plain
  ``(tensor, variable)`` pairs; a wrapper rewrites the tensors (unscale, all-reduce
  ops) and passes the new pairs to the inner ``apply_gradients``.
* ``get_slot``, ``get_slot_names``, ``variables`` and ``get_name`` are plain delegations
  for a wrapper.

Subclasses provide ``_make_rule()`` (an ``UpdateRule``) and ``_hyper()`` (hyper-parameter
name -> Python number, tensor or zero-argument callable returning either).
"""
import math
import numbers

import numpy as np

from estimator_npu.engine import dtypes, partitioned
from estimator_npu.engine.gradients import gradients
from estimator_npu.engine.graph import GraphKeys, Operation, Tensor
from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops.core import constant, convert_to_tensor, group, make_op
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.engine.ops.state_ops import variable_op as _var_op
from estimator_npu.engine.variable_scope import get_variable_scope
from estimator_npu.train import sparse_apply
from estimator_npu.utils import validation

_FLOAT_TYPES = ("float16", "bfloat16", "float32", "float64")


def _as_variable(var, what):
    op = _var_op(var)
    v = getattr(op, "_variable_object", None)
    if v is None:
        raise TypeError(f"{what}: {var!r} is not a tf.Variable")
    return v


def check_hyper(name, value, minimum=None, below=None):
    """Validates a hyper-parameter: a real number, a scalar tensor/variable, or a callable.

    Raises:
        TypeError: any other type (``bool`` included).
        ValueError: a number that is not finite or is below ``minimum``.
    """
    if isinstance(value, (Tensor, Variable)) or callable(value):
        return value
    if minimum is None and name == "learning_rate":
        minimum = 0    # a negative learning rate is always a mistake
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a float, a scalar tensor or a callable, got "
                        f"{type(value).__name__}: {value!r}")
    v = float(value)
    if not math.isfinite(v) or (minimum is not None and v < minimum) or (
            below is not None and v >= below):
        accepted = "a finite number" + ("" if minimum is None else f" >= {minimum}") + (
            "" if below is None else f" and < {below}")
        raise ValueError(f"{name} must be {accepted}, got {value!r}")
    return v


class Optimizer:
    """Base class of the TF1 optimizers (see the module docstring)."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError(f"Must specify the optimizer name, got {name!r}")
        self._use_locking = use_locking
        self._name = name
        self._rule = None
        self._slots = {}        # slot name -> {variable op: slot Variable}
        self._non_slot = {}     # (graph, name) -> Variable

    # ------------------------------------------------------------------ subclass API
    def _make_rule(self):
        raise NotImplementedError

    def _hyper(self):
        raise NotImplementedError

    def _slot_var_name(self, slot_name):
        """The last name component of the slot variable ``<var>/<this>``."""
        return self._name

    @property
    def rule(self):
        """The pure ``UpdateRule`` this optimizer applies."""
        if self._rule is None:
            self._rule = self._make_rule()
        return self._rule

    def get_name(self):
        return self._name

    # ------------------------------------------------------------------ TF1 API
    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """Gradients of ``loss`` for the variables in ``var_list``.

        Args:
            loss: a floating tensor.
            var_list: variables to differentiate (default: the trainable variables).
            gate_gradients: ``GATE_NONE``, ``GATE_OP`` or ``GATE_GRAPH`` (kernels run
                in order anyway; accepted for compatibility).
            grad_loss: optional tensor holding the gradient of ``loss``.

        Returns:
            A list of ``(gradient or None, variable)`` pairs.

        Raises:
            ValueError: no variables to optimize, a non-floating loss or variable, or a
                bad ``gate_gradients``.
            TypeError: a ``var_list`` entry is not a variable.
        """
        if callable(loss) and not isinstance(loss, (Tensor, Variable)):
            raise TypeError("compute_gradients: loss must be a tensor (callables are only "
                            f"supported in eager mode), got {loss!r}")
        validation.check_one_of("gate_gradients", gate_gradients,
                                (self.GATE_NONE, self.GATE_OP, self.GATE_GRAPH))
        loss = convert_to_tensor(loss)
        if loss.dtype.name not in _FLOAT_TYPES:
            raise ValueError(f"Invalid type {loss.dtype.name} for {loss.name}, expected: "
                             f"[{', '.join(_FLOAT_TYPES)}].")
        explicit = var_list is not None
        if var_list is None:
            var_list = loss.graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
        else:
            if isinstance(var_list, (Variable, Tensor)):
                var_list = [var_list]
            var_list = [_as_variable(v, "var_list") for v in var_list]
        if not var_list:
            raise ValueError("No variables to optimize.")
        for v in var_list if explicit else ():
            if v.dtype.name not in _FLOAT_TYPES:
                raise ValueError(f"Invalid type {v.dtype.name} for {v.op.name}, expected: "
                                 f"[{', '.join(_FLOAT_TYPES)}].")
        # As TF: a trainable variable that cannot have a gradient (an int global step made
        # with tf.Variable(0)) gets None instead of failing the call.
        floats = [v for v in var_list if v.dtype.name in _FLOAT_TYPES]
        grads = dict(zip(map(id, floats), gradients(loss, [v.value() for v in floats],
                                                    grad_ys=grad_loss) if floats else []))
        return [(grads.get(id(v)), v) for v in var_list]

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None):
        """``compute_gradients`` then ``apply_gradients``; returns the train op."""
        gv = self.compute_gradients(loss, var_list=var_list, gate_gradients=gate_gradients,
                                    aggregation_method=aggregation_method,
                                    colocate_gradients_with_ops=colocate_gradients_with_ops,
                                    grad_loss=grad_loss)
        if all(g is None for g, _ in gv):
            raise ValueError("No gradients provided for any variable, check your graph for "
                             "ops that do not support gradients, between variables "
                             f"{[v.op.name for _, v in gv]} and loss {loss}.")
        return self.apply_gradients(gv, global_step=global_step, name=name)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, condition=None,
                        grad_hook=None):
        """Adds the op applying ``grads_and_vars`` (then ``global_step += 1``).

        Args:
            grads_and_vars: ``(gradient or None, variable)`` pairs; ``None`` gradients are
                skipped.
            global_step: optional integer ``Variable`` incremented after the update.
            name: name of the returned op (default: the optimizer's name).
            condition: optional scalar bool tensor; when false nothing changes.
            grad_hook: optional ``hook(flat_grads, layouts) -> None | bool`` run in the
                kernel before the update (see the module docstring).

        Returns:
            The ``ApplyUpdates`` operation.

        A variable listed more than once gets one update per pair, as in TF (wiseodd's
        DualGAN lists a bias twice in its ``var_list``): the repeats are applied first, by
        extra ``ApplyUpdates`` ops that leave the shared scalars (Adam's ``beta1_power``)
        and ``global_step`` alone; those advance once, with the main op.

        Raises:
            ValueError: empty input, no gradient at all, or a repeated variable with a
                ``grad_hook``.
            TypeError: an entry is not a ``(tensor, variable)`` pair.
        """
        pairs = self._check_grads_and_vars(grads_and_vars)
        rounds = []  # rounds[k]: the (k+1)-th pair of each variable listed more than k times
        count = {}
        for gv in pairs:
            k = count[gv[1].op] = count.get(gv[1].op, -1) + 1
            if k == len(rounds):
                rounds.append([])
            rounds[k].append(gv)
        if len(rounds) == 1:
            return self._apply_pairs(pairs, global_step, name, condition, grad_hook)
        if grad_hook is not None:
            raise ValueError(f"apply_gradients: variable {rounds[1][0][1].op.name} appears "
                             "more than once in grads_and_vars, which a grad_hook (one "
                             "buffer per variable) does not support")
        name = name or self._name
        graph = pairs[0][1].graph
        # every update waits for every gradient: a repeat updates its variable in place
        extra = [g.op for g, _ in pairs]
        for k, more in enumerate(rounds[1:], 1):
            with graph.control_dependencies(extra[-1:] if k > 1 else extra):
                extra.append(self._apply_pairs(more, None, f"{name}_repeat_{k}", condition,
                                               None, finish=False))
        with graph.control_dependencies(extra[-1:]):
            return self._apply_pairs(rounds[0], global_step, name, condition, None)

    def _apply_pairs(self, pairs, global_step, name, condition, grad_hook, finish=True):
        var_list = [v for _, v in pairs]
        graph = var_list[0].graph
        hyper = {k: (v() if callable(v) and not hasattr(v, "_as_tensor") else v)
                 for k, v in self._hyper().items()}
        outer = graph.get_name_scope()
        with graph.control_dependencies(None), graph.name_scope(None):
            # as TF1's init_scope: non-slot variables (beta1_power ...) keep the caller's
            # name scope (DNNClassifier's Adam: dnn/head/beta1_power); TF makes them
            # before the slots
            with graph.name_scope(outer + "/" if outer else None):
                scalar_vars = self._create_non_slots(var_list, hyper)
            self._create_slots(var_list)
        static, dyn_names, dyn_tensors = {}, [], []
        for k, v in hyper.items():
            if isinstance(v, (Tensor, Variable)):
                t = convert_to_tensor(v)
                if t.shape.ndims not in (None, 0):
                    raise ValueError(f"{self._name}: hyper-parameter {k} must be a scalar, "
                                     f"got shape {t.shape}")
                dyn_names.append(k)
                dyn_tensors.append(t)
            else:
                # TF converts a Python number to a float32 tensor, then casts it to the
                # variable's dtype: round to float32 first (see UpdateRule.float32_hyper).
                static[k] = float(np.float32(v)) if self.rule.float32_hyper else float(v)
        inputs, cond = [], None
        if condition is not None:
            cond = convert_to_tensor(condition)
            if cond.dtype != dtypes.bool or cond.shape.ndims not in (None, 0):
                raise ValueError("apply_gradients: condition must be a scalar bool tensor, "
                                 f"got {cond.dtype.name} of shape {cond.shape}")
            inputs.append(cond)
        if grad_hook is not None and not callable(grad_hook):
            raise TypeError(f"grad_hook must be callable, got {grad_hook!r}")
        # gradients of gathered rows update only those rows (sparse_apply), before the rest
        sparse, pairs = sparse_apply.split(pairs, self.rule, grad_hook)
        var_list = [v for _, v in pairs]
        deps = [sparse_apply.sparse_apply_op(
            self.rule, sparse, [[self._slots[s][v.op].op for s, _ in self.rule.slots]
                                for _, _, v in sparse], cond, dyn_names, dyn_tensors, static,
            (name or self._name) + "/sparse")] if sparse else []
        inputs += dyn_tensors
        inputs += [g for g, _ in pairs]
        gs_op = None
        if global_step is not None:
            gs_op = _var_op(global_step)
            dt = gs_op.outputs[0].dtype  # TF adds 1 to any real variable (float too)
            if not (dt.is_integer or dt.is_floating):
                raise TypeError(f"global_step must be an integer or float variable, got "
                                f"dtype {dt.name}")
        rule = self.rule
        attrs = {"rule": rule, "var_ops": [v.op for v in var_list],
                 "slot_ops": [[self._slots[s][v.op].op for s, _ in rule.slots]
                              for v in var_list],
                 "scalar_ops": {n: scalar_vars[n].op for n in rule.scalars},
                 "global_step_op": gs_op, "static_hyper": static,
                 "dynamic_hyper": dyn_names, "has_condition": condition is not None,
                 "grad_hook": grad_hook, "finish": finish}
        with graph.control_dependencies(deps):
            update = make_op("ApplyUpdates", inputs, [(dtypes.bool, [])], attrs,
                             name=name or self._name)
        constrained = [v for v in var_list + [v for _, _, v in sparse]
                       if getattr(v, "constraint", None) is not None]
        if not constrained:
            return update
        # as TF1: each constrained variable is projected (var = constraint(var)) after its
        # update, and the returned op runs both
        with graph.control_dependencies([update]), graph.name_scope(update.name + "/"):
            projections = [v.assign(v.constraint(v)) for v in constrained]
        return group(update, *projections, name=update.name + "/constrained")

    def _check_grads_and_vars(self, grads_and_vars):
        try:
            items = list(grads_and_vars)
        except TypeError:
            raise TypeError("grads_and_vars must be an iterable of (gradient, variable) "
                            f"pairs, got {grads_and_vars!r}") from None
        if not items:
            raise ValueError("No variables provided.")
        pairs = []
        for item in items:
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise TypeError(f"grads_and_vars entries must be (gradient, variable) pairs, "
                                f"got {item!r}")
            g, v = item
            v = _as_variable(v, "apply_gradients")
            if g is None:
                continue
            if isinstance(g, Operation) or not isinstance(g, (Tensor, Variable)):
                raise TypeError(f"Gradient for {v.op.name} must be a Tensor or None, got "
                                f"{type(g).__name__}")
            g = convert_to_tensor(g)
            if not g.shape.is_compatible_with(v.shape):
                raise ValueError(f"Gradient for {v.op.name} has shape {g.shape}, which is not "
                                 f"compatible with the variable's shape {v.shape}")
            pairs.append((g, v))
        if not pairs:
            raise ValueError("No gradients provided for any variable: "
                             f"{[_var_op(v).name for _, v in items]}.")
        return pairs

    # ------------------------------------------------------------------ slots
    def _create_slots(self, var_list):
        # TF names a slot <variable scope>/<var>/<slot> (a default-named variable scope
        # inside the caller's): minimize() under variable_scope("foo") makes
        # foo/foo/w/Adam, and checkpoints hold that name
        scope = get_variable_scope().name
        for slot_name, fill in self.rule.slots:
            table = self._slots.setdefault(slot_name, {})
            for v in var_list:
                if v.op not in table:
                    table[v.op] = self._make_slot(v, fill, self._slot_var_name(slot_name),
                                                  scope)

    @staticmethod
    def _make_slot(var, fill, var_name, scope=""):
        graph = var.graph
        shape = var.shape
        dt = var.dtype

        def initial():
            if shape.is_fully_defined():
                return array_ops.fill(shape.as_list(), constant(fill, dtype=dt))
            return array_ops.zeros_like(var.initial_value) + constant(fill, dtype=dt)
        with graph.name_scope((scope + "/" if scope else "") + var.op.name + "/"):
            slot = Variable(initial, trainable=False, name=var_name, dtype=dt,
                            validate_shape=shape.is_fully_defined())
        # a part's slot is saved as its slice of the full slot (emb/Adagrad), as in TF;
        # TF cuts the slot's name after len(<part name>/) characters even when the scope
        # prefix makes that cut land inside the part name (dnn/dnn/w/part_0/Adagrad is
        # saved as a slice of dnn/w/t_0/Adagrad, as DNNClassifier's checkpoints show)
        slot._save_slice_info = partitioned.slot_slice_info(
            var, slot, slot.op.name[len(var.op.name) + 1:])
        return slot

    def _create_non_slots(self, var_list, hyper):
        names = self.rule.scalars
        if not names:
            return {}
        first = min(var_list, key=lambda v: v.op.name)
        graph = first.graph
        init = None
        out = {}
        for n in names:
            key = (graph, n)
            if key not in self._non_slot:
                if init is None:
                    init = self.rule.init_scalars(hyper)
                value = init[n]
                if isinstance(value, (Tensor, Variable)):
                    from estimator_npu.engine.ops.math_ops import cast
                    value = cast(convert_to_tensor(value), first.dtype)
                    dtype = first.dtype
                else:
                    # TF1 makes ``beta1_power`` ... from a Python float: a float32
                    # variable whatever the dtype of the variables it serves.
                    dtype = dtypes.float32
                    value = constant(float(np.float32(value)), dtype=dtype)
                self._non_slot[key] = Variable(value, trainable=False, name=n,
                                               dtype=dtype)
            out[n] = self._non_slot[key]
        return out

    def get_slot(self, var, name):
        """The slot variable ``name`` of ``var`` (``None`` if there is none)."""
        return self._slots.get(name, {}).get(_var_op(var))

    def get_slot_names(self):
        """Sorted names of the slots this optimizer creates."""
        return sorted(name for name, _ in self.rule.slots)

    def variables(self):
        """Slot and non-slot variables created by this optimizer, sorted by name."""
        out = [v for v in self._non_slot.values()]
        for table in self._slots.values():
            out.extend(table.values())
        return sorted(out, key=lambda v: v.name)

    def _non_slot_variable(self, name, graph):
        return self._non_slot.get((graph, name))


__all__ = ["Optimizer", "check_hyper"]
