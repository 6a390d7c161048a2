"""Fuzzing the checker: semantic mutations of real programs and generated ASTs.

Each input either checks (a CheckResult) or raises CompileError whose diagnostics all carry a
registered code and a span — never any other exception. Mutations work on the token stream of the
shipped examples (with their real catalogs), so most mutants parse and reach the checker:
a name replaced by another name of the vocabulary, a literal replaced by one of another type,
a keyword swapped for a sibling (`seq`/`fan`, `max`/`min`/`most_frequent`, `>=`/`after`/`==`),
a line deleted or duplicated.

The last property (``test_parse_check_format_plan``) runs the whole chain parse → check →
format → plan on such programs and on generated ASTs, decorated with the inputs of issue 16's
hostile round (comments, `say` templates of braces, hostile code patterns and literals,
byte-order marks, deep nesting, reserved and colliding field names), each shrunk failure fixed
pinned with ``@example``.

``EDGEDSL_PROFILE=long`` runs at least 10,000 cases per property.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lark import Token
from lark.lexer import LexerThread

from edgedsl.api import check
from edgedsl.core.codes import CODES
from edgedsl.core.diagnostics import CompileError
from edgedsl.core.source import Source, decode_source
from edgedsl.plan.compile import compile_program
from edgedsl.plan.model import to_data
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.parser import _lark
from edgedsl.syntax.printer import format_module
from tests.ast_strategies import modules
from tests.profiles import examples


@functools.cache
def _basic_lexer() -> Any:
    """The grammar's basic lexer, built once, without the regex-collision analysis lark runs
    on every ``Lark.lex`` (two seconds a call; see ``parser._new_lark``)."""
    import lark.lexer as lark_lexer

    saved = getattr(lark_lexer, "has_interegular", None)
    lark_lexer.has_interegular = False
    try:
        return _lark()._build_lexer()
    finally:
        lark_lexer.has_interegular = saved


def _tokens(text: str) -> list[Token]:
    """``_lark().lex(text)``, with the lexer built once."""
    return list(LexerThread.from_text(_basic_lexer(), text).lex(None))


ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
LONG = os.environ.get("EDGEDSL_PROFILE") == "long"
FUZZ = settings(max_examples=10_000 if LONG else examples(150), deadline=None)

SEEDS = [
    p.read_text(encoding="utf-8")
    for p in sorted(EXAMPLES.glob("*.edge"))
    if "trajectory " in p.read_text(encoding="utf-8")
]
VOCAB = sorted(
    {str(t) for text in SEEDS for t in _tokens(text) if t.type == "NAME"}
    | {
        str(t)
        for p in EXAMPLES.glob("*.edge")
        for t in _tokens(p.read_text("utf-8"))
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
        toks = list(_tokens(text))
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
@pytest.mark.slow
def test_checker_never_crashes_on_generated_asts(module: object) -> None:
    assert_diagnosed(format_module(module))  # type: ignore[arg-type]


def test_mutants_reach_the_checker() -> None:
    """The mutation strategy is useful only if most mutants parse and fail in `check`."""
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


# ---------------------------------------------------------------- the whole chain
#
# parse → check → format → plan on one generated program: only CompileError, with registered
# codes and spans inside the text, may come out of any stage; the formatted text parses to the
# same AST and formats to itself; and it checks and plans exactly as the original (the same
# plan up to spans, or the same error codes). Programs are shipped examples (their catalogs
# reachable, so most reach the plan) and generated ASTs, decorated with what the hostile round
# found: comments everywhere, `say` templates full of braces, code types with hostile patterns
# and literals, byte-order marks, deep nesting, reserved and colliding field names.

BOM = b"\xef\xbb\xbf"
HOSTILE_PATTERNS = [
    "^(a+)+$", "^(a|aa)+$", "(a*)*b", "(a)\\1", "(?=a)a", "(?<!a)b", "\\p{Hangul}", "a{1001}",
    "(" * 70 + "a" + ")" * 70, "(" * 500 + "a" + ")" * 500, "^[0-9]{6}$", "[", "a{2,1}",
]
HOSTILE_LITERALS = ["a" * 35 + "!", "a" * 5000, "", "005930", "삼성전자", "\\u0000"]
TEMPLATE_PIECES = ["{{", "}}", "{%", "%}", "{", "}", "(", ")", "[", "]", " a ", " if ", " for ",
                   " x in a ", "endif", "endfor", "|upper", ".b", " not ", " + ", "{#", "#}", "x"]


def _plain_json(value: object) -> object:
    """A plan's JSON without the spans and positions formatting moves."""
    if isinstance(value, dict):
        return {k: _plain_json(v) for k, v in value.items() if k not in ("span", "spans")}
    if isinstance(value, list):
        return [_plain_json(v) for v in value]
    return value


def _outcome(text: str) -> tuple[str, object]:
    """``text`` checked and planned: the plan without spans, or the sorted error codes."""
    source = Source(str(EXAMPLES / "fuzz.edge"), text)
    try:
        plan = compile_program(check(source, search_paths=[EXAMPLES]).program)
    except CompileError as err:
        assert err.diagnostics
        for d in err.diagnostics:
            assert d.code in CODES, d
        return "error", sorted({d.code for d in err.diagnostics if d.severity == "error"})
    return "plan", _plain_json(to_data(plan))


def assert_chain(data: bytes) -> None:
    """The chain on a file's bytes (decoded as every command decodes a file)."""
    try:
        text = decode_source(data)
    except UnicodeDecodeError:
        return  # E000 (tests/cli/test_encoding.py)
    try:
        module = parse_module(Source("fuzz.edge", text))
    except CompileError as err:
        for d in err.diagnostics:
            assert d.code in CODES, d
            assert d.span is not None and 0 <= d.span.start <= d.span.end <= len(text), d
        return
    formatted = format_module(module)
    again = parse_module(formatted, "fuzz.edge")
    assert again == module
    assert format_module(again) == formatted
    assert _outcome(formatted) == _outcome(text)


@st.composite
def _templates(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        depth = draw(st.integers(0, 120))
        return "{" * depth + " a " + "}" * depth
    return "".join(draw(st.lists(st.sampled_from(TEMPLATE_PIECES), max_size=30)))


def _with_template(text: str, template: str) -> str:
    """``text`` whose first trajectory with an answer says ``template`` (through the AST: its
    `say` replaced, or one added)."""
    import dataclasses

    from edgedsl.syntax import nodes as n

    try:
        module = parse_module(text)
    except CompileError:
        return text
    items = list(module.items)
    for i, item in enumerate(items):
        if isinstance(item, n.Trajectory) and any(
                isinstance(s, n.AnswerStmt) for s in item.body):
            body = [s for s in item.body if not isinstance(s, n.SayStmt)]
            body.append(n.SayStmt(template=template))
            items[i] = dataclasses.replace(item, body=tuple(body))
            break
    return format_module(dataclasses.replace(module, items=tuple(items)))


def _code_snippet(pattern: str, literal: str) -> str:
    return (f"platform hz {{\n  type H = code /{pattern}/\n  record R {{\n    a: int\n  }}\n"
            f"  tool t (h: H) -> [R]\n}}\n"
            f'trajectory hz_t "q" {{\n  x = hz.t(h: "{literal}")\n  answer count(x)\n}}\n')


def _deep_snippet(kind: str, depth: int) -> str:
    body = {
        "not": "if " + "not " * depth + "exists(x) { y = drv x | max a }\n  answer count(x)",
        "neg": "answer " + "-" * depth + "count(x)",
        "parens": "answer " + "(" * depth + "count(x)" + ")" * depth,
        "list": "y = p.t(j: " + "[" * depth + "]" * depth + ")\n  answer count(x)",
    }[kind]
    return 'trajectory deep_t "q" {\n  x = fin_missing.t()\n  ' + body + "\n}\n"


def _fields_snippet(names: list[str]) -> str:
    fields = "".join(f"    {f}: int\n" for f in names)
    return f"platform fz {{\n  record R {{\n{fields}  }}\n  tool t () -> [R]\n}}\n"


@st.composite
def _commented(draw: st.DrawFn, text: str) -> str:
    """``text`` with comments on their own lines and after lines."""
    lines = text.split("\n")
    for _ in range(draw(st.integers(0, 6))):
        i = draw(st.integers(0, len(lines) - 1))
        note = "# " + draw(st.sampled_from(["c", "주석", "{{ a }}", "}", "say \"x\"", "#"]))
        if draw(st.booleans()):
            lines.insert(i, note)
        else:
            lines[i] = lines[i] + "  " + note
    return "\n".join(lines)


@st.composite
def chain_inputs(draw: st.DrawFn) -> bytes:
    """A program's bytes: a shipped example (mutated or not) or a generated AST, decorated."""
    source = draw(st.sampled_from(["example", "mutant", "generated"]))
    if source == "example":
        text = draw(st.sampled_from(SEEDS))
    elif source == "mutant":
        text = draw(semantic_mutants())
    else:
        text = format_module(draw(modules))
    if draw(st.booleans()):
        text = _with_template(text, draw(_templates()))
    extra = draw(st.sampled_from(["none", "code", "deep", "fields"]))
    if extra == "code":
        text += "\n" + _code_snippet(draw(st.sampled_from(HOSTILE_PATTERNS)),
                                     draw(st.sampled_from(HOSTILE_LITERALS)))
    elif extra == "deep":
        text += "\n" + _deep_snippet(draw(st.sampled_from(["not", "neg", "parens", "list"])),
                                     draw(st.integers(0, 300)))
    elif extra == "fields":
        text += "\n" + _fields_snippet(draw(st.lists(
            st.sampled_from(["a", "A", "name", "Name", "__key", "__row", "_k", "이름"]),
            min_size=1, max_size=4, unique=True)))
    if draw(st.booleans()):
        text = draw(_commented(text))
    return (BOM if draw(st.booleans()) else b"") + text.encode("utf-8")


_SAMSUNG = (EXAMPLES / "samsung_filing.edge").read_text(encoding="utf-8")


@FUZZ
@given(chain_inputs())
@example(_with_template(_SAMSUNG, "{" * 78 + " a " + "}" * 78).encode())  # E310 (RecursionError)
@example((_SAMSUNG + _code_snippet("^(a+)+$", "a" * 35 + "!")).encode())  # E202 in no time
@example((_SAMSUNG + _code_snippet("(" * 500 + "a" + ")" * 500, "a")).encode())  # E101
@example((_SAMSUNG + _deep_snippet("neg", 300)).encode())  # E011
@example(BOM + _SAMSUNG.encode())  # a byte-order mark is ignored
@example((_SAMSUNG + _fields_snippet(["a", "__key", "Name", "name"])).encode())  # E120, E121
@pytest.mark.slow
def test_parse_check_format_plan(data: bytes) -> None:
    assert_chain(data)


@pytest.mark.slow
def test_chain_inputs_reach_the_plan() -> None:
    """The property is worth its time only if enough of its programs compile to a plan: at least
    10 of a fixed sample of 150 (12 today). Derandomized, so the count is the same on every run
    (with a random sample of 60 it was 8–13 and the test failed now and then)."""
    planned = 0

    @settings(max_examples=150, deadline=None, database=None, derandomize=True)
    @given(chain_inputs())
    def probe(data: bytes) -> None:
        nonlocal planned
        try:
            text = decode_source(data)
            if _outcome(text)[0] == "plan":
                planned += 1
        except (CompileError, UnicodeDecodeError):
            pass

    probe()
    assert planned >= 10, planned
