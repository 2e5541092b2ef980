"""``tf.data.experimental``'s thread-pool override (TF's ``data.experimental.ops.threadpool``).

A ``PrivateThreadPool`` names how many threads a dataset's own pool would have; here the
numpy pipeline runs on the calling thread, so ``override_threadpool`` records the sizes in
the dataset's ``options().experimental_threading`` and changes nothing else.
"""
from estimator_npu.data.options import Options


class PrivateThreadPool:
    """``PrivateThreadPool(num_threads, display_name=None, max_intra_op_parallelism=1)``."""

    def __init__(self, num_threads, display_name=None, max_intra_op_parallelism=1):
        num_threads = int(num_threads)
        if num_threads < 1:
            raise ValueError(f"PrivateThreadPool: num_threads must be >= 1, got {num_threads}")
        self.num_threads = num_threads
        self.display_name = display_name or "private_thread_pool"
        self.max_intra_op_parallelism = int(max_intra_op_parallelism)


def override_threadpool(dataset, thread_pool):
    """``dataset`` with ``thread_pool``'s sizes as its threading options."""
    if not isinstance(thread_pool, PrivateThreadPool):
        raise TypeError("override_threadpool: thread_pool must be a PrivateThreadPool, got "
                        f"{type(thread_pool).__name__}")
    options = Options()
    options.experimental_threading.private_threadpool_size = thread_pool.num_threads
    options.experimental_threading.max_intra_op_parallelism = \
        thread_pool.max_intra_op_parallelism
    return dataset.with_options(options)
