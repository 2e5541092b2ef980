"""``python -m bench.accuracy``: ``estimator-npu benchmark`` (model_zoo/accuracy_benchmark.py)."""
import sys

from model_zoo import accuracy_benchmark

if __name__ == "__main__":
    sys.exit(accuracy_benchmark.main())
