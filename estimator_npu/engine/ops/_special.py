"""Special functions numpy lacks (vectorised ``erf``)."""
import math

import numpy as np

_erf = np.vectorize(math.erf, otypes=[np.float64])


def erf(x):
    """Elementwise error function (exact to double precision via ``math.erf``)."""
    x = np.asarray(x)
    return _erf(x).astype(x.dtype if x.dtype.kind == "f" else np.float64)
