"""Field bindings of a candidate edge: which output field of the source feeds which input
parameter of the target, respecting code types exactly.

Type rule (:func:`port_fit`), for an output field ``f`` and a parameter ``p``:

* ``p`` of a code type accepts only a field of the *same* code type (qualified name, and a list
  of codes only a list of the same codes) — kind ``code``. A field of another code type, or a
  plain ``str`` field, never binds it (code types are nominal: a ``StockCode`` is not a
  ``CorpCode`` even though both are digits).
* ``f`` of a code type feeds a plain parameter only when that parameter is ``str`` and their
  names agree — kind ``code_to_str`` (``corp_code: CorpCode`` → ``corp_code: str``).
* Plain into plain: the same type (kind ``same``), an enum into an enum holding all its
  members (``same``), ``int`` into ``float``/``num`` or ``float``/``num`` into each other, or an
  enum into ``str`` (kind ``widen``); a list only into a list of the same rule. Since a plain
  type alone says little (every tool has ``str`` fields), names must agree as well.

"Names agree" means :func:`name_agreement` ≥ ``min_name`` (0.5): 1 for equal names, 0.9 when
equal ignoring case and ``_``/``-``, 0.8 when their words are equal after expanding common
abbreviations (``nm`` → ``name``, ``cd`` → ``code``, ``dt`` → ``date`` …), else 0.75 times the
weighted Jaccard overlap of their words (generic words such as ``code``, ``name``, ``date``
weigh a half).

Selection (:func:`propose`): every type-compatible (field, param) pair is ranked — required
parameters first, then same-code bindings, then fields always present before optional ones
(``x: T?``), then by name agreement, then by kind (``same`` > ``widen`` > ``code_to_str``),
then by declaration order — and taken greedily so that each
parameter gets at most one field and each field feeds at most one parameter. Required
parameters take any kind; optional parameters take only ``code`` bindings (identifying keys) —
except that when nothing else binds, an optional plain parameter whose name is the field's
(agreement ≥ 0.9) does.
A pair with no binding is not an edge; :class:`BindingPlan` says why (``reason``). The target's
required parameters left unbound get default candidates from the target node (enum members);
those without any are listed as ``missing`` (left for observed values).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from .model import Binding, Port, Scalar, ToolNode
from .signature import name_words

__all__ = [
    "KIND_RANK",
    "REJECT_CODE_MISMATCH",
    "REJECT_NAMES_DISAGREE",
    "REJECT_NO_PARAMS",
    "REJECT_NO_TYPE_MATCH",
    "Binder",
    "BindingPlan",
    "FieldIndex",
    "Kind",
    "name_agreement",
    "port_fit",
    "propose",
]

Kind = Literal["code", "same", "widen", "code_to_str"]
KIND_RANK: dict[str, int] = {"code": 0, "same": 1, "widen": 2, "code_to_str": 3}
"""Order of preference of binding kinds (lower is better)."""

REJECT_NO_PARAMS = "target_takes_no_parameters"
REJECT_CODE_MISMATCH = "code_types_differ"
REJECT_NAMES_DISAGREE = "names_disagree"
REJECT_NO_TYPE_MATCH = "no_type_match"

_ABBREV = {
    "nm": "name", "cd": "code", "dt": "date", "de": "date", "ymd": "date", "num": "number",
    "no": "number", "cnt": "count", "yr": "year", "addr": "address", "adres": "address",
    "srch": "search", "lati": "lat", "latitude": "lat", "long": "lon", "lng": "lon",
    "longitude": "lon",
}
_GENERIC = frozenset({"code", "id", "name", "number", "date", "type", "value", "info", "list",
                      "yn", "count", "se", "div"})
_NON_ALNUM = re.compile(r"[\W_]+")


def _norm(name: str) -> str:
    return _NON_ALNUM.sub("", name.casefold())


@lru_cache(maxsize=1 << 14)
def _tokens(name: str) -> frozenset[str]:
    return frozenset(_ABBREV.get(w, w) for w in name_words(name))


@lru_cache(maxsize=1 << 16)
def name_agreement(a: str, b: str) -> float:
    """How much two field/parameter names agree, in [0, 1] (see the module docstring)."""
    if a == b:
        return 1.0
    if _norm(a) and _norm(a) == _norm(b):
        return 0.9
    ta, tb = _tokens(a), _tokens(b)
    if not ta or not tb:
        return 0.0
    if ta == tb:
        return 0.8
    inter = ta & tb
    if not inter:
        return 0.0
    def weight(tokens: frozenset[str]) -> float:
        return sum(0.5 if t in _GENERIC else 1.0 for t in tokens)
    return round(0.75 * weight(inter) / weight(ta | tb), 6)


def _enum_members(t: str) -> frozenset[str] | None:
    if t.startswith("enum[") and t.endswith("]"):
        return frozenset(m.strip() for m in t[5:-1].split(","))
    return None


_WIDEN = {("int", "float"), ("int", "num"), ("float", "num"), ("num", "float")}


@lru_cache(maxsize=4096)
def _plain_fit(src: str, dst: str) -> Kind | None:
    if src.startswith("[") or dst.startswith("["):
        if src.startswith("[") and dst.startswith("["):
            return _plain_fit(src[1:-1], dst[1:-1])
        return None
    if src == dst:
        return "same"
    src_members, dst_members = _enum_members(src), _enum_members(dst)
    if src_members is not None and dst_members is not None:
        return "same" if src_members <= dst_members else None
    if (src, dst) in _WIDEN or (src_members is not None and dst == "str"):
        return "widen"
    return None


def port_fit(field: Port, param: Port) -> Kind | None:
    """The kind of binding ``field`` → ``param`` allowed by types alone, or None.

    ``code_to_str``, ``same`` and ``widen`` still need names that agree (see :func:`propose`).
    """
    if param.code is not None:
        if field.code == param.code and field.type.startswith("[") == param.type.startswith("["):
            return "code"
        return None
    if field.code is not None:
        return "code_to_str" if param.type == "str" else None
    return _plain_fit(field.type, param.type)


@dataclass(frozen=True)
class BindingPlan:
    """The bindings proposed for ``source → target``, the default candidates for the target's
    unbound required parameters, those without any (``missing``), and, when there is no binding,
    why (``reason``)."""

    bindings: tuple[Binding, ...]
    defaults: Mapping[str, list[Scalar]] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    reason: str | None = None

    @property
    def ok(self) -> bool:
        """True when at least one field binds a parameter (the pair is an edge)."""
        return bool(self.bindings)


@dataclass(frozen=True, slots=True)
class _Pair:
    param: int
    field: int
    kind: Kind
    name: float
    required: bool
    maybe_missing: bool

    def key(self) -> tuple[int, int, bool, float, int, int, int]:
        return (0 if self.required else 1, 0 if self.kind == "code" else 1, self.maybe_missing,
                -self.name, KIND_RANK[self.kind], self.param, self.field)


def _why(pair: _Pair, f: Port, p: Port) -> str:
    if pair.kind == "code":
        what = f"same code type {p.code}"
    elif pair.kind == "code_to_str":
        what = f"code {f.code} into str"
    elif pair.kind == "same":
        what = f"same type {p.type}"
    else:
        what = f"{f.type} into {p.type}"
    return f"{what}; names agree {pair.name:.2f}"


class FieldIndex:
    """The output fields of one source tool grouped by type, so that finding the fields that
    may feed a parameter does not scan every field (build one per source and reuse it)."""

    def __init__(self, node: ToolNode) -> None:
        self.node = node
        self.by_code: dict[tuple[str, bool], list[int]] = {}
        self.coded: list[int] = []
        self.by_type: dict[str, list[int]] = {}
        for i, f in enumerate(node.fields):
            if f.code is not None:
                self.by_code.setdefault((f.code, f.type.startswith("[")), []).append(i)
                self.coded.append(i)
            else:
                self.by_type.setdefault(f.type, []).append(i)

    def feeding(self, param: Port) -> list[tuple[int, Kind]]:
        """``(field index, kind)`` of every field whose type may feed ``param``, in field order
        (names not yet considered)."""
        if param.code is not None:
            return [(i, "code") for i in self.by_code.get((param.code, param.type.startswith(
                "[")), ())]
        out: list[tuple[int, Kind]] = []
        for t, idx in self.by_type.items():
            kind = _plain_fit(t, param.type)
            if kind is not None:
                out.extend((i, kind) for i in idx)
        if param.type == "str":
            out.extend((i, "code_to_str") for i in self.coded)
        out.sort()
        return out

    def clashes(self, param: Port) -> bool:
        """True when ``param`` has a code type and some field has another code type."""
        return param.code is not None and any(code != param.code for code, _ in self.by_code)


def propose(
    source: ToolNode,
    target: ToolNode,
    *,
    min_name: float = 0.5,
    index: FieldIndex | None = None,
) -> BindingPlan:
    """The bindings of ``source → target`` and the target's defaults (module docstring).

    ``index`` is a :class:`FieldIndex` of ``source`` to reuse across targets.
    """
    if index is None or index.node is not source:
        index = FieldIndex(source)
    pairs: list[_Pair] = []
    fallback: list[_Pair] = []
    names_disagree = code_clash = False
    for pi, p in enumerate(target.params):
        code_clash = code_clash or index.clashes(p)
        for fi, kind in index.feeding(p):
            agree = name_agreement(source.fields[fi].name, p.name)
            if kind != "code" and agree < min_name:
                names_disagree = True
                continue
            pair = _Pair(pi, fi, kind, agree, not p.optional, source.fields[fi].optional)
            if pair.required or kind == "code":
                pairs.append(pair)
            elif agree >= 0.9:
                fallback.append(pair)
            else:
                names_disagree = True
    chosen: list[_Pair] = []
    used_params: set[int] = set()
    used_fields: set[int] = set()
    for pool in (pairs, fallback):
        if chosen:
            break
        for pair in sorted(pool, key=_Pair.key):
            if pair.param in used_params or pair.field in used_fields:
                continue
            chosen.append(pair)
            used_params.add(pair.param)
            used_fields.add(pair.field)
    chosen.sort(key=lambda c: c.param)
    bindings = tuple(
        Binding(field=source.fields[c.field].name, param=target.params[c.param].name,
                why=_why(c, source.fields[c.field], target.params[c.param]))
        for c in chosen
    )
    defaults, missing = target.unbound({b.param for b in bindings})
    reason = None
    if not bindings:
        reason = (REJECT_NO_PARAMS if not target.params else REJECT_NAMES_DISAGREE
                  if names_disagree else REJECT_CODE_MISMATCH if code_clash
                  else REJECT_NO_TYPE_MATCH)
    return BindingPlan(bindings, defaults, tuple(missing), reason)


def _port_key(p: Port) -> tuple[str, str, str | None, bool]:
    return (p.name, p.type, p.code, p.optional)


class Binder:
    """:func:`propose` over many pairs, reusing work: one :class:`FieldIndex` per source, and
    one plan per distinct (source fields, target parameters and defaults) — catalogs repeat
    signatures (paged list endpoints sharing their parameters), so many pairs share a plan."""

    def __init__(self, *, min_name: float = 0.5) -> None:
        self.min_name = min_name
        self._indexes: dict[str, tuple[object, FieldIndex]] = {}
        self._targets: dict[str, object] = {}
        self._plans: dict[tuple[object, object], BindingPlan] = {}

    def _source(self, node: ToolNode) -> tuple[object, FieldIndex]:
        got = self._indexes.get(node.name)
        if got is None or got[1].node is not node:
            got = (tuple(_port_key(f) for f in node.fields), FieldIndex(node))
            self._indexes[node.name] = got
        return got

    def _target(self, node: ToolNode) -> object:
        key = self._targets.get(node.name)
        if key is None:
            key = (tuple(_port_key(p) for p in node.params),
                   tuple(sorted((k, tuple(v)) for k, v in node.defaults.items())))
            self._targets[node.name] = key
        return key

    def propose(self, source: ToolNode, target: ToolNode) -> BindingPlan:
        """The plan of ``source → target`` (the same as :func:`propose`)."""
        source_key, index = self._source(source)
        key = (source_key, self._target(target))
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = propose(source, target, min_name=self.min_name,
                                              index=index)
        return plan
