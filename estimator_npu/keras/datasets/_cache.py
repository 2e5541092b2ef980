"""Where Keras caches its data sets."""
import os


def cache_dir():
    """``$KERAS_HOME/datasets`` if ``KERAS_HOME`` is set, else ``~/.keras/datasets`` (TF's
    ``get_file`` location)."""
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return os.path.join(home, "datasets")


def locate(path, what, origin=None, extra=()):
    """The cached file or folder ``path`` (absolute, or relative to ``cache_dir()``), else
    the first of ``extra`` that exists; raises ``FileNotFoundError`` naming where it was
    looked for and where TF downloads it from."""
    full = path if os.path.isabs(path) else os.path.join(cache_dir(), path)
    for candidate in (full,) + tuple(extra):
        if os.path.exists(candidate):
            return candidate
    where = " or ".join((full,) + tuple(extra))
    source = f" (TF downloads it from {origin}; unpack archives there)" if origin else ""
    raise FileNotFoundError(
        f"{what}: {where} not found. estimator_npu does not download data sets: put the "
        f"file there (the Keras cache folder, $KERAS_HOME/datasets or ~/.keras/datasets)"
        f"{source}")
