"""The HTTP-based backends: ``http`` (the real services) and ``world`` (the embedded simulation,
called in process through httpx's ASGI transport — no socket, no network).

Both build the request the same way from a catalog tool (:func:`build_request`): the platform's
base + the tool's path (fixed query parameters after ``?`` kept verbatim, ``{NAME}`` path segments
filled from the arguments or the key), the arguments in wire form (dates ``YYYYMMDD``), the paging
wire parameters (Seoul's index range from page and size), and the key — read from the environment
variable ``EDGEDSL_KEY_<PLATFORM>`` (e.g. ``EDGEDSL_KEY_DART``) or given to the backend, injected
at the last moment and scrubbed from everything the backend returns or raises. Requests go only
to hosts declared by the catalogs' ``base`` (a test may map a declared host to a loopback server
with ``host_map``).

Around each call: a per-platform concurrency cap, a per-platform minimum interval between
requests (rate limit), a timeout, retries with exponential backoff and jitter for
*environmental* failures only, and a daily quota guard per platform key that refuses calls
beyond the platform's declared quota before they are sent.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import random
import ssl
import time
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import httpx
import orjson

from ..plan.model import ToolSpec
from .backends import Response, ToolFailure, register_backend, requires_http
from .builtins import BUILTINS, is_builtin
from .normalize import DecodeMemo, FlatTable, normalize_columnar
from .python_backend import PythonBackend
from .redact import Redactor, remember

__all__ = [
    "HttpBackend",
    "HttpOptions",
    "base_env_var",
    "build_request",
    "check_base",
    "key_env_var",
    "make_world_backend",
]

USER_AGENT = "Mozilla/5.0 (compatible; edgedsl)"
"""Browser-like: 한국도로공사 blocks requests without one."""

_BUILTIN = PythonBackend(BUILTINS)

WORLD_KEY = "edgedsl-world-key"
"""The key the ``world`` backend sends when the environment supplies none (the world accepts
any key; a real key is never needed to run on the world)."""


def _env_name(prefix: str, platform: str) -> str:
    return prefix + "".join(c if c.isalnum() else "_" for c in platform.upper())


def key_env_var(platform: str) -> str:
    """The environment variable holding a platform's key: ``EDGEDSL_KEY_<PLATFORM>``."""
    return _env_name("EDGEDSL_KEY_", platform)


def base_env_var(platform: str) -> str:
    """The environment variable that points a platform elsewhere: ``EDGEDSL_BASE_<PLATFORM>``."""
    return _env_name("EDGEDSL_BASE_", platform)


def check_base(url: str) -> str:
    """``url`` as a platform's base (trailing ``/`` dropped): an ``http``/``https`` URL with a
    host, and no credentials, query or fragment; ValueError saying what is wrong otherwise."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http(s) URL with a host")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"{url!r} holds credentials; a base never does (keys come from "
                         "EDGEDSL_KEY_<PLATFORM>)")
    if parts.query or parts.fragment:
        raise ValueError(f"{url!r} has a query or fragment; a base is a scheme, host and path")
    return url.strip().rstrip("/")


def _wire(value: object) -> str:
    if isinstance(value, dt.datetime):
        return value.strftime("%Y%m%d%H%M%S")
    if isinstance(value, dt.date):
        return value.strftime("%Y%m%d")
    if isinstance(value, bool):
        return "Y" if value else "N"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | tuple):
        return ",".join(_wire(v) for v in value)
    return str(value)


@dataclass(frozen=True, slots=True)
class WireRequest:
    """A built request: method, URL (without query), query parameters, and the key's name."""

    method: str
    url: str
    params: dict[str, str]


def build_request(tool: ToolSpec, args: Mapping[str, object], page: int | None,
                  key: str | None, *, base: str | None = None) -> WireRequest:
    """The request for one call of ``tool`` (see the module docstring); ``base`` replaces the
    platform's declared base."""
    base = (base or tool.base or "").rstrip("/")
    path, _, fixed = (tool.path or "").partition("?")
    # the fixed query is decoded once here: httpx encodes the parameters when it sends them
    params: dict[str, str] = dict(parse_qsl(fixed, keep_blank_values=True))
    values = {k: _wire(v) for k, v in args.items() if v is not None}
    pg = tool.paging
    if pg is not None and page is not None and pg.page and pg.size:
        size = pg.size_limit or 100
        if "{" + pg.page + "}" in path:  # Seoul: 1-based inclusive index range in the path
            values[pg.page] = str((page - 1) * size + 1)
            values[pg.size] = str(page * size)
        else:
            values[pg.page] = str(page)
            values[pg.size] = str(size)
    if key is not None and tool.secret:
        values[tool.secret] = key
    segments = []
    used: set[str] = set()
    for seg in path.split("/"):
        if seg.startswith("{") and seg.endswith("}"):
            name = seg[1:-1]
            used.add(name)
            segments.append(quote(values.get(name) or " ", safe=""))
        else:
            segments.append(seg)
    while len(segments) > 1 and segments[-1] in ("%20", ""):  # trailing optional positions
        segments.pop()
    url = base + "/".join(segments)
    params.update({k: v for k, v in values.items() if k not in used})
    return WireRequest((tool.method or "GET").upper(), url, params)


@dataclass(frozen=True, slots=True)
class HttpOptions:
    """Tunables of the HTTP-based backends."""

    timeout: float = 10.0          # seconds per attempt
    retries: int = 3               # extra attempts after an environmental failure
    backoff: float = 0.25          # first backoff (s); doubles per attempt, ×[0.5, 1.5) jitter
    concurrency: int = 4           # concurrent calls per platform
    min_interval: float = 0.0      # seconds between request starts per platform (rate limit)
    decode_memo: int = 16 << 20    # bytes of flat XML documents kept decoded (0: none)


class HttpBackend:
    """Calls services over HTTP (see the module docstring).

    ``transport`` (an httpx transport) replaces the network — the ``world`` backend passes the
    world's ASGI app. ``keys`` maps platform → key (else the environment; else ``default_key``).
    ``quota`` maps platform → calls per day allowed by the guard (else the catalog's ``quota``
    is not known here and no guard applies). ``bases`` maps platform → a base URL that
    replaces the catalog's (a mirror, a proxy, ``edgedsl world serve``); else the environment
    variable ``EDGEDSL_BASE_<PLATFORM>``; the platform's key goes wherever its base points.
    ``host_map`` maps a declared host (``opendart.fss.or.kr``) to a base URL
    (``http://127.0.0.1:8123``), keeping the path, for loopback tests.
    """

    def __init__(self, *, name: str = "http", transport: httpx.AsyncBaseTransport | None = None,
                 keys: Mapping[str, str] | None = None, default_key: str | None = None,
                 environ: Mapping[str, str] | None = None,
                 quota: Mapping[str, int] | None = None,
                 host_map: Mapping[str, str] | None = None,
                 bases: Mapping[str, str] | None = None,
                 options: HttpOptions | None = None, seed: int | None = None) -> None:
        self.name = name
        self._bases = {p: check_base(u) for p, u in (bases or {}).items()}
        self._transport = transport
        self._keys = dict(keys or {})
        self._default_key = default_key
        self._environ = os.environ if environ is None else environ
        self._quota = dict(quota or {})
        self._host_map = dict(host_map or {})
        self.options = options or HttpOptions()
        self._rand = random.Random(seed)
        # per event loop (a client or a semaphore must not outlive its loop): the loop object
        # itself is held, not its id, which a later loop may reuse
        self._loop: asyncio.AbstractEventLoop | None = None
        self._clients: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}
        self._ssl: ssl.SSLContext | None = None  # loaded once (≈0.2 s), shared by every client
        self._sems: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Semaphore] = {}
        self._last_start: dict[str, float] = defaultdict(float)
        self._used: dict[tuple[str, str], int] = defaultdict(int)
        self.attempts = 0  # requests actually sent (tests and benchmarks read it)
        # the same large flat XML answer (DART's corpCode.xml) is decoded once (see DecodeMemo)
        self.decoded = DecodeMemo(self.options.decode_memo)

    # ------------------------------------------------------------ plumbing

    def unsupported(self, tool: ToolSpec) -> str | None:
        """Tools without an HTTP part cannot run here (``std`` tools run in process)."""
        if is_builtin(tool.qualname):
            return None
        return requires_http(tool, self.name)

    def key_for(self, tool: ToolSpec) -> str | None:
        """The platform's key (given, else from the environment, else the default). A given or
        environment key is remembered as live (:func:`edgedsl.runtime.redact.remember`), so
        that whatever edgedsl writes hides it; the default key (the world's) is public."""
        if not tool.secret:
            return None
        key = self._keys.get(tool.platform) or self._environ.get(key_env_var(tool.platform))
        if key:
            remember(key)
            return key
        return self._default_key

    def base_for(self, tool: ToolSpec) -> str | None:
        """The base the tool's requests go to: given, else ``EDGEDSL_BASE_<PLATFORM>``, else
        the catalog's (None). A malformed environment value fails the call (structural)."""
        given = self._bases.get(tool.platform)
        if given:
            return given
        var = base_env_var(tool.platform)
        value = self._environ.get(var)
        if not value:
            return None
        try:
            return check_base(value)
        except ValueError as err:
            raise ToolFailure("structural", "R503", f"{var}: {err}") from None

    def _this_loop(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # one loop at a time: drop what belonged to an earlier one
            self._loop = loop
            self._clients = {}
            self._sems = {}
        return loop

    def _client(self) -> httpx.AsyncClient:
        loop = self._this_loop()
        client = self._clients.get(loop)
        if client is None:
            if self._transport is None and self._ssl is None:
                self._ssl = httpx.create_ssl_context()
            client = httpx.AsyncClient(transport=self._transport, follow_redirects=False,
                                       timeout=self.options.timeout,
                                       verify=self._ssl if self._ssl is not None else True,
                                       headers={"User-Agent": USER_AGENT,
                                                "Accept": "application/json"})
            self._clients = {loop: client}
        return client

    def _sem(self, platform: str) -> asyncio.Semaphore:
        key = (self._this_loop(), platform)
        sem = self._sems.get(key)
        if sem is None:
            sem = self._sems[key] = asyncio.Semaphore(self.options.concurrency)
        return sem

    def _target(self, url: str, tool: ToolSpec, base: str | None) -> str:
        declared = urlsplit(base or tool.base or "").netloc
        parts = urlsplit(url)
        if not declared or parts.netloc != declared:
            raise ToolFailure("structural", "R503", f"`{tool.qualname}`: refusing a request to "
                                                     f"undeclared host {parts.netloc!r}")
        mapped = self._host_map.get(parts.hostname or "")
        if mapped:
            return mapped.rstrip("/") + parts.path
        return url

    def _guard(self, tool: ToolSpec) -> None:
        limit = self._quota.get(tool.platform)
        if limit is None:
            return
        day = dt.date.today().isoformat()
        if self._used[(tool.platform, day)] >= limit:
            raise _QuotaRefused("environmental", "R504",
                              f"`{tool.qualname}`: the daily quota guard for `{tool.platform}` "
                              f"({limit} calls) is reached; the call was not sent")
        self._used[(tool.platform, day)] += 1

    async def _pace(self, platform: str) -> None:
        gap = self.options.min_interval
        if gap <= 0:
            return
        now = time.monotonic()
        wait = self._last_start[platform] + gap - now
        self._last_start[platform] = max(now, self._last_start[platform] + gap)
        if wait > 0:
            await asyncio.sleep(wait)

    # ------------------------------------------------------------ calls

    async def call(self, tool: ToolSpec, args: dict[str, object], *,
                   page: int | None) -> Response:
        """One page of one call, retried on environmental failures (module docstring)."""
        if is_builtin(tool.qualname):
            return await _BUILTIN.call(tool, args, page=page)
        reason = self.unsupported(tool)
        if reason:
            raise ToolFailure("structural", "R503", reason)
        key = self.key_for(tool)
        if tool.secret and not key:
            raise ToolFailure("structural", "R503",
                              f"`{tool.qualname}` needs a key: set {key_env_var(tool.platform)}")
        hidden = Redactor([key] if key else [])
        base = self.base_for(tool)
        req = build_request(tool, args, page, key, base=base)
        url = self._target(req.url, tool, base)
        attempt = 0
        while True:
            try:
                return await self._once(tool, req, url, hidden)
            except ToolFailure as f:
                if f.kind != "environmental" or attempt >= self.options.retries or \
                        isinstance(f, _QuotaRefused):  # the guard refuses again on a retry
                    raise ToolFailure(f.kind, f.code, hidden.text(f.message)) from None
            attempt += 1
            delay = self.options.backoff * (2 ** (attempt - 1)) * (0.5 + self._rand.random())
            await asyncio.sleep(delay)

    async def _once(self, tool: ToolSpec, req: WireRequest, url: str,
                    hidden: Redactor) -> Response:
        self._guard(tool)
        async with self._sem(tool.platform):
            await self._pace(tool.platform)
            self.attempts += 1
            try:
                if req.method == "GET":
                    coro = self._client().get(url, params=req.params)
                else:
                    coro = self._client().request(req.method, url, data=req.params)
                resp = await asyncio.wait_for(coro, self.options.timeout)
            except (TimeoutError, httpx.TimeoutException):
                raise ToolFailure("environmental", "R504",
                                  f"`{tool.qualname}`: no answer within "
                                  f"{self.options.timeout:g} s") from None
            except httpx.RequestError as e:  # transport, decoding, protocol
                raise ToolFailure("environmental", "R504", hidden.text(
                    f"`{tool.qualname}`: {type(e).__name__}: {e}")) from None
        body = resp.content
        got, total = normalize_columnar(tool, resp.status_code,
                                        resp.headers.get("content-type", ""), body,
                                        memo=self.decoded)
        table = got if isinstance(got, FlatTable) else None
        raw: bytes | None = body
        if hidden:
            # the records are walked only when the body holds the key in some form (plain,
            # JSON-escaped, an XML reference, percent-encoded: see redact.KeyForms); a ZIP
            # body (DART's documents) is looked into through what it unpacked to — a flat
            # list's document text (its records are not built: ~130 ms for corpCode.xml), else
            # the decoded records
            zipped = body.startswith(b"PK")
            if not zipped:
                found = hidden.found_in(body)
            elif table is not None:
                found = hidden.found_in(table.text)
            else:
                found = hidden.found_in(orjson.dumps(got, option=orjson.OPT_NON_STR_KEYS))
            if found:
                got, table = hidden.value(table.records() if table is not None else got), None
                # a compressed body cannot be masked in place: it is not kept at all
                raw = None if zipped else hidden.bytes(body)
        # decoded JSON or XML: JSON-native records (see Response.native)
        if table is not None:
            return Response(columns=table, total=total, raw=raw, from_store=None, native=True)
        assert isinstance(got, list)
        return Response(records=got, total=total, raw=raw, from_store=None, native=True)

    async def aclose(self) -> None:
        """Close the HTTP clients."""
        for c in self._clients.values():
            await c.aclose()
        self._clients.clear()


class _QuotaRefused(ToolFailure):
    """The quota guard's refusal: environmental, but never retried (it would refuse again)."""


def make_world_backend(*, seed: int = 0, world: Any = None, faults: Any = None,
                       options: HttpOptions | None = None,
                       keys: Mapping[str, str] | None = None,
                       quota: Mapping[str, int] | None = None) -> HttpBackend:
    """The ``world`` backend: the simulated platforms in process (ASGI transport, no network)."""
    from ..world.app import make_app
    from ..world.engine import World
    from ..world.faults import FaultPlan

    if world is None:
        plan = faults if isinstance(faults, FaultPlan) else \
            FaultPlan.from_obj(faults) if faults is not None else FaultPlan()
        world = World(seed=seed, faults=plan)
    transport = httpx.ASGITransport(app=make_app(world))
    backend = HttpBackend(name="world", transport=transport, keys=keys, default_key=WORLD_KEY,
                          environ={}, quota=quota, options=options or HttpOptions(backoff=0.01),
                          seed=seed)
    backend.world = world  # type: ignore[attr-defined]
    return backend


def _http_factory(**options: Any) -> HttpBackend:
    return HttpBackend(**options)


register_backend("http", _http_factory)
register_backend("world", make_world_backend)
