"""Entity identifiers: the code types that carry one entity across tools (issue 18 §2).

A hand-off of a company's 고유번호, a school's 표준학교코드 or a bill's 의안ID means "the same
company / school / bill, looked up in another tool"; a hand-off of a region or office code
means "something in that region" and, downstream, usually an arbitrary member of it (a region
code feeding "the most frequent school"). Synthesis prefers the first kind: junction typing
scores an edge whose hand-off parameter has an entity code type :data:`ENTITY_WEIGHT` higher
(:func:`handoff_score`, used by :meth:`~edgedsl.recipe.synth.engine.Engine.ranked`).

This module is the one place that says which code types are entity identifiers:
:data:`ENTITY_CODES`, keyed by the qualified name of a ``type X = code …`` declaration of the
catalog (``codes.CorpCode``; ``tests/recipe/synth/test_entities.py`` checks that every name is
declared in ``stdlib/``). A code type not listed is generic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["ENTITY_CODES", "ENTITY_NAMES", "ENTITY_WEIGHT", "KNOWN_CODES", "TEXT_CODES",
           "entity_of", "handoff_score", "name_fields", "reads_as_text"]

ENTITY_CODES: Mapping[str, str] = {
    # a company
    "codes.CorpCode": "company", "codes.Crno": "company", "codes.StockCode": "company",
    "codes.Isin": "company", "codes.Bizno": "company", "fsc.KrxItemCode": "company",
    # a school, a bill, a member of the assembly, a candidate
    "codes.NeisSchool": "school",
    "assembly.BillId": "bill", "assembly.BillNo": "bill", "assembly.MonaCd": "member",
    "nec.HuboId": "candidate",
    # a statute and the other documents of the law service
    "law.LawId": "statute", "law.LawMst": "statute", "law.OrdinId": "ordinance",
    "law.OrdinMst": "ordinance", "law.AdmrulSeq": "rule", "law.PrecId": "precedent",
    "law.ExpcId": "interpretation", "law.DetcId": "decision",
    # a district (법정동코드 and its 시군구 prefix), a road, a building, an apartment complex
    "codes.LegalDong": "district", "codes.LawdCd": "district", "molit.BjdongCd": "district",
    "seoul.StdgCd": "district", "juso.RnMgtSn": "road", "juso.BdMgtSn": "building",
    "molit.AptSeq": "apartment",
    # a route, a stop, a rest area
    "tago.RouteId": "route", "seoulbus.BusRouteId": "route", "ex.RouteNo": "route",
    "tago.NodeId": "stop", "seoulbus.ArsId": "stop", "seoulbus.StId": "stop",
    "ex.StdRestCd": "rest area", "ex.ServiceAreaCode": "rest area",
    # a filing
    "dart.RceptNo": "filing",
    # a place: an address one service gives and juso's address search finds (a school's, a
    # company's head office, a building's lot, a fuel station's)
    "codes.Address": "place",
}
"""Qualified code type name → the kind of entity it identifies. Generic codes — an education
office (``codes.NeisOffice``), an election day (``codes.SgId``), a city (``tago.CityCode``), an
institution (``codes.OrgCode``), a month, a toll gate — are not listed."""

ENTITY_WEIGHT = 0.2
"""What an entity hand-off adds to an edge's Thompson draw (a draw from its Beta posterior, in
[0, 1]): between two edges whose posteriors are alike the entity hand-off is tried first, while
an edge that fails often (mean below ~0.8 when the other's is near 1) still loses. Measured on
``synth run -n 200 --seed 1`` in docs/synth.md ("Entity hand-offs")."""


def entity_of(code: str | None) -> str | None:
    """The kind of entity the code type ``code`` (qualified name) identifies, or None."""
    return ENTITY_CODES.get(code) if code is not None else None


def handoff_score(draw: float, code: str | None, weight: float = ENTITY_WEIGHT) -> float:
    """An edge's ranking score: its Thompson ``draw`` plus ``weight`` when its (primary)
    hand-off parameter has the entity code type ``code``."""
    return draw + (weight if entity_of(code) is not None else 0.0)


ENTITY_NAMES: Mapping[str, str] = {
    # NEIS: a school; NEC: an election, a candidate, an electoral district, a party
    "neis.SCHUL_NM": "school",
    "nec.sgName": "election", "nec.name": "candidate", "nec.krName": "candidate",
    "nec.sggName": "district", "nec.jdName": "party", "nec.partyName": "party",
    # Seoul and the region: a district, a neighbourhood, a building, an apartment complex,
    # a station, a parking lot
    "seoul.CGG_NM": "district", "seoul.STDG_NM": "district", "seoul.BLDG_NM": "building",
    "seoul.SBWY_STNS_NM": "station", "seoul.PKLT_NM": "parking lot",
    "molit.umdNm": "district", "molit.aptNm": "apartment", "mois.locallow_nm": "district",
    "juso.bdNm": "building",
    # buses: a city, a stop, a route
    "tago.cityname": "city", "tago.nodenm": "stop", "tago.routeno": "route",
}
"""``platform.field`` → the kind of entity a record field *names* (a school's 학교명, a
candidate's 이름, a district's 자치구명): a person states such a name, so junction typing may
narrow a relation by equality on it (``where SCHUL_NM == "금호중학교"``, one school out of a
register; :mod:`edgedsl.recipe.synth.junction`). A text field not listed (a menu, an address,
a lot number) is never narrowed by equality: nobody states it."""


def name_fields(platform: str, fields: Iterable[str]) -> frozenset[str]:
    """The fields among ``fields`` of a record of ``platform`` that name an entity
    (:data:`ENTITY_NAMES`)."""
    return frozenset(f for f in fields if f"{platform}.{f}" in ENTITY_NAMES)


KNOWN_CODES = frozenset({
    "codes.StockCode",   # a ticker: 005930
    "codes.Crno",        # 법인등록번호, printed on every filing and invoice
    "codes.Bizno",       # 사업자등록번호, printed on every receipt
    "codes.SgId",        # an election's id is its day (20240410), written as the date
    "codes.YearMonth",   # a month
    "assembly.BillNo",   # 의안번호, the public number a bill is cited by (2208255)
    "juso.ZipNo",        # a postal code
    "seoulbus.ArsId",    # the five-digit number on every Seoul bus stop sign
    "codes.Address",     # an address, as a person writes it
})
"""Qualified code types whose values a person knows without calling any API (printed on a
thing they hold or see, or a date). Every other code type is the service's internal id (a
DART 고유번호, a 기관코드, a TAGO 노선ID): a query that shows one as the raw code asks for an
input the user could not know without calling the service first (the ``internal_input``
finding of :mod:`edgedsl.recipe.synth.plausible`)."""


TEXT_CODES = frozenset({"codes.Address"})
"""Qualified code types whose values are text a person reads and asks for, not codes: an
address is typed so that it hands one place on from service to service (a school's road
address into juso's address search), but an answer asks for it as it asks for any text, and a
question narrows by it only with a value it states, as by any other text
(:mod:`edgedsl.recipe.synth.wanted`)."""


def reads_as_text(code: str | None) -> bool:
    """True when values of the code type ``code`` (qualified name) are read as text
    (:data:`TEXT_CODES`)."""
    return code in TEXT_CODES
