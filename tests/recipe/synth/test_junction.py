"""Junction typing (edgedsl.recipe.synth.junction): kinds by cardinality, narrowings that leave
1 … φ hand-off values (checked against the reducers' reference), secondaries made single."""

from __future__ import annotations

import datetime as dt
import random

from hypothesis import example, given
from hypothesis import strategies as st

from edgedsl.core.types import CodeType, EnumType, ScalarType
from edgedsl.recipe.synth.junction import (
    Columns,
    distinct,
    narrowings,
    reducer_ops,
    stated,
    type_junction,
)
from edgedsl.reduce.registry import REDUCERS

INT = ScalarType("int")
STR = ScalarType("str")
DATE = ScalarType("date")
ENUM = EnumType(("A", "B", "C"))
TYPES = {"h": STR, "n": INT, "d": DATE, "e": ENUM, "s": STR}


def _apply(rows, steps, types=TYPES):
    for s in steps:
        keep = REDUCERS[s.op].reference(rows, s.field, s.pivot, types[s.field])
        rows = [rows[i] for i in keep]
    return rows


def test_reducer_ops_follow_the_field_type() -> None:
    assert reducer_ops(INT) == ("max", "min", "ge", "le")
    assert reducer_ops(DATE) == ("max", "min", "after")
    assert reducer_ops(ENUM) == ("eq",)
    assert reducer_ops(STR) == ("most_frequent",)
    assert reducer_ops(CodeType("C", r"\d+")) == ("most_frequent",)


def test_kinds_by_cardinality() -> None:
    one = [{"h": "x", "n": 1}, {"h": "x", "n": 2}]
    jp = type_junction(one, ["h"], TYPES)
    assert jp is not None and (jp.kind, jp.handoff, jp.cardinality, jp.steps) == ("seq", "seq", 1,
                                                                                 ())
    few = [{"h": str(i)} for i in range(4)]
    jp = type_junction(few, ["h"], TYPES)
    assert jp is not None and (jp.kind, jp.handoff, jp.passed) == ("fan", "fan", 4)
    assert type_junction([{"h": None}], ["h"], TYPES) is None
    # "1,999원" and 1999 are one value of a number field
    nums = [{"n": "1,999원"}, {"n": 1999}]
    jp = type_junction(nums, ["n"], TYPES)
    assert jp is not None and jp.kind == "seq"


def test_single_narrows_a_fan_to_one_value() -> None:
    few = [{"h": "a", "n": 1}, {"h": "b", "n": 5}, {"h": "c", "n": 2}]
    jp = type_junction(few, ["h"], TYPES, single=True)
    assert jp is not None and jp.kind == "drv" and jp.handoff == "seq" and jp.passed == 1
    assert jp.steps[0].field == "n"  # max n or min n: the data decides, not a tie-break


def test_single_gives_no_junction_when_only_a_tie_would_narrow() -> None:
    # every value once: `most_frequent h` would pick the smallest by its tie-break (issue 18)
    few = [{"h": str(i)} for i in range(3)]
    assert type_junction(few, ["h"], TYPES, single=True) is None
    # a real mode is no tie: it is taken
    mode = [{"h": "a"}, {"h": "a"}, {"h": "b"}]
    jp = type_junction(mode, ["h"], TYPES, single=True)
    assert jp is not None and jp.values == ("a",)


def test_a_secondary_with_no_value_leaves_no_junction() -> None:
    rows = [{"h": "x", "s": None}, {"h": "y", "s": None}]
    assert type_junction(rows, ["h", "s"], TYPES) is None
    # the primary's nulls are dropped before a secondary is narrowed
    rows = [{"h": "v0", "s": "q"}, {"h": None, "s": "p"}]
    jp = type_junction(rows, ["h", "s"], TYPES)
    assert jp is not None and jp.passed == 1
    assert _apply(rows, jp.steps) == [rows[0]]


def test_secondaries_are_made_single_valued() -> None:
    rows = [{"h": "x", "s": "a"}, {"h": "x", "s": "b"}, {"h": "x", "s": "a"}]
    jp = type_junction(rows, ["h", "s"], TYPES)
    assert jp is not None and jp.kind == "drv"
    kept = _apply(rows, jp.steps)
    assert len(distinct(kept, "s", STR)) == 1 and len(distinct(kept, "h", STR)) == 1


def _register(n: int = 8) -> list[dict[str, object]]:
    """One office's schools: the office (primary) once, every school (secondary) once."""
    return [{"o": "B10", "c": f"70100{i:02d}", "nm": f"학교{i}", "f": f"2001{i % 12 + 1:02d}01"}
            for i in range(n)]


REG = {"o": STR, "c": STR, "nm": STR, "f": DATE}


def test_a_secondary_of_distinct_codes_is_narrowed_by_a_stated_name() -> None:
    """NEIS hands on (office, school): one office, a register of schools each once. The old
    typing narrowed the school by ``most_frequent`` — a pure tie — so no junction was proposed
    and NEIS reached no task (issue 18 §2); a school is now chosen by a stated name."""
    rows = _register()
    chosen = set()
    for seed in range(12):
        cols = Columns(rows, {k: REG[k] for k in ("o", "c", "nm")}, frozenset({"nm"}))
        jp = type_junction(cols, ["o", "c"], cols.types, rng=random.Random(seed))
        assert jp is not None and jp.kind == "drv" and jp.handoff == "seq"
        assert [(s.op, s.field) for s in jp.steps] == [("eq", "nm")]
        kept = _apply(rows, jp.steps, REG)
        assert len(kept) == 1 and jp.handed == {"B10", kept[0]["c"]}
        chosen.add(kept[0]["c"])
    assert len(chosen) > 1  # drafts from the same register state different schools
    # without the name, no tie-free narrowing is left: none (as before)
    assert type_junction(rows, ["o", "c"], {k: REG[k] for k in ("o", "c")}) is None


def test_a_secondary_is_narrowed_by_an_extreme_of_a_meaningful_field() -> None:
    """Without a name field, the earliest founding date picks one school (not a tie)."""
    rows = _register()
    jp = type_junction(rows, ["o", "c"], REG, rng=random.Random(0))
    assert jp is not None and [s.op for s in jp.steps] in (["min"], ["max"], ["after"])
    assert len(_apply(rows, jp.steps, REG)) == 1


def test_a_name_is_only_stated_for_a_registered_name_field() -> None:
    """Equality on free text is proposed only for a field that names an entity."""
    rows = [{"h": f"v{i}", "s": f"메뉴{i}"} for i in range(8)]
    plain = Columns(rows, {"h": STR, "s": STR})
    named = Columns(rows, {"h": STR, "s": STR}, frozenset({"s"}))
    assert type_junction(plain, ["h"], plain.types, single=True) is None  # only ties
    jp = type_junction(named, ["h"], named.types, single=True)
    assert jp is not None and jp.steps[0].op == "eq" and jp.steps[0].field == "s"


rows_st = st.lists(st.fixed_dictionaries({
    "h": st.sampled_from([f"v{i}" for i in range(12)] + [None]),
    "n": st.one_of(st.none(), st.integers(-50, 50), st.integers(0, 9999).map(lambda v: f"{v:,}원")),
    "d": st.one_of(st.none(), st.dates(dt.date(2020, 1, 1), dt.date(2020, 3, 1)).map(
        lambda d: d.strftime("%Y%m%d"))),
    "e": st.sampled_from(["A", "B", "C", None]),
    "s": st.sampled_from(["p", "q", None]),
}), max_size=60)


@given(rows_st, st.integers(2, 6), st.integers(0, 2**16), st.booleans())
@example([{"h": f"v{i}", "n": i, "d": None, "e": "A", "s": "p"} for i in range(8)], 5, 0, False)
def test_typed_junction_property(rows, phi, seed, two) -> None:
    """Whatever the records, a typed junction hands 1 … φ values (1 for seq), every narrowing
    step is one the reducers' reference computes, and the plan's numbers are the truth."""
    fields = ["h", "s"] if two else ["h"]
    jp = type_junction(rows, fields, TYPES, phi=phi, rng=random.Random(seed))
    d = len(distinct(rows, "h", STR))
    if d == 0:
        assert jp is None
        return
    if jp is None:  # only when a secondary has no value where the primary is handed off
        assert two
        return
    assert jp.cardinality == d
    kept = _apply(rows, jp.steps)
    vals = distinct(kept, "h", STR)
    assert len(vals) == jp.passed and list(vals) == list(jp.values)
    assert 1 <= jp.passed <= phi
    assert (jp.handoff == "seq") == (jp.passed == 1)
    if two:
        assert len(distinct(kept, "s", STR)) == 1
    if d > phi:
        assert jp.kind == "drv"
        for s in jp.steps:  # the reducer follows the type of the field it reads
            assert s.op in reducer_ops(TYPES[s.field])
    elif not jp.steps:
        assert jp.kind == ("seq" if d == 1 else "fan")


@given(rows_st, st.integers(2, 6))
def test_narrowings_all_leave_one_to_phi_values(rows, phi) -> None:
    for jp in narrowings(rows, ["h"], TYPES, phi=phi):
        kept = _apply(rows, jp.steps)
        assert 1 <= len(distinct(kept, "h", STR)) <= phi
        assert jp.passed == len(distinct(kept, "h", STR))


def test_a_blank_text_is_never_a_stated_pivot() -> None:
    # session 35 read "그중 건물명이 인 것으로 좁힌 뒤" (`where bdNm == ""`): only the record
    # with a blank name was handed on; a question cannot state a blank value
    rows = [{"h": f"x{i}", "s": "" if i == 0 else "같은이름"} for i in range(8)]
    cols = Columns(rows, TYPES)
    assert cols.pivot("eq", "s", "h", list(range(8)), 5) is None
    rows[1]["s"] = "매탄센터"
    assert Columns(rows, TYPES).pivot("eq", "s", "h", list(range(8)), 5) == "매탄센터"
    assert not stated("") and not stated("  ") and not stated(None)
    assert stated("매탄센터") and stated(0)
