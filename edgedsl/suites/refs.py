"""Forwarded values found in the gold: a later call's argument that equals a field of an
earlier call's record becomes a reference to that field.

NESTFUL writes its references itself (``$var_1.result$``); τ² and BFCL only list each call's
arguments and what it returned. :func:`forward` finds, for every text argument, the earliest
earlier record with a field of exactly that value (the value's first source) and writes the
argument as that :class:`~.model.FieldRef`. Values that occur in an earlier output only nested
inside an object or a list (an order's item ids) stay literals — a reference names a field of
a record — and are counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .model import FieldRef, GoldCall

__all__ = ["Forwarded", "forward"]


@dataclass
class Forwarded:
    """The calls with their forwarded arguments as references; ``nested``: text arguments
    left literal that an earlier output holds only nested."""

    calls: list[GoldCall]
    nested: int = 0


def _texts(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)


def forward(calls: Sequence[GoldCall], records: Sequence[dict[str, Any] | None],
            fields: Sequence[Sequence[str]]) -> Forwarded:
    """``calls`` with each text argument that equals field ``f`` (one of ``fields[j]``) of an
    earlier ``records[j]`` (None: the call failed) written as ``FieldRef(label_j, f)``."""
    out, nested = [], 0
    for i, call in enumerate(calls):
        args: dict[str, Any] = {}
        for name, value in call.args.items():
            ref = None
            if isinstance(value, str) and value:
                ref = next((FieldRef(calls[j].label, f) for j in range(i)
                            if records[j] is not None for f in fields[j]
                            if records[j].get(f) == value), None)  # type: ignore[union-attr]
                if ref is None and any(value in _texts(records[j]) for j in range(i)
                                       if records[j] is not None):
                    nested += 1
            args[name] = ref if ref is not None else value
        out.append(GoldCall(label=call.label, tool=call.tool, args=args))
    return Forwarded(calls=out, nested=nested)
