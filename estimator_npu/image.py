"""``tf.image``: resizing, crops, flips, colour and dtype conversion (re-exports only)."""
from estimator_npu.engine.ops.image_ops import (ResizeMethod, random_crop,  # noqa: F401
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
