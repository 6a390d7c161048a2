"""Junction typing (edgedsl.recipe.synth.junction): kinds by cardinality, narrowings that leave
1 … φ hand-off values (checked against the reducers' reference), secondaries made single."""

from __future__ import annotations

import datetime as dt
import random

from hypothesis import example, given
from hypothesis import strategies as st

from edgedsl.core.types import CodeType, EnumType, ScalarType
from edgedsl.recipe.synth.junction import distinct, narrowings, reducer_ops, type_junction
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
