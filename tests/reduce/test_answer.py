"""``reduce.answer``: the typed queries of answers and ``if`` predicates — their JSON form (a
round trip over random trees; bad data refused), the relations and fields they read, and the
texts :mod:`edgedsl.reduce.render` makes of them (by example, and run in DuckDB)."""

from __future__ import annotations

import datetime as dt

import duckdb
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl.reduce.answer import (
    Agg,
    And,
    Arith,
    Cmp,
    Count,
    Distinct,
    Exists,
    Lit,
    Neg,
    Not,
    Or,
    Predicate,
    Round,
    Value,
    facts,
    predicate_from_json,
    reads,
    to_json,
    value_from_json_data,
)
from edgedsl.reduce.render import render_answer, render_predicate
from tests.profiles import examples

_names = st.sampled_from(["a", "b", 'we"ird', "한글"])
_lits = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=5) \
    | st.floats(allow_nan=False, allow_infinity=False) | st.dates()
_leaves: st.SearchStrategy[Value] = st.one_of(
    _lits.map(Lit),
    st.builds(Distinct, _names, _names),
    st.builds(Count, _names),
    st.builds(Agg, st.sampled_from(["sum", "avg", "min", "max"]), _names, _names),
)
_values: st.SearchStrategy[Value] = st.recursive(_leaves, lambda inner: st.one_of(
    st.builds(Arith, st.sampled_from(["+", "-", "*", "/"]), inner, inner),
    st.builds(Neg, inner),
    st.builds(Round, inner, st.integers(0, 4)),
), max_leaves=6)
_preds: st.SearchStrategy[Predicate] = st.recursive(st.one_of(
    st.builds(Cmp, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), _values, _values),
    st.builds(Exists, _names),
), lambda inner: st.one_of(
    st.builds(Not, inner),
    st.lists(inner, min_size=2, max_size=3).map(lambda ps: And(tuple(ps))),
    st.lists(inner, min_size=2, max_size=3).map(lambda ps: Or(tuple(ps))),
), max_leaves=5)


@settings(max_examples=examples(150), deadline=None)
@given(_values)
def test_a_value_reads_back_from_its_json(q: Value) -> None:
    data = orjson.loads(orjson.dumps(to_json(q)))
    back = value_from_json_data(data)
    assert back == q and render_answer(back) == render_answer(q)
    # a literal keeps its Python type (True is not 1, 1.0 is not 1)
    assert [type(p) for p in render_answer(back)[1]] == [type(p) for p in render_answer(q)[1]]


@settings(max_examples=examples(150), deadline=None)
@given(_preds)
def test_a_predicate_reads_back_from_its_json(p: Predicate) -> None:
    back = predicate_from_json(orjson.loads(orjson.dumps(to_json(p))))
    assert back == p and render_predicate(back) == render_predicate(p)


def test_reads_names_each_relation_with_its_fields() -> None:
    p = And((Cmp(">", Agg("max", "t", "y"), Distinct("t", "x")),
             Not(Exists("u")), Cmp("==", Count("v"), Lit(0))))
    assert reads(p) == {"t": ["x", "y"], "u": [], "v": []}
    assert reads(Round(Neg(Lit(1)), 2)) == {}


def test_facts_by_example() -> None:
    """A field reference's value is its distinct values, a whole relation's field; a count is a
    whole relation's scalar; anything else, and any predicate, is a scalar of no relation's."""
    f = facts(Distinct("t", "x"))
    assert (dict(f.reads), f.shape, f.whole) == ({"t": ("x",)}, "values", "field")
    f = facts(Count("t"))
    assert (dict(f.reads), f.shape, f.whole) == ({"t": ()}, "scalar", "count")
    f = facts(Arith("+", Count("t"), Distinct("u", "y")))
    assert (dict(f.reads), f.shape, f.whole) == ({"t": (), "u": ("y",)}, "scalar", None)
    f = facts(Exists("t"))
    assert (dict(f.reads), f.shape, f.whole) == ({"t": ()}, "scalar", None)
    with pytest.raises(TypeError):  # shared between runs: read-only
        f.reads["u"] = ()  # type: ignore[index]


@settings(max_examples=examples(100), deadline=None)
@given(_values | _preds)
def test_facts_reads_are_reads(q: Value | Predicate) -> None:
    f = facts(q)
    assert {k: list(v) for k, v in f.reads.items()} == reads(q)
    assert (f.shape == "values") == isinstance(q, Distinct)
    assert f.whole == ("field" if isinstance(q, Distinct) else
                       "count" if isinstance(q, Count) else None)
    if f.whole is not None:  # a whole relation's value reads one relation, at most one field
        ((_, fields),) = f.reads.items()
        assert len(fields) == (f.whole == "field")


def test_texts_by_example() -> None:
    assert render_answer(Distinct("t", "x")) == (
        'SELECT "x" AS value FROM "t" WHERE "x" IS NOT NULL GROUP BY "x" '
        'ORDER BY min("__row")', [])
    day = dt.date(2024, 1, 2)
    assert render_answer(Round(Arith("/", Agg("avg", "t", "x"), Lit(100)), 2)) == (
        'SELECT round(((SELECT avg("x") FROM "t") / ?), 2) AS value', [100])
    assert render_predicate(Or((Not(Exists("u")), Cmp("!=", Distinct("t", "d"), Lit(day))))) == (
        'SELECT ((NOT (EXISTS (SELECT 1 FROM "u"))) OR ((SELECT "d" AS value FROM "t" '
        'WHERE "d" IS NOT NULL GROUP BY "d" ORDER BY min("__row")) <> CAST(? AS DATE))) '
        'AS value', [day])


def test_texts_run_in_duckdb() -> None:
    con = duckdb.connect()
    con.execute('CREATE TABLE "t" ("__row" BIGINT, "x" BIGINT, "d" DATE)')
    con.execute("INSERT INTO t VALUES (0, 5, DATE '2024-01-02'), (1, 3, NULL), (2, 5, NULL)")
    con.execute('CREATE TABLE "u" ("__row" BIGINT)')
    text, params = render_answer(Distinct("t", "x"))
    assert con.execute(text, params).fetchall() == [(5,), (3,)]
    text, params = render_answer(Round(Arith("/", Agg("sum", "t", "x"), Count("t")), 1))
    assert con.execute(text, params).fetchall() == [(4.3,)]
    text, params = render_predicate(And((Not(Exists("u")),
                                         Cmp("==", Distinct("t", "d"), Lit(dt.date(2024, 1, 2))),
                                         Cmp(">=", Neg(Lit(-2)), Lit(2)))))
    assert con.execute(text, params).fetchall() == [(True,)]


@pytest.mark.parametrize("data", [
    [1], {"kind": "nope"}, {"kind": "field", "source": "t"},
    {"kind": "agg", "fn": "median", "source": "t", "field": "x"},
    {"kind": "arith", "op": "%", "left": {"kind": "lit", "value": 1},
     "right": {"kind": "lit", "value": 2}},
    {"kind": "round", "operand": {"kind": "lit", "value": 1}, "digits": True},
    {"kind": "lit", "value": [1]},
])
def test_bad_values_are_refused(data: object) -> None:
    with pytest.raises(ValueError):
        value_from_json_data(data)


@pytest.mark.parametrize("data", [
    {"kind": "cmp", "op": "=", "left": {"kind": "lit", "value": 1},
     "right": {"kind": "lit", "value": 1}},
    {"kind": "and", "operands": []}, {"kind": "not"}, {"kind": "exists", "source": 3},
    {"kind": "count", "source": "t"},
])
def test_bad_predicates_are_refused(data: object) -> None:
    with pytest.raises(ValueError):
        predicate_from_json(data)
