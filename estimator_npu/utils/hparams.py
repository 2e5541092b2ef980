"""``tf.contrib.training.HParams``: TF1's named hyperparameters.

``HParams(**kwargs)`` makes each keyword an attribute and records its type (``int``,
``float``, ``bool``, ``str``, or a list of one of them). ``set_hparam`` / ``parse`` /
``override_from_dict`` / ``parse_json`` assign by name with TF's casts: an int to a float
hyperparameter becomes a float; a float to an int one, a str to a number, or a number to a
bool or str is a ``ValueError``; an unknown name is a ``KeyError`` (``parse``: a
``ValueError``). ``parse("lr=0.1,layers=[2,3],name=x,flag")`` takes comma-separated
``name=value`` pairs (a list in brackets; a bare name sets a bool to ``True``).
``values()``, ``to_json()``, ``get(name, default)``, ``in`` and ``add_hparam`` /
``del_hparam`` work as in TF1.
"""
import json
import re

__all__ = ["HParams"]

_PAIR = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:=\s*(\[[^\]]*\]|[^,]*))?\s*(?:,|$)")


def _cast(name, param_type, value):
    if param_type is None or value is None:
        return value
    if param_type is bool:
        if isinstance(value, bool):
            return value
    elif param_type is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif param_type is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif param_type is str:
        if isinstance(value, str):
            return value
    else:
        return value
    raise ValueError(f"Could not cast hparam {name!r} of type {param_type.__name__} from "
                     f"value {value!r}")


def _parse_scalar(text, param_type):
    text = text.strip()
    if param_type is str:
        return text
    if param_type is bool:
        if text.lower() in ("true", "false", "1", "0"):
            return text.lower() in ("true", "1")
        raise ValueError(f"HParams.parse: could not parse {text!r} as a bool")
    try:
        return json.loads(text)
    except ValueError:
        return text


class HParams:
    """Named hyperparameters; see the module docstring."""

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        if hparam_def is not None:
            raise ValueError("HParams: hparam_def (an HParamDef proto) is not supported; "
                             "pass the hyperparameters as keyword arguments")
        self._hparam_types = {}
        self._model_structure = model_structure
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name, value):
        if getattr(self, name, None) is not None:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value) if value is not None else None, False)
        setattr(self, name, value)

    def set_hparam(self, name, value):
        param_type, is_list = self._hparam_types[name]
        if isinstance(value, (list, tuple)):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            value = [_cast(name, param_type, v) for v in value]
        else:
            if is_list:
                raise ValueError(f"Must pass a list for multi-valued parameter: {name}")
            value = _cast(name, param_type, value)
        setattr(self, name, value)

    def del_hparam(self, name):
        if name in self._hparam_types:
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values):
        """Overrides hyperparameters from a ``name=value,...`` string; returns ``self``."""
        parsed, pos, text = {}, 0, values or ""
        while pos < len(text.rstrip()):
            m = _PAIR.match(text, pos)
            if m is None or m.end() == pos:
                raise ValueError(f"HParams.parse: could not parse {text[pos:]!r} (expected "
                                 f"name=value pairs separated by commas)")
            name, raw = m.group(1), m.group(2)
            pos = m.end()
            if name not in self._hparam_types:
                raise ValueError(f"Unknown hyperparameter type for {name}")
            param_type, is_list = self._hparam_types[name]
            if raw is None:
                if param_type is not bool:
                    raise ValueError(f"HParams.parse: {name} has no value (only bool "
                                     f"hyperparameters may be given bare)")
                parsed[name] = True
            elif is_list:
                inner = raw.strip()
                if not (inner.startswith("[") and inner.endswith("]")):
                    raise ValueError(f"Must pass a list for multi-valued parameter: {name}")
                parsed[name] = [_parse_scalar(t, param_type)
                                for t in inner[1:-1].split(",") if t.strip()]
            else:
                parsed[name] = _parse_scalar(raw, param_type)
        return self.override_from_dict(parsed)

    def override_from_dict(self, values_dict):
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def parse_json(self, values_json):
        return self.override_from_dict(json.loads(values_json))

    def values(self):
        return {n: getattr(self, n) for n in self._hparam_types}

    def to_json(self, indent=None, separators=None, sort_keys=False):
        return json.dumps(self.values(), indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def get(self, key, default=None):
        """The value of ``key``, or ``default`` when there is none; a ``default`` that
        could not be assigned to ``key`` is a ``ValueError`` (as TF1)."""
        if key not in self._hparam_types:
            return default
        if default is not None:
            param_type, is_list = self._hparam_types[key]
            if is_list != isinstance(default, list):
                raise ValueError(f"Hparam {key!r} is incompatible with default={default!r}")
            try:
                for v in (default if is_list else [default]):
                    _cast(key, param_type, v)
            except ValueError as e:
                raise ValueError(f"Hparam {key!r} is incompatible with default="
                                 f"{default!r}. {e}") from None
        return getattr(self, key)

    def __contains__(self, key):
        return key in self._hparam_types

    def __str__(self):
        return str(sorted(self.values().items()))

    def __repr__(self):
        return f"{type(self).__name__}({self})"
