"""``tf.contrib.tensorboard.plugins.projector``: the embedding projector's config."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.train.projector import (EmbeddingInfo, ProjectorConfig,  # noqa: F401
                                           SpriteMetadata, visualize_embeddings)

__getattr__ = _module_getattr(__name__)
