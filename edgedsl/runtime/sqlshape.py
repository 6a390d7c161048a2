"""The shape of a small inline statement: single-use CTEs made subqueries, a bare projection
merged into the query it reads.

A reduction read inline (see :mod:`edgedsl.runtime.duck`) is the plan's chained CTEs behind a
leading CTE of unnested lists, and it runs on the scratch connection, whose optimizer is off: DuckDB
plans exactly the statement it is given, and each CTE and each ``SELECT`` layer costs it binding
and planning time that a few dozen rows never repay. Measured with ``benchmarks/bench_drv.py``
on the 27-record step (``eq | ge | max``): the written chain runs in ~0.85 ms; with its CTEs
made subqueries and the last one's ``SELECT *`` merged into the ``SELECT "__row"`` that reads
it, ~0.68 ms — the same rows, one statement.

:func:`flatten` rewrites a statement text in two ways, each only where it cannot change the
result:

* a CTE (not ``MATERIALIZED``, no ``WITH RECURSIVE``) read exactly once, as a table after
  ``FROM`` or ``JOIN`` and without an alias of its own, becomes ``(body) AS name`` at that
  place — what the optimizer's CTE inlining would do — when no ``?`` stands between the two
  (parameters are bound in text order, so moving the body must not move its ``?`` past another);
* a main query ``SELECT c1, c2 FROM (SELECT * FROM … ) AS name`` whose columns are plain quoted
  names becomes ``SELECT c1, c2 FROM …`` when the inner query has no grouping, ``DISTINCT`` or set
  operation at its top level (a projection commutes with filters, windows, ``QUALIFY``,
  ordering and ``LIMIT``).

It reads the text as tokens — quoted identifiers and strings are single tokens, so a hostile
field name (quotes, parentheses, ``FROM``, newlines) is never mistaken for structure — and
returns the text unchanged for anything it does not recognise (comments, dollar quotes, nested
``WITH``, a CTE with a column list). Results are memoised by text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edgedsl.core.sqlquote import ident_key

__all__ = ["flatten"]

_TOKEN = re.compile(
    r"""(?P<ws>\s+)
      | (?P<ident>"(?:[^"]|"")*")
      | (?P<string>'(?:[^']|'')*')
      | (?P<word>[^\W\d]\w*)
      | (?P<punct>.)""",
    re.VERBOSE | re.DOTALL,
)
#: What may follow a table reference that is not an alias of it.
_AFTER_TABLE = frozenset({
    "WHERE", "QUALIFY", "GROUP", "HAVING", "WINDOW", "ORDER", "LIMIT", "OFFSET", "JOIN",
    "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "POSITIONAL", "ASOF", "ANTI",
    "SEMI", "ON", "USING", "UNION", "INTERSECT", "EXCEPT",
})
#: Top-level words of an inner query under which a projection does not commute.
_NO_MERGE = frozenset({
    "GROUP", "HAVING", "DISTINCT", "UNION", "INTERSECT", "EXCEPT", "WINDOW", "WITH", "SELECT",
    "PIVOT", "UNPIVOT", "EXCLUDE", "REPLACE", "RENAME", "COLUMNS", "USING", "SAMPLE",
})
_CACHE: dict[str, str] = {}
_CACHE_SIZE = 1024


@dataclass(frozen=True, slots=True)
class _Tok:
    """One token: its kind (``ident``, ``string``, ``word``, ``punct``), text and offset."""

    kind: str
    text: str
    start: int

    @property
    def end(self) -> int:
        """Offset just past the token."""
        return self.start + len(self.text)

    def word(self) -> str | None:
        """The upper-cased text of a bare word, else None."""
        return self.text.upper() if self.kind == "word" else None

    def name(self) -> str | None:
        """The identifier this token names (quoted or bare), as DuckDB compares it."""
        if self.kind == "ident":
            return ident_key(self.text[1:-1].replace('""', '"'))
        if self.kind == "word":
            return ident_key(self.text)
        return None


@dataclass(slots=True)
class _Cte:
    """One CTE: its name as written, its modifier (``""``, ``"NOT MATERIALIZED "``) and body."""

    name: _Tok
    modifier: str
    body: str


def _tokens(text: str) -> list[_Tok] | None:
    """The significant tokens of ``text``; None for a comment, a dollar quote or an unclosed
    quote (a text this module does not rewrite)."""
    out: list[_Tok] = []
    prev = ""
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        assert kind is not None
        if kind == "ws":
            prev = ""
            continue
        tok = m.group()
        if kind == "punct" and (tok in "\"'$" or prev + tok in ("--", "/*")):
            return None  # an unclosed quote, a dollar quote or parameter, a comment
        out.append(_Tok(kind, tok, m.start()))
        prev = tok if kind == "punct" else ""
    return out


def _close(toks: list[_Tok], i: int) -> int | None:
    """The index of the ``)`` matching the ``(`` at ``toks[i]``."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j].text
        if toks[j].kind == "punct":
            if t == "(":
                depth += 1
            elif t == ")":
                depth -= 1
                if depth == 0:
                    return j
    return None


def _split(text: str) -> tuple[list[_Cte], str] | None:
    """``WITH`` CTEs and the main query of ``text``; None when it is not a plain ``WITH`` (or
    when anything in it is not understood)."""
    toks = _tokens(text)
    if not toks or toks[0].word() != "WITH":
        return None
    ctes: list[_Cte] = []
    i = 1
    while True:
        if i + 2 >= len(toks) or toks[i].name() is None or toks[i + 1].word() != "AS":
            return None  # WITH RECURSIVE, a column list, …
        name = toks[i]
        i += 2
        modifier = ""
        if toks[i].word() == "NOT" and i + 1 < len(toks) and toks[i + 1].word() == "MATERIALIZED":
            modifier, i = "NOT MATERIALIZED ", i + 2
        elif toks[i].word() == "MATERIALIZED":
            modifier, i = "MATERIALIZED ", i + 1
        if i >= len(toks) or toks[i].text != "(":
            return None
        j = _close(toks, i)
        if j is None or j + 1 >= len(toks):
            return None
        ctes.append(_Cte(name, modifier, text[toks[i].end:toks[j].start]))
        if toks[j + 1].text == ",":
            i = j + 2
            continue
        return ctes, text[toks[j + 1].start:]


def _render(ctes: list[_Cte], main: str) -> str:
    if not ctes:
        return main
    named = ",\n     ".join(f"{c.name.text} AS {c.modifier}({c.body})" for c in ctes)
    return f"WITH {named}\n{main}"


def _inline_one(ctes: list[_Cte], main: str) -> tuple[list[_Cte], str] | None:
    """Inline the first CTE read exactly once as a bare table; None when there is none."""
    readers = [*(c.body for c in ctes), main]
    toks = [_tokens(r) for r in readers]
    if any(t is None or any(x.word() == "WITH" for x in t) for t in toks):
        return None
    for i, cte in enumerate(ctes):
        if cte.modifier == "MATERIALIZED ":
            continue
        key = cte.name.name()
        refs = [(j, k) for j in range(i + 1, len(readers))
                for k, t in enumerate(toks[j] or ()) if t.name() == key]
        if len(refs) != 1:
            continue
        j, k = refs[0]
        tj = toks[j]
        assert tj is not None
        before = tj[k - 1].word() if k else None
        after = tj[k + 1] if k + 1 < len(tj) else None
        if before not in ("FROM", "JOIN"):
            continue
        if after is not None and not (after.text in (")", ",") or after.word() in _AFTER_TABLE):
            continue  # an alias, a qualifier's dot, a function call, …
        if any(t.text == "?" for r in toks[i + 1:j] for t in r or ()) or any(
                t.text == "?" for t in tj[:k]):
            continue  # a parameter between the CTE and its reader: `?` are bound in text order
        ref = tj[k]
        text = readers[j]
        readers[j] = f"{text[:ref.start]}({cte.body}) AS {cte.name.text}{text[ref.end:]}"
        rest = [_Cte(c.name, c.modifier, readers[n]) for n, c in enumerate(ctes)]
        del rest[i]
        return rest, readers[-1]
    return None


def _merge_projection(main: str) -> str:
    """``SELECT "a", "b" FROM (SELECT * FROM …) AS x`` → ``SELECT "a", "b" FROM …``."""
    toks = _tokens(main)
    if not toks or toks[0].word() != "SELECT":
        return main
    i, last = 1, 0  # the columns: plain quoted names, comma-separated
    while i < len(toks) and toks[i].kind == "ident":
        if i + 1 < len(toks) and toks[i + 1].text == ",":
            i += 2
            continue
        last, i = i, i + 1
        break
    if not last or i + 4 >= len(toks) or toks[i].word() != "FROM" or toks[i + 1].text != "(":
        return main
    close = _close(toks, i + 1)
    inner = toks[i + 2:close]
    if close is None or close + 3 != len(toks) or toks[close + 1].word() != "AS":
        return main
    if toks[close + 2].name() is None or len(inner) < 3:
        return main
    if inner[0].word() != "SELECT" or inner[1].text != "*" or inner[2].word() != "FROM":
        return main
    depth = 0
    for t in inner[1:]:
        if t.text == "(":
            depth += 1
        elif t.text == ")":
            depth -= 1
        elif depth == 0 and t.word() in _NO_MERGE:
            return main
    columns = main[toks[1].start:toks[last].end]
    return f"SELECT {columns} {main[inner[2].start:toks[close].start].rstrip()}"


def flatten(sql: str) -> str:
    """``sql`` with its single-use CTEs inlined and a bare outer projection merged (see the
    module docstring); the same text when nothing applies. Memoised by text."""
    got = _CACHE.get(sql)
    if got is not None:
        return got
    out = sql
    split = _split(sql)
    if split is not None:
        ctes, main = split
        step = _inline_one(ctes, main)
        while step is not None:
            ctes, main = step
            step = _inline_one(ctes, main)
        out = _render(ctes, _merge_projection(main))
    elif (toks := _tokens(sql)) is not None and not any(t.word() == "WITH" for t in toks):
        out = _merge_projection(sql)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[sql] = out
    return out
