"""Plan drawings: DOT and Mermaid output is well formed and shows junction kinds and clusters."""

from __future__ import annotations

import datetime as dt
import re

from edgedsl.check import ir
from edgedsl.core.types import DATE
from edgedsl.plan.compile import compile_program
from edgedsl.plan.draw import to_dot, to_mermaid
from edgedsl.reduce.registry import ReduceStep
from tests.plan_fixtures import (
    CORP_CODE,
    FILING_TYPES,
    PRICE_TYPES,
    T_CORP,
    T_FILINGS,
    T_PRICE,
    call,
    drv,
    junc,
    latest_filing,
    lit,
    program,
    shared,
    traj,
)


def _plan():
    d = dt.date(2024, 12, 30)
    rich = traj(
        "rich",
        call("corps", T_CORP, lit("corp_name", "group")),
        call(
            "prices",
            T_PRICE,
            junc("code", "fan", "corps", "corp_code", CORP_CODE, 5),
            lit("day", d, DATE),
        ),
        ir.ParallelIR(
            id="day",
            shared=(junc("c", "seq", "corps", "stock_code"),),
            branches=(
                call("day.a", T_PRICE, shared("code", "c"), lit("day", d, DATE)),
                call("day.b", T_PRICE, shared("code", "c"), lit("day", d, DATE)),
            ),
        ),
        ir.CompareIR(
            id="cmp",
            call=call("cmp", T_PRICE, lit("day", d, DATE)),
            param="code",
            values=("A", "B"),
        ),
        drv("top", "cmp", PRICE_TYPES, ReduceStep("max", "close")),
        ir.IfIR(
            id="if1",
            cond=ir.ExistsP(source="top"),
            then=(call("f", T_FILINGS, junc("corp_code", "seq", "corps", "corp_code", CORP_CODE)),),
            orelse=(drv("f", "prices", PRICE_TYPES, ReduceStep("min", "close")),),
            binds=("f",),
        ),
    )
    assert FILING_TYPES
    return compile_program(program(latest_filing(), rich))


def _parse_dot(text: str) -> tuple[set[str], list[tuple[str, str, str]]]:
    """A minimal DOT reader: balanced braces, node declarations and labelled edges."""
    depth = 0
    for ch in re.sub(r'"(?:[^"\\]|\\.)*"', '""', text):
        depth += ch == "{"
        depth -= ch == "}"
        assert depth >= 0
    assert depth == 0
    q = r'"((?:[^"\\]|\\.)*)"'
    nodes = set(re.findall(rf"^\s*{q} \[label=", text, re.M))
    edges = re.findall(rf"^\s*{q} -> {q} \[label={q}", text, re.M)
    return nodes, edges


def test_dot_is_well_formed() -> None:
    text = to_dot(_plan())
    assert text.startswith("digraph plan {")
    nodes, edges = _parse_dot(text)
    assert edges
    for a, b, _ in edges:
        assert a in nodes and b in nodes, (a, b)
    labels = {(a.split("::")[1], b.split("::")[1], lab) for a, b, lab in edges}
    assert ("corps", "prices", "fan(5) corp_code") in labels
    assert ("corp", "filings", "seq corp_code") in labels
    assert ("filings", "latest", "drv") in labels
    assert ("cmp", "top", "drv") in labels
    assert ("if1", "if1/then/f", "then") in labels
    assert 'cluster_rich::day"' in text and "parallel day" in text
    assert 'compare over code in [\\"A\\", \\"B\\"]' in text


def test_dot_of_one_trajectory() -> None:
    nodes, _ = _parse_dot(to_dot(_plan(), "latest_filing"))
    assert nodes == {"latest_filing::corp", "latest_filing::filings", "latest_filing::latest",
                     "latest_filing::answer"}


def test_mermaid_is_well_formed() -> None:
    text = to_mermaid(_plan())
    lines = text.splitlines()
    assert lines[0] == "flowchart TD"
    opens = sum(1 for ln in lines if ln.strip().startswith("subgraph "))
    ends = sum(1 for ln in lines if ln.strip() == "end")
    assert opens == ends > 0
    declared = set(re.findall(r"^\s*(n\d+)[\[{]", text, re.M))
    used = re.findall(r"^\s*(n\d+) -(?:->|\.->)\|[^|]*\| (n\d+)$", text, re.M)
    assert used and all(a in declared and b in declared for a, b in used)
    assert '|"fan(5) corp_code"|' in text and '"drv"' in text


SURFACE = """
platform p {
  record R {
    code: str
    price: int
    day: date
    name: str
  }

  tool t (q: str) -> [R]
}

trajectory x "q" {
  rows = p.t(q: "x")
  cheap = drv rows | where price >= 55000 | where name == "가" | max day
  if count(cheap) > 1 and not exists(rows) {
    pick = drv cheap | min price
  } else {
    pick = drv rows | where day after 2024-12-27
  }
  answer { n: count(pick), avg: round(avg(pick.price) / (1 + 2), 1), name: pick.name }
}
"""


def test_drawings_write_reducers_conditions_and_the_answer_as_source_does() -> None:
    """Reducers in their surface spelling with their pivots (``>=``, ``==``, never ge/eq),
    the ``if`` condition, both branches and the answer, in both drawings."""
    import edgedsl

    plan = edgedsl.compile(SURFACE)
    for text in (to_dot(plan), to_mermaid(plan)):
        plain = text.replace('\\"', '"').replace("#quot;", '"')
        assert 'drv rows | where price >= 55000 | where name == "가" | max day' in plain
        assert "drv rows | where day after 2024-12-27" in plain
        assert "if count(cheap) > 1 and not exists(rows)" in plain
        assert "avg: round(avg(pick.price) / (1 + 2), 1)" in plain
        assert "n: count(pick)" in plain and "name: pick.name" in plain
        assert " ge " not in plain and " eq " not in plain
        assert "then" in plain and "else" in plain
    nodes, edges = _parse_dot(to_dot(plan))
    assert "x::answer" in nodes
    labels = {(a.split("::")[1], b.split("::")[1], lab) for a, b, lab in edges}
    assert {("rows", "if#1", "reads"), ("cheap", "if#1", "reads"),
            ("if#1", "if#1/then/pick", "then"), ("if#1", "if#1/else/pick", "else"),
            ("if#1/then/pick", "answer", "reads"), ("if#1/else/pick", "answer", "reads")} <= labels
