"""``tf.contrib.slim.model_analyzer``: print a table of a model's variables or ops."""


def _var_size(var):
    shape = var.get_shape()
    if not shape.is_fully_defined():
        return 0, 0
    n = shape.num_elements()
    return n, n * var.dtype.base_dtype.size


def analyze_vars(variables, print_info=False):
    """``(total_elements, total_bytes)`` of ``variables``; with ``print_info``, one line
    per variable (name, dtype, shape, elements, bytes) and the totals are printed first."""
    total_size = total_bytes = 0
    lines = []
    for var in variables:
        size, nbytes = _var_size(var)
        total_size += size
        total_bytes += nbytes
        lines.append(f"{var.op.name} ({var.dtype.base_dtype.name} {var.get_shape()}) "
                     f"[{size}, bytes: {nbytes}]")
    if print_info:
        print("---------")
        print("Variables: name (type shape) [size]")
        print("---------")
        for line in lines:
            print(line)
        print(f"Total size of variables: {total_size}")
        print(f"Total bytes of variables: {total_bytes}")
    return total_size, total_bytes


def analyze_ops(graph, print_info=False):
    """``(total_elements, total_bytes)`` of every op output in ``graph`` whose shape is
    fully known; with ``print_info``, one line per op."""
    total_size = total_bytes = 0
    for op in graph.get_operations():
        op_size = op_bytes = 0
        shapes = []
        for output in op.outputs:
            shape = output.get_shape()
            shapes.append(str(shape))
            if shape.is_fully_defined():
                n = shape.num_elements()
                op_size += n
                op_bytes += n * output.dtype.base_dtype.size
        total_size += op_size
        total_bytes += op_bytes
        if print_info:
            print(f"{op.name} ({op.type}) {', '.join(shapes)} [{op_size}, bytes: {op_bytes}]")
    return total_size, total_bytes
