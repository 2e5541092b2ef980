"""``Model.summary()``: Keras's table of layers, output shapes and parameter counts, laid
out as TF 2.15's Keras prints it: a chain of layers in three columns (65 characters), a
model with branches or several inputs in four, with ``Connected to``
(``dense[0][0]``, 98 characters); a blank row after each layer; the totals with their
memory size (``Total params: 58 (232.00 Byte)``)."""
from estimator_npu.keras import backend
from estimator_npu.utils import nest


def _shape_text(layer):
    try:
        shape = layer.output_shape
    except AttributeError:
        return "multiple"
    if isinstance(shape, list) and len(shape) == 1:
        shape = shape[0]
    if getattr(layer, "is_placeholder", False):
        return [shape]          # an InputLayer's, as TF's node lists it: [(None, 4)]
    return shape


def _sequential_like(model):
    if type(model).__name__ == "Sequential" or not getattr(model, "_is_graph_network", True):
        return True
    nodes = getattr(model, "_network_nodes", None)
    if nodes is None:
        return True
    seen = set()
    for node in nodes:
        if len(nest.flatten(node.input_tensors)) > 1 or id(node.layer) in seen:
            return False
        seen.add(id(node.layer))
    return True


def _row(fields, positions, print_fn):
    """One row; a field too long for its column wraps onto the next line (breaking after
    ``),`` and the like), as Keras's."""
    left = [str(f) for f in fields]
    while any(left):
        line = ""
        for col in range(len(left)):
            start = positions[col - 1] if col else 0
            space = 2 if col != len(positions) - 1 else 0
            cutoff = positions[col] - start - space
            if col != len(positions) - 1:
                cutoff -= 1
            fit = left[col][:cutoff]
            breaks = [fit.find(x) + len(x) for x in ("),", "},", "],", "',") if x in fit]
            if breaks:
                cutoff = min(breaks)
                fit = fit[:cutoff]
            if col == 0:
                line += " "
            line += fit + " " * space
            left[col] = left[col][cutoff:]
            line += " " * (positions[col] - len(line))
        print_fn(line)


def _connections(layer, relevant):
    out = []
    if getattr(layer, "is_placeholder", False):
        return out
    for node in layer._inbound_nodes:
        if id(node) not in relevant:
            continue
        for t in nest.flatten(node.input_tensors):
            history = backend.keras_history(t)
            if history is not None:
                inbound, node_index, tensor_index = history
                out.append(f"{inbound.name}[{node_index}][{tensor_index}]")
    return out


def _memory(weights):
    size = 0
    for w in {id(w): w for w in weights}.values():
        dims = w.shape.as_list()
        if None not in dims:
            size += _count(w) * w.dtype.size
    for unit in ("Byte", "KB", "MB", "GB", "TB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def print_summary(model, line_length=None, positions=None, print_fn=None):
    print_fn = print_fn or print
    sequential = _sequential_like(model)
    line_length = line_length or (65 if sequential else 98)
    positions = positions or ([0.45, 0.85, 1.0] if sequential else [0.3, 0.6, 0.70, 1.0])
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    header = ["Layer (type)", "Output Shape", "Param #"] + ([] if sequential
                                                          else ["Connected to"])
    relevant = {id(n) for n in getattr(model, "_network_nodes", None) or []}
    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    _row(header, positions, print_fn)
    print_fn("=" * line_length)
    for layer in model.layers:
        params = layer.count_params() if getattr(layer, "built", True) else "0 (unused)"
        fields = [f"{layer.name} ({type(layer).__name__})", _shape_text(layer), params]
        if not sequential:
            fields.append(_connections(layer, relevant))
        _row(fields, positions, print_fn)
        print_fn(" " * line_length)
    print_fn("=" * line_length)
    trainable = list(model.trainable_weights)
    frozen = list(model.non_trainable_weights)
    n_train = sum(_count(w) for w in {id(w): w for w in trainable}.values())
    n_frozen = sum(_count(w) for w in {id(w): w for w in frozen}.values())
    print_fn(f"Total params: {n_train + n_frozen} ({_memory(trainable + frozen)})")
    print_fn(f"Trainable params: {n_train} ({_memory(trainable)})")
    print_fn(f"Non-trainable params: {n_frozen} ({_memory(frozen)})")
    print_fn("_" * line_length)


def _count(w):
    n = 1
    for d in w.shape.as_list():
        n *= d
    return int(n)
