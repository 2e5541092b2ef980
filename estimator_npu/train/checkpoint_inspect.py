"""``inspect_checkpoint``: TF's ``tensorflow.python.tools.inspect_checkpoint`` printout of a
checkpoint (``print_tensors_in_checkpoint_file``), in TF's format::

    print_tensors_in_checkpoint_file(path, tensor_name="", all_tensors=False)
    # -> the reader's debug string ("name (DT_FLOAT) [2,3]" per tensor), then
    #    "# Total number of params: N"
    all_tensor_names=True  -> "tensor: name (float32) [2, 3]" per tensor
    all_tensors=True       -> the same, each followed by its value
    tensor_name="w"        -> that tensor's line and value ("Tensor w not found in
                              checkpoint" if missing)

``count_exclude_pattern`` (a regex) leaves the matching names out of the total.
"""
import re

import numpy as np

from estimator_npu import errors
from estimator_npu.train import checkpoint_io


def _line(reader, name, shapes, dtypes):
    dt = dtypes[name]
    return f"tensor: {name} ({getattr(dt, 'name', dt)}) {shapes[name]}"


def count_total_params(reader, count_exclude_pattern=""):
    """The number of elements of every tensor whose name does not match the pattern
    (with a pattern, first prints how many tensors and elements it leaves out, as TF)."""
    regex = re.compile(count_exclude_pattern) if count_exclude_pattern else None
    total = excluded = excluded_params = 0
    for name, shape in reader.get_variable_to_shape_map().items():
        n = int(np.prod(shape, dtype=np.int64))
        if regex is not None and regex.search(name):
            excluded += 1
            excluded_params += n
            continue
        total += n
    if regex is not None:
        print(f"# Excluding {excluded} tensors ({excluded_params} params) that match "
              f"{count_exclude_pattern} when counting.")
    return total


def print_tensors_in_checkpoint_file(file_name, tensor_name, all_tensors,
                                     all_tensor_names=False, count_exclude_pattern=""):
    """Prints the tensors of checkpoint ``file_name`` (see the module docstring). A
    checkpoint that cannot be read prints the error, as TF's tool does."""
    try:
        reader = checkpoint_io.CheckpointReader(file_name)
        shapes = reader.get_variable_to_shape_map()
        dtypes = reader.get_variable_to_dtype_map()
        if all_tensors or all_tensor_names:
            for name in sorted(shapes):
                print(_line(reader, name, shapes, dtypes))
                if all_tensors:
                    print(reader.get_tensor(name))
        elif not tensor_name:
            print(reader.debug_string().decode("utf-8", errors="ignore"))
        else:
            if not reader.has_tensor(tensor_name):
                print(f"Tensor {tensor_name} not found in checkpoint")
                return
            print(_line(reader, tensor_name, shapes, dtypes))
            print(reader.get_tensor(tensor_name))
        print(f"# Total number of params: {count_total_params(reader, count_exclude_pattern)}")
    except errors.OpError as e:
        print(str(getattr(e, "message", None) or e))


__all__ = ["print_tensors_in_checkpoint_file", "count_total_params"]
