"""``tf.image`` colour-space ops: RGB <-> HSV, hue and saturation adjustments (and their
random versions), grayscale -> RGB. Images are ``[..., 3]``; integer images are converted
to float in [0, 1] and back as ``tf.image`` does. Hue is in [0, 1) (a fraction of the
colour circle), saturation and value in [0, 1]. No gradients (augmentation ops)."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.ops.random_ops import random_uniform
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, simple

OPS = OpFamily(__name__)  # this family's op definitions (data)
from estimator_npu.images.transforms import convert_image_dtype


def _rgb_to_hsv(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = rgb.max(-1)
    rng = v - rgb.min(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, 0.0)
        safe = np.where(rng > 0, rng, 1.0)
        h = np.where(v == r, (g - b) / safe, np.where(v == g, 2.0 + (b - r) / safe,
                                                        4.0 + (r - g) / safe))
    h = np.where(rng > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, v], -1).astype(rgb.dtype)


def _hsv_to_rgb(hsv):
    h, s, v = hsv[..., 0] % 1.0, hsv[..., 1], hsv[..., 2]
    h6 = h * 6.0
    # each channel as a piecewise-linear function of the hue (the standard hexcone)
    def channel(n):
        k = (n + h6) % 6.0
        return v - v * s * np.clip(np.minimum(k, 4.0 - k), 0.0, 1.0)
    return np.stack([channel(5.0), channel(3.0), channel(1.0)], -1).astype(hsv.dtype)


def _adjust_hue(x, delta):
    hsv = _rgb_to_hsv(x)
    hsv[..., 0] = (hsv[..., 0] + delta) % 1.0
    return _hsv_to_rgb(hsv)


def _adjust_saturation(x, factor):
    hsv = _rgb_to_hsv(x)
    hsv[..., 1] = np.clip(hsv[..., 1] * factor, 0.0, 1.0)
    return _hsv_to_rgb(hsv)


OPS.define("RGBToHSV", kernel=simple(_rgb_to_hsv), grad=NOT_DIFFERENTIABLE)
OPS.define("HSVToRGB", kernel=simple(_hsv_to_rgb), grad=NOT_DIFFERENTIABLE)
OPS.define("AdjustHue", kernel=simple(_adjust_hue), grad=NOT_DIFFERENTIABLE)
OPS.define("AdjustSaturation", kernel=simple(_adjust_saturation), grad=NOT_DIFFERENTIABLE)


def _rgb(images, what):
    x = convert_to_tensor(images)
    if x.shape.ndims is not None and (x.shape.ndims < 1 or x.shape.values[-1] not in (None, 3)):
        raise ValueError(f"{what}: images must have 3 channels in the last dimension, got "
                         f"shape {x.shape}")
    return x


def rgb_to_hsv(images, name=None):
    x = _rgb(images, "rgb_to_hsv")
    if not x.dtype.is_floating:
        raise TypeError(f"rgb_to_hsv: images must be float, got {x.dtype.name}")
    return make_tensor("RGBToHSV", [x], x.dtype, x.shape, name=name or "RGBToHSV")


def hsv_to_rgb(images, name=None):
    x = _rgb(images, "hsv_to_rgb")
    if not x.dtype.is_floating:
        raise TypeError(f"hsv_to_rgb: images must be float, got {x.dtype.name}")
    return make_tensor("HSVToRGB", [x], x.dtype, x.shape, name=name or "HSVToRGB")


def _adjust(op_type, image, amount, name):
    x = _rgb(image, op_type)
    f = x if x.dtype.is_floating else convert_image_dtype(x, dtypes.float32)
    y = make_tensor(op_type, [f, convert_to_tensor(amount, dtype=f.dtype)], f.dtype, f.shape,
                    name=name or op_type)
    return y if f is x else convert_image_dtype(y, x.dtype, saturate=True)


def adjust_hue(image, delta, name=None):
    """Rotates the hue by ``delta`` (in [-1, 1], a fraction of the colour circle)."""
    return _adjust("AdjustHue", image, delta, name)


def adjust_saturation(image, saturation_factor, name=None):
    """Multiplies the saturation by ``saturation_factor`` (clipped to [0, 1])."""
    return _adjust("AdjustSaturation", image, saturation_factor, name)


def random_hue(image, max_delta, seed=None):
    if not 0 <= max_delta <= 0.5:
        raise ValueError(f"random_hue: max_delta must be in [0, 0.5], got {max_delta}")
    return adjust_hue(image, random_uniform([], -max_delta, max_delta, seed=seed))


def random_saturation(image, lower, upper, seed=None):
    if upper <= lower:
        raise ValueError(f"random_saturation: upper ({upper}) must be > lower ({lower})")
    if lower < 0:
        raise ValueError(f"random_saturation: lower must be non-negative, got {lower}")
    return adjust_saturation(image, random_uniform([], lower, upper, seed=seed))


def grayscale_to_rgb(images, name=None):
    """``[..., 1]`` -> ``[..., 3]`` (the channel repeated)."""
    x = convert_to_tensor(images)
    if x.shape.ndims is not None and x.shape.values[-1] not in (None, 1):
        raise ValueError(f"grayscale_to_rgb: the last dimension must be 1, got shape "
                         f"{x.shape}")
    return array_ops.concat([x, x, x], -1, name=name or "grayscale_to_rgb")
