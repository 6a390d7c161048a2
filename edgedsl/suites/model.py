"""The shared model of an imported suite: gold cases as data, before they become ASTs.

A third-party suite's gold is a list of :class:`GoldCase` — a query and the calls of its gold
trajectory, in order — whose arguments are JSON literals or :class:`FieldRef` (a field of an
earlier call's output). Each importer (:mod:`.nestful`, :mod:`.tau2`) reads its suite's files
into this form; :mod:`.emit` turns it into formatted ``.edge`` text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["SPLITS", "FieldRef", "GoldCall", "GoldCase", "SuiteError", "check_split"]


class SuiteError(ValueError):
    """A suite's files are missing or do not have the shape the importer reads."""


SPLITS = ("train", "test", "all")
"""The splits of a suite with held-out cases: ``test`` is read only when named."""


def check_split(split: str) -> None:
    """SuiteError unless ``split`` is one of :data:`SPLITS`."""
    if split not in SPLITS:
        raise SuiteError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")


@dataclass(frozen=True, slots=True)
class FieldRef:
    """An argument forwarded from an earlier call: field ``field`` of binding ``label``."""

    label: str
    field: str


@dataclass(frozen=True, slots=True)
class GoldCall:
    """One call of a gold trajectory: the binding it makes, the suite's tool (``tool`` or
    ``platform.tool``), its arguments (JSON values or :class:`FieldRef`) in the suite's own
    order, and comment lines written before it."""

    label: str
    tool: str
    args: dict[str, Any]
    comments: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GoldCase:
    """One gold case of a suite: its id in the suite, the trajectory name it is written under,
    the user's query, the gold calls in order, the field the answer reads (or None) and the
    suite's gold answer where it has one."""

    case_id: str
    name: str
    query: str
    calls: tuple[GoldCall, ...]
    answer: FieldRef | None = None
    gold_answer: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def refs(self) -> list[tuple[str, str, FieldRef]]:
        """Every forwarded argument, and every forwarded item of a list argument: (call
        label, parameter, reference), in call order."""
        return [(c.label, p, r) for c in self.calls for p, v in c.args.items()
                for r in (v if isinstance(v, list) else [v]) if isinstance(r, FieldRef)]
