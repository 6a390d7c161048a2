"""The language server of ``edgedsl lsp`` (pygls, over stdio).

Each open document is analysed (:func:`edgedsl.lsp.analysis.analyse`) when it is opened,
changed or saved, and its diagnostics published at once (diagnostics as you type). Hover, go to
definition and document symbols read the latest analysis; completion reads the text before the
cursor and the latest analysis that parsed (the text being typed rarely does); formatting is
the formatter of ``edgedsl fmt`` (:func:`edgedsl.syntax.printer.format_text`).

Initialisation options (``initializationOptions``): ``{"lib": ["dir", …]}``, directories
searched by ``use`` after the document's own (as ``--lib`` of the commands).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..core.diagnostics import CompileError
from ..core.source import Span
from ..syntax import nodes as n
from ..syntax.printer import format_text
from . import convert
from .analysis import Analysis, analyse
from .complete import complete
from .hover import hover_markdown
from .symbols import Occurrence, at_offset, declarations, definition, occurrences

__all__ = ["EdgeServer", "make_server", "serve"]


@dataclass
class _Doc:
    """What the server keeps of one open document."""

    analysis: Analysis
    occurrences: list[Occurrence]
    last_parsed: Analysis | None = None


@dataclass
class _State:
    lib: list[Path] = field(default_factory=list)
    docs: dict[str, _Doc] = field(default_factory=dict)


class EdgeServer(LanguageServer):
    """The edgedsl language server: a pygls server with the documents' analyses."""

    def __init__(self, lib: Sequence[Path] = ()) -> None:
        super().__init__("edgedsl", __version__)
        self.state = _State(lib=list(lib))

    @property
    def encoding(self) -> str | None:
        """The position encoding agreed with the client."""
        return self.workspace.position_encoding

    def refresh(self, uri: str) -> _Doc:
        """Analyse the document at ``uri`` as it now reads and publish its diagnostics."""
        doc = self.workspace.get_text_document(uri)
        name = convert.path_of_uri(uri)
        analysis = analyse(doc.source, name, self.state.lib)
        before = self.state.docs.get(uri)
        last = analysis if analysis.parsed else (before.last_parsed if before else None)
        entry = _Doc(analysis, occurrences(analysis), last)
        self.state.docs[uri] = entry
        diags = [convert.diagnostic(d, analysis.sources, name, uri, self.encoding)
                 for d in analysis.diagnostics]
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, diagnostics=diags, version=doc.version))
        return entry

    def doc(self, uri: str) -> _Doc:
        """The latest analysis of the document at ``uri`` (made now if there is none)."""
        return self.state.docs.get(uri) or self.refresh(uri)

    def under(self, uri: str, pos: lsp.Position) -> tuple[_Doc, Occurrence | None]:
        """The document and the name under the cursor at ``pos``."""
        entry = self.doc(uri)
        offset = convert.offset_at(entry.analysis.source, pos, self.encoding)
        return entry, at_offset(entry.occurrences, offset)


def _symbols(module: n.Module, a: Analysis, enc: str | None) -> list[lsp.DocumentSymbol]:
    """The document's outline: ``use``, platforms (their types, records with fields, tools
    with parameters), trajectories (their bindings and answer) and the ``run`` block."""
    src = a.source
    K = lsp.SymbolKind

    def sym(name: str, kind: lsp.SymbolKind, whole: Span, at: int = -1, detail: str = "",
            children: list[lsp.DocumentSymbol] | None = None) -> lsp.DocumentSymbol:
        rng = convert.span_range(whole, src, enc)
        sel = convert.span_range(src.span(at, at + len(name)), src, enc) if at >= 0 else rng
        return lsp.DocumentSymbol(name=name, kind=kind, range=rng, selection_range=sel,
                                  detail=detail or None, children=children or None)

    def catalog(item: object) -> lsp.DocumentSymbol | None:
        if isinstance(item, n.TypeDecl):
            return sym(item.name, K.TypeParameter, item.span, item.name_at,
                       f"code /{item.pattern}/")
        if isinstance(item, n.RecordDecl):
            return sym(item.name, K.Struct, item.span, item.name_at, children=[
                sym(f.name, K.Field, f.span, f.name_at, f.label or "") for f in item.fields])
        if isinstance(item, n.ToolDecl):
            return sym(item.name, K.Function, item.span, item.name_at, item.doc or "", [
                sym(p.name, K.Variable, p.span, p.name_at, p.label or "") for p in item.params])
        return None

    def stmts(body: tuple[n.Stmt, ...]) -> list[lsp.DocumentSymbol]:
        out: list[lsp.DocumentSymbol] = []
        for s in body:
            if isinstance(s, n.Binding):
                node = s.node
                detail = (node.qualname if isinstance(node, n.Call) else
                          type(node).__name__.lower())
                out.append(sym(s.name, K.Variable, s.span, s.name_at, detail))
            elif isinstance(s, n.IfStmt):
                out.extend(stmts(s.then))
                out.extend(stmts(s.orelse or ()))
            elif isinstance(s, n.AnswerStmt):
                out.append(sym("answer", K.Property, s.span, children=[
                    sym(f.name, K.Field, f.span, f.name_at) for f in s.fields or ()]))
        return out

    symbols: list[lsp.DocumentSymbol] = []
    for item in module.items:
        if isinstance(item, n.UseDecl):
            symbols.extend(sym(name, K.Module, item.span, at)
                           for name, at in zip(item.names, item.name_at, strict=False))
        elif isinstance(item, n.PlatformDecl):
            kids = [c for c in map(catalog, item.items) if c is not None]
            symbols.append(sym(item.name, K.Namespace, item.span, item.name_at, item.doc or "",
                               kids))
        elif isinstance(item, n.Trajectory):
            symbols.append(sym(item.name, K.Event, item.span, item.name_at, item.query,
                               stmts(item.body)))
        elif isinstance(item, n.RunDecl):
            symbols.append(sym("run", K.Object, item.span, children=[
                sym(s.name, K.Property, s.span, s.name_at) for s in item.settings]))
        else:
            one = catalog(item)
            if one is not None:
                symbols.append(one)
    return symbols


def make_server(lib: Sequence[Path] = ()) -> EdgeServer:
    """The language server with every feature registered; ``lib``: directories searched by
    ``use`` after the document's own."""
    server = EdgeServer(lib)

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: EdgeServer, params: lsp.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict) and isinstance(options.get("lib"), list):
            ls.state.lib.extend(Path(str(d)) for d in options["lib"])

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: EdgeServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: EdgeServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: EdgeServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: EdgeServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.state.docs.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=params.text_document.uri, diagnostics=[]))

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: EdgeServer, params: lsp.HoverParams) -> lsp.Hover | None:
        entry, occ = ls.under(params.text_document.uri, params.position)
        ctx = entry.analysis.ctx
        if occ is None or ctx is None:
            return None
        src = entry.analysis.source
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown,
                                       value=hover_markdown(occ.target, ctx)),
            range=convert.span_range(src.span(occ.start, occ.end), src, ls.encoding))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def goto(ls: EdgeServer, params: lsp.DefinitionParams) -> lsp.Location | None:
        entry, occ = ls.under(params.text_document.uri, params.position)
        a = entry.analysis
        if occ is None or a.ctx is None:
            return None
        span = definition(occ.target, a.ctx, declarations(a.ctx))
        if span is None:
            return None
        return convert.location(span, a.sources, a.source.name, params.text_document.uri,
                                ls.encoding)

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION,
                    lsp.CompletionOptions(trigger_characters=[".", "|", "(", ",", " "]))
    def completion(ls: EdgeServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        uri = params.text_document.uri
        entry = ls.doc(uri)
        doc = ls.workspace.get_text_document(uri)
        offset = doc.offset_at_position(params.position)
        last = entry.last_parsed
        items = complete(doc.source[:offset], None if last is None else last.ctx)
        return lsp.CompletionList(is_incomplete=False, items=items)

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: EdgeServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit]:
        uri = params.text_document.uri
        doc = ls.workspace.get_text_document(uri)
        try:
            text = format_text(doc.source, convert.path_of_uri(uri))
        except CompileError:  # a text that does not parse is left alone (its errors shown)
            return []
        if text == doc.source:
            return []
        lines = doc.lines
        end = lsp.Position(line=len(lines), character=0)
        return [lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=0, character=0), end=end),
                             new_text=text)]

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbols(ls: EdgeServer,
                         params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        a = ls.doc(params.text_document.uri).analysis
        return [] if a.module is None else _symbols(a.module, a, ls.encoding)

    return server


def serve(lib: Sequence[Path] = ()) -> None:
    """Run the language server over stdin and stdout until the client exits."""
    make_server(lib).start_io()
