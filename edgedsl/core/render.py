"""The two diagnostic renderers: rustc/ruff-style text and JSON.

Text layout (``render_text``)::

    error[E204]: reducer `after` needs a date field
      --> examples/filings.edge:9:29
       |
     6 |   filings = dart.disclosures(corp_code: seq corp.corp_code) pages all
       |             ----------------------------------------------------- `filings` comes from here
     9 |   recent  = drv filings | where report_nm after 2024-12-20
       |                                 ^^^^^^^^^ `report_nm` is a str
       |
       = help: `after` needs a date field; did you mean `rcept_dt`?

The primary label gets carets, secondary labels dashes; a span over several lines is marked
from its start to the end of its first line; labels in another file get a ``:::`` header.
Columns account for wide (Korean) characters and tabs. A summary line closes the output.
ANSI colour only when ``color=True``.
"""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path

import orjson

from .diagnostics import Diagnostic, Label
from .source import Source

_RESET = "\x1b[0m"
_STYLE = {
    "error": "\x1b[1;31m",
    "warning": "\x1b[1;33m",
    "gutter": "\x1b[1;34m",
    "secondary": "\x1b[1;34m",
    "bold": "\x1b[1m",
    "help": "\x1b[1;36m",
}
TAB = 4


def _width(text: str) -> int:
    """Display width of ``text`` in a terminal (wide characters count 2, tabs 4)."""
    w = 0
    for ch in text:
        if ch == "\t":
            w += TAB
        elif unicodedata.combining(ch):
            continue
        elif unicodedata.east_asian_width(ch) in ("W", "F"):
            w += 2
        else:
            w += 1
    return w


def _plural(k: int, word: str) -> str:
    return f"{k} {word}{'s' if k != 1 else ''}"


class _Painter:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, style: str, text: str) -> str:
        if not self.color or not text:
            return text
        return f"{_STYLE[style]}{text}{_RESET}"


def _source_for(
    name: str, sources: Mapping[str, Source], cache: dict[str, Source | None]
) -> Source | None:
    if name in sources:
        return sources[name]
    if name not in cache:
        cache[name] = None
        p = Path(name)
        if p.is_file():
            with contextlib.suppress(OSError):
                cache[name] = Source.for_display(p)
    return cache[name]


def _render_one(
    d: Diagnostic, sources: Mapping[str, Source], paint: _Painter, cache: dict[str, Source | None]
) -> list[str]:
    sev = d.severity
    out = [f"{paint(sev, f'{sev}[{d.code}]')}{paint('bold', ': ' + d.message)}"]
    labels = [lb for lb in d.labels if lb.span.line > 0]
    width = max([len(str(lb.span.line)) for lb in labels] or [1])
    pad = " " * (width + 1)
    bar = paint("gutter", "|")
    primary = next((lb for lb in labels if lb.primary), labels[0] if labels else None)
    files: list[str] = []
    if primary is not None:
        files.append(primary.span.file)
    files.extend(f for f in dict.fromkeys(lb.span.file for lb in labels) if f not in files)
    for i, fname in enumerate(files):
        in_file = [lb for lb in labels if lb.span.file == fname]
        anchor = primary if primary is not None and primary.span.file == fname else in_file[0]
        arrow = "-->" if i == 0 else ":::"
        out.append(f"{pad}{paint('gutter', arrow)} {anchor.span}")
        src = _source_for(fname, sources, cache)
        if src is None:
            continue
        out.append(f"{pad} {bar}")
        for line in sorted({lb.span.line for lb in in_file}):
            text = src.line_text(line)
            num = paint("gutter", f"{line:>{width}} |")
            shown = text.replace("\t", " " * TAB)
            out.append(f" {num} {shown}".rstrip())
            on_line = sorted(
                (lb for lb in in_file if lb.span.line == line),
                key=lambda lb: (lb.span.col, not lb.primary),
            )
            for lb in on_line:
                out.append(f"{pad} {bar} {_underline(lb, text, paint, sev)}".rstrip())
    if d.hints or d.fix is not None:
        if labels:
            out.append(f"{pad} {bar}")
        for h in d.hints:
            out.append(f"{pad} {paint('help', '=')} {paint('bold', 'help:')} {h}")
        if d.fix is not None:
            desc = d.fix.description or "replace with"
            out.append(
                f"{pad} {paint('help', '=')} {paint('bold', 'fix:')} {desc} `{d.fix.replacement}`"
            )
    return out


def _underline(lb: Label, text: str, paint: _Painter, sev: str) -> str:
    span = lb.span
    start = max(0, span.col - 1)
    end = span.end_col - 1 if span.end_line == span.line else len(text)
    end = max(end, start)
    lead = _width(text[:start])
    length = max(1, _width(text[start:end]))
    mark = ("^" if lb.primary else "-") * length
    style = sev if lb.primary else "secondary"
    msg = f" {lb.message}" if lb.message else ""
    return " " * lead + paint(style, mark + msg)


def summary(diags: Sequence[Diagnostic]) -> str:
    """``error: 2 errors, 1 warning`` / ``warning: 1 warning`` / ``""`` when there is nothing."""
    errors = sum(1 for d in diags if d.severity == "error")
    warnings = len(diags) - errors
    if errors:
        tail = f", {_plural(warnings, 'warning')}" if warnings else ""
        return f"error: {_plural(errors, 'error')}{tail}"
    if warnings:
        return f"warning: {_plural(warnings, 'warning')}"
    return ""


def render_text(
    diags: Sequence[Diagnostic], sources: Mapping[str, Source] | None = None, color: bool = False
) -> str:
    """Render diagnostics as text with source excerpts, then a summary line.

    ``sources`` maps file names to their text; a file missing from it is read from disk when it
    exists, otherwise only its ``-->`` location is shown.
    """
    if not diags:
        return ""
    paint = _Painter(color)
    cache: dict[str, Source | None] = {}
    blocks = ["\n".join(_render_one(d, sources or {}, paint, cache)) for d in diags]
    total = summary(diags)
    sev = "error" if total.startswith("error") else "warning"
    head, _, rest = total.partition(":")
    return "\n\n".join(blocks) + "\n\n" + paint(sev, head) + paint("bold", ":" + rest) + "\n"


def render_json(diags: Sequence[Diagnostic]) -> str:
    """Render diagnostics as a JSON list of :meth:`Diagnostic.to_json` objects."""
    return orjson.dumps([d.to_json() for d in diags], option=orjson.OPT_INDENT_2).decode()


__all__ = ["render_json", "render_text", "summary"]
