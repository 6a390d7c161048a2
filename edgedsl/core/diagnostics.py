"""The one diagnostic model of edgedsl.

Every stage reports problems as :class:`Diagnostic` values: a stable code (``E0xx`` syntax,
``E1xx`` names and catalogs, ``E2xx`` types and reducers, ``E3xx`` graph, ``E4xx`` plan, ``R5xx``
run time, ``W…`` warnings), a severity, a one-line message, labelled spans, hints and an optional
fix. Passes *collect* diagnostics in a :class:`Diagnostics` bag; a stage boundary raises one
:class:`CompileError` carrying all of them. Renderers live in ``render.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from difflib import get_close_matches
from typing import Literal

from .source import Source, Span, universal_newlines

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Label:
    """A span with a short message; the primary label gets carets, secondary ones dashes."""

    span: Span
    message: str = ""
    primary: bool = True


@dataclass(frozen=True, slots=True)
class Fix:
    """A machine-applicable edit: replace ``span`` with ``replacement``."""

    span: Span
    replacement: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found by a stage: code, severity, message, labels, hints and optional fix."""

    code: str
    message: str
    labels: tuple[Label, ...] = ()
    hints: tuple[str, ...] = ()
    fix: Fix | None = None

    @property
    def severity(self) -> Severity:
        """``warning`` for ``W…`` codes, ``error`` otherwise."""
        return "warning" if self.code.startswith("W") else "error"

    @property
    def span(self) -> Span | None:
        """The primary span, if any."""
        for label in self.labels:
            if label.primary:
                return label.span
        return self.labels[0].span if self.labels else None

    def to_json(self) -> dict[str, object]:
        """A plain dict for ``--json`` output."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "labels": [
                {"span": lb.span.to_json(), "message": lb.message, "primary": lb.primary}
                for lb in self.labels
            ],
            "hints": list(self.hints),
            "fix": None
            if self.fix is None
            else {
                "span": self.fix.span.to_json(),
                "replacement": self.fix.replacement,
                "description": self.fix.description,
            },
        }


def diag(
    code: str,
    message: str,
    span: Span | None = None,
    label: str = "",
    *,
    hints: Iterable[str] = (),
    secondary: Iterable[tuple[Span, str]] = (),
    fix: Fix | None = None,
) -> Diagnostic:
    """Shorthand for a diagnostic with one primary label and optional secondary ones."""
    labels: list[Label] = []
    if span is not None:
        labels.append(Label(span, label, True))
    labels.extend(Label(s, m, False) for s, m in secondary)
    return Diagnostic(code, message, tuple(labels), tuple(hints), fix)


@dataclass
class Diagnostics:
    """A bag that passes append to; it never raises by itself."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(self, d: Diagnostic) -> None:
        """Record one diagnostic."""
        self.items.append(d)

    def extend(self, ds: Iterable[Diagnostic]) -> None:
        """Record several diagnostics."""
        self.items.extend(ds)

    @property
    def errors(self) -> list[Diagnostic]:
        """The diagnostics of severity error."""
        return [d for d in self.items if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        """The diagnostics of severity warning."""
        return [d for d in self.items if d.severity == "warning"]

    def has_errors(self) -> bool:
        """True when at least one error was recorded."""
        return any(d.severity == "error" for d in self.items)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def raise_if_errors(self, stage: str) -> None:
        """At a stage boundary: raise one CompileError carrying every diagnostic."""
        if self.has_errors():
            raise CompileError(stage, list(self.items))


class CompileError(Exception):
    """Raised at a stage boundary with all diagnostics collected by that stage."""

    def __init__(self, stage: str, diagnostics: list[Diagnostic]) -> None:
        self.stage = stage
        self.diagnostics = diagnostics
        first = next((d for d in diagnostics if d.severity == "error"), diagnostics[0])
        n = sum(1 for d in diagnostics if d.severity == "error")
        more = f" (and {n - 1} more)" if n > 1 else ""
        super().__init__(f"{stage}: {first.code}: {first.message}{more}")


def not_utf8(name: str, err: UnicodeDecodeError) -> tuple[Diagnostic, Source]:
    """``E000`` for the file ``name`` that is not UTF-8 (``err`` from
    :func:`~edgedsl.core.source.decode_source`), at its first bad byte; and the file's text as
    :meth:`Source.for_display <edgedsl.core.source.Source.for_display>` reads it, which the span
    points into."""
    data = err.object if isinstance(err.object, bytes) else bytes(err.object)
    before = universal_newlines(data[:err.start].decode("utf-8", "replace"))
    source = Source(name, universal_newlines(data.decode("utf-8", "replace")))
    bad = " ".join(f"0x{b:02X}" for b in data[err.start:err.end][:4])
    return diag(
        "E000",
        f"`{name}` is not UTF-8 text: {err.reason} ({bad})",
        source.span(len(before), len(before) + 1),
        "not UTF-8",
        hints=["edgedsl files are UTF-8: save it as UTF-8 (a byte-order mark at its start is "
               "fine)"],
    ), source


def did_you_mean(name: str, candidates: Iterable[str], n: int = 1) -> list[str]:
    """Close matches of ``name`` among ``candidates`` by edit similarity (best first)."""
    pool = sorted(set(candidates))
    hits = get_close_matches(name, pool, n=n, cutoff=0.6)
    if not hits:
        lowered = {c.lower(): c for c in pool}
        hits = [lowered[h] for h in get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)]
    return hits


def suggestion_hint(name: str, candidates: Iterable[str]) -> list[str]:
    """``["did you mean `x`?"]`` when a close match exists, else ``[]``."""
    hits = did_you_mean(name, candidates)
    return [f"did you mean `{hits[0]}`?"] if hits else []
