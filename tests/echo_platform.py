"""A world module whose endpoints echo the service key back in every way real encoders write
text: JSON with ``\\uXXXX`` escapes (Python's ``ensure_ascii``), PHP's ``\\/``, Go's ``\\u003c``
for ``<>&``, XML with named and numeric character references, a percent-encoded URL, a ZIP, an
error envelope and an HTML page. The secret-leak tests point the HTTP backend at it and check
that no form of the key survives in anything the backend returns or raises.

Load it with ``edgedsl.runtime.backends.import_file`` beside ``world/fake_platform.py``.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from urllib.parse import quote
from xml.sax.saxutils import escape

from edgedsl.world.decl import Endpoint, WireResponse

DATASETS = ()


def _json(obj: object, form: str) -> bytes:
    if form == "ascii":  # Python's json: every non-ASCII character as \uXXXX
        return json.dumps(obj, ensure_ascii=True).encode()
    text = json.dumps(obj, ensure_ascii=False)
    if form == "php":  # PHP's json_encode: "/" as "\/" and non-ASCII as \uXXXX
        return json.dumps(obj, ensure_ascii=True).replace("/", "\\/").encode()
    if form == "go":  # Go's encoding/json: <, > and & as \u003c, \u003e, \u0026
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
            .encode()
    return text.encode()


def echo_forms(world, params: Mapping[str, str]) -> WireResponse:  # type: ignore[no-untyped-def]
    """A DART list answer echoing the key (``crtfc_key``) in the JSON form ``form``."""
    key = params.get("crtfc_key", "")
    row = {"q": "x", "echo": key, "url": f"https://example.invalid/x?crtfc_key={quote(key)}"}
    body = {"status": "000", "message": "정상", "list": [row]}
    return WireResponse(200, "application/json", _json(body, params.get("form", "plain")))


def _numeric(text: str) -> str:
    return "".join(c if c.isalnum() and c.isascii() else f"&#{ord(c)};" for c in text)


def echo_xml(world, params: Mapping[str, str]) -> WireResponse:  # type: ignore[no-untyped-def]
    """A DART XML list echoing the key with named (``form=named``) or numeric references."""
    key = params.get("crtfc_key", "")
    shown = _numeric(key) if params.get("form") == "numeric" else \
        escape(key, {'"': "&quot;", "'": "&apos;"})
    xml = ('<?xml version="1.0" encoding="UTF-8"?><result><status>000</status>'
           f"<message>정상</message><list><q>x</q><echo>{shown}</echo></list></result>")
    return WireResponse(200, "text/xml; charset=utf-8", xml.encode())


def echo_zip(world, params: Mapping[str, str]) -> WireResponse:  # type: ignore[no-untyped-def]
    """DART's corpCode.xml shape (a ZIP) of ``n`` records, the key in the first."""
    key = escape(params.get("crtfc_key", ""))
    rows = "".join(f"<list><corp_code>{i:08d}</corp_code><corp_name>{key if i == 1 else 'x'}"
                   "</corp_name></list>\n" for i in range(1, int(params.get("n", "1")) + 1))
    xml = f'<?xml version="1.0" encoding="UTF-8"?>\n<result>\n{rows}</result>\n'.encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("CORPCODE.xml", xml)
    return WireResponse(200, "application/x-msdownload", buf.getvalue())


def echo_refused(world, params: Mapping[str, str]) -> WireResponse:  # type: ignore[no-untyped-def]
    """A DART error envelope naming the key, JSON-escaped the PHP way."""
    key = params.get("crtfc_key", "")
    body = {"status": "010", "message": f"등록되지 않은 키입니다: {key}"}
    return WireResponse(200, "application/json", _json(body, "php"))


def echo_page(world, params: Mapping[str, str]) -> WireResponse:  # type: ignore[no-untyped-def]
    """A gateway's HTML page quoting the request URL, the key percent-encoded (``form=plain``:
    as itself) after ``pad`` characters of text."""
    key = params.get("crtfc_key", "")
    pad = "x" * int(params.get("pad", "0") or 0)  # where the key falls in the page's text
    form = key if params.get("form") == "plain" else quote(key, safe="")
    html = f"<html><body>{pad}blocked: /api/x?crtfc_key={form}</body></html>"
    return WireResponse(200, "text/html", html.encode())


ENDPOINTS = (
    Endpoint("dart", "echo_forms", "/api/echo_forms.json", "dart", custom=echo_forms),
    Endpoint("dart", "echo_xml", "/api/echo_xml.xml", "dart", custom=echo_xml),
    Endpoint("dart", "echo_zip", "/api/echo_zip.xml", "dart", custom=echo_zip),
    Endpoint("dart", "echo_refused", "/api/echo_refused.json", "dart", custom=echo_refused),
    Endpoint("dart", "echo_page", "/api/echo_page.json", "dart", custom=echo_page),
)
