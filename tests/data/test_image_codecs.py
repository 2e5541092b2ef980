"""Image decode/encode ops against TF 2.15's files and decode results
(``tools/record_tfdata_golden.py``), and bad images naming the file."""
import io

import numpy as np
import pytest

import estimator_npu as tf
from tests.data import tfdata_golden as G

GOLD = G.load()
IMAGE = G.dec(GOLD["image"])


def _decode_file(path, fetches_fn):
    f = tf.placeholder(tf.string, [])
    fetches = fetches_fn(tf.io.read_file(f))
    with tf.Session() as sess:
        return sess.run(fetches, {f: str(path)})


def test_decode_png_equals_tf():
    got = _decode_file(G.GOLDEN / "image.png", lambda c: {
        "png": tf.image.decode_png(c), "png_gray": tf.image.decode_png(c, channels=1),
        "image_png": tf.image.decode_image(c)})
    for k, v in got.items():
        G.assert_value_equal(v, GOLD["decoded_png"][k])


def test_decode_jpeg_equals_tf():
    got = _decode_file(G.GOLDEN / "image.jpg", lambda c: {
        "jpeg": tf.image.decode_jpeg(c),
        "jpeg_accurate": tf.image.decode_jpeg(c, dct_method="INTEGER_ACCURATE"),
        "jpeg_gray": tf.image.decode_jpeg(c, channels=1, dct_method="INTEGER_ACCURATE")})
    G.assert_value_equal(got["jpeg_accurate"], GOLD["decoded_jpeg"]["jpeg_accurate"])
    G.assert_value_equal(got["jpeg_gray"], GOLD["decoded_jpeg"]["jpeg_gray"])
    # TF's default is libjpeg's fast IDCT; ours the accurate one (documented): close.
    diff = np.abs(got["jpeg"].astype(int) - G.dec(GOLD["decoded_jpeg"]["jpeg"]).astype(int))
    assert got["jpeg"].shape == (12, 16, 3) and diff.max() <= 4


@pytest.mark.parametrize("fname,image", [
    ("image.png", IMAGE), ("gray.png", IMAGE[..., :1]),
    ("rgba.png", np.concatenate([IMAGE, IMAGE[..., :1]], axis=-1)),
    ("noise.png", np.random.RandomState(2).randint(0, 256, size=(64, 96, 3)).astype(
        np.uint8))])
def test_encode_png_is_byte_identical_to_tf(fname, image):
    with tf.Session() as sess:
        got = sess.run(tf.image.encode_png(tf.constant(image)))
    assert np.asarray(got, object)[()] == (G.GOLDEN / fname).read_bytes()


def test_encode_jpeg_is_byte_identical_to_tf():
    # Same libjpeg settings as TF (quality, 4:2:0, JFIF 300 dpi): the same bytes.
    with tf.Session() as sess:
        data = sess.run(tf.image.encode_jpeg(tf.constant(IMAGE), quality=90))
    assert np.asarray(data, object)[()] == (G.GOLDEN / "image.jpg").read_bytes()


def test_decode_gif_frames_and_decode_image_dispatch():
    from PIL import Image
    frames = [Image.fromarray(np.full((4, 5, 3), v, np.uint8)) for v in (0, 128)]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:])
    data = tf.constant(buf.getvalue(), dtype=tf.string)
    with tf.Session() as sess:
        gif, img = sess.run([tf.image.decode_gif(data), tf.image.decode_image(data)])
        flt = sess.run(tf.image.decode_image(
            tf.constant((G.GOLDEN / "image.png").read_bytes(), dtype=tf.string),
            dtype=tf.float32))
    assert gif.shape == (2, 4, 5, 3) and gif[1].max() == 128 and img.shape == gif.shape
    np.testing.assert_allclose(flt, IMAGE / 255.0, rtol=1e-6)


def test_channel_conversions():
    c = tf.constant((G.GOLDEN / "gray.png").read_bytes(), dtype=tf.string)
    with tf.Session() as sess:
        rgb, rgba = sess.run([tf.image.decode_png(c, channels=3),
                              tf.image.decode_png(c, channels=4)])
    assert rgb.shape == (12, 16, 3) and (rgb[..., 0] == IMAGE[..., 0]).all()
    assert (rgba[..., 3] == 255).all()


def test_undecodable_image_names_the_file(tmp_path):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 this is not a jpeg")
    with pytest.raises(tf.errors.InvalidArgumentError, match="broken.jpg"):
        _decode_file(bad, tf.image.decode_jpeg)
    txt = tmp_path / "notes.txt"
    txt.write_bytes(b"hello")
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a JPEG.*image of file .*notes.txt"):
        _decode_file(txt, tf.image.decode_image)


def test_undecodable_element_in_a_dataset_names_the_op():
    ds = tf.data.Dataset.from_tensor_slices(np.array([b"junk"], dtype=object)).map(
        tf.image.decode_png)
    with pytest.raises(tf.errors.InvalidArgumentError, match="DecodePng"):
        list(ds.as_numpy_iterator())


def test_image_pipeline_from_files(tmp_path):
    paths = []
    for i in range(3):
        p = tmp_path / f"img{i}.png"
        p.write_bytes((G.GOLDEN / "image.png").read_bytes())
        paths.append(str(p))
    ds = tf.data.Dataset.list_files(str(tmp_path / "*.png"), shuffle=False).map(
        lambda f: tf.image.decode_png(tf.io.read_file(f), channels=3)).batch(3)
    (batch,) = list(ds.as_numpy_iterator())
    assert batch.shape == (3, 12, 16, 3) and (batch == IMAGE).all()


def test_decode_and_crop_jpeg_and_extract_shape():
    c = tf.constant((G.GOLDEN / "image.jpg").read_bytes(), dtype=tf.string)
    full = G.dec(GOLD["decoded_jpeg"]["jpeg_accurate"])
    with tf.Session() as sess:
        crop, shape = sess.run([tf.image.decode_and_crop_jpeg(c, [2, 3, 5, 7]),
                                tf.image.extract_jpeg_shape(c)])
        with pytest.raises(tf.errors.InvalidArgumentError, match="crop window"):
            sess.run(tf.image.decode_and_crop_jpeg(c, [10, 0, 5, 5]))
    # (the accurate IDCT: see the module's note on TF's default)
    np.testing.assert_array_equal(crop, full[2:7, 3:10])
    assert shape.tolist() == [12, 16, 3] and shape.dtype == np.int32
