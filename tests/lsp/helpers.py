"""Helpers of the language server's tests: open a document, wait for its diagnostics, find a
position the way a UTF-16 client counts it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient


def open_doc(client: LanguageClient, path: Path, text: str | None = None) -> str:
    """Open ``path`` in the server (its text, or ``text``); its URI."""
    uri = path.resolve().as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="edge", version=1,
        text=path.read_text(encoding="utf-8") if text is None else text)))
    return uri


async def diagnostics(client: LanguageClient, uri: str) -> list[lsp.Diagnostic]:
    """The diagnostics the server published for ``uri`` (waiting up to 20 s for them; a test
    expecting new ones pops the old first)."""
    for _ in range(400):
        if uri in client.diagnostics:
            return list(client.diagnostics[uri])
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics published for {uri}")


def position(text: str, needle: str, into: int = 0) -> lsp.Position:
    """The LSP position (UTF-16) of ``needle`` in ``text``, ``into`` characters in."""
    offset = text.index(needle) + into
    line = text.count("\n", 0, offset)
    col = offset - (text.rfind("\n", 0, offset) + 1)
    units = len(text[offset - col:offset].encode("utf-16-le")) // 2
    return lsp.Position(line=line, character=units)
