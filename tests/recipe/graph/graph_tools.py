"""Python tools of ``tg.edge`` and a hand-built graph over them (refinement tests).

``tg.items`` lists six items; ``tg.detail`` answers any code; ``tg.broken`` always fails
structurally (a ValueError), ``tg.flaky`` always environmentally (a ConnectionError),
``tg.empty`` returns nothing, ``tg.latest`` answers only for the latest item (not in
:func:`graph`: a tied hand-off's test); ``tg.by_owner`` needs an owner and a year (a default
from the years of observed dates); ``tg.kinds`` takes an enum.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from edgedsl.check import load_catalog
from edgedsl.recipe.graph.model import Binding, CatalogRef, GraphEdge, Port, ToolGraph, ToolNode

HERE = Path(__file__).resolve().parent

ITEMS = [{"code": f"A{i:03d}", "name": f"항목{i}", "day": f"2024-0{1 + i % 3}-1{i}",
          "size": f"{i * 1000:,}"} for i in range(1, 7)]


def items() -> list[dict[str, Any]]:
    return ITEMS


def detail(code: str) -> list[dict[str, Any]]:
    return [{"code": code, "owner": "kim", "year": 2024}]


def broken(code: str) -> list[dict[str, Any]]:
    raise ValueError(f"no such code {code}")


def flaky(code: str) -> list[dict[str, Any]]:
    raise ConnectionError("service unavailable")


def empty(code: str) -> list[dict[str, Any]]:
    return []


def latest(code: str) -> list[dict[str, Any]]:
    """Answers only for the item of the latest day (A005), not for the tie-break's A001."""
    newest = max(ITEMS, key=lambda r: r["day"])["code"]
    return detail(code) if code == newest else []


def by_owner(owner: str, year: int) -> list[dict[str, Any]]:
    return [r for r in ITEMS if r["day"].startswith(str(year))]


def kinds(kind: str) -> list[dict[str, Any]]:
    return ITEMS[:2] if kind == "A" else ITEMS[2:]


TOOLS = {f"tg.{f.__name__}": f for f in (items, detail, broken, flaky, empty, latest, by_owner,
                                              kinds)}

CATALOG = CatalogRef(modules=["tg"], search_paths=[str(HERE)])


def catalog() -> Any:
    """The catalog of tg.edge."""
    return load_catalog(["tg"], [HERE])


def _node(name: str, params: list[Port], fields: list[Port], **kw: Any) -> ToolNode:
    return ToolNode(name=name, domain="tg", params=params, fields=fields, **kw)


CODE = Port(name="code", type="tg.Code", code="tg.Code")
ITEM_FIELDS = [CODE, Port(name="name", type="str"), Port(name="day", type="date"),
               Port(name="size", type="int")]
DETAIL_FIELDS = [CODE, Port(name="owner", type="str"), Port(name="year", type="int")]


def graph(score: float = 0.6) -> ToolGraph:
    """G over tg: items feeds every code-taking tool; detail feeds by_owner (owner bound, year
    from defaults); by_owner feeds detail; kinds feeds detail."""
    nodes = [
        _node("tg.items", [], ITEM_FIELDS),
        *(_node(f"tg.{t}", [CODE], DETAIL_FIELDS)
          for t in ("detail", "broken", "flaky", "empty")),
        _node("tg.by_owner", [Port(name="owner", type="str"), Port(name="year", type="int")],
              ITEM_FIELDS),
        _node("tg.kinds", [Port(name="kind", type="enum[A, B]")], ITEM_FIELDS,
              defaults={"kind": ["A", "B"]}),
    ]
    code = [Binding(field="code", param="code")]
    edges = [GraphEdge(source="tg.items", target=f"tg.{t}", bindings=code, score=score)
             for t in ("detail", "broken", "flaky", "empty")]
    edges += [
        GraphEdge(source="tg.detail", target="tg.by_owner",
                  bindings=[Binding(field="owner", param="owner")], score=score),
        GraphEdge(source="tg.by_owner", target="tg.detail", bindings=code, score=score),
        GraphEdge(source="tg.kinds", target="tg.detail", bindings=code, score=score),
    ]
    return ToolGraph(catalog=CATALOG, tools=nodes, edges=edges)



def interrupting(after: int) -> Any:
    """An async ``tg.detail`` that sends the process SIGINT on its ``after``-th call (a user's
    Ctrl-C in the middle of an iteration, landing in the tool's own code)."""
    calls = [0]

    async def detail_or_interrupt(code: str) -> list[dict[str, Any]]:
        calls[0] += 1
        if calls[0] == after:
            signal.raise_signal(signal.SIGINT)
        return detail(code)

    return detail_or_interrupt
