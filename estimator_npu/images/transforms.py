"""``tf.image`` transforms composed from engine ops: crops and pads, flips (fixed and
random), standardization, dtype conversion and colour adjustments. Images are
``[H, W, C]`` or ``[N, H, W, C]``; the resize and random-crop kernels live in
``images.resize_ops``."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.images.resize_ops import _image
from estimator_npu.engine.ops.random_ops import random_uniform


# ------------------------------------------------------------------ crops / pads
def _hwc(x, what):
    if x.shape.ndims is None or None in x.shape.values[-3:]:
        raise ValueError(f"{what}: the image height, width and channels must be known "
                         f"statically, got shape {x.shape}")
    return x.shape.values[-3:]


def central_crop(image, central_fraction):
    """The central ``central_fraction`` of each side."""
    x = _image(image, "central_crop")
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError(f"central_crop: central_fraction must be in (0, 1], got "
                         f"{central_fraction}")
    if central_fraction == 1.0:
        return x
    h, w, _ = _hwc(x, "central_crop")
    top = int((h - h * central_fraction) / 2)
    left = int((w - w * central_fraction) / 2)
    return _crop(x, top, left, h - 2 * top, w - 2 * left)


def _crop(x, top, left, height, width):
    lead = [0] * (x.shape.ndims - 3)
    out = array_ops.slice(x, lead + [top, left, 0], [-1] * len(lead) + [height, width, -1])
    # with a tensor offset the slice cannot tell the batch and channel sizes; they are x's
    dims = list(x.shape.values)
    out.set_shape(dims[:-3] + [s if isinstance(s, int) else None for s in (height, width)]
                  + dims[-1:])
    return out


def _int_or_tensor(value, what):
    """A Python int, or a scalar integer tensor (pix2pix crops at a random offset)."""
    if isinstance(value, (Tensor, Variable)):
        t = convert_to_tensor(value)
        if not t.dtype.is_integer or t.shape.ndims not in (None, 0):
            raise ValueError(f"crop_to_bounding_box: {what} must be an int or a scalar "
                             f"integer tensor, got {t.dtype.name} of shape {t.shape}")
        return math_ops.cast(t, dtypes.int32) if t.dtype != dtypes.int32 else t
    return int(value)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height x target_width`` window at ``(offset_height, offset_width)``;
    each argument an int or a scalar integer tensor."""
    return _crop(_image(image, "crop_to_bounding_box"),
                 _int_or_tensor(offset_height, "offset_height"),
                 _int_or_tensor(offset_width, "offset_width"),
                 _int_or_tensor(target_height, "target_height"),
                 _int_or_tensor(target_width, "target_width"))


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    x = _image(image, "pad_to_bounding_box")
    h, w, _ = _hwc(x, "pad_to_bounding_box")
    pads = [[0, 0]] * (x.shape.ndims - 3) + [
        [int(offset_height), int(target_height) - int(offset_height) - h],
        [int(offset_width), int(target_width) - int(offset_width) - w], [0, 0]]
    if min(p for pr in pads for p in pr) < 0:
        raise ValueError("pad_to_bounding_box: the target is smaller than the image")
    return array_ops.pad(x, pads)


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """Centre-crops and/or zero-pads to ``target_height x target_width``."""
    x = _image(image, "resize_image_with_crop_or_pad")
    h, w, _ = _hwc(x, "resize_image_with_crop_or_pad")
    th, tw = int(target_height), int(target_width)
    crop_t, crop_l = max((h - th) // 2, 0), max((w - tw) // 2, 0)
    x = _crop(x, crop_t, crop_l, min(h, th), min(w, tw))
    pad_t, pad_l = max((th - h) // 2, 0), max((tw - w) // 2, 0)
    return pad_to_bounding_box(x, pad_t, pad_l, th, tw)


resize_with_crop_or_pad = resize_image_with_crop_or_pad


# ------------------------------------------------------------------ flips
def flip_left_right(image):
    return array_ops.reverse(_image(image, "flip_left_right"), [-2])


def flip_up_down(image):
    return array_ops.reverse(_image(image, "flip_up_down"), [-3])


def _random_flip(image, axis, seed, what):
    x = _image(image, what)
    batched = x.shape.ndims == 4
    if batched:
        n = x.shape[0]
        if n is None:
            raise ValueError(f"{what}: a batch of images needs a static batch size")
        u = random_uniform([n, 1, 1, 1], seed=seed)
    else:
        u = random_uniform([], seed=seed)
    mirror = math_ops.cast(math_ops.less(u, 0.5), x.dtype)
    flipped = array_ops.reverse(x, [axis])
    return flipped * mirror + x * (1 - mirror)


def random_flip_left_right(image, seed=None):
    """Mirrors each image horizontally with probability 1/2."""
    return _random_flip(image, -2, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    return _random_flip(image, -3, seed, "random_flip_up_down")


# ------------------------------------------------------------------ colour / dtype
def per_image_standardization(image):
    """``(x - mean) / max(stddev, 1 / sqrt(num_elements))`` over each image."""
    x = math_ops.cast(_image(image, "per_image_standardization"), dtypes.float32)
    axes = [-1, -2, -3]
    n = math_ops.cast(math_ops.reduce_prod(array_ops.shape(x)[-3:]), dtypes.float32)
    mean = math_ops.reduce_mean(x, axis=axes, keepdims=True)
    var = math_ops.reduce_mean(math_ops.square(x - mean), axis=axes, keepdims=True)
    adjusted = math_ops.maximum(math_ops.sqrt(var), math_ops.rsqrt(n))
    return (x - mean) / adjusted


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts between integer (full range) and float (``[0, 1]``) image dtypes."""
    x = convert_to_tensor(image)
    dt = dtypes.as_dtype(dtype)
    if dt == x.dtype:
        return x
    src_int, dst_int = x.dtype.is_integer, dt.is_integer
    if src_int and dst_int:
        raise NotImplementedError("convert_image_dtype between integer types")
    if src_int:
        return math_ops.cast(x, dt) * (1.0 / np.iinfo(x.dtype.np).max)
    if dst_int:
        top = np.iinfo(dt.np).max
        scaled = x * (top + 0.5)
        if saturate:
            scaled = math_ops.clip_by_value(scaled, 0.0, float(top))
        return math_ops.cast(scaled, dt, name=name)
    return math_ops.cast(x, dt, name=name)


def adjust_brightness(image, delta):
    x = convert_to_tensor(image)
    orig = x.dtype
    y = convert_image_dtype(x, dtypes.float32) + delta
    return convert_image_dtype(y, orig, saturate=True) if orig != dtypes.float32 else y


def adjust_contrast(images, contrast_factor):
    """``(x - mean) * factor + mean`` with the mean over height and width per channel."""
    x = convert_to_tensor(images)
    orig = x.dtype
    f = convert_image_dtype(x, dtypes.float32)
    mean = math_ops.reduce_mean(f, axis=[-3, -2], keepdims=True)
    y = (f - mean) * contrast_factor + mean
    return convert_image_dtype(y, orig, saturate=True) if orig != dtypes.float32 else y


def random_brightness(image, max_delta, seed=None):
    if max_delta < 0:
        raise ValueError("random_brightness: max_delta must be non-negative")
    return adjust_brightness(image, random_uniform([], -max_delta, max_delta, seed=seed))


def random_contrast(image, lower, upper, seed=None):
    if upper <= lower:
        raise ValueError("random_contrast: upper must be > lower")
    if lower < 0:
        raise ValueError("random_contrast: lower must be non-negative")
    return adjust_contrast(image, random_uniform([], lower, upper, seed=seed))


def rgb_to_grayscale(images, name=None):
    x = convert_to_tensor(images)
    f = convert_image_dtype(x, dtypes.float32)
    w = np.array([0.2989, 0.5870, 0.1140], np.float32)
    g = math_ops.reduce_sum(f * w, axis=-1, keepdims=True)
    return convert_image_dtype(g, x.dtype) if x.dtype != dtypes.float32 else g
