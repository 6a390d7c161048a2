"""``edgedsl lsp`` driven by a real LSP client (pytest-lsp) over stdio, one test per feature.

The server runs as a subprocess (``python -m edgedsl lsp``) for the whole module; each test
opens its own documents: files of examples/ and small files written here, broken on purpose.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from edgedsl.reduce.registry import REDUCERS
from edgedsl.syntax.printer import format_text
from tests.lsp.helpers import diagnostics, open_doc, position

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

pytestmark = pytest.mark.asyncio(loop_scope="module")

OK = """\
use dart

trajectory latest "삼성전자의 가장 최근 공시는?" {
  corps = dart.corp_codes()
  corp = drv corps | where corp_name == "삼성전자"
  filings = dart.disclosures(corp_code: seq corp.corp_code, bgn_de: 2024-12-01) pages all
  latest = drv filings | max rcept_dt
  answer latest.report_nm
}
"""


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "edgedsl", "lsp"]),
)
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    """One server for the module, initialised as VS Code would (UTF-16 positions)."""
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


async def test_diagnostics_as_you_type(client: LanguageClient, tmp_path: Path) -> None:
    """A wrong tool name is E111 at the name, with its did-you-mean; a multi-valued `if`
    operand is E220 with the binding as related information; fixing the text as one types
    clears them."""
    path = tmp_path / "broken.edge"
    text = OK.replace("dart.corp_codes()", "dart.corp_code()").replace(
        "  answer latest.report_nm\n",
        "  if filings.rcept_dt >= 2024-12-02 {\n    say \"있음\"\n  }\n  answer latest.report_nm\n")
    uri = open_doc(client, path, text)
    diags = await diagnostics(client, uri)
    by_code = {d.code: d for d in diags}
    assert "E111" in by_code and "E220" in by_code, [d.code for d in diags]
    e111 = by_code["E111"]
    assert e111.range.start == position(text, "corp_code()")
    assert e111.range.end == position(text, "corp_code()", len("corp_code"))
    assert "did you mean `corp_codes`?" in e111.message
    assert e111.severity == lsp.DiagnosticSeverity.Error and e111.source == "edgedsl"
    related = by_code["E220"].related_information or []
    assert [r.message for r in related] == ["`filings` comes from here"]
    assert related[0].location.uri == uri
    assert related[0].location.range.start == position(text, "dart.disclosures(")

    client.diagnostics.pop(uri)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=OK)]))
    assert await diagnostics(client, uri) == []


async def test_syntax_error_diagnostic(client: LanguageClient, tmp_path: Path) -> None:
    """A syntax error is published with its E0xx code at the line it is on."""
    text = OK.replace("latest = drv filings | max rcept_dt", "latest = drv filings | max")
    uri = open_doc(client, tmp_path / "syntax.edge", text)
    diags = await diagnostics(client, uri)
    assert diags and all(d.code.startswith("E0") for d in diags), diags
    assert diags[0].range.start.line in (6, 7)


async def test_a_junction_gstar_saw_fail_is_w008(client: LanguageClient, tmp_path: Path) -> None:
    """As `edgedsl check` does, the server reads the shipped G* for a program over the stdlib:
    a hand-off refinement pruned is a warning at its junction."""
    text = ('use ex\n\ntrajectory menus "주유소 휴게소 메뉴" {\n'
            "  prices = ex.fuel_prices() pages all\n"
            "  cheapest = drv prices | min gasolinePrice\n"
            "  menus = ex.menus(stdRestCd: fan(3) cheapest.serviceAreaCode2) pages all\n"
            "  answer menus.foodNm\n}\n")
    uri = open_doc(client, tmp_path / "menus.edge", text)
    (w008,) = [d for d in await diagnostics(client, uri) if d.code == "W008"]
    assert w008.severity == lsp.DiagnosticSeverity.Warning
    assert w008.range.start == position(text, "fan(3) cheapest")
    assert "0 of 4 executions returned records" in w008.message


async def test_hover(client: LanguageClient, tmp_path: Path) -> None:
    """Hover over a tool shows its doc, parameters and fields with types; over a binding its
    record type and cardinality; over a field of a stdlib record its Korean label."""
    path = EXAMPLES / "samsung_filing.edge"
    text = path.read_text(encoding="utf-8")
    uri = open_doc(client, path)
    await diagnostics(client, uri)

    def hover(needle: str, into: int = 1):  # type: ignore[no-untyped-def]
        return client.text_document_hover_async(lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=position(text, needle, into)))

    tool = await hover("disclosures(")
    assert tool is not None and isinstance(tool.contents, lsp.MarkupContent)
    assert "tool `dart.disclosures`" in tool.contents.value
    assert "공시검색" in tool.contents.value
    assert "| `corp_code?` | `CorpCode` |" in tool.contents.value
    assert "| `rcept_dt` | `date` |" in tool.contents.value
    binding = await hover("filings = ")
    assert binding is not None and isinstance(binding.contents, lsp.MarkupContent)
    assert "binding `filings`**: `[dart.Disclosure]`" in binding.contents.value
    assert "every page" in binding.contents.value  # `pages all`
    one = await hover("latest = drv")
    assert one is not None and isinstance(one.contents, lsp.MarkupContent)
    assert "its reducers keep (max rcept_dt)" in one.contents.value

    uri2 = open_doc(client, tmp_path / "labels.edge", OK)
    await diagnostics(client, uri2)
    field = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri2), position=position(OK, "rcept_dt", 2)))
    assert field is not None and isinstance(field.contents, lsp.MarkupContent)
    assert field.contents.value.startswith('**field `rcept_dt`**: `date` "접수일자"')


async def test_go_to_definition(client: LanguageClient) -> None:
    """Go to definition of a tool, a record type, a code type, a binding and a used module."""
    path = EXAMPLES / "samsung_filing.edge"
    text = path.read_text(encoding="utf-8")
    uri = open_doc(client, path)
    fin = (EXAMPLES / "fin.edge").resolve()
    fin_text = fin.read_text(encoding="utf-8")

    async def go(doc: str, body: str, needle: str, into: int = 1) -> lsp.Location:
        got = await client.text_document_definition_async(lsp.DefinitionParams(
            text_document=lsp.TextDocumentIdentifier(uri=doc),
            position=position(body, needle, into)))
        assert isinstance(got, lsp.Location), got
        return got

    tool = await go(uri, text, "stock_price(")
    assert tool.uri == fin.as_uri()
    assert tool.range.start == position(fin_text, "stock_price \"")
    binding = await go(uri, text, "latest.report_nm")
    assert binding.uri == uri and binding.range.start == position(text, "latest = drv")
    module = await go(uri, text, "fin\n")
    assert module.uri == fin.as_uri() and module.range.start == lsp.Position(line=0, character=0)

    fin_uri = open_doc(client, fin)
    record = await go(fin_uri, fin_text, "[Disclosure]")
    assert record.uri == fin_uri and record.range.start == position(fin_text, "Disclosure {")
    code = await go(fin_uri, fin_text, "StockCode?")
    codes = ROOT / "stdlib" / "codes.edge"
    assert code.uri == codes.resolve().as_uri()
    assert code.range.start == position(codes.read_text(encoding="utf-8"), "StockCode =")


async def test_completion(client: LanguageClient, tmp_path: Path) -> None:
    """Completion offers platforms after `=`, a platform's tools after `dart.`, a tool's
    parameters in its argument list, a relation's fields after `x.` and every reducer of the
    registry after `|`."""
    path = tmp_path / "complete.edge"
    uri = open_doc(client, path, OK)
    await diagnostics(client, uri)
    head = OK[:OK.index("  answer")]

    async def labels(typed: str) -> set[str]:
        text = head + typed + "\n}\n"
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=len(typed)),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))
        got = await client.text_document_completion_async(lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=position(text, head + typed, len(head + typed))))
        assert got is not None
        items = got.items if isinstance(got, lsp.CompletionList) else got
        return {i.label for i in items}

    assert {"dart", "drv", "parallel", "compare"} <= await labels("  x = ")
    assert {"disclosures", "corp_codes", "company"} <= await labels("  x = dart.")
    assert {"corp_code", "bgn_de", "end_de"} <= await labels("  x = dart.disclosures(")
    assert {"report_nm", "rcept_dt", "corp_name"} <= await labels("  answer latest.")
    steps = await labels("  x = drv filings | ")
    for r in REDUCERS.values():
        assert (r.surface if r.form != "where" else r.spell("f", "p")) in steps, r.op
    assert {"rcept_dt", "report_nm"} <= await labels("  x = drv filings | max ")
    ops = await labels("  x = drv filings | where rcept_dt ")
    assert {r.surface for r in REDUCERS.values() if r.form == "where"} == ops


async def test_formatting(client: LanguageClient, tmp_path: Path) -> None:
    """Formatting a document returns the text of `edgedsl fmt`; a formatted one no edit."""
    messy = OK.replace("  corps = dart.corp_codes()", "corps   =   dart.corp_codes( )")
    uri = open_doc(client, tmp_path / "messy.edge", messy)
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        options=lsp.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert edits is not None and len(edits) == 1
    assert edits[0].new_text == format_text(messy, "messy.edge") == OK
    assert edits[0].range.start == lsp.Position(line=0, character=0)
    clean = open_doc(client, tmp_path / "clean.edge", OK)
    assert not await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=lsp.TextDocumentIdentifier(uri=clean),
        options=lsp.FormattingOptions(tab_size=2, insert_spaces=True)))


async def test_document_symbols(client: LanguageClient) -> None:
    """The outline: the used module, the trajectory and its bindings; a catalog file's
    platforms with their records (fields) and tools (parameters)."""
    path = EXAMPLES / "school_day.edge"
    uri = open_doc(client, path)
    got = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert got is not None
    syms = [s for s in got if isinstance(s, lsp.DocumentSymbol)]
    assert syms[0].name == "school" and syms[0].kind == lsp.SymbolKind.Module
    traj = next(s for s in syms if s.name == "lunch_and_schedule")
    assert traj.kind == lsp.SymbolKind.Event
    assert [c.name for c in traj.children or []] == ["schools", "school", "day", "answer"]

    fin = open_doc(client, EXAMPLES / "fin.edge")
    got = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=lsp.TextDocumentIdentifier(uri=fin)))
    assert got is not None
    dart = next(s for s in got if isinstance(s, lsp.DocumentSymbol) and s.name == "dart")
    kids = {c.name: c for c in dart.children or []}
    assert kids["Disclosure"].kind == lsp.SymbolKind.Struct
    assert "rcept_dt" in [f.name for f in kids["Disclosure"].children or []]
    assert [p.name for p in kids["company"].children or []] == ["corp_code"]
