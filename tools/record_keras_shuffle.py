"""Records Keras ``fit``'s sample orders (numpy's global RNG) under real TF 2.15's
tf.compat.v1 Keras.

    /tmp/tf215/bin/python tools/record_keras_shuffle.py

writes ``tests/keras/golden/keras_shuffle_tf215.json`` (the cases are defined in
``tests/keras/shuffle_cases.py``).
"""
import json
import pathlib

from _cases import load

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "keras" / "golden" / "keras_shuffle_tf215.json"


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    result = load(ROOT / "tests" / "keras" / "shuffle_cases.py").run(tf)
    result["tensorflow"] = tf.__version__
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
