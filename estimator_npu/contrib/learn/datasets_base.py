"""``tf.contrib.learn.datasets.base``: ``maybe_download(filename, work_directory,
source_url)`` as in TF1: makes ``work_directory``, returns ``work_directory/filename``
when that file exists, and otherwise downloads ``source_url`` there first (TF's
tutorials call it before reading a data set they may already have)."""
import os
import urllib.request

from estimator_npu.compat.missing import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
__all__ = ["maybe_download"]


def maybe_download(filename, work_directory, source_url):
    """The path of ``filename`` in ``work_directory``, downloaded when absent."""
    os.makedirs(work_directory, exist_ok=True)
    filepath = os.path.join(work_directory, filename)
    if not os.path.exists(filepath):
        try:
            urllib.request.urlretrieve(source_url, filepath)
        except OSError as e:
            raise OSError(f"maybe_download: {filepath} is absent and downloading "
                          f"{source_url} failed ({e})") from e
        print("Successfully downloaded", filename, os.path.getsize(filepath), "bytes.")
    return filepath
