"""Fault injection: per platform and tool, switched by configuration, deterministic from the seed.

A :class:`FaultPlan` is a list of :class:`FaultRule`; the first rule matching a call's platform
and tool that fires (with probability ``rate``, decided by a hash of the world's seed, the tool
and the call's sequence number — so a rerun injects the same faults at the same calls) decides
the fault. Kinds:

- ``latency``: answer normally ``latency`` seconds after the request (the world's own work
  counts toward them, as a server's work is part of its response time);
- ``timeout``: answer ``timeout`` seconds after the request (longer than any sane client
  timeout);
- ``5xx``: HTTP 503 with an HTML page; ``429``: HTTP 429 with ``Retry-After``;
- ``quota``: the family's daily-quota error; ``gateway``: the data.go.kr XML gateway error with
  HTTP 200 (even on a JSON request); ``truncated``: the right body cut in half.

A plan loads from JSON (``edgedsl world serve --faults plan.json``)::

    {"rules": [{"platform": "dart", "tool": "*", "kind": "latency", "latency": 0.1},
               {"platform": "*", "kind": "5xx", "rate": 0.05}]}
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from .rand import hash_unit

__all__ = ["FAULT_KINDS", "FaultPlan", "FaultRule"]

FAULT_KINDS = ("latency", "timeout", "5xx", "429", "quota", "gateway", "truncated")

FaultKind = Literal["latency", "timeout", "5xx", "429", "quota", "gateway", "truncated"]


@dataclass(frozen=True, slots=True)
class FaultRule:
    """Inject ``kind`` into calls of ``platform.tool`` (shell patterns) with probability ``rate``.

    ``latency`` (seconds) is the time from the request to any answer of a matching rule (the
    world's own work included), ``timeout`` that of a ``timeout`` fault. ``after`` skips the
    first N matching calls (a fault that starts mid-run).
    """

    kind: FaultKind
    platform: str = "*"
    tool: str = "*"
    rate: float = 1.0
    latency: float = 0.0
    timeout: float = 30.0
    after: int = 0

    def __post_init__(self) -> None:
        for name in ("platform", "tool"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"fault {name} must be a string pattern, "
                                 f"not {getattr(self, name)!r}")
        for name in ("rate", "latency", "timeout"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or v != v:
                raise ValueError(f"fault {name} must be a number, not {v!r}")
        if isinstance(self.after, bool) or not isinstance(self.after, int) or self.after < 0:
            raise ValueError(f"fault `after` must be a non-negative integer, not {self.after!r}")
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; known: {', '.join(FAULT_KINDS)}")
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"fault rate must be within [0, 1], not {self.rate}")
        if self.latency < 0 or self.timeout < 0:
            raise ValueError("fault latency and timeout must not be negative")

    def matches(self, platform: str, tool: str) -> bool:
        """True when this rule applies to ``platform.tool``."""
        return fnmatch.fnmatchcase(platform, self.platform) and \
            fnmatch.fnmatchcase(tool, self.tool)


@dataclass(frozen=True, slots=True)
class FaultPlan:
    """The world's fault rules, first match wins."""

    rules: tuple[FaultRule, ...] = field(default_factory=tuple)

    def pick(self, seed: int, platform: str, tool: str, n: int) -> FaultRule | None:
        """The rule that fires for the ``n``-th call of ``platform.tool`` (None: no fault)."""
        for i, rule in enumerate(self.rules):
            if not rule.matches(platform, tool) or n <= rule.after:
                continue
            if rule.rate >= 1.0 or hash_unit(seed, "fault", i, platform, tool, n) < rule.rate:
                return rule
        return None

    @classmethod
    def from_obj(cls, obj: Any) -> FaultPlan:
        """A plan from its JSON shape (``{"rules": [...]}`` or a bare list); ValueError if bad."""
        if isinstance(obj, dict):
            unknown = set(obj) - {"rules"}
            if unknown:  # a misspelt "rules" would otherwise be a plan without faults
                raise ValueError(f"a fault plan has only \"rules\"; unknown field(s) "
                                 f"{', '.join(sorted(map(str, unknown)))}")
            rules = obj.get("rules", [])
        else:
            rules = obj
        if not isinstance(rules, list):
            raise ValueError("a fault plan is {\"rules\": [...]} or a list of rules")
        out = []
        for i, r in enumerate(rules):
            if not isinstance(r, dict):
                raise ValueError(f"fault rule {i} is not an object")
            unknown = set(r) - set(FaultRule.__dataclass_fields__)
            if unknown:
                raise ValueError(f"fault rule {i}: unknown field(s) {', '.join(sorted(unknown))}")
            try:
                out.append(FaultRule(**r))
            except (TypeError, ValueError) as e:
                raise ValueError(f"fault rule {i}: {e}") from None
        return cls(tuple(out))

    @classmethod
    def load(cls, path: str | Path) -> FaultPlan:
        """A plan from a JSON file."""
        try:
            obj = orjson.loads(Path(path).read_bytes())
        except (OSError, orjson.JSONDecodeError) as e:
            raise ValueError(f"cannot read fault plan {str(path)!r}: {e}") from None
        return cls.from_obj(obj)
