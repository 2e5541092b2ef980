"""``MonitoredSession``: a session that runs hooks around every call.

    with MonitoredTrainingSession(checkpoint_dir=model_dir, hooks=hooks) as sess:
        while not sess.should_stop():
            sess.run(train_op)

Lifecycle (see ``session_run_hook``): every hook's ``begin``; create the session (restore
or initialize); ``after_create_session``; then per ``run``: ``before_run`` of each hook,
ONE call of the runner, ``after_run`` of each hook with the global step after the call;
on close ``end`` — or, when the session closes because of an error, ``on_error`` instead:
TF skips ``end`` then, so no final checkpoint is written. End of input
(``OutOfRangeError`` or ``StopIteration`` leaving the ``with`` block) is a normal end.

The runner is the device loop's plug: ``runner(session, fetches, feed_dict, options,
iterations)`` receives a flat tuple of graph elements (the caller's fetches, the hooks'
fetches, the global step) and the number of steps the call should run
(``iterations_per_loop`` of the monitored session), and returns ``(values, steps_run)``:
one value per fetch, from the last step, and how many steps it ran. The default runs one
step: ``(session.run(fetches, feed_dict, options), 1)``.
"""
from estimator_npu import errors
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.sparse_tensor import as_fetch_structure
from estimator_npu.hooks.basic_hooks import StepCounterHook
from estimator_npu.hooks.saver_hooks import CheckpointSaverHook, SummarySaverHook
from estimator_npu.hooks.scaffold import ChiefSessionCreator, Scaffold, WorkerSessionCreator
from estimator_npu.hooks.session_run_hook import (SessionRunArgs, SessionRunContext,
                                                  SessionRunHook, SessionRunValues,
                                                  StepAccount, as_step_tensor)
from estimator_npu.hooks.timer import SecondOrStepTimer
from estimator_npu.queues.queue_runner import start_queue_runners
from estimator_npu.train import model_dir_lock, recovery
from estimator_npu.train.coordinator import Coordinator
from estimator_npu.utils import logging, nest, validation

USE_DEFAULT = object()


def default_runner(session, fetches, feed_dict, options, iterations):
    """Runs one step: ``(session.run(fetches, feed_dict, options), 1)``."""
    return session.run(fetches, feed_dict, options), 1


def sort_hooks(hooks):
    """Hooks in run order: by decreasing ``priority``, then in the order given."""
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"hooks must be SessionRunHook instances, got "
                            f"{type(hook).__name__}: {hook!r}")
    order = sorted(range(len(hooks)), key=lambda i: (-hooks[i].priority, i))
    return [hooks[i] for i in order]


_NEVER = object()


def _snapshot(structure):
    """A copy of a fetch structure's containers (leaves kept as they are)."""
    kind = type(structure)
    if kind is list or kind is tuple:
        return (kind, tuple(_snapshot(x) for x in structure))
    if kind is dict:
        return (kind, tuple((k, _snapshot(v)) for k, v in structure.items()))
    if nest.is_nested(structure):
        return _NEVER  # namedtuples, other mappings: rebuilt every call
    return structure


def _same(structure, snapshot):
    """Whether ``structure`` has the containers of ``snapshot`` and the very same leaves."""
    if structure is snapshot:
        return True  # the same leaf (containers never equal their snapshot tuple)
    kind = type(structure)
    if kind is not list and kind is not tuple and kind is not dict:
        return False
    if type(snapshot) is not tuple or snapshot[0] is not kind:
        return False
    items = snapshot[1]
    if len(items) != len(structure):
        return False
    if kind is dict:
        for key, value in items:
            if key not in structure or not _same(structure[key], value):
                return False
        return True
    for x, y in zip(structure, items):
        if x is not y and not _same(x, y):
            return False
    return True


class _FetchPlan:
    """The flat fetch tuple of one (caller fetches, hook requests) shape and its unpackers.

    ``flat`` is what the runner fetches: the caller's leaves, each hook's leaves, then the
    global step. ``unpack(i, values)`` rebuilds structure ``i`` (0: the caller's).
    """

    __slots__ = ("snapshots", "flat", "unpackers", "step_index")

    def __init__(self, structures, step_tensor):
        self.snapshots = [_snapshot(s) for s in structures]
        flat = []
        self.unpackers = []
        for structure in structures:
            if structure is None:
                self.unpackers.append(None)
                continue
            leaves, pack = nest.flatten_with_packer(as_fetch_structure(structure))
            start, end = len(flat), len(flat) + len(leaves)
            flat.extend(leaves)
            self.unpackers.append(lambda values, pack=pack, start=start, end=end:
                                  pack(values[start:end]))
        self.step_index = None
        if step_tensor is not None:
            self.step_index = len(flat)
            flat.append(step_tensor)
        self.flat = tuple(flat)

    def matches(self, fetches, requests):
        snapshots = self.snapshots
        if len(requests) + 1 != len(snapshots) or not _same(fetches, snapshots[0]):
            return False
        for request, snapshot in zip(requests, snapshots[1:]):
            if request is None:
                if snapshot is not None:
                    return False
            elif not _same(request.fetches, snapshot):
                return False
        return True


def _new_values(fields):
    return tuple.__new__(SessionRunValues, fields)


class MonitoredSession:
    """A session that runs hooks, restores/initializes itself, and stops on request.

    Args:
        session_creator: makes the session (default: ``ChiefSessionCreator()``).
        hooks: ``SessionRunHook``s (run in ``sort_hooks`` order).
        stop_grace_period_secs: accepted for TF1 compatibility.
        runner: the device loop's plug (see the module docstring); default one step.
        iterations_per_loop: steps per host call asked of the runner (public, settable).
    """

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120, *,
                 runner=None, iterations_per_loop=1):
        self._graph = get_default_graph()
        self._hooks = sort_hooks(hooks)
        self._creator = session_creator or ChiefSessionCreator()
        self.runner = default_runner if runner is None else validation.check_callable(
            "runner", runner)
        self.steps = StepAccount(iterations_per_loop=iterations_per_loop)
        self.iterations_per_loop = iterations_per_loop
        self._coord = Coordinator()
        self._sess = None
        self._closed = False
        self._on_close = []     # callback(error or None) run once the session is closed
        self._plan = None
        self.current_global_step = None
        self._step_tensor = as_step_tensor(self._graph)
        self._step_store = None
        self._stop_grace_period_secs = stop_grace_period_secs
        try:
            for hook in self._hooks:
                hook.begin()
            self._sess = self._creator.create_session()
            # as TF: the graph's queue runners start (daemon threads, this coordinator)
            # before the hooks see the session
            start_queue_runners(self._sess, self._coord)
            if self._step_tensor is not None:
                self.current_global_step = int(self._sess.run(self._step_tensor))
                self._step_store = _variable_store(self._sess, self._step_tensor)
                self.steps.start_step = self.steps.global_step = self.current_global_step
            for hook in self._hooks:
                hook.after_create_session(self._sess, self._coord)
        except BaseException as error:
            self._close_internal(error)
            raise

    @property
    def iterations_per_loop(self):
        """Steps the next ``run`` asks of the runner (clamped by the caller as needed)."""
        return self._iterations_per_loop

    @iterations_per_loop.setter
    def iterations_per_loop(self, value):
        self._iterations_per_loop = validation.check_positive_int("iterations_per_loop", value)
        self.steps.iterations_per_loop = self._iterations_per_loop

    @property
    def graph(self):
        return self._graph

    @property
    def hooks(self):
        """The hooks in the order they run."""
        return list(self._hooks)

    def should_stop(self):
        """True once a hook requested a stop, the input ended, or the session closed.

        Raises the exception a queue-runner thread reported, if any (as TF does)."""
        if self._sess is None:
            return True
        self._coord.raise_requested_exception()
        return self._coord.should_stop()

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs ``fetches`` with the hooks; returns their values (same structure).

        Raises:
            RuntimeError: the session is closed, or a hook feeds a tensor fed already.
            Whatever the run or a hook raises (``after_run`` is skipped when the run
            itself raised; ``OutOfRangeError`` also marks the session as stopping).
        """
        sess = self._sess
        if sess is None:
            raise RuntimeError("Run called on a closed MonitoredSession.")
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict, options), sess,
                                    self.steps.next_call_steps(), self.steps)
        hooks = self._hooks
        requests = [hook.before_run(context) for hook in hooks]
        plan = self._plan
        if plan is None or not plan.matches(fetches, requests):
            plan = self._plan = _FetchPlan(
                [fetches] + [None if r is None else r.fetches for r in requests],
                self._step_tensor)
        feeds = feed_dict
        for request in requests:
            if request is not None and request.feed_dict:
                feeds = _merge_feeds(feed_dict, requests)
                break
        try:
            values, steps_run = self.runner(sess, plan.flat, feeds, options,
                                            context.iterations_per_loop)
        except (errors.OutOfRangeError, StopIteration):
            # a queue closed because a queue-runner thread failed: that failure is the error
            self._coord.raise_requested_exception()
            self._coord.request_stop()
            raise
        except Exception:
            self._coord.raise_requested_exception()
            raise
        step = None
        if self._step_store is not None:
            # the step after the call: a fetched read is a snapshot taken when it ran,
            # i.e. before the update of the same call
            step = self.current_global_step = int(self._step_store.value)
        elif plan.step_index is not None:
            step = self.current_global_step = int(values[plan.step_index])
        self.steps.record(step)
        # SessionRunValues built with tuple.__new__: this loop runs once per host call
        no_results = _new_values((None, options, run_metadata, step, steps_run))
        for hook, unpack in zip(hooks, plan.unpackers[1:]):
            hook.after_run(context, no_results if unpack is None else _new_values(
                (unpack(values), options, run_metadata, step, steps_run)))
        if context.stop_requested:
            self._coord.request_stop()
        return plan.unpackers[0](values)

    def close(self):
        """Ends the hooks (``end``, also after a ``run`` that raised) and closes the
        session; idempotent."""
        self._close_internal(None)

    def _close_internal(self, error):
        if self._closed:
            return
        self._closed = True
        first = None
        try:
            # as TF: no end() when closing on an error (so no final checkpoint)
            method, args = ("end", (self._sess,)) if error is None else (
                "on_error", (self._sess, error))
            for hook in self._hooks:
                try:
                    getattr(hook, method)(*args)
                except Exception as e:  # noqa: BLE001 - every hook must get its call
                    logging.error("%s.%s raised %s: %s", type(hook).__name__, method,
                                  type(e).__name__, e)
                    first = first or e
        finally:
            if self._sess is not None:
                try:
                    first = self._stop_threads(error) or first
                finally:
                    self._sess.close()
                    self._sess = None
            for callback in self._on_close:
                callback(error)
        if first is not None and error is None:
            raise first

    def _stop_threads(self, error):
        """Stops and joins the queue-runner threads; returns the exception one of them
        reported (``None`` if none did, or when the session closes because of ``error``)."""
        self._coord.request_stop()
        try:
            self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs,
                             ignore_live_threads=True)
        except Exception as e:  # noqa: BLE001 - raised by close unless already failing
            if error is None and not isinstance(e, errors.OutOfRangeError):
                return e
        return None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        end_of_input = exc_type is not None and issubclass(
            exc_type, (errors.OutOfRangeError, StopIteration))
        self._close_internal(None if end_of_input else exc_value)
        return end_of_input


def _variable_store(session, tensor):
    """The session's store of the variable ``tensor`` reads (through ``Identity`` ops), or
    ``None`` when it is not a plain variable read."""
    op = tensor.op
    while op.type == "Identity" and op.inputs:
        op = op.inputs[0].op
    if op.type != "VariableV2" or not hasattr(session, "store"):
        return None
    return session.store(op)


def _merge_feeds(feed_dict, requests):
    feeds = feed_dict
    for request in requests:
        if request is None or not request.feed_dict:
            continue
        if feeds is feed_dict:
            feeds = dict(feed_dict or {})
        for key, value in request.feed_dict.items():
            if key in feeds:
                who = ("a SessionRunHook and user" if feed_dict and key in feed_dict
                       else "two hooks")
                raise RuntimeError(f"Same tensor is fed by {who}: {getattr(key, 'name', key)}")
            feeds[key] = value
    return feeds


class SingularMonitoredSession(MonitoredSession):
    """A ``MonitoredSession`` with its own ``ChiefSessionCreator``; ``raw_session()``."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None, *,
                 runner=None, iterations_per_loop=1):
        creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config,
                                      checkpoint_dir=checkpoint_dir,
                                      checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(creator, hooks, stop_grace_period_secs, runner=runner,
                         iterations_per_loop=iterations_per_loop)

    def raw_session(self):
        """The underlying ``Session``."""
        return self._sess


def standard_hooks(scaffold, checkpoint_dir=None, summary_dir=None, log_step_count_steps=None,
                   save_summaries_steps=None, save_summaries_secs=None,
                   checkpoint_timer=None, listeners=None):
    """The chief's standard hooks, built the same way for ``MonitoredTrainingSession`` and
    ``Estimator.train``: ``(step counter, summary saver, checkpoint saver)``, each ``None``
    when it is off.

    Args:
        scaffold: the ``Scaffold`` (summary op and saver).
        checkpoint_dir: where checkpoints go (no checkpoint hook without it).
        summary_dir: where the step rate and summaries go (``None``: the step counter only
            logs, and there is no summary hook).
        log_step_count_steps: the step counter's interval (0 or ``None``: off).
        save_summaries_steps, save_summaries_secs: the summary interval (0/``None``: off).
        checkpoint_timer: the checkpoint hook's timer (``None``: no checkpoint hook).
        listeners: ``CheckpointSaverListener``s.
    """
    counter = summaries = saver = None
    if log_step_count_steps and log_step_count_steps > 0:
        counter = StepCounterHook(every_n_steps=log_step_count_steps, output_dir=summary_dir)
    if summary_dir and ((save_summaries_steps or 0) > 0 or (save_summaries_secs or 0) > 0):
        summaries = SummarySaverHook(save_steps=save_summaries_steps or None,
                                     save_secs=None if save_summaries_steps else
                                     save_summaries_secs or None,
                                     scaffold=scaffold, output_dir=summary_dir)
    if checkpoint_dir and checkpoint_timer is not None:
        saver = CheckpointSaverHook(checkpoint_dir, scaffold=scaffold, listeners=listeners,
                                    timer=checkpoint_timer)
    return counter, summaries, saver


def MonitoredTrainingSession(  # noqa: N802 - TF1 name
        master="", is_chief=True, checkpoint_dir=None, scaffold=None, hooks=None,
        chief_only_hooks=None,
        save_checkpoint_secs=USE_DEFAULT, save_summaries_steps=USE_DEFAULT,
        save_summaries_secs=USE_DEFAULT, config=None, stop_grace_period_secs=120,
        log_step_count_steps=100, max_wait_secs=7200, save_checkpoint_steps=USE_DEFAULT,
        summary_dir=None, *, runner=None, iterations_per_loop=1):
    """A ``MonitoredSession`` set up for training, as TF1's.

    The chief restores from (and saves into) ``checkpoint_dir`` and adds a
    ``StepCounterHook`` (every ``log_step_count_steps``), a ``SummarySaverHook`` (every
    ``save_summaries_steps``, default 100, or ``save_summaries_secs``) into
    ``summary_dir`` (default ``checkpoint_dir``) and a ``CheckpointSaverHook`` (every
    ``save_checkpoint_secs``, default 600, or ``save_checkpoint_steps``); 0 or ``None``
    turns one off. ``chief_only_hooks`` run on the chief only. The chief holds the
    training lock of ``checkpoint_dir`` (``train.model_dir_lock``) until the session closes.

    Returns:
        A ``MonitoredSession``.
    """
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    save_summaries_steps = None if save_summaries_steps is USE_DEFAULT else save_summaries_steps
    save_summaries_secs = None if save_summaries_secs is USE_DEFAULT else save_summaries_secs
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    if save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    if save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    scaffold = scaffold or Scaffold()
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config)
        return MonitoredSession(creator, list(hooks or []), stop_grace_period_secs,
                                runner=runner, iterations_per_loop=iterations_per_loop)
    # TF's order: chief-only hooks, step counter, summaries, checkpoints, then ``hooks``
    all_hooks = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config,
                                  checkpoint_dir=checkpoint_dir)
    summary_dir = summary_dir or checkpoint_dir
    timer = None
    if checkpoint_dir and ((save_checkpoint_secs or 0) > 0 or (save_checkpoint_steps or 0) > 0):
        timer = SecondOrStepTimer(every_secs=save_checkpoint_secs or None,
                                  every_steps=save_checkpoint_steps or None)
    all_hooks.extend(h for h in standard_hooks(
        scaffold, checkpoint_dir=checkpoint_dir, summary_dir=summary_dir,
        log_step_count_steps=log_step_count_steps if summary_dir else None,
        save_summaries_steps=save_summaries_steps, save_summaries_secs=save_summaries_secs,
        checkpoint_timer=timer) if h is not None)
    all_hooks.extend(hooks or [])
    if not checkpoint_dir:
        return MonitoredSession(creator, all_hooks, stop_grace_period_secs, runner=runner,
                                iterations_per_loop=iterations_per_loop)
    model_dir_lock.acquire(checkpoint_dir)        # one trainer per model_dir
    try:
        recovery.remove_temp_files(checkpoint_dir)
        session = MonitoredSession(creator, all_hooks, stop_grace_period_secs, runner=runner,
                                   iterations_per_loop=iterations_per_loop)
    except BaseException:
        model_dir_lock.release(checkpoint_dir)
        raise
    session._on_close.append(lambda error: _end_of_training(checkpoint_dir, scaffold, error))
    return session


def _end_of_training(checkpoint_dir, scaffold, error):
    """Releases the model_dir lock. A run that ended normally also drops the iterator
    state of its last checkpoint: the next run starts its input afresh, as in TF1 (only a
    run that was killed or failed resumes its input exactly)."""
    try:
        if error is None and hasattr(scaffold.saver, "forget_iterator_state"):
            scaffold.saver.forget_iterator_state(checkpoint_dir)
    finally:
        model_dir_lock.release(checkpoint_dir)
