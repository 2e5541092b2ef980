import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


@pytest.fixture(scope="session")
def golden():
    """``golden(name)``: the JSON recorded from real TF by tools/record_tf_golden.py."""
    def load(name):
        with open(os.path.join(HERE, "golden", name + ".json")) as f:
            return json.load(f)
    return load
