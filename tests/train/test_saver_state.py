

def test_max_to_keep_zero_keeps_files_but_lists_only_the_latest(tmp_path):
    import os
    import estimator_npu as tf
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0, name="v")
        saver = tf.train.Saver(max_to_keep=0)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            saver.save(sess, str(tmp_path / "m"), global_step=step)
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert os.path.basename(state.model_checkpoint_path) == "m-2"
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == ["m-2"]
    assert all(os.path.exists(str(tmp_path / f"m-{i}.index")) for i in range(3))
