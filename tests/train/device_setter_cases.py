"""Device strings of tf.DeviceSpec, nested tf.device scopes and tf.train.replica_device_setter.

Run by tools/record_tf_device_setter.py under real TF (writes device_setter_tf215.json) and
by test_device_setter.py under estimator_npu; ``run(tf)`` takes the ``tf.compat.v1`` module.
"""

SPECS = ["/job:ps/task:1", "/cpu:0", "/gpu:1", "/job:worker/replica:0/task:2/device:CPU:0",
         "/device:GPU:*", "CPU:0", "", "/job:ps/device:cpu:1"]


def run(tf):
    out = {"specs": {s: tf.DeviceSpec.from_string(s).to_string() for s in SPECS}}
    a = tf.DeviceSpec.from_string("/job:ps/task:1")
    a.merge_from(tf.DeviceSpec.from_string("/device:CPU:0"))
    out["merged"] = a.to_string()
    out["fields"] = tf.DeviceSpec(job="w", task=3, device_type="cpu").to_string()
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            out["round_robin"] = [tf.get_variable("v%d" % i, [3]).device for i in range(3)]
        cluster = {"ps": ["a:1", "b:1", "c:1"], "worker": ["w:1"]}
        with tf.device(tf.train.replica_device_setter(cluster=cluster,
                                                      worker_device="/job:worker/task:0")):
            with tf.device("/job:ps/task:2"):
                p = tf.get_variable("p", [4])
            q = tf.get_variable("q", [4])
            with tf.device("/device:CPU:0"):
                r = tf.get_variable("r", [4])
        out["cluster"] = [p.device, q.device, r.device]
        with tf.device("/job:worker"):
            with tf.device("/device:CPU:0"):
                n1 = tf.get_variable("n1", [1])
            with tf.device(None):
                n2 = tf.get_variable("n2", [1])
            with tf.device("/job:ps/task:3"):
                n3 = tf.get_variable("n3", [1])
        out["nested"] = [n1.device, n2.device, n3.device]
    out["no_ps"] = tf.train.replica_device_setter(ps_tasks=0) is None
    return out
