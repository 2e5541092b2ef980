"""Records TF 2.15's tf.keras.preprocessing / utils outputs for tests/keras/preprocessing.

Run with real TF (its Keras needs scipy for image transforms; scipy and TF need not share
an environment with estimator_npu):
    PYTHONPATH=<dir with scipy> /tmp/tf215/bin/python tools/record_keras_preprocessing.py
Writes tests/keras/preprocessing/preprocessing_goldens.json. The inputs are built by
``inputs()`` below, which the tests import too.
"""
import json
import os
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "preprocessing",
                   "preprocessing_goldens.json")

SEQS = [[1, 2, 3], [4, 5], [], [6, 7, 8, 9, 10]]
PAD_CASES = [{}, {"maxlen": 3}, {"maxlen": 4, "padding": "post"},
             {"maxlen": 2, "truncating": "post"},
             {"maxlen": 6, "padding": "post", "truncating": "post", "value": -1},
             {"dtype": "float32", "value": 0.5}]
TEXTS = ["The cat sat on the mat.", "The dog ate my homework!", "Cat, dog; and THE bird?",
         "a a a b b c"]
TOK_CASES = [{}, {"num_words": 4}, {"oov_token": "<OOV>"},
             {"num_words": 5, "oov_token": "<OOV>"}, {"char_level": True}]
NEW_TEXTS = ["the cat and the zebra", "unknown words only", "dog dog homework"]
AFFINE_CASES = [{"theta": 30}, {"tx": 1.5, "ty": -2.25}, {"shear": 20}, {"zx": 0.8, "zy": 1.3},
                {"theta": -45, "tx": 1, "zx": 1.2, "zy": 0.9, "shear": 10}]
MODES = ["nearest", "constant", "reflect", "wrap"]
GEN_KW = {"rotation_range": 20, "width_shift_range": 0.2, "height_shift_range": 0.1,
          "shear_range": 10, "zoom_range": 0.2, "horizontal_flip": True,
          "vertical_flip": True, "fill_mode": "reflect"}


def inputs():
    rng = np.random.RandomState(7)
    return {"image": rng.rand(7, 9, 2).astype("float32"),
            "images": (rng.rand(6, 5, 6, 3) * 255).astype("float32"),
            "labels": np.arange(6)}


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    from tensorflow.keras.preprocessing import image, sequence, text
    from tensorflow.keras.utils import to_categorical
    data, gold = inputs(), {}
    gold["pad"] = [sequence.pad_sequences(SEQS, **kw).tolist() for kw in PAD_CASES]
    gold["tokenizer"] = []
    for kw in TOK_CASES:
        tok = text.Tokenizer(**kw)
        tok.fit_on_texts(TEXTS)
        gold["tokenizer"].append({
            "word_index": tok.word_index, "seqs": tok.texts_to_sequences(NEW_TEXTS + TEXTS),
            "binary": tok.texts_to_matrix(NEW_TEXTS, "binary").tolist(),
            "count": tok.texts_to_matrix(NEW_TEXTS, "count").tolist(),
            "freq": tok.texts_to_matrix(NEW_TEXTS, "freq").tolist(),
            "tfidf": tok.texts_to_matrix(NEW_TEXTS, "tfidf").tolist(),
            "texts": tok.sequences_to_texts([[1, 2, 3, 40], [5, 1]])})
    gold["to_categorical"] = [to_categorical([0, 2, 1, 2]).tolist(),
                              to_categorical([[1], [3]], num_classes=5).tolist()]
    gold["affine"] = []
    for kw in AFFINE_CASES:
        for mode in MODES:
            out = image.apply_affine_transform(data["image"], row_axis=0, col_axis=1,
                                               channel_axis=2, fill_mode=mode, cval=-1.0, **kw)
            gold["affine"].append(out.tolist())
    gen = image.ImageDataGenerator(**GEN_KW)
    gold["random_params"] = {k: (None if v is None else float(v)) for k, v in
                             gen.get_random_transform(data["image"].shape, seed=3).items()}
    gold["random_transform"] = gen.random_transform(data["image"], seed=3).tolist()
    batches = gen.flow(data["images"], data["labels"], batch_size=4, shuffle=True, seed=11)
    gold["flow"] = []
    for _ in range(3):
        bx, by = next(batches)
        gold["flow"].append({"x": bx.tolist(), "y": by.tolist()})
    norm = image.ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True,
                                    rescale=1 / 255.)
    norm.fit(data["images"])
    gold["fit_mean"], gold["fit_std"] = norm.mean.tolist(), norm.std.tolist()
    gold["standardized"] = norm.standardize(data["images"][:2].copy()).tolist()
    sw = image.ImageDataGenerator(samplewise_center=True, samplewise_std_normalization=True)
    gold["samplewise"] = sw.standardize(data["images"][0].copy()).tolist()
    with open(OUT, "w") as f:
        json.dump(gold, f)
    print("wrote", OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
