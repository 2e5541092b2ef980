"""Box ops of ``tf.image``: ``crop_and_resize`` (with its image and box gradients),
``non_max_suppression`` (and ``_with_scores`` / ``_overlaps`` / ``_padded``) and
``resize_image_with_pad``.

``crop_and_resize`` follows TF's CropAndResize: box ``[y1, x1, y2, x2]`` (fractions of
the image) samples row ``y`` of a ``crop_h``-row crop at ``y1 * (H - 1) + y * (y2 - y1) *
(H - 1) / (crop_h - 1)`` (the box centre when ``crop_h == 1``); samples outside
``[0, H - 1]`` take ``extrapolation_value``; ``bilinear`` interpolates between the floor
and ceiling pixels, ``nearest`` rounds.

``non_max_suppression`` greedily keeps the highest-scoring box, drops the remaining boxes
whose IoU with it exceeds ``iou_threshold`` and repeats, skipping scores not above
``score_threshold`` (TF's NonMaxSuppressionV3 order: stable by descending score).
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_op, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


# ------------------------------------------------------------------ crop_and_resize
def _coords(n, lo, hi, crop):
    """Sample positions ``[B, crop]`` along one axis (float32 arithmetic in TF's order, so
    positions land on the same pixels), their validity and the derivatives of the
    positions with respect to ``lo`` and ``hi``."""
    f32 = np.float32
    k = np.arange(crop, dtype=f32)[None, :]
    lo, hi = lo.astype(f32)[:, None], hi.astype(f32)[:, None]
    if crop > 1:
        ratio = f32(n - 1) / f32(crop - 1)
        pos = lo * f32(n - 1) + k * ((hi - lo) * f32(n - 1) / f32(crop - 1))
        d_lo = np.broadcast_to(f32(n - 1) - k * ratio, pos.shape)
        d_hi = np.broadcast_to(k * ratio, pos.shape)
    else:
        pos = f32(0.5) * (lo + hi) * f32(n - 1) + f32(0) * k
        d_lo = d_hi = np.full(pos.shape, 0.5 * (n - 1))
    valid = (pos >= 0) & (pos <= n - 1)
    return (np.where(valid, pos, 0).astype(np.float64), valid, d_lo.astype(np.float64),
            d_hi.astype(np.float64))


def _check_index(box_ind, n):
    if box_ind.size and (box_ind.min() < 0 or box_ind.max() >= n):
        raise errors.InvalidArgumentError(
            None, None, f"crop_and_resize: box_ind values must be in [0, {n}), got "
            f"{box_ind.tolist()}")


def _sampling(image_shape, boxes, box_ind, crop, method):
    n, h, w, _ = image_shape
    box_ind = np.asarray(box_ind, np.int64).reshape(-1)
    _check_index(box_ind, n)
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    ys, vy, dy1, dy2 = _coords(h, b[:, 0], b[:, 2], crop[0])
    xs, vx, dx1, dx2 = _coords(w, b[:, 1], b[:, 3], crop[1])
    if method == "nearest":
        ty = by = np.floor(ys + 0.5).astype(np.int64)  # roundf: halves away from zero
        lx = rx = np.floor(xs + 0.5).astype(np.int64)
        fy, fx = np.zeros_like(ys), np.zeros_like(xs)
    else:
        ty, by = np.floor(ys).astype(np.int64), np.ceil(ys).astype(np.int64)
        lx, rx = np.floor(xs).astype(np.int64), np.ceil(xs).astype(np.int64)
        fy, fx = ys - ty, xs - lx
    valid = vy[:, :, None] & vx[:, None, :]
    return box_ind, (ty, by, fy, dy1, dy2), (lx, rx, fx, dx1, dx2), valid


def _corners(image, bi, ty, by, lx, rx):
    """The four neighbours ``[B, ch, cw, C]`` of every sample (float64)."""
    img = image.astype(np.float64)
    sel = bi[:, None, None]
    return (img[sel, ty[:, :, None], lx[:, None, :]], img[sel, ty[:, :, None], rx[:, None, :]],
            img[sel, by[:, :, None], lx[:, None, :]], img[sel, by[:, :, None], rx[:, None, :]])


def _crop_kernel(op, ctx):
    crop, method, extrap = op.attrs["crop_size"], op.attrs["method"], op.attrs["extrapolation"]

    def crop_and_resize(image, boxes, box_ind):
        bi, (ty, by, fy, _, _), (lx, rx, fx, _, _), valid = _sampling(
            image.shape, boxes, box_ind, crop, method)
        tl, tr, bl, br = _corners(image, bi, ty, by, lx, rx)
        fx4, fy4 = fx[:, None, :, None], fy[:, :, None, None]
        top = tl + (tr - tl) * fx4
        bottom = bl + (br - bl) * fx4
        out = top + (bottom - top) * fy4
        return np.where(valid[..., None], out, extrap).astype(np.float32)
    return crop_and_resize


def _grad_image_kernel(op, ctx):
    crop, method, dt = op.attrs["crop_size"], op.attrs["method"], op.attrs["dtype"]

    def crop_and_resize_grad_image(grads, boxes, box_ind, image_size):
        shape = tuple(int(s) for s in image_size)
        bi, (ty, by, fy, _, _), (lx, rx, fx, _, _), valid = _sampling(
            shape, boxes, box_ind, crop, method)
        g = np.where(valid[..., None], grads.astype(np.float64), 0.0)
        fx4, fy4 = fx[:, None, :, None], fy[:, :, None, None]
        out = np.zeros(shape)
        sel = np.broadcast_to(bi[:, None, None], valid.shape)
        for rows, cols, wgt in ((ty, lx, (1 - fy4) * (1 - fx4)), (ty, rx, (1 - fy4) * fx4),
                                (by, lx, fy4 * (1 - fx4)), (by, rx, fy4 * fx4)):
            r = np.broadcast_to(rows[:, :, None], valid.shape)
            c = np.broadcast_to(cols[:, None, :], valid.shape)
            np.add.at(out, (sel, r, c), g * wgt)
        return out.astype(dt)
    return crop_and_resize_grad_image


def _grad_boxes_kernel(op, ctx):
    crop = op.attrs["crop_size"]

    def crop_and_resize_grad_boxes(grads, image, boxes, box_ind):
        bi, (ty, by, fy, dy1, dy2), (lx, rx, fx, dx1, dx2), valid = _sampling(
            image.shape, boxes, box_ind, crop, "bilinear")
        tl, tr, bl, br = _corners(image, bi, ty, by, lx, rx)
        fx4, fy4 = fx[:, None, :, None], fy[:, :, None, None]
        g = np.where(valid[..., None], grads.astype(np.float64), 0.0)
        gy = np.sum(g * ((1 - fx4) * (bl - tl) + fx4 * (br - tr)), axis=-1)  # [B, ch, cw]
        gx = np.sum(g * ((1 - fy4) * (tr - tl) + fy4 * (br - bl)), axis=-1)
        # a sample on an integer position has floor == ceil: no gradient through it (TF)
        gy = np.where(by[:, :, None] > ty[:, :, None], gy, 0.0)
        gx = np.where(rx[:, None, :] > lx[:, None, :], gx, 0.0)
        out = np.stack([np.sum(gy * dy1[:, :, None], (1, 2)),
                        np.sum(gx * dx1[:, None, :], (1, 2)),
                        np.sum(gy * dy2[:, :, None], (1, 2)),
                        np.sum(gx * dx2[:, None, :], (1, 2))], axis=1)
        return out.astype(boxes.dtype)
    return crop_and_resize_grad_boxes


def _crop_grad(op, dy):
    image, boxes, box_ind = op.inputs
    a = op.attrs
    d_image = None
    if image.dtype.is_floating:
        d_image = make_tensor("CropAndResizeGradImage",
                              [dy, boxes, box_ind, array_ops.shape(image)], image.dtype,
                              image.shape if image.shape.ndims is not None else [None] * 4,
                              dict(a, dtype=image.dtype.np), name="CropAndResizeGradImage")
    d_boxes = None
    if a["method"] == "bilinear":
        d_boxes = make_tensor("CropAndResizeGradBoxes", [dy, image, boxes, box_ind],
                              boxes.dtype, boxes.shape, dict(a), name="CropAndResizeGradBoxes")
    return [d_image, d_boxes, None]


OPS.define("CropAndResize", kernel=_crop_kernel, grad=_crop_grad)
OPS.define("CropAndResizeGradImage", kernel=_grad_image_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("CropAndResizeGradBoxes", kernel=_grad_boxes_kernel, grad=NOT_DIFFERENTIABLE)


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear",
                    extrapolation_value=0.0, name=None, box_indices=None):
    """Crops boxes of a ``[N, H, W, C]`` batch and resizes each to ``crop_size``.

    Args:
        image: 4-D tensor (any real dtype; the result is float32).
        boxes: ``[B, 4]`` float ``[y1, x1, y2, x2]`` in normalised coordinates (``y1 > y2``
            flips the crop).
        box_ind: ``[B]`` int32 image index of each box (``box_indices`` in TF2).
        crop_size: ``[crop_height, crop_width]`` positive ints.
        method: ``"bilinear"`` or ``"nearest"``.
        extrapolation_value: value of samples outside the image.
    """
    box_ind = box_indices if box_ind is None else box_ind
    if box_ind is None or crop_size is None:
        raise ValueError("crop_and_resize: box_ind and crop_size must be given")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"crop_and_resize: method must be 'bilinear' or 'nearest', got "
                         f"{method!r}")
    x = convert_to_tensor(image)
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"crop_and_resize: image must be 4-D [N, H, W, C], got shape "
                         f"{x.shape}")
    b = convert_to_tensor(boxes, dtype=dtypes.float32)
    if b.shape.ndims is not None and (b.shape.ndims != 2 or
                                      b.shape.values[1] not in (None, 4)):
        raise ValueError(f"crop_and_resize: boxes must be [num_boxes, 4], got shape "
                         f"{b.shape}")
    bi = convert_to_tensor(box_ind, dtype=dtypes.int32)
    if bi.shape.ndims is not None and bi.shape.ndims != 1:
        raise ValueError(f"crop_and_resize: box_ind must be 1-D, got shape {bi.shape}")
    size = array_ops._static_ints(crop_size, "crop_size", "crop_and_resize")
    if size is None or len(size) != 2 or min(size) < 1:
        raise ValueError(f"crop_and_resize: crop_size must be 2 positive ints, got "
                         f"{crop_size!r}")
    nb = b.shape.values[0] if b.shape.ndims is not None else None
    nb = nb if nb is not None else (bi.shape.values[0] if bi.shape.ndims is not None else None)
    c = x.shape.values[3] if x.shape.ndims is not None else None
    attrs = {"crop_size": tuple(int(s) for s in size), "method": method,
             "extrapolation": float(extrapolation_value)}
    return make_tensor("CropAndResize", [x, b, bi], dtypes.float32,
                       TensorShape([nb, size[0], size[1], c]), attrs,
                       name=name or "CropAndResize")


# ------------------------------------------------------------------ non_max_suppression
def _iou(a, b):
    ya0, ya1 = np.minimum(a[0], a[2]), np.maximum(a[0], a[2])
    xa0, xa1 = np.minimum(a[1], a[3]), np.maximum(a[1], a[3])
    yb0, yb1 = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    xb0, xb1 = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    inter = np.maximum(np.minimum(ya1, yb1) - np.maximum(ya0, yb0), 0) * \
        np.maximum(np.minimum(xa1, xb1) - np.maximum(xa0, xb0), 0)
    union = (ya1 - ya0) * (xa1 - xa0) + (yb1 - yb0) * (xb1 - xb0) - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _nms(boxes, scores, max_out, iou_thr, score_thr, overlaps=None, soft_sigma=0.0):
    scores = np.asarray(scores, np.float64).copy()
    order = [i for i in np.argsort(-scores, kind="stable") if scores[i] > score_thr]
    keep, kept_scores = [], []
    cand = list(order)
    while cand and len(keep) < max_out:
        i = cand.pop(0)
        keep.append(i)
        kept_scores.append(scores[i])
        if not cand:
            break
        rest = np.array(cand)
        # TF compares overlaps[candidate, selected]
        ov = overlaps[rest, i] if overlaps is not None else _iou(boxes[i], boxes[rest])
        cand = [j for j, o in zip(cand, ov) if not o > iou_thr]
    return np.array(keep, np.int32), np.array(kept_scores)


def _nms_kernel(op, ctx):
    a = op.attrs

    def non_max_suppression(boxes, scores, max_out, iou, score):
        boxes = np.asarray(boxes, np.float64)
        ov = boxes if a["overlaps"] else None
        keep, kept = _nms(None if a["overlaps"] else boxes, scores, int(max_out), float(iou),
                          float(score) if score is not None else -np.inf, overlaps=ov)
        if a["pad"]:
            n = len(keep)
            keep = np.concatenate([keep, np.zeros(int(max_out) - n, np.int32)])
            return keep, np.int32(n)
        return keep, kept.astype(op.outputs[1].dtype.np)
    return non_max_suppression


OPS.define("NonMaxSuppressionV5", kernel=_nms_kernel, grad=NOT_DIFFERENTIABLE)


def _nms_op(boxes, scores, max_output_size, iou_threshold, score_threshold, name,
            overlaps=False, pad=False, what="non_max_suppression"):
    b = convert_to_tensor(boxes, dtype=None)
    if not b.dtype.is_floating:
        raise TypeError(f"{what}: boxes must be float, got {b.dtype.name}")
    if b.shape.ndims is not None and b.shape.ndims != 2:
        raise ValueError(f"{what}: {'overlaps' if overlaps else 'boxes'} must be 2-D, got "
                         f"shape {b.shape}")
    if not overlaps and b.shape.ndims == 2 and b.shape.values[1] not in (None, 4):
        raise ValueError(f"{what}: boxes must be [num_boxes, 4], got shape {b.shape}")
    s = convert_to_tensor(scores, dtype=b.dtype)
    if s.shape.ndims is not None and s.shape.ndims != 1:
        raise ValueError(f"{what}: scores must be 1-D, got shape {s.shape}")
    m = convert_to_tensor(max_output_size, dtype=dtypes.int32)
    iou = convert_to_tensor(iou_threshold, dtype=b.dtype)
    score = convert_to_tensor(-np.inf if score_threshold is None else score_threshold,
                              dtype=b.dtype)
    static_m = array_ops._static_ints(m, "max_output_size", what) if pad else None
    out_shape = [static_m[0] if static_m else None] if pad else [None]
    second = (dtypes.int32, []) if pad else (b.dtype, [None])
    op = make_op("NonMaxSuppressionV5", [b, s, m, iou, score],
                 [(dtypes.int32, out_shape), second],
                 {"overlaps": overlaps, "pad": pad}, name=name or "NonMaxSuppressionV5")
    return op.outputs


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """Indices (int32) of the boxes greedy non-max suppression keeps, best first."""
    return _nms_op(boxes, scores, max_output_size, iou_threshold, score_threshold, name)[0]


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """``(selected_indices, selected_scores)``; soft-NMS (``soft_nms_sigma > 0``) is not
    implemented."""
    if soft_nms_sigma:
        raise NotImplementedError("estimator_npu does not implement "
                                  "tf.image.non_max_suppression_with_scores with "
                                  "soft_nms_sigma > 0 (yet)")
    i, s = _nms_op(boxes, scores, max_output_size, iou_threshold, score_threshold, name,
                   what="non_max_suppression_with_scores")
    return i, s


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """Non-max suppression over a precomputed ``[num_boxes, num_boxes]`` overlap matrix."""
    return _nms_op(overlaps, scores, max_output_size, overlap_threshold, score_threshold,
                   name, overlaps=True, what="non_max_suppression_overlaps")[0]


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512):
    """``(selected_indices, num_valid)``; with ``pad_to_max_output_size`` the indices are
    zero-padded to ``max_output_size`` (2-D boxes only)."""
    i, n = _nms_op(boxes, scores, max_output_size, iou_threshold, score_threshold, name,
                   pad=True, what="non_max_suppression_padded")
    if not pad_to_max_output_size:
        i = i[:n]
    return i, n


# ------------------------------------------------------------------ resize_image_with_pad
def resize_image_with_pad(image, target_height, target_width, method=0,
                          align_corners=False):
    """Resizes ``image`` to fit ``target_height x target_width`` keeping its aspect ratio
    (TF's float32 arithmetic and floor), then zero-pads it about centred (``[H, W, C]`` or
    ``[N, H, W, C]`` of known static height and width)."""
    from estimator_npu.images import resize_ops, transforms
    x = convert_to_tensor(image)
    if x.shape.ndims not in (3, 4):
        raise ValueError(f"resize_image_with_pad: image must be 3-D or 4-D, got shape "
                         f"{x.shape}")
    h, w = x.shape.values[-3], x.shape.values[-2]
    th, tw = int(target_height), int(target_width)
    if th <= 0 or tw <= 0:
        raise ValueError(f"resize_image_with_pad: target sizes must be positive, got "
                         f"{target_height}x{target_width}")
    if h is None or w is None:
        raise ValueError("resize_image_with_pad: the image's height and width must be "
                         f"statically known, got shape {x.shape}")
    f32 = np.float32
    ratio = max(f32(w) / f32(tw), f32(h) / f32(th))
    fh, fw = f32(h) / ratio, f32(w) / ratio
    rh, rw = int(np.floor(fh)), int(np.floor(fw))
    # the padding comes from the unrounded size, as TF's: (target - h / ratio) / 2
    ph = max(0, int((f32(th) - fh) / f32(2)))
    pw = max(0, int((f32(tw) - fw) / f32(2)))
    resized = resize_ops.resize_images(x, [rh, rw], method, align_corners)
    return transforms.pad_to_bounding_box(resized, ph, pw, th, tw)


__all__ = ["crop_and_resize", "non_max_suppression", "non_max_suppression_with_scores",
           "non_max_suppression_overlaps", "non_max_suppression_padded",
           "resize_image_with_pad"]
