"""``tensorflow.python.client.device_lib``: ``list_local_devices()`` lists the one device
there is, the host CPU (no GPU), so scripts counting GPUs find none."""
import collections

DeviceAttributes = collections.namedtuple(
    "DeviceAttributes", "name device_type memory_limit incarnation physical_device_desc")


def list_local_devices(session_config=None):
    """``[DeviceAttributes(name='/device:CPU:0', device_type='CPU', ...)]``."""
    return [DeviceAttributes("/device:CPU:0", "CPU", 268435456, 0, "")]
