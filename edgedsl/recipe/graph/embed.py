"""Text embedders for the candidate retriever: the :class:`Embedder` protocol and the default
:class:`HashedNgramEmbedder`, which needs no model and no download.

An embedder maps texts to L2-normalised vectors of a fixed dimension, so that the inner product
of two vectors is their cosine similarity. Plug in a real model by implementing the protocol
(``name``, ``dim``, ``embed``); the retriever only needs the vectors.

The default embedder hashes features of the text into ``dim`` buckets (the "hashing trick"):

* character n-grams (``2``–``4`` by default) of the lower-cased text with runs of white space
  collapsed to one space, padded with a space at both ends;
* word tokens: every identifier split at camelCase and snake_case boundaries
  (:func:`~edgedsl.recipe.graph.signature.name_words`), so ``corpCode`` and ``corp_code`` share
  ``corp`` and ``code``; Hangul runs are words too.

Each distinct feature ``f`` of a text, seen ``c`` times in it, adds
``s(f) · w(f) · idf(f) · (1 + ln c)`` (sub-linear term frequency) to bucket ``h(f) mod dim``,
where ``h`` is the first 8 bytes of BLAKE2b of the feature's UTF-8 text (the same in every
process and on every platform, unlike Python's salted ``hash``), ``s(f) = ±1`` is the sign
taken from the hash's top bit (so that collisions cancel in expectation), and ``w(f)`` is
``word_weight`` for words and 1 for n-grams. With ``idf=True`` (the default), ``idf(f) =
ln((N + 1) / (df(f) + 1)) + 1`` over the ``N`` texts of the one ``embed`` call (the catalog),
so that what every signature shares (``str``, ``date``, punctuation) weighs little; with
``idf=False`` a text's vector does not depend on the other texts of the call. The vector is
then divided by its L2 norm (a text without features gives the zero vector).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from .signature import name_words

__all__ = ["Embedder", "HashedNgramEmbedder", "l2_normalise", "stable_hash"]


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalised vectors of ``dim`` floats; ``name`` is recorded in G."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector of ``dim`` floats per text, in order, each of L2 norm 1 (or all zeros)."""
        ...


def stable_hash(feature: str) -> int:
    """A 64-bit hash of ``feature`` that is the same in every process (BLAKE2b, 8 bytes)."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def l2_normalise(vec: list[float]) -> list[float]:
    """``vec`` divided by its L2 norm; the zero vector stays zero."""
    norm = math.sqrt(math.fsum(x * x for x in vec))
    if norm == 0.0:
        return [0.0] * len(vec)
    return [x / norm for x in vec]


_IDENT = re.compile(r"\w+")
_WORD_MARK = "\x00"
_TF = [0.0] + [1.0 + math.log(c) for c in range(1, 256)]


def _tf(count: int) -> float:
    return _TF[count] if count < len(_TF) else 1.0 + math.log(count)


class HashedNgramEmbedder:
    """The default, model-free embedder: hashed character n-grams and words (module docstring).

    ``dim`` buckets (a power of two is best); n-gram sizes ``min_n``..``max_n``; words weigh
    ``word_weight`` times an n-gram; ``idf`` weighs features by inverse document frequency over
    the texts of one call.
    """

    def __init__(
        self,
        dim: int = 256,
        *,
        min_n: int = 2,
        max_n: int = 4,
        word_weight: float = 2.0,
        idf: bool = True,
    ) -> None:
        if dim < 1:
            raise ValueError("dim must be at least 1")
        if not 1 <= min_n <= max_n:
            raise ValueError("n-gram sizes must satisfy 1 <= min_n <= max_n")
        self.dim = dim
        self.min_n = min_n
        self.max_n = max_n
        self.word_weight = word_weight
        self.idf = idf
        self.name = f"hashed-ngram-{min_n}-{max_n}{'-idf' if idf else ''}/{dim}"

    def features(self, text: str) -> Counter[str]:
        """The features of ``text`` with their counts (n-grams as themselves, words after a NUL
        mark, so that a word never collides with an n-gram)."""
        return self._features(text, {})

    def _features(self, text: str, words_of: dict[str, list[str]]) -> Counter[str]:
        norm = " " + " ".join(text.lower().split()) + " "
        size = len(norm)
        counts: Counter[str] = Counter(
            [norm[i:i + n] for n in range(self.min_n, self.max_n + 1) for i in range(size - n + 1)]
            if size > 2 else ()
        )
        for ident in _IDENT.findall(text):
            words = words_of.get(ident)
            if words is None:
                parts = name_words(ident)
                if len(parts) > 1:
                    parts.append(ident.lower())
                words = words_of[ident] = [_WORD_MARK + w for w in parts]
            counts.update(words)
        return counts

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text (see the module docstring for the recipe)."""
        words_of: dict[str, list[str]] = {}
        bags = [self._features(text, words_of) for text in texts]
        idf: dict[str, float] = {}
        if self.idf:
            df: Counter[str] = Counter()
            for bag in bags:
                df.update(bag.keys())
            total = len(bags) + 1
            idf = {f: math.log(total / (1 + c)) + 1.0 for f, c in df.items()}
        slots: dict[str, tuple[int, float]] = {}
        dim = self.dim
        out: list[list[float]] = []
        for bag in bags:
            vec = [0.0] * dim
            for feature, count in bag.items():
                slot = slots.get(feature)
                if slot is None:
                    h = stable_hash(feature)
                    weight = -1.0 if h >> 63 else 1.0
                    if feature.startswith(_WORD_MARK):
                        weight *= self.word_weight
                    weight *= idf.get(feature, 1.0)
                    slot = slots[feature] = (h % dim, weight)
                vec[slot[0]] += slot[1] if count == 1 else slot[1] * _tf(count)
            out.append(l2_normalise(vec))
        return out
