"""A fast path for large flat XML documents (a root holding many records of leaf elements, like
DART's ``corpCode.xml``): :func:`flat_table` reads them with one regular expression per record
layout into columns (:class:`FlatTable`), :func:`flat_xml` into the same object ElementTree would
give; anything else is declined (None) and decoded by ElementTree."""

from __future__ import annotations

import operator
import re
from typing import Any

__all__ = [
    "FLAT_XML_MIN",
    "FlatTable",
    "flat_table",
    "flat_xml",
]


#: XML answers at least this long try :func:`flat_xml` before ElementTree.
FLAT_XML_MIN = 32 * 1024


_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"


_XWS = "[ \t\n]*"


_FLAT_HEAD = re.compile(
    r"(?:<\?xml[ \t\n]+version=([\"'])1\.0\1(?:[ \t\n]+encoding=([\"'])(?i:utf-8)\2)?"
    r"(?:[ \t\n]+standalone=([\"'])(?:yes|no)\3)?[ \t\n]*\?>)?"
    rf"{_XWS}<({_NAME})>{_XWS}<({_NAME})>")


_FLAT_LEAF = re.compile(rf"{_XWS}<({_NAME})>[^<]*</\1>")


#: Bytes an XML 1.0 document's text may hold below 0x20 — and "\r", which a parser normalises.
_XML_C0 = bytes(range(0x20, 0x100)) + b"\t\n"


_ENTITY = re.compile("&(?:amp|lt|gt|quot|apos);")


_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'"}


_FLAT_RECORDS: dict[tuple[str, tuple[str, ...]], re.Pattern[str]] = {}


def _unescape(v: str) -> str:
    return _ENTITY.sub(lambda m: _ENTITIES[m.group(0)], v)


class FlatTable:
    """The records of a flat record list (see :func:`flat_xml`) held as the rows its regular
    expression found: one tuple of raw texts per record (one text when records have one leaf).

    Nothing per record is built until asked: :meth:`column` takes one field's values out of
    every row (entities replaced, stripped; cached), :meth:`record` builds one record,
    :meth:`records` every record (cached) — the dicts :func:`flat_xml` returns for the same
    document. ``text`` is the decoded document."""

    __slots__ = ("_amps", "_at", "_cols", "_records", "_rows", "n", "names", "text")

    def __init__(self, names: tuple[str, ...], rows: list[Any], text: str, *,
                 amps: bool) -> None:
        """``rows``: what the record pattern's ``findall`` gave; ``amps``: the text has an
        entity somewhere."""
        self.names = names
        self._at = {n: i for i, n in enumerate(names)}
        self._rows = rows
        self._amps = amps
        self._cols: dict[str, list[Any]] = {}
        self._records: list[dict[str, Any]] | None = None
        self.n = len(rows)
        self.text = text

    def __len__(self) -> int:
        return self.n

    def column(self, name: str) -> list[Any]:
        """Field ``name`` of every record, as the records hold it (None when no record has it)."""
        got = self._cols.get(name)
        if got is None:
            j = self._at.get(name)
            if j is None:
                got = [None] * self.n
            else:
                raw = self._rows if len(self.names) == 1 else \
                    list(map(operator.itemgetter(j), self._rows))
                if self._amps:  # in one pass: "\0" cannot be in XML text, so it separates
                    joined = "\0".join(raw)
                    if "&" in joined:
                        raw = _unescape(joined).split("\0")
                got = list(map(str.strip, raw))
            self._cols[name] = got
        return got

    def record(self, i: int) -> dict[str, Any]:
        """Record ``i``."""
        if self._records is not None:
            return self._records[i]
        row = self._rows[i]
        values = (row,) if len(self.names) == 1 else row
        if self._amps:
            values = tuple(map(_unescape, values))
        return dict(zip(self.names, map(str.strip, values), strict=True))

    def records(self) -> list[dict[str, Any]]:
        """Every record, in order (made once)."""
        if self._records is None:
            names = self.names
            cols = [self.column(n) for n in names]
            self._records = [dict(zip(names, t, strict=True)) for t in zip(*cols, strict=True)]
        return self._records


#: An ``&`` that does not begin one of the five predefined entities.
_BAD_AMP = re.compile(rb"&(?!(?:amp|lt|gt|quot|apos);)")


def flat_table(body: bytes) -> tuple[str, str, FlatTable] | None:
    """``(root, item, table)`` of a *flat record list* document (see :func:`flat_xml`), or None
    when ``body`` is not exactly one."""
    # characters XML forbids, "\r" (normalised by parsers) and "]]>": ElementTree decides
    if body.translate(None, _XML_C0) or (b"]" in body and b"]]>" in body):  # "]" alone: memchr
        return None
    amps = b"&" in body
    if amps and _BAD_AMP.search(body) is not None:
        return None  # a character reference or an undefined entity
    lts = body.count(b"<")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\ufffe" in text or "\uffff" in text:
        return None
    head = _FLAT_HEAD.match(text)
    if head is None:
        return None
    root, item = head.group(4), head.group(5)
    end = len(text)
    while end and text[end - 1] in " \t\n":
        end -= 1
    if root == item or not text.endswith(f"</{root}>", 0, end):
        return None
    names: list[str] = []
    pos = head.end()
    while (leaf := _FLAT_LEAF.match(text, pos)) is not None:
        names.append(leaf.group(1))
        pos = leaf.end()
    if not names or len(set(names)) != len(names) or item in names:
        return None
    key = (item, tuple(names))
    pat = _FLAT_RECORDS.get(key)
    if pat is None:
        # between tags any text but "<" may stand: ElementTree drops the text of an element
        # with children and every tail, and "&" and forbidden characters are checked above
        fields = "".join(rf"[^<]*<{n}>([^<]*)</{n}>" for n in names)
        pat = _FLAT_RECORDS[key] = re.compile(rf"<{item}>{fields}[^<]*</{item}>")
    rows = pat.findall(text)
    n = len(rows)
    tags = (1 if head.group(1) is not None else 0) + 2 + n * (2 + 2 * len(names))
    if n == 0 or lts != tags:
        return None
    return root, item, FlatTable(tuple(names), rows, text, amps=amps)


def flat_xml(body: bytes) -> dict[str, Any] | None:
    """A *flat record list* document decoded without building a tree, or None when ``body`` is
    not exactly one (then ElementTree decides).

    The layout is DART ``corpCode.xml``'s: an optional ``<?xml version="1.0"?>`` declaration
    (UTF-8), a root element holding only repeated record elements, each holding the same leaf
    elements in the same order, without attributes, comments, CDATA, namespaces or character
    references (the five predefined entities are allowed). One regular expression built from
    the first record reads every record (in C); the document is accepted only when the records
    it found account for every ``<`` and every ``&`` of the text, so nothing was skipped. The
    value is what ``{root.tag: xml_to_obj(root)}`` gives for the same document: leaf texts
    stripped, the records a list (one record: an object).
    """
    got = flat_table(body)
    if got is None:
        return None
    root, item, table = got
    records = table.records()
    return {root: {item: records if table.n > 1 else records[0]}}
