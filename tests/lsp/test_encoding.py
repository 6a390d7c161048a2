"""Positions in the encoding the client offers: a client preferring UTF-8 (Neovim's
capabilities) gets byte columns, so a name after Korean text is found where it is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.helpers import diagnostics, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

TEXT = """\
use dart

trajectory t "삼성전자의 최근 변경일은?" {
  corps = dart.corp_codes()
  corp = drv corps | where corp_name == "삼성전자" | max modify_date
  bad = drv corps | where corp_name == "삼성전자" | max nope
  answer corp.modify_date
}
"""


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "edgedsl", "lsp"]),
)
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """A server initialised as Neovim would: UTF-8 offered first."""
    result = await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities("neovim")))
    assert result.capabilities.position_encoding == lsp.PositionEncodingKind.Utf8
    yield
    await lsp_client.shutdown_session()


def _utf8(line: str, needle: str) -> int:
    return len(line[:line.index(needle)].encode("utf-8"))


async def test_utf8_columns(client: LanguageClient, tmp_path: Path) -> None:
    """The diagnostic of `nope` and the hover over `modify_date`, both after Hangul on their
    line, are at the UTF-8 byte columns of those names."""
    uri = open_doc(client, tmp_path / "enc.edge", TEXT)
    diags = await diagnostics(client, uri)
    (e114,) = [d for d in diags if d.code == "E114"]
    line5 = TEXT.splitlines()[5]
    assert e114.range.start == lsp.Position(line=5, character=_utf8(line5, "nope"))
    assert e114.range.end.character - e114.range.start.character == len("nope")
    assert _utf8(line5, "nope") != line5.index("nope")  # Hangul: bytes are not characters

    line4 = TEXT.splitlines()[4]
    col = _utf8(line4, "modify_date") + 2
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        position=lsp.Position(line=4, character=col)))
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert hover.contents.value.startswith("**field `modify_date`**: `date`")
    assert hover.range == lsp.Range(
        start=lsp.Position(line=4, character=col - 2),
        end=lsp.Position(line=4, character=col - 2 + len("modify_date")))
