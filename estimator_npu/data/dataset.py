"""``Dataset``: TF1's ``tf.data.Dataset`` over numpy, as a chain of immutable nodes.

Each constructor or transformation returns a new ``Dataset`` wrapping one node (see
``base``); nothing runs until an iterator is initialized in a session::

    ds = (Dataset.from_tensor_slices((images, labels))
          .shuffle(10000, seed=0).repeat().batch(128).prefetch(1))
    ds.output_shapes                       # (TensorShape([None, 784]), TensorShape([None]))
    images_t, labels_t = ds.make_one_shot_iterator().get_next()

Argument errors raise ``ValueError``/``TypeError`` naming the argument and the value when
the dataset is built; a tensor argument (say a ``batch_size`` placeholder) is checked
when the iterator is initialized.
"""
import builtins
import weakref

from estimator_npu.data import functional, iterator_ops, prefetch, sources, transforms
from estimator_npu.data.base import AUTOTUNE, Env, all_captures, scalar_arg
from estimator_npu.data.structure import Spec, shapes_up_to
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops.random_ops import get_seed
from estimator_npu.engine.shape import TensorShape
from estimator_npu.utils import nest, validation


_shuffles_built = weakref.WeakKeyDictionary()  # graph -> shuffles seeded from its seed


def _unwrap(value, what):
    if not isinstance(value, Dataset):
        raise TypeError(f"{what}: the function must return a Dataset, got "
                        f"{type(value).__name__}: {value!r}")
    return value._node


def _parallel_arg(value):
    if value is None:
        return None
    return scalar_arg("num_parallel_calls", value, 1, (AUTOTUNE,))


class Dataset:
    """A sequence of elements, each a structure (tuple/dict nest) of numpy arrays."""

    def __init__(self, node):
        self._node = node

    # ---------------------------------------------------------------- sources
    @staticmethod
    def from_tensors(tensors):
        """A dataset with ``tensors`` as its single element."""
        return Dataset(sources.TensorsNode(tensors))

    @staticmethod
    def from_tensor_slices(tensors):
        """A dataset of the rows of ``tensors`` (every component sliced along axis 0).

        Raises:
            ValueError: if the components differ in their first dimension (both sizes
                are named) or one is a scalar.
        """
        return Dataset(sources.SlicesNode(tensors))

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        """A dataset of the values yielded by ``generator(*args)``, one pass per
        iteration, converted to ``output_types`` and checked against ``output_shapes``."""
        return Dataset(sources.GeneratorNode(generator, Spec.from_nests(output_types,
                                                                        output_shapes),
                                             args))

    @staticmethod
    def range(*args, output_type=dtypes.int64):
        """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)``."""
        if not 1 <= len(args) <= 3:
            raise TypeError(f"range takes 1 to 3 arguments (start, stop, step), got "
                            f"{len(args)}")
        names = {1: ("stop",), 2: ("start", "stop"), 3: ("start", "stop", "step")}
        vals = dict(zip(names[len(args)], [validation.check_int(n, a) for n, a in
                                           zip(names[len(args)], args)]))
        return Dataset(sources.RangeNode(vals.get("start", 0), vals["stop"],
                                         vals.get("step", 1), dtypes.as_dtype(output_type)))

    @staticmethod
    def zip(datasets):
        """A dataset of elements of ``datasets`` (a tuple/dict nest of datasets) side by
        side, as long as the shortest."""
        flat = nest.flatten(datasets)
        if not flat or not all(isinstance(d, Dataset) for d in flat):
            raise TypeError(f"zip expects a nested structure of Datasets, got {datasets!r}")
        return Dataset(sources.ZipNode(nest.map_structure(lambda _: None, datasets),
                                       [d._node for d in flat]))

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The files matching ``file_pattern`` (see ``readers.list_files``)."""
        from estimator_npu.data import readers
        return readers.list_files(file_pattern, shuffle, seed)

    # ---------------------------------------------------------------- functions
    def map(self, map_func, num_parallel_calls=None, num_threads=None,
            output_buffer_size=None):
        """Applies ``map_func`` (traced once on Tensors) to each element; with
        ``num_parallel_calls`` elements are mapped on a thread pool, in order.

        ``num_threads`` / ``output_buffer_size`` are TF 1.2-1.3 ``tf.contrib.data``'s
        spellings of ``num_parallel_calls`` and of a ``prefetch`` after the map."""
        if num_threads is not None and num_parallel_calls is not None:
            raise ValueError("map: give num_parallel_calls or num_threads (its TF 1.2 "
                             "name), not both")
        out = Dataset(functional.MapNode(self._node, map_func, _parallel_arg(
            num_parallel_calls if num_threads is None else num_threads)))
        return out if output_buffer_size is None else out.prefetch(output_buffer_size)

    def filter(self, predicate):
        """Keeps the elements for which ``predicate`` (a scalar bool tensor) is true."""
        return Dataset(functional.FilterNode(self._node, predicate))

    def flat_map(self, map_func):
        """Maps each element to a dataset and flattens the results in order."""
        return Dataset(functional.FlatMapNode(self._node, map_func, _unwrap))

    def interleave(self, map_func, cycle_length=AUTOTUNE, block_length=1,
                   num_parallel_calls=None):
        """Like ``flat_map``, cycling over ``cycle_length`` open datasets and taking
        ``block_length`` elements from each in turn (``num_parallel_calls`` is accepted;
        the datasets are read on the calling thread, in TF's deterministic order)."""
        cycle_length = scalar_arg("cycle_length", cycle_length, 1, (AUTOTUNE,))
        block_length = scalar_arg("block_length", block_length, 1)
        _parallel_arg(num_parallel_calls)
        return Dataset(functional.FlatMapNode(self._node, map_func, _unwrap, "interleave",
                                              cycle_length, block_length))

    def apply(self, transformation_func):
        """Returns ``transformation_func(self)``, which must be a Dataset."""
        out = transformation_func(self)
        _unwrap(out, "apply")
        return out

    # ---------------------------------------------------------------- structure
    def batch(self, batch_size, drop_remainder=False):
        """Stacks ``batch_size`` consecutive elements; the last batch may be smaller unless
        ``drop_remainder`` (then the batch dimension is static)."""
        from estimator_npu.data import sparse_batch
        groups = sparse_batch.sparse_positions(self._node.spec.structure)
        if groups:  # SparseTensor components get a leading batch index (sparse_batch)
            return Dataset(sparse_batch.SparseBatchNode(
                self._node, scalar_arg("batch_size", batch_size),
                validation.check_bool("drop_remainder", drop_remainder), groups))
        return Dataset(transforms.BatchNode(self._node,
                                            scalar_arg("batch_size", batch_size),
                                            validation.check_bool("drop_remainder",
                                                                  drop_remainder)))

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False):
        """Batches elements of different shapes, padding each component to
        ``padded_shapes`` (``None``/-1 dims pad to the longest in the batch)."""
        batch_size = validation.check_positive_int("batch_size", batch_size)
        spec = self._node.spec
        if padded_shapes is None:
            shapes = [TensorShape(None if s.values is None else [None] * len(s.values))
                      for s in spec.shapes]
        else:
            shapes = []
            shapes_up_to(spec.structure, padded_shapes, "", shapes)
        if padding_values is None:
            pads = [b"" if t == dtypes.string else 0 for t in spec.types]
        elif nest.is_nested(padding_values):
            pads = nest.flatten(padding_values)
        else:
            pads = [padding_values] * spec.num_components
        return Dataset(transforms.PaddedBatchNode(
            self._node, batch_size, shapes, pads,
            validation.check_bool("drop_remainder", drop_remainder)))

    def unbatch(self):
        """Splits each element along its first dimension into single elements."""
        return Dataset(transforms.UnbatchNode(self._node))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        """Shuffles with a buffer of ``buffer_size`` elements (a full shuffle when it
        holds the whole dataset). Seeds follow TF1 (op seed, graph seed); with
        ``reshuffle_each_iteration`` (default) each pass (each ``repeat`` epoch) has a new
        order, and the sequence of orders is fixed by the seed."""
        buffer_size = scalar_arg("buffer_size", buffer_size)
        if seed is not None:
            seed = validation.check_int("seed", seed)
        s1, s2 = get_seed(seed)
        rng_seed = None
        if s1 is not None:
            # With only a graph seed, the op seed comes from the graph's op count, which
            # building datasets does not change: count the shuffles too, so two shuffles
            # of one graph differ (as in TF, where each dataset adds ops).
            g = get_default_graph()
            n = 0 if seed is not None else _shuffles_built.get(g, 0)
            if seed is None:
                _shuffles_built[g] = n + 1
            rng_seed = [s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF, n]
        reshuffle = True if reshuffle_each_iteration is None else validation.check_bool(
            "reshuffle_each_iteration", reshuffle_each_iteration)
        return Dataset(transforms.ShuffleNode(self._node, buffer_size, rng_seed, reshuffle))

    def repeat(self, count=None):
        """Repeats the dataset ``count`` times (forever when ``None`` or -1)."""
        count = -1 if count is None else scalar_arg("count", count, 0, (-1,))
        return Dataset(transforms.RepeatNode(self._node, count))

    def take(self, count):
        """The first ``count`` elements (all when -1)."""
        return Dataset(transforms.TakeNode(self._node, scalar_arg("count", count, 0, (-1,))))

    def skip(self, count):
        """All but the first ``count`` elements (none when -1)."""
        return Dataset(transforms.SkipNode(self._node, scalar_arg("count", count, 0, (-1,))))

    def shard(self, num_shards, index):
        """Every ``num_shards``-th element starting at ``index``.

        Raises:
            ValueError: ``num_shards`` <= 0, or ``index`` not in ``[0, num_shards)``.
        """
        num_shards = validation.check_positive_int("num_shards", num_shards)
        index = validation.check_non_negative_int("index", index)
        if index >= num_shards:
            raise ValueError(f"index must be less than num_shards ({num_shards}), got "
                             f"{index}")
        return Dataset(transforms.ShardNode(self._node, num_shards, index))

    def cache(self, filename=""):
        """Records the first complete pass (in memory, or in ``filename``) and replays
        it on later passes."""
        validation.check_type("filename", filename, str)
        return Dataset(transforms.CacheNode(self._node, filename))

    def prefetch(self, buffer_size):
        """Produces up to ``buffer_size`` elements ahead on a background thread (the
        order is unchanged)."""
        return Dataset(prefetch.PrefetchNode(
            self._node, scalar_arg("buffer_size", buffer_size, 1, (AUTOTUNE,))))

    def concatenate(self, dataset):
        """The elements of this dataset followed by those of ``dataset``."""
        return Dataset(sources.ConcatenateNode(self._node, _unwrap(dataset, "concatenate")))

    def enumerate(self, start=0):
        """Pairs ``(index, element)`` with int64 indices counting from ``start``."""
        start = validation.check_int("start", start)
        counter = Dataset(sources.RangeNode(start, None, 1, dtypes.int64))
        return Dataset.zip((counter, self))

    def ignore_errors(self, log_warning=False):
        """Drops elements whose computation raised an error (see ``readers``)."""
        from estimator_npu.data import readers
        return readers.ignore_errors(log_warning)(self)

    def with_options(self, options):
        """The same dataset with ``options`` (a ``tf.data.Options``) merged into its
        options; they do not change how the numpy pipeline runs."""
        from estimator_npu.data.options import Options
        if not isinstance(options, Options):
            raise TypeError(f"options must be a tf.data.Options; got {options!r}")
        out = Dataset(self._node)
        out._options = self.options().merge(options)
        return out

    def options(self):
        """The ``tf.data.Options`` set with ``with_options`` (defaults if none)."""
        from estimator_npu.data.options import Options
        return getattr(self, "_options", None) or Options()

    # ---------------------------------------------------------------- iterators
    def make_one_shot_iterator(self):
        """An iterator that starts itself on first use and cannot be re-initialized."""
        return iterator_ops.make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator to start (and restart, e.g. with new feeds) with ``initializer``."""
        return iterator_ops.make_initializable_iterator(self, shared_name)

    def as_numpy_iterator(self):
        """Iterates the elements as numpy structures without a graph iterator (captured
        tensors are evaluated once in a temporary session)."""
        captured = all_captures(self._node)
        values = ()
        if captured:
            from estimator_npu.engine.session import Session
            with Session(graph=captured[0].graph) as sess:
                values = sess.run(captured)
        spec = self._node.spec
        for elem in self._node.elements(Env(dict(builtins.zip(captured, values)))):
            yield spec.pack(elem)

    # ---------------------------------------------------------------- static info
    @property
    def output_types(self):
        return self._node.spec.output_types()

    @property
    def output_shapes(self):
        return self._node.spec.output_shapes()

    @property
    def output_classes(self):
        return self._node.spec.output_classes()

    def __repr__(self):
        return (f"<Dataset {self._node.name} shapes: {self.output_shapes}, types: "
                f"{self.output_types}>")


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes


__all__ = ["Dataset", "get_output_types", "get_output_shapes", "get_output_classes"]
