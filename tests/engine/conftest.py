"""Makes this folder's helper modules (op_spec_tools) importable under
--import-mode=importlib, also from the op spec files test_gradients loads by path."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
