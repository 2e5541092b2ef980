"""``tf.lookup``: hash and vocabulary tables filled by initializers (see ``tables``) and the
``index_table_from_*`` / ``index_to_string_table_from_*`` builders of ``tf.contrib.lookup``
(see ``vocabulary``)."""
from estimator_npu.lookup.tables import (HashTable, KeyValueTensorInitializer,  # noqa: F401
                                         StaticHashTable, StaticVocabularyTable,
                                         TableInitializerBase, TextFileIdTableInitializer,
                                         TextFileIndex, TextFileInitializer,
                                         TextFileStringTableInitializer, initialize_all_tables,
                                         tables_initializer)


def _register_op_families():
    """Adds the tables' op family to the engine's op table (the one place this package
    registers ops)."""
    from estimator_npu.engine import registry
    from estimator_npu.lookup import sparse_cross, strong_hash, tables
    registry.register_families([tables.OPS, strong_hash.OPS, sparse_cross.OPS])


_register_op_families()
from estimator_npu.lookup.vocabulary import (index_table_from_file,  # noqa: F401,E402
                                             index_table_from_tensor,
                                             index_to_string_table_from_file,
                                             index_to_string_table_from_tensor)
