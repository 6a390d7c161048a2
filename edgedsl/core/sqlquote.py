"""The one identifier-quoting helper of the project.

Every identifier (table, view, column, CTE name) that reaches DuckDB SQL goes through
:func:`quote_ident`; *values* never do — they are always bound as ``?`` parameters. A field named
``"; drop table x; --`` is therefore just a strange column name.

DuckDB matches identifiers case-insensitively for ASCII letters only (``"A"`` and ``"a"`` are the
same column, ``"É"`` and ``"é"`` are not); :func:`ident_key` gives the key under which two
names collide.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ident_key", "qualified", "quote_ident", "sql_string_literal"]

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def quote_ident(name: str) -> str:
    """Return ``name`` as a DuckDB double-quoted identifier.

    Embedded double quotes are doubled. Raises ``ValueError`` for a name containing NUL or an
    empty name (DuckDB rejects zero-length delimited identifiers).
    """
    if not isinstance(name, str):
        raise TypeError(f"identifier must be a str, not {type(name).__name__}")
    if "\x00" in name:
        raise ValueError("identifier contains a NUL character")
    if name == "":
        raise ValueError("identifier is empty")
    return '"' + name.replace('"', '""') + '"'


def qualified(parts: str | Iterable[str]) -> str:
    """Quote a possibly qualified name: ``"t"`` or ``("schema", "t")`` → ``"schema"."t"``."""
    if isinstance(parts, str):
        return quote_ident(parts)
    items = list(parts)
    if not items:
        raise ValueError("empty qualified name")
    return ".".join(quote_ident(p) for p in items)


def ident_key(name: str) -> str:
    """The key under which DuckDB considers two identifiers equal (ASCII-case-insensitive)."""
    return name.translate(_ASCII_LOWER)


def sql_string_literal(text: str) -> str:
    """Quote one of *our own* constant strings (regular expressions, type names) as SQL text.

    Never use it for user data: user values are bound parameters. Raises on NUL.
    """
    if "\x00" in text:
        raise ValueError("SQL literal contains a NUL character")
    return "'" + text.replace("'", "''") + "'"
