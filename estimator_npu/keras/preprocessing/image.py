"""``tf.keras.preprocessing.image`` as TF 2.15's Keras: ``ImageDataGenerator`` (random
affine transforms, flips, channel/brightness shifts, feature- and sample-wise
normalisation, ``flow`` over numpy arrays), ``apply_affine_transform`` and the PIL
conversions ``img_to_array`` / ``array_to_img`` / ``load_img`` / ``save_img``.

The random draws use numpy's global generator in TF's order, so a seed gives TF's
parameters; the resampling (order 0/1, fill modes constant/nearest/reflect/wrap) is done in
numpy and matches ``scipy.ndimage.affine_transform``, which TF calls. Pillow (the ``image``
extra) is needed only for the PIL functions."""
import io
import os
import pathlib
import threading
import warnings

import numpy as np

from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.keras import backend
from estimator_npu.keras.preprocessing._affine import FILL_MODES, affine_transform_2d
from estimator_npu.keras.utils import Sequence


def _pil():
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("Could not import PIL.Image: loading and converting images needs "
                          "Pillow (pip install 'estimator_npu[image]')") from e
    return Image


def transform_matrix_offset_center(matrix, x, y):
    """``matrix`` about the image centre (``x`` rows, ``y`` columns) instead of the
    corner."""
    o_x, o_y = float(x) / 2 - 0.5, float(y) / 2 - 0.5
    offset = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return offset @ matrix @ reset


def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=1,
                           col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                           order=1):
    """One 3-D image rotated by ``theta`` degrees, shifted by ``tx`` (rows) / ``ty``
    (columns) pixels, sheared by ``shear`` degrees and zoomed by ``zx``/``zy``, about its
    centre; the axes default to channels-first, as TF's.

    Raises:
        ValueError: the axes are not a permutation of 0, 1, 2 with channels first or last,
            ``x`` is not 3-D, or ``fill_mode`` is unknown.
    """
    x = np.asarray(x)
    if np.unique([row_axis, col_axis, channel_axis]).size != 3:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    if {row_axis, col_axis, channel_axis} != {0, 1, 2}:
        raise ValueError(f"Invalid axis' indices: {({row_axis, col_axis, channel_axis})}")
    if x.ndim != 3:
        raise ValueError(f"Input arrays must be multi-channel 2D images (got shape "
                         f"{x.shape}).")
    if channel_axis not in (0, 2):
        raise ValueError("Channels are allowed and the first and last dimensions.")
    matrix = None

    def chain(m):
        return m if matrix is None else matrix @ m
    if theta != 0:
        t = np.deg2rad(theta)
        matrix = chain(np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0],
                                 [0, 0, 1]]))
    if tx != 0 or ty != 0:
        matrix = chain(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        s = np.deg2rad(shear)
        matrix = chain(np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        matrix = chain(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if matrix is None:
        return x
    matrix = transform_matrix_offset_center(matrix, x.shape[row_axis], x.shape[col_axis])
    planes = np.rollaxis(x, channel_axis, 0)
    if col_axis > row_axis:
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    out = np.stack([affine_transform_2d(p, matrix[:2, :2], matrix[:2, 2], order=order,
                                        mode=fill_mode, cval=cval) for p in planes], axis=0)
    return np.rollaxis(out, 0, channel_axis + 1)


def flip_axis(x, axis):
    return np.flip(np.asarray(x), axis)


def apply_channel_shift(x, intensity, channel_axis=0):
    """Adds ``intensity`` to every channel, clipped to the image's min and max."""
    x = np.rollaxis(x, channel_axis, 0)
    lo, hi = np.min(x), np.max(x)
    x = np.stack([np.clip(c + intensity, lo, hi) for c in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def apply_brightness_shift(x, brightness, scale=True):
    """Brightness scaled by ``brightness`` through PIL's ImageEnhance (needs Pillow)."""
    from PIL import ImageEnhance
    x_min, x_max = np.min(x), np.max(x)
    local_scale = (x_min < 0) or (x_max > 255)
    x = array_to_img(x, scale=local_scale or scale)
    x = ImageEnhance.Brightness(x).enhance(brightness)
    x = img_to_array(x)
    if not scale and local_scale:
        x = x / 255 * (x_max - x_min) + x_min
    return x


def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                    cval=0.0, interpolation_order=1):
    theta = np.random.uniform(-rg, rg)
    return apply_affine_transform(x, theta=theta, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                 cval=0.0, interpolation_order=1):
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return apply_affine_transform(x, tx=tx, ty=ty, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                cval=0.0, interpolation_order=1):
    if len(zoom_range) != 2:
        raise ValueError(f"`zoom_range` should be a tuple or list of two floats. Received: "
                         f"{zoom_range}")
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return apply_affine_transform(x, zx=zx, zy=zy, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order)


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image from a 3-D array (1, 3 or 4 channels); ``scale`` maps [min, max] to
    [0, 255]."""
    image = _pil()
    data_format = data_format or backend.image_data_format()
    x = np.asarray(x, dtype=dtype or backend.floatx())
    if x.ndim != 3:
        raise ValueError("Expected image array to have rank 3 (single image). "
                         f"Got array with shape: {x.shape}")
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Invalid data_format: {data_format}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x /= top
        x *= 255
    channels = x.shape[2]
    if channels in (3, 4):
        return image.fromarray(x.astype("uint8"), "RGB" if channels == 3 else "RGBA")
    if channels == 1:
        if np.max(x) > 255:
            return image.fromarray(x[:, :, 0].astype("int32"), "I")
        return image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {channels}")


def img_to_array(img, data_format=None, dtype=None):
    """A 3-D array ``[h, w, c]`` (or ``[c, h, w]``) from a PIL image."""
    data_format = data_format or backend.image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Unknown data_format: {data_format}")
    x = np.asarray(img, dtype=dtype or backend.floatx())
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    if x.ndim == 2:
        return x[None] if data_format == "channels_first" else x[:, :, None]
    raise ValueError(f"Unsupported image shape: {x.shape}")


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format in ("jpg", "jpeg"):
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


_RESAMPLE = {"nearest": "NEAREST", "bilinear": "BILINEAR", "bicubic": "BICUBIC",
             "hamming": "HAMMING", "box": "BOX", "lanczos": "LANCZOS"}


def load_img(path, grayscale=False, color_mode="rgb", target_size=None,
             interpolation="nearest", keep_aspect_ratio=False):
    """A PIL image from ``path`` (a path or ``io.BytesIO``), converted to
    ``color_mode`` ("grayscale", "rgb", "rgba") and resized to ``target_size`` (h, w)."""
    image = _pil()
    if grayscale:
        color_mode = "grayscale"
    if isinstance(path, io.BytesIO):
        img = image.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        with open(os.fspath(path), "rb") as f:
            img = image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode in ("rgb", "rgba"):
        if img.mode != color_mode.upper():
            img = img.convert(color_mode.upper())
    else:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if target_size is not None:
        size = (target_size[1], target_size[0])
        if img.size != size:
            if interpolation not in _RESAMPLE:
                raise ValueError(f"Invalid interpolation method {interpolation} specified. "
                                 f"Supported methods are {', '.join(_RESAMPLE)}")
            resample = getattr(image.Resampling, _RESAMPLE[interpolation])
            if keep_aspect_ratio:
                width, height = img.size
                crop_h = min(height, (width * size[1]) // size[0])
                crop_w = min(width, (height * size[0]) // size[1])
                top, left = (height - crop_h) // 2, (width - crop_w) // 2
                img = img.crop((left, top, left + crop_w, top + crop_h))
            img = img.resize(size, resample)
    return img


class Iterator(Sequence):
    """Batches of indices into ``n`` samples, reshuffled each epoch; with a ``seed``,
    numpy's global generator is reseeded with ``seed + batches_seen`` before each batch
    (as TF's)."""

    def __init__(self, n, batch_size, shuffle, seed):
        self.n, self.batch_size, self.seed, self.shuffle = n, batch_size, seed, shuffle
        self.batch_index, self.total_batches_seen = 0, 0
        self.lock = threading.Lock()
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self):
        self.index_array = (np.random.permutation(self.n) if self.shuffle
                            else np.arange(self.n))

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has "
                             f"length {len(self)}")
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        return self._get_batches_of_transformed_samples(
            self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)])

    def __len__(self):
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self):
        self._set_index_array()

    def reset(self):
        self.batch_index = 0

    def _flow_index(self):
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            start = (self.batch_index * self.batch_size) % self.n if self.n else 0
            self.batch_index = self.batch_index + 1 if self.n > start + self.batch_size else 0
            self.total_batches_seen += 1
            yield self.index_array[start:start + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def next(self):
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array):
        raise NotImplementedError


class NumpyArrayIterator(Iterator):
    """``ImageDataGenerator.flow``: batches ``x`` (4-D) transformed and standardised,
    with ``y`` (and ``sample_weight``) alongside."""

    def __init__(self, x, y, image_data_generator, batch_size=32, shuffle=False,
                 sample_weight=None, seed=None, data_format=None, save_to_dir=None,
                 save_prefix="", save_format="png", subset=None, ignore_class_split=False,
                 dtype=None):
        dtype = dtype or backend.floatx()
        self.dtype = dtype
        extra = None
        if isinstance(x, (tuple, list)):
            extra = [np.asarray(v) for v in ([x[1]] if not isinstance(x[1], list) else x[1])]
            x = x[0]
            for v in extra:
                if len(x) != len(v):
                    raise ValueError("All of the arrays in `x` should have the same length. "
                                     f"Found a pair with: len(x[0]) = {len(x)}, len(x[?]) = "
                                     f"{len(v)}")
        if y is not None and len(x) != len(y):
            raise ValueError("`x` (images tensor) and `y` (labels) should have the same "
                             f"length. Found: x.shape = {np.asarray(x).shape}, y.shape = "
                             f"{np.asarray(y).shape}")
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError("`x` (images tensor) and `sample_weight` should have the same "
                             f"length. Found: x.shape = {np.asarray(x).shape}, "
                             f"sample_weight.shape = {np.asarray(sample_weight).shape}")
        if subset is not None:
            raise NotImplementedError("flow(subset=...): validation_split is not "
                                      "implemented in estimator_npu's ImageDataGenerator")
        self.x = np.asarray(x, dtype=dtype)
        self.x_misc = extra
        if self.x.ndim != 4:
            raise ValueError("Input data in `NumpyArrayIterator` should have rank 4. You "
                             f"passed an array with shape {self.x.shape}")
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.data_format = data_format or backend.image_data_format()
        self.save_to_dir, self.save_prefix, self.save_format = (save_to_dir, save_prefix,
                                                                save_format)
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array):
        gen = self.image_data_generator
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.dtype)
        for i, j in enumerate(index_array):
            params = gen.get_random_transform(self.x[j].shape)
            batch_x[i] = gen.standardize(gen.apply_transform(self.x[j].astype(self.dtype),
                                                             params))
        if self.save_to_dir:
            for i, j in enumerate(index_array):
                img = array_to_img(batch_x[i], self.data_format, scale=True)
                img.save(os.path.join(self.save_to_dir, f"{self.save_prefix}_{j}_"
                                      f"{np.random.randint(1e4)}.{self.save_format}"))
        out = batch_x if self.x_misc is None else [batch_x] + [v[index_array]
                                                              for v in self.x_misc]
        if self.y is None:
            return out
        out = (out, self.y[index_array])
        if self.sample_weight is not None:
            out += (self.sample_weight[index_array],)
        return out


class ImageDataGenerator:
    """Real-time augmentation of image batches, as TF 2.15's Keras: see the module
    docstring. ``flow_from_directory``/``flow_from_dataframe``, ``validation_split`` are
    not implemented."""

    def __init__(self, featurewise_center=False, samplewise_center=False,
                 featurewise_std_normalization=False, samplewise_std_normalization=False,
                 zca_whitening=False, zca_epsilon=1e-6, rotation_range=0,
                 width_shift_range=0.0, height_shift_range=0.0, brightness_range=None,
                 shear_range=0.0, zoom_range=0.0, channel_shift_range=0.0,
                 fill_mode="nearest", cval=0.0, horizontal_flip=False, vertical_flip=False,
                 rescale=None, preprocessing_function=None, data_format=None,
                 validation_split=0.0, interpolation_order=1, dtype=None):
        data_format = data_format or backend.image_data_format()
        self.dtype = dtype or backend.floatx()
        self.featurewise_center, self.samplewise_center = featurewise_center, samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening, self.zca_epsilon = zca_whitening, zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range, self.height_shift_range = width_shift_range, height_shift_range
        self.shear_range, self.channel_shift_range = shear_range, channel_shift_range
        if fill_mode not in FILL_MODES:
            raise ValueError(f"fill_mode must be one of {FILL_MODES}, got {fill_mode!r}")
        self.fill_mode, self.cval = fill_mode, cval
        self.horizontal_flip, self.vertical_flip = horizontal_flip, vertical_flip
        self.rescale, self.preprocessing_function = rescale, preprocessing_function
        self.interpolation_order = interpolation_order
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError('`data_format` should be `"channels_last"` (channel after row '
                             'and column) or `"channels_first"` (channel before row and '
                             f'column). Received: {data_format}')
        self.data_format = data_format
        self.channel_axis, self.row_axis, self.col_axis = ((1, 2, 3) if data_format ==
                                                           "channels_first" else (3, 1, 2))
        if validation_split:
            raise NotImplementedError("ImageDataGenerator(validation_split=...) is not "
                                      "implemented in estimator_npu")
        self.mean = self.std = self.zca_whitening_matrix = None
        if isinstance(zoom_range, (float, int)):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(v, (float, int)) for v in zoom_range):
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError("`zoom_range` should be a float or a tuple or list of two "
                             f"floats. Received: {zoom_range}")
        if zca_whitening:
            self.featurewise_center = True
            self.featurewise_std_normalization = False
        if featurewise_std_normalization and not featurewise_center:
            self.featurewise_center = True
            warnings.warn("This ImageDataGenerator specifies `featurewise_std_normalization`"
                          ", which overrides setting of `featurewise_center`.")
        if samplewise_std_normalization and not samplewise_center:
            self.samplewise_center = True
            warnings.warn("This ImageDataGenerator specifies `samplewise_std_normalization`"
                          ", which overrides setting of `samplewise_center`.")
        if brightness_range is not None and (not isinstance(brightness_range, (tuple, list))
                                             or len(brightness_range) != 2):
            raise ValueError("`brightness_range should be tuple or list of two floats. "
                             f"Received: {brightness_range}")
        self.brightness_range = brightness_range

    def flow(self, x, y=None, batch_size=32, shuffle=True, sample_weight=None, seed=None,
             save_to_dir=None, save_prefix="", save_format="png", ignore_class_split=False,
             subset=None):
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle,
                                  sample_weight=sample_weight, seed=seed,
                                  data_format=self.data_format, save_to_dir=save_to_dir,
                                  save_prefix=save_prefix, save_format=save_format,
                                  subset=subset, dtype=self.dtype)

    def flow_from_directory(self, directory, *args, **kwargs):
        raise NotImplementedError("estimator_npu does not implement "
                                  f"ImageDataGenerator.flow_from_directory ({directory!r}) "
                                  "(yet): load the images with load_img/img_to_array and use "
                                  "flow(x, y)")

    def standardize(self, x):
        """``x`` (changed in place, as TF's) with the preprocessing function, rescale and
        the sample-/feature-wise normalisation applied."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        if self.featurewise_center:
            if self.mean is not None:
                x -= self.mean
            else:
                warnings.warn("This ImageDataGenerator specifies `featurewise_center`, but "
                              "it hasn't been fit on any training data. Fit it first by "
                              "calling `.fit(numpy_data)`.")
        if self.featurewise_std_normalization:
            if self.std is not None:
                x /= self.std + 1e-6
            else:
                warnings.warn("This ImageDataGenerator specifies "
                              "`featurewise_std_normalization`, but it hasn't been fit on "
                              "any training data. Fit it first by calling "
                              "`.fit(numpy_data)`.")
        if self.zca_whitening:
            if self.zca_whitening_matrix is not None:
                flat = x.reshape(-1, int(np.prod(x.shape[-3:])))
                x = np.reshape(flat @ self.zca_whitening_matrix, x.shape)
            else:
                warnings.warn("This ImageDataGenerator specifies `zca_whitening`, but it "
                              "hasn't been fit on any training data. Fit it first by "
                              "calling `.fit(numpy_data)`.")
        return x

    @staticmethod
    def _shift(rng, size):
        try:  # a list of choices, or an int: +-choice
            t = np.random.choice(rng)
            t *= np.random.choice([-1, 1])
        except ValueError:  # a float: uniform
            t = np.random.uniform(-rng, rng)
        if np.max(rng) < 1:
            t *= size
        return t

    def get_random_transform(self, img_shape, seed=None):
        """The random parameters (theta, tx, ty, shear, zx, zy, flips, channel shift,
        brightness), drawn from numpy's global generator in TF's order."""
        if seed is not None:
            np.random.seed(seed)
        theta = (np.random.uniform(-self.rotation_range, self.rotation_range)
                 if self.rotation_range else 0)
        tx = (self._shift(self.height_shift_range, img_shape[self.row_axis - 1])
              if self.height_shift_range else 0)
        ty = (self._shift(self.width_shift_range, img_shape[self.col_axis - 1])
              if self.width_shift_range else 0)
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_h = (np.random.random() < 0.5) * self.horizontal_flip
        flip_v = (np.random.random() < 0.5) * self.vertical_flip
        shift = None
        if self.channel_shift_range != 0:
            shift = np.random.uniform(-self.channel_shift_range, self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_h, "flip_vertical": flip_v,
                "channel_shift_intensity": shift, "brightness": brightness}

    def apply_transform(self, x, transform_parameters):
        """``x`` (one 3-D image) transformed by ``transform_parameters`` (the dict of
        ``get_random_transform``; missing keys mean no change)."""
        p = transform_parameters
        row, col, ch = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        x = apply_affine_transform(x, p.get("theta", 0), p.get("tx", 0), p.get("ty", 0),
                                   p.get("shear", 0), p.get("zx", 1), p.get("zy", 1),
                                   row_axis=row, col_axis=col, channel_axis=ch,
                                   fill_mode=self.fill_mode, cval=self.cval,
                                   order=self.interpolation_order)
        if p.get("channel_shift_intensity") is not None:
            x = apply_channel_shift(x, p["channel_shift_intensity"], ch)
        if p.get("flip_horizontal", False):
            x = flip_axis(x, col)
        if p.get("flip_vertical", False):
            x = flip_axis(x, row)
        if p.get("brightness") is not None:
            x = apply_brightness_shift(x, p["brightness"], False)
        return x

    def random_transform(self, x, seed=None):
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment=False, rounds=1, seed=None):
        """The per-channel mean/std (and ZCA matrix) of ``x`` (4-D), after ``rescale``
        and, with ``augment``, ``rounds`` random transforms of every image."""
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError("Input to `.fit()` should have rank 4. Got array with shape: "
                             f"{x.shape}")
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            ax = np.zeros((rounds * x.shape[0],) + x.shape[1:], dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    ax[i + r * x.shape[0]] = self.random_transform(x[i])
            x = ax
        shape = [1, 1, 1]
        shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=(0, self.row_axis, self.col_axis)), shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=(0, self.row_axis, self.col_axis)), shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            n = len(x)
            u, s, _ = np.linalg.svd(np.reshape(x, (n, -1)).T, full_matrices=False)
            self.zca_whitening_matrix = (u * (np.sqrt(n) / (s + self.zca_epsilon))).dot(u.T)


__getattr__ = _module_getattr("estimator_npu.keras.preprocessing.image")
