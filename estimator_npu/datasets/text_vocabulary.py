"""``tf.contrib.learn.preprocessing``'s text vocabulary (numpy only): ``CategoricalVocabulary``
(token -> id, id 0 for the unknown token) and ``VocabularyProcessor`` (documents -> fixed-length
id arrays), with TF1's semantics:

    vp = VocabularyProcessor(max_document_length=5, min_frequency=0)
    ids = np.array(list(vp.fit_transform(["a b c", "a d"])))   # [[1 2 3 0 0] [1 4 0 0 0]]
    vp.save(path); vp2 = VocabularyProcessor.restore(path)      # pickled, as TF1 does

``fit`` counts tokens (ids in first-seen order), trims tokens seen ``<= min_frequency``
times when ``min_frequency > 0`` (then ids follow descending frequency, ties by token),
and freezes the vocabulary: unseen tokens later map to 0.
"""
import collections
import pickle
import re

import numpy as np

TOKENIZER_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE)


def tokenizer(iterator):
    """Splits each document into words (TF1's default tokenizer)."""
    for value in iterator:
        yield TOKENIZER_RE.findall(value)


class CategoricalVocabulary:
    """Token -> id; id 0 is ``unknown_token``. Grows on ``get`` until frozen."""

    def __init__(self, unknown_token="<UNK>", support_reverse=True):
        self._unknown_token = unknown_token
        self._mapping = {unknown_token: 0}
        self._support_reverse = support_reverse
        if support_reverse:
            self._reverse_mapping = [unknown_token]
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self):
        return len(self._mapping)

    def freeze(self, freeze=True):
        """Stops (or, with ``False``, restarts) growth: unseen tokens then map to 0."""
        self._freeze = freeze

    def get(self, category):
        """The id of ``category``, adding it when not frozen (0 when frozen and unseen)."""
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count=1):
        """Counts ``count`` more occurrences of ``category`` (adding it when new)."""
        if self.get(category) <= 0:
            return
        self._freq[category] += count

    def trim(self, min_frequency, max_frequency=-1):
        """Keeps tokens seen more than ``min_frequency`` (and, when ``max_frequency > 0``,
        fewer than ``max_frequency``) times, renumbered by descending count, then token."""
        ranked = sorted(sorted(self._freq.items(), key=lambda kv: (isinstance(kv[0], str), kv[0])),
                        key=lambda kv: kv[1], reverse=True)
        self._mapping = {self._unknown_token: 0}
        if self._support_reverse:
            self._reverse_mapping = [self._unknown_token]
        kept = []
        for category, count in ranked:
            if 0 < max_frequency <= count:
                continue
            if count <= min_frequency:
                break
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
            kept.append((category, count))
        self._freq = dict(kept)

    def reverse(self, class_id):
        """The token of ``class_id``."""
        if not self._support_reverse:
            raise ValueError("CategoricalVocabulary: this vocabulary was made with "
                             "support_reverse=False")
        return self._reverse_mapping[class_id]


class VocabularyProcessor:
    """Maps documents to ``int64`` id arrays of length ``max_document_length`` (zero-padded,
    truncated)."""

    def __init__(self, max_document_length, min_frequency=0, vocabulary=None,
                 tokenizer_fn=None):
        self.max_document_length = max_document_length
        self.min_frequency = min_frequency
        self.vocabulary_ = vocabulary if vocabulary else CategoricalVocabulary()
        self._tokenizer = tokenizer_fn if tokenizer_fn else tokenizer

    def fit(self, raw_documents, unused_y=None):
        """Builds the vocabulary from an iterable of strings, then freezes it."""
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents, unused_y=None):
        """``fit`` then ``transform`` (a generator of id arrays)."""
        raw_documents = list(raw_documents)
        self.fit(raw_documents)
        return self.transform(raw_documents)

    def transform(self, raw_documents):
        """Yields one ``int64`` array of ``max_document_length`` ids per document."""
        for tokens in self._tokenizer(raw_documents):
            word_ids = np.zeros(self.max_document_length, np.int64)
            for idx, token in enumerate(tokens):
                if idx >= self.max_document_length:
                    break
                word_ids[idx] = self.vocabulary_.get(token)
            yield word_ids

    def reverse(self, documents):
        """Yields the space-joined tokens of each id sequence."""
        for item in documents:
            yield " ".join(self.vocabulary_.reverse(class_id) for class_id in item)

    def save(self, filename):
        """Pickles the processor to ``filename``."""
        with open(filename, "wb") as f:
            f.write(pickle.dumps(self))

    @classmethod
    def restore(cls, filename):
        """The processor pickled at ``filename``."""
        with open(filename, "rb") as f:
            return pickle.loads(f.read())
