"""Sparse updates: the optimizers' path for gradients of gathered rows (``tf.gather``,
``tf.nn.embedding_lookup``), as TF applies ``IndexedSlices`` gradients.

The gradient of ``gather(params, ids)`` with respect to ``params`` is a ``GatherGrad``
tensor: ``dy`` scattered into a zero array of the full table's shape. When such a tensor
(or a sum of them, from several lookups of one table) reaches ``apply_gradients``
unchanged and the rule has a sparse form here, the variable is left out of the fused
``ApplyUpdates`` op and one ``SparseApplyUpdates`` op updates only the rows ``ids`` from
``dy`` and ``ids`` directly, so the full-size gradient is never computed: a word2vec step with a 50000x128 embedding no longer writes 25 MB of zeros.

The sparse forms give the same values as the dense rules on the scattered gradient, as
TF's sparse kernels do:

* ``GradientDescent``: ``var[ids] -= lr * dy`` (``lr * dy`` of repeated ids summed, then
  added: TF's ``ScatterSub`` adds them one by one, which may round differently);
* ``Adagrad``: repeated ids summed first (as TF), then on those rows ``acc += g^2``,
  ``var -= g * lr * (1 / sqrt(acc))``.

Other rules (Momentum, Adam, RMSProp ...), a ``grad_hook`` (gradients packed for an
all-reduce) or a gradient that went through other ops use the dense path.
"""
import numpy as np

from estimator_npu.engine.ops._fast import scatter_add_rows
from estimator_npu.engine.ops.core import make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.train import update_rules

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _sgd(param, idx, values, state, hyper):
    lr = param.dtype.type(hyper["learning_rate"])
    scatter_add_rows(param, idx, values * -lr)


def _adagrad(param, idx, values, state, hyper):
    uniq, inverse = np.unique(idx, return_inverse=True)
    if uniq.size != idx.size:
        summed = np.zeros((uniq.size,) + values.shape[1:], values.dtype)
        scatter_add_rows(summed, inverse.reshape(-1), values)
        values, idx = summed, uniq
    acc = state["accumulator"]
    lr = param.dtype.type(hyper["learning_rate"])
    a = acc[idx] + values * values
    acc[idx] = a
    param[idx] = param[idx] - (values * lr) * (param.dtype.type(1) / np.sqrt(a))


SPARSE_RULES = {update_rules.GradientDescent: _sgd, update_rules.Adagrad: _adagrad}


def _gather_grad(t):
    op = t.op
    if op.type == "GatherGrad" and op.attrs.get("axis") == 0:
        return op.inputs[0], op.inputs[2]
    return None


def sparse_source(grad, var):
    """``(dy, ids)`` when ``grad`` is the untouched gradient of a gather along axis 0, or
    the sum (``AddN``, from several lookups of one table) of such gradients."""
    one = _gather_grad(grad)
    if one is not None or grad.op.type != "AddN":
        return one
    parts = [_gather_grad(t) for t in grad.op.inputs]
    inner = var.shape.values[1:] if var.shape.values else None
    if any(p is None for p in parts) or inner is None or None in inner:
        return None
    from estimator_npu.engine.ops import array_ops
    dys = [array_ops.reshape(dy, [-1] + list(inner)) for dy, _ in parts]
    ids = [array_ops.reshape(i, [-1]) for _, i in parts]
    if len({i.dtype for i in ids}) > 1:
        from estimator_npu.engine import dtypes
        from estimator_npu.engine.ops import math_ops
        ids = [math_ops.cast(i, dtypes.int64) for i in ids]
    return array_ops.concat(dys, 0), array_ops.concat(ids, 0)


def split(pairs, rule, grad_hook, dense_only=()):
    """``(sparse pairs [(dy, ids, var)], dense pairs [(grad, var)])``; the variables whose
    ops are in ``dense_only`` (listed more than once: the fused op updates them again)
    stay dense."""
    if grad_hook is not None or type(rule) not in SPARSE_RULES:
        return [], pairs
    sparse, dense = [], []
    for g, v in pairs:
        src = None if v.op in dense_only else sparse_source(g, v)
        if src is not None and g.dtype == v.dtype:
            sparse.append((src[0], src[1], v))
        else:
            dense.append((g, v))
    return sparse, dense


def sparse_apply_op(rule, sparse, slot_ops, condition, dyn_names, dyn_tensors, static_hyper,
                    name):
    """The ``SparseApplyUpdates`` op for ``sparse`` (from ``split``)."""
    inputs = ([condition] if condition is not None else []) + list(dyn_tensors)
    for dy, ids, _ in sparse:
        inputs += [dy, ids]
    attrs = {"rule": rule, "var_ops": [v.op for _, _, v in sparse], "slot_ops": slot_ops,
             "static_hyper": dict(static_hyper), "dynamic_hyper": list(dyn_names),
             "has_condition": condition is not None}
    return make_op("SparseApplyUpdates", inputs, [], attrs, name=name)


def _kernel(op, ctx):
    a = op.attrs
    fn = SPARSE_RULES[type(a["rule"])]
    slot_names = [n for n, _ in a["rule"].slots]
    stores = [ctx.store(v) for v in a["var_ops"]]
    slot_stores = [[ctx.store(s) for s in per_var] for per_var in a["slot_ops"]]
    has_cond, dyn = a["has_condition"], a["dynamic_hyper"]
    h0 = 1 if has_cond else 0
    g0 = h0 + len(dyn)

    def writable(store):
        if store.value is None:
            from estimator_npu import errors
            raise errors.FailedPreconditionError(
                None, op, f"Attempting to use uninitialized value {store.op.name}")
        if not store.value.flags.writeable:
            store.value = np.array(store.value)
        return store.value

    def run(*args):
        if has_cond and not args[0]:
            return
        hyper = dict(a["static_hyper"])
        for i, n in enumerate(dyn):
            hyper[n] = float(args[h0 + i])
        for k, store in enumerate(stores):
            param = writable(store)
            dy, ids = args[g0 + 2 * k], args[g0 + 2 * k + 1]
            ids = np.asarray(ids).reshape(-1)
            values = np.asarray(dy, param.dtype).reshape((ids.size,) + param.shape[1:])
            state = {n: writable(s) for n, s in zip(slot_names, slot_stores[k])}
            fn(param, ids, values, state, hyper)
    return run


OPS.define("SparseApplyUpdates", kernel=_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)
