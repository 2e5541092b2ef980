"""A word2vec-style script (embedding_lookup + tf.nn.nce_loss + SGD, cosine nearest
words, summaries, a checkpoint and the embedding projector's config), run unmodified
through ``estimator-npu run``; and the projector's message against TensorBoard's."""
import re

from estimator_npu.contrib.tensorboard.plugins import projector

# TensorBoard's own projector_config_pb2 (installed with TF 2.15) serialized this message
# (the one _full_config builds) to these bytes.
TENSORBOARD_BYTES = ("0a02636b12250a05656d623a3012056d2e7473761a0162220205032a0b0a05732e706e67"
                     "12021c1c3201741a0164")


def test_word2vec_nce_learns_topic_neighbours(tmp_path, run_script):
    proc = run_script("word2vec_nce.py", "--steps", "1501", cwd=tmp_path, via="cli")
    losses = [float(v) for v in re.findall(r"Average loss at step \d+ : ([0-9.]+)",
                                             proc.stdout)]
    assert len(losses) == 3, proc.stdout
    assert losses[-1] < losses[0] < 4.0, losses
    assert len(re.findall(r"^Nearest to \w+: \w+, \w+, \w+, \w+$", proc.stdout, re.M)) == 5
    same = int(re.search(r"same-topic neighbours: (\d+) of 20", proc.stdout).group(1))
    assert same >= 10, proc.stdout       # chance level is about 4 of 20
    assert "final embeddings (51, 32)" in proc.stdout
    log = tmp_path / "w2v_log"
    assert (log / "model.ckpt.index").exists() and list(log.glob("events.out.tfevents.*"))
    assert len((log / "metadata.tsv").read_text().splitlines()) == 51
    config = (log / "projector_config.pbtxt").read_text()
    assert 'tensor_name: "embeddings/Variable:0"' in config
    assert 'metadata_path: "w2v_log/metadata.tsv"' in config


def _full_config():
    c = projector.ProjectorConfig(model_checkpoint_path="ck")
    e = c.embeddings.add(tensor_name="emb:0", metadata_path="m.tsv", tensor_path="t",
                         bookmarks_path="b")
    e.tensor_shape.extend([5, 3])
    e.sprite.image_path = "s.png"
    e.sprite.single_image_dim.extend([28, 28])
    c.model_checkpoint_dir = "d"
    return c


def test_projector_config_is_tensorboards_message():
    c = _full_config()
    assert c.SerializeToString().hex() == TENSORBOARD_BYTES
    assert projector.ProjectorConfig.FromString(bytes.fromhex(TENSORBOARD_BYTES)) == c



def test_internal_module_paths_of_samplers_and_kmeans(tmp_path, run_script):
    script = tmp_path / "paths.py"
    script.write_text(
        "from tensorflow.contrib.factorization.python.ops import clustering_ops\n"
        "from tensorflow.python.ops.clustering_ops import KMeans\n"
        "from tensorflow.python.ops import candidate_sampling_ops\n"
        "from tensorflow.python.ops.nn_impl import nce_loss, sampled_softmax_loss\n"
        "print(clustering_ops.KMeans is KMeans,\n"
        "      candidate_sampling_ops.log_uniform_candidate_sampler.__name__,\n"
        "      nce_loss.__name__, sampled_softmax_loss.__name__)\n")
    proc = run_script(script, cwd=tmp_path)
    assert proc.stdout.split() == ["True", "log_uniform_candidate_sampler", "nce_loss",
                                   "sampled_softmax_loss"]
