"""Replay from the store: :class:`StoreBackend` answers each call with its recorded response
(:mod:`.store`), and a miss fails (R505) or, when not strict, falls through to another backend.
Recording is :mod:`.store_record`'s."""

from __future__ import annotations

from pathlib import Path

from ..plan.model import ToolSpec
from .backends import Backend, Response, ToolFailure
from .store import Store, describe_call

__all__ = ["StoreBackend"]


class StoreBackend:
    """Replays recorded responses. A miss fails (R505) in strict mode; otherwise it falls
    through to ``inner`` when given. Given a path, it opens the store read-only (the lock file
    shared: other processes may replay at once; writers wait until :meth:`close`)."""

    name = "store"

    def __init__(self, store: Store | str | Path, *, strict: bool = True,
                 inner: Backend | None = None, timeout: float | None = None) -> None:
        self._owns = not isinstance(store, Store)
        self.store = store if isinstance(store, Store) else \
            Store(store, read_only=True, timeout=timeout)
        self.strict = strict
        self.inner = inner

    def close(self) -> None:
        """Close the store if this backend opened it."""
        if self._owns:
            self.store.close()

    def __enter__(self) -> StoreBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def call(self, tool: ToolSpec, args: dict[str, object], *, page: int | None
                   ) -> Response:
        """The recorded response, or the inner backend's (non-strict), or R505."""
        hit = self.store.get(tool, args, page)
        if hit is not None:
            return hit
        if self.strict or self.inner is None:
            raise ToolFailure(
                "structural", "R505",
                f"no recorded response for {describe_call(tool, args, page)}; "
                f"record it with --record {self.store.path}")
        resp = await self.inner.call(tool, args, page=page)
        resp.from_store = False
        return resp
