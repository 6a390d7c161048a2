"""``edgedsl fmt FILE… [--check]``: rewrite files in the canonical layout of ``printer.py``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..core.diagnostics import CompileError, Diagnostic, diag, not_utf8
from ..core.source import UTF8_BOM, decode_source
from .printer import format_text


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
        try:
            data = path.read_bytes()
            text = decode_source(data)
        except OSError as err:
            diagnostics.append(diag("E000", f"cannot read `{path}`: {err.strerror or err}"))
            continue
        except UnicodeDecodeError as err:
            diagnostics.append(not_utf8(str(path), err)[0])
            continue
        try:
            formatted = format_text(text, str(path))
        except CompileError as err:
            diagnostics.extend(err.diagnostics)
            continue
        if formatted != text:
            changed.append(path)
            if not check:  # a byte-order mark the file starts with stays
                bom = UTF8_BOM if data.startswith(UTF8_BOM) else b""
                path.write_bytes(bom + formatted.encode("utf-8"))
    return changed, diagnostics


__all__ = ["format_files"]
