"""Planted boundary bugs: for every reducer of the registry, a wrong reference that differs from
the real one only at a boundary (``>`` for ``>=``, a tie dropped, a neighbour kept, a list's last
element skipped …) is caught by the :mod:`edgedsl.testing` strategies within Hypothesis' default
budget of 100 examples: the strategies draw pivots from the generated values and their
neighbours and build relations with ties on purpose (issue 20 §5)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from edgedsl.core.types import DATE, INT, STR, FieldType
from edgedsl.reduce.coerce import coerce, coerce_date, coerce_number
from edgedsl.reduce.registry import REDUCERS, rank_k
from edgedsl.testing import check_reducer_chain, reduce_steps, relations

Ref = Callable[[Sequence[Any], object, FieldType], list[int]]


def _present(vals: Sequence[Any]) -> list[tuple[int, Any]]:
    return [(i, v) for i, v in enumerate(vals) if v is not None]


def _first_extreme(pick: Callable[..., Any]) -> Ref:
    """``max`` / ``min`` that keep only the first of the tied rows."""
    def ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
        got = _present(vals)
        if not got:
            return []
        best = pick(v for _, v in got)
        return [next(i for i, v in got if v == best)]
    return ref


def _mode_largest(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
    """``most_frequent`` breaking its ties toward the largest value."""
    counts: dict[Any, int] = {}
    for _, v in _present(vals):
        counts[v] = counts.get(v, 0) + 1
    if not counts:
        return []
    top = max(counts.values())
    best = max(v for v, c in counts.items() if c == top)
    return [i for i, v in _present(vals) if v == best]


def _compare(test: Callable[[Any, Any], bool], read: Callable[[object], Any]) -> Ref:
    def ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
        p = read(pivot)
        return [] if p is None else [i for i, v in _present(vals) if test(v, p)]
    return ref


def _int(pivot: object) -> Any:
    return coerce(INT, pivot)


def _in_but_last(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
    """``in`` that skips the list's last element (a loop bound off by one)."""
    items = list(pivot) if isinstance(pivot, list | tuple) else [pivot]
    members = [m for m in (coerce(ftype, x) for x in items[:-1]) if m is not None]
    return [i for i, v in _present(vals) if v in members]


def _rank_first(top: bool) -> Ref:
    """``top k`` / ``bottom k`` keeping exactly k rows: the ties at the boundary dropped."""
    def ref(vals: Sequence[Any], pivot: object, ftype: FieldType) -> list[int]:
        order = sorted(_present(vals), key=lambda iv: iv[1], reverse=top)
        return sorted(i for i, _ in order[:rank_k(pivot)])
    return ref


def _text(pivot: object) -> Any:
    return coerce(STR, pivot)


#: reducer → (the field type it is tried on, its planted bug)
PLANTED: dict[str, tuple[FieldType, Ref]] = {
    "max": (INT, _first_extreme(max)),
    "min": (INT, _first_extreme(min)),
    "ge": (INT, _compare(lambda v, p: v > p, coerce_number)),
    "le": (INT, _compare(lambda v, p: v < p, coerce_number)),
    "eq": (INT, _compare(lambda v, p: abs(v - p) <= 1, _int)),
    "after": (DATE, _compare(lambda v, p: v >= p, coerce_date)),
    "most_frequent": (INT, _mode_largest),
    "ne": (INT, _compare(lambda v, p: abs(v - p) > 1, _int)),
    "before": (DATE, _compare(lambda v, p: v <= p, coerce_date)),
    "in": (INT, _in_but_last),
    "contains": (STR, _compare(lambda v, p: p in v[1:], _text)),
    "starts_with": (STR, _compare(lambda v, p: v[:max(len(p) - 1, 0)] == p[:-1], _text)),
    "top": (INT, _rank_first(True)),
    "bottom": (INT, _rank_first(False)),
}


def test_every_reducer_has_a_planted_bug() -> None:
    assert set(PLANTED) == set(REDUCERS)


def caught(op: str, seed: int | None = None) -> bool:
    """Whether 100 generated examples (no shrinking) catch the planted bug of ``op``."""
    ftype, bug = PLANTED[op]
    types = {"f": ftype, "g": INT}
    real = REDUCERS[op]
    REDUCERS[op] = dataclasses.replace(real, on_column=bug)

    @settings(max_examples=100, database=None, deadline=None, phases=[Phase.generate],
              derandomize=seed is None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def probe(data: st.DataObject) -> None:
        rows = data.draw(relations(types, max_size=20))
        steps = data.draw(reduce_steps(types, rows, ops=[op], max_steps=1))
        check_reducer_chain(rows, steps, types)

    if seed is not None:
        probe = __import__("hypothesis").seed(seed)(probe)
    try:
        probe()
    except AssertionError:
        return True
    finally:
        REDUCERS[op] = real
    return False


@pytest.mark.parametrize("op", sorted(PLANTED))
def test_a_planted_boundary_bug_is_caught(op: str) -> None:
    assert caught(op), f"the strategies missed the planted bug of `{REDUCERS[op].surface}`"
