"""Makes the DATA folder that the classic corpus runs against (see README.md, "Rerunning").

Nothing is downloaded: MNIST-named files are cut from the local Fashion-MNIST copy, the
text8 stand-in is a synthetic Zipf text, the images are random JPEGs::

    python tools/corpus/make_data.py DATA [--fashion /usr/share/datasets/fashion-mnist]
"""
import argparse
import gzip
import io
import os
import pickle
import shutil
import struct
import tarfile
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


def _cifar_images(rng, n):
    """``n`` CIFAR-like images (3x32x32 uint8, channel-major) and labels: each class has its
    own mean colour, so that a few training steps lower the loss."""
    labels = rng.randint(0, 10, size=n)
    means = rng.randint(40, 216, size=(10, 3))
    img = rng.normal(0, 40, size=(n, 3, 32, 32)) + means[labels][:, :, None, None]
    return np.clip(img, 0, 255).astype(np.uint8).reshape(n, 3072), labels


def make_cifar10(out, per_file=200, seed=0):
    """CIFAR-10 in both public layouts, ``per_file`` images per batch file (5 training
    files and ``test_batch``), with the archives the scripts look for before downloading:
    ``cifar-10-batches-bin/*.bin`` (a label byte then 3072 image bytes per record) in
    ``cifar-10-binary.tar.gz``, and ``cifar-10-batches-py/`` (pickled dicts with ``data``
    (N x 3072 uint8) and ``labels``) in ``cifar-10-python.tar.gz``."""
    rng = np.random.RandomState(seed)
    names = ["data_batch_%d" % i for i in range(1, 6)] + ["test_batch"]
    bin_dir = os.path.join(out, "cifar-10-batches-bin")
    py_dir = os.path.join(out, "cifar-10-batches-py")
    for d in (bin_dir, py_dir):
        os.makedirs(d, exist_ok=True)
    for name in names:
        data, labels = _cifar_images(rng, per_file)
        rec = np.concatenate([labels[:, None].astype(np.uint8), data], axis=1)
        with open(os.path.join(bin_dir, name + ".bin"), "wb") as f:
            f.write(rec.tobytes())
        with open(os.path.join(py_dir, name), "wb") as f:
            pickle.dump({"data": data, "labels": [int(v) for v in labels],
                         "batch_label": name}, f, protocol=2)
    for arc, d in (("cifar-10-binary.tar.gz", bin_dir), ("cifar-10-python.tar.gz", py_dir)):
        with tarfile.open(os.path.join(out, arc), "w:gz") as t:
            t.add(d, arcname=os.path.basename(d))


def make_ptb(out, seed=0, n_vocab=600, sizes=(6000, 800, 800)):
    """``simple-examples/data/ptb.{train,valid,test}.txt``: lines of Zipf-drawn words from a
    vocabulary of ``n_vocab`` (PTB's own has 10000) with PTB's ``<unk>`` and ``N``."""
    rng = np.random.RandomState(seed)
    vocab = ["the", "<unk>", "N", "of", "to", "a", "in", "and"] + [
        "w%03d" % i for i in range(n_vocab - 8)]
    p = 1.0 / np.arange(1, n_vocab + 1) ** 1.1
    d = os.path.join(out, "simple-examples", "data")
    os.makedirs(d, exist_ok=True)
    for part, n in zip(("train", "valid", "test"), sizes):
        words = rng.choice(n_vocab, size=n, p=p / p.sum())
        lines, i = [], 0
        while i < n:
            k = int(rng.randint(5, 25))
            lines.append(" " + " ".join(vocab[j] for j in words[i:i + k]) + " ")
            i += k
        with open(os.path.join(d, "ptb.%s.txt" % part), "w") as f:
            f.write("\n".join(lines) + "\n")


CENSUS_VOCAB = {
    "workclass": ["Self-emp-not-inc", "Private", "State-gov", "Federal-gov", "Local-gov", "?",
                  "Self-emp-inc", "Without-pay"],
    "education": ["Bachelors", "HS-grad", "11th", "Masters", "9th", "Some-college",
                  "Assoc-acdm", "Assoc-voc", "7th-8th", "Doctorate", "Prof-school"],
    "marital_status": ["Married-civ-spouse", "Divorced", "Never-married", "Separated",
                       "Widowed"],
    "occupation": ["Adm-clerical", "Exec-managerial", "Handlers-cleaners", "Prof-specialty",
                   "Sales", "Craft-repair", "Other-service"],
    "relationship": ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried"],
    "race": ["White", "Black", "Asian-Pac-Islander", "Other"],
    "gender": ["Male", "Female"],
    "native_country": ["United-States", "Mexico", "India", "Germany"],
}


def make_census(out, n_train=400, n_test=200, seed=0):
    """``adult.data`` / ``adult.test``: UCI census rows (15 columns, ``<=50K`` / ``>50K``
    labels) as tensorflow/models' census download script leaves them (``,`` separators, no
    ``|1x3 Cross validator`` line, no trailing dots on the test labels)."""
    rng = np.random.RandomState(seed)
    os.makedirs(out, exist_ok=True)

    def pick(col):
        v = CENSUS_VOCAB[col]
        return v[rng.randint(len(v))]

    for name, n in (("adult.data", n_train), ("adult.test", n_test)):
        lines = []
        for _ in range(n):
            age, edu_num, hours = rng.randint(17, 80), rng.randint(1, 17), rng.randint(10, 70)
            gain = int(rng.choice([0, 0, 0, 2174, 5178, 15024]))
            rich = (edu_num > 10) + (hours > 45) + (gain > 0) + rng.rand() > 1.5
            lines.append(",".join(str(v) for v in (
                age, pick("workclass"), rng.randint(20000, 400000), pick("education"),
                edu_num, pick("marital_status"), pick("occupation"), pick("relationship"),
                pick("race"), pick("gender"), gain, int(rng.choice([0, 0, 1902])), hours,
                pick("native_country"), ">50K" if rich else "<=50K")))
        with open(os.path.join(out, name), "w") as f:
            f.write("\n".join(lines) + "\n")


def make_autos(out, n=205, seed=0):
    """``imports-85.data`` (UCI automobile: 26 comma-separated columns, ``?`` for a missing
    value, no header) with a price that grows with engine size and horsepower."""
    rng = np.random.RandomState(seed)
    cat = {"make": ["alfa-romero", "audi", "bmw", "honda", "mazda", "toyota", "volvo"],
           "fuel": ["gas", "diesel"], "asp": ["std", "turbo"], "doors": ["two", "four"],
           "body": ["hardtop", "wagon", "sedan", "hatchback", "convertible"],
           "drive": ["4wd", "fwd", "rwd"], "loc": ["front", "rear"],
           "etype": ["dohc", "ohc", "ohcv", "l", "rotor"], "cyl": ["four", "five", "six"],
           "fsys": ["mpfi", "2bbl", "idi", "spdi"]}
    os.makedirs(out, exist_ok=True)
    lines = []
    for i in range(n):
        c = {k: v[rng.randint(len(v))] for k, v in cat.items()}
        size, hp = rng.uniform(60, 300), rng.uniform(50, 260)
        price = 3000 + 40 * size + 60 * hp + rng.normal(0, 1500)
        row = [rng.randint(-2, 4), "?" if i % 5 == 0 else rng.randint(65, 256), c["make"],
               c["fuel"], c["asp"], "?" if i % 50 == 7 else c["doors"], c["body"],
               c["drive"], c["loc"]] + ["%.1f" % rng.uniform(a, b) for a, b in (
                   (86, 121), (141, 209), (60, 73), (47, 60))] + [
               rng.randint(1488, 4067), c["etype"], c["cyl"], "%d" % size, c["fsys"],
               "%.2f" % rng.uniform(2.5, 4), "%.2f" % rng.uniform(2, 4.2),
               "%.1f" % rng.uniform(7, 23), "%d" % hp, rng.randint(4150, 6600),
               rng.randint(13, 50), rng.randint(16, 54),
               "?" if i % 40 == 3 else "%d" % max(price, 5000)]
        lines.append(",".join(str(v) for v in row))
    with open(os.path.join(out, "imports-85.data"), "w") as f:
        f.write("\n".join(lines) + "\n")


def make_higgs(out, n=3000, seed=0):
    """``HIGGS.csv.gz.npz`` as tensorflow/models' boosted-trees download script writes it:
    ``data``, an ``n x 29`` float32 array (label, then 28 features)."""
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(n, 28)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] * x[:, 2] + rng.normal(0, 0.5, n) > 0).astype(np.float32)
    os.makedirs(out, exist_ok=True)
    np.savez_compressed(os.path.join(out, "HIGGS.csv.gz.npz"),
                        data=np.concatenate([y[:, None], x], axis=1))


def make_quickdraw(out, per_class=60, seed=0):
    """``<class>.ndjson`` files of QuickDraw drawings (one JSON object a line: ``word``,
    ``countrycode``, ``timestamp``, ``recognized``, ``key_id``, ``drawing`` as a list of
    strokes ``[[x...], [y...]]``) for three classes of noisy shapes."""
    import json
    rng = np.random.RandomState(seed)
    os.makedirs(out, exist_ok=True)
    for k, word in enumerate(("circle", "square", "zigzag")):
        with open(os.path.join(out, word + ".ndjson"), "w") as f:
            for i in range(per_class):
                t = np.linspace(0, 1, rng.randint(8, 20))
                if word == "circle":
                    x, y = np.cos(2 * np.pi * t), np.sin(2 * np.pi * t)
                elif word == "square":
                    x = np.clip(np.abs(4 * t - 2) - 0.5, 0, 1)
                    y = np.clip(np.abs(4 * t - 1) - 0.5, 0, 1)
                else:
                    x, y = t, (np.arange(len(t)) % 2).astype(float)
                strokes = []
                for part in np.array_split(np.arange(len(t)), rng.randint(1, 3)):
                    xs = (x[part] + rng.normal(0, 0.05, len(part))) * 100 + 50
                    ys = (y[part] + rng.normal(0, 0.05, len(part))) * 100 + 50
                    strokes.append([[int(v) for v in xs], [int(v) for v in ys]])
                f.write(json.dumps({"word": word, "countrycode": "US", "timestamp": "",
                                    "recognized": True, "key_id": str(k * 10000 + i),
                                    "drawing": strokes}) + "\n")


def make_quickdraw_tfrecords(ndjson_dir, out, shards=2, seed=0):
    """The TFRecords tensorflow/models' QuickDraw converter makes from ``ndjson_dir`` (its
    own converter is Python 2 only): ``training.tfrecord-0000i-of-0000n`` (two thirds of each
    class) and ``eval.tfrecord-...`` of ``tf.train.Example``s with ``class_index`` (int64),
    ``ink`` (floats: per point the x/y deltas of the size-normalized drawing and a
    stroke-end flag) and ``shape`` (``[points, 3]``), plus ``training.tfrecord.classes``.
    Written with estimator_npu's own TFRecord writer."""
    import json
    import estimator_npu as tf
    rng = np.random.RandomState(seed)
    os.makedirs(out, exist_ok=True)
    names = sorted(f[:-7] for f in os.listdir(ndjson_dir) if f.endswith(".ndjson"))
    parts = {"training": [], "eval": []}
    for k, name in enumerate(names):
        with open(os.path.join(ndjson_dir, name + ".ndjson")) as f:
            lines = f.readlines()
        for i, line in enumerate(lines):
            strokes = json.loads(line)["drawing"]
            ink = np.concatenate([np.stack([s[0], s[1], np.eye(len(s[0]))[-1]], 1)
                                  for s in strokes]).astype(np.float32)
            low, scale = ink[:, :2].min(0), np.ptp(ink[:, :2], 0)
            ink[:, :2] = (ink[:, :2] - low) / np.where(scale == 0, 1, scale)
            ink[1:, :2] -= ink[:-1, :2].copy()
            ink = ink[1:]
            parts["training" if i < 2 * len(lines) // 3 else "eval"].append((k, ink))
    for part, items in parts.items():
        writers = [tf.python_io.TFRecordWriter(
            os.path.join(out, "%s.tfrecord-%05d-of-%05d" % (part, j, shards)))
            for j in range(shards)]
        for idx in rng.permutation(len(items)):
            k, ink = items[idx]
            feat = {"class_index": tf.train.Feature(int64_list=tf.train.Int64List(value=[k])),
                    "ink": tf.train.Feature(float_list=tf.train.FloatList(
                        value=ink.flatten().tolist())),
                    "shape": tf.train.Feature(int64_list=tf.train.Int64List(
                        value=list(ink.shape)))}
            writers[rng.randint(shards)].write(tf.train.Example(
                features=tf.train.Features(feature=feat)).SerializeToString())
        for w in writers:
            w.close()
    with open(os.path.join(out, "training.tfrecord.classes"), "w") as f:
        f.write("".join(n + "\n" for n in names))


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
    make_cifar10(os.path.join(data, "cifar10"))
    make_ptb(os.path.join(data, "ptb"))
    make_census(os.path.join(data, "census"))
    make_autos(os.path.join(data, "keras", "datasets"))
    make_higgs(os.path.join(data, "higgs"))
    make_quickdraw(os.path.join(data, "quickdraw", "ndjson"))
    make_quickdraw_tfrecords(os.path.join(data, "quickdraw", "ndjson"),
                             os.path.join(data, "quickdraw", "tfrecords"))
    blog = os.path.join(data, "blog", "dataset")  # tensorflow/models' estimator blog posts
    os.makedirs(blog, exist_ok=True)
    for name in ("iris_training.csv", "iris_test.csv"):
        shutil.copy(os.path.join(data, "keras", "datasets", name), blog)
    print("wrote", data)


if __name__ == "__main__":
    main()
