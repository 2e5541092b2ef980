"""The value of a tensor computed only from constants, for static shape inference (what
TF's shape refiner gets by evaluating small constant subgraphs: ``tf.sparse.to_dense`` of
a constant SparseTensor, ``bincount`` / ``sequence_mask`` lengths, ...).

``constant_value(t)`` runs the kernels of ``t``'s ancestors when every one of them is a
stateless op fed only by constants (at most ``MAX_OPS`` ops, no variables, inputs,
placeholders or subgraphs); otherwise, or when a kernel fails, it returns ``None``."""
from estimator_npu.engine import registry

MAX_OPS = 64


def _ancestors(t):
    order, seen, stack = [], set(), [(t.op, False)]
    while stack:
        op, done = stack.pop()
        if done:
            order.append(op)
            continue
        if op in seen:
            continue
        seen.add(op)
        if len(seen) > MAX_OPS or op.type in ("Placeholder", "PlaceholderWithDefault"):
            return None
        d = registry.get(op.type)
        if d.stateful or d.reads_variable or d.input_source or d.runs_first or d.subgraphs:
            return None
        stack.append((op, True))
        stack.extend((i.op, False) for i in op.inputs)
    return order


def constant_value(t):
    """``t``'s value (a numpy array) if it depends only on constants, else ``None``."""
    try:
        ops = _ancestors(t)
        if ops is None:
            return None
        values = {}
        for op in ops:
            if op.type == "Const":  # (its value is spliced into plans, it has no kernel)
                values[op.outputs[0]] = op.attrs["value"]
                continue
            out = registry.get(op.type).kernel(op, None)(*[values[i] for i in op.inputs])
            outs = out if len(op.outputs) > 1 else (out,)
            values.update(zip(op.outputs, outs))
        return values[t]
    except Exception:  # noqa: BLE001 - a kernel that cannot run here: value unknown
        return None
