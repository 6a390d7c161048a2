"""Between the compiler's spans and the Language Server Protocol's positions.

A :class:`~edgedsl.core.source.Span` counts columns in characters (code points); LSP counts
them in the code units of the encoding agreed at initialisation (UTF-16 unless the client
offers UTF-8 or UTF-32). Each conversion reads the line of the source the span points into, so
Hangul, which is one UTF-16 unit but three UTF-8 ones, lands where the client expects it.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from ..core.diagnostics import Diagnostic
from ..core.source import Source, Span

__all__ = ["diagnostic", "location", "offset_at", "path_of_uri", "position", "span_range",
           "units", "uri_of_path"]


def units(text: str, encoding: str | None) -> int:
    """How many code units of ``encoding`` (``utf-8``, ``utf-16`` or ``utf-32``; None is
    UTF-16, the protocol's default) ``text`` takes."""
    if encoding == lsp.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8"))
    if encoding == lsp.PositionEncodingKind.Utf32:
        return len(text)
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def position(source: Source, line: int, col: int, encoding: str | None) -> lsp.Position:
    """The LSP position of 1-based ``line`` and character column ``col`` of ``source``."""
    text = source.line_text(line)
    return lsp.Position(line=max(line - 1, 0), character=units(text[:max(col - 1, 0)], encoding))


def span_range(span: Span, source: Source, encoding: str | None) -> lsp.Range:
    """The LSP range of ``span`` (a span of ``source``)."""
    return lsp.Range(start=position(source, span.line, span.col, encoding),
                     end=position(source, span.end_line, span.end_col, encoding))


def offset_at(source: Source, pos: lsp.Position, encoding: str | None) -> int:
    """The character offset in ``source`` of the LSP position ``pos`` (clamped to the line)."""
    lines = source.line_count
    if pos.line >= lines:
        return len(source.text)
    start = _line_start(source, pos.line + 1)
    text = source.line_text(pos.line + 1)
    seen = 0
    for i, c in enumerate(text):
        if seen >= pos.character:
            return start + i
        seen += units(c, encoding)
    return start + len(text)


def _line_start(source: Source, line: int) -> int:
    """The offset where 1-based ``line`` starts."""
    offset, text = 0, source.text
    for _ in range(1, line):
        offset = text.index("\n", offset) + 1
    return offset


def uri_of_path(path: str | Path) -> str:
    """The ``file:`` URI of a path (made absolute)."""
    return Path(path).resolve().as_uri()


def path_of_uri(uri: str) -> str:
    """The file system path of a ``file:`` URI; other URIs are kept as they are (an unsaved
    document is checked under that name, its ``use``s found in the working directory)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    return unquote(parsed.path)


def location(span: Span, sources: dict[str, Source], main: str, main_uri: str,
             encoding: str | None) -> lsp.Location | None:
    """The LSP location of ``span``: in the document itself (``main``, at ``main_uri``) or
    in another file the checker read (a used module); None when its text is not known."""
    source = sources.get(span.file)
    if source is None:
        return None
    uri = main_uri if span.file == main else uri_of_path(span.file)
    return lsp.Location(uri=uri, range=span_range(span, source, encoding))


def diagnostic(d: Diagnostic, sources: dict[str, Source], main: str, main_uri: str,
               encoding: str | None) -> lsp.Diagnostic:
    """The LSP diagnostic of one of the checker's, shown in the document ``main``: its code,
    severity, message with the primary label and hints, and each secondary label as related
    information. A diagnostic whose primary span lies in another file (a used module) is
    shown at the start of the document, naming that file."""
    span = d.span
    source = sources.get(main)
    message = d.message
    primary = next((lb for lb in d.labels if lb.primary), None)
    if primary is not None and primary.message:
        message += f" ({primary.message})"
    if d.hints:
        message += "".join(f"\nhint: {h}" for h in d.hints)
    if span is not None and span.file == main and source is not None:
        rng = span_range(span, source, encoding)
    else:
        rng = lsp.Range(start=lsp.Position(line=0, character=0),
                        end=lsp.Position(line=0, character=0))
        if span is not None:
            message += f"\nin {span}"
    related = []
    for label in d.labels:
        if label is primary:
            continue
        where = location(label.span, sources, main, main_uri, encoding)
        if where is not None:
            related.append(lsp.DiagnosticRelatedInformation(
                location=where, message=label.message or "here"))
    if span is not None and span.file != main:
        where = location(span, sources, main, main_uri, encoding)
        if where is not None:
            related.insert(0, lsp.DiagnosticRelatedInformation(
                location=where, message=primary.message if primary and primary.message
                else d.message))
    return lsp.Diagnostic(
        range=rng,
        message=message,
        severity=lsp.DiagnosticSeverity.Warning if d.severity == "warning"
        else lsp.DiagnosticSeverity.Error,
        code=d.code,
        source="edgedsl",
        related_information=related or None,
    )
