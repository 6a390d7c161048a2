"""What the world accepts from a request and holds for its callers, at most.

The real services sit behind gateways that refuse large requests, and their write operations
limit the length of each field and how much one user may store. The world does the same, so
that no request — in process or through ``edgedsl world serve`` — makes it hold memory in
proportion to what a client sends:

- the request body is read a chunk at a time and never past ``body_bytes`` (HTTP 413); the
  URL (path and query) is at most ``url_bytes`` (HTTP 414) and a request carries at most
  ``params`` parameters, query and body together (HTTP 400) — all answered in the platform's
  own error envelope (:func:`edgedsl.world.envelopes.refused`);
- at most ``keys`` distinct service keys (each at most ``key_chars`` long) are counted per world
  (the per-key call counters of quotas and faults); a further key is answered as unregistered;
- a write tool's text fields are at most their declared length (``Endpoint.max_len``), else
  ``field_chars``; a write that adds an item to the state (``Endpoint.grows``) is refused once
  its key holds ``items_per_key`` items or the world ``items_total``.

Every refusal is a structural failure for the client (a 4xx status, or the family's in-body
error code), never a truncation. ``edgedsl world serve --max-body BYTES`` sets ``body_bytes``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["BODY_BYTES", "Limits"]

BODY_BYTES = 1 << 20
"""The default request-body limit, 1 MiB: far above any request of the catalogs (an opinion of
4,000 Hangul characters is 36 KB as a URL-encoded form) and the size many gateways refuse at."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The world's limits (module docstring); every one a positive integer."""

    body_bytes: int = BODY_BYTES
    url_bytes: int = 8 << 10
    params: int = 256
    keys: int = 1_000
    key_chars: int = 256
    field_chars: int = 4_000
    items_per_key: int = 1_000
    items_total: int = 10_000

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"limit {f.name} must be a positive integer, not {v!r}")
