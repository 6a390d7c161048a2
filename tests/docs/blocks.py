"""The code blocks of the docs as data: every fenced block of README.md and docs/*.md, with its
language, its info words (```` ```edge fragment ````) and its line in the file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)


@dataclass(frozen=True)
class Block:
    """One fenced code block: the file, the 1-based line of its opening fence, the language
    (the info string's first word), the words after it, and the code."""

    doc: str
    line: int
    lang: str
    words: tuple[str, ...]
    code: str

    @property
    def id(self) -> str:
        """``file:line``, the test id."""
        return f"{self.doc}:{self.line}"


def blocks(text: str, doc: str) -> list[Block]:
    """The fenced blocks of one Markdown text (fences at the start of a line)."""
    out = []
    for m in _FENCE.finditer(text):
        info = m.group(1).split()
        line = text.count("\n", 0, m.start()) + 1
        out.append(Block(doc, line, info[0] if info else "", tuple(info[1:]), m.group(2)))
    return out


def doc_blocks(lang: str) -> list[Block]:
    """Every block of language ``lang`` in README.md and docs/*.md."""
    return [b for doc in DOCS
            for b in blocks(doc.read_text(encoding="utf-8"), doc.relative_to(ROOT).as_posix())
            if b.lang == lang]


def section(text: str, heading: str) -> str:
    """The text of the Markdown section ``## heading`` (up to the next heading of level 2)."""
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if m is None:
        raise LookupError(f"no section `## {heading}`")
    return m.group(1)
