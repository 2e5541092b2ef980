"""``tf.keras.preprocessing.text``: ``Tokenizer`` (word index by frequency, sequences,
bag-of-words matrices) and ``text_to_word_sequence``."""
import json
from collections import OrderedDict, defaultdict

import numpy as np

from estimator_npu.compat.missing import module_getattr as _module_getattr

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(input_text, filters=_FILTERS, lower=True, split=" "):
    """The words of ``input_text``: lower-cased, ``filters`` characters turned into
    ``split``, split on ``split``, empty pieces dropped."""
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans({c: split for c in filters}))
    return [w for w in input_text.split(split) if w]


class Tokenizer:
    """Words (or characters) to integer indices, 1 for the most frequent word (the
    ``oov_token``, when given, takes 1); ``num_words`` keeps indices below it when
    converting texts."""

    def __init__(self, num_words=None, filters=_FILTERS, lower=True, split=" ",
                 char_level=False, oov_token=None, analyzer=None, document_count=0, **kwargs):
        if kwargs:
            raise TypeError(f"Unrecognized keyword arguments: {sorted(kwargs)}")
        self.word_counts = OrderedDict()
        self.word_docs = defaultdict(int)
        self.filters, self.split, self.lower = filters, split, lower
        self.num_words, self.document_count = num_words, document_count
        self.char_level, self.oov_token, self.analyzer = char_level, oov_token, analyzer
        self.index_docs = defaultdict(int)
        self.word_index, self.index_word = {}, {}

    def _words(self, text):
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        if self.analyzer is not None:
            return self.analyzer(text)
        return text_to_word_sequence(text, self.filters, self.lower, self.split)

    def fit_on_texts(self, texts):
        """Counts the words of ``texts`` (strings, or lists of tokens) and rebuilds
        ``word_index`` by descending count (first seen first among equal counts)."""
        for text in texts:
            self.document_count += 1
            seq = self._words(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] += 1
        counts = sorted(self.word_counts.items(), key=lambda kv: kv[1], reverse=True)
        vocab = ([] if self.oov_token is None else [self.oov_token]) + [w for w, _ in counts]
        self.word_index = dict(zip(vocab, range(1, len(vocab) + 1)))
        self.index_word = {i: w for w, i in self.word_index.items()}
        for w, c in list(self.word_docs.items()):
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, sequences):
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

    def texts_to_sequences(self, texts):
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts):
        oov = self.word_index.get(self.oov_token)
        for text in texts:
            vect = []
            for w in self._words(text):
                i = self.word_index.get(w)
                if i is not None:
                    if self.num_words and i >= self.num_words:
                        if oov is not None:
                            vect.append(oov)
                    else:
                        vect.append(i)
                elif self.oov_token is not None and oov is not None:
                    vect.append(oov)
            yield vect

    def sequences_to_texts(self, sequences):
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences):
        oov = self.word_index.get(self.oov_token)
        for seq in sequences:
            vect = []
            for i in seq:
                w = self.index_word.get(i)
                if w is not None and not (self.num_words and i >= self.num_words):
                    vect.append(w)
                elif oov is not None:
                    vect.append(self.index_word[oov])
            yield " ".join(vect)

    def texts_to_matrix(self, texts, mode="binary"):
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        """``[len(sequences), num_words]`` float64: per index 1 ("binary"), the count
        ("count"), count / length ("freq") or tf-idf ("tfidf")."""
        num_words = self.num_words
        if not num_words:
            if not self.word_index:
                raise ValueError("Specify a dimension (`num_words` argument), or fit on "
                                 "some text data first.")
            num_words = len(self.word_index) + 1
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        if mode not in ("binary", "count", "freq", "tfidf"):
            raise ValueError(f"Unknown vectorization mode: {mode}")
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            counts = defaultdict(int)
            for j in seq:
                if j < num_words:
                    counts[j] += 1
            for j, c in counts.items():
                if mode == "count":
                    x[i][j] = c
                elif mode == "freq":
                    x[i][j] = c / len(seq)
                elif mode == "binary":
                    x[i][j] = 1
                else:
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    x[i][j] = (1 + np.log(c)) * idf
        return x

    def get_config(self):
        return {"num_words": self.num_words, "filters": self.filters, "lower": self.lower,
                "split": self.split, "char_level": self.char_level,
                "oov_token": self.oov_token, "document_count": self.document_count,
                "word_counts": json.dumps(self.word_counts),
                "word_docs": json.dumps(self.word_docs),
                "index_docs": json.dumps(self.index_docs),
                "index_word": json.dumps(self.index_word),
                "word_index": json.dumps(self.word_index)}

    def to_json(self, **kwargs):
        return json.dumps({"class_name": self.__class__.__name__,
                           "config": self.get_config()}, **kwargs)


def tokenizer_from_json(json_string):
    """The ``Tokenizer`` that ``Tokenizer.to_json()`` wrote."""
    config = dict(json.loads(json_string).get("config"))
    decoded = {k: json.loads(config.pop(k)) for k in
               ("word_counts", "word_docs", "index_docs", "word_index", "index_word")}
    tok = Tokenizer(**config)
    tok.word_counts = OrderedDict(decoded["word_counts"])
    tok.word_docs = defaultdict(int, decoded["word_docs"])
    tok.index_docs = defaultdict(int, {int(k): v for k, v in decoded["index_docs"].items()})
    tok.index_word = {int(k): v for k, v in decoded["index_word"].items()}
    tok.word_index = decoded["word_index"]
    return tok


__getattr__ = _module_getattr("estimator_npu.keras.preprocessing.text")
