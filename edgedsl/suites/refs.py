"""Forwarded values found in the gold: a later call's argument that equals a field of an
earlier call's record becomes a reference to that field.

NESTFUL writes its references itself (``$var_1.result$``); τ² and BFCL only list each call's
arguments and what it returned. :func:`forward` finds, for every text argument, the earliest
earlier record with a field of exactly that value (the value's first source) and writes the
argument as that :class:`~.model.FieldRef`; a list argument's texts are found one by one, and
the list holds a reference in place of each (``item_ids: [seq a1.item_2, seq a1.item_4]``). A
suite's records lift the nested values a later call may be given into fields of their own (τ²:
a user's ``order_2``, an order's ``product_1``, a product's ``variant_3``,
:data:`~.tau2_retail.NESTED`), so those are found too. What stays literal and is counted: a
value an earlier output holds only where no field lifts it, and every text inside an object
argument or a list nested in a list (a list's item is a literal or one reference).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .model import FieldRef, GoldCall
from .stateful import ORDER_PARAM, STEP_FIELD

__all__ = ["Forwarded", "forward", "in_gold_order"]


@dataclass
class Forwarded:
    """The calls with their forwarded arguments as references; ``nested``: texts left literal
    (an argument, or an element of a list or object argument) that an earlier output holds;
    ``in_lists``: how many of them are inside a list or object argument."""

    calls: list[GoldCall]
    nested: int = 0
    in_lists: int = 0


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


def _source(i: int, name: str, value: Any, calls: Sequence[GoldCall],
            records: Sequence[dict[str, Any] | None], fields: Sequence[Sequence[str]],
            numbers: bool) -> FieldRef | None:
    """The earliest earlier record field holding ``value``: any field for a non-empty text;
    with ``numbers``, a field of the parameter's own name for an integer."""
    text = isinstance(value, str) and value != ""
    integer = numbers and isinstance(value, int) and not isinstance(value, bool)
    if not (text or integer):
        return None
    for j in range(i):
        rec = records[j]
        if rec is None:
            continue
        for f in fields[j]:
            same = rec.get(f) == value and type(rec.get(f)) is type(value)
            if same and (text or f == name):
                return FieldRef(calls[j].label, f)
    return None


def forward(calls: Sequence[GoldCall], records: Sequence[dict[str, Any] | None],
            fields: Sequence[Sequence[str]], *, numbers: bool = False) -> Forwarded:
    """``calls`` with each text argument that equals field ``f`` (one of ``fields[j]``) of an
    earlier ``records[j]`` (None: the call failed) written as ``FieldRef(label_j, f)``; with
    ``numbers``, also an integer argument equal to an earlier field of the same name (an
    ``order_id`` a trade returned; a number equal to any field would often be chance)."""
    out: list[GoldCall] = []
    nested = in_lists = 0
    earlier: set[str] = set()  # every text the outputs before the call hold
    for i, call in enumerate(calls):
        if i and records[i - 1] is not None:
            earlier.update(_texts(records[i - 1]))
        args: dict[str, Any] = {}
        for name, value in call.args.items():
            listed = isinstance(value, list)  # each item found on its own: a list of references
            parts = value if listed else [value]
            kept = []
            for part in parts:
                ref = _source(i, name, part, calls, records, fields, numbers)
                if ref is None:  # left literal: count the texts an earlier output holds
                    texts = [part] if isinstance(part, str) else list(_texts(part))
                    held = sum(bool(t) and t in earlier for t in texts)
                    nested += held
                    in_lists += held if listed or not isinstance(part, str) else 0
                kept.append(part if ref is None else ref)
            args[name] = kept if listed else kept[0]
        out.append(GoldCall(label=call.label, tool=call.tool, args=args,
                            comments=call.comments))
    return Forwarded(calls=out, nested=nested, in_lists=in_lists)


def in_gold_order(calls: Sequence[GoldCall]) -> list[GoldCall]:
    """The calls of a stateful suite, each after the first taking ``after: seq prev.step``
    (see :mod:`.stateful`)."""
    return [GoldCall(label=c.label, tool=c.tool, comments=c.comments,
                     args={**c.args, ORDER_PARAM: FieldRef(calls[i - 1].label, STEP_FIELD)}
                     if i else c.args)
            for i, c in enumerate(calls)]
