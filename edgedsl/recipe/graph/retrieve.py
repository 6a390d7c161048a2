"""Dense retrieval of candidate targets: per source tool, the top ``k_same`` targets of its own
domain and the top ``k_cross`` of other domains, by cosine similarity computed in DuckDB.

Retrieval may be asymmetric: a tool has a vector as a source (the embedding of what it returns)
and one as a target (of what it takes); without target vectors both are the same. The vectors
(L2-normalised, so the inner product is the cosine) go into DuckDB once, as ``FLOAT[dim]``
arrays, bound as one JSON text parameter per set (DuckDB parses JSON faster than it converts a
nested Python list). One query crosses the table with itself,
computes ``array_inner_product`` for every (source, target) pair, and keeps per (source,
same-domain?) group the ``max(k_same, k_cross)`` best targets with ``max_by(target, key, k)``,
a top-k aggregate (much cheaper than a window over millions of pairs). The key is the
similarity rounded to 6 decimals minus ``rank(target name) · 10⁻¹²``: equal similarities are
broken by target name (ascending), so the result does not depend on the order in which threads
meet the pairs. A source is never paired with itself. A second query turns the lists back into
rows with their similarities (rounded to 6 decimals).

Names and domains are bound parameters; only the dimension (an ``int``) and ``k`` (``int``) are
formatted into the SQL text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import orjson

__all__ = ["Neighbour", "top_k"]


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A retrieved target for a source: the cosine similarity, whether both tools are in the same
    domain, and the target's rank (1 = most similar) within its (source, same-domain?) group."""

    source: str
    target: str
    similarity: float
    same_domain: bool
    rank: int


def _check_vectors(vectors: Sequence[Sequence[float]], n: int) -> int:
    if len(vectors) != n:
        raise ValueError(f"{n} tools but {len(vectors)} vectors")
    dim = len(vectors[0]) if vectors else 0
    if any(len(v) != dim for v in vectors):
        raise ValueError("vectors of different dimensions")
    return dim


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
    con: duckdb.DuckDBPyConnection | None = None,
) -> list[Neighbour]:
    """The ``k_same`` most similar targets in each source's domain and the ``k_cross`` most
    similar in other domains (fewer when there are fewer), by the cosine of the source's
    ``vectors`` row and the target's ``target_vectors`` row (``vectors`` when None).

    ``names`` must be distinct; ``sources`` / ``targets`` (one flag per tool, all true by
    default) say which tools may be a source or a target. Rows come sorted by source name,
    same-domain group first, then rank. ``con`` is a DuckDB connection to use (a fresh in-memory
    one by default).
    """
    n = len(names)
    if len(domains) != n:
        raise ValueError(f"{n} tools but {len(domains)} domains")
    if len(set(names)) != n:
        raise ValueError("tool names must be distinct")
    if k_same < 0 or k_cross < 0:
        raise ValueError("k_same and k_cross must not be negative")
    dim = _check_vectors(vectors, n)
    if target_vectors is not None and _check_vectors(target_vectors, n) != dim:
        raise ValueError("source and target vectors of different dimensions")
    symmetric = target_vectors is None
    k = max(k_same, k_cross)
    if n == 0 or k == 0 or dim == 0:
        return []
    is_source = list(sources) if sources is not None else [True] * n
    is_target = list(targets) if targets is not None else [True] * n
    if len(is_source) != n or len(is_target) != n:
        raise ValueError("one source flag and one target flag per tool")
    order = sorted(range(n), key=lambda i: names[i])
    rank_of = [0] * n
    for r, i in enumerate(order):
        rank_of[i] = r
    own = con is None
    db = duckdb.connect(":memory:") if con is None else con
    try:
        db.execute(
            f"CREATE OR REPLACE TEMP TABLE edge_vectors AS SELECT * FROM ("
            f"SELECT unnest(?::INTEGER[]) AS id, unnest(?::VARCHAR[]) AS name, "
            f"unnest(?::VARCHAR[]) AS domain, unnest(?::BOOLEAN[]) AS is_source, "
            f"unnest(?::BOOLEAN[]) AS is_target, unnest(?::JSON::FLOAT[{int(dim)}][]) AS vec, "
            f"unnest(?::JSON::FLOAT[{int(dim)}][]) AS vec_in)",
            [rank_of, list(names), list(domains), is_source, is_target,
             orjson.dumps(list(vectors)).decode(),
             orjson.dumps(list(target_vectors) if target_vectors is not None else []).decode()],
        )
        target_vec = "vec" if symmetric else "vec_in"
        rows = db.execute(
            f"""
            WITH best AS (
                SELECT s.id AS src, s.domain = t.domain AS same,
                       max_by(t.id, round(array_inner_product(s.vec, t.{target_vec})::DOUBLE, 6)
                                    - t.id * 1e-12,
                              {int(k)}) FILTER (WHERE s.id <> t.id) AS ids
                FROM (SELECT * FROM edge_vectors WHERE is_source) AS s
                CROSS JOIN (SELECT * FROM edge_vectors WHERE is_target) AS t
                GROUP BY ALL
            ),
            ranked AS (
                SELECT src, same, unnest(ids) AS dst, generate_subscripts(ids, 1) AS rank
                FROM best
            )
            SELECT a.name, b.name,
                   round(array_inner_product(a.vec, b.{target_vec})::DOUBLE, 6) AS sim,
                   r.same, r.rank
            FROM ranked AS r
            JOIN edge_vectors AS a ON a.id = r.src
            JOIN edge_vectors AS b ON b.id = r.dst
            WHERE r.rank <= CASE WHEN r.same THEN ? ELSE ? END
            ORDER BY a.name, r.same DESC, r.rank
            """,
            [k_same, k_cross],
        ).fetchall()
        db.execute("DROP TABLE IF EXISTS edge_vectors")
    finally:
        if own:
            db.close()
    return [Neighbour(str(s), str(t), float(sim), bool(same), int(rank))
            for s, t, sim, same, rank in rows]
