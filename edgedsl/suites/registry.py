"""The one registry of importable suites: name → how to write it and how to check it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import bfcl, nestful, tau2
from .outcome import Reproduced, Written

__all__ = ["SUITES", "Suite"]


@dataclass(frozen=True, slots=True)
class Suite:
    """An importable suite: its splits (the first is the default; a held-out split is read
    only when named), the writer and the checker (``src``, ``out``, ``split``)."""

    name: str
    title: str
    splits: tuple[str, ...]
    write: Callable[[Path, Path, str], Written]
    check: Callable[[Path, Path, str], Reproduced]


SUITES: dict[str, Suite] = {s.name: s for s in (
    Suite("nestful", "NESTFUL (IBM): 13 gold nested call sequences; answers", ("all",),
          nestful.write, nestful.check),
    Suite("tau2", "τ²-bench retail (Sierra): gold actions; database after them", tau2.SPLITS,
          tau2.write, tau2.check),
    Suite("bfcl", "BFCL v4 multi-turn base (Berkeley): gold calls; state after each turn",
          bfcl.SPLITS, bfcl.write, bfcl.check),
)}
