"""A small BERT-style Transformer encoder, trained with LAMB under NPUOptimizer loss scaling.

Seed 002's setting — ``LAMBOptimizer`` wrapped in ``npu.NPUOptimizer`` with an
``ExponentialUpdateLossScaleManager`` (``is_loss_scale=True``) — on a sequence task built
from the bundled digits: each 8x8 image is read as a sequence of 8 tokens (its rows) of 8
features, and the encoder classifies the sequence.

The model is BERT's architecture, scaled down: token embeddings (a linear map of each
row, as a vision Transformer embeds patches) plus learned position embeddings, a learned
``[CLS]`` token in front, embedding layer norm; ``NUM_LAYERS`` post-norm Transformer layers
of multi-head self-attention (``NUM_HEADS`` heads; scores and context by batched
``tf.matmul`` over ``[batch, heads, seq, head_size]``), residual + ``layer_norm``, and a
GELU feed-forward block; a tanh pooler on ``[CLS]`` and a 10-way classifier. The learning
rate warms up linearly over the first 10 % of the steps, then decays linearly to zero;
LAMB's weight decay spares layer-norm parameters and biases.

    python -m model_zoo.bert                                 # 0.97 test accuracy, ~15 s
    python -m model_zoo.bert --precision_mode allow_mix_precision
    python -m model_zoo.bert --loss_scale 1024               # a fixed loss scale instead
    python -m model_zoo.bert --data_dir ~/mnist              # 28 rows of 28 pixels

Defaults: 400 steps of batch 64, peak learning rate 0.01, dynamic loss scaling (initial
scale 2**15, doubled after 1000 finite steps, halved after 2 overflows), 10 steps per
loop. Test accuracy on the bundled digits (359 test images) with the defaults: 0.97
(0.97 with ``--precision_mode allow_mix_precision`` too). Stated accuracy
(``STATED_ACCURACY``): 0.95 (the test suite trains a short budget and checks that the
loss falls).

``--dataset fashion_mnist`` trains on Fashion-MNIST with ``PRESETS["fashion_mnist"]``;
``FASHION_MNIST_ACCURACY`` and docs/results.md give what it reaches.
"""
import math
import sys

import estimator_npu as tf
from model_zoo import common

STATED_ACCURACY = 0.95  # test accuracy on the bundled digits with the defaults
DEFAULTS = dict(steps=400, batch_size=64, learning_rate=0.01, iterations_per_loop=10,
                loss_scale="dynamic")
# Flags for --dataset fashion_mnist (docs/results.md: what they reach, how fast).
PRESETS = {"fashion_mnist": dict(steps=10000, batch_size=64, iterations_per_loop=100)}
# Test accuracy the Fashion-MNIST preset reaches here, measured by `estimator-npu benchmark`
# (docs/results.md); None: the preset has not been run to the end on this machine.
FASHION_MNIST_ACCURACY = 0.888
HIDDEN_SIZE = 32
NUM_LAYERS = 2
NUM_HEADS = 4
INTERMEDIATE_SIZE = 64
WEIGHT_DECAY = 0.01
WARMUP_FRACTION = 0.1
INITIALIZER_RANGE = 0.1  # BERT uses 0.02 for 768 units; ~1/sqrt(width) for 32


def _dense(x, units, name, activation=None):
    return tf.layers.dense(x, units, activation=activation, name=name,
                           kernel_initializer=tf.truncated_normal_initializer(
                               stddev=INITIALIZER_RANGE))


def embeddings(tokens):
    """``[batch, seq, features]`` -> ``[batch, seq + 1, hidden]`` with ``[CLS]`` first."""
    seq_length = tokens.shape[1]
    with tf.variable_scope("embeddings"):
        token_embeddings = _dense(tokens, HIDDEN_SIZE, "token_embeddings")
        cls = tf.get_variable("cls_token", [1, 1, HIDDEN_SIZE],
                              initializer=tf.truncated_normal_initializer(
                                  stddev=INITIALIZER_RANGE))
        cls = cls + tf.zeros_like(token_embeddings[:, :1, :])  # broadcast to the batch
        x = tf.concat([cls, token_embeddings], axis=1)
        positions = tf.get_variable("position_embeddings", [seq_length + 1, HIDDEN_SIZE],
                                    initializer=tf.truncated_normal_initializer(
                                        stddev=INITIALIZER_RANGE))
        x = x + positions
        return tf.layers.layer_norm(x, begin_norm_axis=-1, scope="LayerNorm")


def _split_heads(x, seq):
    """``[batch, seq, hidden]`` -> ``[batch, heads, seq, head_size]``."""
    x = tf.reshape(x, [-1, seq, NUM_HEADS, HIDDEN_SIZE // NUM_HEADS])
    return tf.transpose(x, [0, 2, 1, 3])


def self_attention(x):
    """Multi-head scaled dot-product self-attention; returns ``[batch, seq, hidden]``."""
    seq = x.shape[1]
    head_size = HIDDEN_SIZE // NUM_HEADS
    with tf.variable_scope("attention"):
        q = _split_heads(_dense(x, HIDDEN_SIZE, "query"), seq)
        k = _split_heads(_dense(x, HIDDEN_SIZE, "key"), seq)
        v = _split_heads(_dense(x, HIDDEN_SIZE, "value"), seq)
        scores = tf.matmul(q, k, transpose_b=True) * (1.0 / math.sqrt(head_size))
        probs = tf.nn.softmax(scores)                         # [batch, heads, seq, seq]
        context = tf.matmul(probs, v)                         # [batch, heads, seq, head]
        context = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [-1, seq, HIDDEN_SIZE])
        return _dense(context, HIDDEN_SIZE, "output")


def gelu(x):
    """GELU, tanh approximation (as google-research/bert's ``modeling.gelu``)."""
    return tf.nn.gelu(x, approximate=True)


def transformer_layer(x, name):
    """BERT's post-norm layer: attention, add & norm, GELU feed-forward, add & norm."""
    with tf.variable_scope(name):
        x = tf.layers.layer_norm(x + self_attention(x), begin_norm_axis=-1,
                                 scope="attention_LayerNorm")
        h = _dense(x, INTERMEDIATE_SIZE, "intermediate", activation=gelu)
        return tf.layers.layer_norm(x + _dense(h, HIDDEN_SIZE, "output"),
                                    begin_norm_axis=-1, scope="output_LayerNorm")


def learning_rate(params):
    """Linear warm-up to ``params["learning_rate"]``, then linear decay to 0 (BERT)."""
    global_step = tf.train.get_or_create_global_step()
    steps = params["steps"]
    lr = tf.train.polynomial_decay(params["learning_rate"], global_step, steps,
                                   end_learning_rate=0.0, power=1.0)
    return tf.train.linear_warmup(lr, global_step,
                                  warmup_steps=max(1, int(WARMUP_FRACTION * steps)))


def model_fn(features, labels, mode, params):
    """``features``: float32 ``[batch, seq, features]``; ``labels``: int64 ``[batch]``."""
    x = embeddings(features)
    for i in range(NUM_LAYERS):
        x = transformer_layer(x, f"layer_{i}")
    pooled = _dense(x[:, 0, :], HIDDEN_SIZE, "pooler", activation=tf.tanh)
    logits = _dense(pooled, 10, "classifier")

    def make_optimizer():
        # Seed 002's optimizer; common.optimizer wraps it in npu.NPUOptimizer(opt,
        # loss_scale_manager, is_loss_scale=True) when --loss_scale is given (the default).
        return tf.train.LAMBOptimizer(learning_rate(params), weight_decay_rate=WEIGHT_DECAY,
                                      beta_1=0.9, beta_2=0.999, epsilon=1e-6,
                                      exclude_from_weight_decay=["LayerNorm", "layer_norm",
                                                                 "bias"])
    return common.classifier_spec(mode, logits, labels, params, make_optimizer)


def main(argv=None, prog=None):
    """Trains and evaluates (``--help`` lists the flags); returns the exit status."""
    args = common.parse_args(argv, __doc__, prog=prog, presets=PRESETS, **DEFAULTS)
    data = common.load_digits(args, layout="rows")
    return common.run(model_fn, args, data, params=common.params_from(args, steps=args.steps))


if __name__ == "__main__":
    sys.exit(main())
