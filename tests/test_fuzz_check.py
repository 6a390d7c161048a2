"""Fuzzing the checker: semantic mutations of real programs and generated ASTs.

Each input either checks (a CheckResult) or raises CompileError whose diagnostics all carry a
registered code and a span — never any other exception. Mutations work on the token stream of the
shipped examples (with their real catalogs), so most mutants parse and reach the checker:
a name replaced by another name of the vocabulary, a literal replaced by one of another type,
a keyword swapped for a sibling (`seq`/`fan`, `max`/`min`/`most_frequent`, `>=`/`after`/`==`),
a line deleted or duplicated.

``EDGEDSL_PROFILE=long`` runs at least 10,000 cases per property.
"""

from __future__ import annotations

import os
from pathlib import Path

from ast_strategies import modules
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl.api import check
from edgedsl.codes import CODES
from edgedsl.diagnostics import CompileError
from edgedsl.parser import _lark
from edgedsl.printer import format_module
from edgedsl.source import Source

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
LONG = os.environ.get("EDGEDSL_PROFILE") == "long"
FUZZ = settings(max_examples=10_000 if LONG else 150, deadline=None)

SEEDS = [
    p.read_text(encoding="utf-8")
    for p in sorted(EXAMPLES.glob("*.edge"))
    if "trajectory " in p.read_text(encoding="utf-8")
]
VOCAB = sorted(
    {str(t) for text in SEEDS for t in _lark().lex(text) if t.type == "NAME"}
    | {
        str(t)
        for p in EXAMPLES.glob("*.edge")
        for t in _lark().lex(p.read_text("utf-8"))
        if t.type == "NAME"
    }
)
LITERALS = [
    '"005930"',
    '"삼성전자"',
    "42",
    "-1",
    "2.5",
    "2024-12-01",
    "true",
    '["a", 1]',
    '{"k": 1}',
    '""',
    "0",
]
SIBLINGS = [
    ("seq", "fan", "fan(2)", "fan(9)"),
    ("max", "min", "most_frequent"),
    (">=", "<=", "==", "after"),
    ("pages all", "pages 1", "pages 0"),
    ("sum", "avg", "count"),
]


def assert_diagnosed(text: str) -> None:
    """Check ``text``; a failure must carry registered codes only."""
    try:
        result = check(Source(str(EXAMPLES / "fuzz.edge"), text), search_paths=[EXAMPLES])
    except CompileError as err:
        assert err.diagnostics
        for d in err.diagnostics:
            assert d.code in CODES, d
            assert d.span is not None, d
        return
    for d in result.diagnostics:
        assert d.code in CODES and d.severity == "warning", d


@st.composite
def semantic_mutants(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["name", "literal", "sibling", "drop", "dup"]))
        if kind in ("drop", "dup"):
            lines = text.splitlines(keepends=True)
            i = draw(st.integers(0, len(lines) - 1))
            lines[i : i + 1] = [] if kind == "drop" else [lines[i], lines[i]]
            text = "".join(lines)
            continue
        toks = list(_lark().lex(text))
        if kind == "name":
            pool = [t for t in toks if t.type == "NAME"]
            repl = draw(st.sampled_from([*VOCAB, "nope", "corp_cod"]))
        elif kind == "literal":
            pool = [t for t in toks if t.type in ("NUMBER", "STRING", "DATE")]
            repl = draw(st.sampled_from(LITERALS))
        else:
            group = draw(st.sampled_from(SIBLINGS))
            pool = [t for t in toks if str(t) in group]
            repl = draw(st.sampled_from(group))
        if not pool:
            continue
        tok = draw(st.sampled_from(pool))
        start = tok.start_pos or 0
        text = text[:start] + repl + text[start + len(str(tok)) :]
    return text


@FUZZ
@given(semantic_mutants())
def test_checker_never_crashes_on_mutated_examples(text: str) -> None:
    assert_diagnosed(text)


@FUZZ
@given(modules)
def test_checker_never_crashes_on_generated_asts(module: object) -> None:
    assert_diagnosed(format_module(module))  # type: ignore[arg-type]


def test_mutants_reach_the_checker() -> None:
    """The mutation strategy is useful only if most mutants parse and fail in `check`."""
    from edgedsl.build import parse_module

    reached = 0

    @settings(max_examples=60, deadline=None, database=None)
    @given(semantic_mutants())
    def probe(text: str) -> None:
        nonlocal reached
        try:
            parse_module(text)
        except CompileError:
            return
        reached += 1

    probe()
    assert reached >= 20
