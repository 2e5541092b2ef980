"""``tf.image.sample_distorted_bounding_box``: a random crop window for Inception-style
augmentation.

For one image of ``image_size = [height, width, channels]`` and ``bounding_boxes`` of
shape ``[batch, N, 4]`` (``[ymin, xmin, ymax, xmax]``, fractions of the image), one of
the boxes is chosen (the whole image when there are none and
``use_image_if_no_bounding_boxes``), then up to ``max_attempts`` windows are drawn: an
aspect ratio uniform in ``aspect_ratio_range``, a height uniform between the heights that
give ``area_range`` of the image's area at that ratio (and fit), a width from the ratio,
and an offset uniform over the positions that fit. The first window with an area in
``area_range`` that covers at least ``min_object_covered`` of the chosen box wins; when
none does, the window is the whole image. Outputs ``begin = [y, x, 0]``,
``size = [h, w, -1]`` (for ``tf.slice``) and ``bboxes`` ``[1, 1, 4]`` (the window as
fractions).
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.ops.random_ops import get_seed
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _draw(rng, height, width, box, min_covered, ratio_range, area_range, attempts):
    area = float(height * width)
    by0, bx0, by1, bx1 = box[0] * height, box[1] * width, box[2] * height, box[3] * width
    box_area = max((by1 - by0) * (bx1 - bx0), 0.0)
    for _ in range(attempts):
        ratio = rng.uniform(*ratio_range)
        min_h = int(round(np.sqrt(area_range[0] * area / ratio)))
        max_h = int(round(np.sqrt(area_range[1] * area / ratio)))
        if int(round(max_h * ratio)) > width:   # keep the width inside the image
            max_h = int((width + 0.5 - 1e-7) / ratio)
        max_h = min(max_h, height)
        min_h = min(max(min_h, 1), max_h)
        if max_h < 1:
            continue
        h = int(rng.integers(min_h, max_h + 1))
        w = int(round(h * ratio))
        if w < 1 or w > width or not area_range[0] * area <= h * w <= area_range[1] * area:
            continue
        y = int(rng.integers(0, height - h + 1))
        x = int(rng.integers(0, width - w + 1))
        inter = max(min(by1, y + h) - max(by0, y), 0.0) * max(min(bx1, x + w) - max(bx0, x), 0.0)
        covered = inter / box_area if box_area > 0 else 1.0
        if covered >= min_covered:
            return y, x, h, w
    return 0, 0, height, width


def _kernel(op, ctx):
    rng, a = ctx.rng(op), op.attrs

    def run(image_size, boxes, min_covered):
        height, width = (int(v) for v in np.asarray(image_size).reshape(-1)[:2])
        if height <= 0 or width <= 0:
            raise errors.InvalidArgumentError(
                None, op, f"{op.name}: image_size must be positive, got {list(image_size)}")
        boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
        if boxes.shape[0] == 0:
            if not a["use_image"]:
                raise errors.InvalidArgumentError(
                    None, op, f"{op.name}: no bounding boxes given; pass "
                    "use_image_if_no_bounding_boxes=True to use the whole image")
            box = np.array([0.0, 0.0, 1.0, 1.0])
        else:
            box = boxes[int(rng.integers(0, boxes.shape[0]))]
        y, x, h, w = _draw(rng, height, width, box, float(min_covered), a["ratio"],
                           a["area"], a["attempts"])
        out = op.outputs[0].dtype.np
        return (np.array([y, x, 0], out), np.array([h, w, -1], out),
                np.array([[[y / height, x / width, (y + h) / height, (x + w) / width]]],
                         np.float32))
    return run


OPS.define("SampleDistortedBoundingBox", kernel=_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


def _pair(value, what):
    lo, hi = (float(v) for v in value)
    if not 0 < lo <= hi:
        raise ValueError(f"sample_distorted_bounding_box: {what} must be (low, high) with "
                         f"0 < low <= high, got {tuple(value)}")
    return lo, hi


def sample_distorted_bounding_box_v2(image_size, bounding_boxes, seed=0,
                                     min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                                     area_range=(0.05, 1.0), max_attempts=100,
                                     use_image_if_no_bounding_boxes=False, name=None):
    """``(begin, size, bboxes)``: see the module docstring."""
    size = convert_to_tensor(image_size)
    if not size.dtype.is_integer:
        raise TypeError(f"sample_distorted_bounding_box: image_size must be an integer "
                        f"tensor, got {size.dtype.name}")
    boxes = convert_to_tensor(bounding_boxes, dtype=dtypes.float32)
    covered = convert_to_tensor(min_object_covered, dtype=dtypes.float32)
    s1, s2 = get_seed(seed or None)
    attrs = {"ratio": _pair(aspect_ratio_range, "aspect_ratio_range"),
             "area": _pair(area_range, "area_range"), "attempts": int(max_attempts),
             "use_image": bool(use_image_if_no_bounding_boxes),
             "seed2": None if s1 is None else [s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]}
    op = make_op("SampleDistortedBoundingBox", [size, boxes, covered],
                 [(size.dtype, [3]), (size.dtype, [3]), (dtypes.float32, [1, 1, 4])],
                 attrs, name=name or "SampleDistortedBoundingBox")
    return tuple(op.outputs)


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None,
                                  min_object_covered=0.1, aspect_ratio_range=None,
                                  area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """TF1's signature of ``sample_distorted_bounding_box_v2``."""
    return sample_distorted_bounding_box_v2(
        image_size, bounding_boxes, seed=seed or seed2 or 0,
        min_object_covered=min_object_covered,
        aspect_ratio_range=aspect_ratio_range or (0.75, 1.33),
        area_range=area_range or (0.05, 1.0), max_attempts=max_attempts or 100,
        use_image_if_no_bounding_boxes=bool(use_image_if_no_bounding_boxes), name=name)
