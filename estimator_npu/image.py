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
from estimator_npu.images.resize_ops import (ResizeMethod, random_crop,  # noqa: F401
                                                resize_images as resize,
                                                resize_area, resize_bicubic,
                                                resize_bilinear, resize_images,
                                                resize_nearest_neighbor)
from estimator_npu.images.transforms import (adjust_brightness, adjust_contrast,  # noqa: F401
                                             central_crop, convert_image_dtype,
                                             crop_to_bounding_box, flip_left_right,
                                             flip_up_down, pad_to_bounding_box,
                                             per_image_standardization, random_brightness,
                                             random_contrast, random_flip_left_right,
                                             random_flip_up_down,
                                             resize_image_with_crop_or_pad,
                                             resize_with_crop_or_pad, rgb_to_grayscale)
from estimator_npu.images.bounding_box import (sample_distorted_bounding_box,  # noqa: F401,E402
                                               sample_distorted_bounding_box_v2)
from estimator_npu.images.color import (adjust_hue, adjust_saturation,  # noqa: F401,E402
                                        grayscale_to_rgb, hsv_to_rgb, random_hue,
                                        random_saturation, rgb_to_hsv)
from estimator_npu.math_ops_extra.space_ops import extract_image_patches  # noqa: F401,E402


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """``tf.image.extract_patches``: ``extract_image_patches`` with TF2's argument names."""
    return extract_image_patches(images, sizes, strides, rates, padding, name=name)
from estimator_npu.images.extras import (adjust_gamma, image_gradients, psnr,  # noqa: F401,E402
                                         sobel_edges,
                                         rgb_to_yuv, rot90, total_variation, transpose_image)
from estimator_npu.images.boxes import (crop_and_resize,  # noqa: F401,E402
                                        non_max_suppression, non_max_suppression_overlaps,
                                        non_max_suppression_padded,
                                        non_max_suppression_with_scores,
                                        resize_image_with_pad)
from estimator_npu.images.ssim import ssim, ssim_multiscale  # noqa: F401,E402
from estimator_npu.images.draw_boxes import draw_bounding_boxes  # noqa: F401,E402
