"""Source files and spans.

A :class:`Source` is one text with a name (usually its path); a :class:`Span` is a half-open
byte range in one source together with 1-based line and column numbers of both ends. Spans are
carried by every AST node, IR node, plan step and diagnostic, and never take part in equality.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a named source: offsets ``start``..``end`` and their line/column (1-based)."""

    file: str
    start: int
    end: int
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to_json(self) -> dict[str, object]:
        """A plain dict for JSON output."""
        return {
            "file": self.file,
            "start": self.start,
            "end": self.end,
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "end_col": self.end_col,
        }


NO_SPAN = Span("<none>", 0, 0, 0, 0, 0, 0)


@dataclass(frozen=True)
class Source:
    """A named text being compiled, with a line index for span lookups."""

    name: str
    text: str
    _line_starts: list[int] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        text = self.text
        starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        object.__setattr__(self, "_line_starts", starts)

    @classmethod
    def from_path(cls, path: str | Path) -> Source:
        """Read a UTF-8 file into a Source named after its path."""
        p = Path(path)
        return cls(str(p), p.read_text(encoding="utf-8"))

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset."""
        offset = max(0, min(offset, len(self.text)))
        i = bisect_right(self._line_starts, offset) - 1
        return i + 1, offset - self._line_starts[i] + 1

    def span(self, start: int, end: int) -> Span:
        """A Span over ``start``..``end`` of this source."""
        starts = self._line_starts
        size = len(self.text)
        a = 0 if start < 0 else size if start > size else start
        b = 0 if end < 0 else size if end > size else end
        i = bisect_right(starts, a) - 1
        j = i if b == a else bisect_right(starts, b, i if b > a else 0) - 1
        return Span(self.name, start, end, i + 1, a - starts[i] + 1, j + 1, b - starts[j] + 1)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its newline."""
        if line < 1 or line > len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    @property
    def line_count(self) -> int:
        """Number of lines in the text."""
        return len(self._line_starts)
