"""The default embedder: deterministic across processes, L2-normalised, Korean-aware."""

from __future__ import annotations

import math
import os
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from edgedsl.recipe.graph.embed import Embedder, HashedNgramEmbedder, stable_hash
from edgedsl.recipe.graph.signature import name_words


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_protocol_and_name() -> None:
    e = HashedNgramEmbedder(64)
    assert isinstance(e, Embedder)
    assert e.dim == 64 and "64" in e.name


@given(st.lists(st.text(alphabet=st.sampled_from("abcXYZ_ 0가나다법령ID.,"), max_size=40),
                min_size=1, max_size=6))
def test_vectors_are_unit_or_zero(texts: list[str]) -> None:
    vecs = HashedNgramEmbedder(32).embed(texts)
    assert len(vecs) == len(texts)
    for text, v in zip(texts, vecs, strict=True):
        assert len(v) == 32
        norm = math.sqrt(sum(x * x for x in v))
        if text.strip():
            assert abs(norm - 1.0) < 1e-9
        else:
            assert norm == 0.0


def test_deterministic_within_and_across_processes() -> None:
    texts = ["dart.company 기업개황 corp_code CorpCode", "tago.stops 정류소 cityCode"]
    a = HashedNgramEmbedder(128).embed(texts)
    assert a == HashedNgramEmbedder(128).embed(texts)
    code = ("from edgedsl.recipe.graph.embed import HashedNgramEmbedder;"
            f"print(repr(HashedNgramEmbedder(128).embed({texts!r})))")
    outs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outs.add(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                capture_output=True, text=True).stdout.strip())
    assert outs == {repr(a)}


def test_stable_hash_is_not_pythons_hash() -> None:
    assert stable_hash("corp") == stable_hash("corp")
    assert stable_hash("corp") != stable_hash("code")
    assert 0 <= stable_hash("법령") < 2**64


def test_name_words_split_camel_snake_and_hangul() -> None:
    assert name_words("getRTMSDataSvcAptTrade") == ["get", "rtms", "data", "svc", "apt", "trade"]
    assert name_words("SD_SCHUL_CODE") == ["sd", "schul", "code"]
    assert name_words("법령ID") == ["법령", "id"]
    assert name_words("corpCode") == name_words("corp_code")


def test_korean_text_similarity() -> None:
    e = HashedNgramEmbedder(256, idf=False)
    law1, law2, bus = e.embed(["법령 본문 조문 조회", "법령 본문 조문 검색", "버스 도착 예정 정보"])
    assert _cos(law1, law2) > _cos(law1, bus) + 0.2


def test_camel_and_snake_names_are_close() -> None:
    e = HashedNgramEmbedder(256, idf=False)
    a, b, c = e.embed(["corpCode", "corp_code", "routeNo"])
    assert _cos(a, b) > _cos(a, c)


def test_without_idf_a_vector_does_not_depend_on_the_batch() -> None:
    e = HashedNgramEmbedder(64, idf=False)
    assert e.embed(["dart.company"])[0] == e.embed(["x y z", "dart.company"])[1]


def test_idf_lowers_what_every_text_shares() -> None:
    texts = ["alpha str", "beta str", "gamma str", "alpha delta"]
    plain = HashedNgramEmbedder(512, idf=False).embed(texts)
    weighted = HashedNgramEmbedder(512).embed(texts)
    # "beta str" and "gamma str" share only the common "str": idf makes them less alike
    assert _cos(weighted[1], weighted[2]) < _cos(plain[1], plain[2])
