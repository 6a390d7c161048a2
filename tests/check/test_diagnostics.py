"""Golden diagnostics: every ``tests/diagnostics/<case>.edge`` renders to ``<case>.txt``.

Each case is compiled up to the `check` stage against the test catalogs (``tests/catalogs``)
and its diagnostics rendered as plain text (no colour), with paths relative to the repository.
Run with ``--update-goldens`` to rewrite the ``.txt`` files instead of comparing
(``tests/goldens.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from edgedsl.check import check, check_sound_part
from edgedsl.core.codes import CODES
from edgedsl.core.diagnostics import CompileError, Diagnostic
from edgedsl.core.render import render_text
from edgedsl.core.source import Source
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.parser import SyntaxErrors
from tests.goldens import check_golden

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "diagnostics"
CATALOGS = Path("tests/catalogs")
CASES = sorted(p.stem for p in CASES_DIR.glob("*.edge"))
STDLIB_MARKER = "# catalogs: stdlib"


def diagnose(case: str) -> tuple[list[Diagnostic], dict[str, Source]]:
    """Parse and check one case (cwd must be the repository root)."""
    rel = f"tests/diagnostics/{case}.edge"
    source = Source(rel, (ROOT / rel).read_text(encoding="utf-8"))
    sources = {rel: source}
    # a case whose first line is STDLIB_MARKER uses the shipped stdlib catalogs, unshadowed
    # by the test catalogs (``use dart`` means ``stdlib/dart.edge``)
    paths = [] if source.text.startswith(STDLIB_MARKER) else [CATALOGS]
    try:
        module = parse_module(source)
        result = check(module, source, search_paths=paths)
    except SyntaxErrors as err:  # every syntax error, and the checker's on what parsed soundly
        return [*err.diagnostics, *check_sound_part(err, source, search_paths=paths)], sources
    except CompileError as err:
        sources.update(getattr(err, "sources", {}))
        return err.diagnostics, sources
    sources.update(result.sources)
    if not paths:  # over the stdlib `edgedsl check` also reads the shipped G* (W008)
        from edgedsl.recipe.graph.evidence import junction_warnings

        modules = [m for m in result.sources if m != rel]
        return [*result.diagnostics, *junction_warnings(result.program, modules)], sources
    return result.diagnostics, sources


def rendered(case: str) -> str:
    diags, sources = diagnose(case)
    return render_text(diags, sources, color=False)


@pytest.mark.parametrize("case", CASES)
def test_golden(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    got = rendered(case)
    golden = CASES_DIR / f"{case}.txt"
    check_golden(golden, got)


def test_case_names_match_their_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A case named after a code (``e204_…``) reports that code."""
    monkeypatch.chdir(ROOT)
    for case in CASES:
        m = re.match(r"([ew]\d{3})_", case)
        if m:
            codes = {d.code for d in diagnose(case)[0]}
            assert m.group(1).upper() in codes, (case, codes)


def test_clean_case_has_no_diagnostics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert diagnose("clean")[0] == []


def _codes_in(paths: list[Path]) -> set[str]:
    found: set[str] = set()
    for p in paths:
        found.update(re.findall(r"\"([EWR]\d{3})\"", p.read_text(encoding="utf-8")))
    return found


def test_every_checker_code_has_a_golden() -> None:
    emitted = _codes_in(sorted((ROOT / "edgedsl" / "check").glob("*.py")))
    assert emitted, "no codes found in edgedsl/check"
    goldens = "".join(p.read_text(encoding="utf-8") for p in CASES_DIR.glob("*.txt"))
    missing = sorted(c for c in emitted if f"[{c}]" not in goldens)
    assert not missing, f"codes without a golden case: {missing}"


def test_every_code_used_is_registered() -> None:
    used = _codes_in(sorted((ROOT / "edgedsl").rglob("*.py")))
    registered = set(CODES)
    assert not (used - registered), sorted(used - registered)
