"""``edgedsl fmt FILE… [--check]``: rewrite files in the canonical layout of ``printer.py``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .diagnostics import CompileError, Diagnostic, diag
from .printer import format_text


def format_files(
    paths: Iterable[str | Path], check: bool = False
) -> tuple[list[Path], list[Diagnostic]]:
    """Format ``.edge`` files in place; return the files that changed and the diagnostics.

    A file that does not parse is left alone and contributes its ``E0xx`` diagnostics; a file
    that cannot be read as UTF-8 contributes one ``E000`` diagnostic. With ``check=True`` no file
    is written: the returned list names the files that *would* change, and the CLI exits non-zero
    when it, or the diagnostics, are not empty.
    """
    changed: list[Path] = []
    diagnostics: list[Diagnostic] = []
    for raw in paths:
        path = Path(raw)
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            diagnostics.append(diag("E000", f"cannot read `{path}`: {reason}"))
            continue
        try:
            formatted = format_text(text, str(path))
        except CompileError as err:
            diagnostics.extend(err.diagnostics)
            continue
        if formatted != text:
            changed.append(path)
            if not check:
                path.write_bytes(formatted.encode("utf-8"))
    return changed, diagnostics


__all__ = ["format_files"]
