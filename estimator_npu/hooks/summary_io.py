"""Summary writing for hooks and the estimator: one shared writer per directory."""
from estimator_npu.train.summary_ops import Summary
from estimator_npu.train.summary_writer import FileWriterCache


def writer_for(logdir):
    """The shared ``FileWriter`` of ``logdir`` (``FileWriterCache``)."""
    return FileWriterCache.get(logdir)


def write_scalars(writer, values, step):
    """Writes ``{tag: number}`` as one scalar summary at ``step`` (the writer flushes in
    the background and when it is closed; flushing here would cost ~0.5 ms per call)."""
    summary = Summary([Summary.Value(tag=tag, simple_value=float(value))
                       for tag, value in values.items()])
    writer.add_summary(summary, int(step))


def write_session_log(writer, status, step, checkpoint_path=None):
    """Adds a ``SessionLog`` event (``"START"``, ``"CHECKPOINT"`` ...) at ``step``, as TF's
    summary and checkpoint hooks do."""
    from tensorboardX.proto.event_pb2 import SessionLog
    log = SessionLog(status=SessionLog.SessionStatus.Value(status))
    if checkpoint_path is not None:
        log.checkpoint_path = checkpoint_path
    writer.add_session_log(log, int(step))


def write_string_tensor(writer, tag, text, step):
    """Adds a summary whose value is a scalar string tensor (TF's ``checkpoint_path``
    summary of evaluation)."""
    from tensorboardX.proto.summary_pb2 import Summary as SummaryProto
    from tensorboardX.proto.tensor_pb2 import TensorProto
    tensor = TensorProto(dtype=7, string_val=[text.encode("utf-8")])  # 7: DT_STRING
    tensor.tensor_shape.SetInParent()
    writer.add_summary(SummaryProto(value=[SummaryProto.Value(tag=tag, tensor=tensor)]),
                       int(step))
