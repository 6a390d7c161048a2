"""R501 (a junction saw no value) blames the step that lost the records: the call that
returned none, not the ``drv`` after it; a ``drv`` whose filter kept none of its records; or
a relation whose records lack the field (issue 20 §2)."""

from __future__ import annotations

from typing import Any

import edgedsl
from edgedsl.runtime import PythonBackend, run

PROGRAM = """
platform p {
  record School {
    code: str?
    n: int
  }

  record Menu {
    dish: str
  }

  tool search (q: str) -> [School]
  tool menu (code: str) -> [Menu]
}

trajectory t "q" {
  found = p.search(q: "중앙고")
  school = drv found | where n >= 100 | max n
  menus = p.menu(code: seq school.code)
  answer menus.dish
}
"""


def failed(schools: list[dict[str, Any]]) -> Any:
    plan = edgedsl.compile(PROGRAM)
    tools = {"p.search": lambda **_: schools, "p.menu": lambda **_: [{"dish": "밥"}]}
    res = run(plan, "t", PythonBackend(tools))
    assert not res.ok
    (d,) = res.diagnostics
    assert d.code == "R501"
    return d


def secondary(d: Any) -> list[str]:
    return [lb.message for lb in d.labels if not lb.primary]


def test_the_call_that_returned_nothing_is_blamed_not_the_drv_after_it() -> None:
    d = failed([])
    assert d.hints[0].startswith("the call `found` returned no records (and so `school`")
    assert secondary(d) == ["`found` returned nothing"]
    assert "school" not in secondary(d)[0]


def test_a_drv_that_kept_none_of_its_records_is_blamed_with_its_filter() -> None:
    d = failed([{"code": "A", "n": 5}, {"code": "B", "n": 7}])
    assert d.hints[0] == ("`school` (`drv found | where n >= 100 | max n`) kept none of "
                          "`found`'s 2 records; loosen its filter")
    assert secondary(d) == ["`school` kept none of its records"]


def test_records_without_the_field_are_said_to_lack_it() -> None:
    d = failed([{"code": None, "n": 500}])
    assert d.hints[0] == "`school` has 1 records but none with a `code` value"
    assert secondary(d) == ["`school` comes from here"]
