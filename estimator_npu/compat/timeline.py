"""``tensorflow.python.client.timeline``: ``Timeline(step_stats).generate_chrome_trace_format()``.

Per-op timings are not recorded in ``RunMetadata.step_stats`` here, so the trace holds the
step's op events when there are any, and is a valid, empty Chrome trace otherwise."""
import json


class Timeline:
    """A Chrome trace (``chrome://tracing``) of one ``Session.run``'s ``step_stats``."""

    def __init__(self, step_stats=None, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def _events(self):
        events = []
        for pid, dev in enumerate(getattr(self._step_stats, "dev_stats", None) or ()):
            for node in getattr(dev, "node_stats", None) or ():
                start = getattr(node, "all_start_micros", 0)
                end = getattr(node, "all_end_rel_micros", 0)
                events.append({"name": getattr(node, "node_name", "?"), "ph": "X",
                               "ts": start, "dur": end, "pid": pid, "tid": 0})
        return events

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False):
        """The trace as a JSON string."""
        return json.dumps({"traceEvents": self._events(), "displayTimeUnit": "ms"},
                          indent=4)
