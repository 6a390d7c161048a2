"""Property-testing helpers for edgedsl users: Hypothesis strategies and differential checks.

Test your own reducer chain against the reference semantics in a few lines::

    from hypothesis import given
    from edgedsl.reduce.registry import ReduceStep
    from edgedsl.testing import check_reducer_chain, relations
    from edgedsl.core.types import DATE, INT, STR

    TYPES = {"dealAmount": INT, "rcept_dt": DATE, "report_nm": STR}
    CHAIN = [ReduceStep("ge", "dealAmount", "100,000원"), ReduceStep("max", "rcept_dt")]

    @given(relations(TYPES, max_size=30))
    def test_latest_big_deal(rows):
        check_reducer_chain(rows, CHAIN, TYPES)   # DuckDB and the reference must agree

Random chains too: ``@given(reducer_cases())`` draws ``(types, rows, steps)`` with hostile field
names, ties, nulls, numbers written as ``"1,999원"``, three date formats and Korean text.

The strategies produce *raw* values, as a public API would return them; the coercion rules they
exercise are documented in :mod:`edgedsl.reduce.registry`.

A whole trajectory, on in-process tools, against the reference interpreter
(:mod:`edgedsl.testing.reference`)::

    from hypothesis import given, strategies as st
    from edgedsl.testing import check_trajectory, records
    from edgedsl.core.types import DATE, INT, RecordType, FieldSpec

    DEAL = RecordType("Deal", (FieldSpec("dealAmount", INT), FieldSpec("dealDate", DATE)))
    SOURCE = '''
    platform realty { record Deal { dealAmount: int
                                   dealDate: date }
                      tool deals (LAWD_CD: str) -> [Deal] }
    trajectory big "가장 큰 거래는?" {
      deals = realty.deals(LAWD_CD: "11680")
      top = drv deals | where dealAmount >= 100000 | max dealDate
      answer { amount: max(top.dealAmount), n: count(deals) }
    }
    '''

    @given(st.lists(records(DEAL), max_size=40))
    def test_big_deal(rows):
        check_trajectory(SOURCE, {"realty.deals": lambda **kw: rows})
"""

from .checks import check_coercion, check_reducer_chain, check_trajectory, reference_reduce
from .strategies import (
    HOSTILE_NAMES,
    HOSTILE_TEXT,
    field_type_maps,
    field_types_pool,
    hostile_names,
    pivots,
    present_values,
    records,
    reduce_steps,
    reducer_cases,
    relations,
    values,
)

__all__ = [
    "HOSTILE_NAMES",
    "HOSTILE_TEXT",
    "check_coercion",
    "check_reducer_chain",
    "check_trajectory",
    "field_type_maps",
    "field_types_pool",
    "hostile_names",
    "pivots",
    "present_values",
    "records",
    "reduce_steps",
    "reducer_cases",
    "reference_reduce",
    "relations",
    "values",
]
