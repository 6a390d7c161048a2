"""Dense retrieval of candidate targets: per source tool, the top ``k_same`` targets of its own
domain and the top ``k_cross`` of other domains, by cosine similarity; and, when the tools' code
types are given, up to ``k_code`` more of other domains that share a declared code system with
the source (a *code join*).

Retrieval may be asymmetric: a tool has a vector as a source (the embedding of what it returns)
and one as a target (of what it takes); without target vectors both are the same. The vectors
are L2-normalised, so the inner product is the cosine, and every (source, target) similarity is
one matrix product (numpy, ``float64``), computed for a block of sources at a time so that
memory stays bounded (:data:`BLOCK_CELLS` similarities per block). Similarities are rounded to 6
decimals. Per (source, same-domain?) group, a partition finds the ``k``-th best similarity; the
targets at or above it (all of them, ties included) are sorted by similarity (descending), then
by target name (ascending), and the first ``k`` kept — so equal similarities are broken by
target name and the result does not depend on the order of the input. A source is never paired
with itself.

A code join finds what similarity misses: two platforms that share a code system (a company's
고유번호, a 법인등록번호, a road address) connect whatever their descriptions say — DART's company
outline hands its address to the road-address search of another platform, which no text of
DART's resembles. Among the other-domain targets not already retrieved, those taking a code type
one of the source's fields carries are ranked as above and the first ``k_code`` kept
(:attr:`Neighbour.joined`). ``k_code`` bounds them per source, so a catalog whose platforms all
share a code system (the 2,318-tool benchmark) grows by at most ``k_code`` candidates per source.

(The stage was one DuckDB statement crossing the vectors with ``array_inner_product`` and a
``max_by(…, k)`` top-k: 2.5 s of CPU for 2,318 tools, 1.8 s of it in the 5.3 M inner products
at about 1.3 ns per multiply-add; numpy's matrix product does them in about 0.1 s.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["BLOCK_CELLS", "Neighbour", "top_k"]

BLOCK_CELLS = 1 << 22
"""Similarities computed at once (sources per block × targets): 32 MiB of ``float64``."""


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A retrieved target for a source: the cosine similarity, whether both tools are in the same
    domain, the target's rank (1 = most similar) within its (source, same-domain?, joined?)
    group, and whether it was found by a code join rather than among the most similar."""

    source: str
    target: str
    similarity: float
    same_domain: bool
    rank: int
    joined: bool = False


def _check_vectors(vectors: Sequence[Sequence[float]], n: int) -> int:
    if len(vectors) != n:
        raise ValueError(f"{n} tools but {len(vectors)} vectors")
    dim = len(vectors[0]) if vectors else 0
    if any(len(v) != dim for v in vectors):
        raise ValueError("vectors of different dimensions")
    return dim


def _best(sims: np.ndarray, order: np.ndarray,
          k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of ``sims`` (``-inf``: not a candidate), the ``k`` best columns: (rows, columns,
    rank from 1), rows ascending, then similarity descending, then ``order`` (the target's name
    rank) ascending."""
    width = sims.shape[1]
    take = sims > -np.inf
    if k == 0:
        take[:] = False
    elif k < width:
        kth = np.partition(sims, width - k, axis=1)[:, width - k]
        take &= sims >= kth[:, None]
    rows, cols = np.nonzero(take)
    by = np.lexsort((order[cols], -sims[rows, cols], rows))
    rows, cols = rows[by], cols[by]
    pos = np.arange(rows.size) - np.searchsorted(rows, rows, side="left")
    keep = pos < k
    return rows[keep], cols[keep], pos[keep] + 1


def top_k(
    names: Sequence[str],
    domains: Sequence[str],
    vectors: Sequence[Sequence[float]],
    target_vectors: Sequence[Sequence[float]] | None = None,
    *,
    k_same: int = 15,
    k_cross: int = 10,
    sources: Sequence[bool] | None = None,
    targets: Sequence[bool] | None = None,
    codes_out: Sequence[frozenset[str]] | None = None,
    codes_in: Sequence[frozenset[str]] | None = None,
    k_code: int = 0,
) -> list[Neighbour]:
    """The ``k_same`` most similar targets in each source's domain and the ``k_cross`` most
    similar in other domains (fewer when there are fewer), by the cosine of the source's
    ``vectors`` row and the target's ``target_vectors`` row (``vectors`` when None); and up to
    ``k_code`` code joins per source (see the module doc) when ``codes_out`` (the code types
    each tool's fields carry) and ``codes_in`` (those its parameters take) are given.

    ``names`` must be distinct; ``sources`` / ``targets`` (one flag per tool, all true by
    default) say which tools may be a source or a target. Rows come sorted by source name,
    same-domain group first, then the other domains', then the joins, each by rank.
    """
    n = len(names)
    if len(domains) != n:
        raise ValueError(f"{n} tools but {len(domains)} domains")
    if len(set(names)) != n:
        raise ValueError("tool names must be distinct")
    if min(k_same, k_cross, k_code) < 0:
        raise ValueError("k_same, k_cross and k_code must not be negative")
    if (codes_out is None) != (codes_in is None):
        raise ValueError("code joins need both codes_out and codes_in")
    dim = _check_vectors(vectors, n)
    if target_vectors is not None and _check_vectors(target_vectors, n) != dim:
        raise ValueError("source and target vectors of different dimensions")
    k_join = k_code if codes_out is not None else 0
    if n == 0 or max(k_same, k_cross, k_join) == 0 or dim == 0:
        return []
    is_source = list(sources) if sources is not None else [True] * n
    is_target = list(targets) if targets is not None else [True] * n
    if len(is_source) != n or len(is_target) != n:
        raise ValueError("one source flag and one target flag per tool")
    name_rank = np.empty(n, dtype=np.int64)
    name_rank[sorted(range(n), key=lambda i: names[i])] = np.arange(n)
    _, domain_id = np.unique(np.asarray(domains, dtype=object), return_inverse=True)
    src = np.flatnonzero(np.asarray(is_source, dtype=bool))
    dst = np.flatnonzero(np.asarray(is_target, dtype=bool))
    if src.size == 0 or dst.size == 0:
        return []
    out_v = np.asarray(vectors, dtype=np.float64)[src]
    in_v = np.asarray(target_vectors if target_vectors is not None else vectors,
                      dtype=np.float64)[dst].T.copy()
    src_domain, dst_domain = domain_id[src], domain_id[dst]
    shares = _code_matrices(codes_out, codes_in, n, src, dst) if k_join else None
    by_domain = np.argsort(src_domain, kind="stable")  # a block meets few domains
    parts: list[tuple[np.ndarray, ...]] = []
    step = max(1, BLOCK_CELLS // dst.size)
    for start in range(0, src.size, step):
        block = by_domain[start:start + step]
        sims = np.round(out_v[block] @ in_v, 6)  # one product per block: few BLAS calls
        for domain in np.unique(src_domain[block]):
            mine = np.flatnonzero(src_domain[block] == domain)
            who = src[block[mine]]
            for is_same, k in ((True, k_same), (False, k_cross)):
                cols = np.flatnonzero((dst_domain == domain) == is_same)
                if cols.size == 0 or (k == 0 and (is_same or not k_join)):
                    continue
                group = sims[mine[:, None], cols[None, :]]
                if is_same:  # a source is never its own target
                    group[who[:, None] == dst[cols][None, :]] = -np.inf
                r, c, rank = _best(group, name_rank[dst[cols]], k)
                parts.append((who[r], dst[cols][c], group[r, c], rank,
                              np.full(r.size, 0 if is_same else 1)))
                if is_same or shares is None:
                    continue
                # code joins: targets sharing a code type, not among the k most similar
                out_codes, in_codes = shares
                joins = np.where(out_codes[block[mine]] @ in_codes[:, cols] > 0, group, -np.inf)
                joins[r, c] = -np.inf
                r, c, rank = _best(joins, name_rank[dst[cols]], k_join)
                parts.append((who[r], dst[cols][c], group[r, c], rank, np.full(r.size, 2)))
    if not parts:
        return []
    who, whom, sim, rank, cross = (np.concatenate(col) for col in zip(*parts, strict=True))
    by = np.lexsort((rank, cross, name_rank[who]))
    return [Neighbour(names[s], names[t], v, c == 0, r, c == 2) for s, t, v, r, c in zip(
        who[by].tolist(), whom[by].tolist(), sim[by].tolist(), rank[by].tolist(),
        cross[by].tolist(), strict=True)]


def _code_matrices(codes_out: Sequence[frozenset[str]] | None,
                   codes_in: Sequence[frozenset[str]] | None, n: int, src: np.ndarray,
                   dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One-hot code types: (sources × codes) of the code types each source's fields carry and
    (codes × targets) of those each target takes; their product counts shared code types."""
    assert codes_out is not None and codes_in is not None
    if len(codes_out) != n or len(codes_in) != n:
        raise ValueError("one set of code types out and one in per tool")
    names = sorted(set().union(*codes_out, *codes_in))
    index = {c: i for i, c in enumerate(names)}
    out = np.zeros((n, len(names)), dtype=np.int32)
    inn = np.zeros((len(names), n), dtype=np.int32)
    for i, codes in enumerate(codes_out):
        out[i, [index[c] for c in codes]] = 1
    for i, codes in enumerate(codes_in):
        inn[[index[c] for c in codes], i] = 1
    return out[src], inn[:, dst]
