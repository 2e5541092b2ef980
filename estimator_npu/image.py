"""``tf.image``: image ops (re-exports only)."""
from estimator_npu.data.image_codecs import decode_and_crop_jpeg  # noqa: F401
from estimator_npu.data.image_codecs import decode_bmp  # noqa: F401
from estimator_npu.data.image_codecs import decode_gif  # noqa: F401
from estimator_npu.data.image_codecs import decode_image  # noqa: F401
from estimator_npu.data.image_codecs import decode_jpeg  # noqa: F401
from estimator_npu.data.image_codecs import decode_png  # noqa: F401
from estimator_npu.data.image_codecs import encode_jpeg  # noqa: F401
from estimator_npu.data.image_codecs import encode_png  # noqa: F401
from estimator_npu.data.image_codecs import extract_jpeg_shape  # noqa: F401
from estimator_npu.data.image_codecs import is_jpeg  # noqa: F401
