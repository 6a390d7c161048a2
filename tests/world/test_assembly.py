"""The 열린국회정보 world: bills, proposers, votes, members and the opinion write tools."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import edgedsl
from edgedsl.world.engine import World, state_hash
from edgedsl.world.platforms import assembly, nec
from edgedsl.world.platforms.assembly_data import AGES, PASSED_LAWS, bills
from edgedsl.world.platforms.nec_data import district_name_short
from tests.profiles import examples

BASE = "/portal/openapi/"


@pytest.fixture(scope="module")
def world() -> World:
    return World(seed=0, modules=[assembly, nec])


def call(w: World, svc: str, key: str | None = "k", **params: str) -> dict[str, Any]:
    full = {"Type": "json", **params}
    if key is not None:
        full["KEY"] = key
    resp = w.call("GET", BASE + svc, full)
    assert resp.status == 200
    return orjson.loads(resp.body)


def rows(body: dict[str, Any], svc: str) -> list[dict[str, Any]]:
    return body[svc][1]["row"] if svc in body else []


def total(body: dict[str, Any], svc: str) -> int:
    return body[svc][0]["head"][0]["list_total_count"] if svc in body else 0


def test_bill_counts_and_numbers() -> None:
    for age, (_, _, count, _) in AGES.items():
        bs = bills(0, age, 300)
        assert len(bs) == count
        assert all(str(b.no).startswith(str(age)) and len(str(b.no)) == 7 for b in bs)
        assert [b.no for b in bs] == sorted({b.no for b in bs})
    assert bills(0, 22, 300) is bills(0, 22, 300)
    assert [b.lead for b in bills(1, 22, 300)[:40]] != [b.lead for b in bills(0, 22, 300)[:40]]


def test_bills_endpoint_filters_and_pages(world: World) -> None:
    body = call(world, "nzmimeepazxkubdpn", AGE="22", BILL_NAME="도로교통법", pSize="1000")
    got = rows(body, "nzmimeepazxkubdpn")
    assert total(body, "nzmimeepazxkubdpn") == len(got) > 20
    assert all("도로교통법" in r["BILL_NAME"] for r in got)
    assert all(re.fullmatch(r"PRC_[A-Z0-9]{30}", r["BILL_ID"]) for r in got)
    passed = [r for r in got if r["PROC_RESULT"] in ("원안가결", "수정가결")]
    assert passed and all(re.fullmatch("도로교통법 (일부|전부)개정법률안", r["BILL_NAME"])
                          for r in passed)
    lead = got[0]["RST_PROPOSER"]
    assert got[0]["PROPOSER"].startswith(f"{lead}의원 등 ")
    page2 = call(world, "nzmimeepazxkubdpn", AGE="22", BILL_NAME="도로교통법", pSize="10",
                 pIndex="2")
    assert [r["BILL_ID"] for r in rows(page2, "nzmimeepazxkubdpn")] == \
        [r["BILL_ID"] for r in got[10:20]]


def test_hub_errors_and_sample_mode(world: World) -> None:
    assert call(world, "nzmimeepazxkubdpn")["RESULT"]["CODE"] == "ERROR-300"
    assert call(world, "nzmimeepazxkubdpn", AGE="22", pSize="1001")["RESULT"]["CODE"] == \
        "ERROR-336"
    assert call(world, "nzmimeepazxkubdpn", AGE="22", BILL_NAME="없는법")["RESULT"]["CODE"] == \
        "INFO-200"
    sample = call(world, "nwvrqwxyaytdsfvhu", key=None, pSize="100")
    assert len(rows(sample, "nwvrqwxyaytdsfvhu")) == 5


def test_members_are_the_2024_winners(world: World) -> None:
    members = rows(call(world, "nwvrqwxyaytdsfvhu", pSize="1000"), "nwvrqwxyaytdsfvhu")
    assert len(members) == 300
    assert Counter(m["ELECT_GBN_NM"] for m in members) == {"지역구": 254, "비례대표": 46}
    winners = [w for w in nec.universe(0).winners if w["sgId"] == "20240410"
               and w["sgTypecode"] == "2"]
    by_orig = {district_name_short(w["sdName"], w["sggName"]): w["name"] for w in winners}
    for m in members:
        if m["ELECT_GBN_NM"] == "지역구":
            assert by_orig[m["ORIG_NM"]] == m["HG_NM"]
    assert "서울 강남갑" in by_orig
    assert len({m["MONA_CD"] for m in members}) == 300


def test_proposers_votes_and_tallies_agree(world: World) -> None:
    got = rows(call(world, "nzmimeepazxkubdpn", AGE="22", PROC_RESULT="원안가결",
                    pSize="1000"), "nzmimeepazxkubdpn")
    bill = got[0]
    ppsr = rows(call(world, "BILLINFOPPSR", BILL_ID=bill["BILL_ID"]), "BILLINFOPPSR")
    assert ppsr[0]["REP_DIV"] == "대표발의" and ppsr[0]["PPSR_NM"] == bill["RST_PROPOSER"]
    assert ppsr[0]["NASS_CD"] == bill["RST_MONA_CD"]
    assert len(ppsr) == min(100, int(bill["PROPOSER"].split("등 ")[1].rstrip("인")))
    current = {m["MONA_CD"] for m in rows(call(world, "nwvrqwxyaytdsfvhu", pSize="1000"),
                                          "nwvrqwxyaytdsfvhu")}
    assert {p["NASS_CD"] for p in ppsr} <= current
    votes = rows(call(world, "nojepdqqaweusdfbi", AGE="22", BILL_ID=bill["BILL_ID"],
                      pSize="1000"), "nojepdqqaweusdfbi")
    assert len(votes) == 300
    tally = rows(call(world, "ncocpgfiaoituanbr", AGE="22", BILL_NO=bill["BILL_NO"]),
                 "ncocpgfiaoituanbr")[0]
    c = Counter(v["RESULT_VOTE_MOD"] for v in votes)
    assert (c["찬성"], c["반대"], c["기권"]) == (tally["YES_TCNT"], tally["NO_TCNT"],
                                              tally["BLANK_TCNT"])
    assert c["찬성"] + c["반대"] + c["기권"] == tally["VOTE_TCNT"]
    assert votes[0]["VOTE_DATE"][:8] == tally["PROC_DT"].replace("-", "")
    against = rows(call(world, "nojepdqqaweusdfbi", AGE="22", BILL_ID=bill["BILL_ID"],
                        RESULT_VOTE_MOD="반대"), "nojepdqqaweusdfbi")
    assert len(against) == tally["NO_TCNT"] or tally["NO_TCNT"] == 0
    info = rows(call(world, "ALLBILL", BILL_NO=bill["BILL_NO"]), "ALLBILL")[0]
    assert info["PROM_LAW_NM"] in {law for law, _ in PASSED_LAWS}
    assert info["RGS_RSLN_DT"] == bill["PROC_DT"]


def test_proposers_capped_at_100(world: World) -> None:
    big = next(b for b in bills(0, 22, 300) if b.n_co >= 100)
    bid = assembly._ids(0, 22)[big.no]
    body = call(world, "BILLINFOPPSR", BILL_ID=bid, pSize="1000")
    assert total(body, "BILLINFOPPSR") == 100


def test_all_members_slash_joined(world: World) -> None:
    body = call(world, "ALLNAMEMBER", pSize="1000")
    assert 3000 <= total(body, "ALLNAMEMBER") <= 3500
    multi = [r for r in rows(body, "ALLNAMEMBER") if "," in r["GTELT_ERACO"]]
    assert multi
    for r in multi:
        n = r["GTELT_ERACO"].count(",") + 1
        assert r["PLPT_NM"].count("/") + 1 == n == r["ELECD_NM"].count("/") + 1
    member = rows(call(world, "nwvrqwxyaytdsfvhu", pSize="1"), "nwvrqwxyaytdsfvhu")[0]
    hist = rows(call(world, "ALLNAMEMBER", NAAS_CD=member["MONA_CD"]), "ALLNAMEMBER")
    assert hist[0]["NAAS_NM"] == member["HG_NM"] and "제22대" in hist[0]["GTELT_ERACO"]


def test_pending_agenda_schedule_notices(world: World) -> None:
    pending = call(world, "nwbqublzajtcqpdae", pSize="1")
    assert 8000 <= total(pending, "nwbqublzajtcqpdae") <= 13000
    agenda = call(world, "nayjnliqaexiioauy", pSize="1000")
    assert 20 <= total(agenda, "nayjnliqaexiioauy") <= 200
    sched = rows(call(world, "nekcaiymatialqlxr", UNIT_CD="100022", pSize="1000"),
                 "nekcaiymatialqlxr")
    assert 50 <= len(sched) <= 120 and "MEETTING_DATE" in sched[0]
    notices = rows(call(world, "nknalejkafmvgzmpt", pSize="1000"), "nknalejkafmvgzmpt")
    assert notices and all(n["NOTI_ED_DT"] >= "2026-02-13" for n in notices)


def test_opinion_write_tools_change_state() -> None:
    w = World(seed=0, modules=[assembly, nec])
    before = state_hash(w.state)
    notice = rows(call(w, "nknalejkafmvgzmpt", pSize="1"), "nknalejkafmvgzmpt")[0]
    form = {"KEY": "k", "Type": "json", "BILL_ID": notice["BILL_ID"], "WRTR_NM": "홍길동",
            "SBJCT": "찬성합니다", "CN": "꼭 필요한 법입니다.", "AGRE_DSAGRE": "찬성"}
    resp = w.call("POST", BASE + "lgsltpaOpnRegist", form)
    rec = rows(orjson.loads(resp.body), "lgsltpaOpnRegist")[0]
    assert rec["OPN_ID"] == "OPN0000001" and rec["BILL_NO"] == notice["BILL_NO"]
    w.call("POST", BASE + "lgsltpaOpnRegist", {**form, "WRTR_NM": "김철수",
                                               "AGRE_DSAGRE": "반대"})
    assert state_hash(w.state) != before
    listed = rows(call(w, "lgsltpaOpnList", BILL_ID=notice["BILL_ID"]), "lgsltpaOpnList")
    assert [o["WRTR_NM"] for o in listed] == ["홍길동", "김철수"]
    against = call(w, "lgsltpaOpnList", BILL_ID=notice["BILL_ID"], AGRE_DSAGRE="반대")
    assert total(against, "lgsltpaOpnList") == 1
    gone = w.call("POST", BASE + "lgsltpaOpnDelete", {"KEY": "k", "Type": "json",
                                                      "OPN_ID": "OPN0000001",
                                                      "WRTR_NM": "홍길동"})
    assert rows(orjson.loads(gone.body), "lgsltpaOpnDelete")[0]["DEL_YN"] == "Y"
    assert total(call(w, "lgsltpaOpnList", BILL_ID=notice["BILL_ID"]), "lgsltpaOpnList") == 1
    old = assembly._ids(0, 20)[bills(0, 20, 300)[0].no]
    refused = w.call("POST", BASE + "lgsltpaOpnRegist", {**form, "BILL_ID": old})
    assert orjson.loads(refused.body)["RESULT"]["CODE"] == "INFO-200"


def test_catalog_checks_in_a_trajectory() -> None:
    src = '''use assembly

trajectory road_traffic_opposition
  "22대 국회에서 가장 최근에 원안가결된 도로교통법 개정안에 반대가 가장 많은 정당은?"
{
  bills = assembly.bills(AGE: "22", BILL_NAME: "도로교통법") pages all
  last = drv bills | where PROC_RESULT == "원안가결" | max PROC_DT
  votes = assembly.votes(AGE: "22", BILL_ID: seq last.BILL_ID) pages all
  against = drv votes | where RESULT_VOTE_MOD == "반대"
  party = drv against | most_frequent POLY_NM
  answer {
    bill: last.BILL_NO,
    party: party.POLY_NM,
  }
}

trajectory leave_opinion "입법예고 중인 첫 법률안에 찬성 의견을 남기면 받는 의견 번호는?" {
  n = assembly.lawmaking_notices(AGE: "22") pages 1
  first = drv n | max NOTI_ED_DT
  op = assembly.submit_opinion(
    BILL_ID: seq first.BILL_ID,
    WRTR_NM: "홍길동",
    SBJCT: "찬성",
    CN: "필요합니다",
    AGRE_DSAGRE: "찬성",
  )
  answer op.OPN_ID
}
'''
    checked = edgedsl.check(src)
    assert not [d for d in checked.diagnostics if d.code != "W004"]


def test_catalog_fields_exist_in_served_rows(world: World) -> None:
    """Every record field of stdlib/assembly.edge is a key of the rows its tool serves."""
    cat = edgedsl.check("use assembly\n").catalog.platforms["assembly"]
    passed = rows(call(world, "nzmimeepazxkubdpn", AGE="22", PROC_RESULT="원안가결", pSize="1"),
                  "nzmimeepazxkubdpn")[0]
    sample = {"bills": {"AGE": "22"}, "bill_info": {"BILL_NO": passed["BILL_NO"]},
              "proposers": {"BILL_ID": passed["BILL_ID"]}, "plenary_bills": {"AGE": "22"},
              "vote_results": {"AGE": "22"}, "members": {},
              "votes": {"AGE": "22", "BILL_ID": passed["BILL_ID"]}, "all_members": {},
              "pending_bills": {}, "plenary_agenda": {}, "plenary_schedule": {"UNIT_CD": "100022"},
              "lawmaking_notices": {}}
    w = World(seed=0, modules=[assembly, nec])
    notice = rows(call(w, "nknalejkafmvgzmpt", pSize="1"), "nknalejkafmvgzmpt")[0]
    form = {"BILL_ID": notice["BILL_ID"], "WRTR_NM": "a", "SBJCT": "b", "CN": "c",
            "AGRE_DSAGRE": "찬성"}
    w.call("POST", BASE + "lgsltpaOpnRegist", {"KEY": "k", **form})  # an opinion to list
    for name, tool in cat.tools.items():
        ep = w.endpoint_for("assembly", name)
        assert ep is not None and tool.path is not None
        assert ep.path == BASE.rstrip("/") + tool.path.split("?")[0]
        if ep.method == "POST":
            params = form if name == "submit_opinion" else {"OPN_ID": "OPN0000001",
                                                            "WRTR_NM": "a"}
            resp = w.call("POST", ep.path, {"KEY": "k", "Type": "json", **params})
        else:
            params = sample.get(name, {"BILL_ID": notice["BILL_ID"]})
            resp = w.call("GET", ep.path, {"KEY": "k", "Type": "json", "pSize": "3", **params})
        got = rows(orjson.loads(resp.body), ep.service)
        assert got, name
        missing = {f.name for f in tool.record.fields} - set(got[0])
        assert not missing, (name, missing)


@settings(max_examples=examples(200), deadline=None)
@given(seed=st.integers(0, 2**31), age=st.sampled_from([20, 21, 22]),
       no=st.integers(0, 10**7))
def test_a_bill_id_is_its_hash_read_letter_digit(seed: int, age: int, no: int) -> None:
    """``bill_id`` (two byte translations) against the plain per-character reading of the same
    hash: even bytes a letter A + b mod 26, odd bytes a digit b mod 10."""
    import hashlib

    from edgedsl.world.platforms.assembly_data import bill_id

    h = hashlib.blake2b(f"{seed}/{age}/{no}".encode(), digest_size=30).digest()
    want = "PRC_" + "".join(chr(65 + h[i] % 26) + str(h[i + 1] % 10) for i in range(0, 30, 2))
    assert bill_id(seed, age, no) == want
