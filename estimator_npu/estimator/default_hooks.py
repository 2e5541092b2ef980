"""The hooks ``Estimator.train`` adds by itself, assembled in one place.

In run order, TF's (the chief's hooks first, as ``MonitoredTrainingSession`` puts them)::

    CheckpointSaverHook                               unless the user passed one; it saves
                                                      at start, every save_checkpoints_*
                                                      and always at the end
    ... spec.training_chief_hooks ...
    StepCounterHook                                   every log_step_count_steps
    SummarySaverHook                                  every save_summary_steps (if > 0)
    ... the input's hooks, the user's hooks (with the StopAtStepHook of steps/max_steps) ...
    NanTensorHook(loss)                               fail on a NaN loss
    LoggingTensorHook({loss, step})                   every log_step_count_steps
    ... spec.training_hooks ...
    ProgressHook                                      bar or log lines

So at one step TF's log reads ``Saving checkpoints for N``, ``global_step/sec: ...``,
then ``loss = ..., step = N``.
"""
from estimator_npu.hooks.basic_hooks import LoggingTensorHook, NanTensorHook
from estimator_npu.hooks.broadcast_hook import NPUBroadcastGlobalVariablesHook
from estimator_npu.hooks.progress import ProgressHook
from estimator_npu.hooks.monitored_session import standard_hooks
from estimator_npu.hooks.saver_hooks import CheckpointSaverHook
from estimator_npu.hooks.timer import NeverTriggerTimer, SecondOrStepTimer
from estimator_npu.utils import logging


def checkpoint_timer(config):
    """The checkpoint interval of ``config`` as a timer (``training_hooks`` installs no
    saver when neither interval is set)."""
    if config.save_checkpoints_steps:
        return SecondOrStepTimer(every_steps=config.save_checkpoints_steps)
    if config.save_checkpoints_secs:
        return SecondOrStepTimer(every_secs=config.save_checkpoints_secs)
    return NeverTriggerTimer()


def training_hooks(config, model_dir, spec, global_step, user_hooks, saving_listeners,
                   total_steps=None):
    """All hooks of one ``train`` call, in the order above.

    Only the chief (``config.is_chief``) writes: a non-chief worker gets no checkpoint,
    summary or progress hook, and no ``training_chief_hooks``.

    Args:
        config: the ``RunConfig``.
        model_dir: where checkpoints and summaries go.
        spec: the TRAIN ``EstimatorSpec``.
        global_step: the global step variable (a read of it under a distribution strategy).
        user_hooks: hooks given to ``train`` (a ``StopAtStepHook`` among them).
        saving_listeners: ``CheckpointSaverListener``s for the checkpoint hook.
        total_steps: the number of steps this call will run, when known (progress).
    """
    chief = config.is_chief
    broadcast = []
    if config.num_workers > 1 and not any(
            isinstance(h, NPUBroadcastGlobalVariablesHook)
            for h in list(user_hooks) + list(spec.training_hooks)):
        broadcast = [NPUBroadcastGlobalVariablesHook(root_rank=0)]
    every = config.log_step_count_steps
    has_saver = any(isinstance(h, CheckpointSaverHook)
                    for h in list(user_hooks) + list(spec.training_hooks)
                    + (list(spec.training_chief_hooks) if chief else []))
    # as TF: with save_checkpoints_steps and _secs both None there is no saver at all
    schedule = bool(config.save_checkpoints_steps or config.save_checkpoints_secs)
    counter, summaries, saver = standard_hooks(
        spec.scaffold,
        checkpoint_dir=model_dir if chief and not has_saver and schedule else None,
        summary_dir=model_dir if chief else None, log_step_count_steps=every,
        save_summaries_steps=config.save_summary_steps,
        checkpoint_timer=checkpoint_timer(config), listeners=saving_listeners)
    savers = [h for h in list(user_hooks) + list(spec.training_hooks)
              + (list(spec.training_chief_hooks) if chief else [])
              if isinstance(h, CheckpointSaverHook)]
    if saver is not None:
        logging.info("Create CheckpointSaverHook.")
    elif saving_listeners and savers:
        raise ValueError("saving_listeners were given to train() together with a "
                         "CheckpointSaverHook in hooks; give the listeners to that hook "
                         f"instead ({savers[0]!r})")
    hooks = broadcast + ([saver] if saver is not None else [])
    if chief:
        hooks.extend(spec.training_chief_hooks)
    hooks.extend(h for h in (counter, summaries) if h is not None)
    hooks.extend(user_hooks)
    hooks.append(NanTensorHook(spec.loss))
    if every:
        hooks.append(LoggingTensorHook({"loss": spec.loss, "step": global_step},
                                       every_n_iter=every))
    hooks.extend(spec.training_hooks)
    if chief:
        hooks.append(ProgressHook(total_steps, desc="Training"))
    return hooks
