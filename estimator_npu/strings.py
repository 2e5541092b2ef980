"""``tf.strings``: string ops (re-exports only)."""
from estimator_npu.data.string_ops import join  # noqa: F401
from estimator_npu.data.string_ops import length  # noqa: F401
from estimator_npu.data.string_ops import lower  # noqa: F401
from estimator_npu.data.string_ops import regex_replace  # noqa: F401
from estimator_npu.data.string_ops import split  # noqa: F401
from estimator_npu.data.string_ops import strip  # noqa: F401
from estimator_npu.data.string_ops import substr  # noqa: F401
from estimator_npu.data.string_ops import to_number  # noqa: F401
from estimator_npu.data.string_ops import upper  # noqa: F401
from estimator_npu.data.string_ops import as_string  # noqa: F401
from estimator_npu.lookup.tables import (  # noqa: F401
    string_to_hash_bucket_fast as to_hash_bucket_fast)
from estimator_npu.data.string_ops import reduce_join, regex_full_match  # noqa: F401,E402
from estimator_npu.lookup.strong_hash import (  # noqa: F401,E402
    string_to_hash_bucket as to_hash_bucket,
    string_to_hash_bucket_strong as to_hash_bucket_strong)
from estimator_npu.data.string_format import bytes_split  # noqa: F401,E402
from estimator_npu.data.string_format import string_format as format  # noqa: F401,E402,A001
