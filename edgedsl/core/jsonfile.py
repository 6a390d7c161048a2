"""Versioned JSON files (plans, tool graphs, checkpoints): reading, schema-error summaries and
atomic writes, shared so that every file edgedsl writes fails the same clear way."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError
from pydantic_core import ErrorDetails

__all__ = ["read_json_object", "schema_problems", "write_atomic"]


def read_json_object(data: bytes | str | Path, what: str,
                     error: Callable[[str], Exception]) -> dict[str, Any]:
    """The JSON object in ``data``: bytes, JSON text, or a file path (a ``Path``, or a ``str``
    not starting with ``{``). A file that cannot be read, corrupt JSON or anything but an object
    raises ``error(message)``, the message naming ``what`` (``"plan"``, ``"graph file"``) and,
    for a file, its path."""
    named = what
    if isinstance(data, Path) or (isinstance(data, str) and not data.lstrip().startswith("{")):
        named = f"{what} {str(data)!r}"
        try:
            data = Path(data).read_bytes()
        except OSError as exc:
            raise error(f"cannot read {what} file {str(data)!r}: "
                        f"{exc.strerror or exc}") from None
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise error(f"{named} is not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise error(f"{named} must be a JSON object, not {type(raw).__name__}")
    return raw


def schema_problems(exc: ValidationError, limit: int = 3) -> str:
    """The first ``limit`` problems of a validation error, ``loc: message``, and how many more.

    A dataclass (the plan's models) and a pydantic model fail the same way: the two problems
    pydantic words differently for a dataclass read as they do for a model."""
    errs = exc.errors()
    parts = [f"{'.'.join(str(p) for p in e['loc'])}: {_message(e)}" for e in errs[:limit]]
    more = f" (and {len(errs) - limit} more)" if len(errs) > limit else ""
    return "; ".join(parts) + more


def write_atomic(path: Path, blob: bytes) -> None:
    """Write ``blob`` to ``path`` through a temporary file renamed over it: a reader sees the
    old file or the new one, never half of one. Each write has a temporary file of its own, so
    processes writing the same path at once each leave a whole file (the last rename wins)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(blob)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _message(err: ErrorDetails) -> str:
    """An error's message, worded as for a pydantic model."""
    if err["type"] == "unexpected_keyword_argument":
        return "Extra inputs are not permitted"
    if err["type"] == "dataclass_type":
        name = err.get("ctx", {}).get("class_name", "")
        return f"Input should be a valid dictionary or instance of {name}"
    return err["msg"]
