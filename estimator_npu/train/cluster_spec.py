"""``tf.train.ClusterSpec``: a cluster as a map of job names to task addresses.

Only what a single-process (or MPI-launched) run needs: ``RunConfig.cluster_spec`` is an
empty ``ClusterSpec`` as in TF when no ``TF_CONFIG`` cluster is given.
"""


class ClusterSpec:
    """``ClusterSpec({"worker": ["host:port", ...], ...})`` (a dict of lists or of
    ``{task index: address}`` dicts, another ``ClusterSpec``, or ``None``/empty)."""

    def __init__(self, cluster=None):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        if cluster is None:
            cluster = {}
        if not isinstance(cluster, dict):
            raise TypeError("cluster must be a dictionary mapping one or more job names to "
                            f"lists of network addresses, got {cluster!r}")
        self._jobs = {}
        for job, tasks in cluster.items():
            if isinstance(tasks, dict):
                self._jobs[str(job)] = {int(i): str(a) for i, a in tasks.items()}
            else:
                self._jobs[str(job)] = {i: str(a) for i, a in enumerate(tasks)}

    @property
    def jobs(self):
        """The job names, sorted."""
        return sorted(self._jobs)

    def num_tasks(self, job_name):
        return len(self._jobs[job_name])

    def task_address(self, job_name, task_index):
        return self._jobs[job_name][task_index]

    def as_dict(self):
        """``{job: [addresses]}`` (or ``{job: {index: address}}`` for sparse jobs)."""
        out = {}
        for job, tasks in self._jobs.items():
            if sorted(tasks) == list(range(len(tasks))):
                out[job] = [tasks[i] for i in range(len(tasks))]
            else:
                out[job] = dict(tasks)
        return out

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        return f"ClusterSpec({self.as_dict()!r})"


__all__ = ["ClusterSpec"]
