"""``tf.image``: resizing, crops, flips, colour and dtype conversion (re-exports only)."""
from estimator_npu.engine.ops.image_ops import (ResizeMethod, adjust_brightness,  # noqa: F401
                                                adjust_contrast, central_crop,
                                                convert_image_dtype, crop_to_bounding_box,
                                                flip_left_right, flip_up_down,
                                                pad_to_bounding_box, per_image_standardization,
                                                random_brightness, random_contrast,
                                                random_crop, random_flip_left_right,
                                                random_flip_up_down, resize_bilinear,
                                                resize_image_with_crop_or_pad, resize_images,
                                                resize_nearest_neighbor,
                                                resize_with_crop_or_pad, rgb_to_grayscale)
