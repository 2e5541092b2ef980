"""``KMeansClustering`` (TF1's ``tf.contrib.factorization.KMeansClustering``, later
``tf.estimator.experimental.KMeans``): an Estimator around the graph-level ``KMeans``.

``input_fn`` returns the points (a tensor, or a dict of tensors concatenated along axis 1
in key order, or read through ``feature_columns``); labels are ignored. Each training step
is one full-batch Lloyd iteration or one mini-batch update; a hook runs the centers'
initializer right after the session is created. ``loss`` is the sum of the distances to
the nearest centers; ``evaluate`` reports it as ``score`` (the mean over batches),
``predict`` gives ``all_distances`` and ``cluster_index`` per point."""
import time

import numpy as np

from estimator_npu.clustering import kmeans as _km
from estimator_npu.engine.graph import control_dependencies
from estimator_npu.engine.ops import array_ops, math_ops, state_ops
from estimator_npu.engine.ops.core import identity
from estimator_npu.estimator import metrics
from estimator_npu.estimator.estimator import Estimator
from estimator_npu.estimator.model_fn import EstimatorSpec
from estimator_npu.hooks.session_run_hook import SessionRunArgs, SessionRunHook
from estimator_npu.train.training_util import get_global_step


class _InitializeClustersHook(SessionRunHook):
    """Runs ``init_op`` until the centers are initialized (chief only; others wait)."""

    def __init__(self, init_op, is_initialized, is_chief):
        self._init_op, self._is_initialized, self._is_chief = init_op, is_initialized, is_chief

    def after_create_session(self, session, coord):
        while not session.run(self._is_initialized):
            if self._is_chief:
                session.run(self._init_op)
            else:
                time.sleep(1)


class _LossRelativeChangeHook(SessionRunHook):
    """Stops training when ``|loss - prev| / (1 + |prev|) < tolerance``."""

    def __init__(self, loss, tolerance):
        self._loss, self._tolerance, self._prev = loss, tolerance, None

    def before_run(self, run_context):
        return SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        loss = run_values.results
        if self._prev and abs(loss - self._prev) / (1 + abs(self._prev)) < self._tolerance:
            run_context.request_stop()
        self._prev = loss


def _points(features, feature_columns):
    if not isinstance(features, dict):
        return features
    if feature_columns:
        from estimator_npu.feature_column.api import input_layer
        return input_layer(features, feature_columns)
    return array_ops.concat([features[k] for k in sorted(features)], 1)


class KMeansClustering(Estimator):
    """An Estimator for k-means clustering (see the module docstring)."""

    SQUARED_EUCLIDEAN_DISTANCE = _km.SQUARED_EUCLIDEAN_DISTANCE
    COSINE_DISTANCE = _km.COSINE_DISTANCE
    RANDOM_INIT = _km.RANDOM_INIT
    KMEANS_PLUS_PLUS_INIT = _km.KMEANS_PLUS_PLUS_INIT
    SCORE = "score"
    CLUSTER_INDEX = "cluster_index"
    ALL_DISTANCES = "all_distances"
    CLUSTER_CENTERS_VAR_NAME = _km.CLUSTERS_VAR_NAME

    def __init__(self, num_clusters, model_dir=None, initial_clusters=RANDOM_INIT,
                 distance_metric=SQUARED_EUCLIDEAN_DISTANCE, random_seed=0,
                 use_mini_batch=True, mini_batch_steps_per_iteration=1,
                 kmeans_plus_plus_num_retries=2, relative_tolerance=None, config=None,
                 feature_columns=None, seed=None):
        if isinstance(initial_clusters, str) and initial_clusters not in (
                self.RANDOM_INIT, self.KMEANS_PLUS_PLUS_INIT):
            raise ValueError(f"Unsupported initialization algorithm '{initial_clusters}'")
        if distance_metric not in (self.SQUARED_EUCLIDEAN_DISTANCE, self.COSINE_DISTANCE):
            raise ValueError(f"Unsupported distance metric '{distance_metric}'")
        kw = dict(num_clusters=num_clusters, initial_clusters=initial_clusters,
                  distance_metric=distance_metric, use_mini_batch=use_mini_batch,
                  mini_batch_steps_per_iteration=mini_batch_steps_per_iteration,
                  random_seed=random_seed if seed is None else seed,
                  kmeans_plus_plus_num_retries=kmeans_plus_plus_num_retries)

        def model_fn(features, mode, config):
            points = _points(features, feature_columns)
            (all_distances, cluster_index, losses, is_initialized, init_op,
             training_op) = _km.KMeans(points, **kw).training_graph()
            loss = math_ops.reduce_sum(losses)
            with control_dependencies([training_op, state_ops.assign_add(get_global_step(), 1)]):
                train_op = identity(loss)
            hooks = [_InitializeClustersHook(init_op, is_initialized, config.is_chief)]
            if relative_tolerance is not None:
                hooks.append(_LossRelativeChangeHook(loss, relative_tolerance))
            return EstimatorSpec(
                mode=mode, loss=loss, train_op=train_op, training_hooks=hooks,
                predictions={self.ALL_DISTANCES: all_distances[0],
                             self.CLUSTER_INDEX: cluster_index[0]},
                eval_metric_ops={self.SCORE: metrics.mean(loss)})

        self._euclidean = distance_metric == self.SQUARED_EUCLIDEAN_DISTANCE
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)

    def _predict_one_key(self, input_fn, predict_key):
        for result in self.predict(input_fn=input_fn, predict_keys=[predict_key]):
            yield result[predict_key]

    def predict_cluster_index(self, input_fn):
        """Yields the index of each point's nearest center."""
        return self._predict_one_key(input_fn, self.CLUSTER_INDEX)

    def score(self, input_fn):
        """The sum of the distances of the first batch's points to their nearest centers."""
        return self.evaluate(input_fn=input_fn, steps=1)[self.SCORE]

    def transform(self, input_fn):
        """Yields each point's distances to all centers (Euclidean, not squared, for the
        squared-Euclidean metric, as TF's)."""
        for d in self._predict_one_key(input_fn, self.ALL_DISTANCES):
            yield np.sqrt(np.maximum(d, 0.0)) if self._euclidean else d

    def cluster_centers(self):
        """The centers, as the latest checkpoint holds them."""
        return self.get_variable_value(self.CLUSTER_CENTERS_VAR_NAME)
