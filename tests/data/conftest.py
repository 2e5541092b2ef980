"""Makes this folder's helper module (dataset_helpers) importable under --import-mode=importlib."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
