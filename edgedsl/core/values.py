"""The tagged JSON form of literal values, shared by the plan and the typed queries it stores.

JSON has no date and no integer beyond 64 bits: a date is written ``{"$date": iso}``, such an
integer ``{"$int": text}``, and an object whose one key is a tag is wrapped in ``{"$dict": …}``.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

__all__ = ["decode_value", "encode_value"]

_INT64 = (-(2**63), 2**63 - 1)


def encode_value(v: object) -> Any:
    """A JSON-ready form of a literal or SQL parameter (dates and big ints tagged)."""
    if isinstance(v, _dt.datetime):
        raise ValueError(f"datetimes are not plan values: {v!r}")
    if isinstance(v, _dt.date):
        return {"$date": v.isoformat()}
    if isinstance(v, bool) or v is None or isinstance(v, str | float):
        return v
    if isinstance(v, int):
        return v if _INT64[0] <= v <= _INT64[1] else {"$int": str(v)}
    if isinstance(v, list | tuple):
        return [encode_value(x) for x in v]
    if isinstance(v, dict):
        body = {str(k): encode_value(x) for k, x in v.items()}
        if len(body) == 1 and next(iter(body)) in ("$date", "$int", "$dict"):
            return {"$dict": body}
        return body
    raise ValueError(f"not a plan value: {type(v).__name__} {v!r}")


def decode_value(v: Any) -> object:
    """Inverse of :func:`encode_value`."""
    if isinstance(v, list):
        return [decode_value(x) for x in v]
    if isinstance(v, dict):
        if len(v) == 1:
            (k, x), = v.items()
            if k == "$date":
                return _dt.date.fromisoformat(x)
            if k == "$int":
                return int(x)
            if k == "$dict":
                return {kk: decode_value(xx) for kk, xx in x.items()}
        return {k: decode_value(x) for k, x in v.items()}
    return v
