"""Runs the specs of ``sweep_specs.py`` on a TF-like module and compares results.

``run_spec(tf, build)`` returns ``{"error": [phase, class]}`` or ``{"outs": [...]}``
where every output is ``{"dtype", "shape" (static, None for unknown rank), "value"}``;
a SparseTensor output counts as its indices, values and dense_shape.
"""
import numpy as np


def _flatten(tf, out):
    if isinstance(out, dict):
        return _flatten(tf, out["out"])
    if isinstance(out, (list, tuple)):
        flat = []
        for o in out:
            flat.extend(_flatten(tf, o))
        return flat
    if isinstance(out, tf.SparseTensor):
        return [out.indices, out.values, out.dense_shape]
    return [out]


def _static(t):
    shape = t.shape
    if shape.ndims is None:
        return None
    return [None if d is None else int(d) for d in shape.as_list()]


def _encode(v):
    a = np.asarray(v)
    if a.dtype.kind in "OSU":
        flat = [x if isinstance(x, bytes) else str(x).encode() for x in a.ravel().tolist()]
        return {"bytes": [x.decode("latin-1") for x in flat], "shape": list(a.shape)}
    return a


def run_spec(tf, build):
    g = tf.Graph()
    with g.as_default():
        try:
            spec = build(tf)
            outs = _flatten(tf, spec)
            meta = [{"dtype": t.dtype.base_dtype.name, "shape": _static(t)} for t in outs]
        except Exception as e:  # noqa: BLE001 - the class is the recorded result
            return {"error": ["build", type(e).__name__]}
        feed = spec.get("feed", {}) if isinstance(spec, dict) else {}
        steps = spec.get("steps", []) if isinstance(spec, dict) else []
        try:
            with tf.Session() as sess:
                sess.run([tf.global_variables_initializer(), tf.local_variables_initializer(),
                          tf.tables_initializer()])
                for step in steps:
                    sess.run(step, feed_dict=feed)
                values = sess.run(outs, feed_dict=feed)
        except Exception as e:  # noqa: BLE001
            return {"error": ["run", type(e).__name__]}
    for m, v in zip(meta, values):
        m["value"] = _encode(v)
    return {"outs": meta}


TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2), "float32": (2e-5, 1e-5),
       "float64": (1e-9, 1e-12)}


def compare(want, got):
    """Returns a list of human-readable differences (empty when ``got`` matches)."""
    if "error" in want or "error" in got:
        if want.get("error") != got.get("error"):
            return [f"error: want {want.get('error')} got {got.get('error') or 'a value'}"]
        return []
    if len(want["outs"]) != len(got["outs"]):
        return [f"{len(want['outs'])} outputs wanted, got {len(got['outs'])}"]
    diffs = []
    for i, (w, o) in enumerate(zip(want["outs"], got["outs"])):
        if w["dtype"] != o["dtype"]:
            diffs.append(f"[{i}] dtype: want {w['dtype']} got {o['dtype']}")
        if w["shape"] != o["shape"]:
            diffs.append(f"[{i}] static shape: want {w['shape']} got {o['shape']}")
        wv, ov = w["value"], o["value"]
        if isinstance(wv, dict) or isinstance(ov, dict):
            if wv != ov:
                diffs.append(f"[{i}] strings: want {str(wv)[:200]} got {str(ov)[:200]}")
            continue
        wv, ov = np.asarray(wv), np.asarray(ov)
        if wv.shape != ov.shape:
            diffs.append(f"[{i}] shape: want {wv.shape} got {ov.shape}")
            continue
        if wv.dtype.kind == "f" or ov.dtype.kind == "f":
            rtol, atol = TOL.get(w["dtype"], (2e-5, 1e-5))
            wf, of = wv.astype(np.float64), ov.astype(np.float64)
            bad = ~np.isclose(of, wf, rtol=rtol, atol=atol, equal_nan=True)
            bad |= np.isinf(wf) & (wf != of)
        else:
            bad = wv != ov
        if np.any(bad):
            idx = np.argwhere(bad)[:3].tolist()
            diffs.append(f"[{i}] values differ at {int(np.sum(bad))}/{wv.size}, e.g. {idx}: "
                         f"want {wv[bad][:3].tolist()} got {ov[bad][:3].tolist()}")
    return diffs
