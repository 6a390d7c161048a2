"""Every name the language server resolves in the shipped files leads to its declaration.

In process, over every ``.edge`` file of the repository that parses: each name that denotes a
platform, tool, parameter, record, field, code type or binding has a definition whose text is
that very name (in the file or in a used module), and each hover renders. The stdio tests
(``test_server.py``) show the same through a client on a few files; this one covers all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from edgedsl.lsp.analysis import analyse
from edgedsl.lsp.hover import hover_markdown
from edgedsl.lsp.symbols import (
    FunctionT,
    ModuleT,
    ReducerT,
    declarations,
    definition,
    occurrences,
)

ROOT = Path(__file__).resolve().parents[2]


def _files() -> list[Path]:
    out = []
    for path in sorted(ROOT.glob("**/*.edge")):
        if ".venv" in path.parts:
            continue
        try:
            path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        out.append(path)
    return out


FILES = _files()


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_name_leads_to_its_declaration(path: Path) -> None:
    """Definitions land on the name itself; hovers render; a used module's file exists."""
    name = str(path)
    a = analyse(path.read_text(encoding="utf-8"), name)
    if a.ctx is None:
        return  # a file broken on purpose: no AST, nothing to resolve
    decls = declarations(a.ctx)
    for occ in occurrences(a):
        written = a.source.text[occ.start:occ.end]
        assert hover_markdown(occ.target, a.ctx)
        span = definition(occ.target, a.ctx, decls)
        if isinstance(occ.target, ReducerT | FunctionT):
            assert span is None
            continue
        if isinstance(occ.target, ModuleT):
            assert span is not None and Path(span.file).is_file(), written
            continue
        assert span is not None, (written, occ.target)
        declared = a.sources[span.file].text[span.start:span.end]
        assert declared == written, (written, declared, occ.target)


def test_the_sweep_covers_every_kind() -> None:
    """Across examples/, every kind of name is met (the sweep above is not vacuous)."""
    kinds: set[str] = set()
    for path in sorted((ROOT / "examples").glob("**/*.edge")):
        a = analyse(path.read_text(encoding="utf-8"), str(path))
        kinds |= {type(o.target).__name__ for o in occurrences(a)}
    assert kinds == {"PlatformT", "ToolT", "ParamT", "FieldT", "RecordT", "CodeTypeT",
                     "ModuleT", "BindingT", "ReducerT", "FunctionT"}
