"""More ``tf.image`` composites over core ops: ``transpose_image``, ``rot90``,
``adjust_gamma``, ``total_variation``, ``psnr``, ``image_gradients``, ``sobel_edges`` and
``rgb_to_yuv``
(gradients come from the ops they are made of)."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.images.resize_ops import _image
from estimator_npu.images.transforms import convert_image_dtype

_YUV = np.array([[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
                 [0.114, 0.43601035, -0.10001026]], np.float32)


def transpose_image(image, name=None):
    """``tf.image.transpose``: swaps height and width of a [h, w, c] or [n, h, w, c] image."""
    x = _image(image, "transpose_image")
    perm = [1, 0, 2] if x.shape.ndims == 3 else [0, 2, 1, 3]
    return array_ops.transpose(x, perm, name=name)


def rot90(image, k=1, name=None):
    """``tf.image.rot90``: the image rotated counter-clockwise by ``k`` (a Python int) * 90°."""
    x = _image(image, "rot90")
    k = int(k) % 4
    if k == 0:
        return x
    if k == 2:
        return array_ops.reverse(x, [-3, -2])
    if k == 1:
        return transpose_image(array_ops.reverse(x, [-2]), name=name)
    return array_ops.reverse(transpose_image(x), [-2])


def adjust_gamma(image, gamma=1, gain=1):
    """``tf.image.adjust_gamma``: ``gain * image ** gamma`` (integer images through float)."""
    x = convert_to_tensor(image)
    if x.dtype.is_floating:
        return math_ops.cast(gain, x.dtype) * math_ops.pow(x, math_ops.cast(gamma, x.dtype))
    f = convert_image_dtype(x, dtypes.float32)
    return convert_image_dtype(gain * math_ops.pow(f, float(gamma)), x.dtype, saturate=True)


def total_variation(images, name=None):
    """``tf.image.total_variation``: sum of absolute neighbour differences (per image)."""
    x = _image(images, "total_variation")
    axes = None if x.shape.ndims == 3 else [1, 2, 3]
    dh = x[..., 1:, :, :] - x[..., :-1, :, :]
    dw = x[..., :, 1:, :] - x[..., :, :-1, :]
    return math_ops.add(math_ops.reduce_sum(math_ops.abs(dh), axis=axes),
                        math_ops.reduce_sum(math_ops.abs(dw), axis=axes), name=name)


def psnr(a, b, max_val, name=None):
    """``tf.image.psnr``: peak signal-to-noise ratio over the last three axes, in dB."""
    a = convert_image_dtype(convert_to_tensor(a), dtypes.float32)
    b = convert_image_dtype(convert_to_tensor(b), dtypes.float32)
    max_val = math_ops.cast(max_val, dtypes.float32)
    mse = math_ops.reduce_mean(math_ops.squared_difference(a, b), [-3, -2, -1])
    return math_ops.subtract(20.0 * math_ops.log(max_val) / np.float32(np.log(10.0)),
                             np.float32(10 / np.log(10)) * math_ops.log(mse), name=name)


def image_gradients(image):
    """``tf.image.image_gradients``: ``(dy, dx)`` forward differences of a [n, h, w, c]
    image, zero in the last row / column."""
    x = convert_to_tensor(image)
    if x.shape.ndims != 4:
        raise ValueError(f"image_gradients: `image` must be 4-D [batch, h, w, c], got shape "
                         f"{x.shape}")
    dy = x[:, 1:, :, :] - x[:, :-1, :, :]
    dx = x[:, :, 1:, :] - x[:, :, :-1, :]
    dy = array_ops.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = array_ops.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


def rgb_to_yuv(images):
    """``tf.image.rgb_to_yuv``: YUV of float RGB images (last axis of size 3)."""
    x = convert_to_tensor(images)
    k = math_ops.cast(_YUV, x.dtype)
    flat = math_ops.matmul(array_ops.reshape(x, [-1, 3]), k)
    out = array_ops.reshape(flat, array_ops.shape(x))
    out.set_shape(x.shape)
    return out


_SOBEL = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                   [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], np.float32)  # dy, dx


def sobel_edges(image):
    """``[N, H, W, C, 2]`` Sobel responses (``dy``, ``dx``) of a float ``[N, H, W, C]``
    image, reflect-padded by one pixel, as TF."""
    from estimator_npu.engine.ops import tile_ops
    from estimator_npu.engine.ops.nn_extra_ops import depthwise_conv2d
    x = convert_to_tensor(image)
    if not x.dtype.is_floating:
        raise TypeError(f"sobel_edges: image must be float, got {x.dtype.name}")
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"sobel_edges: image must be 4-D [N, H, W, C], got shape {x.shape}")
    c = x.shape.values[3] if x.shape.ndims is not None else None
    if c is None:
        raise ValueError("sobel_edges: the channel dimension must be known")
    k = np.tile(np.transpose(_SOBEL, (1, 2, 0))[:, :, None, :], (1, 1, c, 1))
    padded = tile_ops.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    y = depthwise_conv2d(padded, convert_to_tensor(k.astype(x.dtype.np)), [1, 1, 1, 1],
                         "VALID")
    shape = array_ops.concat([array_ops.shape(x), [2]], 0)
    out = array_ops.reshape(y, shape)
    out.set_shape(list(x.shape.values) + [2])
    return out
