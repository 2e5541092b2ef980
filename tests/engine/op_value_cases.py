"""Op values shared by ``tools/record_tf_op_values.py`` (real TF writes
``op_values_golden.json``) and ``test_op_values.py``: each case ``build(tf)`` returns a
list of tensors on fixed inputs (variables initialised by the runner)."""
import numpy as np

CASES = {}
R = np.random.RandomState(7)
X = R.normal(0, 1, (2, 5, 5, 3)).astype(np.float32)
M = R.normal(0, 1, (3, 4)).astype(np.float32)


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def nn_extras(tf):
    R = np.random.RandomState(8)
    w = R.normal(0, 1, (3, 3, 3, 2)).astype(np.float32)
    pw = R.normal(0, 1, (1, 1, 6, 4)).astype(np.float32)
    wt = R.normal(0, 1, (3, 3, 4, 3)).astype(np.float32)
    return [tf.nn.xw_plus_b(M, M.T, np.arange(3, dtype=np.float32)),
            tf.nn.depthwise_conv2d(X, w, [1, 1, 1, 1], "SAME"),
            tf.nn.depthwise_conv2d(X, w, [1, 2, 2, 1], "VALID"),
            tf.nn.separable_conv2d(X, w, pw, [1, 1, 1, 1], "SAME"),
            tf.nn.conv2d_transpose(X, wt, [2, 10, 10, 4], [1, 2, 2, 1], "SAME"),
            tf.nn.lrn(X, 2, 1.0, 0.5, 0.75), tf.nn.local_response_normalization(X),
            tf.nn.convolution(X, np.ascontiguousarray(w[:, :, :, :2]), "SAME")]


@case
def top_k_values(tf):
    v, i = tf.nn.top_k(M, 2)
    v2, i2 = tf.nn.top_k(np.array([3, 1, 3, 2], np.float32), 3)
    return [v, i, v2, i2]


@case
def embedding_sparse(tf):
    p = np.arange(12, dtype=np.float32).reshape(4, 3)
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], np.array([0, 2, 1, 3], np.int64),
                          [3, 2])
    wts = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]],
                          np.array([1.0, 3.0, 2.0, 0.5], np.float32), [3, 2])
    return [tf.nn.embedding_lookup_sparse(p, ids, None, combiner=c) for c in
            ("sum", "mean", "sqrtn")] + \
        [tf.nn.embedding_lookup_sparse(p, ids, wts, combiner=c) for c in
         ("sum", "mean", "sqrtn")]


@case
def array_extras(tf):
    y, idx = tf.unique(np.array([4, 1, 4, 2, 1, 7], np.int32))
    y2, idx2, cnt = tf.unique_with_counts(np.array([4, 1, 4, 2, 1, 7], np.int32))
    p = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    return [tf.eye(3), tf.eye(2, 3, dtype=tf.float64), tf.eye(2, batch_shape=[2]),
            tf.arg_max(M, 1), tf.arg_min(M, 0), y, idx, y2, idx2, cnt,
            tf.gather_nd(p, [[0, 1], [1, 2]]), tf.gather_nd(p, [[1, 0, 3]]),
            tf.scatter_nd([[1], [3], [1]], np.array([1.0, 2.0, 3.0], np.float32), [5]),
            tf.scatter_nd([[0, 1]], np.array([5.0], np.float32), [2, 2]),
            tf.strided_slice(p, [0, 1, 0], [2, 3, 4], [1, 1, 2]),
            tf.strided_slice(p, [1, 0, 0], [2, 3, 4], [1, 1, 1], shrink_axis_mask=1),
            tf.strided_slice(p, [0, 0, 1], [0, 0, 3], [1, 1, 1], begin_mask=3, end_mask=3)]


@case
def math_extras(tf):
    v = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 3.0]], np.float32)
    return [tf.cumsum(v, axis=1), tf.cumsum(v, axis=1, exclusive=True),
            tf.cumsum(v, axis=1, reverse=True),
            tf.cumsum(v, axis=1, exclusive=True, reverse=True), tf.cumsum(v),
            tf.math.cumprod(v, axis=1, exclusive=True),
            tf.div_no_nan(v, np.array([2.0, 0.0, 1.0, 0.0], np.float32)),
            tf.einsum("ij,kj->ik", v, v), tf.einsum("ij->j", v), tf.einsum("i,j->ij", v[0], v[1]),
            tf.norm(v), tf.norm(v, axis=1), tf.norm(v, ord=1, axis=0), tf.norm(v, ord=np.inf),
            tf.norm(v, axis=1, keepdims=True), tf.math.reduce_sum(v), tf.math.top_k(v, 1)[0]]


@case
def variable_scatters(tf):
    a = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))
    b = tf.Variable(np.zeros(5, np.float32))
    u = tf.scatter_update(a, [1, 3], np.array([[9, 9], [7, 7]], np.float32))
    with tf.control_dependencies([u]):
        s = tf.scatter_add(b, [0, 2, 0], np.array([1.0, 2.0, 3.0], np.float32))
    with tf.control_dependencies([s]):
        d = tf.scatter_sub(b, [4], np.array([0.5], np.float32))
    return [d, u]


IMG = R.uniform(0, 1, (2, 5, 7, 3)).astype(np.float32)
IMG_U8 = (R.uniform(0, 255, (4, 6, 3))).astype(np.uint8)


@case
def image_resize(tf):
    out = []
    for size in ([8, 10], [3, 4], [5, 7], [1, 1]):
        out += [tf.image.resize_bilinear(IMG, size),
                tf.image.resize_bilinear(IMG, size, align_corners=True),
                tf.image.resize_bilinear(IMG, size, half_pixel_centers=True),
                tf.image.resize_nearest_neighbor(IMG, size),
                tf.image.resize_nearest_neighbor(IMG, size, align_corners=True),
                tf.image.resize_nearest_neighbor(IMG, size, half_pixel_centers=True)]
    out += [tf.image.resize_images(IMG_U8, [7, 9]),
            tf.image.resize_images(IMG_U8, [7, 9], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR),
            tf.image.resize_images(IMG, [3, 3], align_corners=True)]
    return out


@case
def image_crops_and_colour(tf):
    return [tf.image.central_crop(IMG[0], 0.5), tf.image.central_crop(IMG, 0.7),
            tf.image.resize_image_with_crop_or_pad(IMG[0], 3, 9),
            tf.image.resize_image_with_crop_or_pad(IMG, 8, 4),
            tf.image.per_image_standardization(IMG[0]),
            tf.image.per_image_standardization(IMG_U8),
            tf.image.convert_image_dtype(IMG_U8, tf.float32),
            tf.image.convert_image_dtype(IMG[0], tf.uint8),
            tf.image.convert_image_dtype(IMG[0] * 1.5, tf.uint8, saturate=True),
            tf.image.flip_left_right(IMG), tf.image.flip_up_down(IMG[0]),
            tf.image.adjust_brightness(IMG[0], 0.2), tf.image.adjust_contrast(IMG, 1.7),
            tf.image.adjust_contrast(IMG_U8, 0.5), tf.image.rgb_to_grayscale(IMG)]


@case
def composites(tf):
    v = np.array([[1.0, -2.0, 0.0, 3.0], [0.5, 0.0, -1.5, 2.0]], np.float32)
    lab = np.array([[1, 0, 1, 1], [0, 0, 1, 0]], np.float32)
    r = np.random.RandomState(3)  # its own stream: cases run in any order
    w1 = r.normal(0, 1, (3, 3, 2)).astype(np.float32)
    seq = r.normal(0, 1, (2, 7, 3)).astype(np.float32)
    return [tf.reduce_logsumexp(v), tf.reduce_logsumexp(v, axis=1),
            tf.reduce_logsumexp(v, axis=0, keepdims=True), tf.math.reduce_variance(v, 1),
            tf.math.reduce_std(v), tf.count_nonzero(v), tf.count_nonzero(v, axis=1),
            tf.math.log_sigmoid(v), tf.nn.selu(v), tf.nn.swish(v), tf.nn.softsign(v),
            tf.nn.crelu(v), tf.nn.relu_layer(v, v.T, np.ones(2, np.float32)),
            tf.nn.weighted_cross_entropy_with_logits(labels=lab, logits=v, pos_weight=2.5),
            tf.confusion_matrix([0, 1, 2, 1], [0, 2, 2, 1]),
            tf.confusion_matrix([0, 1, 1], [1, 1, 0], num_classes=3,
                                weights=[1.0, 2.0, 0.5], dtype=tf.float32),
            tf.nn.conv1d(seq, w1, 2, "SAME"), tf.nn.conv1d(seq, w1, 1, "VALID"),
            tf.nn.atrous_conv2d(X, np.ones((2, 2, 3, 1), np.float32), 2, "SAME")]
