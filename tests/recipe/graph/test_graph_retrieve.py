"""Retrieval (numpy) against a pure-Python cosine top-k reference."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl.recipe.graph import retrieve
from edgedsl.recipe.graph.retrieve import Neighbour, top_k
from tests.profiles import examples


def _reference(names: list[str], domains: list[str], src_v: list[list[float]],
               dst_v: list[list[float]], k_same: int, k_cross: int,
               sources: list[bool], targets: list[bool]) -> list[tuple[str, str, bool, int]]:
    out = []
    for s in sorted(range(len(names)), key=lambda i: names[i]):
        if not sources[s]:
            continue
        for same, k in ((True, k_same), (False, k_cross)):
            pool = [(-sum(a * b for a, b in zip(src_v[s], dst_v[t], strict=True)), names[t])
                    for t in range(len(names))
                    if t != s and targets[t] and (domains[t] == domains[s]) == same]
            pool.sort()
            out += [(names[s], name, same, r) for r, (_, name) in enumerate(pool[:k], 1)]
    return out


def _key(rows: list[Neighbour]) -> list[tuple[str, str, bool, int]]:
    return [(n.source, n.target, n.same_domain, n.rank) for n in rows if not n.joined]


def _reference_joins(names: list[str], domains: list[str], src_v: list[list[float]],
                     dst_v: list[list[float]], k_cross: int, k_code: int,
                     codes_out: list[frozenset[str]], codes_in: list[frozenset[str]],
                     ) -> list[tuple[str, str, int]]:
    """Per source: among the other-domain targets sharing a code type and not among the
    ``k_cross`` most similar, the ``k_code`` most similar (ties by name)."""
    out = []
    for s in sorted(range(len(names)), key=lambda i: names[i]):
        pool = sorted((-sum(a * b for a, b in zip(src_v[s], dst_v[t], strict=True)), names[t],
                       t) for t in range(len(names)) if domains[t] != domains[s])
        rest = [(name, t) for _, name, t in pool[k_cross:] if codes_out[s] & codes_in[t]]
        out += [(names[s], name, r) for r, (name, _) in enumerate(rest[:k_code], 1)]
    return out


@settings(max_examples=examples(40))
@given(st.integers(2, 14), st.integers(0, 5), st.integers(0, 4), st.integers(0, 10_000),
       st.booleans())
def test_matches_reference_with_ties(n: int, k_same: int, k_cross: int, seed: int,
                                     asymmetric: bool) -> None:
    # small integer components: every inner product is exact in float32, so ties are real
    # and must be broken by target name exactly as the reference does
    rng = random.Random(seed)
    names = [f"t{rng.randrange(1000):03d}_{i}" for i in range(n)]
    domains = [rng.choice("ab") for _ in range(n)]
    vec = [[float(rng.randint(-2, 2)) for _ in range(6)] for _ in range(n)]
    vin = [[float(rng.randint(-2, 2)) for _ in range(6)] for _ in range(n)] if asymmetric else vec
    sources = [rng.random() < 0.8 for _ in range(n)]
    targets = [rng.random() < 0.8 for _ in range(n)]
    got = top_k(names, domains, vec, vin if asymmetric else None, k_same=k_same, k_cross=k_cross,
                sources=sources, targets=targets)
    assert _key(got) == _reference(names, domains, vec, vin, k_same, k_cross, sources, targets)
    for hit in got:
        s, t = names.index(hit.source), names.index(hit.target)
        assert hit.similarity == pytest.approx(sum(a * b for a, b in zip(vec[s], vin[t],
                                                                         strict=True)))


def test_counts_domains_and_no_self_pairs() -> None:
    rng = random.Random(7)
    n = 40
    names = [f"p{i % 4}.tool{i:02d}" for i in range(n)]
    domains = [f"d{i % 4}" for i in range(n)]
    vec = [[rng.gauss(0, 1) for _ in range(16)] for _ in range(n)]
    got = top_k(names, domains, vec, k_same=3, k_cross=5)
    assert all(h.source != h.target for h in got)
    for s, d in zip(names, domains, strict=True):
        mine = [h for h in got if h.source == s]
        same = [h for h in mine if h.same_domain]
        cross = [h for h in mine if not h.same_domain]
        assert len(same) == 3 and len(cross) == 5
        assert all(domains[names.index(h.target)] == d for h in same)
        assert all(domains[names.index(h.target)] != d for h in cross)
        assert [h.rank for h in same] == [1, 2, 3]
        assert [h.similarity for h in same] == sorted((h.similarity for h in same), reverse=True)


def test_fewer_targets_than_k_and_order_independence() -> None:
    names = ["b", "a", "c", "\"; drop table edge_vectors; --"]
    domains = ["x", "x", "y", "y"]
    vec = [[1.0, 0.0], [0.6, 0.8], [0.0, 1.0], [0.8, 0.6]]
    got = top_k(names, domains, vec, k_same=15, k_cross=10)
    assert len(got) == 4 * 3  # every other tool, in one group or the other
    perm = [2, 0, 3, 1]
    again = top_k([names[i] for i in perm], [domains[i] for i in perm], [vec[i] for i in perm])
    assert got == again


def test_rejects_inconsistent_input() -> None:
    with pytest.raises(ValueError):
        top_k(["a", "a"], ["x", "x"], [[1.0], [1.0]])
    with pytest.raises(ValueError):
        top_k(["a", "b"], ["x", "x"], [[1.0], [1.0, 0.0]])
    assert top_k([], [], []) == []


def test_blocks_of_sources_give_the_same_neighbours(monkeypatch: pytest.MonkeyPatch) -> None:
    # the product is computed a block of sources at a time (sources sorted by domain); blocks of
    # a few similarities each must give what one block gives
    rng = random.Random(11)
    n = 60
    names = [f"p{i % 5}.tool{i:02d}" for i in range(n)]
    domains = [f"d{(i * 7) % 5}" for i in range(n)]  # domains interleaved in input order
    vec = [[float(rng.randint(-2, 2)) for _ in range(8)] for _ in range(n)]
    vin = [[float(rng.randint(-2, 2)) for _ in range(8)] for _ in range(n)]
    whole = top_k(names, domains, vec, vin, k_same=4, k_cross=6)
    monkeypatch.setattr(retrieve, "BLOCK_CELLS", 7 * n)
    assert top_k(names, domains, vec, vin, k_same=4, k_cross=6) == whole
    reference = _reference(names, domains, vec, vin, 4, 6, [True] * n, [True] * n)
    assert _key(whole) == reference


@settings(max_examples=examples(40))
@given(st.integers(2, 14), st.integers(0, 4), st.integers(0, 4), st.integers(0, 10_000))
def test_code_joins_match_reference(n: int, k_cross: int, k_code: int, seed: int) -> None:
    # code joins: other-domain targets taking a code type the source's fields carry, beyond the
    # k_cross most similar, up to k_code per source; the similarity picks are left as they were
    rng = random.Random(seed)
    names = [f"t{rng.randrange(1000):03d}_{i}" for i in range(n)]
    domains = [rng.choice("abc") for _ in range(n)]
    vec = [[float(rng.randint(-2, 2)) for _ in range(6)] for _ in range(n)]
    codes_out = [frozenset(rng.sample("xyz", rng.randint(0, 2))) for _ in range(n)]
    codes_in = [frozenset(rng.sample("xyz", rng.randint(0, 2))) for _ in range(n)]
    got = top_k(names, domains, vec, k_same=2, k_cross=k_cross, k_code=k_code,
                codes_out=codes_out, codes_in=codes_in)
    plain = top_k(names, domains, vec, k_same=2, k_cross=k_cross)
    assert [h for h in got if not h.joined] == plain
    joined = [(h.source, h.target, h.rank) for h in got if h.joined]
    assert joined == _reference_joins(names, domains, vec, vec, k_cross, k_code, codes_out,
                                      codes_in)
    assert all(not h.same_domain for h in got if h.joined)


def test_code_joins_need_both_code_lists() -> None:
    with pytest.raises(ValueError, match="codes_out and codes_in"):
        top_k(["a", "b"], ["x", "y"], [[1.0], [1.0]], k_code=3,
              codes_out=[frozenset("c"), frozenset()])
    with pytest.raises(ValueError, match="per tool"):
        top_k(["a", "b"], ["x", "y"], [[1.0], [1.0]], k_code=3,
              codes_out=[frozenset("c")], codes_in=[frozenset("c")])
