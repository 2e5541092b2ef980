"""``with tf.Session(graph=g):`` and ``tf.InteractiveSession(graph=g)`` make g the default
graph as TF1 does (checked against TF 2.15's tf.compat.v1): ops built inside the block go
to the session's graph; ``sess.as_default()`` alone leaves the default graph alone; an
InteractiveSession's graph does not block ``tf.reset_default_graph()``."""
import estimator_npu as tf


def test_session_context_makes_its_graph_the_default():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0)
    outer = tf.get_default_graph()
    with tf.Session(graph=g) as sess:
        assert tf.get_default_graph() is g
        b = a + 1.0                      # built in g: would mix graphs otherwise
        ds = tf.data.Dataset.from_tensor_slices([1, 2, 3]).batch(2)
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        sess.run(it.initializer)
        assert sess.run(b) == 2.0 and list(sess.run(nxt)) == [1, 2]
    assert tf.get_default_graph() is outer
    sess2 = tf.Session(graph=g)
    with sess2.as_default():
        assert tf.get_default_graph() is outer
    sess2.close()


def test_interactive_session_installs_its_graph_until_closed():
    g = tf.Graph()
    sess = tf.InteractiveSession(graph=g)
    try:
        assert tf.get_default_graph() is g
        c = tf.constant(3.0)
        assert c.graph is g and c.eval() == 3.0
    finally:
        sess.close()
    assert tf.get_default_graph() is not g


def test_reset_default_graph_with_an_open_interactive_session():
    sess = tf.InteractiveSession()
    old = tf.get_default_graph()
    tf.reset_default_graph()              # TF allows it (the session's entry is unnested)
    assert tf.get_default_graph() is not old
    sess.close()
    tf.reset_default_graph()
    g = tf.Graph()
    with g.as_default():
        try:
            tf.reset_default_graph()
            raised = False
        except AssertionError:
            raised = True
    assert raised                          # still refused inside graph.as_default()
