"""``tf.image.draw_bounding_boxes``: box outlines painted onto a batch of images (TF's
DrawBoundingBoxes kernel rules: corners scaled by ``size - 1`` and truncated, edges outside
the image skipped; the default colour cycle; no gradient, as TF's)."""
import numpy as np

from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)

_DEFAULT_COLORS = np.array([
    [1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
    [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]])


def _draw(images, boxes, colors=None):
    out = np.array(images, copy=True)
    n, h, w, depth = out.shape
    boxes = np.asarray(boxes, np.float32)
    if boxes.ndim != 3 or boxes.shape[0] != n or boxes.shape[2] != 4:
        raise ValueError(f"draw_bounding_boxes: boxes must be [batch={n}, num_boxes, 4], got "
                         f"shape {list(boxes.shape)}")
    table = _DEFAULT_COLORS.copy() if colors is None else np.asarray(colors, np.float64)
    if colors is None and depth == 1:
        table[:, 0] = 1.0  # grayscale images: every box white
    if table.ndim != 2 or table.shape[1] < depth or len(table) == 0:
        raise ValueError(f"draw_bounding_boxes: colors must be [num_colors, >= {depth}], got "
                         f"shape {list(table.shape)}")
    for b in range(n):
        for k in range(boxes.shape[1]):
            color = table[k % len(table), :depth].astype(out.dtype)
            r0, c0, r1, c1 = (int(np.float32(v) * np.float32(s - 1)) for v, s in
                              zip(boxes[b, k], (h, w, h, w)))
            if r0 > r1 or c0 > c1 or r0 >= h or r1 < 0 or c0 >= w or c1 < 0:
                continue
            r0c, r1c, c0c, c1c = max(r0, 0), min(r1, h - 1), max(c0, 0), min(c1, w - 1)
            if r0 >= 0:
                out[b, r0, c0c:c1c + 1] = color
            if r1 < h:
                out[b, r1, c0c:c1c + 1] = color
            if c0 >= 0:
                out[b, r0c:r1c + 1, c0] = color
            if c1 < w:
                out[b, r0c:r1c + 1, c1] = color
    return out


def _draw_kernel(op, ctx):
    return _draw


OPS.define("DrawBoundingBoxes", kernel=_draw_kernel, grad=NOT_DIFFERENTIABLE)


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """``images`` (float ``[batch, h, w, depth]``, depth 1, 3 or 4) with the outline of each
    box (``boxes``: ``[batch, num_boxes, 4]`` normalised ``[ymin, xmin, ymax, xmax]``) in
    ``colors[k % len(colors)]`` (TF's default cycle starts yellow, blue, red)."""
    x = convert_to_tensor(images)
    if not x.dtype.is_floating:
        raise TypeError(f"draw_bounding_boxes: images must be float (half or float32), got "
                        f"{x.dtype.name}")
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"draw_bounding_boxes: images must be 4-D [batch, h, w, depth], got "
                         f"shape {x.shape}")
    b = convert_to_tensor(boxes)
    inputs = [x, b] + ([] if colors is None else [convert_to_tensor(colors)])
    return make_tensor("DrawBoundingBoxes", inputs, x.dtype, x.shape, name=name)
