"""The bundled UCI Iris data (150 flowers, 4 measurements, 3 classes), for premade examples.

Data: R. A. Fisher, "Iris", UCI Machine Learning Repository, 1936, DOI 10.24432/C56C76,
CC BY 4.0 (see ``data/IRIS_LICENSE.txt``).

``load()`` returns ``((train_x, train_y), (test_x, test_y))`` as TF's premade-estimator
tutorial does: ``x`` a dict of float32 columns named ``FEATURES``, ``y`` int64 classes. The
split is fixed and stratified: per class a ``seed``-ed permutation puts 10 flowers in test
(120 train / 30 test).
"""
import importlib.resources

import numpy as np

FEATURES = ("SepalLength", "SepalWidth", "PetalLength", "PetalWidth")
SPECIES = ("setosa", "versicolor", "virginica")


def load_arrays(path=None):
    """All 150 rows: float32 measurements ``[150, 4]`` and int64 classes ``[150]``
    (``path``: another copy of the CSV; default the bundled one)."""
    res = importlib.resources.files(__package__).joinpath("data").joinpath("iris.csv") \
        if path is None else open(path)
    with res.open("r") if path is None else res as f:
        rows = [line.strip().split(",") for line in f if line.strip()][1:]
    x = np.array([[float(v) for v in r[:4]] for r in rows], np.float32)
    y = np.array([int(r[4]) for r in rows], np.int64)
    return x, y


def load(test_per_class=10, seed=0, path=None):
    """``((train_x, train_y), (test_x, test_y))``: a fixed stratified 120/30 split."""
    x, y = load_arrays(path)
    rng = np.random.RandomState(seed)
    test = np.zeros(len(y), bool)
    for c in range(len(SPECIES)):
        idx = np.flatnonzero(y == c)
        test[rng.permutation(idx)[:test_per_class]] = True
    order = rng.permutation(len(y))
    train_idx = order[~test[order]]
    test_idx = np.flatnonzero(test)

    def part(ix):
        return {k: x[ix, i] for i, k in enumerate(FEATURES)}, y[ix]
    return part(train_idx), part(test_idx)
