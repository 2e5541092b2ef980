"""A word2vec-style script (embedding_lookup + tf.nn.nce_loss + SGD, cosine nearest
words), run unmodified through ``estimator-npu run``."""
import re


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

