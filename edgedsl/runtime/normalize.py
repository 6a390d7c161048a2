"""Normalisation passes of the HTTP-based backends: a wire answer → records, total, or a typed
failure, per envelope family.

One function per stage, run in order by :func:`normalize`:

1. :func:`decode` — bytes to a JSON-shaped value: JSON, XML (the data.go.kr gateway error, XML
   families, DART's ``corpCode.xml`` ZIP) or HTML (error pages);
2. :func:`check_status` — HTTP status and the family's result code mapped to a
   :class:`~edgedsl.runtime.backends.ToolFailure`, classified *environmental* (quota, 5xx, 429,
   maintenance, gateway application errors, a truncated body: retried, never counted against an
   edge) or *structural* (bad key, missing or invalid parameter, unknown service: not retried);
3. :func:`unwrap` — the family's body (``response.body``, the hub's service array, Seoul's
   service object, ``results`` …), then the records at the tool's ``at`` path, with the
   single-object list repaired and "no data" turned into an empty list; the total from the
   paging declaration's field.

Numbers and dates are coerced later, once, by the typed shredding into DuckDB (by catalog type:
separators, units, ``YYYYMMDD``/``YYYY-MM-DD``/``YYYY.MM.DD``), so they are left as sent here.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections import OrderedDict
from typing import Any
from xml.etree import ElementTree

import orjson

from ..plan.model import ToolSpec
from .backends import ToolFailure, dig, first_non_record, reported_total
from .flatxml import FLAT_XML_MIN, FlatTable, flat_table, flat_xml
from .redact import excerpt

__all__ = [
    "FLAT_XML_MIN",
    "DecodeMemo",
    "FlatTable",
    "check_http",
    "check_status",
    "decode",
    "flat_table",
    "flat_xml",
    "normalize",
    "normalize_columnar",
    "unwrap",
    "xml_to_obj",
]


# result codes that mean "no data" (an empty answer, not a failure)
_NO_DATA = {"INFO-200", "INFO-3", "013", "03", "INFO-03", "ERROR-03", "4"}


# result codes of environmental failures, per family
_ENV_CODES = {
    "data_go_kr": {"22", "1", "01", "04", "99", "ERROR-500", "ERROR-600", "ERROR-601", "ERROR-337"},
    "hub": {"ERROR-337", "ERROR-500", "ERROR-600", "ERROR-601"},
    "seoul": {"ERROR-337", "ERROR-500", "ERROR-600", "ERROR-601"},
    "dart": {"020", "800", "900"},
    "juso": {"E0014", "-999"},
    "seoul_bus": {"1", "8"},
}


_GATEWAY_ENV = {"1", "01", "04", "22", "99"}


_HUB_FAMILY = {"hub", "neis", "assembly"}


def _fail(kind: str, tool: ToolSpec, msg: str) -> ToolFailure:
    code = "R504" if kind == "environmental" else "R503"
    return ToolFailure(kind, code, f"`{tool.qualname}`: {msg}")  # type: ignore[arg-type]


def _dialect(tool: ToolSpec) -> str:
    d = tool.envelope or ""
    return "hub" if d in _HUB_FAMILY else d


def xml_to_obj(elem: ElementTree.Element) -> Any:
    """An XML element as a JSON-shaped value: text leaves become strings, repeated children
    lists, a single child an object (the collapse the services' own XML→JSON shows)."""
    children = list(elem)
    if not children:
        return (elem.text or "").strip() if elem.text is not None else ""
    out: dict[str, Any] = {}
    for child in children:
        value = xml_to_obj(child)
        if child.tag in out:
            prev = out[child.tag]
            if isinstance(prev, list):
                prev.append(value)
            else:
                out[child.tag] = [prev, value]
        else:
            out[child.tag] = value
    return out


class DecodeMemo:
    """The tables of the last few large flat record lists decoded (see :func:`flat_table`), by
    a digest of the answer's bytes, so that the same bytes arriving again are not decoded again.

    DART's ``corpCode.xml`` (a 1 MB ZIP of 5.8 MB of XML, 22,671 filers, the same all day) is
    the first call of most DART chains, and decoding it costs ~60 ms of CPU per call: a client
    running many trajectories (synthesis, refinement, an evaluation) reads the same bytes again
    and again. The call is still made; only the decoding of identical bytes is shared (a
    BLAKE2b digest of the body, ~1 ms per MB). A :class:`FlatTable` is never changed once made
    (its columns are computed once and cached), and the executor never changes the records it
    is handed, so one table can serve every answer with those bytes. Holds tables whose
    documents total at most ``max_bytes`` (least recently used first out); 0 keeps none. A
    table takes 3–5× its document's bytes in memory (``corpCode.xml``: 5.8 MB of XML, 19 MB
    decoded, 28 MB with every record built), so the default of 16 MiB holds two such files.
    """

    def __init__(self, max_bytes: int = 16 << 20) -> None:
        """``max_bytes``: the most decoded document bytes held."""
        self.max_bytes = max_bytes
        self._tables: OrderedDict[bytes, tuple[str, str, FlatTable, int]] = OrderedDict()
        self._held = 0
        self.hits = 0

    @staticmethod
    def key(body: bytes) -> bytes:
        """The digest an answer's bytes are remembered by."""
        return hashlib.blake2b(body, digest_size=20).digest()

    def get(self, key: bytes) -> tuple[str, str, FlatTable] | None:
        """``(root, item, table)`` decoded from the bytes of ``key`` before, or None."""
        got = self._tables.get(key)
        if got is None:
            return None
        self._tables.move_to_end(key)
        self.hits += 1
        return got[:3]

    def put(self, key: bytes, root: str, item: str, table: FlatTable, size: int) -> None:
        """Remember ``table``, decoded from a ``size``-byte document."""
        if size > self.max_bytes or key in self._tables:
            return
        self._tables[key] = (root, item, table, size)
        self._held += size
        while self._held > self.max_bytes:
            _, (_, _, _, old) = self._tables.popitem(last=False)
            self._held -= old


def decode(tool: ToolSpec, content_type: str, body: bytes) -> tuple[str, Any]:
    """``(format, value)``: ``json`` / ``xml`` (as ``{root: value}``) / ``html`` (the text)."""
    return _decode(tool, content_type, body, columnar=False)


def _decode(tool: ToolSpec, content_type: str, body: bytes, *, columnar: bool,
            memo: DecodeMemo | None = None) -> tuple[str, Any]:
    """:func:`decode`; ``columnar``: a flat record list of several records is left as its
    :class:`FlatTable` (``{root: {item: table}}``) instead of a list of records, taken from
    ``memo`` when the same bytes were decoded before (and remembered there)."""
    key = None
    if memo is not None and columnar and memo.max_bytes and len(body) >= FLAT_XML_MIN \
            and body.lstrip()[:1] not in (b"{", b"["):  # JSON never decodes to a table
        key = memo.key(body)
        hit = memo.get(key)
        if hit is not None:
            tag, item, table = hit
            return "xml", {tag: {item: table}}
    if body.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark some services send
        body = body[3:]
    head = body.lstrip()[:16]
    if body[:2] == b"PK":  # DART corpCode.xml: a ZIP holding one XML file
        try:
            with zipfile.ZipFile(io.BytesIO(body)) as zf:
                name = next(n for n in zf.namelist() if n.lower().endswith(".xml"))
                body = zf.read(name)
        except (zipfile.BadZipFile, StopIteration, KeyError) as e:
            raise _fail("environmental", tool, f"a damaged ZIP answer ({e})") from None
        head = body.lstrip()[:16]
    if head[:1] in (b"{", b"["):
        try:
            return "json", orjson.loads(body)
        except orjson.JSONDecodeError:
            raise _fail("environmental", tool,
                        f"a truncated or invalid JSON answer ({len(body)} bytes)") from None
    if head.startswith(b"<?xml") or (head[:1] == b"<" and b"html" not in body[:200].lower()):
        if len(body) >= FLAT_XML_MIN:
            flat = flat_table(body)
            if flat is not None:
                tag, item, table = flat
                if columnar and table.n > 1:
                    if key is not None and memo is not None:
                        memo.put(key, tag, item, table, len(body))
                    return "xml", {tag: {item: table}}
                records = table.records()
                return "xml", {tag: {item: records if table.n > 1 else records[0]}}
        try:
            root = ElementTree.fromstring(body)
        except ElementTree.ParseError:
            raise _fail("environmental", tool,
                        f"a truncated or invalid XML answer ({len(body)} bytes)") from None
        return "xml", {root.tag: xml_to_obj(root)}
    if b"<html" in body[:400].lower() or "html" in content_type:
        return "html", body.decode("utf-8", "replace")
    if not body.strip():
        raise _fail("environmental", tool, "an empty answer")
    raise _fail("structural", tool, f"an answer that is neither JSON nor XML ({content_type})")


def _code_failure(tool: ToolSpec, dialect: str, code: str, msg: str) -> ToolFailure:
    kind = "environmental" if code in _ENV_CODES.get(dialect, set()) else "structural"
    return _fail(kind, tool, f"the service answered {code} {msg}".rstrip())


def check_http(tool: ToolSpec, status: int, content_type: str = "", body: bytes = b"") -> None:
    """Raise the failure an HTTP status means: 429 and 5xx environmental, other 4xx structural
    — with what the refusal's own envelope says, when its body is one (``body``)."""
    if status == 429:
        raise _fail("environmental", tool, "HTTP 429 Too Many Requests")
    if status >= 500:
        raise _fail("environmental", tool, f"HTTP {status}")
    if status >= 400:
        raise _fail("structural", tool, f"HTTP {status}{_refusal(tool, content_type, body)}")


_REFUSAL_BYTES = 64 << 10


"""The largest refusal body looked into for its envelope's words."""


def _refusal(tool: ToolSpec, content_type: str, body: bytes) -> str:
    """``": <the envelope's words>"`` of a 4xx answer in the family's envelope (a world limit
    names itself there), or ``""``."""
    if not body or len(body) > _REFUSAL_BYTES:
        return ""
    try:
        fmt, value = decode(tool, content_type, body)
        if fmt == "html":
            return ""
        check_status(tool, 200, fmt, value)
    except ToolFailure as f:
        return ": " + f.message.removeprefix(f"`{tool.qualname}`: ")
    except Exception:  # not an envelope of the family: the status says enough
        return ""
    return ""


def check_status(tool: ToolSpec, status: int, fmt: str, value: Any) -> bool:
    """Raise the classified failure an answer carries; True when it means "no data"."""
    check_http(tool, status)
    d = _dialect(tool)
    if fmt == "html":
        raise _fail("structural", tool,
                    f"an HTML page instead of data: {excerpt(value, 160, as_text=True)}")
    if not isinstance(value, dict):
        return False
    gw = value.get("OpenAPI_ServiceResponse")
    if isinstance(gw, dict):  # data.go.kr gateway: XML with HTTP 200 whatever was asked
        head = gw.get("cmmMsgHeader") or {}
        reason = str(head.get("returnReasonCode", "")).strip()
        kind = "environmental" if reason in _GATEWAY_ENV else "structural"
        raise _fail(kind, tool, f"data.go.kr gateway error {reason} "
                                f"{head.get('returnAuthMsg', '')}".rstrip())
    result = value.get("RESULT")
    if isinstance(result, dict) and len(value) == 1:  # hub / Seoul top-level RESULT
        code = str(result.get("CODE", result.get("resultCode", ""))).strip()
        if code in _NO_DATA:
            return True
        if code not in ("INFO-000", "INFO-0"):
            raise _code_failure(tool, d, code,
                                str(result.get("MESSAGE", result.get("resultMsg", ""))))
        return False
    if d == "data_go_kr":
        header = (value.get("response") or {}).get("header") or {}
        code = str(header.get("resultCode", "")).strip()
        if code in _NO_DATA:
            return True
        if code and code not in ("00", "0", "000", "INFO-00", "INFO-0"):
            raise _code_failure(tool, d, code, str(header.get("resultMsg", "")))
    elif d == "dart":
        body = value.get("result", value) if fmt == "xml" else value
        if not isinstance(body, dict):
            return False
        code = str(body.get("status", "000")).strip()
        if code in _NO_DATA:
            return True
        if code != "000":
            raise _code_failure(tool, d, code, str(body.get("message", "")))
    elif d == "ex":
        if "exception" in value:
            exc = value["exception"]
            text = exc.get("message", "") if isinstance(exc, dict) else exc
            raise _fail("structural", tool, f"the service raised {text}")
        body = value.get("data", value) if fmt == "xml" else value
        if not isinstance(body, dict):
            return False
        code = str(body.get("code", "SUCCESS")).strip()
        if code != "SUCCESS":
            raise _fail("structural", tool, f"the service answered {code} "
                                            f"{body.get('message', '')}")
    elif d == "juso":
        common = (value.get("results") or {}).get("common") or {}
        code = str(common.get("errorCode", "0")).strip()
        if code != "0":
            raise _code_failure(tool, d, code, str(common.get("errorMessage", "")))
    elif d == "seoul_bus":
        body = value.get("ServiceResult", value)
        head = body.get("msgHeader") or {}
        code = str(head.get("headerCd", "0")).strip()
        if code in _NO_DATA:
            return True
        if code != "0":
            raise _code_failure(tool, d, code, str(head.get("headerMsg", "")))
    elif d == "law":
        (root, body), = value.items() if len(value) == 1 else (("", value),)
        if root == "Law" and isinstance(body, str):  # "일치하는 법령이 없습니다…"
            return True
        if isinstance(body, dict) and "result" in body and "totalCnt" not in body:
            raise _fail("structural", tool, f"the service answered {body.get('result')}")
    return False


def _family_body(tool: ToolSpec, fmt: str, value: Any) -> Any:
    d = _dialect(tool)
    if d == "data_go_kr":
        return ((value.get("response") or {}).get("body")) or {}
    if d == "hub":
        (_svc, parts), = value.items()
        if isinstance(parts, list):  # JSON: [{head: [...]}, {row: [...]}]
            merged: dict[str, Any] = {}
            for part in parts:
                if isinstance(part, dict):
                    for k, v in part.items():
                        if k == "head" and isinstance(v, list):
                            for h in v:
                                if isinstance(h, dict):
                                    merged.update(h)
                        else:
                            merged[k] = v
            return merged
        if isinstance(parts, dict):  # XML: <svc><head>…</head><row/>…</svc>
            merged = dict(parts.get("head") or {})
            merged.update({k: v for k, v in parts.items() if k != "head"})
            return merged
        return {}
    if d == "seoul":
        (_svc, body), = value.items()
        return body if isinstance(body, dict) else {}
    if d in ("dart", "ex"):
        if fmt == "xml":
            (_root, body), = value.items()
            return body if isinstance(body, dict) else {}
        return value
    if d == "juso":
        return value.get("results") or {}
    if d == "seoul_bus":
        body = value.get("ServiceResult", value)
        merged = dict(body.get("msgBody") or {})
        merged.update(body.get("msgHeader") or {})
        return merged
    if d == "law" and isinstance(value, dict) and len(value) == 1:
        (_root, body), = value.items()
        return body if isinstance(body, dict) else {}
    return value


def unwrap(tool: ToolSpec, fmt: str, value: Any, no_data: bool) -> tuple[list[dict[str, Any]],
                                                                          int | None]:
    """Records at the tool's ``at`` path (single objects repaired) and the reported total."""
    if no_data:
        return [], 0
    body = _family_body(tool, fmt, value)
    d = _dialect(tool)
    total = None
    if tool.paging is not None and tool.paging.total and isinstance(body, dict):
        total = reported_total(tool, dig(body, tool.paging.total))
        if total is None and d == "juso":
            total = reported_total(tool, (body.get("common") or {}).get(tool.paging.total))
    if tool.at:
        found = dig(body, tool.at)
        if d == "data_go_kr" and isinstance(found, dict) and set(found) == {"item"}:
            found = found["item"]  # response.body.items.item
    elif not tool.many:  # a single-record answer: the body itself, minus the status words
        found = {k: v for k, v in body.items() if k not in ("status", "message")} \
            if isinstance(body, dict) else body
    else:
        found = body
        if fmt == "xml" and isinstance(found, dict) and len(found) == 1:
            # an XML list without `at`: the records are the root's repeated children
            # (DART corpCode.xml: <result><list>…</list><list>…</list></result>)
            (only,) = found.values()
            if isinstance(only, list) or (isinstance(only, dict) and all(
                    not isinstance(v, dict | list) for v in only.values())):
                found = only
    if found is None or found == "":
        records: list[Any] = []
    elif isinstance(found, dict):
        records = [found]  # the single-item collapse
    elif isinstance(found, list):
        records = found
    else:
        raise _fail("structural", tool, f"records expected at `{tool.at}`, found "
                                        f"{type(found).__name__}")
    i = first_non_record(records)
    if i is not None:
        raise _fail("structural", tool, f"a non-record item {excerpt(records[i])} at "
                                        f"`{tool.at}[{i}]`")
    return records, total


def normalize(tool: ToolSpec, status: int, content_type: str,
              body: bytes) -> tuple[list[dict[str, Any]], int | None]:
    """Records and total of one wire answer, or the classified ToolFailure it carries."""
    check_http(tool, status, content_type, body)
    fmt, value = decode(tool, content_type, body)
    return _status_unwrap(tool, status, fmt, value)


def normalize_columnar(tool: ToolSpec, status: int, content_type: str, body: bytes, *,
                       memo: DecodeMemo | None = None
                       ) -> tuple[list[dict[str, Any]] | FlatTable, int | None]:
    """:func:`normalize`, except that records read from a flat record list (DART's
    ``corpCode.xml``, see :func:`flat_xml`) come as its :class:`FlatTable` — the same records,
    none built yet — whenever the family's status check and unwrap would hand that list over
    whole. They are decided on a stand-in of the same shape (a list of two records); any other
    outcome (a failure, "no data", records found elsewhere, a total) is decided again on the
    real records, so the answer or failure is exactly :func:`normalize`'s. ``memo``: the
    table of bytes decoded before is taken from it (see :class:`DecodeMemo`)."""
    check_http(tool, status, content_type, body)
    fmt, value = _decode(tool, content_type, body, columnar=True, memo=memo)
    table = None
    if fmt == "xml" and isinstance(value, dict) and len(value) == 1:
        (root, inner), = value.items()
        if isinstance(inner, dict) and len(inner) == 1:
            (item, table), = inner.items()
    if not isinstance(table, FlatTable):
        return _status_unwrap(tool, status, fmt, value)
    if tool.paging is not None and tool.paging.total:  # a total path could reach the records
        return _status_unwrap(tool, status, fmt, {root: {item: table.records()}})
    stand_in: list[dict[str, Any]] = [{}, {}]
    try:
        records, total = _status_unwrap(tool, status, fmt, {root: {item: stand_in}})
    except ToolFailure:
        records, total = [], None
    if records is stand_in and total is None:
        return table, None
    return _status_unwrap(tool, status, fmt, {root: {item: table.records()}})


def _status_unwrap(tool: ToolSpec, status: int, fmt: str, value: Any
                   ) -> tuple[list[dict[str, Any]], int | None]:
    try:
        no_data = check_status(tool, status, fmt, value)
        return unwrap(tool, fmt, value, no_data)
    except (ValueError, TypeError, AttributeError, KeyError) as e:
        # an envelope of an unexpected shape (two roots where one was expected, a list where an
        # object was): the service did not answer in its family's form
        raise _fail("structural", tool, f"an answer not in the `{tool.envelope}` envelope's "
                                        f"shape ({type(e).__name__})") from None
