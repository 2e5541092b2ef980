"""``tf.DeviceSpec``: a device as ``/job:<job>/replica:<r>/task:<t>/device:<TYPE>:<index>``,
and TF's rule for nested ``tf.device`` scopes (``Graph.device``): innermost first, each
string scope filling in only the fields the inner ones left unset."""
import re

_FIELDS = ("job", "replica", "task", "device_type", "device_index")
_PART = re.compile(r"^(job|replica|task|device):(.*)$", re.IGNORECASE)


class DeviceSpec:
    """A device as ``/job:<job>/replica:<r>/task:<t>/device:<TYPE>:<index>``; every part
    may be missing (``None``). ``tf.DeviceSpec`` in TF1 (fields settable, ``merge_from``)
    with TF2's ``replace`` / ``make_merged_spec`` too."""

    def __init__(self, job=None, replica=None, task=None, device_type=None,
                 device_index=None):
        self.job = None if job is None else str(job)
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = _device_type(device_type)
        self.device_index = None if device_index is None else int(device_index)

    @classmethod
    def from_string(cls, spec):
        """Parses ``"/job:ps/task:1/device:CPU:0"`` (also the short ``"/cpu:0"``,
        ``"/gpu:1"`` and ``"CPU:*"`` forms TF accepts)."""
        return cls().parse_from_string(spec)

    def parse_from_string(self, spec):
        """Sets the fields ``spec`` names (TF1's in-place parse); returns ``self``."""
        if isinstance(spec, DeviceSpec):
            spec = spec.to_string()
        if not isinstance(spec, str):
            raise TypeError(f"DeviceSpec: expected a device string, got {spec!r}")
        for part in (p for p in spec.split("/") if p):
            m = _PART.match(part)
            bits = part.split(":")
            if m and m.group(1).lower() in ("job", "replica", "task") and len(bits) == 2:
                name = m.group(1).lower()
                setattr(self, name, bits[1] if name == "job" else _int(bits[1], name, spec))
            elif m and m.group(1).lower() == "device" and len(bits) in (2, 3):
                self.device_type = _device_type(bits[1])
                self.device_index = _index(bits[2], spec) if len(bits) == 3 else None
            elif len(bits) == 2 and bits[0].lower() in ("cpu", "gpu", "tpu", "npu"):
                self.device_type, self.device_index = bits[0].upper(), _index(bits[1], spec)
            elif len(bits) == 2 and bits[0].isupper():  # "CPU:0", "XLA_CPU:*"
                self.device_type, self.device_index = bits[0], _index(bits[1], spec)
            else:
                raise ValueError(f"DeviceSpec: unknown attribute {part!r} in device "
                                 f"specification {spec!r}")
        return self

    def merge_from(self, dev):
        """Takes every field ``dev`` sets (TF1's in-place merge)."""
        for f in _FIELDS:
            if getattr(dev, f) is not None:
                setattr(self, f, getattr(dev, f))

    def make_merged_spec(self, dev):
        """A new spec: this one with every field ``dev`` sets taken from ``dev``."""
        out = self.replace()
        out.merge_from(dev)
        return out

    def replace(self, **kwargs):
        """A new spec with the given fields changed."""
        unknown = set(kwargs) - set(_FIELDS)
        if unknown:
            raise TypeError(f"DeviceSpec.replace: unknown fields {sorted(unknown)}")
        return DeviceSpec(**{f: kwargs.get(f, getattr(self, f)) for f in _FIELDS})

    def to_string(self):
        parts = [f"/{f}:{getattr(self, f)}" for f in ("job", "replica", "task")
                 if getattr(self, f) is not None]
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            parts.append(f"/device:{self.device_type}:{index}")
        return "".join(parts)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return f"<DeviceSpec {self.to_string()!r}>"


def _device_type(t):
    if t is None or t == "*":
        return None
    t = str(t)
    return t.upper() if t.lower() in ("cpu", "gpu", "tpu", "npu") else t


def _int(s, what, spec):
    try:
        return int(s)
    except ValueError:
        raise ValueError(f"DeviceSpec: the {what} in {spec!r} must be an int, got "
                         f"{s!r}") from None


def _index(s, spec):
    if s == "*":
        return None
    try:
        return int(s)
    except ValueError:
        raise ValueError(f"DeviceSpec: the device index in {spec!r} must be an int or '*', "
                         f"got {s!r}") from None
