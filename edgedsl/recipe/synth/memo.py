"""A memoising backend: each distinct call is made once per synthesis run.

Synthesis runs a growing prefix of every trajectory after each step it adds, and many
trajectories start from the same calls; :class:`MemoBackend` answers a repeated
``(tool, args, page)`` from memory (concurrent identical calls share one request). Only the
world and recorded responses are deterministic enough for this; failures are remembered too,
except environmental ones, which are retried on the next ask.

**Read budget.** Synthesis drafts every call of a paged tool with ``pages all`` (a partial read
reaching the answer makes it undetermined, issue 18 §1), and a draft must read a call whole
within ``budget`` pages (:data:`READ_PAGES`): page ``p`` > 1 of a call is refused — a structural
failure (R506, not remembered, not a call) — when ``p`` exceeds the budget or when the total
the first page reported needs more pages than the budget at that page's size. So a call whose
whole result does not fit costs one page, not ``max_pages``, and the run fails where the runtime
would have failed after reading ``max_pages`` pages: the draft is not grown there.

**Bounded.** Whole reads make the memo large (one worker held 5 GB in a 200-task run), so it
keeps at most ``max_records`` records (:data:`MEMO_RECORDS`): :meth:`MemoBackend.trim`, called
between batches of attempts (:func:`~edgedsl.recipe.synth.worker.run_attempts`), forgets the
least recently used calls until the rest fit. Never during a batch: an attempt reads its calls'
records back after its run (task records, junction columns), and those calls are then its own
batch's. A forgotten call is simply made again when asked; the world and recorded responses
answer it the same, so eviction changes the counters and the time, never an outcome.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
from typing import Any

import orjson

from ...plan.model import ToolSpec
from ...runtime.backends import Backend, Response, ToolFailure

__all__ = ["MEMO_RECORDS", "READ_PAGES", "MemoBackend", "call_key"]

READ_PAGES = 25
"""The pages a draft may read of one call (the read budget; ``synth run --read-pages``): at most
half the runtime's ``max_pages`` (100), so the half-page-size perturbation still reads whole;
25 admits the whole list of legal-dong codes (20,564 records, 21 pages), the region platform's
only root that returns records on the world (docs/synth.md, "Whole reads")."""


MEMO_RECORDS = 1_000_000
"""The records a synthesis memo keeps between batches (:meth:`MemoBackend.trim`); a record of
the world costs about 1–2 KB in memory, so about 1–2 GB per worker at most."""


def _default(v: object) -> object:
    if isinstance(v, _dt.date):
        return v.isoformat()
    raise TypeError(type(v).__name__)


def call_key(tool: str, args: dict[str, Any], page: int | None) -> bytes:
    """A canonical key of one call (arguments in sorted order, dates as ISO text)."""
    return orjson.dumps([tool, args, page], default=_default, option=orjson.OPT_SORT_KEYS)


class MemoBackend:
    """Wraps a backend; answers each distinct call once (see the module doc)."""

    def __init__(self, inner: Backend, budget: int | None = None,
                 max_records: int | None = MEMO_RECORDS) -> None:
        self.inner = inner
        self.budget = budget
        self.max_records = max_records
        self.name = getattr(inner, "name", "backend")
        self._done: dict[bytes, Response | ToolFailure] = {}
        self._pending: dict[bytes, asyncio.Future[Response | ToolFailure]] = {}
        self.calls = 0
        self.hits = 0
        self.forgotten = 0  # calls dropped by trim()
        self._held = 0  # records held in _done

    def unsupported(self, tool: ToolSpec) -> str | None:
        """Whatever the inner backend says."""
        fn = getattr(self.inner, "unsupported", None)
        return fn(tool) if callable(fn) else None

    @staticmethod
    def _copy(resp: Response) -> Response:
        # a fresh handle on the same records (or the same column source): the executor may
        # consume a response, never the records themselves
        if resp.columns is not None and resp._records is None:
            return Response(total=resp.total, columns=resp.columns, native=resp.native)
        return Response(resp.records, total=resp.total, native=resp.native)

    async def call(self, tool: ToolSpec, args: dict[str, object], *,
                   page: int | None) -> Response:
        """The inner backend's answer, from memory when this call was made before."""
        if page is not None and page > 1 and self.budget is not None:
            self._within_budget(tool, args, page, self.budget)
        key = call_key(tool.qualname, args, page)
        got = self._done.pop(key, None)
        if got is not None:
            self._done[key] = got  # most recently used last (trim() forgets from the front)
        if got is None and key in self._pending:
            got = await asyncio.shield(self._pending[key])
        if got is not None:
            self.hits += 1
            if isinstance(got, ToolFailure):
                raise ToolFailure(got.kind, got.code, got.message)
            return self._copy(got)
        fut: asyncio.Future[Response | ToolFailure] = asyncio.get_running_loop().create_future()
        self._pending[key] = fut
        self.calls += 1
        try:
            resp = await self.inner.call(tool, args, page=page)
        except ToolFailure as exc:
            if exc.kind != "environmental":
                self._done[key] = exc
            fut.set_result(exc)
            raise
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        finally:
            self._pending.pop(key, None)
        self._done[key] = resp
        self._held += len(resp)
        fut.set_result(resp)
        return self._copy(resp)

    def trim(self) -> None:
        """Forget the least recently used calls until at most ``max_records`` records are held
        (see the module doc: call it only when no attempt is running)."""
        if self.max_records is None:
            return
        while self._held > self.max_records and self._done:
            got = self._done.pop(next(iter(self._done)))
            self._held -= len(got) if isinstance(got, Response) else 0
            self.forgotten += 1

    def _within_budget(self, tool: ToolSpec, args: dict[str, object], page: int,
                       budget: int) -> None:
        """Raise the read budget's failure for page ``page`` of a call (module doc)."""
        first = self._done.get(call_key(tool.qualname, args, 1))
        told, need = "", None
        if isinstance(first, Response) and first.total is not None and len(first) > 0:
            need = -(-first.total // len(first))
            told = f" ({first.total:,} records need {need} pages)"
        if page > budget or (need is not None and need > budget):
            raise ToolFailure("structural", "R506",
                              f"`{tool.qualname}` does not fit the read budget of {budget} "
                              f"pages{told}")

    def records(self, tool: str, args: dict[str, Any],
                page: int | None) -> list[dict[str, Any]] | None:
        """The records a call returned (None when it was not made or failed)."""
        got = self._done.get(call_key(tool, args, page))
        return got.records if isinstance(got, Response) else None

    def head(self, tool: str, args: dict[str, Any], page: int | None,
             n: int) -> list[dict[str, Any]] | None:
        """The first ``n`` records a call returned (None when it was not made or failed)."""
        got = self._done.get(call_key(tool, args, page))
        return got.head(n) if isinstance(got, Response) else None
