"""What every model-zoo example shares: flags, data, the run config and the train loop.

Each example is a ``model_fn`` + input functions + ``main(argv)``; ``main`` is a few lines::

    def main(argv=None, prog=None):
        args = common.parse_args(argv, __doc__, prog=prog, steps=300, batch_size=64,
                                 learning_rate=1e-3)
        data = common.load_digits(args, layout="flat784")     # Arrays(train_x, ..., test_y)
        return common.run(model_fn, args, data)               # train_and_evaluate, printed

Flags common to all examples (each example picks its own defaults):

==========================  ============================================================
``--model_dir``             checkpoints and summaries (default: a fresh temporary folder)
``--iterations_per_loop``   training steps per host call (the device loop), ``NPURunConfig``
``--precision_mode``        ``allow_mix_precision`` etc.: matmul/conv compute in fp16
``--loss_scale``            a number (fixed loss scale) or ``dynamic``; wraps the optimizer
                            in ``npu.NPUOptimizer`` with the matching loss-scale manager
``--steps``                 total training steps (absolute, like ``max_steps``: re-running
                            with the same ``--model_dir`` resumes and stops there)
``--dataset``               ``digits`` (bundled, offline; the default), ``fashion_mnist``
                            (Zalando's Fashion-MNIST: ``--data_dir`` or the Debian
                            package's folder) or ``mnist`` (needs ``--data_dir``); each
                            example has a per-dataset preset (``PRESETS``) of the flags below
``--data_dir``              a folder of MNIST-format IDX files (alone: ``--dataset mnist``)
``--lr_schedule``           ``constant`` or ``cosine`` (cosine decay to 0 over ``--steps``)
``--batch_size``, ``--learning_rate``, ``--seed``
``--log_step_count_steps``  how often the loss is logged (``ASCEND_GLOBAL_LOG_LEVEL=1``
                            prints the library's INFO lines)
``--mode``                  ``train`` (train, then evaluate on the test split) or
                            ``evaluate`` (evaluate the latest checkpoint of ``--model_dir``)
==========================  ============================================================

``run`` prints ``Test accuracy: <acc>`` (the figure each example states in its docstring and
``STATED_ACCURACY``), and the training time.

Several workers (``estimator-npu-run -n 2 -m model_zoo.mlp --steps 300``): each reads its
shard of the training data in batches of ``--batch_size``, and ``optimizer`` averages the
gradients across workers (``npu.NPUDistributedOptimizer``, or ``npu.NPUOptimizer(...,
is_distributed=True)`` with a loss scale).
"""
import argparse
import collections
import contextlib
import math
import sys
import tempfile
import time

import numpy as np

import estimator_npu as tf
from estimator_npu import mixed_precision, npu
from estimator_npu.datasets import digits, fashion_mnist, mnist

# The precision modes ``NPURunConfig`` accepts (the adapter's names).
PRECISION_MODES = ("force_fp32", "allow_fp32_to_fp16", "allow_mix_precision",
                   "must_keep_origin_dtype")

# Dynamic loss scaling as seed 002's BERT script sets it up; the script takes the initial
# scale from a flag (init_loss_scale_value), we start at 2**15.
DYNAMIC_LOSS_SCALE = dict(init_loss_scale=2 ** 15, incr_every_n_steps=1000,
                          decr_every_n_nan_or_inf=2, decr_ratio=0.5)

Arrays = collections.namedtuple("Arrays", ["train_x", "train_y", "test_x", "test_y"])
Arrays.__doc__ = """Train and test images (float32) and int64 class labels, as numpy arrays."""


def loss_scale_flag(value):
    """Parses ``--loss_scale``: ``None``/``"none"``, ``"dynamic"`` or a number >= 1.

    Raises:
        argparse.ArgumentTypeError: anything else.
    """
    if value is None or value.lower() == "none":
        return None
    if value.lower() == "dynamic":
        return "dynamic"
    try:
        scale = float(value)
    except ValueError:
        scale = None
    if scale is None or not np.isfinite(scale) or scale < 1:
        raise argparse.ArgumentTypeError(
            f"--loss_scale must be a number >= 1 (a fixed scale), 'dynamic' or 'none', "
            f"got {value!r}")
    return scale


def _positive_int(value):
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value!r}")
    return number


def _positive_float(value):
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not math.isfinite(number) or number <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {value!r}")
    return number


# What a user can cause and fix (a wrong flag value, a model_dir of another model, missing
# data, a damaged checkpoint, a second trainer): one line and exit status 2, not a traceback.
EXPECTED_ERRORS = (tf.errors.OpError, ValueError, OSError, KeyError, RuntimeError)


@contextlib.contextmanager
def expected_errors(args):
    """Turns an expected error into one line on stderr and ``SystemExit(2)`` (``--debug``:
    the error propagates with its traceback)."""
    try:
        yield
    except EXPECTED_ERRORS as e:
        if getattr(args, "debug", False):
            raise
        text = (str(e).strip().splitlines() or [""])[0]
        print(f"{getattr(args, 'prog', 'model_zoo')}: error: {type(e).__name__}: {text} "
              f"(--debug shows the traceback)", file=sys.stderr)
        raise SystemExit(2) from None


DATASETS = ("digits", "fashion_mnist", "mnist")
LR_SCHEDULES = ("constant", "cosine")


def make_parser(doc, steps, batch_size, learning_rate, iterations_per_loop=10,
                loss_scale=None, prog=None, lr_schedule="constant"):
    """The flag parser of an example, with that example's defaults.

    Args:
        doc: the example's module docstring (its first line becomes the description).
        steps, batch_size, learning_rate, iterations_per_loop: the defaults.
        loss_scale: the default ``--loss_scale`` string (``None``: no loss scaling).
        prog: the program name in usage lines (default: from ``sys.argv[0]``).

    Returns:
        An ``argparse.ArgumentParser``; examples may add their own flags to it.
    """
    parser = argparse.ArgumentParser(
        prog=prog, description=doc.strip().splitlines()[0],
        epilog="\n".join(doc.strip().splitlines()[1:]),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=("train", "evaluate"), default="train",
                        help="train (then evaluate on the test split), or evaluate the "
                             "latest checkpoint in --model_dir (default: %(default)s)")
    parser.add_argument("--model_dir", default=None,
                        help="checkpoints and summaries (default: a new temporary folder)")
    parser.add_argument("--dataset", choices=DATASETS, default=None,
                        help="digits (bundled), fashion_mnist (--data_dir or the Debian "
                             "package dataset-fashion-mnist) or mnist (--data_dir); "
                             "default: mnist with --data_dir, else digits")
    parser.add_argument("--data_dir", default=None,
                        help="a folder of MNIST-format IDX files (default: the bundled "
                             "digits)")
    parser.add_argument("--lr_schedule", choices=LR_SCHEDULES, default=lr_schedule,
                        help="constant, or cosine decay to 0 over --steps "
                             "(default: %(default)s)")
    parser.add_argument("--steps", type=_positive_int, default=steps,
                        help="total training steps (default: %(default)s)")
    parser.add_argument("--batch_size", type=_positive_int, default=batch_size,
                        help="training batch size (default: %(default)s)")
    parser.add_argument("--learning_rate", type=_positive_float, default=learning_rate,
                        help="(default: %(default)s)")
    parser.add_argument("--iterations_per_loop", type=_positive_int,
                        default=iterations_per_loop,
                        help="training steps per host call (default: %(default)s)")
    parser.add_argument("--precision_mode", choices=PRECISION_MODES, default=None,
                        help="NPURunConfig precision_mode (default: fp32 everywhere)")
    parser.add_argument("--loss_scale", type=loss_scale_flag, default=loss_scale,
                        help="a fixed loss scale (a number >= 1), 'dynamic' or 'none' "
                             "(default: %(default)s)")
    parser.add_argument("--log_step_count_steps", type=_positive_int, default=100,
                        help="log the loss and global_step/sec every this many steps "
                             "(INFO lines of the 'estimator_npu' logger; "
                             "ASCEND_GLOBAL_LOG_LEVEL=1 shows them) (default: %(default)s)")
    parser.add_argument("--save_summary_steps", type=int, default=0,
                        help="write the train loss summary every this many steps "
                             "(default: 0, none, as NPURunConfig)")
    parser.add_argument("--test_examples", type=int, default=0,
                        help="evaluate on the first this many test examples only "
                             "(default: all)")
    parser.add_argument("--eval_every", type=int, default=0,
                        help="also evaluate every this many steps while training (the "
                             "eval curve of model_dir/eval; default: only at the end)")
    parser.add_argument("--seed", type=int, default=0,
                        help="graph-level random seed and data split/shuffle seed "
                             "(default: %(default)s)")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error (default: one line)")
    parser.set_defaults(prog=parser.prog)
    return parser


def dataset_of(argv):
    """The dataset ``argv`` selects: ``--dataset``, else ``mnist`` with ``--data_dir``,
    else ``digits``."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--dataset", choices=DATASETS, default=None)
    pre.add_argument("--data_dir", default=None)
    known, _ = pre.parse_known_args(sys.argv[1:] if argv is None else argv)
    if known.dataset:
        return known.dataset
    return "mnist" if known.data_dir else "digits"


def parse_args(argv, doc, prog=None, presets=None, **defaults):
    """``make_parser(doc, prog=prog, **defaults).parse_args(argv)``, with the defaults of
    ``presets[dataset]`` (``PRESETS`` of the example) over ``defaults`` for the selected
    ``--dataset``; ``args.dataset`` is always set."""
    dataset = dataset_of(argv)
    defaults = dict(defaults, **(presets or {}).get(dataset, {}))
    args = make_parser(doc, prog=prog, **defaults).parse_args(argv)
    args.dataset = dataset
    if dataset == "mnist" and not args.data_dir:
        make_parser(doc, prog=prog, **defaults).error(
            "--dataset mnist needs --data_dir (a folder of the four MNIST IDX files)")
    return args


def learning_rate(params):
    """The learning rate tensor of ``params``: ``learning_rate``, decayed by the
    ``lr_schedule`` (``cosine``: to 0 at ``steps``) against the global step."""
    rate = params["learning_rate"]
    if params.get("lr_schedule", "constant") == "cosine":
        return tf.train.cosine_decay(rate, tf.train.get_or_create_global_step(),
                                     params["steps"])
    return rate


def params_from(args, **extra):
    """The ``params`` dict handed to ``model_fn``: the training flags plus ``extra``."""
    params = dict(learning_rate=args.learning_rate, loss_scale=args.loss_scale,
                  batch_size=args.batch_size, steps=args.steps,
                  lr_schedule=getattr(args, "lr_schedule", "constant"))
    params.update(extra)
    return params


# --------------------------------------------------------------------------- data
def load_digits(args, layout):
    """The train/test arrays of the bundled digits (or MNIST from ``args.data_dir``: all
    60,000 training images, the 10,000 test images).

    Args:
        args: parsed flags (``data_dir``, ``seed``).
        layout: ``"flat784"`` (``[N, 784]``), ``"image28"`` (``[N, 28, 28, 1]``),
            ``"image32"`` (``[N, 32, 32, 1]``: 28x28 zero-padded by 2, LeNet's original
            input size) or ``"rows"`` (``[N, 8, 8]``: each image a sequence of 8 rows of
            8 pixels; MNIST gives 28 rows of 28).

    Returns:
        ``Arrays(train_x, train_y, test_x, test_y)``.
    """
    layouts = ("flat784", "image28", "image32", "rows")
    if layout not in layouts:
        raise ValueError(f"layout must be one of {layouts}, got {layout!r}")
    with expected_errors(args):
        return _load_digits(args, layout)


def _load_digits(args, layout):
    dataset = getattr(args, "dataset", None) or ("mnist" if args.data_dir else "digits")
    if dataset == "fashion_mnist":
        raw = fashion_mnist.load(args.data_dir)
        scale = np.float32(1 / 255)
        data = _Splits(_Split(raw.train_images * scale, raw.train_labels),
                       _Split(raw.test_images * scale, raw.test_labels))
        side = 28
    elif dataset == "mnist":
        data = mnist.read_data_sets(args.data_dir, one_hot=False, reshape=False,
                                    validation_size=0, seed=args.seed)
        side = 28
    else:
        data = digits.load(one_hot=False, flatten=False, seed=args.seed,
                           mnist_shape=layout != "rows")
        side = 8 if layout == "rows" else 28
    arrays = []
    for split in (data.train, data.test):
        x = np.asarray(split.images, np.float32).reshape(-1, side, side, 1)
        if layout == "flat784":
            x = x.reshape(-1, side * side)
        elif layout == "image32":
            x = np.pad(x, ((0, 0), (2, 2), (2, 2), (0, 0)))
        elif layout == "rows":
            x = x.reshape(-1, side, side)
        arrays += [np.ascontiguousarray(x), np.asarray(split.labels, np.int64)]
    limit = getattr(args, "test_examples", 0)
    if limit:
        arrays[2:] = [a[:limit] for a in arrays[2:]]
    return Arrays(*arrays)


_Split = collections.namedtuple("_Split", ["images", "labels"])
_Splits = collections.namedtuple("_Splits", ["train", "test"])


def random_flip_crop(pad=2, seed=0):
    """A per-image ``map`` function for ``(image [h, w, c], label)`` elements, built of
    ``tf.image`` ops: the image zero-padded by ``pad`` pixels on each side
    (``resize_with_crop_or_pad``), cropped back to ``h x w`` at a random offset
    (``random_crop``), then flipped left-right with probability 1/2
    (``random_flip_left_right``); op-level seeds from ``seed``."""
    def map_fn(image, label):
        h, w, c = (int(d) for d in image.shape)
        image = tf.image.resize_with_crop_or_pad(image, h + 2 * pad, w + 2 * pad)
        image = tf.image.random_crop(image, [h, w, c], seed=seed + 1)
        return tf.image.random_flip_left_right(image, seed=seed + 2), label
    return map_fn


def train_input_fn(x, y, batch_size, seed=0, augment=None):
    """An ``input_fn``: shuffled batches of ``(x, y)``, repeated forever (whole batches);
    ``augment`` (e.g. ``random_flip_crop()``), when given, maps each shuffled example
    before batching.

    With several workers (``estimator-npu-run -n N``) each reads its own shard
    (``config.worker_index`` of ``config.num_workers``) in batches of ``batch_size``.
    """
    def input_fn(config):
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        if config.num_workers > 1:
            ds = ds.shard(config.num_workers, config.worker_index)
        ds = ds.shuffle(x.shape[0], seed=seed).repeat()
        if augment is not None:
            ds = ds.map(augment)
        return ds.batch(batch_size, drop_remainder=True)
    return input_fn


def eval_input_fn(x, y, batch_size=512):
    """An ``input_fn``: ``(x, y)`` once, in order, in batches (the last one may be short)."""
    def input_fn():
        return tf.data.Dataset.from_tensor_slices((x, y)).batch(batch_size)
    return input_fn


# --------------------------------------------------------------------------- model_fn parts
def loss_scale_manager(loss_scale):
    """The loss-scale manager for a ``--loss_scale`` value (``None`` for ``None``)."""
    if loss_scale is None:
        return None
    if loss_scale == "dynamic":
        return mixed_precision.ExponentialUpdateLossScaleManager(**DYNAMIC_LOSS_SCALE)
    return mixed_precision.FixedLossScaleManager(loss_scale=float(loss_scale))


def optimizer(opt, params):
    """``opt`` wrapped for loss scaling (``params["loss_scale"]``) and several workers.

    As seed 002 does it: ``npu.NPUOptimizer(opt, loss_scale_manager, is_distributed,
    is_loss_scale=True)`` with a loss scale; ``npu.NPUDistributedOptimizer(opt)`` without
    one under ``estimator-npu-run -n N`` (N > 1); ``opt`` itself otherwise.
    """
    manager = loss_scale_manager(params.get("loss_scale"))
    distributed = npu.get_rank_size() > 1
    if manager is not None:
        return npu.NPUOptimizer(opt, loss_scale_manager=manager, is_distributed=distributed,
                                is_loss_scale=True)
    if distributed:
        return npu.NPUDistributedOptimizer(opt)
    return opt


def classifier_spec(mode, logits, labels, params, make_optimizer):
    """The ``EstimatorSpec`` of a softmax classifier over ``logits``.

    PREDICT gives ``classes`` and ``probabilities``; EVAL the ``accuracy`` metric; TRAIN
    minimizes the mean sparse cross entropy with ``optimizer(make_optimizer(), params)``,
    running ``UPDATE_OPS`` (batch-norm statistics) first.
    """
    classes = tf.argmax(logits, axis=1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={
            "classes": classes, "probabilities": tf.nn.softmax(logits)})
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={
            "accuracy": tf.metrics.accuracy(labels=labels, predictions=classes)})
    opt = optimizer(make_optimizer(), params)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


# --------------------------------------------------------------------------- running
def run_config(args, **kwargs):
    """The ``NPURunConfig`` of the flags (``kwargs`` override or add fields)."""
    fields = dict(model_dir=args.model_dir, tf_random_seed=args.seed,
                  iterations_per_loop=args.iterations_per_loop,
                  precision_mode=args.precision_mode,
                  log_step_count_steps=args.log_step_count_steps)
    if getattr(args, "save_summary_steps", 0):
        fields["save_summary_steps"] = args.save_summary_steps
    fields.update(kwargs)
    return npu.NPURunConfig(**fields)


def shared_model_dir(model_dir):
    """``model_dir``; without one under MPI, one temporary folder made by rank 0 and used by
    every rank (each rank's own folder would leave the others with no checkpoint)."""
    if model_dir is not None or npu.get_rank_size() == 1:
        return model_dir
    path = tempfile.mkdtemp(prefix="model_zoo_") if npu.get_rank_id() == 0 else ""
    buf = np.zeros(4096, np.uint8)
    raw = path.encode()
    buf[:len(raw)] = np.frombuffer(raw, np.uint8)
    with tf.Graph().as_default():
        shared = npu.hccl_ops.broadcast([tf.constant(buf)], 0)[0]
        with tf.Session() as sess:
            value = sess.run(shared)
    return bytes(value).rstrip(b"\0").decode()


def make_estimator(model_fn, args, params=None, **config_kwargs):
    """An ``NPUEstimator`` of ``model_fn`` configured by the flags."""
    args.model_dir = shared_model_dir(args.model_dir)
    return npu.NPUEstimator(model_fn, config=run_config(args, **config_kwargs),
                            params=params if params is not None else params_from(args))


def train_and_evaluate(estimator, train_input_fn, eval_input_fn, steps, log=print):
    """Trains to global step ``steps`` (resuming from ``model_dir``), then evaluates.

    Prints the training time and ``Test accuracy: <acc>``.

    Returns:
        The evaluation dict (``accuracy``, ``loss``, ``global_step``), plus
        ``train_seconds``.
    """
    first = _global_step(estimator)
    start = time.perf_counter()
    estimator.train(train_input_fn, max_steps=steps)
    seconds = time.perf_counter() - start
    last = _global_step(estimator)
    log(f"Trained steps {first} -> {last} in {seconds:.1f} s "
        f"({(last - first) / max(seconds, 1e-9):.0f} steps/s); model_dir: {estimator.model_dir}")
    results = evaluate(estimator, eval_input_fn, log=log)
    results["train_seconds"] = seconds
    return results


def _global_step(estimator):
    """The global step of the latest checkpoint in ``model_dir`` (0 if there is none)."""
    if estimator.latest_checkpoint() is None:
        return 0
    return int(estimator.get_variable_value(tf.GraphKeys.GLOBAL_STEP))


def evaluate(estimator, eval_input_fn, log=print):
    """Evaluates the latest checkpoint; prints and returns the results."""
    results = estimator.evaluate(eval_input_fn)
    log(f"Test loss: {results['loss']:.4f} at global step {results['global_step']}")
    log(f"Test accuracy: {results['accuracy']:.4f}")
    return results


def run(model_fn, args, data, params=None, eval_batch_size=512, log=print, augment=None):
    """``main``'s body: train and evaluate (``--mode train``) or evaluate only.

    Returns:
        0 (the process exit status); ``--mode evaluate`` without a checkpoint in
        ``--model_dir`` prints why and returns 2, as every expected error does (one line;
        ``--debug`` shows the traceback). Under MPI only rank 0 prints results.
    """
    prog = getattr(args, "prog", "model_zoo")
    if args.mode == "evaluate" and args.model_dir is None:
        print(f"{prog}: error: --mode evaluate needs --model_dir, the folder holding the "
              f"checkpoints of a trained model (train one with --mode train --model_dir DIR)",
              file=sys.stderr)
        return 2
    if npu.get_rank_id() != 0:
        log = _quiet   # one set of results, from the chief
    with expected_errors(args):
        estimator = make_estimator(model_fn, args, params)
        train_fn = train_input_fn(data.train_x, data.train_y, args.batch_size, seed=args.seed,
                                  augment=augment)
        eval_fn = eval_input_fn(data.test_x, data.test_y, eval_batch_size)
        if args.mode == "evaluate":
            if estimator.latest_checkpoint() is None:
                print(f"{prog}: error: --mode evaluate needs a checkpoint in --model_dir; "
                      f"found none in {args.model_dir}", file=sys.stderr)
                return 2
            evaluate(estimator, eval_fn, log=log)
            return 0
        every = getattr(args, "eval_every", 0)
        seconds = 0.0
        if every > 0:
            for stop in range((_global_step(estimator) // every + 1) * every, args.steps, every):
                seconds += train_and_evaluate(estimator, train_fn, eval_fn, stop,
                                              log=log)["train_seconds"]
        results = train_and_evaluate(estimator, train_fn, eval_fn, args.steps, log=log)
    results["train_seconds"] += seconds
    LAST_RUN.clear()
    LAST_RUN.update(results, model_dir=estimator.model_dir)
    return 0


def _quiet(*args, **kwargs):
    pass


# The results of the latest ``run(..., --mode train)`` in this process (``accuracy``,
# ``loss``, ``global_step``, ``train_seconds``, ``model_dir``): read by the benchmark.
LAST_RUN = {}
