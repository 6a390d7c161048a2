"""Bad-input fuzzing of ``parse`` and ``build``: a coded diagnostic, never a traceback.

Inputs: random sequences of the grammar's own terminals, mutations (deletions, duplications,
swaps, insertions) of valid formatted programs, arbitrary text, and pathological nesting. For
each, :func:`edgedsl.syntax.build.parse_module` returns a Module or raises CompileError whose
diagnostics carry a syntax-stage code and a span inside the text.

The ``ci`` profile runs the conftest's example count; ``EDGEDSL_PROFILE=long`` runs at least
10,000 cases per property.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from edgedsl.core.diagnostics import CompileError
from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.parser import _lark
from edgedsl.syntax.printer import format_module
from tests.ast_strategies import modules
from tests.profiles import examples

ROOT = Path(__file__).resolve().parents[2]
LONG = os.environ.get("EDGEDSL_PROFILE") == "long"
FUZZ = settings(max_examples=max(settings.default.max_examples, 10_000) if LONG else examples(300))

# E0xx: syntax; E101/E102: catalog literals checked while building (bad regex, fractional quota)
CODE = re.compile(r"E0\d\d|E10[12]")


def assert_coded(text: str) -> n.Module | None:
    """Parse and build ``text``; any failure must be a CompileError with coded, in-text spans."""
    try:
        return parse_module(text, "fuzz.edge")
    except CompileError as err:
        assert err.diagnostics, "a CompileError without diagnostics"
        for d in err.diagnostics:
            assert CODE.fullmatch(d.code), d
            span = d.span
            assert span is not None, d
            assert 0 <= span.start <= span.end <= len(text), (d, len(text))
            assert span.file == "fuzz.edge"
        return None


# ---------------------------------------------------------------- grammar terminals

_SAMPLES = {
    "NAME": st.sampled_from(["a", "x", "corp", "max", "fan", "Disclosure", "_"]),
    "NUMBER": st.sampled_from(["0", "7", "1.5", "1e999", "1" + "0" * 5000, "2.5E-3", "00"]),
    "STRING": st.sampled_from(['""', '"삼성전자"', '"\\ud800"', '"\\n\\u00e9"', '"a\\/b"']),
    "DATE": st.sampled_from(["2024-12-01", "2024-02-30", "0000-00-00", "9999-12-31"]),
    "REGEX": st.sampled_from(["/^[0-9]{6}$/", "/(/", "/[/", "/a\\/b/", "/**/"]),
    "COMMENT": st.sampled_from(["# c\n", "#\n", "# 주석\n"]),
}


def _terminal_texts() -> list[st.SearchStrategy[str]]:
    out: list[st.SearchStrategy[str]] = []
    for term in _lark().terminals:
        if term.pattern.type == "str":
            out.append(st.just(term.pattern.value))
        else:
            out.append(_SAMPLES.get(term.name, st.just("?")))
    return out


terminal = st.one_of(*_terminal_texts(), st.sampled_from(["@", "{", "}", "\x00", "가", "\\"]))
token_soup = st.lists(st.tuples(terminal, st.sampled_from([" ", "\n", "", "\t"])), max_size=40).map(
    lambda toks: "".join(t + sep for t, sep in toks)
)


# ---------------------------------------------------------------- mutations of valid programs


def _seed_texts() -> list[str]:
    paths = [
        *ROOT.glob("examples/**/*.edge"),
        *ROOT.glob("stdlib/**/*.edge"),
        *(ROOT / "tests" / "fixtures" / "format").glob("*.edge"),
    ]
    return [p.read_text(encoding="utf-8") for p in sorted(paths)] or ["use a\n"]


SEEDS = _seed_texts()


@st.composite
def mutated(draw: st.DrawFn, texts: st.SearchStrategy[str]) -> str:
    """A valid program with 1–4 random edits: delete, duplicate, swap, insert, replace."""
    text = draw(texts)
    for _ in range(draw(st.integers(1, 4))):
        size = len(text)
        i = draw(st.integers(0, size))
        j = draw(st.integers(i, min(size, i + 30)))
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "replace"]))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif kind == "swap":
            k = draw(st.integers(j, size))
            m = draw(st.integers(k, min(size, k + 30)))
            text = text[:i] + text[k:m] + text[j:k] + text[i:j] + text[m:]
        elif kind == "insert":
            text = text[:i] + draw(terminal) + text[i:]
        else:
            text = text[:i] + draw(st.characters(exclude_categories=("Cs",))) + text[j:]
    return text


shipped_mutants = mutated(st.sampled_from(SEEDS))
generated_mutants = mutated(modules.map(format_module))


# ---------------------------------------------------------------- properties


@FUZZ
@given(token_soup)
@example('trajectory t "q" { answer "\\ud800" }')  # lone surrogate escape: E013
@example('trajectory t "q" { answer 1e999 }')  # float overflow: E014
@example('trajectory t "q" { answer 1' + "0" * 5000 + " }")  # int beyond str limit: E014
@example('trajectory t "q" { x = p.t() pages 2.5 }')
@example("type T = code /(/")
def test_token_soup_never_crashes(text: str) -> None:
    assert_coded(text)


@FUZZ
@given(shipped_mutants)
def test_mutated_shipped_programs_never_crash(text: str) -> None:
    assert_coded(text)


@FUZZ
@given(generated_mutants)
@pytest.mark.slow
def test_mutated_generated_programs_never_crash(text: str) -> None:
    assert_coded(text)


@FUZZ
@given(st.text(max_size=200))
def test_arbitrary_text_never_crashes(text: str) -> None:
    assert_coded(text)


@pytest.mark.parametrize(
    "text",
    [
        'trajectory t "q" { answer ' + "-" * 3000 + "a }",
        'trajectory t "q" { answer ' + "(" * 3000 + "1" + ")" * 3000 + " }",
        'trajectory t "q" { if ' + "not " * 3000 + "exists(a) {} }",
        'trajectory t "q" { answer ' + " + ".join(["a"] * 5000) + " }",
        'trajectory t "q" { x = p.t(a: ' + "[" * 3000 + "]" * 3000 + ") }",
        'trajectory t "q" { ' + "if exists(a) { " * 400 + "}" * 400 + " }",
        "",
        "\ufeffuse a",
        "use a\r\nuse b\r\n",
    ],
    ids=["neg", "parens", "not", "sum", "lists", "ifs", "empty", "bom", "crlf"],
)
def test_pathological_inputs(text: str) -> None:
    assert_coded(text)


def test_fuzz_seeds_are_valid() -> None:
    """The mutation seeds themselves parse (so mutants start from real programs)."""
    for text in SEEDS:
        assert assert_coded(text) is not None
