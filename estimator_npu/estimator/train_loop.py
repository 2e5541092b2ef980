"""The training loop of ``Estimator.train``: host calls until a hook stops it.

Each host call asks the runner for ``k_i = min(iterations_per_loop, last_step - step)``
steps, so the last call is clamped and training never overshoots ``max_steps``. The
session's ``StepAccount`` (``session.steps``, ``run_context.steps``) does the clamping;
``last_step`` is set on it once, from the ``StopAtStepHook`` that decided it::

    session.steps.last_step = stop_at_step_hook.last_step
    while not session.should_stop():
        _, loss = session.run([train_op, loss])      # one host call of k_i steps

The device loop plugs in through ``make_runner``: it returns the runner (see
``hooks.monitored_session``) and the loop size for a config and a training op. The default
runs one step per call, with the loop size of ``config.iterations_per_loop`` when the
config has one (1 otherwise).
"""
from estimator_npu import errors
from estimator_npu.device import loop as device_loop
from estimator_npu.hooks import timer
from estimator_npu.hooks.basic_hooks import StopAtStepHook
from estimator_npu.hooks.monitored_session import MonitoredTrainingSession
from estimator_npu.utils import logging


def make_runner(config, train_op):
    """``(runner, iterations_per_loop)`` for training ``train_op`` under ``config``.

    ``runner`` is ``None`` (one step per call) unless ``config.iterations_per_loop > 1``
    and the input can be pulled inside the loop; otherwise a warning says why the loop
    does not take effect.
    """
    k = getattr(config, "iterations_per_loop", 1)
    if k <= 1:
        return None, 1
    reason = device_loop.host_side_input_reason(
        train_op, getattr(config, "enable_data_pre_proc", True))
    if reason is not None:
        logging.warning("iterations_per_loop=%d does not take effect: %s; each host call "
                        "runs one training step.", k, reason)
        return None, 1
    return device_loop.DeviceLoopRunner(train_op), k


def _warn_about_intervals(config, iterations_per_loop, start, last_step):
    settings = {"save_checkpoints_steps": config.save_checkpoints_steps,
                "save_summary_steps": config.save_summary_steps,
                "log_step_count_steps": config.log_step_count_steps}

    def fires(name, every, boundaries):
        # the checkpoint saver's first event is its save at session creation (``start``);
        # the summary, step-counter and loss-logging hooks fire on their first call
        last = start if name == "save_checkpoints_steps" else None
        return timer.fire_steps(every, boundaries, last=last)
    for message in device_loop.interval_warnings(settings, iterations_per_loop, start,
                                                 last_step, fires):
        logging.warning(message)


def run_training(train_op, loss, hooks, scaffold, model_dir, config, *, runner=None,
                 iterations_per_loop=1, steps=None, max_steps=None):
    """Runs ``train_op`` in a ``MonitoredTrainingSession`` until a stop or end of input.

    Args:
        train_op, loss: from the ``EstimatorSpec``.
        hooks: every hook of this call (a ``StopAtStepHook`` among them when ``steps`` or
            ``max_steps`` is given).
        scaffold: the ``Scaffold``; ``model_dir``: restore from / save to.
        config: the ``RunConfig`` (session config, chief or not).
        runner: the device loop's runner (``None``: one step per call).
        iterations_per_loop: steps per host call (clamped to the steps left).
        steps, max_steps: as given to ``train`` (used to clamp the last call).

    Returns:
        The loss of the last completed host call (``None`` if none completed).
    """
    loss_value = None
    fetches = [train_op, loss]
    with MonitoredTrainingSession(
            is_chief=config.is_chief, checkpoint_dir=model_dir, scaffold=scaffold,
            hooks=hooks, save_checkpoint_secs=None, save_checkpoint_steps=None,
            save_summaries_steps=None, save_summaries_secs=None, log_step_count_steps=None,
            config=config.session_config, runner=runner,
            iterations_per_loop=iterations_per_loop) as session:
        start = session.current_global_step
        # last_step is decided once, by the StopAtStepHook (from steps or max_steps); the
        # session's StepAccount clamps every call to it
        stoppers = [h for h in hooks if isinstance(h, StopAtStepHook)]
        last_step = min(h.last_step for h in stoppers) if stoppers else (
            max_steps if max_steps is not None else (
                None if steps is None else start + steps))
        session.steps.last_step = last_step
        _warn_about_intervals(config, iterations_per_loop, start, last_step)
        try:
            while not session.should_stop():
                before = session.current_global_step
                _, loss_value = session.run(fetches)
                if session.current_global_step == before:
                    logging.warn_once(("global_step_not_increased", id(train_op)),
                                      "The global step did not increase in a training step "
                                      "(%d); pass global_step=tf.train.get_global_step() to "
                                      "minimize/apply_gradients, or training never stops "
                                      "at steps/max_steps. (With loss scaling, a step whose "
                                      "gradients overflow is skipped and does not count: "
                                      "a dynamic scale is lowered until they are finite.)",
                                      before)
        except (errors.OutOfRangeError, StopIteration):
            logging.info("End of input reached at global step %s.",
                         session.current_global_step)
    return loss_value
