"""``tf.contrib.lookup``: TF1's lookup tables and vocabulary-table builders."""
from estimator_npu.lookup.tables import (HashTable, KeyValueTensorInitializer,  # noqa: F401
                                         TableInitializerBase, TextFileIdTableInitializer,
                                         TextFileIndex, TextFileInitializer,
                                         TextFileStringTableInitializer)
from estimator_npu.lookup.vocabulary import (index_table_from_file,  # noqa: F401
                                             index_table_from_tensor, index_to_string,
                                             index_to_string_table_from_file,
                                             index_to_string_table_from_tensor,
                                             string_to_index)
