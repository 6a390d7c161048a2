"""The run settings a file declares in its ``run { … }`` block.

A synthesized file's answer depends on the world it ran on (its seed) and, for some programs,
on the bounds of the run (φ for an unbounded ``fan``, ``max_pages`` for ``pages all``). The
file states them so that ``edgedsl run FILE`` reproduces the answer with no option
(``docs/language.md``, "Run settings"). The checker builds a :class:`RunSettings`
(:mod:`edgedsl.check.settings`), the plan carries it (``Plan.run``), the CLI applies it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar

__all__ = ["RUN_SETTINGS", "RunSettings"]

RUN_SETTINGS: dict[str, str] = {
    "seed": "the world backend's seed (a whole number ≥ 0)",
    "phi": "the fan-out budget φ of an unbounded `fan` (a whole number ≥ 1)",
    "max_pages": "the bound of `pages all` (a whole number ≥ 1)",
}
"""Every setting a ``run`` block may hold, with what it sets."""

MINIMUM: dict[str, int] = {"seed": 0, "phi": 1, "max_pages": 1}
"""The smallest value each setting accepts."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunSettings:
    """A file's run settings; ``None``: not stated (the command's default applies)."""

    # read by the plan's validator (pydantic is not imported here): unknown keys are errors
    __pydantic_config__: ClassVar[Mapping[str, str]] = MappingProxyType({"extra": "forbid"})

    seed: int | None = None
    phi: int | None = None
    max_pages: int | None = None

    def stated(self) -> dict[str, int]:
        """The settings the file states, by name, in declaration order of :data:`RUN_SETTINGS`."""
        return {k: v for k in RUN_SETTINGS if (v := getattr(self, k)) is not None}
