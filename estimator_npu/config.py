"""``tf.config``: the devices there are (the host CPU, no GPU) and the threading and
placement settings, as TF 1.15 / 2.x report them for a CPU-only machine.

``list_physical_devices("GPU")`` is ``[]`` (scripts choosing ``channels_first`` for GPUs,
or counting them, take the CPU path), ``list_physical_devices()`` is
``[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]`` and the logical
devices ``[LogicalDevice(name='/device:CPU:0', device_type='CPU')]``. ``set_visible_devices``
accepts that device (or ``[]`` for a device type that has none). The thread counts and
soft placement are recorded and read back (nothing else uses them: every op runs on the
host). ``experimental`` has TF 1.15's names of the same functions and
``set_memory_growth``, which TF refuses for a non-GPU device.
"""
import collections

from estimator_npu.compat.missing import NotImplementedName
from estimator_npu.compat.missing import module_getattr as _module_getattr

PhysicalDevice = collections.namedtuple("PhysicalDevice", "name device_type")
LogicalDevice = collections.namedtuple("LogicalDevice", "name device_type")
_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_SETTINGS = {"intra_op": 0, "inter_op": 0, "soft_placement": True}

__getattr__ = _module_getattr(__name__)


def _of_type(devices, device_type):
    if device_type is None:
        return list(devices)
    return [d for d in devices if d.device_type == str(device_type).upper()]


def list_physical_devices(device_type=None):
    """The physical devices of ``device_type`` (all when ``None``): the CPU only."""
    return _of_type([_CPU], device_type)


def list_logical_devices(device_type=None):
    """The logical devices of ``device_type``: ``/device:CPU:0`` only."""
    return _of_type([LogicalDevice("/device:CPU:0", "CPU")], device_type)


def get_visible_devices(device_type=None):
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None):
    """Accepts the CPU (or ``[]`` for a type with no device); other devices do not exist."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in devices:
        if d != _CPU:
            raise ValueError(f"set_visible_devices: unrecognized device {d!r}; the only "
                             f"device is {_CPU!r}")
    if not devices and (device_type is None or str(device_type).upper() == "CPU"):
        raise ValueError("set_visible_devices: the CPU cannot be hidden (it is the only "
                         "device)")


def set_memory_growth(device, enable):
    raise ValueError(f"Cannot set memory growth on non-GPU and non-Pluggable devices (got "
                     f"{device!r}); "
                     "estimator_npu runs on the host CPU only")


def get_memory_growth(device):
    raise ValueError(f"Cannot get memory growth on non-GPU devices (got {device!r})")


def set_soft_device_placement(enabled):
    _SETTINGS["soft_placement"] = bool(enabled)


def get_soft_device_placement():
    return _SETTINGS["soft_placement"]


class _Namespace:
    """A sub-namespace of ``tf.config``; names it lacks raise the does-not-implement error."""

    def __init__(self, name, **functions):
        self._name = name
        self.__dict__.update(functions)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotImplementedName(f"tf.config.{self._name}.{name}")

    def __repr__(self):
        return f"<tf.config.{self._name}>"


def _setter(key):
    def set_threads(num_threads):
        if int(num_threads) < 0:
            raise ValueError(f"the number of threads must be >= 0, got {num_threads!r}")
        _SETTINGS[key] = int(num_threads)
    return set_threads


threading = _Namespace(
    "threading", get_intra_op_parallelism_threads=lambda: _SETTINGS["intra_op"],
    set_intra_op_parallelism_threads=_setter("intra_op"),
    get_inter_op_parallelism_threads=lambda: _SETTINGS["inter_op"],
    set_inter_op_parallelism_threads=_setter("inter_op"))
experimental = _Namespace(
    "experimental", list_physical_devices=list_physical_devices,
    list_logical_devices=list_logical_devices, get_visible_devices=get_visible_devices,
    set_visible_devices=set_visible_devices, set_memory_growth=set_memory_growth,
    get_memory_growth=get_memory_growth)

__all__ = ["LogicalDevice", "PhysicalDevice", "experimental", "get_soft_device_placement",
           "get_visible_devices", "list_logical_devices", "list_physical_devices",
           "set_soft_device_placement", "set_visible_devices", "threading"]
