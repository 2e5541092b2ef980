"""Whether a traced ``map`` function works row by row, so it can run on a whole batch.

``from_tensor_slices(x).map(f).shuffle(n).batch(b)`` can gather ``b`` rows of ``x`` and run
``f`` once on the block instead of once per row, when ``f(stack(rows)) == stack(map(f,
rows))`` exactly. That holds for graphs built only from element-wise ops whose operands
either come from the arguments with exactly the output's (fully static) element shape,
or are constants of at most that rank (broadcast along trailing axes, never along the
batch axis), and with no stateful op (a random op draws once per call, not per row)::

    lambda img, label: (tf.cast(img, tf.float32) / 255.0, tf.cast(label, tf.int32))

Anything else (reshape, reductions, random ops, control flow, py_func) keeps the
element-by-element path. The block function is made without tracing the user function
again, by copying its graph with a leading unknown axis on the argument placeholders.
"""
from estimator_npu.data.structure import batched_shape
from estimator_npu.engine.graph import Graph
from estimator_npu.engine.ops.core import placeholder

UNARY = frozenset(("Cast", "Identity", "Neg", "Abs", "Square", "Relu", "Floor", "Ceil",
                   "Sign", "LogicalNot"))
BINARY = frozenset(("Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum",
                    "SquaredDifference", "Equal", "NotEqual", "Less", "LessEqual",
                    "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr"))
ELEMENTWISE = UNARY | BINARY


def is_rowwise(fn):
    """Whether ``TracedFunction`` ``fn`` (traced on single elements) is row-wise."""
    row = {}  # id(tensor) -> whether it depends on the arguments
    args = {id(t) for t in fn.inputs}
    for op in fn.graph.get_operations():
        if op.control_inputs or len(op.outputs) != 1:
            return False
        out = op.outputs[0]
        if op.type == "Placeholder":
            if id(out) not in args:
                return False
            row[id(out)] = True
            continue
        if op.type == "Const":
            row[id(out)] = False
            continue
        if op.type not in ELEMENTWISE:
            return False
        dep = [row.get(id(t)) for t in op.inputs]
        if None in dep:
            return False
        if not any(dep):
            row[id(out)] = False
            continue
        shape = out.shape.values
        if shape is None or None in shape:
            return False
        for t, d in zip(op.inputs, dep):
            s = t.shape.values
            if s is None or (tuple(s) != tuple(shape) if d else len(s) > len(shape)):
                return False
        row[id(out)] = True
    return all(row.get(id(t)) for t in fn.targets)


def batched_graph(fn):
    """A copy of ``fn``'s graph whose argument placeholders and row-dependent tensors have
    a leading unknown batch axis, as ``(graph, inputs, targets)``; ``None`` when ``fn``
    is not row-wise. The user function is not traced again (TF traces it once)."""
    if not is_rowwise(fn):
        return None
    g = Graph()
    new = {}
    args = {id(t) for t in fn.inputs}
    with g.as_default():
        for op in fn.graph.get_operations():
            out = op.outputs[0]
            if id(out) in args:
                new[id(out)] = (placeholder(out.dtype, batched_shape(out.shape, None),
                                            name=op.name), True)
                continue
            ins = [new[id(t)] for t in op.inputs]
            row = any(r for _, r in ins)
            shape = batched_shape(out.shape, None) if row else out.shape
            clone = g.create_op(op.type, [t for t, _ in ins], dict(op.attrs),
                                [(out.dtype, shape)], name=op.name)
            new[id(out)] = (clone.outputs[0], row)
    return g, [new[id(t)][0] for t in fn.inputs], [new[id(t)][0] for t in fn.targets]
