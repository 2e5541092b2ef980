"""Graph-level k-means, TF1's ``tf.contrib.factorization.KMeans``.

``KMeans(inputs, num_clusters, ...).training_graph()`` returns TF1's tuple
``(all_scores, cluster_idx, scores, cluster_centers_initialized, init_op, training_op)``;
the first three are tuples with one tensor per input (``inputs`` may be a list of shards).
Run ``init_op`` (it chooses the centers once: later runs do nothing), then ``training_op``:

* full batch: one Lloyd iteration, ``c_k = sum(x in k) / (count_k + 1e-6)``;
* mini-batch: ``c_k += (sum(x in k) - n_k c_k) / (N_k + n_k)`` with ``N_k`` the points the
  cluster has absorbed (counts start at 1); with ``mini_batch_steps_per_iteration = m > 1``
  a second copy of the centers takes the updates and is copied back (and the counts reset
  to 0) every ``m`` steps, the copy used for assignments staying fixed in between.

Scores are squared Euclidean distances, or for ``distance_metric="cosine"`` ``1 - cos``
between l2-normalized points and centers (centers kept normalized in full-batch mode and
with ``m > 1``). Initial centers: ``"random"`` (points drawn uniformly with replacement; all
points when there are at most ``num_clusters``), ``"kmeans_plus_plus"`` (each new center
the best, by total potential, of ``2 + kmeans_plus_plus_num_retries`` candidates drawn
with probability proportional to the squared distance to the chosen ones), a tensor or
array of centers, or a function ``f(inputs, k)``.
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import control_dependencies
from estimator_npu.engine.ops import array_ops, control_ops, math_ops, nn_ops, state_ops
from estimator_npu.engine.ops.core import convert_to_tensor, group, identity, make_tensor
from estimator_npu.engine.ops.random_ops import get_seed
from estimator_npu.engine.ops.scatter_ops import unsorted_segment_sum
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)

SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
COSINE_DISTANCE = "cosine"
RANDOM_INIT = "random"
KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
KMC2_INIT = "kmc2"
CLUSTERS_VAR_NAME = "clusters"


def _plus_plus(x, k, rng, retries):
    centers = [x[rng.integers(len(x))]]
    d2 = ((x - centers[0]) ** 2).sum(1)
    for _ in range(1, k):
        total = d2.sum()
        cand = (rng.choice(len(x), size=2 + max(retries, 0), p=d2 / total) if total > 0
                else rng.integers(len(x), size=2 + max(retries, 0)))
        new_d2 = np.minimum(d2[None, :], ((x[None, :, :] - x[cand][:, None, :]) ** 2).sum(2))
        best = int(np.argmin(new_d2.sum(1)))
        centers.append(x[cand[best]])
        d2 = new_d2[best]
    return np.stack(centers)


def _initial_centers_kernel(op, ctx):
    a = op.attrs
    rng, k = ctx.rng(op), a["k"]

    def run(x):
        x = np.asarray(x)
        if a["method"] == RANDOM_INIT and len(x) <= k:
            return x.copy()
        if len(x) < k:
            raise errors.InvalidArgumentError(None, op, f"{op.name}: kmeans_plus_plus needs at "
                                              f"least num_clusters={k} points, got {len(x)}")
        if a["method"] == RANDOM_INIT:
            return x[rng.integers(0, len(x), size=k)]
        return _plus_plus(x.astype(np.float64), k, rng, a["retries"]).astype(x.dtype)
    return run


OPS.define("KMeansInitialCenters", kernel=_initial_centers_kernel, grad=NOT_DIFFERENTIABLE,
           stateful=True)


def _squared_distances(x, c):
    return (math_ops.reduce_sum(math_ops.square(x), 1, keepdims=True)
            - 2.0 * math_ops.matmul(x, c, transpose_b=True)
            + array_ops.transpose(math_ops.reduce_sum(math_ops.square(c), 1, keepdims=True)))


class KMeans(object):
    """Creates the graph for k-means clustering (see the module docstring)."""

    def __init__(self, inputs, num_clusters, initial_clusters=RANDOM_INIT,
                 distance_metric=SQUARED_EUCLIDEAN_DISTANCE, use_mini_batch=False,
                 mini_batch_steps_per_iteration=1, random_seed=0,
                 kmeans_plus_plus_num_retries=2, kmc2_chain_length=200):
        methods = [RANDOM_INIT, KMEANS_PLUS_PLUS_INIT, KMC2_INIT]
        if isinstance(initial_clusters, str) and initial_clusters not in methods:
            raise ValueError(f"Unsupported initialization algorithm `{initial_clusters}`, "
                             f"must be one of `{methods}`.")
        if isinstance(initial_clusters, str) and initial_clusters == KMC2_INIT:
            raise NotImplementedError("estimator_npu does not implement "
                                      "tf.contrib.factorization.KMeans(initial_clusters='kmc2') "
                                      "(yet); 'random' and 'kmeans_plus_plus' are there")
        metrics = [SQUARED_EUCLIDEAN_DISTANCE, COSINE_DISTANCE]
        if distance_metric not in metrics:
            raise ValueError(f"Unsupported distance metric `{distance_metric}`, must be one of "
                             f"`{metrics}`.")
        self._inputs = [convert_to_tensor(i) for i in
                        (inputs if isinstance(inputs, list) else [inputs])]
        self._num_clusters = num_clusters
        self._initial_clusters = initial_clusters
        self._distance_metric = distance_metric
        self._use_mini_batch = bool(use_mini_batch)
        self._steps = int(mini_batch_steps_per_iteration)
        self._seed = random_seed
        self._retries = int(kmeans_plus_plus_num_retries)

    def _cosine(self):
        return self._distance_metric == COSINE_DISTANCE

    def _clusters_l2_normalized(self):
        return self._cosine() and (not self._use_mini_batch or self._steps > 1)

    def _scores(self, inputs, centers):
        out = []
        for x in inputs:
            if self._cosine():
                c = centers if self._clusters_l2_normalized() else \
                    nn_ops.l2_normalize(centers, 1)
                all_scores = 1.0 - math_ops.matmul(x, c, transpose_b=True)
                nearest = math_ops.maximum(2.0 * all_scores, 0.0) * 0.5
            else:
                all_scores = _squared_distances(x, centers)
                nearest = math_ops.maximum(all_scores, 0.0)
            out.append((all_scores, math_ops.reduce_min(nearest, 1),
                        math_ops.argmin(nearest, 1, output_type=dtypes.int64)))
        return tuple(zip(*out))

    def _chosen_centers(self, k):
        init = self._initial_clusters
        if isinstance(init, str):
            s1, s2 = get_seed(self._seed)
            data = array_ops.concat(self._inputs, 0) if len(self._inputs) > 1 else \
                self._inputs[0]
            if init == KMEANS_PLUS_PLUS_INIT:
                data = self._inputs[0]
                if self._cosine():
                    data = nn_ops.l2_normalize(data, 1)
            centers = make_tensor("KMeansInitialCenters", [data], data.dtype,
                                  [None, data.shape.values[1] if data.shape.ndims else None],
                                  {"k": int(k), "method": init, "retries": self._retries,
                                   "seed2": None if s1 is None else
                                   [s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]})
        elif callable(init):
            centers = convert_to_tensor(init(self._inputs, k))
        else:
            centers = convert_to_tensor(init, dtype=self._inputs[0].dtype)
        return nn_ops.l2_normalize(centers, 1) if self._cosine() else centers

    def training_graph(self):
        """``(all_scores, cluster_idx, scores, cluster_centers_initialized, init_op,
        training_op)``, as TF1's."""
        x0 = self._inputs[0]
        init = self._initial_clusters
        if isinstance(init, str) or callable(init):
            k = int(self._num_clusters)
            dim = x0.shape.values[1] if x0.shape.ndims == 2 else None
        else:
            value = np.asarray(init) if not hasattr(init, "shape") or \
                isinstance(init, np.ndarray) else None
            shape = value.shape if value is not None else tuple(init.shape.as_list())
            k, dim = shape[0], shape[1]
        if k is None or dim is None:
            raise ValueError(f"KMeans: needs the number of clusters and the inputs' feature "
                             f"dimension statically, got {k} clusters and inputs of shape "
                             f"{x0.shape}")
        dt = x0.dtype
        centers_var = state_ops.Variable(array_ops.zeros([k, dim], dt), name=CLUSTERS_VAR_NAME)
        initialized = state_ops.Variable(False, dtype=dtypes.bool, name="initialized")
        two_copies = self._use_mini_batch and self._steps > 1
        updated = (state_ops.Variable(array_ops.zeros([k, dim], dt), name="clusters_updated")
                   if two_copies else centers_var)
        counts = None
        if self._use_mini_batch:
            counts = state_ops.Variable((array_ops.zeros if two_copies else array_ops.ones)(
                [k], dtypes.int64), name="cluster_counts")
        init_op = self._init_op(k, centers_var, updated, initialized)

        inputs = [nn_ops.l2_normalize(x, 1) for x in self._inputs] if self._cosine() \
            else self._inputs
        all_scores, scores, cluster_idx = self._scores(inputs, centers_var)
        if self._use_mini_batch:
            with control_dependencies([self._sync_op(centers_var, updated, counts)]):
                # the step assigns its points with the centers as they are after the sync
                train_idx = cluster_idx if updated is centers_var else \
                    self._scores(inputs, identity(centers_var))[2]
                training_op = self._mini_batch_op(inputs, train_idx, updated, counts, k)
        else:
            training_op = self._full_batch_op(inputs, cluster_idx, centers_var, k)
        return all_scores, cluster_idx, scores, initialized, init_op, training_op

    def _init_op(self, k, centers_var, updated, initialized):
        def assign():
            chosen = self._chosen_centers(k)
            ops = [state_ops.assign(centers_var, chosen)]
            if updated is not centers_var:
                ops.append(state_ops.assign(updated, chosen))
            with control_dependencies(ops):
                return group(state_ops.assign(initialized, True))
        return control_ops.cond(initialized, lambda: group(), assign, name="init_clusters")

    def _full_batch_op(self, inputs, cluster_idx, centers_var, k):
        sums = [unsorted_segment_sum(x, i, k) for x, i in zip(inputs, cluster_idx)]
        cnts = [unsorted_segment_sum(array_ops.ones_like(i, dtype=x.dtype)[:, None], i, k)
                for x, i in zip(inputs, cluster_idx)]
        new = math_ops.add_n(sums) / (math_ops.add_n(cnts) + 1e-6)
        if self._clusters_l2_normalized():
            new = nn_ops.l2_normalize(new, 1)
        return state_ops.assign(centers_var, new)

    def _mini_batch_op(self, inputs, cluster_idx, centers, counts, k):
        ops = []
        for x, idx in zip(inputs, cluster_idx):
            n = unsorted_segment_sum(array_ops.ones_like(idx), idx, k)
            old = counts + 0
            delta = (unsorted_segment_sum(x, idx, k) - math_ops.cast(n, x.dtype)[:, None]
                     * centers) / math_ops.cast(math_ops.maximum(old + n, 1), x.dtype)[:, None]
            step = state_ops.assign_add(centers, delta)
            with control_dependencies([step]):
                ops.append(state_ops.assign_add(counts, n))
        return group(*ops)

    def _sync_op(self, centers_var, updated, counts):
        """Every ``m`` steps: copy the updated centers back and reset the counts."""
        if centers_var is updated:
            return group()
        left = state_ops.Variable(np.int64(self._steps), name="update_in_steps")
        due = math_ops.cast(math_ops.less_equal(left, 0), dtypes.int64)
        f = math_ops.cast(due, centers_var.dtype)
        src = nn_ops.l2_normalize(updated, 1) if self._cosine() else updated
        copy = state_ops.assign(centers_var, f * src + (1.0 - f) * centers_var)
        with control_dependencies([copy]):
            reset = state_ops.assign(counts, counts * (1 - due))
            tick = state_ops.assign(left, due * (self._steps - 1) + (1 - due) * (left - 1))
        return group(copy, reset, tick)
