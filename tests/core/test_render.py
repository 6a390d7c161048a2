"""The text and JSON renderers of diagnostics (``edgedsl.core.render``) and the code registry."""

from __future__ import annotations

import orjson
import pytest

from edgedsl.core.codes import CODES, explain
from edgedsl.core.diagnostics import Diagnostic, Fix, Label, diag
from edgedsl.core.render import render_json, render_text, summary
from edgedsl.core.source import Source

TEXT = """use dart

trajectory filings "q" {
  corp = dart.corp_code(corp_name: "삼성전자")

  filings = dart.disclosures(corp_code: seq corp.corp_code) pages all


  recent = drv filings | where report_nm after 2024-12-20
}
"""
SRC = Source("examples/filings.edge", TEXT)
CALL = "dart.disclosures(corp_code: seq corp.corp_code) pages all"


def span_of(needle: str, src: Source = SRC, nth: int = 0):  # type: ignore[no-untyped-def]
    start = -1
    for _ in range(nth + 1):
        start = src.text.index(needle, start + 1)
    return src.span(start, start + len(needle))


def test_design_layout() -> None:
    d = diag(
        "E204",
        "reducer `after` needs a date field",
        span_of("report_nm"),
        "`report_nm` is a str",
        secondary=[(span_of(CALL), "`filings` comes from here")],
        hints=["`after` needs a date field; did you mean `rcept_dt`?"],
    )
    out = render_text([d], {SRC.name: SRC})
    assert out == (
        "error[E204]: reducer `after` needs a date field\n"
        "  --> examples/filings.edge:9:32\n"
        "   |\n"
        " 6 |   filings = dart.disclosures(corp_code: seq corp.corp_code) pages all\n"
        "   |             " + "-" * len(CALL) + " `filings` comes from here\n"
        " 9 |   recent = drv filings | where report_nm after 2024-12-20\n"
        "   |                                ^^^^^^^^^ `report_nm` is a str\n"
        "   |\n"
        "   = help: `after` needs a date field; did you mean `rcept_dt`?\n"
        "\n"
        "error: 1 error\n"
    )


def test_wide_characters_shift_the_carets() -> None:
    d = diag("E999", "m", span_of(")", nth=0), "here")
    lines = render_text([d], {SRC.name: SRC}).splitlines()
    src_line, mark = lines[3], lines[4]
    assert src_line.startswith(" 4 |")
    # `"삼성전자"` is 4 wide characters: the caret sits 4 columns further right than the index
    col = src_line.index(")")
    assert mark.index("^") == col + 4


def test_multi_line_span_marks_to_end_of_first_line() -> None:
    start = TEXT.index("trajectory")
    d = diag("E999", "m", SRC.span(start, len(TEXT) - 1), "whole trajectory")
    lines = render_text([d], {SRC.name: SRC}).splitlines()
    assert lines[3] == ' 3 | trajectory filings "q" {'
    assert lines[4] == "   | " + "^" * len('trajectory filings "q" {') + " whole trajectory"


def test_labels_in_another_file_and_missing_sources() -> None:
    other = Source("stdlib/dart.edge", "platform dart {\n  tool corp_code\n}\n")
    d = Diagnostic(
        "E203",
        "m",
        (
            Label(span_of("corp.corp_code"), "here", True),
            Label(other.span(18, 27), "declared here", False),
        ),
    )
    out = render_text([d], {SRC.name: SRC, other.name: other})
    assert "  ::: stdlib/dart.edge:2:3\n" in out
    assert " 2 |   tool corp_code\n   |   --------- declared here\n" in out
    bare = render_text([d], {})
    assert "  --> examples/filings.edge:6:45\n  ::: stdlib/dart.edge:2:3\n" in bare


def test_two_labels_on_one_line_read_left_to_right() -> None:
    d = Diagnostic(
        "E118",
        "m",
        (
            Label(span_of("corp_code", nth=2), "second", True),
            Label(span_of("corp_code", nth=1), "first", False),
        ),
    )
    lines = render_text([d], {SRC.name: SRC}).splitlines()
    assert lines[4].endswith("first") and lines[5].endswith("second")


def test_widths_grow_with_line_numbers_and_warnings_are_labelled() -> None:
    src = Source("f.edge", "\n" * 11 + "x = 1\n")
    d = diag("W001", "`x` is never used", src.span(11, 12), "unused", hints=["remove it"])
    out = render_text([d], {"f.edge": src})
    assert out.startswith(
        "warning[W001]: `x` is never used\n   --> f.edge:12:1\n    |\n 12 | x = 1\n"
    )
    assert out.endswith("    = help: remove it\n\nwarning: 1 warning\n")


def test_diagnostic_without_labels_and_fix() -> None:
    d = Diagnostic(
        "E000", "cannot read `x`", (), ("check the path",), Fix(SRC.span(0, 3), "use", "write")
    )
    assert render_text([d]) == (
        "error[E000]: cannot read `x`\n   = help: check the path\n"
        "   = fix: write `use`\n\nerror: 1 error\n"
    )


def test_color_only_when_asked() -> None:
    d = diag("E204", "m", span_of("report_nm"), "l", hints=["h"])
    assert "\x1b[" not in render_text([d], {SRC.name: SRC}, color=False)
    colored = render_text([d], {SRC.name: SRC}, color=True)
    assert "\x1b[1;31merror[E204]\x1b[0m" in colored


def test_summary() -> None:
    e = diag("E113", "m")
    w = diag("W001", "m")
    assert summary([e, e, w]) == "error: 2 errors, 1 warning"
    assert summary([w, w]) == "warning: 2 warnings"
    assert summary([]) == "" and render_text([]) == ""


def test_render_json() -> None:
    d = diag(
        "E204", "m", span_of("report_nm"), "l", hints=["h"], secondary=[(span_of("filings"), "s")]
    )
    data = orjson.loads(render_json([d]))
    assert data == [d.to_json()]
    assert data[0]["labels"][0]["primary"] is True and data[0]["labels"][1]["primary"] is False
    assert data[0]["labels"][0]["span"]["line"] == 9


def test_every_code_explains_itself() -> None:
    for code, info in CODES.items():
        assert info.title and info.explanation, code
        text = explain(code.lower())
        assert text.startswith(f"{code}: {info.title}")
    assert "Fix:" in explain("E203") and "StockCode" in explain("E203")
    with pytest.raises(KeyError):
        explain("E999")


def test_registry_covers_every_family() -> None:
    assert {c[:2] for c in CODES} >= {"E0", "E1", "E2", "E3", "E4", "R5", "W0"}
    for code in ("E401", "E402", "E403", *(f"R50{i}" for i in range(1, 9))):
        assert code in CODES
