"""``tf.feature_column`` (TF1): columns over dense dict features, ``input_layer``,
``linear_model`` and ``make_parse_example_spec``. Hash buckets use TF's Fingerprint64."""
from estimator_npu.feature_column.api import (bucketized_column,  # noqa: F401
                                              categorical_column_with_hash_bucket,
                                              categorical_column_with_identity,
                                              categorical_column_with_vocabulary_file,
                                              categorical_column_with_vocabulary_list,
                                              crossed_column, embedding_column,
                                              indicator_column, input_layer, linear_model,
                                              numeric_column, shared_embedding_columns,
                                              weighted_categorical_column)
from estimator_npu.feature_column.parse_spec import (FixedLenFeature,  # noqa: F401
                                                     VarLenFeature, make_parse_example_spec)
