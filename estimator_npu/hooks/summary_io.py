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
