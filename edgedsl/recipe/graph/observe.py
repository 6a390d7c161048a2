"""Observed values: what real responses returned, as default candidates for parameters.

A :class:`ValuePool` collects the values of output fields seen in responses, keyed so that a
parameter can find values it accepts: by code type (``code:CorpCode`` — any field of that code
type), and by lower-cased field name and scalar kind (``name:basdt:date``); the years of observed
dates feed ``year:int``, where an ``int`` parameter named like a year (``bsns_year``,
``bizYear``, ``AY``) also looks; every observed date also feeds ``date:any``, from which a date
or date-shaped code parameter with nothing else observed takes values
(:meth:`ValuePool.for_param`). A field with a catalog label also feeds ``label:<label>:<kind>``
(the label without spaces), where a plain parameter with the same label looks: a free-text
parameter takes what another tool's records hold under the same name (Seoul bus's station
search ``stSrch`` "정류소명" takes TAGO's ``nodenm`` "정류소명", its route search ``strSrch``
"노선 번호" TAGO's ``routeno`` "노선번호"), so that such a tool can start a path.
Values are typed by the field's declared type (:func:`edgedsl.reduce.coerce.coerce`), dates
kept as ISO strings.

The pool is order-independent: per key it keeps the ``cap`` values with the smallest stable
hash (a bottom-k sample), so concurrent runs that see the same responses in another order leave
the same pool, and refinement stays reproducible from its seed.

:class:`ObservingBackend` wraps any backend and feeds every successful response into a pool.
"""

from __future__ import annotations

import datetime as _dt
import zlib
from collections.abc import Iterable, Mapping
from typing import Any

from ...core.catalog import Catalog, Tool
from ...core.types import CodeType, EnumType, FieldType, ListType, ScalarType
from ...plan.model import ToolSpec
from ...reduce.coerce import coerce
from ...runtime.backends import Backend, Response
from .model import Port, Scalar, ToolNode

__all__ = ["ObservingBackend", "ValuePool", "keys_for_param", "label_key", "value_ok"]

RECORDS_PER_RESPONSE = 50
"""Records of a response looked at, evenly spaced over it (:meth:`Response.spread`): a list in
code order (법정동코드, 학교, 주소) starts with 서울, and its first records alone made every
observed district, school and address a Seoul one — so that an edge into a service that does not
cover Seoul (TAGO) was judged on Seoul inputs only."""

LIVE_YEARS = 10
"""The live window: a year or a date a parameter takes from a value *derived* from observed
dates (``year:int``, ``date:any``, a ``YYYYMM`` code) lies within the last ``LIVE_YEARS``
calendar years of the observed dates (:meth:`ValuePool.live_window`). Services answer for
recent periods (OpenDART's periodic reports from 2015); a founding date (1945) or a birth date
seen in some response is a date, not a period the service reports on."""


def _hash(key: str, value: Scalar) -> int:
    return zlib.crc32(f"{key}\x00{type(value).__name__}\x00{value}".encode())


def _kind(t: FieldType) -> str | None:
    if isinstance(t, ScalarType):
        return t.kind if t.kind != "json" else None
    if isinstance(t, EnumType):
        return "str"
    return None


def label_key(label: str | None, kind: str | None) -> str | None:
    """The pool key of a catalog label and a scalar kind (``label:정류소명:str``): the label
    without its spaces, so that "노선 번호" and "노선번호" meet; None without a label or kind."""
    if not label or not kind:
        return None
    return f"label:{''.join(label.split())}:{kind}"


def keys_for_field(name: str, t: FieldType, label: str | None = None) -> list[str]:
    """The pool keys a field of type ``t`` called ``name`` (labelled ``label``) feeds (a date
    also feeds ``year:int`` with its year, see :func:`keys_for_param`); a code field's label
    key holds its values as text."""
    if isinstance(t, CodeType):
        lk = label_key(label, "str")
        return [f"code:{t.name}", *([lk] if lk else [])]
    kind = _kind(t)
    if not kind:
        return []
    lk = label_key(label, kind)
    return [f"name:{name.lower()}:{kind}", *([lk] if lk else [])]


def _is_year(name: str) -> bool:
    low = name.lower()
    return "year" in low or low.endswith("yy") or low in ("yr", "yyyy", "ay", "sy")


def keys_for_param(port: Port) -> list[str]:
    """The pool keys a parameter may take values from (code types exactly; otherwise the same
    name and scalar kind)."""
    if port.code:
        return [f"code:{port.code}"]
    kind = "str" if port.type.startswith("enum[") else port.type
    keys = [f"name:{port.name.lower()}:{kind}"]
    if kind == "int" and _is_year(port.name):
        keys.append("year:int")  # a year parameter takes the years of observed dates
    lk = label_key(port.label, kind)
    if lk is not None and lk not in keys:
        keys.append(lk)  # what other tools' records hold under the same catalog label
    return keys


def _typed(t: FieldType, raw: object) -> Scalar | None:
    try:
        v = coerce(t, raw)
    except (ValueError, TypeError):
        return None
    if isinstance(v, _dt.date):
        return v.isoformat()
    if isinstance(v, bool | int | float | str) and v != "":
        return v
    return None


def value_ok(port: Port, value: Scalar, codes: Mapping[str, CodeType]) -> bool:
    """True when ``value`` can be written as a literal for ``port`` and passes the checker:
    a code type's pattern, an enum's members, a date that parses, a number for a number."""
    t = port.type
    if port.code:
        ct = codes.get(port.code)
        return isinstance(value, str) and (ct is None or ct.matches(value))
    if t.startswith("enum["):
        return isinstance(value, str) and value in [m.strip() for m in t[5:-1].split(",")]
    if t == "date":
        if not isinstance(value, str):
            return False
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            return False
        return True
    if t == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if t in ("float", "num"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if t == "bool":
        return isinstance(value, bool)
    if t == "str":
        return isinstance(value, str)
    return False


class ValuePool:
    """Observed values per key, at most ``cap`` per key, independent of arrival order."""

    def __init__(self, cap: int = 16) -> None:
        self.cap = cap
        self._values: dict[str, dict[Scalar, int]] = {}

    def add(self, key: str, value: Scalar) -> bool:
        """Offer a value; True when the pool changed."""
        bucket = self._values.setdefault(key, {})
        if value in bucket:
            return False
        h = _hash(key, value)
        if len(bucket) < self.cap:
            bucket[value] = h
            return True
        worst = max(bucket, key=lambda v: (bucket[v], str(v)))
        if (h, str(value)) < (bucket[worst], str(worst)):
            del bucket[worst]
            bucket[value] = h
            return True
        return False

    def observe(self, tool: Tool, records: Iterable[Mapping[str, Any]]) -> int:
        """Feed records of a response of ``tool`` (the first :data:`RECORDS_PER_RESPONSE` of
        those given); the number of values added."""
        added = 0
        fields = [(f.name, f.type, keys_for_field(f.name, f.type, f.label))
                  for f in tool.record.fields if not isinstance(f.type, ListType)]
        for i, rec in enumerate(records):
            if i >= RECORDS_PER_RESPONSE:
                break
            for name, t, keys in fields:
                raw = rec.get(name)
                if raw is None or not keys:
                    continue
                v = _typed(t, raw)
                if v is None:
                    continue
                for k in keys:
                    added += self.add(k, v)
                if isinstance(t, ScalarType) and t.kind == "date" and isinstance(v, str):
                    added += self.add("year:int", int(v[:4]))
                    added += self.add("date:any", v)
        return added

    def live_window(self) -> tuple[int, int] | None:
        """The years ``(lo, hi)`` derived dates must fall in: ``hi`` is the year after the 90th
        percentile of the years of every observed date (so that one far-future date, a
        ``9999-12-31`` end of validity, does not move it), ``lo`` is ``hi - LIVE_YEARS + 1``;
        None when no date was observed."""
        years = sorted(int(v[:4]) for k, b in self._values.items()
                       if k == "date:any" or k.endswith(":date") for v in b
                       if isinstance(v, str) and v[:4].isdigit())
        if not years:
            return None
        hi = years[(len(years) - 1) * 9 // 10] + 1
        return hi - LIVE_YEARS + 1, hi

    def in_window(self, port: Port, value: Scalar) -> bool:
        """True unless ``value`` is a year or date for ``port`` outside :meth:`live_window`
        (a year-like ``int`` parameter; a ``date`` parameter; a code written as a date,
        ``YYYYMMDD`` / ``YYYYMM``)."""
        window = self.live_window()
        if window is None:
            return True
        if port.type == "int" and _is_year(port.name) and isinstance(value, int):
            year = value
        elif port.type == "date" and isinstance(value, str) and value[:4].isdigit():
            year = int(value[:4])
        elif port.code and _dated_code(value):
            year = int(str(value)[:4])
        else:
            return True
        return window[0] <= year <= window[1]

    def values(self, key: str) -> list[Scalar]:
        """The values kept for ``key``, in a canonical order (by hash, then text)."""
        bucket = self._values.get(key, {})
        return sorted(bucket, key=lambda v: (bucket[v], str(v)))

    def for_param(self, port: Port, codes: Mapping[str, CodeType]) -> list[Scalar]:
        """Observed values a parameter accepts (see :func:`keys_for_param`, :func:`value_ok`).

        When none were observed under its keys, two fallbacks derive values from observed
        dates: a ``date`` parameter takes dates seen in any date field, and a code-typed one
        takes observed dates written ``YYYYMMDD``, ``YYYYMM`` or ``YYYY`` where its pattern
        accepts them (a ``DEAL_YMD`` month code, say)."""
        out: list[Scalar] = []
        year = port.type == "int" and _is_year(port.name)
        timed = year or port.type == "date"  # a period the service reports on: live window
        for key in keys_for_param(port):
            out += [v for v in self.values(key) if value_ok(port, v, codes)
                    and (not timed or self.in_window(port, v))]
        if out:
            return out
        if year:  # the years of the observed dates inside the live window
            years = dict.fromkeys(int(v[:4]) for k in sorted(self._values)
                                  if k == "date:any" or k.endswith(":date")
                                  for v in self.values(k) if isinstance(v, str) and v[:4].isdigit())
            return [y for y in years if self.in_window(port, y)]
        dates = [v for v in self.values("date:any") if isinstance(v, str)]
        if port.type == "date":
            return [v for v in dates if value_ok(port, v, codes) and self.in_window(port, v)]
        if port.code:
            derived = dict.fromkeys(f for d in dates for f in (d.replace("-", ""),
                                                               d[:7].replace("-", ""), d[:4]))
            return [v for v in derived if value_ok(port, v, codes) and self.in_window(port, v)]
        return out

    def to_json(self) -> dict[str, list[Scalar]]:
        """The pool as JSON (for checkpoints)."""
        return {k: self.values(k) for k in sorted(self._values)}

    @classmethod
    def from_json(cls, data: Mapping[str, list[Scalar]], cap: int = 16) -> ValuePool:
        """A pool from :meth:`to_json` output."""
        pool = cls(cap)
        for k, vs in data.items():
            for v in vs:
                pool.add(k, v)
        return pool

    def __len__(self) -> int:
        return sum(len(b) for b in self._values.values())


def _dated_code(value: Scalar) -> bool:
    """A code value written as a date (``YYYYMMDD``, ``YYYYMM``) of a plausible year."""
    text = str(value)
    return (isinstance(value, str) and len(text) in (6, 8) and text.isdigit()
            and 1800 <= int(text[:4]) <= 2200 and 1 <= int(text[4:6]) <= 12)


def tool_index(catalog: Catalog) -> dict[str, Tool]:
    """Every tool of ``catalog`` by qualified name."""
    return {t.qualname: t for p in catalog.platforms.values() for t in p.tools.values()}


class ObservingBackend:
    """Wraps a backend; every successful response's records feed ``pool``."""

    def __init__(self, inner: Backend, pool: ValuePool, catalog: Catalog) -> None:
        self.inner = inner
        self.pool = pool
        self.tools = tool_index(catalog)
        self.name = getattr(inner, "name", "backend")
        self.calls = 0

    def unsupported(self, tool: ToolSpec) -> str | None:
        """Whatever the inner backend says."""
        fn = getattr(self.inner, "unsupported", None)
        return fn(tool) if callable(fn) else None

    async def call(self, tool: ToolSpec, args: dict[str, object], *,
                   page: int | None) -> Response:
        """Call the inner backend and observe the records it returns."""
        resp = await self.inner.call(tool, args, page=page)
        self.calls += 1
        decl = self.tools.get(tool.qualname)
        if decl is not None:
            self.pool.observe(decl, resp.spread(RECORDS_PER_RESPONSE))
        return resp


def node_defaults(node: ToolNode, pool: ValuePool, codes: Mapping[str, CodeType],
                  limit: int = 8) -> dict[str, list[Scalar]]:
    """Default candidates of a node's required parameters: its catalog defaults (enums) first,
    then observed values, at most ``limit`` each; parameters with none are left out. A year or
    date parameter keeps only values inside the pool's live window
    (:meth:`ValuePool.in_window`): a G* written before the window holds founding years."""
    out: dict[str, list[Scalar]] = {}
    for port in node.params:
        if port.optional:
            continue
        timed = port.type == "date" or (port.type == "int" and _is_year(port.name))
        vals = [v for v in node.defaults.get(port.name, []) if value_ok(port, v, codes)
                and (not timed or pool.in_window(port, v))]
        for v in pool.for_param(port, codes):
            if v not in vals:
                vals.append(v)
        if vals:
            out[port.name] = vals[:limit]
    return out
