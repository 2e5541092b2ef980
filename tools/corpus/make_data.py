"""Makes the DATA folder that the classic corpus runs against (see README.md, "Rerunning").

Nothing is downloaded: MNIST-named files are cut from the local Fashion-MNIST copy, the
text8 stand-in is a synthetic Zipf text, the images are random JPEGs::

    python tools/corpus/make_data.py DATA [--fashion /usr/share/datasets/fashion-mnist]
"""
import argparse
import gzip
import io
import os
import shutil
import struct
import zipfile

import numpy as np

# Words the corpus scripts evaluate or look up (word2vec nearest-neighbour lists); they are
# ranked first so that each occurs far more often than any min-occurrence cut.
EVAL_WORDS = ("the of and one in a to zero nine two is as eight for s five three was by that "
              "four six seven with on are it from or his an be this which at he also not have "
              "were has but other their its first they some had all more most can been such "
              "many who new used there after when into american time these only see may than "
              "world i b would d people known war however system between going hardware "
              "britain history united city states english during under called over state "
              "number use later so french government early king century about computer "
              "university million while national since where several both language series "
              "part area including known form work film years well until became group around "
              "game based day often us great music two years second died").split()
N_TRAIN, N_TEST = 12000, 2000


def _idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack(">I", data[:4])[0]
    ndim = magic & 0xFF
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return dims, data[4 + 4 * ndim:]


def _write_idx(path, magic, dims, payload):
    raw = struct.pack(">I", magic) + struct.pack(">" + "I" * len(dims), *dims) + payload
    with open(path[:-3], "wb") as f:
        f.write(raw)
    with gzip.open(path, "wb") as f:
        f.write(raw)


def make_mnist(fashion, out):
    os.makedirs(out, exist_ok=True)
    for prefix, n in (("train", N_TRAIN), ("t10k", N_TEST)):
        dims, img = _idx(os.path.join(fashion, prefix + "-images-idx3-ubyte.gz"))
        per = dims[1] * dims[2]
        _write_idx(os.path.join(out, prefix + "-images-idx3-ubyte.gz"), 0x803,
                   (n, dims[1], dims[2]), img[:n * per])
        _, lab = _idx(os.path.join(fashion, prefix + "-labels-idx1-ubyte.gz"))
        _write_idx(os.path.join(out, prefix + "-labels-idx1-ubyte.gz"), 0x801, (n,), lab[:n])


def make_text8(path, n_words=300000, seed=0):
    rng = np.random.RandomState(seed)
    seen = []
    for w in EVAL_WORDS:
        if w not in seen:
            seen.append(w)
    vocab = seen + ["w%04d" % i for i in range(3000)]
    p = 1.0 / np.arange(1, len(vocab) + 1) ** 1.05
    words = rng.choice(len(vocab), size=n_words, p=p / p.sum())
    text = " " + " ".join(vocab[i] for i in words)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("text8", text)


def make_images(out, n=12, seed=0):
    from PIL import Image
    rng = np.random.RandomState(seed)
    for cls in ("cats", "dogs"):
        d = os.path.join(out, cls)
        os.makedirs(d, exist_ok=True)
        for i in range(n):
            arr = rng.randint(0, 256, size=(90, 80, 3)).astype(np.uint8)
            Image.fromarray(arr).save(os.path.join(d, "%s%02d.jpg" % (cls, i)))


def make_iris(out, seed=0):
    """``iris_training.csv`` / ``iris_test.csv`` as TF's get-started samples read them (a
    header ``N,4,setosa,versicolor,virginica``), split from scikit-learn's iris."""
    from sklearn.datasets import load_iris
    iris = load_iris()
    order = np.random.RandomState(seed).permutation(len(iris.target))
    os.makedirs(out, exist_ok=True)
    for name, idx in (("iris_training.csv", order[:120]), ("iris_test.csv", order[120:])):
        with open(os.path.join(out, name), "w") as f:
            f.write("%d,4,setosa,versicolor,virginica\n" % len(idx))
            for i in idx:
                f.write(",".join("%.1f" % v for v in iris.data[i]) + ",%d\n" % iris.target[i])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("--fashion", default="/usr/share/datasets/fashion-mnist")
    a = ap.parse_args()
    data = os.path.abspath(a.data)
    make_mnist(a.fashion, os.path.join(data, "mnist"))
    raw = os.path.join(data, "mnist_raw")
    if os.path.isdir(raw):
        shutil.rmtree(raw)
    shutil.copytree(os.path.join(data, "mnist"), raw)
    # the gz files stay next to the raw ones in mnist/ too; that is what the tutorials read
    for f in os.listdir(os.path.join(data, "mnist")):
        if not f.endswith(".gz"):
            os.remove(os.path.join(data, "mnist", f))
    make_text8(os.path.join(data, "text8.zip"))
    make_images(os.path.join(data, "images"))
    make_iris(os.path.join(data, "keras", "datasets"))  # the runner sets KERAS_HOME=DATA/keras
    print("wrote", data)


if __name__ == "__main__":
    main()
