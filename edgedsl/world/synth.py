"""Synthetic catalogs of thousands of tools for scale runs, served by the same generic engine.

:func:`synthetic_catalog` returns a :class:`SynthCatalog`: edgedsl catalog source (``platform``
blocks with types, records and tools) and the matching world declarations (``DATASETS`` and
``ENDPOINTS``), so ``World(modules=[cat])`` serves every tool and the catalog type-checks
trajectories over them. Rows are generated per request (deterministic from the world's seed, the
tool and the arguments); nothing is materialised.

**Local chains.** Tools come in chains: ``op0`` of a platform takes nothing, every other tool
takes the platform's own code (``inCode: Code{p}``), and every tool returns it (``outCode``), so
the catalog has real dependency edges to discover inside each platform.

**Shared code systems.** As in the real catalogs (a DART 고유번호 is also the FSC
``fssCorpUnqNo``, a 법인등록번호 is DART's ``jurir_no`` and the FSC ``crno``), a few code
systems of ``stdlib/codes.edge`` (:data:`SYSTEMS`) run across platforms. Each platform speaks
one to three of them, drawn from the catalog's ``seed``, under one of the system's usual field
names; from ``op2`` on, a tool takes a shared code instead of its local one with probability
:data:`SHARED_IN`, and a tool that takes its local code returns a record that also carries a
shared code with probability :data:`SHARED_OUT` — some shared, most local. A tool that takes a
shared code returns records of that code.

**One world of entities.** A shared system has one set of values in a world (its *universe*,
:func:`universe`, from the world's seed), and each platform speaking it holds a part of it
(:func:`holdings`: about :data:`COVER` of the universe, as FSC knows the listed companies among
DART's filers). A platform returns only values it holds and answers a value it does not hold
(another platform's entity, or a well-shaped code of nobody) with no data, so a shared-code
hand-off from platform A to platform B is a real edge exactly for the entities both hold.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from .decl import Dataset, Endpoint, Filter, Paging, Row, RowsFn
from .rand import hash_unit, rng

if TYPE_CHECKING:
    from .engine import World

__all__ = [
    "COVER",
    "SHARED_IN",
    "SHARED_OUT",
    "SYSTEMS",
    "SharedSystem",
    "SynthCatalog",
    "holdings",
    "synthetic_catalog",
    "universe",
]

_DIALECTS = ("data_go_kr", "hub")
_PER_PLATFORM = 100

SHARED_IN = 0.12
"""Probability that a tool from ``op2`` on takes a shared code instead of its platform's own."""

SHARED_OUT = 0.2
"""Probability that a tool taking its local code returns records that carry a shared code."""

COVER = 0.8
"""The part of a shared system's universe that each platform speaking it holds."""


def _digits(n: int) -> Callable[[random.Random], str]:
    return lambda r: f"{r.randrange(10**n):0{n}d}"


def _isin(r: random.Random) -> str:
    return f"KR7{r.randrange(10**6):06d}00{r.randrange(10)}"


_OFFICES = ("B10", "C10", "D10", "E10", "F10", "G10", "H10", "I10", "J10", "K10", "M10", "N10",
            "P10", "Q10", "R10", "S10", "T10")


@dataclass(frozen=True)
class SharedSystem:
    """A code system of ``stdlib/codes.edge`` that synthetic platforms share: its code
    ``type``, the field names platforms give it, its Korean ``label``, how many entities a world
    has (``size``) and how one value is drawn (``make``) — or the fixed values (``values``)."""

    type: str
    names: tuple[str, ...]
    label: str
    size: int = 0
    make: Callable[[random.Random], str] | None = None
    values: tuple[str, ...] = ()


SYSTEMS: tuple[SharedSystem, ...] = (
    SharedSystem("CorpCode", ("corp_code", "fssCorpUnqNo"), "고유번호", 600, _digits(8)),
    SharedSystem("StockCode", ("stock_code", "srtnCd"), "종목코드", 400, _digits(6)),
    SharedSystem("Isin", ("isinCd",), "국제증권식별번호", 400, _isin),
    SharedSystem("Crno", ("crno", "jurir_no"), "법인등록번호", 600, _digits(13)),
    SharedSystem("Bizno", ("bizr_no", "bzno"), "사업자등록번호", 600, _digits(10)),
    SharedSystem("LegalDong", ("admCd", "bjdongCd"), "법정동코드", 500, _digits(10)),
    SharedSystem("LawdCd", ("LAWD_CD", "sigunguCd"), "시군구 코드", 250, _digits(5)),
    SharedSystem("OrgCode", ("orgCd", "org"), "기관코드", 300, _digits(7)),
    SharedSystem("NeisSchool", ("SD_SCHUL_CODE", "schulCode"), "표준학교코드", 500, _digits(7)),
    SharedSystem("NeisOffice", ("ATPT_OFCDC_SC_CODE",), "시도교육청코드", values=_OFFICES),
)
"""The shared code systems a synthetic catalog draws from (all declared in ``codes.edge``)."""


@lru_cache(maxsize=64)
def universe(seed: int, system: str) -> tuple[str, ...]:
    """Every value of shared code ``system`` (its type name) in the world of ``seed``:
    distinct, in a fixed order, the same for every platform."""
    sys_ = next(s for s in SYSTEMS if s.type == system)
    if sys_.values:
        return sys_.values
    assert sys_.make is not None
    r = rng(seed, f"synth-shared-{system}")
    seen: dict[str, None] = {}
    while len(seen) < sys_.size:
        seen.setdefault(sys_.make(r), None)
    return tuple(seen)


@lru_cache(maxsize=1024)
def holdings(seed: int, system: str, platform: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The values of ``system`` that ``platform`` holds in the world of ``seed`` (about
    :data:`COVER` of the universe, at least one): in universe order, and as a set."""
    every = universe(seed, system)
    held = tuple(v for v in every if hash_unit(seed, "synth-hold", system, platform, v) < COVER)
    held = held or every[:1]
    return held, frozenset(held)


@dataclass(frozen=True)
class SynthCatalog:
    """A generated catalog: its edgedsl ``source``, the world declarations serving it, its
    number of ``tools``, the catalog ``seed``, per platform the shared systems it speaks with the
    field name it gives each (``shared``), and per tool (``platform.tool``) the shared systems
    it takes and returns (``tool_codes``, None for local codes only)."""

    source: str
    DATASETS: tuple[Dataset, ...]
    ENDPOINTS: tuple[Endpoint, ...]
    tools: int
    seed: int = 0
    shared: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    tool_codes: Mapping[str, tuple[str | None, str | None]] = field(default_factory=dict)


@dataclass(frozen=True)
class _Shape:
    """One tool's shape: the shared system it takes (None: the local code, or nothing for
    ``op0``) and the shared system its records carry (None: only local codes)."""

    takes: str | None
    returns: str | None


def _rows_fn(platform: str, p: int, i: int, shape: _Shape,
             names: Mapping[str, str]) -> RowsFn:
    in_name = names[shape.takes] if shape.takes else "inCode"
    out_name = names[shape.returns] if shape.returns else ""

    def rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
        key = str(params.get(in_name, "")).strip()
        if shape.takes is not None and key not in holdings(world.seed, shape.takes, platform)[1]:
            return  # an entity this platform does not hold: no data
        key = key or "-"
        held = holdings(world.seed, shape.returns, platform)[0] if shape.returns else ()
        n = 3 + int(hash_unit(world.seed, "synth-n", p, i, key) * 40)
        for j in range(n):
            u = hash_unit(world.seed, "synth", p, i, key, j)
            row: Row = {
                "outCode": f"{int(u * 10**8):08d}",
                "name": f"항목{p}-{i}-{j}",
                "amount": f"{int(u * 10**7):,}",
                "baseDt": f"2024{1 + j % 12:02d}{1 + j % 28:02d}",
                "kind": "ABC"[j % 3],
            }
            if shape.takes is None:
                row["inCode"] = key
            if shape.returns is not None:
                row[out_name] = key if shape.returns == shape.takes else \
                    held[int(hash_unit(world.seed, "synth-pick", p, i, key, j) * len(held))]
            yield row
    return rows


def _spoken(seed: int, platform: str) -> dict[str, str]:
    """The shared systems ``platform`` speaks and the field name it gives each."""
    r = rng(seed, f"synth-systems-{platform}")
    picked = r.sample(SYSTEMS, r.randint(1, 3))
    return {s.type: r.choice(s.names) for s in picked}


def _shapes(seed: int, platform: str, count: int, spoken: Mapping[str, str]) -> list[_Shape]:
    r = rng(seed, f"synth-shapes-{platform}")
    systems = sorted(spoken)
    out = []
    for i in range(count):
        takes = r.choice(systems) if i >= 2 and r.random() < SHARED_IN else None
        returns = takes if takes is not None else \
            (r.choice(systems) if r.random() < SHARED_OUT else None)
        out.append(_Shape(takes, returns))
    return out


def _record(p: int, system: SharedSystem | None, name: str) -> list[str]:
    head = f"  record {system.type}Item {{" if system else "  record Item {"
    lines = ["", head, f"    outCode: Code{p}", f"    inCode: Code{p}?"]
    if system is not None:
        lines.append(f'    {name}: {system.type} "{system.label}"')
    return [*lines, "    name: str", "    amount: int", "    baseDt: date",
            "    kind: enum[A, B, C]", "  }"]


def synthetic_catalog(n_tools: int, *, seed: int = 0, prefix: str = "synth") -> SynthCatalog:
    """A catalog of ``n_tools`` tools over ``ceil(n / 100)`` platforms, its shared code
    systems drawn from ``seed`` (see the module doc)."""
    if n_tools < 1:
        raise ValueError("n_tools must be at least 1")
    by_type = {s.type: s for s in SYSTEMS}
    datasets: list[Dataset] = []
    endpoints: list[Endpoint] = []
    blocks: list[str] = []
    shared: dict[str, dict[str, str]] = {}
    tool_codes: dict[str, tuple[str | None, str | None]] = {}
    n_platforms = (n_tools + _PER_PLATFORM - 1) // _PER_PLATFORM
    made = 0
    for p in range(n_platforms):
        name = f"{prefix}{p}"
        dialect = _DIALECTS[p % 2]
        count = min(_PER_PLATFORM, n_tools - made)
        spoken = shared[name] = _spoken(seed, name)
        shapes = _shapes(seed, name, count, spoken)
        lines = [
            f'platform {name} "합성 플랫폼 {p} (규모 시험용)" {{',
            f'  base "https://apis.synthetic.example/{name}"',
            f"  envelope {dialect}",
            "  secret serviceKey",
            "",
            f'  type Code{p} = code /^[0-9]{{8}}$/ "합성 코드 {p}"',
        ]
        lines += _record(p, None, "")
        for s in sorted({sh.returns for sh in shapes if sh.returns}):
            lines += _record(p, by_type[s], spoken[s])
        at, paged = ("items", "paged (page: pageNo, size: numOfRows <= 100, total: totalCount)") \
            if dialect == "data_go_kr" else \
            ("row", "paged (page: pIndex, size: pSize <= 1000, total: list_total_count)")
        switch = "resultType=json" if dialect == "data_go_kr" else "Type=json"
        for i, shape in enumerate(shapes):
            tool = f"op{i}"
            tool_codes[f"{name}.{tool}"] = (shape.takes, shape.returns)
            param = spoken[shape.takes] if shape.takes else "inCode"
            ptype = shape.takes or f"Code{p}"
            decl = "" if i == 0 else f"\n    {param}: {ptype},\n  "
            record = f"{shape.returns}Item" if shape.returns else "Item"
            lines += [
                "",
                f'  tool {tool} "합성 도구 {p}-{i}" GET "/op{i}?{switch}" ({decl}) -> [{record}] '
                f'at "{at}" {paged}',
            ]
            ds = f"{name}_op{i}"
            datasets.append(Dataset(ds, rows=_rows_fn(name, p, i, shape, spoken)))
            paging = Paging("pageNo", "numOfRows", 10, 100) if dialect == "data_go_kr" else \
                Paging("pIndex", "pSize", 100, 1000, over_max="error")
            endpoints.append(Endpoint(
                platform=name, tool=tool, path=f"/{name}/op{i}", dialect=dialect, dataset=ds,
                service=f"op{i}" if dialect == "hub" else "items",
                filters=(Filter(param),) if i else (), required=(param,) if i else (),
                paging=paging))
        made += count
        lines.append("}")
        blocks.append("\n".join(lines))
    return SynthCatalog("use codes\n\n" + "\n\n".join(blocks) + "\n", tuple(datasets),
                        tuple(endpoints), made, seed, shared, tool_codes)
