"""Gold cases become ASTs and formatted text (edgedsl.suites.emit), and a case that cannot be
written is skipped with its reason instead of failing the whole import (outcome.program_files);
forwarded values are found in the gold (refs.forward)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from edgedsl.suites.emit import formatted, literal, program
from edgedsl.suites.model import FieldRef, GoldCall, GoldCase, SuiteError
from edgedsl.suites.outcome import program_files
from edgedsl.suites.refs import forward, in_gold_order
from edgedsl.syntax import nodes as n


def _case(name: str, args: dict) -> GoldCase:
    calls = (GoldCall("a0", "find", {"q": "x"}), GoldCall("a1", "get", args))
    return GoldCase(case_id=name, name=name, query='say "hi"\nnow', calls=calls,
                    answer=FieldRef("a1", "step"))


def test_literals_and_their_refusals() -> None:
    assert literal({"a": [1, 2.5, True, "x"]}) == n.DictLit(entries=(("a", n.ListLit(items=(
        n.NumberLit(value=1), n.NumberLit(value=2.5), n.BoolLit(value=True),
        n.StringLit(value="x")))),))
    for bad in (None, float("nan"), {"a": [None]}, object()):
        with pytest.raises(SuiteError, match="has no literal"):
            literal(bad, "here")


def test_a_program_prints_and_parses_back() -> None:
    case = _case("t1", {"id": FieldRef("a0", "result"), "after": FieldRef("a0", "step")})
    text = formatted(program([case], "plat"))
    assert 'use plat\n\ntrajectory t1 "say \'hi\' now"' in text
    assert "a1 = plat.get(id: seq a0.result, after: seq a0.step)" in text
    assert "answer a1.step" in text


def test_a_case_that_cannot_be_written_is_skipped(tmp_path: Path) -> None:
    good, bad = _case("good", {"id": "1"}), _case("bad", {"ids": ["1", None]})
    (tmp_path / "bad.edge").write_text("stale")
    files, written, skipped = program_files(
        [good, bad], tmp_path, lambda c: formatted(program([c], "plat")))
    assert list(files) == [tmp_path / "good.edge"] and written == [good]
    assert skipped[0][0] == "bad" and "has no literal" in skipped[0][1]
    assert not (tmp_path / "bad.edge").exists()


def test_forward_prefers_the_first_source_and_counts_nested_values() -> None:
    calls = [GoldCall("a", "t", {}), GoldCall("b", "t", {}),
             GoldCall("c", "t", {"user": "u1", "item": "i9", "n": 7, "order_id": 7, "s": ""})]
    records: list[dict[str, Any] | None] = [
        {"user_id": "u1", "value": {"items": ["i9"]}}, {"user_id": "u1", "order_id": 7}, None]
    fw = forward(calls, records, [("user_id",), ("user_id", "order_id"), ()], numbers=True)
    assert fw.calls[2].args == {"user": FieldRef("a", "user_id"), "item": "i9", "n": 7,
                                "order_id": FieldRef("b", "order_id"), "s": ""}
    assert fw.nested == 1  # i9: only inside an earlier value
    listed = forward([*calls, GoldCall("d", "t", {"items": ["i9", "zz", "u1"],
                                                  "deep": [["u1"], {"k": "u1"}]})],
                     [*records, None], [("user_id",), ("user_id", "order_id"), (), ()])
    # a list's items are forwarded one by one; a list or object inside it stays literal
    assert listed.calls[3].args == {"items": ["i9", "zz", FieldRef("a", "user_id")],
                                    "deep": [["u1"], {"k": "u1"}]}
    # i9 (c); then i9 among the items and the two u1 nested deeper (d)
    assert (listed.nested, listed.in_lists) == (4, 3)
    assert forward(calls, records, [("user_id",), ("user_id", "order_id"), ()]
                   ).calls[2].args["order_id"] == 7  # integers only when asked
    ordered = in_gold_order(fw.calls)
    assert "after" not in ordered[0].args
    assert ordered[2].args["after"] == FieldRef("b", "step")
