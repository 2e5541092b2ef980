"""``RunConfig``: how an ``Estimator`` runs (a frozen, validated value; no behaviour).

Defaults and mutual exclusions are TF 1.15's::

    RunConfig()                                  # checkpoints every 600 secs
    RunConfig(save_checkpoints_steps=100)        # every 100 steps (secs becomes None)
    RunConfig(save_checkpoints_steps=100, save_checkpoints_secs=60)   # ValueError
    RunConfig(save_checkpoints_steps=None, save_checkpoints_secs=None)
        # no CheckpointSaverHook: as TF, train writes no checkpoint at all
    config.replace(save_checkpoints_secs=60)     # a new config; steps becomes None

It reads no environment variables: a distributed run passes ``num_workers`` and
``worker_index`` explicitly.
"""
import os

import attr

from estimator_npu.engine.config_pb import ConfigProto
from estimator_npu.utils import logging, validation

USE_DEFAULT = "<use default>"
_STEPS, _SECS = "save_checkpoints_steps", "save_checkpoints_secs"


def _optional(check):
    def validator(instance, attribute, value):
        if value is not None and value is not USE_DEFAULT:
            check(attribute.name, value)
    return validator


def _model_dir(value):
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"model_dir must be a str or os.PathLike, got "
                        f"{type(value).__name__}: {value!r}")
    value = os.fspath(value)
    if not value:
        raise ValueError("model_dir must be a non-empty path, got ''")
    return value


def _session_config(instance, attribute, value):
    if value is not None and not isinstance(value, ConfigProto):
        raise TypeError(f"session_config must be a ConfigProto, got "
                        f"{type(value).__name__}: {value!r}")


def _device_fn(instance, attribute, value):
    if value is not None:
        validation.check_callable("device_fn", value)


_non_negative_int = _optional(validation.check_non_negative_int)
_non_negative_number = _optional(lambda n, v: validation.check_positive_number(n, v, True))
_positive_number = _optional(validation.check_positive_number)


@attr.s(frozen=True, slots=True)
class RunConfig:
    """The run settings of an ``Estimator`` (TF 1.15 ``tf.estimator.RunConfig``).

    Raises:
        ValueError: both ``save_checkpoints_steps`` and ``save_checkpoints_secs`` are set,
            or a value is out of range (negative steps, empty ``model_dir``...).
        TypeError: a value of the wrong type.
    """

    # Checkpoint interval when neither steps nor secs is given (NPURunConfig: 100 steps).
    DEFAULT_SAVE_CHECKPOINTS_STEPS = None
    DEFAULT_SAVE_CHECKPOINTS_SECS = 600

    model_dir = attr.ib(default=None, converter=_model_dir)
    tf_random_seed = attr.ib(default=None, validator=_optional(validation.check_int))
    save_summary_steps = attr.ib(default=100, validator=_non_negative_int)
    save_checkpoints_steps = attr.ib(default=USE_DEFAULT, validator=_non_negative_int)
    save_checkpoints_secs = attr.ib(default=USE_DEFAULT, validator=_non_negative_number)
    session_config = attr.ib(default=None, validator=_session_config)
    keep_checkpoint_max = attr.ib(default=5, validator=_non_negative_int)
    keep_checkpoint_every_n_hours = attr.ib(default=10000, validator=_positive_number)
    log_step_count_steps = attr.ib(default=100, validator=_non_negative_int)
    train_distribute = attr.ib(default=None)
    device_fn = attr.ib(default=None, validator=_device_fn)
    protocol = attr.ib(default=None)
    eval_distribute = attr.ib(default=None)
    experimental_distribute = attr.ib(default=None)
    experimental_max_worker_delay_secs = attr.ib(default=None,
                                                 validator=_non_negative_number)
    session_creation_timeout_secs = attr.ib(default=7200, validator=_positive_number)
    checkpoint_save_graph_def = attr.ib(default=True, validator=_optional(
        validation.check_bool))
    # Beyond TF: save the input iterators' position with every checkpoint and continue
    # from it on resume; False restores TF1's behaviour (the input restarts).
    exact_input_resume = attr.ib(default=True, kw_only=True,
                                 validator=lambda i, a, v: validation.check_bool(a.name, v))
    num_workers = attr.ib(default=1, kw_only=True,
                          validator=lambda i, a, v: validation.check_positive_int(a.name, v))
    worker_index = attr.ib(default=0, kw_only=True, validator=_non_negative_int)

    def __attrs_post_init__(self):
        steps, secs = self.save_checkpoints_steps, self.save_checkpoints_secs
        if steps is USE_DEFAULT and secs is USE_DEFAULT:
            steps, secs = self.DEFAULT_SAVE_CHECKPOINTS_STEPS, self.DEFAULT_SAVE_CHECKPOINTS_SECS
        elif steps is USE_DEFAULT:
            steps = None
        elif secs is USE_DEFAULT:
            secs = None
        if steps is not None and secs is not None:
            raise ValueError("save_checkpoints_steps and save_checkpoints_secs cannot be both "
                             f"set, got save_checkpoints_steps={steps!r} and "
                             f"save_checkpoints_secs={secs!r}")
        object.__setattr__(self, _STEPS, steps)
        object.__setattr__(self, _SECS, secs)
        if self.worker_index >= self.num_workers:
            raise ValueError(f"worker_index must be < num_workers ({self.num_workers}), got "
                             f"{self.worker_index}")
        if self.train_distribute is not None or self.eval_distribute is not None:
            logging.info("Initializing RunConfig with distribution strategies.")
            logging.info("Not using Distribute Coordinator.")

    def replace(self, **kwargs):
        """A copy with ``kwargs`` changed (setting one checkpoint interval clears the other).

        Raises:
            ValueError: an unknown argument, or both checkpoint intervals set.
        """
        names = {a.name for a in attr.fields(type(self))}
        unknown = sorted(set(kwargs) - names)
        if unknown:
            raise ValueError(f"replace() got unknown RunConfig argument(s) {unknown}; "
                             f"accepted: {sorted(names)}")
        if _STEPS in kwargs and _SECS not in kwargs and kwargs[_STEPS] is not None:
            kwargs[_SECS] = None
        elif _SECS in kwargs and _STEPS not in kwargs and kwargs[_SECS] is not None:
            kwargs[_STEPS] = None
        return attr.evolve(self, **kwargs)

    # TF1's cluster properties, for a single process or an explicit worker index.
    @property
    def is_chief(self):
        return self.worker_index == 0

    @property
    def num_worker_replicas(self):
        return self.num_workers

    @property
    def global_id_in_cluster(self):
        return self.worker_index

    @property
    def task_id(self):
        return self.worker_index

    @property
    def task_type(self):
        return "worker"  # TF: 'worker' also for a single process without TF_CONFIG

    @property
    def num_ps_replicas(self):
        return 0

    @property
    def master(self):
        return ""

    @property
    def evaluation_master(self):
        return ""

    @property
    def cluster_spec(self):
        from estimator_npu.train.cluster_spec import ClusterSpec
        return ClusterSpec({})

    @property
    def service(self):
        return None


# What TF's Estimator logs as "Using config: {...}": its RunConfig's attribute dict (the
# session config as protobuf text, TF's default one when none is given).
_TF_DEFAULT_SESSION_CONFIG = ("allow_soft_placement: true\ngraph_options {\n  rewrite_options {"
                              "\n    meta_optimizer_iterations: ONE\n  }\n}\n")
_TF_LOGGED = ("model_dir", "tf_random_seed", "save_summary_steps", _STEPS, _SECS,
              "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours",
              "log_step_count_steps", "train_distribute", "device_fn", "protocol",
              "eval_distribute", "experimental_distribute",
              "experimental_max_worker_delay_secs", "session_creation_timeout_secs",
              "checkpoint_save_graph_def", "service", "cluster_spec", "task_type", "task_id",
              "global_id_in_cluster", "master", "evaluation_master", "is_chief",
              "num_ps_replicas", "num_worker_replicas")


class _Raw(str):
    def __repr__(self):
        return str(self)


def logged_config(config):
    """The ``Using config: ...`` text of ``config``, laid out as TF's Estimator logs it
    (``{'_model_dir': ..., '_tf_random_seed': ..., ...}``); the fields a subclass adds
    (``NPURunConfig``'s) follow TF's."""
    values = {}
    for name in _TF_LOGGED:
        value = getattr(config, name)
        if name == "session_config":
            value = _Raw(_TF_DEFAULT_SESSION_CONFIG if value is None else str(value))
        values["_" + name] = value
    if config.train_distribute is not None or config.eval_distribute is not None:
        values["_distribute_coordinator_mode"] = None
    base = {a.name for a in attr.fields(RunConfig)}
    for field in attr.fields(type(config)):
        if field.name not in base and not field.name.startswith("_"):
            values["_" + field.name] = getattr(config, field.name)
    return repr(values)
