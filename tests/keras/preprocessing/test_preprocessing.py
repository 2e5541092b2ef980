"""tf.keras.preprocessing (sequence, text, image) and utils.to_categorical against TF 2.15's
outputs recorded by tools/record_keras_preprocessing.py (same inputs, imported from it)."""
import importlib.util
import io
import json
import os

import numpy as np
import pytest

from estimator_npu import compat
from estimator_npu.keras.preprocessing import image, sequence, text
from estimator_npu.keras.preprocessing._affine import affine_transform_2d
from estimator_npu.keras.utils import to_categorical

HERE = os.path.dirname(__file__)
_spec = importlib.util.spec_from_file_location(
    "record_keras_preprocessing",
    os.path.join(HERE, "..", "..", "..", "tools", "record_keras_preprocessing.py"))
REC = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(REC)
with open(os.path.join(HERE, "preprocessing_goldens.json")) as _f:
    GOLD = json.load(_f)


@pytest.mark.parametrize("i", range(len(REC.PAD_CASES)))
def test_pad_sequences_as_tf(i):
    out = sequence.pad_sequences(REC.SEQS, **REC.PAD_CASES[i])
    np.testing.assert_array_equal(out, GOLD["pad"][i])
    assert out.dtype == np.dtype(REC.PAD_CASES[i].get("dtype", "int32"))


def test_pad_sequences_errors():
    with pytest.raises(ValueError, match='Padding type "middle" not understood'):
        sequence.pad_sequences([[1]], padding="middle")
    with pytest.raises(ValueError, match='Truncating type "x" not understood'):
        sequence.pad_sequences([[1, 2]], maxlen=1, truncating="x")
    with pytest.raises(ValueError, match="must be a list of iterables"):
        sequence.pad_sequences([1, 2])
    with pytest.raises(ValueError, match="dtype=object"):
        sequence.pad_sequences([[1]], value="x")
    out = sequence.pad_sequences([["a", "b"], ["c"]], dtype=object, value="")
    assert out.tolist() == [["a", "b"], ["", "c"]]


@pytest.mark.parametrize("i", range(len(REC.TOK_CASES)))
def test_tokenizer_as_tf(i):
    tok = text.Tokenizer(**REC.TOK_CASES[i])
    tok.fit_on_texts(REC.TEXTS)
    gold = GOLD["tokenizer"][i]
    assert tok.word_index == gold["word_index"]
    assert list(tok.word_index) == list(gold["word_index"])  # the order too
    assert tok.texts_to_sequences(REC.NEW_TEXTS + REC.TEXTS) == gold["seqs"]
    for mode in ("binary", "count", "freq", "tfidf"):
        np.testing.assert_allclose(tok.texts_to_matrix(REC.NEW_TEXTS, mode), gold[mode],
                                   rtol=1e-12, err_msg=mode)
    assert tok.sequences_to_texts([[1, 2, 3, 40], [5, 1]]) == gold["texts"]
    again = text.tokenizer_from_json(tok.to_json())
    assert again.word_index == tok.word_index
    assert again.texts_to_sequences(REC.NEW_TEXTS) == gold["seqs"][:len(REC.NEW_TEXTS)]


def test_tokenizer_errors():
    with pytest.raises(ValueError, match="fit on some text data first"):
        text.Tokenizer().texts_to_matrix(["a"])
    tok = text.Tokenizer()
    tok.fit_on_texts(["a b"])
    with pytest.raises(ValueError, match="Unknown vectorization mode: bad"):
        tok.texts_to_matrix(["a"], mode="bad")


def test_to_categorical_as_tf():
    np.testing.assert_array_equal(to_categorical([0, 2, 1, 2]), GOLD["to_categorical"][0])
    np.testing.assert_array_equal(to_categorical([[1], [3]], num_classes=5),
                                  GOLD["to_categorical"][1])
    assert to_categorical([0, 1]).dtype == np.float32


def test_apply_affine_transform_as_tf():
    x = REC.inputs()["image"]
    k = 0
    for kw in REC.AFFINE_CASES:
        for mode in REC.MODES:
            out = image.apply_affine_transform(x, row_axis=0, col_axis=1, channel_axis=2,
                                               fill_mode=mode, cval=-1.0, **kw)
            np.testing.assert_allclose(out, GOLD["affine"][k], rtol=1e-5, atol=1e-6,
                                       err_msg=f"{kw} {mode}")
            assert out.dtype == np.float32 and out.shape == x.shape
            k += 1


def test_affine_identity_and_channels_first():
    x = REC.inputs()["image"]
    assert image.apply_affine_transform(x, row_axis=0, col_axis=1, channel_axis=2) is x
    cf = np.transpose(x, (2, 0, 1))
    a = image.apply_affine_transform(cf, theta=30, fill_mode="wrap")  # TF's default axes
    np.testing.assert_allclose(np.transpose(a, (1, 2, 0)), GOLD["affine"][3], rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(ValueError, match="fill_mode must be one of"):
        image.apply_affine_transform(x, theta=3, row_axis=0, col_axis=1, channel_axis=2,
                                     fill_mode="mirror")
    with pytest.raises(ValueError, match="multi-channel 2D images"):
        image.apply_affine_transform(x[:, :, 0], theta=3)


def test_integer_images_round_and_order0():
    img = np.array([[0, 10], [20, 30]], np.uint8)
    out = affine_transform_2d(img, np.eye(2), [0.0, 0.25], order=1, mode="nearest")
    assert out.dtype == np.uint8 and out.tolist() == [[2, 10], [22, 30]]
    out0 = affine_transform_2d(img, np.eye(2), [0.0, 0.75], order=0, mode="constant")
    assert out0.tolist() == [[10, 0], [30, 0]]


def test_random_transform_and_flow_as_tf():
    data = REC.inputs()
    gen = image.ImageDataGenerator(**REC.GEN_KW)
    params = gen.get_random_transform(data["image"].shape, seed=3)
    for key, want in GOLD["random_params"].items():
        assert (params[key] is None) if want is None else float(params[key]) == \
            pytest.approx(want, rel=1e-12), key
    np.testing.assert_allclose(gen.random_transform(data["image"], seed=3),
                               GOLD["random_transform"], rtol=1e-5, atol=1e-5)
    batches = gen.flow(data["images"], data["labels"], batch_size=4, shuffle=True, seed=11)
    for gold in GOLD["flow"]:
        bx, by = next(batches)
        np.testing.assert_array_equal(by, gold["y"])
        np.testing.assert_allclose(bx, gold["x"], rtol=1e-5, atol=1e-3)
        assert bx.dtype == np.float32
    assert len(batches) == 2


def test_fit_and_standardize_as_tf():
    data = REC.inputs()
    norm = image.ImageDataGenerator(featurewise_center=True,
                                    featurewise_std_normalization=True, rescale=1 / 255.)
    norm.fit(data["images"])
    np.testing.assert_allclose(norm.mean, GOLD["fit_mean"], rtol=1e-5)
    np.testing.assert_allclose(norm.std, GOLD["fit_std"], rtol=1e-5)
    assert norm.mean.shape == (1, 1, 3)
    np.testing.assert_allclose(norm.standardize(data["images"][:2].copy()),
                               GOLD["standardized"], rtol=1e-4, atol=1e-5)
    sw = image.ImageDataGenerator(samplewise_center=True, samplewise_std_normalization=True)
    np.testing.assert_allclose(sw.standardize(data["images"][0].copy()), GOLD["samplewise"],
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="should have rank 4"):
        norm.fit(data["image"])


def test_flow_errors_and_unimplemented():
    gen = image.ImageDataGenerator()
    with pytest.raises(ValueError, match="should have the same length"):
        gen.flow(np.zeros((3, 2, 2, 1)), np.zeros(2))
    with pytest.raises(ValueError, match="rank 4"):
        gen.flow(np.zeros((3, 2, 2)))
    with pytest.raises(NotImplementedError, match="flow_from_directory"):
        gen.flow_from_directory("/nowhere")
    only_x = gen.flow(np.ones((3, 2, 2, 1)), batch_size=2, shuffle=False)
    assert next(only_x).shape == (2, 2, 2, 1) and next(only_x).shape == (1, 2, 2, 1)


def test_pil_round_trip(tmp_path):
    pytest.importorskip("PIL", reason="Pillow (the image extra) is not installed")
    x = np.arange(2 * 3 * 3, dtype=np.float32).reshape(2, 3, 3) * 10
    img = image.array_to_img(x, scale=False)
    assert img.size == (3, 2) and img.mode == "RGB"
    np.testing.assert_array_equal(image.img_to_array(img), x)
    path = str(tmp_path / "a.png")
    image.save_img(path, x, scale=False)
    back = image.img_to_array(image.load_img(path))
    np.testing.assert_array_equal(back, x)
    gray = image.img_to_array(image.load_img(path, color_mode="grayscale",
                                             target_size=(4, 6)))
    assert gray.shape == (4, 6, 1)
    with open(path, "rb") as f:
        buf = io.BytesIO(f.read())
    assert image.load_img(buf).size == (3, 2)
    with pytest.raises(TypeError, match="path-like or io.BytesIO"):
        image.load_img(3)


def test_tf_import_paths():
    compat.install()
    try:
        from tensorflow.keras.preprocessing.image import ImageDataGenerator
        from tensorflow.keras.preprocessing.sequence import pad_sequences
        from tensorflow.keras.preprocessing.text import Tokenizer
        from tensorflow.python.keras.preprocessing.image import ImageDataGenerator as G2
        import tensorflow as tf
        assert ImageDataGenerator is G2 is image.ImageDataGenerator
        assert pad_sequences is sequence.pad_sequences and Tokenizer is text.Tokenizer
        assert tf.keras.preprocessing.image.apply_affine_transform is \
            image.apply_affine_transform
        assert tf.compat.v1.keras.preprocessing.sequence.pad_sequences is pad_sequences
    finally:
        compat.uninstall()
