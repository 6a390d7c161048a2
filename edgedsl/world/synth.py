"""Synthetic catalogs of thousands of tools for scale runs, served by the same generic engine.

:func:`synthetic_catalog` returns a :class:`SynthCatalog`: edgedsl catalog source (``platform``
blocks with types, records and tools) and the matching world declarations (``DATASETS`` and
``ENDPOINTS``), so ``World(modules=[cat])`` serves every tool and the catalog type-checks
trajectories over them. Tools come in chains: tool ``i`` of a platform takes a code that tool
``i - 1`` returns, so the catalog has real dependency edges to discover. Rows are generated per
request (deterministic from the seed, the tool and the arguments); nothing is materialised.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .decl import Dataset, Endpoint, Filter, Paging, Row, RowsFn
from .rand import hash_unit

if TYPE_CHECKING:
    from .engine import World

__all__ = ["SynthCatalog", "synthetic_catalog"]

_DIALECTS = ("data_go_kr", "hub")
_PER_PLATFORM = 100


@dataclass(frozen=True)
class SynthCatalog:
    """A generated catalog: its edgedsl ``source`` and the world declarations serving it."""

    source: str
    DATASETS: tuple[Dataset, ...]
    ENDPOINTS: tuple[Endpoint, ...]
    tools: int


def _rows_fn(p: int, i: int) -> RowsFn:
    def rows(world: World, params: Mapping[str, str]) -> Iterable[Row]:
        key = params.get("inCode", "") or "-"
        n = 3 + int(hash_unit(world.seed, "synth-n", p, i, key) * 40)
        for j in range(n):
            u = hash_unit(world.seed, "synth", p, i, key, j)
            yield {
                "outCode": f"{int(u * 10**8):08d}",
                "inCode": key,
                "name": f"항목{p}-{i}-{j}",
                "amount": f"{int(u * 10**7):,}",
                "baseDt": f"2024{1 + j % 12:02d}{1 + j % 28:02d}",
                "kind": "ABC"[j % 3],
            }
    return rows


def synthetic_catalog(n_tools: int, *, prefix: str = "synth") -> SynthCatalog:
    """A catalog of ``n_tools`` tools over ``ceil(n / 100)`` platforms (see the module doc)."""
    if n_tools < 1:
        raise ValueError("n_tools must be at least 1")
    datasets: list[Dataset] = []
    endpoints: list[Endpoint] = []
    blocks: list[str] = []
    n_platforms = (n_tools + _PER_PLATFORM - 1) // _PER_PLATFORM
    made = 0
    for p in range(n_platforms):
        name = f"{prefix}{p}"
        dialect = _DIALECTS[p % 2]
        count = min(_PER_PLATFORM, n_tools - made)
        lines = [
            f'platform {name} "합성 플랫폼 {p} (규모 시험용)" {{',
            f'  base "https://apis.synthetic.example/{name}"',
            f"  envelope {dialect}",
            "  secret serviceKey",
            "",
            f'  type Code{p} = code /^[0-9]{{8}}$/ "합성 코드 {p}"',
            "",
            "  record Item {",
            f"    outCode: Code{p}",
            f"    inCode: Code{p}?",
            "    name: str",
            "    amount: int",
            "    baseDt: date",
            "    kind: enum[A, B, C]",
            "  }",
        ]
        at, paged = ("items", "paged (page: pageNo, size: numOfRows <= 100, total: totalCount)") \
            if dialect == "data_go_kr" else \
            ("row", "paged (page: pIndex, size: pSize <= 1000, total: list_total_count)")
        switch = "resultType=json" if dialect == "data_go_kr" else "Type=json"
        for i in range(count):
            tool = f"op{i}"
            param = "" if i == 0 else f"\n    inCode: Code{p},\n  "
            lines += [
                "",
                f'  tool {tool} "합성 도구 {p}-{i}" GET "/op{i}?{switch}" ({param}) -> [Item] '
                f'at "{at}" {paged}',
            ]
            ds = f"{name}_op{i}"
            datasets.append(Dataset(ds, rows=_rows_fn(p, i)))
            paging = Paging("pageNo", "numOfRows", 10, 100) if dialect == "data_go_kr" else \
                Paging("pIndex", "pSize", 100, 1000, over_max="error")
            endpoints.append(Endpoint(
                platform=name, tool=tool, path=f"/{name}/op{i}", dialect=dialect, dataset=ds,
                service=f"op{i}" if dialect == "hub" else "items",
                filters=(Filter("inCode"),) if i else (), required=("inCode",) if i else (),
                paging=paging))
        made += count
        lines.append("}")
        blocks.append("\n".join(lines))
    return SynthCatalog("\n\n".join(blocks) + "\n", tuple(datasets), tuple(endpoints), made)
