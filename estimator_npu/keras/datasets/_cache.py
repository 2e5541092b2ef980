"""Where Keras caches its data sets."""
import os


def cache_dir():
    """``$KERAS_HOME/datasets`` if ``KERAS_HOME`` is set, else ``~/.keras/datasets``."""
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return os.path.join(home, "datasets")


def locate(path, what):
    """The cached file ``path`` (absolute, or relative to ``cache_dir()``); raises
    ``FileNotFoundError`` naming where it was looked for."""
    full = path if os.path.isabs(path) else os.path.join(cache_dir(), path)
    if not os.path.exists(full):
        raise FileNotFoundError(
            f"{what}: {full} not found. estimator_npu does not download data sets: put the "
            f"file there (the Keras cache folder, $KERAS_HOME/datasets or ~/.keras/datasets)"
            " or pass its path")
    return full
