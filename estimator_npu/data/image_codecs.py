"""Image decode/encode ops (``tf.image.decode_jpeg`` ...) on Pillow, an optional
dependency (``pip install estimator-npu[image]``).

Decoded images are ``uint8`` ``[height, width, channels]`` (``[frames, h, w, 3]`` for
GIF), as TF returns them. ``channels=0`` keeps the file's channels; 1 converts to gray
the way TF's libraries do (libjpeg's luma plane; libpng's fixed-point
``(9797 R + 19234 G + 3737 B) >> 15``). Known difference: TF's default JPEG IDCT is
libjpeg's fast integer one; Pillow uses the accurate one, which is what TF returns for
``dct_method="INTEGER_ACCURATE"`` (exactly) — the default may differ by a few levels::

    img = tf.image.decode_jpeg(tf.io.read_file(path), channels=3)
    png = tf.image.encode_png(img)

An undecodable image raises ``InvalidArgumentError`` naming the element (and the file
when the bytes came straight from ``read_file``).
"""
import io

import numpy as np

from estimator_npu import errors
from estimator_npu.data import png_writer
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _pil():
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("tf.image decode/encode ops need Pillow: pip install "
                          "'estimator-npu[image]' (or pip install Pillow)") from None
    return Image


def _format(data):
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:3] == b"GIF":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    return None


def _describe(op):
    from estimator_npu.data.raw_ops import last_read_path
    src = op.inputs[0].op
    path = last_read_path(src) if src.type == "ReadFile" else None
    return f"file {path!r}" if path else f"the input of {op.name}"


def _fail(op, what, data, exc=None):
    detail = f" ({exc})" if exc is not None else ""
    raise errors.InvalidArgumentError(
        None, op, f"{op.name}: {what} of {_describe(op)} (first bytes "
        f"{bytes(data[:8])!r}, {len(data)} bytes){detail}")


def _gray(rgb):
    r = rgb.astype(np.int64)
    v = (9797 * r[..., 0] + 19234 * r[..., 1] + 3737 * r[..., 2]) >> 15
    return v.astype(rgb.dtype)


def _channels(arr, want):
    """Converts ``[h, w, c]`` to ``want`` channels as libpng/libjpeg do."""
    c = arr.shape[-1]
    if want in (0, None) or want == c:
        return arr
    color = arr[..., :3] if c >= 3 else np.repeat(arr[..., :1], 3, axis=-1)
    alpha = arr[..., -1:] if c in (2, 4) else None
    if want == 1:
        return (_gray(color) if c >= 3 else arr[..., 0])[..., None]
    if want == 2:
        g = _gray(color) if c >= 3 else arr[..., 0]
        a = alpha[..., 0] if alpha is not None else np.full(g.shape, np.iinfo(arr.dtype).max,
                                                            arr.dtype)
        return np.stack([g, a], axis=-1)
    if want == 3:
        return color
    a = alpha if alpha is not None else np.full(arr.shape[:-1] + (1,),
                                                np.iinfo(arr.dtype).max, arr.dtype)
    return np.concatenate([color, a], axis=-1)


def _open(op, data, expected):
    Image = _pil()
    fmt = _format(data)
    if fmt is None or (expected is not None and fmt not in expected):
        _fail(op, f"not a {'/'.join(expected or ['JPEG', 'PNG', 'GIF', 'BMP']).upper()} "
                  "image", data)
    try:
        im = Image.open(io.BytesIO(data))
        return im, fmt
    except Exception as e:  # noqa: BLE001 - Pillow raises many types
        _fail(op, f"cannot decode the {fmt.upper()} image", data, e)


def _load(op, im, fmt, data, channels, dtype=np.uint8):
    try:
        if fmt == "jpeg" and channels == 1 and im.mode != "L":
            im.draft("L", im.size)  # libjpeg's luma plane, as TF
        if im.mode in ("P", "PA"):
            im = im.convert("RGBA" if "transparency" in im.info or im.mode == "PA"
                            else "RGB")
        elif im.mode in ("1", "CMYK", "YCbCr"):
            im = im.convert("L" if im.mode == "1" else "RGB")
        arr = np.asarray(im)
    except Exception as e:  # noqa: BLE001
        _fail(op, f"cannot decode the {fmt.upper()} image", data, e)
    if arr.ndim == 2:
        arr = arr[..., None]
    if arr.dtype != np.uint8:   # 16-bit PNG (Pillow's I;16 / I modes)
        arr = arr.astype(np.uint16) if dtype == np.uint16 else (
            arr.astype(np.uint32) >> 8).astype(np.uint8)
    elif dtype == np.uint16:
        arr = arr.astype(np.uint16) * 257
    return _channels(arr, channels)


def _decode(op, contents, kind, channels, dtype, expand):
    data = np.asarray(contents, dtype=object)[()]
    data = data.encode() if isinstance(data, str) else bytes(data)
    expected = {"jpeg": ("jpeg",), "png": ("png",), "gif": ("gif",), "bmp": ("bmp",),
                "image": None}[kind]
    if kind == "png" and _format(data) != "png" and _format(data) is not None:
        expected = None  # TF's decode_png decodes any format it knows
    if kind == "jpeg" and _format(data) == "png":
        expected = None
    im, fmt = _open(op, data, expected)
    if fmt == "gif" and (kind == "gif" or (kind == "image" and expand)):
        frames = []
        try:
            for i in range(getattr(im, "n_frames", 1)):
                im.seek(i)
                frames.append(np.asarray(im.convert("RGB")))
        except Exception as e:  # noqa: BLE001
            _fail(op, "cannot decode the GIF image", data, e)
        out = np.stack(frames)
        return _channels(out, channels) if channels not in (0, None, 3) else out
    if fmt == "gif":
        im = im.convert("RGB")
    return _load(op, im, fmt, data, channels, dtype)


def _decode_kernel(op, ctx):
    a = op.attrs
    dt = a["dtype"]

    def run(contents):
        out = _decode(op, contents, a["kind"], a["channels"], np.uint16 if dt == dtypes.uint16
                      else np.uint8, a["expand"])
        if dt.is_floating:
            out = (out.astype(dt.np) / np.asarray(np.iinfo(out.dtype).max, dt.np))
        return out
    return run


OPS.define("DecodeImage", kernel=_decode_kernel, grad=NOT_DIFFERENTIABLE)


def _build_decode(kind, contents, channels, dtype, name, expand=True):
    x = convert_to_tensor(contents, dtype=dtypes.string)
    if x.shape.values is not None and x.shape.values != ():
        raise ValueError(f"decode_{kind}: `contents` must be a scalar string (one image), "
                         f"got shape {x.shape}")
    channels = 0 if channels is None else int(channels)
    if channels not in (0, 1, 2, 3, 4):
        raise ValueError(f"decode_{kind}: channels must be 0, 1, 2, 3 or 4, got {channels}")
    dt = dtypes.as_dtype(dtype)
    c = channels or None
    if kind == "gif":
        shape = [None, None, None, 3]
    elif kind == "image" and expand:
        shape = None
    else:
        shape = [None, None, c]
    return make_tensor("DecodeImage", [x], dt, TensorShape(shape),
                       {"kind": kind, "channels": channels, "dtype": dt, "expand": expand},
                       name=name or f"Decode{kind.capitalize()}")


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                name=None):
    """``tf.image.decode_jpeg``: uint8 ``[h, w, channels]``."""
    if ratio != 1:
        raise NotImplementedError("estimator_npu does not implement decode_jpeg(ratio != 1) "
                                  "(yet)")
    return _build_decode("jpeg", contents, channels, dtypes.uint8, name)


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """``tf.image.decode_png``: uint8 or uint16 ``[h, w, channels]``."""
    return _build_decode("png", contents, channels, dtype, name)


def decode_gif(contents, name=None):
    """``tf.image.decode_gif``: uint8 ``[frames, h, w, 3]``."""
    return _build_decode("gif", contents, 0, dtypes.uint8, name)


def decode_bmp(contents, channels=0, name=None):
    return _build_decode("bmp", contents, channels, dtypes.uint8, name)


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None,
                 expand_animations=True):
    """``tf.image.decode_image``: JPEG, PNG, GIF or BMP by content; a GIF is 4-D unless
    ``expand_animations=False``; a float ``dtype`` scales to [0, 1]."""
    return _build_decode("image", contents, channels, dtype, name, expand_animations)


def _crop_kernel(op, ctx):
    channels = op.attrs["channels"]

    def run(contents, window):
        img = _decode(op, contents, "jpeg", channels, np.uint8, True)
        y, x, h, w = (int(v) for v in np.asarray(window).reshape(-1))
        if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > img.shape[0] or \
                x + w > img.shape[1]:
            raise errors.InvalidArgumentError(
                None, op, f"{op.name}: crop window [{y}, {x}, {h}, {w}] (y, x, height, "
                f"width) is not inside the image of shape {list(img.shape)}")
        return np.ascontiguousarray(img[y:y + h, x:x + w])
    return run


def _shape_kernel(op, ctx):
    def run(contents):
        data = np.asarray(contents, dtype=object)[()]
        data = data.encode() if isinstance(data, str) else bytes(data)
        im, _ = _open(op, data, ("jpeg",))
        c = {"L": 1, "RGB": 3, "CMYK": 4, "YCbCr": 3}.get(im.mode, len(im.getbands()))
        return np.array([im.size[1], im.size[0], c], dtype=op.outputs[0].dtype.np)
    return run


OPS.define("DecodeAndCropJpeg", kernel=_crop_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("ExtractJpegShape", kernel=_shape_kernel, grad=NOT_DIFFERENTIABLE)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
    """``tf.image.decode_and_crop_jpeg``: the ``crop_window`` ``[y, x, height, width]``
    of the decoded JPEG."""
    x = convert_to_tensor(contents, dtype=dtypes.string)
    window = convert_to_tensor(crop_window)
    c = int(channels or 0)
    return make_tensor("DecodeAndCropJpeg", [x, window], dtypes.uint8,
                       TensorShape([None, None, c or None]), {"channels": c},
                       name=name or "DecodeAndCropJpeg")


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    """``tf.image.extract_jpeg_shape``: ``[height, width, channels]`` of a JPEG."""
    x = convert_to_tensor(contents, dtype=dtypes.string)
    return make_tensor("ExtractJpegShape", [x], dtypes.as_dtype(output_type),
                       TensorShape([3]), name=name or "ExtractJpegShape")


# ---------------------------------------------------------------- encoding
def _image_array(op, image, kinds):
    arr = np.asarray(image)
    if arr.ndim != 3 or arr.shape[-1] not in kinds:
        raise errors.InvalidArgumentError(
            None, op, f"{op.name}: image must be 3-D [height, width, channels] with "
            f"channels in {list(kinds)}, got shape {list(arr.shape)}")
    return arr




def _encode_png(op, image, compression):
    arr = _image_array(op, image, (1, 2, 3, 4))
    level = 6 if compression in (-1, None) else int(compression)
    out = np.empty((), object)
    out[()] = png_writer.png_bytes(arr, level)
    return out


def _encode_jpeg(op, image, quality, progressive, optimize, chroma, density):
    Image = _pil()
    arr = _image_array(op, image, (1, 3))
    im = Image.fromarray(arr[..., 0] if arr.shape[-1] == 1 else arr,
                         "L" if arr.shape[-1] == 1 else "RGB")
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=int(quality), progressive=bool(progressive),
            optimize=bool(optimize), subsampling=2 if chroma else 0, dpi=density)
    out = np.empty((), object)
    out[()] = buf.getvalue()
    return out


OPS.define("EncodePng", kernel=lambda op, ctx: (lambda x: _encode_png(
    op, x, op.attrs["compression"])), grad=NOT_DIFFERENTIABLE)
OPS.define("EncodeJpeg", kernel=lambda op, ctx: (lambda x: _encode_jpeg(
    op, x, op.attrs["quality"], op.attrs["progressive"], op.attrs["optimize"],
    op.attrs["chroma"], op.attrs["density"])), grad=NOT_DIFFERENTIABLE)


def encode_png(image, compression=-1, name=None):
    """``tf.image.encode_png``: a scalar string of PNG bytes (uint8 or uint16 image)."""
    x = convert_to_tensor(image)
    if x.dtype not in (dtypes.uint8, dtypes.uint16):
        raise TypeError(f"encode_png: image must be uint8 or uint16, got {x.dtype.name}")
    return make_tensor("EncodePng", [x], dtypes.string, TensorShape([]),
                       {"compression": compression}, name=name or "EncodePng")


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata="", name=None):  # noqa: A002 - TF's argument name
    """``tf.image.encode_jpeg``: a scalar string of JPEG bytes (uint8, 1 or 3 channels)."""
    x = convert_to_tensor(image)
    if x.dtype != dtypes.uint8:
        raise TypeError(f"encode_jpeg: image must be uint8, got {x.dtype.name}")
    return make_tensor("EncodeJpeg", [x], dtypes.string, TensorShape([]),
                       {"quality": quality, "progressive": progressive,
                        "optimize": optimize_size, "chroma": chroma_downsampling,
                        "density": (int(x_density), int(y_density))},
                       name=name or "EncodeJpeg")


def is_jpeg(contents, name=None):
    """``tf.image.is_jpeg``: whether the bytes start with the JPEG marker."""
    from estimator_npu.data.string_ops import substr
    from estimator_npu.engine.ops.math_ops import equal
    return equal(substr(contents, 0, 3), np.array(b"\xff\xd8\xff", dtype=object))


__all__ = ["decode_and_crop_jpeg", "extract_jpeg_shape", "decode_jpeg", "decode_png", "decode_gif", "decode_bmp", "decode_image",
           "encode_jpeg", "encode_png", "is_jpeg"]
