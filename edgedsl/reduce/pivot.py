"""Pivot choice for synthesis: a ``where`` pivot among a relation's observed values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from edgedsl.core.types import FieldType

from .coerce import coerce
from .registry import REDUCERS

__all__ = ["choose_pivot", "choose_pivot_on_columns"]

Rows = Sequence[Mapping[str, Any]]


def _key(v: object) -> object:
    return orjson.dumps(v, option=orjson.OPT_SORT_KEYS) if isinstance(v, list | dict) else v


def choose_pivot(
    rows: Rows,
    op: str,
    field: str,
    handoff: str,
    ftype: FieldType,
    handoff_type: FieldType,
    phi: int = 5,
) -> object | None:
    """Choose a pivot for a ``ge``/``le``/``eq``/``after`` step among the values of ``field``.

    The pivot is a coerced observed value such that the reduced relation keeps between 1 and
    ``phi`` distinct non-null values of ``handoff``. Among those, the pivot keeping the most
    distinct values wins; ties go to the smallest pivot. Returns None ("no pivot") when no
    observed value works. Runs in O(n log n). :func:`choose_pivot_on_columns` does the same
    over columns already coerced.
    """
    return choose_pivot_on_columns(
        [coerce(ftype, r.get(field)) for r in rows],
        [coerce(handoff_type, r.get(handoff)) for r in rows], op, ftype, phi)


def choose_pivot_on_columns(values: Sequence[Any], handoffs: Sequence[Any], op: str,
                            ftype: FieldType, phi: int = 5) -> object | None:
    """:func:`choose_pivot` over ``values`` (the field, coerced) and ``handoffs`` (the hand-off
    field, coerced), row by row."""
    red = REDUCERS.get(op)
    if red is None or not red.needs_pivot:
        raise ValueError(f"reducer {op!r} takes no pivot")
    if not red.accepts(ftype):
        raise ValueError(f"reducer `{red.surface}` does not apply to a {ftype} field")
    buckets: dict[Any, set[object]] = {}
    for v, h in zip(values, handoffs, strict=True):
        if v is None:
            continue
        bucket = buckets.setdefault(v, set())
        if h is not None:
            bucket.add(_key(h))
    scored: list[tuple[int, Any]] = []
    if red.compare == "=":
        scored = [(len(hs), p) for p, hs in buckets.items()]
    else:
        # ge/after: sweep from the largest pivot down; le: from the smallest up.
        order = sorted(buckets, reverse=red.compare != "<=")
        seen: set[object] = set()
        for p in order:
            if red.compare == ">":
                scored.append((len(seen), p))  # rows strictly later than p
                seen |= buckets[p]
            else:
                seen |= buckets[p]
                scored.append((len(seen), p))
    ok = [(k, p) for k, p in scored if 1 <= k <= phi]
    if not ok:
        return None
    return min(ok, key=lambda kp: (-kp[0], kp[1]))[1]
