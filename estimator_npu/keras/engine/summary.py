"""``Model.summary()``: Keras's table of layers, output shapes and parameter counts."""


def _shape_text(layer):
    try:
        shape = layer.output_shape
    except AttributeError:
        return "multiple"
    if isinstance(shape, list) and len(shape) == 1:
        shape = shape[0]
    return str(shape).replace("None", "None")


def print_summary(model, line_length=None, print_fn=None):
    print_fn = print_fn or print
    line_length = line_length or 65
    positions = [int(line_length * p) for p in (0.45, 0.85, 1.0)]
    header = ["Layer (type)", "Output Shape", "Param #"]

    def row(fields):
        line = ""
        for i, field in enumerate(fields):
            if i > 0:
                line = line[:-1] + " "
            line += str(field)
            line = line[:positions[i]]
            line += " " * (positions[i] - len(line))
        print_fn(line)

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    row(header)
    print_fn("=" * line_length)
    layers = [layer for layer in model.layers if not getattr(layer, "is_placeholder", False)]
    for i, layer in enumerate(layers):
        row([f"{layer.name} ({type(layer).__name__})", _shape_text(layer),
             layer.count_params()])
        print_fn("=" * line_length if i == len(layers) - 1 else "_" * line_length)
    if not layers:
        print_fn("=" * line_length)
    trainable = sum(int(_count(w)) for w in model.trainable_weights)
    total = sum(int(_count(w)) for w in model.weights)
    print_fn(f"Total params: {total:,}")
    print_fn(f"Trainable params: {trainable:,}")
    print_fn(f"Non-trainable params: {total - trainable:,}")
    print_fn("_" * line_length)


def _count(w):
    n = 1
    for d in w.shape.as_list():
        n *= d
    return n
