"""``tf.sparse.cross_hashed``: the hashed cross of sparse and dense 2-D features (TF's
SparseCross with ``hashed_output``: each string feature's Fingerprint64, an int64 feature
as itself, combined from ``hash_key`` with FingerprintCat64, modulo ``num_buckets``;
sparse inputs are crossed before dense ones, as TF's)."""
import itertools

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.sparse_tensor import SparseTensor
from estimator_npu.feature_column.columns import _CROSS_HASH_KEY, _fp_cat
from estimator_npu.feature_column.fingerprint import fingerprint64

OPS = OpFamily(__name__)  # this family's op definitions (data)
_M64 = (1 << 64) - 1
_I64_MAX = (1 << 63) - 1


def _feature(v):
    if isinstance(v, (bytes, str, np.str_, np.bytes_)):
        return fingerprint64(v)
    return int(v) & _M64


def _cross_kernel(op, ctx):
    n_sparse, buckets, key = op.attrs["n_sparse"], op.attrs["num_buckets"], op.attrs["key"]

    def run(*args):
        sparse = [args[3 * i:3 * i + 3] for i in range(n_sparse)]
        dense = [np.asarray(d) for d in args[3 * n_sparse:]]
        batch = {int(np.asarray(s[2])[0]) for s in sparse} | {d.shape[0] for d in dense}
        if len(batch) != 1:
            raise ValueError(f"sparse.cross_hashed: the inputs' batch sizes differ: "
                             f"{sorted(batch)}")
        rows = batch.pop()
        per_input = []
        for ind, vals, _ in sparse:
            ind, vals = np.asarray(ind).reshape(-1, 2), np.asarray(vals).reshape(-1)
            per_input.append([[_feature(v) for v, r in zip(vals.tolist(), ind[:, 0])
                               if r == row] for row in range(rows)])
        for d in dense:
            per_input.append([[_feature(v) for v in d[row].tolist()] for row in range(rows)])
        out_i, out_v = [], []
        for row in range(rows):
            for k, combo in enumerate(itertools.product(*[p[row] for p in per_input])):
                h = key
                for f in combo:
                    h = _fp_cat(h, f)
                out_i.append([row, k])
                out_v.append(h % buckets if buckets > 0 else h % _I64_MAX)
        width = max([i[1] + 1 for i in out_i] + [0])
        return (np.array(out_i, np.int64).reshape(-1, 2), np.array(out_v, np.int64),
                np.array([rows, width], np.int64))
    return run


OPS.define("SparseCrossHashed", kernel=_cross_kernel, grad=NOT_DIFFERENTIABLE)


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """``tf.sparse.cross_hashed``: a ``[batch, crosses]`` int64 SparseTensor of the hashed
    crosses of ``inputs`` (SparseTensors and dense ``[batch, k]`` tensors, string or
    int)."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError(f"sparse.cross_hashed: inputs must be a non-empty list of "
                        f"SparseTensors or 2-D tensors, got {inputs!r}")
    sparse, dense = [], []
    for i, x in enumerate(inputs):
        if isinstance(x, SparseTensor) or hasattr(x, "dense_shape"):
            x = SparseTensor.from_value(x) if not isinstance(x, SparseTensor) else x
            sparse.append(x)
            dt = x.values.dtype
        else:
            x = convert_to_tensor(x)
            if x.shape.ndims is not None and x.shape.ndims != 2:
                raise ValueError(f"sparse.cross_hashed: inputs[{i}] must be 2-D [batch, k], "
                                 f"got shape {x.shape}")
            dense.append(x)
            dt = x.dtype
        if dt != dtypes.string and not dt.is_integer:
            raise TypeError(f"sparse.cross_hashed: inputs[{i}] must be string or integer, "
                            f"got {dt.name}")
    if not isinstance(num_buckets, (int, np.integer)) or num_buckets < 0:
        raise ValueError(f"sparse.cross_hashed: num_buckets must be an int >= 0, got "
                         f"{num_buckets!r}")
    flat = [t for s in sparse for t in (s.indices, s.values, s.dense_shape)] + dense
    op = make_op("SparseCrossHashed", flat, [(dtypes.int64, [None, 2]),
                                             (dtypes.int64, [None]), (dtypes.int64, [2])],
                 {"n_sparse": len(sparse), "num_buckets": int(num_buckets),
                  "key": _CROSS_HASH_KEY if hash_key is None else int(hash_key)}, name=name)
    return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])
