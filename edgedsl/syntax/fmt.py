"""``edgedsl fmt FILE…|- [--check] [--diff]``: rewrite files in the canonical layout of
``printer.py``; ``-`` formats standard input to standard output; ``--diff`` prints what would
change as a unified diff."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.diagnostics import CompileError, Diagnostic, diag, not_utf8
from ..core.source import UTF8_BOM, decode_source
from .printer import format_text

STDIN = "<stdin>"
"""The name standard input is formatted under (``edgedsl fmt -``)."""


@dataclass
class Formatted:
    """One text formatted: its ``text`` and ``formatted`` form (None when it could not be read
    or parsed: ``diagnostics`` say why), and whether it started with a byte-order mark."""

    name: str
    text: str | None = None
    formatted: str | None = None
    bom: bool = False
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """True when formatting changes the text."""
        return self.formatted is not None and self.formatted != self.text

    def diff(self) -> str:
        """The change as a unified diff (``--- name`` / ``+++ name (formatted)``); empty when
        nothing changes."""
        if not self.changed:
            return ""
        assert self.text is not None and self.formatted is not None
        return "".join(difflib.unified_diff(
            self.text.splitlines(keepends=True), self.formatted.splitlines(keepends=True),
            self.name, f"{self.name} (formatted)"))


def format_bytes(data: bytes, name: str) -> Formatted:
    """Format ``data`` (UTF-8, a leading byte-order mark ignored) read from ``name``: a text
    that is not UTF-8 gives one ``E000`` diagnostic, one that does not parse its ``E0xx``."""
    out = Formatted(name, bom=data.startswith(UTF8_BOM))
    try:
        out.text = decode_source(data)
    except UnicodeDecodeError as err:
        out.diagnostics.append(not_utf8(name, err)[0])
        return out
    try:
        out.formatted = format_text(out.text, name)
    except CompileError as err:
        out.diagnostics.extend(err.diagnostics)
    return out


def format_path(path: Path) -> Formatted:
    """Format the file at ``path`` (nothing written): :func:`format_bytes` of its bytes, or one
    ``E000`` diagnostic when it cannot be read."""
    try:
        data = path.read_bytes()
    except OSError as err:
        return Formatted(str(path), diagnostics=[
            diag("E000", f"cannot read `{path}`: {err.strerror or err}")])
    return format_bytes(data, str(path))


def format_files(
    paths: Iterable[str | Path], check: bool = False
) -> tuple[list[Path], list[Diagnostic]]:
    """Format ``.edge`` files in place; return the files that changed and the diagnostics.

    A file that does not parse is left alone and contributes its ``E0xx`` diagnostics; a file
    that cannot be read, or is not UTF-8, contributes one ``E000`` diagnostic (at the first
    byte that is not UTF-8). A byte-order mark at the start of a file is ignored, and kept. With
    ``check=True`` no file is written: the returned list names the files that *would* change,
    and the CLI exits non-zero when it, or the diagnostics, are not empty.
    """
    changed: list[Path] = []
    diagnostics: list[Diagnostic] = []
    for raw in paths:
        path = Path(raw)
        done = format_path(path)
        diagnostics.extend(done.diagnostics)
        if done.changed:
            changed.append(path)
            if not check and done.formatted is not None:  # a byte-order mark stays
                path.write_bytes((UTF8_BOM if done.bom else b"")
                                 + done.formatted.encode("utf-8"))
    return changed, diagnostics


__all__ = ["STDIN", "Formatted", "format_bytes", "format_files", "format_path"]
