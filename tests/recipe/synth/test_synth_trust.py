"""The trust measures of ``synth stats`` (edgedsl.recipe.synth.trust) on a small fixture corpus:
exact counts, "n/a" where the records do not tell, the catalog's platforms and entity codes."""

from __future__ import annotations

from edgedsl.check import load_catalog
from edgedsl.recipe.synth.record import (
    CallRecord,
    JunctionRecord,
    ProgramFacts,
    TaskRecord,
)
from edgedsl.recipe.synth.trust import render_trust, trust_stats
from edgedsl.runtime.trace import Cause, Determinacy


def _call(tool: str, records: int, total: int | None) -> CallRecord:
    return CallRecord(step="s", tool=tool, turn=1, records=records, total=total)


def _junction(kind: str, card: int, passed: int, capped: bool | None, param: str = "corp_code",
              tool: str = "dart.company") -> JunctionRecord:
    return JunctionRecord(tool=tool, param=param, source_tool="dart.disclosures", field="f",
                          kind=kind, cardinality=card, passed=passed,  # type: ignore[arg-type]
                          capped=capped)


def _corpus() -> list[TaskRecord]:
    a = TaskRecord(
        name="a", file="a.edge", structure="Drv", tools=["dart.disclosures", "dart.company"],
        query="공시검색의 corp_name을(를) 알려 주세요.",
        calls=[_call("dart.disclosures", 100, 2_000), _call("dart.company", 1, 1)],
        junctions=[_junction("drv", 1, 1, True), _junction("drv", 40, 1, False)],
        facts=ProgramFacts(noop_drv=["x"], distinct_mf=["y"], partial_reads=["disclosures"]),
        body_sha="s1", determinacy=Determinacy(
            determined=False, causes=[Cause(step="y", kind="tie", fields=["corp_name"], tied=3)]))
    b = TaskRecord(
        name="b", file="b.edge", structure="Cond", features=["cond"], tools=["neis.schools"],
        query="서울특별시교육청의 학교 수를 알려 주세요.",
        calls=[_call("neis.schools", 30, 30)],
        junctions=[_junction("seq", 1, 1, False, "SD_SCHUL_CODE", "neis.classes")],
        facts=ProgramFacts(decorative_if=["if1"], page_if=["if1"]), body_sha="s2",
        determinacy=Determinacy(determined=True))
    c = b.model_copy(update={"name": "c", "file": "c.edge", "facts": ProgramFacts(
        page_answer=["count"], round_trip=["listed"])})
    return [a, b, c]


def test_exact_counts_on_a_fixture_corpus() -> None:
    catalog = load_catalog(["dart", "neis", "bus"], [])
    t = trust_stats(_corpus(), catalog)
    assert (t.determinacy_known, t.determined, t.tie_broken_answers, t.partial_answers) == \
        (3, 2, 1, 0)
    assert (t.calls, t.partial_calls, t.partial_tasks) == (4, 1, 1)
    assert (t.facts_known, t.mf_tie_tasks, t.noop_drv_tasks) == (3, 1, 1)
    assert (t.if_tasks, t.decorative_if_tasks, t.page_if_tasks, t.page_answer_tasks) == \
        (2, 1, 1, 1)
    assert (t.drv_junctions, t.noop_drv_junctions) == (2, 1)
    assert t.round_trip_tasks == 1
    assert (t.duplicates, t.duplicate_groups) == (1, 1)  # b and c have one body
    # `corp_name` is a field of the catalog; 을(를) a particle fallback
    assert (t.field_name_queries, t.particle_fallback_queries) == (1, 1)
    # tago's tools count as the bus module's: listed with zero tasks
    assert t.platforms == {"bus": 0, "dart": 1, "neis": 2}
    # the capped junction is left out: cardinalities 40, 1, 1
    assert (t.uncapped_junctions, t.uncapped_median, t.uncapped_p90, t.uncapped_max) == \
        (3, 1.0, 40, 40)
    # corp_code (codes.CorpCode) and SD_SCHUL_CODE (codes.NeisSchool) are entity codes
    assert (t.junctions, t.entity_junctions) == (4, 4)


def test_measures_the_records_do_not_hold_are_na() -> None:
    old = [r.model_copy(update={"facts": None, "determinacy": None, "body_sha": "",
                                "junctions": [j.model_copy(update={"capped": None})
                                              for j in r.junctions]}) for r in _corpus()]
    t = trust_stats(old)
    assert t.determined is None and t.mf_tie_tasks is None and t.duplicates is None
    assert t.field_name_queries is None and t.entity_junctions is None
    assert t.uncapped_junctions is None
    text = render_trust(t)
    assert "determined answers" in text and "n/a" in text
    lines = dict(line.split("  ", 1) for line in text.splitlines() if "  " in line)
    assert lines["queries with particle fallbacks"].strip() == "1 of 3 (33.3%)"
    assert lines["tasks with a no-op drv"].strip() == "n/a"
    assert "tasks per platform: dart 1" in text


def test_an_ascii_word_of_a_korean_label_is_not_an_api_name() -> None:
    # `ID` is a field name of the law service and a word of labels (법령 ID, 노선ID): a query
    # that writes 노선ID names the label, not the field; `routeid` itself is an API name
    catalog = load_catalog(["law", "bus"], [])

    def task(query: str) -> TaskRecord:
        return TaskRecord(name="t", file="t.edge", structure="Seq", tools=["tago.route_stops"],
                          query=query)

    t = trust_stats([task("노선ID GGB008300002의 정류소를 알려 주세요."),
                     task("routeid GGB008300002의 정류소를 알려 주세요.")], catalog)
    assert t.field_name_queries == 1


def test_an_argument_value_the_query_states_is_not_an_api_name() -> None:
    # a bill id is written with underscores (PRC_X2H5…) and reads like a name by its shape;
    # stated as the value a call took, it is an input of the question
    catalog = load_catalog(["assembly"], [])
    bill = "PRC_X2H5D6A8H4F8C7J8J8Z1Z5Y6D1T6S3"

    def task(query: str, value: str) -> TaskRecord:
        call = CallRecord(step="p", tool="assembly.proposers", turn=1, records=3, total=3,
                          args={"BILL_ID": value})
        return TaskRecord(name="t", file="t.edge", structure="Seq",
                          tools=["assembly.proposers"], query=query, calls=[call])

    stated = task(f"의안 제안자정보(의안ID {bill})의 대표발의자를 알려 주세요.", bill)
    named = task(f"BILL_ID {bill}의 대표발의자를 알려 주세요.", bill)
    other = task(f"의안ID {bill}의 대표발의자를 알려 주세요.", "PRC_OTHER_ID")
    assert trust_stats([stated], catalog).field_name_queries == 0
    assert trust_stats([named], catalog).field_name_queries == 1
    assert trust_stats([other], catalog).field_name_queries == 1
