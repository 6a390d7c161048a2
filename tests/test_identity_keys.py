"""Nothing in ``edgedsl`` keeps facts keyed by ``id(...)`` (issue 17, section 4).

An identity key holds only while the object lives, and one object can stand in two places (an
AST a program made may hold one node object twice). Every call of ``id`` in the package must
say on its line why identity is what it means (a comment with ``identity:``); the compiler's
packages, whose facts are about AST nodes, have none at all.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "edgedsl"
NONE_AT_ALL = ("syntax", "check", "plan", "reduce")
"""Packages with no ``id(...)`` call, justified or not."""


def _id_calls(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of every call of the builtin ``id`` in a module's text."""
    lines = text.splitlines()
    return [
        (node.lineno, lines[node.lineno - 1])
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id"
    ]


def test_the_scan_finds_id_keys_in_every_form() -> None:
    text = (
        "facts[id(node)] = 1\nfacts.get(id(node))\nif id(node) in seen: pass\n"
        "seen = {id(v)}  # identity: why\nname = 'id(x) in a string'\nvalid(x)\n"
    )
    assert [n for n, _ in _id_calls(text)] == [1, 2, 3, 4]


def test_no_id_keyed_facts_in_the_package() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        for lineno, line in _id_calls(path.read_text(encoding="utf-8")):
            if rel.parts[0] in NONE_AT_ALL or "# identity:" not in line:
                found.append(f"edgedsl/{rel}:{lineno}: {line.strip()}")
    assert found == []
