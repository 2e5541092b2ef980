"""Block rearrangements of image-like tensors: ``space_to_depth`` / ``depth_to_space``,
``space_to_batch_nd`` / ``batch_to_space_nd`` (each the other's gradient) and
``extract_image_patches`` (its gradient scatters the patches back)."""
import numpy as np

from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import OpFamily, with_attrs

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _mul(d, k):
    return None if d is None else d * k


def _div(d, k, what):
    if d is None:
        return None
    if d % k:
        raise ValueError(f"{what}: dimension {d} is not divisible by the block size {k}")
    return d // k


def _nhwc(x, data_format, op_type):
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"{op_type}: data_format must be 'NHWC' or 'NCHW', got "
                         f"{data_format!r}")
    if x.shape.ndims not in (None, 4):
        raise ValueError(f"{op_type}: input {x.name} must be 4-D, got shape {x.shape}")
    return data_format == "NCHW"


# ------------------------------------------------------------------ space <-> depth
def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Moves ``block_size x block_size`` spatial blocks into the depth dim."""
    x = convert_to_tensor(input)
    nchw = _nhwc(x, data_format, "SpaceToDepth")
    k = int(block_size)
    shape = None
    if x.shape.ndims == 4:
        n, a, b, c = x.shape.values
        if nchw:
            n, c, a, b = x.shape.values
        hw = [_div(a, k, "space_to_depth"), _div(b, k, "space_to_depth")]
        shape = [n, _mul(c, k * k)] + hw if nchw else [n] + hw + [_mul(c, k * k)]
    return make_tensor("SpaceToDepth", [x], x.dtype, shape,
                       {"block_size": k, "nchw": nchw}, name=name)


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Moves depth into ``block_size x block_size`` spatial blocks (space_to_depth's
    inverse)."""
    x = convert_to_tensor(input)
    nchw = _nhwc(x, data_format, "DepthToSpace")
    k = int(block_size)
    shape = None
    if x.shape.ndims == 4:
        n, a, b, c = x.shape.values
        if nchw:
            n, c, a, b = x.shape.values
        hw = [_mul(a, k), _mul(b, k)]
        cc = _div(c, k * k, "depth_to_space")
        shape = [n, cc] + hw if nchw else [n] + hw + [cc]
    return make_tensor("DepthToSpace", [x], x.dtype, shape,
                       {"block_size": k, "nchw": nchw}, name=name)


def _s2d(x, block_size, nchw):
    k = block_size
    if nchw:
        x = x.transpose(0, 2, 3, 1)
    n, h, w, c = x.shape
    if h % k or w % k:
        raise ValueError(f"space_to_depth: height {h} and width {w} must be divisible by "
                         f"the block size {k}")
    y = x.reshape(n, h // k, k, w // k, k, c).transpose(0, 1, 3, 2, 4, 5)
    y = y.reshape(n, h // k, w // k, k * k * c)
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2) if nchw else y)


def _d2s(x, block_size, nchw):
    k = block_size
    if nchw:
        x = x.transpose(0, 2, 3, 1)
    n, h, w, c = x.shape
    if c % (k * k):
        raise ValueError(f"depth_to_space: depth {c} must be divisible by block_size^2 = "
                         f"{k * k}")
    y = x.reshape(n, h, w, k, k, c // (k * k)).transpose(0, 1, 3, 2, 4, 5)
    y = y.reshape(n, h * k, w * k, c // (k * k))
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2) if nchw else y)


def _fmt(op):
    return "NCHW" if op.attrs["nchw"] else "NHWC"


OPS.define("SpaceToDepth", kernel=with_attrs(_s2d, "block_size", "nchw"),
           grad=lambda op, dy: [depth_to_space(dy, op.attrs["block_size"],
                                               data_format=_fmt(op))])
OPS.define("DepthToSpace", kernel=with_attrs(_d2s, "block_size", "nchw"),
           grad=lambda op, dy: [space_to_depth(dy, op.attrs["block_size"],
                                               data_format=_fmt(op))])


# ------------------------------------------------------------------ space <-> batch
def _static_matrix(v, what, op_type):
    t = convert_to_tensor(v)
    if t.op.type != "Const":
        raise NotImplementedError(f"{op_type}: {what} must be known when the graph is built "
                                  f"(a constant), got {t.name}")
    return np.asarray(t.op.attrs["value"]).astype(np.int64)


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """Pads the spatial dims (``1 .. len(block_shape)``) by ``paddings``, then moves each
    ``block_shape`` block into the batch dim."""
    x = convert_to_tensor(input)
    bs = _static_matrix(block_shape, "block_shape", "SpaceToBatchND").reshape(-1)
    pads = _static_matrix(paddings, "paddings", "SpaceToBatchND").reshape(-1, 2)
    m = bs.size
    shape = None
    if x.shape.ndims is not None:
        v = list(x.shape.values)
        spatial = [None if d is None else _div(int(d + p.sum()), int(k), "space_to_batch_nd")
                   for d, p, k in zip(v[1:m + 1], pads, bs)]
        shape = [_mul(v[0], int(bs.prod()))] + spatial + v[m + 1:]
    return make_tensor("SpaceToBatchND", [x], x.dtype, shape,
                       {"block_shape": tuple(int(k) for k in bs),
                        "pads": tuple(tuple(int(a) for a in p) for p in pads)}, name=name)


def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002
    """``space_to_batch_nd``'s inverse: moves batch blocks back into the spatial dims and
    crops them by ``crops``."""
    x = convert_to_tensor(input)
    bs = _static_matrix(block_shape, "block_shape", "BatchToSpaceND").reshape(-1)
    crops = _static_matrix(crops, "crops", "BatchToSpaceND").reshape(-1, 2)
    m = bs.size
    shape = None
    if x.shape.ndims is not None:
        v = list(x.shape.values)
        spatial = [None if d is None else int(d * k - c.sum())
                   for d, c, k in zip(v[1:m + 1], crops, bs)]
        shape = [_div(v[0], int(bs.prod()), "batch_to_space_nd")] + spatial + v[m + 1:]
    return make_tensor("BatchToSpaceND", [x], x.dtype, shape,
                       {"block_shape": tuple(int(k) for k in bs),
                        "pads": tuple(tuple(int(a) for a in c) for c in crops)}, name=name)


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa
    """``space_to_batch_nd`` over the two spatial dims of a 4-D input, square blocks."""
    k = int(block_size if block_size is not None else block_shape)
    return space_to_batch_nd(input, [k, k], paddings, name=name)


def batch_to_space(input, crops, block_size, name=None, block_shape=None):  # noqa: A002
    """``batch_to_space_nd`` over the two spatial dims of a 4-D input, square blocks."""
    k = int(block_size if block_size is not None else block_shape)
    return batch_to_space_nd(input, [k, k], crops, name=name)


def _s2b(x, block_shape, pads):
    m = len(block_shape)
    x = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - m - 1))
    n, spatial, rest = x.shape[0], x.shape[1:m + 1], x.shape[m + 1:]
    for d, k in zip(spatial, block_shape):
        if d % k:
            raise ValueError(f"space_to_batch_nd: padded spatial dim {d} is not divisible "
                             f"by the block size {k}")
    dims = [n]
    for d, k in zip(spatial, block_shape):
        dims += [d // k, k]
    y = x.reshape(dims + list(rest))
    perm = [2 * i + 2 for i in range(m)] + [0] + [2 * i + 1 for i in range(m)] + \
        list(range(2 * m + 1, y.ndim))
    y = y.transpose(perm)
    return np.ascontiguousarray(y.reshape([n * int(np.prod(block_shape))] +
                                          [d // k for d, k in zip(spatial, block_shape)] +
                                          list(rest)))


def _b2s(x, block_shape, pads):
    m = len(block_shape)
    nb, spatial, rest = x.shape[0], x.shape[1:m + 1], x.shape[m + 1:]
    prod = int(np.prod(block_shape))
    if nb % prod:
        raise ValueError(f"batch_to_space_nd: batch {nb} is not divisible by the product "
                         f"of block_shape {prod}")
    n = nb // prod
    y = x.reshape(list(block_shape) + [n] + list(spatial) + list(rest))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, y.ndim))
    y = y.transpose(perm).reshape([n] + [d * k for d, k in zip(spatial, block_shape)] +
                                  list(rest))
    idx = tuple([slice(None)] + [slice(a, y.shape[i + 1] - b) for i, (a, b) in
                                 enumerate(pads)])
    return np.ascontiguousarray(y[idx])


OPS.define("SpaceToBatchND", kernel=with_attrs(_s2b, "block_shape", "pads"),
           grad=lambda op, dy: [batch_to_space_nd(dy, list(op.attrs["block_shape"]),
                                                  [list(p) for p in op.attrs["pads"]])])
OPS.define("BatchToSpaceND", kernel=with_attrs(_b2s, "block_shape", "pads"),
           grad=lambda op, dy: [space_to_batch_nd(dy, list(op.attrs["block_shape"]),
                                                  [list(p) for p in op.attrs["pads"]])])


# ------------------------------------------------------------------ extract_image_patches
def _quad(v, what):
    v = [int(a) for a in v]
    if len(v) != 4 or v[0] != 1 or v[3] != 1:
        raise ValueError(f"extract_image_patches: {what} must be [1, rows, cols, 1], got {v}")
    return v[1], v[2]


def _out_size(n, k, s, r, padding):
    keff = (k - 1) * r + 1
    if n is None:
        return None
    return -(-n // s) if padding == "SAME" else max(0, -(-(n - keff + 1) // s))


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None,
                          name=None, sizes=None):
    """Every ``ksizes`` patch (taken every ``strides``, dilated by ``rates``) of NHWC
    ``images``, flattened into the depth dim (``[n, rows, cols, kr * kc * depth]``)."""
    x = convert_to_tensor(images)
    kr, kc = _quad(sizes if ksizes is None else ksizes, "ksizes")
    sr, sc = _quad(strides, "strides")
    rr, rc = _quad(rates, "rates")
    padding = str(padding).upper()
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"extract_image_patches: padding must be 'SAME' or 'VALID', got "
                         f"{padding!r}")
    if x.shape.ndims not in (None, 4):
        raise ValueError(f"extract_image_patches: images {x.name} must be 4-D, got {x.shape}")
    shape = None
    if x.shape.ndims == 4:
        n, h, w, c = x.shape.values
        shape = [n, _out_size(h, kr, sr, rr, padding), _out_size(w, kc, sc, rc, padding),
                 _mul(c, kr * kc)]
    attrs = {"k": (kr, kc), "s": (sr, sc), "r": (rr, rc), "padding": padding}
    return make_tensor("ExtractImagePatches", [x], x.dtype, shape, attrs, name=name)


def _patch_index(h, w, k, s, r, padding):
    """(rows, cols, pad_top, pad_left, padded h, padded w) for the patch gather."""
    oh, ow = _out_size(h, k[0], s[0], r[0], padding), _out_size(w, k[1], s[1], r[1], padding)
    pads = []
    for n, o, kk, ss, rr in ((h, oh, k[0], s[0], r[0]), (w, ow, k[1], s[1], r[1])):
        keff = (kk - 1) * rr + 1
        total = max((o - 1) * ss + keff - n, 0) if padding == "SAME" else 0
        pads.append(total // 2)
    rows = (np.arange(oh) * s[0])[:, None] + np.arange(k[0]) * r[0]     # [oh, kr]
    cols = (np.arange(ow) * s[1])[:, None] + np.arange(k[1]) * r[1]     # [ow, kc]
    return rows, cols, pads


def _layout(h, w, k, s, r, padding):
    """(rows, cols, pad_top, pad_left, padded height, padded width) of the patch gather."""
    rows, cols, (pt, pl) = _patch_index(h, w, k, s, r, padding)
    ph = max(h + pt, int(rows.max()) + 1 if rows.size else 0)
    pw = max(w + pl, int(cols.max()) + 1 if cols.size else 0)
    return rows, cols, pt, pl, ph, pw


def _extract(x, k, s, r, padding):
    x = np.asarray(x)
    n, h, w, c = x.shape
    rows, cols, pt, pl, ph, pw = _layout(h, w, k, s, r, padding)
    xp = np.zeros((n, ph, pw, c), x.dtype)
    xp[:, pt:pt + h, pl:pl + w] = x
    # [n, oh, kr, ow, kc, c] -> [n, oh, ow, kr, kc, c]
    p = xp[:, rows[:, :, None, None], cols[None, None, :, :], :].transpose(0, 1, 3, 2, 4, 5)
    return np.ascontiguousarray(p.reshape(n, rows.shape[0], cols.shape[0], k[0] * k[1] * c))


def _extract_grad(dy, like, k, s, r, padding):
    n, h, w, c = np.shape(like)
    rows, cols, pt, pl, ph, pw = _layout(h, w, k, s, r, padding)
    g = np.zeros((n, ph, pw, c), dy.dtype)
    d = dy.reshape(n, rows.shape[0], cols.shape[0], k[0], k[1], c).transpose(0, 1, 3, 2, 4, 5)
    np.add.at(g, (slice(None), rows[:, :, None, None], cols[None, None, :, :]), d)
    return np.ascontiguousarray(g[:, pt:pt + h, pl:pl + w])


_ATTRS = ("k", "s", "r", "padding")
OPS.define("ExtractImagePatches", kernel=with_attrs(_extract, *_ATTRS),
           grad=lambda op, dy: [make_tensor("ExtractImagePatchesGrad", [dy, op.inputs[0]],
                                            dy.dtype, op.inputs[0].shape, dict(op.attrs))])
OPS.define("ExtractImagePatchesGrad", kernel=with_attrs(_extract_grad, *_ATTRS),
           grad=lambda op, g: [make_tensor("ExtractImagePatches", [g], g.dtype,
                                           op.inputs[0].shape, dict(op.attrs)), None])
