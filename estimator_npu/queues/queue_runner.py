"""``tf.train.QueueRunner``: threads that keep running a queue's enqueue ops.

    qr = tf.train.QueueRunner(queue, [enqueue_op] * 4)   # four enqueue threads
    tf.train.add_queue_runner(qr)                         # the QUEUE_RUNNERS collection
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    ...
    coord.request_stop(); coord.join(threads)

Each enqueue thread runs its op until the coordinator stops or the op raises one of
``queue_closed_exception_types`` (``OutOfRangeError``: its own input ran out); the last
thread to end that way closes the queue (``close_op``), so the consumer's dequeue drains
what is left and then raises ``OutOfRangeError``. Another exception is reported to the
coordinator (``request_stop(e)``; ``join`` re-raises it). With a coordinator, one more
thread waits for the stop and runs ``cancel_op`` (close, cancelling pending enqueues), so
no thread stays blocked on a full queue.
"""
import threading

from estimator_npu import errors
from estimator_npu.engine.graph import GraphKeys, add_to_collection, get_default_graph
from estimator_npu.engine.session import get_default_session
from estimator_npu.utils import logging


class QueueRunner:
    """Holds a queue, its enqueue ops and the ops that close it."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None,
                 import_scope=None):
        if queue_runner_def is not None:
            raise NotImplementedError("estimator_npu does not implement QueueRunner("
                                      "queue_runner_def=...) (yet)")
        if queue is None or not enqueue_ops:
            raise ValueError("QueueRunner needs a queue and a non-empty list of enqueue_ops")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(
            cancel_pending_enqueues=True)
        types = queue_closed_exception_types
        self._queue_closed_exception_types = (errors.OutOfRangeError,) if not types \
            else tuple(types)
        for t in self._queue_closed_exception_types:
            if not (isinstance(t, type) and issubclass(t, errors.OpError)):
                raise TypeError(f"queue_closed_exception_types must be OpError subclasses, "
                                f"got {t!r}")
        self._lock = threading.Lock()
        self._runs_per_session = {}
        self._exceptions_raised = []

    @property
    def queue(self):
        return self._queue

    @property
    def enqueue_ops(self):
        return list(self._enqueue_ops)

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def queue_closed_exception_types(self):
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self):
        """The exceptions the threads raised when there was no coordinator to report to."""
        return list(self._exceptions_raised)

    @property
    def name(self):
        return self._queue.name

    def _run(self, sess, enqueue_op, coord):
        decremented = False
        try:
            run = sess.make_callable(enqueue_op)
            while True:
                if coord is not None and coord.should_stop():
                    break
                try:
                    run()
                except self._queue_closed_exception_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        last = self._runs_per_session[sess] == 0
                    if last:
                        try:
                            sess.run(self._close_op)
                        except Exception as e:  # noqa: BLE001 - the queue may be gone
                            logging.debug("Ignored exception closing %s: %s", self.name, e)
                    return
        except Exception as e:  # noqa: BLE001 - reported to the coordinator
            if coord is not None:
                coord.request_stop(e)
            else:
                logging.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, coord):
        coord.wait_for_stop()
        try:
            sess.run(self._cancel_op)
        except Exception as e:  # noqa: BLE001 - the session may be closed already
            logging.debug("Ignored exception cancelling %s: %s", self.name, e)

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """One thread per enqueue op (and one that cancels on stop, with ``coord``).

        Returns ``[]`` when this runner's threads already run in ``sess``."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name=f"QueueRunnerThread-{self.name}-{op.name}")
                   for op in self._enqueue_ops]
        if coord is not None:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, coord),
                                            name=f"QueueRunnerThread-{self.name}-"
                                                 "close_on_stop"))
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads


def _to_proto_bytes(qr):
    """``qr`` as TF's ``QueueRunnerDef`` (a meta graph's ``queue_runners`` collection)."""
    from estimator_npu.engine import tf_protos as pb
    return pb.QueueRunnerDef(queue_name=qr.queue.name,
                             enqueue_op_name=[op.name for op in qr.enqueue_ops],
                             close_op_name=qr.close_op.name,
                             cancel_op_name=qr.cancel_op.name).SerializeToString()


def _from_proto_bytes(raw, graph, prefix):
    """The ``QueueRunner`` of a ``QueueRunnerDef`` over the imported graph's ops."""
    from estimator_npu.engine import tf_protos as pb
    from estimator_npu.queues.queue_ops import QueueBase
    d = pb.QueueRunnerDef.FromString(raw)
    op = graph.get_operation_by_name(prefix + d.queue_name)
    queue = QueueBase(list(op.attrs["component_types"]), list(op.attrs["shapes"]), None,
                      op.outputs[0])
    return QueueRunner(queue, [graph.get_operation_by_name(prefix + n)
                               for n in d.enqueue_op_name],
                       graph.get_operation_by_name(prefix + d.close_op_name),
                       graph.get_operation_by_name(prefix + d.cancel_op_name))


def _register_collection_codec():
    from estimator_npu.train import meta_graph
    meta_graph.COLLECTION_CODECS[GraphKeys.QUEUE_RUNNERS] = (_to_proto_bytes,
                                                             _from_proto_bytes)


_register_collection_codec()


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    """Adds ``qr`` to the graph collection ``collection`` (default ``QUEUE_RUNNERS``)."""
    add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=GraphKeys.QUEUE_RUNNERS):
    """Starts the threads of every queue runner of ``collection`` in ``sess`` (default: the
    default session); returns them. A monitored session starts its own: ``[]``."""
    if sess is None:
        sess = get_default_session()
        if sess is None:
            raise ValueError("Cannot start queue runners: No default session is registered. "
                             "Use `with sess.as_default()` or pass an explicit session to "
                             "tf.start_queue_runners(sess=sess)")
    if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
        return []
    graph = getattr(sess, "graph", None) or get_default_graph()
    threads = []
    for qr in graph.get_collection(collection):
        threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]
