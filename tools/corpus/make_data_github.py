"""Makes the DATA folder that ``github.tsv`` runs against (see README.md, "The GitHub corpus").

Nothing is downloaded; everything is synthetic except the MNIST-named files, which are the
local Fashion-MNIST copy under MNIST's names::

    python tools/corpus/make_data_github.py DATA [--fashion /usr/share/datasets/fashion-mnist]

What it writes (each generator is small and seeded):

- ``tinytext/input.txt``: about 40 kB of English-like text (char-RNN training text).
- ``mnist_full/``: the full 60000/10000 Fashion-MNIST IDX files under the MNIST names, both
  gzipped and raw (scripts that hard-code ``reshape((60000, 28, 28, 1))``);
  ``dcgan/mnist`` links to it (a ``--data_dir`` whose ``mnist/`` subfolder holds them).
- ``bert/``: ``vocab.txt`` (WordPiece-style, lower-cased), ``bert_config.json`` (2 layers,
  hidden 32), ``pretrain.txt`` (documents separated by blank lines), ``squad.json`` (SQuAD
  1.1 layout, 12 questions whose answers are spans of their contexts), and GLUE-format
  ``MRPC/`` and ``CoLA/`` folders with ``train.tsv``, ``dev.tsv``, ``test.tsv``.
- ``transformer/``: ``bpe.vocab`` and ``{train,eval,test}.{de,en}.bpe`` token files plus the
  unsegmented ``eval.en`` / ``test.en`` (Kyubyong/transformer's ``iwslt2016`` layout).
- ``alexnet/``: 16 PNG images in two classes, ``train.txt`` / ``val.txt`` (``path label``
  lines) and ``bvlc_alexnet.npy`` holding random conv1-conv5 weights in the caffe layout
  (the fine-tuned fc layers are not in it, as the script skips them).
- ``seqtag/``: CoNLL-2003-style ``train.txt`` / ``dev.txt`` / ``test.txt`` (``word TAG``
  lines, PER/LOC/ORG/MISC tags in IOB) and ``glove.6B.300d.txt`` (random 300-d vectors
  for their words and some others) for guillaumegenthial/sequence_tagging.
- ``pix2pix/{train,val}/``: 6 + 2 JPEGs of 128x64 pixels, each an input|target pair side
  by side (affinelayer/pix2pix-tensorflow's combined layout; the script scales each half
  to 286 and crops 256).
- ``out/``: empty folders the rows write their checkpoints and outputs to (a later row,
  ``sample.py`` or ``test.py``, reads what the row before it wrote).
"""
import argparse
import gzip
import json
import os
import shutil

import numpy as np

WORDS = ("the of and to a in is was he for it with as his on be at by had not are but from "
         "or have an they which one you were her all she there would their we him been has "
         "when who will more no if out so said what up its about into than them can only "
         "other new some could time these two may then do first any my now such like our over "
         "man me even most made after also did many before must through back years where much "
         "your way well down should because each just those people how too little state good "
         "very make world still own see men work long get here between both life being under "
         "never day same another know while last might us great old year off come since "
         "against go came right used take three").split()


def _sentence(rng, lo=4, hi=12):
    n = rng.randint(lo, hi)
    return " ".join(WORDS[i] for i in rng.zipf(1.3, size=n) % len(WORDS))


def make_tinytext(out, n_chars=40000, seed=0):
    rng = np.random.RandomState(seed)
    os.makedirs(out, exist_ok=True)
    lines, size = [], 0
    while size < n_chars:
        s = _sentence(rng)
        s = s[0].upper() + s[1:] + rng.choice([".", ",", "!", "?", ";"])
        lines.append(s)
        size += len(s) + 1
    with open(os.path.join(out, "input.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def make_mnist_full(fashion, out):
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(fashion):
        if name.endswith(".gz"):
            shutil.copyfile(os.path.join(fashion, name), os.path.join(out, name))
            with gzip.open(os.path.join(fashion, name), "rb") as f, \
                    open(os.path.join(out, name[:-3]), "wb") as g:
                shutil.copyfileobj(f, g)


def make_bert(out, seed=0):
    rng = np.random.RandomState(seed)
    os.makedirs(out, exist_ok=True)
    vocab = ["[PAD]"] + ["[unused%d]" % i for i in range(4)] + ["[UNK]", "[CLS]", "[SEP]",
                                                                  "[MASK]"]
    vocab += sorted(set(WORDS)) + [".", ",", "!", "?", "##s", "##ed", "##ing"]
    with open(os.path.join(out, "vocab.txt"), "w") as f:
        f.write("\n".join(vocab) + "\n")
    config = {"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu",
              "hidden_dropout_prob": 0.1, "hidden_size": 32, "initializer_range": 0.02,
              "intermediate_size": 64, "max_position_embeddings": 64,
              "num_attention_heads": 2, "num_hidden_layers": 2, "type_vocab_size": 2,
              "vocab_size": len(vocab)}
    with open(os.path.join(out, "bert_config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(out, "pretrain.txt"), "w") as f:
        for _ in range(8):   # documents
            for _ in range(rng.randint(3, 7)):
                f.write(_sentence(rng, 5, 14) + " .\n")
            f.write("\n")
    squad = {"version": "1.1", "data": []}
    for t in range(2):
        paragraphs = []
        for p in range(3):
            context = " ".join(_sentence(rng, 6, 12) + " ." for _ in range(3))
            words = context.split()
            qas = []
            for q in range(2):
                start = rng.randint(0, len(words) - 3)
                answer = " ".join(words[start:start + 2])
                qas.append({"id": "q%d_%d_%d" % (t, p, q), "question": _sentence(rng, 3, 7),
                            "answers": [{"text": answer,
                                         "answer_start": len(" ".join(words[:start])) +
                                         (1 if start else 0)}]})
            paragraphs.append({"context": context, "qas": qas})
        squad["data"].append({"title": "doc%d" % t, "paragraphs": paragraphs})
    with open(os.path.join(out, "squad.json"), "w") as f:
        json.dump(squad, f)
    for task, n in (("MRPC", {"train": 48, "dev": 16, "test": 16}),
                    ("CoLA", {"train": 48, "dev": 16, "test": 16})):
        d = os.path.join(out, task)
        os.makedirs(d, exist_ok=True)
        for split, count in n.items():
            with open(os.path.join(d, split + ".tsv"), "w") as f:
                if task == "MRPC":
                    f.write("Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n" if split != "test"
                            else "index\t#1 ID\t#2 ID\t#1 String\t#2 String\n")
                elif split == "test":
                    f.write("index\tsentence\n")
                for i in range(count):
                    a, b, lab = _sentence(rng), _sentence(rng), rng.randint(2)
                    if task == "MRPC":
                        f.write("%d\t%d\t%d\t%s\t%s\n" % (
                            i if split == "test" else lab, 1000 + i, 2000 + i, a, b))
                    elif split == "test":
                        f.write("%d\t%s\n" % (i, a))
                    else:
                        f.write("src%d\t%d\t\t%s\n" % (i % 3, lab, a))


def make_transformer(out, seed=0):
    rng = np.random.RandomState(seed)
    seg = os.path.join(out, "segmented")
    pre = os.path.join(out, "prepro")
    os.makedirs(seg, exist_ok=True)
    os.makedirs(pre, exist_ok=True)
    de = ["\u2581" + w for w in WORDS[:60]]   # sentencepiece-style pieces
    en = ["\u2581" + w for w in WORDS[60:120]]
    with open(os.path.join(seg, "bpe.vocab"), "w") as f:
        for i, t in enumerate(["<pad>", "<unk>", "<s>", "</s>"] + sorted(set(de + en))):
            f.write("%s\t%d\n" % (t, -i))
    for split, n in (("train", 64), ("eval", 16), ("test", 16)):
        src, tgt = [], []
        for _ in range(n):
            k = rng.randint(3, 9)
            ids = rng.randint(0, 60, size=k)
            src.append(" ".join(de[i] for i in ids))
            tgt.append(" ".join(en[i] for i in ids[::-1]))
        for lang, lines in (("de", src), ("en", tgt)):
            with open(os.path.join(seg, "%s.%s.bpe" % (split, lang)), "w") as f:
                f.write("\n".join(lines) + "\n")
        with open(os.path.join(pre, split + ".en"), "w") as f:
            f.write("\n".join(t.replace("\u2581", "") for t in tgt) + "\n")


def make_alexnet(out, seed=0):
    from PIL import Image
    rng = np.random.RandomState(seed)
    img = os.path.join(out, "images")
    os.makedirs(img, exist_ok=True)
    lines = []
    for i in range(16):
        arr = rng.randint(0, 256, size=(40 + i, 50, 3)).astype(np.uint8)
        path = os.path.join(img, "img%02d.png" % i)
        Image.fromarray(arr).save(path)
        lines.append("%s %d" % (path, i % 2))
    with open(os.path.join(out, "train.txt"), "w") as f:
        f.write("\n".join(lines[:12]) + "\n")
    with open(os.path.join(out, "val.txt"), "w") as f:
        f.write("\n".join(lines[12:]) + "\n")
    shapes = {"conv1": (11, 11, 3, 96), "conv2": (5, 5, 48, 256), "conv3": (3, 3, 256, 384),
              "conv4": (3, 3, 192, 384), "conv5": (3, 3, 192, 256)}
    weights = {k: [(rng.randn(*s) * 0.01).astype(np.float32),
                   np.zeros(s[-1], np.float32)] for k, s in shapes.items()}
    np.save(os.path.join(out, "bvlc_alexnet.npy"), weights, allow_pickle=True)


NAMES = ("john mary paris london berlin google acme smith jones france germany reuters "
         "monday").split()
NAME_TAGS = {"john": "PER", "mary": "PER", "smith": "PER", "jones": "PER", "paris": "LOC",
             "london": "LOC", "berlin": "LOC", "france": "LOC", "germany": "LOC",
             "google": "ORG", "acme": "ORG", "reuters": "ORG", "monday": "MISC"}


def make_seqtag(out, seed=0, dim=300):
    rng = np.random.RandomState(seed)
    os.makedirs(out, exist_ok=True)
    words = set()
    for split, n in (("train", 60), ("dev", 15), ("test", 15)):
        lines = []
        for _ in range(n):
            toks = _sentence(rng).split()
            pos = rng.randint(0, len(toks) + 1)
            ent = [NAMES[i] for i in rng.choice(len(NAMES), rng.randint(1, 3))]
            for i, w in enumerate(toks[:pos] + ent + toks[pos:]):
                if w in NAME_TAGS:
                    prev = (toks[:pos] + ent + toks[pos:])[i - 1] if i else None
                    tag = ("I-" if prev in NAME_TAGS and NAME_TAGS[prev] == NAME_TAGS[w]
                           else "B-") + NAME_TAGS[w]
                    w = w.capitalize()
                else:
                    tag = "O"
                if rng.rand() < 0.05:
                    w = str(rng.randint(10, 2000))  # digits: the script's NUM token
                words.add(w.lower())
                lines.append("%s %s" % (w, tag))
            lines.append("")
        with open(os.path.join(out, split + ".txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "glove.6B.%dd.txt" % dim), "w") as f:
        for w in sorted(words | set(WORDS[:50])):
            if not w.isdigit():
                f.write(w + " " + " ".join("%.4f" % x for x in rng.randn(dim) * 0.3) + "\n")


def make_pix2pix(out, seed=0):
    from PIL import Image
    rng = np.random.RandomState(seed)
    for split, n in (("train", 6), ("val", 2)):
        d = os.path.join(out, split)
        os.makedirs(d, exist_ok=True)
        for i in range(n):
            target = rng.randint(0, 256, size=(64, 64, 3)).astype(np.uint8)
            edges = (np.abs(np.diff(target.astype(int), axis=1, append=0)).sum(-1) > 200)
            inp = np.repeat((255 * (1 - edges)).astype(np.uint8)[..., None], 3, axis=-1)
            Image.fromarray(np.concatenate([inp, target], axis=1)).save(
                os.path.join(d, "%d.jpg" % i), quality=90)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("--fashion", default="/usr/share/datasets/fashion-mnist")
    a = ap.parse_args()
    data = os.path.abspath(a.data)
    make_tinytext(os.path.join(data, "tinytext"))
    make_mnist_full(a.fashion, os.path.join(data, "mnist_full"))
    os.makedirs(os.path.join(data, "dcgan"), exist_ok=True)
    link = os.path.join(data, "dcgan", "mnist")
    if not os.path.islink(link):
        os.symlink(os.path.join(data, "mnist_full"), link)
    make_bert(os.path.join(data, "bert"))
    make_transformer(os.path.join(data, "transformer"))
    make_alexnet(os.path.join(data, "alexnet"))
    make_seqtag(os.path.join(data, "seqtag"))
    make_pix2pix(os.path.join(data, "pix2pix"))
    for sub in ("bert", "transformer", "charrnn", "seqtag", "pix2pix", "capsnet"):   # rows write here; later rows read it
        os.makedirs(os.path.join(data, "out", sub), exist_ok=True)
    print("wrote", data)


if __name__ == "__main__":
    main()
