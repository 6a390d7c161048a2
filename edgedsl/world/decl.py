"""Declarations of the world: datasets and the endpoints that serve filtered, paged views of them.

Most real public endpoints are a filtered, paged view over one dataset, so an endpoint of the
world is a *declaration* (:class:`Endpoint`) over a named :class:`Dataset`; the generic engine
(:mod:`edgedsl.world.engine`) does request parsing, required-parameter checks, filtering, sorting,
paging and the envelope of the platform's family (:mod:`edgedsl.world.envelopes`).

Dataset rows hold values exactly as the service sends them on the wire (numbers as strings with
commas and units, dates as ``YYYYMMDD`` strings, trailing spaces, typos in field names): the
world never re-formats a row, the client-side normalisation does.

Each platform module in :mod:`edgedsl.world.platforms` exposes ``DATASETS`` and ``ENDPOINTS``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .engine import World

__all__ = [
    "CustomFn",
    "Dataset",
    "Endpoint",
    "Filter",
    "Paging",
    "Row",
    "RowsFn",
    "WireResponse",
    "WriteFn",
]

Row = dict[str, Any]

FilterOp = Literal[
    "eq",        # field == value (after stripping both)
    "prefix",    # field starts with value
    "contains",  # value is a substring of field (Korean partial match, e.g. SCHUL_NM)
    "ge",        # field >= value (string compare: YYYYMMDD dates, zero-padded codes)
    "gt",
    "le",
    "lt",        # field < value (the exclusive end of some data.go.kr ranges)
    "in_csv",    # field is one of the comma-separated values (DART multi corp_code)
]


@dataclass(frozen=True, slots=True)
class Filter:
    """One request parameter turned into a test on a dataset field.

    ``field`` defaults to the parameter's own name. An absent or empty parameter does not filter.
    """

    param: str
    field: str | None = None
    op: FilterOp = "eq"

    @property
    def target(self) -> str:
        """The dataset field this filter tests."""
        return self.field or self.param


@dataclass(frozen=True, slots=True)
class Paging:
    """The wire paging convention of an endpoint.

    ``style``: ``page`` — 1-based page number ``page`` and size ``size`` (data.go.kr ``pageNo`` /
    ``numOfRows``, hub ``pIndex`` / ``pSize``, DART ``page_no`` / ``page_count``, law ``page`` /
    ``display``); ``index`` — Seoul's 1-based inclusive ``START_INDEX`` / ``END_INDEX`` path
    segments (then ``page``/``size`` name those two segments); ``none`` — everything in one answer.
    A size above ``max_size`` is answered with the family's "too many rows" error
    (``over_max="error"``) or silently clamped (``over_max="clamp"``).
    """

    page: str = "pageNo"
    size: str = "numOfRows"
    default_size: int = 10
    max_size: int = 100
    style: Literal["page", "index", "none"] = "page"
    over_max: Literal["error", "clamp"] = "clamp"


RowsFn = Callable[["World", Mapping[str, str]], Iterable[Row]]
"""Candidate rows of a request (before the generic filters) for datasets too big to hold whole."""

WriteFn = Callable[["World", Mapping[str, str]], Row]
"""A write tool: mutates ``world.state`` and returns the one record it answers with."""


@dataclass(frozen=True, slots=True)
class WireResponse:
    """What the world answers: HTTP status, content type and body bytes."""

    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


CustomFn = Callable[["World", Mapping[str, str]], WireResponse]
"""A bespoke endpoint that is not a dataset view (DART ``corpCode.xml``, a ZIP of every filer)."""


@dataclass(frozen=True, slots=True)
class Dataset:
    """A named table of the world, generated deterministically from the world's seed.

    ``build(world)`` returns every row (called once per world, cached). A dataset that is too big
    to materialise (stock prices of every trading day) instead gives ``rows(world, params)``,
    which yields the candidate rows for one request; the endpoint's filters still apply.
    ``index`` names fields worth an equality index (the engine builds one lazily for any
    equality filter anyway). The engine memoises selections; a dataset whose rows read
    ``world.state`` must say ``stateful=True``.
    """

    name: str
    build: Callable[[World], list[Row]] | None = None
    rows: RowsFn | None = None
    index: tuple[str, ...] = ()
    stateful: bool = False
    doc: str = ""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One served operation: a filtered, sorted, paged view of a dataset in a platform's envelope.

    - ``platform``: the catalog platform name (``dart``, ``krx`` …), ``tool``: the catalog tool
      name it serves (the consistency test pairs them).
    - ``path``: the full wire path as served, e.g. ``/api/list.json`` or
      ``/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo``; for Seoul's family the
      path is a template ``/{KEY}/{TYPE}/tbLnOpendataRtmsV/{START_INDEX}/{END_INDEX}/{CGG_CD}``
      whose segments become parameters.
    - ``dialect``: the envelope family: ``data_go_kr``, ``hub``, ``seoul``, ``dart``, ``ex``,
      ``juso``, ``seoul_bus``, ``law``.
    - ``service``: the service name the envelope wraps the rows in (hub ``schoolInfo``, Seoul
      ``tbLnOpendataRtmsV``), or the list key (``list``, ``realUnitTrtmVO``, ``juso``, ``law``,
      ``itemList``); ``items`` for data.go.kr (``response.body.items.item``).
    - ``fixed``: query parameters that select this endpoint on a shared path (law.go.kr
      ``{"target": "law"}``); a request must carry them.
    - ``required``: parameters without which the family's missing-parameter error is answered.
    - ``params``: other accepted parameters that do not filter (besides filters, paging, key and
      format switch); any other parameter is ignored, as the real services do.
    - ``sort``: ``(field, descending)`` pairs applied after filtering (KRX prices newest first).
    - ``single``: a detail endpoint answering one object (DART ``company.json``); no match is
      the family's "no data".
    - ``fields``: projection of the dataset's rows (None: every field).
    - ``write``: a write tool (POST); the function mutates ``world.state`` and returns a record.
    - ``max_len``: the longest value (characters) of each named parameter, as the service limits
      its fields (an opinion's ``CN``); a longer one is refused. A write's other parameters are
      bounded by :attr:`~edgedsl.world.limits.Limits.field_chars`.
    - ``grows``: a write that adds an item to the state (counted against the per-key and
      world-wide limits of :class:`~edgedsl.world.limits.Limits`); False for one that changes
      an item in place (a withdrawal).
    - ``custom``: a bespoke answer (auth and faults still apply); nothing else is used then.
    - ``aliases``: other exact paths the service answers the same operation at (the detailed
      operation name a client library calls: MOLIT's ``RTMSDataSvcAptTradeDev``).
    """

    platform: str
    tool: str
    path: str
    dialect: str
    dataset: str = ""
    service: str = ""
    fixed: Mapping[str, str] = field(default_factory=dict)
    filters: tuple[Filter, ...] = ()
    required: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    paging: Paging | None = None
    sort: tuple[tuple[str, bool], ...] = ()
    single: bool = False
    fields: tuple[str, ...] | None = None
    method: Literal["GET", "POST"] = "GET"
    write: WriteFn | None = None
    custom: CustomFn | None = None
    max_len: Mapping[str, int] = field(default_factory=dict)
    grows: bool = True
    doc: str = ""
    aliases: tuple[str, ...] = ()
