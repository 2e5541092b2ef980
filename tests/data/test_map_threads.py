"""``Dataset.map(num_parallel_calls=N)`` runs on at most as many threads as the process has
usable cores, whatever N (scripts ask for 32-64), and keeps the input order."""
import threading

import estimator_npu as tf
from estimator_npu.data import functional


def _map_threads(num_parallel_calls, monkeypatch, cores):
    monkeypatch.setattr(functional, "usable_cores", lambda: cores)
    seen = set()

    def fn(x):
        seen.add(threading.current_thread().name)
        return x * 2
    ds = tf.data.Dataset.range(50).map(lambda x: tf.py_func(fn, [x], tf.int64),
                                       num_parallel_calls=num_parallel_calls)
    got = [int(v) for v in _values(ds)]
    return got, seen


def _values(ds):
    """All elements of ``ds``, through one ``get_next`` run per element."""
    nxt = tf.data.make_one_shot_iterator(ds.batch(1000)).get_next()
    with tf.Session() as sess:
        return list(sess.run(nxt))


def test_parallel_map_threads_are_capped_at_the_usable_cores(monkeypatch):
    got, seen = _map_threads(64, monkeypatch, cores=3)
    assert got == [2 * i for i in range(50)]
    workers = {n for n in seen if n.startswith("data-map")}
    assert 1 <= len(workers) <= 3, seen


def test_autotune_uses_the_usable_cores(monkeypatch):
    got, seen = _map_threads(tf.data.experimental.AUTOTUNE, monkeypatch, cores=2)
    assert got == [2 * i for i in range(50)]
    assert len({n for n in seen if n.startswith("data-map")}) <= 2


def test_one_usable_core_maps_on_the_calling_thread(monkeypatch):
    got, seen = _map_threads(8, monkeypatch, cores=1)
    assert got == [2 * i for i in range(50)]
    assert not any(n.startswith("data-map") for n in seen)
