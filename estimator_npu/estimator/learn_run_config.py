"""``tf.contrib.learn.RunConfig``: TF 1.x's older ``RunConfig``, which ``learn_runner`` and
``Experiment`` take, as a ``RunConfig`` with contrib.learn's constructor and properties.

What differs from ``tf.estimator.RunConfig`` (as TF 1.x's contrib.learn has it, for a
single process without ``TF_CONFIG``; this class reads no environment variables)::

    config = tf.contrib.learn.RunConfig(model_dir=d, save_checkpoints_steps=None)
    config.save_checkpoints_secs    # 600: the default whenever steps is None
    config.task_type                # None (tf.estimator's says 'worker')
    config.num_worker_replicas      # 0: no cluster spec names a worker
    config.environment              # 'local'
    config.tf_config                # a ConfigProto of num_cores, log_device_placement,
                                    # gpu_memory_fraction
    config.uid()                    # a string of every setting but those of
                                    # DEFAULT_UID_WHITE_LIST; learn_runner compares it

A distributed run passes ``num_workers`` / ``worker_index`` as for ``RunConfig``; then
``task_type`` is ``'worker'`` and ``num_worker_replicas`` is the worker count.
"""
import attr

from estimator_npu.engine.config_pb import ConfigProto, GPUOptions
from estimator_npu.estimator.run_config import USE_DEFAULT, RunConfig as _CoreRunConfig

# The settings a user may change without changing how the run executes: uid() leaves
# them out (TF 1.x's contrib.learn list).
DEFAULT_UID_WHITE_LIST = [
    "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
    "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours", "log_step_count_steps",
]


class Environment:
    """Where a contrib.learn job runs (TF 1.x's names)."""
    CLOUD = "cloud"
    GOOGLE = "google"
    LOCAL = "local"


class TaskType:
    """contrib.learn's task types."""
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"


@attr.s(frozen=True, slots=True, init=False)
class LearnRunConfig(_CoreRunConfig):
    """``tf.contrib.learn.RunConfig`` (see the module docstring).

    Raises:
        ValueError, TypeError: as ``RunConfig`` for the settings it shares.
    """

    _master = attr.ib(default=None, kw_only=True)
    num_cores = attr.ib(default=0, kw_only=True)
    log_device_placement = attr.ib(default=False, kw_only=True)
    gpu_memory_fraction = attr.ib(default=1, kw_only=True)
    _evaluation_master = attr.ib(default="", kw_only=True)

    def __init__(self, master=None, num_cores=0, log_device_placement=False,
                 gpu_memory_fraction=1, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_secs=USE_DEFAULT, save_checkpoints_steps=None,
                 keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000,
                 log_step_count_steps=100, evaluation_master="", model_dir=None,
                 session_config=None, **settings):
        # contrib.learn: secs defaults to 600 when steps is None, else to None
        if save_checkpoints_secs is USE_DEFAULT:
            save_checkpoints_secs = 600 if save_checkpoints_steps is None else None
        self.__attrs_init__(
            model_dir=model_dir, tf_random_seed=tf_random_seed,
            save_summary_steps=save_summary_steps,
            save_checkpoints_steps=save_checkpoints_steps,
            save_checkpoints_secs=save_checkpoints_secs, session_config=session_config,
            keep_checkpoint_max=keep_checkpoint_max,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            log_step_count_steps=log_step_count_steps, master=master, num_cores=num_cores,
            log_device_placement=log_device_placement,
            gpu_memory_fraction=gpu_memory_fraction, evaluation_master=evaluation_master,
            **settings)

    def uid(self, whitelist=None):
        """A string of every setting except those named in ``whitelist`` (default
        ``DEFAULT_UID_WHITE_LIST``): equal for two configs that run the same way."""
        if whitelist is None:
            whitelist = DEFAULT_UID_WHITE_LIST
        skip = {name.lstrip("_") for name in whitelist}
        state = sorted((a.name if a.name.startswith("_") else "_" + a.name,
                        getattr(self, a.name)) for a in attr.fields(type(self))
                       if a.name.lstrip("_") not in skip)
        return ", ".join(f"{k}={v!r}" for k, v in state)

    @property
    def master(self):
        return self._master or ""

    @property
    def evaluation_master(self):
        return self._evaluation_master or ""

    @property
    def environment(self):
        return Environment.LOCAL

    @property
    def task_type(self):
        return None if self.num_workers == 1 else TaskType.WORKER

    @property
    def num_worker_replicas(self):
        return 0 if self.num_workers == 1 else self.num_workers

    @property
    def tf_config(self):
        return ConfigProto(log_device_placement=self.log_device_placement,
                           inter_op_parallelism_threads=self.num_cores,
                           intra_op_parallelism_threads=self.num_cores,
                           gpu_options=GPUOptions(
                               per_process_gpu_memory_fraction=self.gpu_memory_fraction))


__all__ = ["DEFAULT_UID_WHITE_LIST", "Environment", "LearnRunConfig", "TaskType"]
