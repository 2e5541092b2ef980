"""Records what TF 2.15 writes to stderr for tests/compat/scripts/log_lines.py (its
tf.logging calls and Estimator training logs, with and without tf.app.run).

Run with the TF venv: ``/tmp/tf215/bin/python tools/record_tf_logging.py``. Writes
tests/compat/golden/tf_log_lines.json: for each mode the stdout lines and the stderr lines,
less TF's own noise that estimator_npu does not reproduce (C++ log lines, deprecation
warnings and their "Instructions for updating:" text).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "compat", "scripts", "log_lines.py")
OUT = os.path.join(ROOT, "tests", "compat", "golden", "tf_log_lines.json")
_CPP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWEF] ")
_DEPRECATION = re.compile(r"^(WARNING:tensorflow:|W\d{4} [^\]]*\] )From ")


def drop_tf_noise(lines):
    out, skip = [], 0
    for line in lines:
        line = _CPP.split(line)[0]  # a C++ line may follow a Python one without a newline
        if skip:
            skip -= 1
            continue
        if not line.strip() or line.startswith("To enable the following instructions") \
                or _DEPRECATION.match(line):
            continue
        if line == "Instructions for updating:":
            skip = 1
            continue
        out.append(line)
    return out


def main():
    result = {"tf_version": None}
    for mode in ("plain", "app"):
        with tempfile.TemporaryDirectory() as cwd:
            proc = subprocess.run([sys.executable, SCRIPT, mode], cwd=cwd, capture_output=True,
                                  text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0"))
        if proc.returncode:
            raise SystemExit(proc.stderr[-3000:])
        result[mode] = {"stdout": proc.stdout.splitlines(),
                        "stderr": drop_tf_noise(proc.stderr.splitlines())}
    import tensorflow as tf
    result["tf_version"] = tf.__version__
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
