"""``tf.image.ssim``: the structural similarity index (Wang et al. 2004) of two images
with a Gaussian window, composed from core ops (a VALID convolution per channel), so its
gradient comes from them."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.conv_ops import conv2d
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.images.transforms import convert_image_dtype


def _gauss_window(size, sigma, np_dtype):
    """The ``size x size`` Gaussian window (a softmax of ``-d^2 / (2 sigma^2)``), as TF's."""
    dt = np.dtype(np_dtype).type
    coords = np.arange(size, dtype=np_dtype) - dt(size - 1) / dt(2)
    g = np.square(coords) * (dt(-0.5) / np.square(dt(sigma)))
    g = (g[None, :] + g[:, None]).reshape(-1)
    g = np.exp(g - g.max())
    return (g / g.sum()).astype(np_dtype).reshape(size, size, 1, 1)


def _windowed_mean(x, window):
    """The window's weighted mean of every channel of ``[..., H, W, C]`` (VALID), as
    ``[B, C, H', W']`` with ``B`` the flattened leading dims."""
    s = array_ops.shape(x)
    x = array_ops.reshape(x, array_ops.concat([[-1], s[-3:]], 0))
    x = array_ops.transpose(x, [0, 3, 1, 2])
    xs = array_ops.shape(x)
    y = conv2d(array_ops.reshape(x, array_ops.concat([[-1], xs[2:], [1]], 0)), window,
               [1, 1, 1, 1], "VALID")
    ys = array_ops.shape(y)
    return array_ops.reshape(y, array_ops.concat([xs[:2], ys[1:3]], 0))


def _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2):
    """``(ssim, contrast-structure)`` per channel, ``[B, C]``, in ``x``'s float dtype."""
    window = convert_to_tensor(_gauss_window(filter_size, filter_sigma, x.dtype.np))
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mx, my = _windowed_mean(x, window), _windowed_mean(y, window)
    num0 = mx * my * 2.0
    den0 = math_ops.square(mx) + math_ops.square(my)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = _windowed_mean(x * y, window) * 2.0
    den1 = _windowed_mean(math_ops.square(x) + math_ops.square(y), window)
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return (math_ops.reduce_mean(luminance * cs, [-2, -1]),
            math_ops.reduce_mean(cs, [-2, -1]))


def _check_pair(img1, img2, filter_size):
    a, b = convert_to_tensor(img1, name="img1"), convert_to_tensor(img2, name="img2")
    for name, t in (("img1", a), ("img2", b)):
        if t.shape.ndims is not None and t.shape.ndims < 3:
            raise ValueError(f"ssim: {name} must be at least 3-D [..., H, W, C], got shape "
                             f"{t.shape}")
        if t.shape.ndims is not None:
            for d in t.shape.values[-3:-1]:
                if d is not None and d < filter_size:
                    raise ValueError(f"ssim: {name}'s height and width must be at least "
                                     f"filter_size={filter_size}, got shape {t.shape}")
    if a.shape.ndims is not None and b.shape.ndims is not None and \
            not a.shape[-3:].is_compatible_with(b.shape[-3:]):
        raise ValueError(f"ssim: img1 and img2 must have the same [H, W, C], got "
                         f"{a.shape} and {b.shape}")
    if a.dtype != b.dtype:
        raise TypeError(f"ssim: img1 and img2 must have the same dtype, got "
                        f"{a.dtype.name} and {b.dtype.name}")
    return a, b


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """``tf.image.ssim``: SSIM of ``[..., H, W, C]`` images over the last three axes
    (float32; integer images are scaled by ``convert_image_dtype`` first, ``max_val``
    with them)."""
    if return_index_map:
        raise NotImplementedError("ssim: return_index_map=True")
    a, b = _check_pair(img1, img2, int(filter_size))
    max_val = convert_image_dtype(math_ops.cast(max_val, a.dtype), dtypes.float32)
    a, b = convert_image_dtype(a, dtypes.float32), convert_image_dtype(b, dtypes.float32)
    per_channel, _ = _ssim_per_channel(a, b, max_val, int(filter_size), filter_sigma, k1, k2)
    out = math_ops.reduce_mean(per_channel, [-1])
    return _batch_shape(out, a)


def _batch_shape(v, like):
    """``[B]`` back to ``like``'s leading dims (``[]`` for a single image)."""
    out = array_ops.reshape(v, array_ops.shape(like)[:-3])
    if like.shape.ndims is not None:
        out.set_shape(like.shape.values[:-3])
    return out


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """``tf.image.ssim_multiscale``: MS-SSIM (Wang et al. 2003) over
    ``len(power_factors)`` scales, each halving the previous one by 2x2 average pooling
    (odd sizes first padded by one symmetric row / column, as TF); the product of the
    scales' contrast-structure terms and the last scale's SSIM, each to its power. Needs
    static image height and width."""
    a, b = _check_pair(img1, img2, int(filter_size))
    for name, t in (("img1", a), ("img2", b)):
        if t.shape.ndims is None or None in t.shape.values[-3:-1]:
            raise ValueError(f"ssim_multiscale: {name} needs a static rank, height and "
                             f"width, got shape {t.shape}")
    from estimator_npu.engine.ops.pool_ops import avg_pool
    from estimator_npu.engine.ops.tile_ops import pad
    from estimator_npu.engine.ops.nn_ops import relu
    max_val = convert_image_dtype(math_ops.cast(max_val, a.dtype), dtypes.float32)
    imgs = [convert_image_dtype(a, dtypes.float32), convert_image_dtype(b, dtypes.float32)]
    lead = array_ops.shape(imgs[0])[:-3]
    mcs, per_channel = [], None
    for k in range(len(power_factors)):
        if k > 0:
            h, w = imgs[0].shape.values[-3:-1]
            flat = [array_ops.reshape(x, [-1] + list(x.shape.values[-3:-1]) +
                                      [array_ops.shape(x)[-1]]) for x in imgs]
            if h % 2 or w % 2:
                flat = [pad(x, [[0, 0], [0, h % 2], [0, w % 2], [0, 0]], mode="SYMMETRIC")
                        for x in flat]
            pooled = [avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID") for x in flat]
            imgs = []
            for x in pooled:
                y = array_ops.reshape(x, array_ops.concat([lead, array_ops.shape(x)[1:]], 0))
                y.set_shape(list(a.shape.values[:-3]) + list(x.shape.values[1:]))
                imgs.append(y)
            for d in imgs[0].shape.values[-3:-1]:
                if d < filter_size:
                    raise ValueError(f"ssim_multiscale: scale {k} is {imgs[0].shape} "
                                     f"images, smaller than filter_size={filter_size} (use "
                                     f"larger images, fewer power_factors or a smaller "
                                     f"filter)")
        per_channel, cs = _ssim_per_channel(imgs[0], imgs[1], max_val, int(filter_size),
                                            filter_sigma, k1, k2)
        mcs.append(relu(cs))
    mcs.pop()
    stacked = array_ops.stack(mcs + [relu(per_channel)], axis=-1)
    weights = np.asarray(power_factors, np.float32)
    ms = math_ops.reduce_prod(math_ops.pow(stacked, weights), [-1])
    return _batch_shape(math_ops.reduce_mean(ms, [-1]), a)
