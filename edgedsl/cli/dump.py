"""JSON views of the intermediate forms (AST and IR) for the CLI and golden files.

Generic over frozen dataclasses: each node becomes ``{"_node": ClassName, field: value, …}``;
spans become ``"line:col-end_line:end_col"`` strings; dates become ISO strings; semantic types
become their ``type_to_json`` form.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from ..core.source import Span
from ..core.types import CodeType, EnumType, ListType, ScalarType, type_to_json


def to_jsonable(value: Any, *, spans: bool = True) -> Any:
    """Convert an AST/IR value (dataclasses, tuples, dicts, dates, types) to plain JSON data."""
    if isinstance(value, Span):
        return f"{value.line}:{value.col}-{value.end_line}:{value.end_col}"
    if isinstance(value, ScalarType | EnumType | CodeType | ListType):
        return type_to_json(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"_node": type(value).__name__}
        for f in dataclasses.fields(value):
            if f.name == "span" and not spans:
                continue
            v = getattr(value, f.name)
            if (
                f.name in ("comments", "end_comments", "then_end_comments", "else_end_comments")
                and not v
            ):
                continue
            if f.name == "trailing" and v is None:
                continue
            out[f.name] = to_jsonable(v, spans=spans)
        return out
    if isinstance(value, tuple | list):
        return [to_jsonable(v, spans=spans) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v, spans=spans) for k, v in value.items()}
    return value
