"""``npu_bridge.estimator.npu.npu_hook``: the adapter's session hooks."""
from estimator_npu.hooks import CheckpointSaverHook, SessionRunArgs, SessionRunHook
from estimator_npu.hooks.broadcast_hook import NPUBroadcastGlobalVariablesHook  # noqa: F401

NPUCheckpointSaverHook = CheckpointSaverHook


class NPUOutputTensorHook(SessionRunHook):
    """Calls ``output_fn(values)`` with the values of ``tensors`` every
    ``output_every_n_steps`` runs (every run when 0), and at the end with the last ones.

    Args:
        tensors: a dict of name -> tensor or a list of tensors.
        dependencies: ops to run with ``tensors`` (fetched, results ignored).
        output_fn: called with the fetched values (same structure as ``tensors``);
            printing them when None.
        output_every_n_steps: the interval in runs.
    """

    def __init__(self, tensors, dependencies=None, output_fn=None, output_every_n_steps=0):
        self._tensors = tensors
        self._dependencies = list(dependencies or [])
        self._output_fn = output_fn or print
        self._every = int(output_every_n_steps)
        self._count = 0
        self._last = None

    def before_run(self, run_context):
        return SessionRunArgs({"tensors": self._tensors, "deps": self._dependencies})

    def after_run(self, run_context, run_values):
        self._count += 1
        self._last = run_values.results["tensors"]
        if self._every <= 0 or self._count % self._every == 0:
            self._output_fn(self._last)
            self._last = None

    def end(self, session):
        if self._last is not None:
            self._output_fn(self._last)
