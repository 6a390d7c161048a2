"""Every syntax error of a file (issue 20, section 2): recovery at statement and declaration
boundaries (``edgedsl/syntax/recover.py``), an unclosed bracket reported where it opens
(``E015``), no follow-on errors, and the checker run on what parsed soundly.

The golden diagnostics of files with two and three independent errors are
``tests/diagnostics/e015_unclosed_paren``, ``syntax_three_errors`` and
``syntax_error_in_declaration``; here, the rules one by one and a property over files with
errors planted in independent statements."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from edgedsl import api
from edgedsl.core.codes import CODES
from edgedsl.core.diagnostics import CompileError, Diagnostic
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.parser import _EXAMPLES, SyntaxErrors
from edgedsl.syntax.recover import MAX_ERRORS
from tests.profiles import examples


def errors(text: str) -> SyntaxErrors:
    """The syntax errors of ``text`` (which must have some)."""
    with pytest.raises(SyntaxErrors) as caught:
        parse_module(text, "t.edge")
    return caught.value


def where(d: Diagnostic) -> tuple[str, int, int]:
    assert d.span is not None
    return d.code, d.span.line, d.span.col


@pytest.mark.parametrize("code, text", [(c, t) for c, ts in _EXAMPLES.items() for t in ts])
def test_a_single_error_keeps_its_hand_written_message(code: str, text: str) -> None:
    [d] = errors(text).diagnostics
    assert d.code == code


def test_an_unclosed_paren_is_reported_at_the_paren_and_the_file_goes_on() -> None:
    text = ('trajectory t "q" {\n'
            "  a = p.t(x: 1\n"
            "  b = p.u(y: seq a.f)\n"
            "  answer b.g ]\n"
            "}\n")
    [unclosed, stray] = errors(text).diagnostics
    assert where(unclosed) == ("E015", 2, 10)
    assert unclosed.message == "unclosed `(`"
    assert [lab.span.line for lab in unclosed.labels] == [2, 3]  # opened here; gave up there
    assert where(stray) == ("E002", 4, 14)


def test_the_first_tokens_of_a_line_swallowed_by_an_open_call_are_a_restart() -> None:
    # `corp` is read as the call's next argument name; the error is at `=`, but the line's
    # statement starts at `corp`: the call was left open
    text = ('trajectory t "q" {\n'
            "  a = p.t(\n"
            "  corp = , p.u()\n"
            "  answer 1\n"
            "}\n")
    assert [where(d) for d in errors(text).diagnostics] == [("E015", 2, 10), ("E002", 3, 10)]


@pytest.mark.parametrize("text, at", [
    ('trajectory t "q" {\n  a = p.t()\n  answer count(a)\n', (1, 18)),  # the file ends
    ('trajectory t "q" {\n  a = p.t()\n\ntrajectory u "q" {\n  answer 1\n}\n', (1, 18)),
    ('trajectory t "q" {\n  answer [1, 2\n}\n', (2, 10)),
])
def test_an_unclosed_brace_or_bracket_is_reported_where_it_opens(
        text: str, at: tuple[int, int]) -> None:
    [d] = errors(text).diagnostics
    assert where(d) == ("E015", *at)


def test_a_line_inside_a_broken_call_is_no_restart() -> None:
    # `b: 2,` and `)` would be errors of their own if recovery restarted on them
    text = ('trajectory t "q" {\n'
            "  a = p.t(\n"
            "    x: 1 1,\n"
            "    b: 2,\n"
            "  ) pages all\n"
            "  answer count(a)\n"
            "}\n")
    assert [where(d) for d in errors(text).diagnostics] == [("E002", 3, 10)]


def test_a_block_inside_a_broken_statement_is_skipped_whole() -> None:
    # the `}` of the broken `if` closes its block, not the trajectory
    text = ('trajectory t "q" {\n'
            "  if count(a) >> 1 {\n"
            "    b = p.t()\n"
            "  }\n"
            "  answer 1 1\n"
            "}\n")
    assert [where(d) for d in errors(text).diagnostics] == [("E002", 2, 16), ("E002", 5, 12)]


def test_a_bad_character_is_one_error() -> None:
    text = 'trajectory t "q" {\n  a = p.t() @ x\n  b = p.u() ^\n  answer 1\n}\n'
    assert [where(d) for d in errors(text).diagnostics] == [("E001", 2, 13), ("E001", 3, 13)]


def test_errors_in_declarations_are_all_reported() -> None:
    text = ('platform p {\n'
            '  tool a "x" GET "/a" (k: str -> [R]\n'
            "  record R {\n"
            "    k: str 3\n"
            "  }\n"
            "}\n"
            "type C = code /x/ 3\n")
    assert [where(d) for d in errors(text).diagnostics] == [
        ("E002", 2, 31), ("E002", 4, 12), ("E002", 7, 19)]


def test_the_count_is_bounded() -> None:
    body = "".join(f"  a{i} = = p.t()\n" for i in range(MAX_ERRORS + 10))
    found = errors(f'trajectory t "q" {{\n{body}}}\n')
    assert len(found.diagnostics) == MAX_ERRORS
    assert found.module is None


def test_the_sound_part_holds_the_untouched_trajectories_only() -> None:
    text = ('trajectory a "q" {\n  x = p.t(\n  answer 1\n}\n\n'
            'trajectory b "q" {\n  y = p.t()\n  answer count(y)\n}\n\n'
            'trajectory c "q" {\n  answer 1 1\n}\n')
    found = errors(text)
    assert [t.name for t in found.module.trajectories] == ["b"]


def test_nothing_is_sound_when_a_declaration_is_broken() -> None:
    found = errors('record R {\n  k: str 3\n}\n\ntrajectory b "q" {\n  answer 1\n}\n')
    assert found.module is None and found.sound is None


def test_the_code_is_explained() -> None:
    assert "E015" in CODES


# ---------------------------------------------------------------- the property

LINES = [
    "corps = dart.corp_codes()",
    'corp = drv corps | where corp_name == "삼성전자"',
    "company = dart.company(corp_code: seq corp.corp_code)",
    "filings = dart.disclosures(",
    "  corp_code: seq corp.corp_code,",
    "  bgn_de: 2024-12-01,",
    ") pages all",
    "if count(filings) > 0 {",
    "  latest = drv filings | max rcept_dt",
    "} else {",
    "  latest = drv filings | min rcept_dt",
    "}",
    "answer { name: company.corp_name, report: latest.report_nm }",
]
"""A trajectory body over the stdlib that checks clean: statements of one line, a call over
several lines and an `if` with a block per branch."""

STATEMENT_OF = [0, 1, 2, 3, 3, 3, 3, 4, 5, 4, 6, 4, 7]
"""The statement each line belongs to (the `if`'s own lines, and each statement of its
blocks): recovery is at statement boundaries, so a second error in one statement is not
reported — errors are planted in different statements."""


def _unclose(line: str) -> str | None:
    return line[:-1] if line.endswith(")") else None


def _stray_comma(line: str) -> str | None:
    word = "=" if " = " in line else "answer" if line.startswith("answer") else None
    return None if word is None else line.replace(word, f"{word} ,", 1)


def _bad_character(line: str) -> str:
    return f"{line} @"


def _no_pipe(line: str) -> str | None:
    return line.replace(" | ", " ", 1) if " | " in line else None


MUTATIONS = {"unclose": (_unclose, "E015"), "comma": (_stray_comma, "E002"),
             "char": (_bad_character, "E001"), "pipe": (_no_pipe, None)}
"""A way to break one line, and the code it gives (None: whichever ``E0xx`` lark's
``match_examples`` picks)."""


@dataclass(frozen=True)
class Planted:
    """A file of trajectories with errors planted in lines no two of which are adjacent or of
    one statement."""

    text: str
    broken: dict[int, str | None]  # line (1-based) → the code expected there
    clean: list[str]  # the trajectories with no error


def planted_file(plan: list[dict[int, str]]) -> Planted:
    """One trajectory per element of ``plan`` (index in :data:`LINES` → mutation name; a
    mutation that does not apply to its line is left out)."""
    lines = ["use dart", ""]
    broken: dict[int, str | None] = {}
    clean = []
    for i, mutations in enumerate(plan):
        lines.append(f'trajectory t{i} "q{i}" {{')
        hit = False
        for j, stmt in enumerate(LINES):
            name = mutations.get(j)
            changed = MUTATIONS[name][0](stmt) if name else None
            if changed is not None and name is not None:
                broken[len(lines) + 1] = MUTATIONS[name][1]
                hit = True
            lines.append(f"  {stmt if changed is None else changed}")
        lines += ["}", ""]
        if not hit:
            clean.append(f"t{i}")
    return Planted("\n".join(lines), broken, clean)


@st.composite
def plans(draw: st.DrawFn) -> list[dict[int, str]]:
    """Per trajectory, the lines to break (never two adjacent ones, nor two of one
    statement) and how."""
    out = []
    for _ in range(draw(st.integers(1, 4))):
        chosen: list[int] = []
        for j in sorted(draw(st.sets(st.integers(0, len(LINES) - 1), max_size=4))):
            if not chosen or (j > chosen[-1] + 1
                              and STATEMENT_OF[j] not in {STATEMENT_OF[c] for c in chosen}):
                chosen.append(j)
        out.append({j: draw(st.sampled_from(sorted(MUTATIONS))) for j in chosen})
    return out


@settings(max_examples=examples(60), deadline=None)
@given(plans())
@example([{0: "unclose", 2: "unclose"}, {}])
@example([{1: "pipe", 12: "comma"}, {2: "unclose", 4: "char"}, {3: "comma", 8: "comma"}])
@example([{7: "char", 10: "pipe"}, {5: "char", 8: "comma", 11: "char"}])
@example([{0: "char", 3: "char"}])  # the first failure found, less the error it planted
# inside the call of line 3 (a second error in one statement: now excluded by STATEMENT_OF)
@example([{12: "unclose"}])  # not applicable: a clean file
def test_each_planted_error_is_reported_once_at_its_line(plan: list[dict[int, str]]) -> None:
    planted = planted_file(plan)
    try:
        api.check(planted.text, "planted.edge")
    except CompileError as err:
        found = err.diagnostics
    else:
        found = []
    # one diagnostic per broken statement, on its line, with its code; nothing else (the
    # untouched trajectories are checked, and check clean)
    got = {}
    for d in found:
        assert d.span is not None and d.span.line not in got, found
        got[d.span.line] = d.code
    assert set(got) == set(planted.broken), (planted.text, found)
    for line, code in planted.broken.items():
        assert got[line] == code if code else got[line].startswith("E0"), (line, found)
    if planted.broken:
        sound = errors(planted.text).module
        assert [t.name for t in sound.trajectories] == planted.clean
