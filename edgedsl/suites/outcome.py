"""What an import wrote and how much of a suite's gold the written programs reproduce, and
running written programs on the python backend (shared by every importer)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..api import compile, read_source
from ..runtime.executor import run_plan_sync
from ..runtime.python_backend import PythonBackend
from ..runtime.result import RunResult
from .model import GoldCase, SuiteError
from .stateful import ORDER_PARAM

__all__ = ["Reproduced", "Written", "failure", "program_files", "run_file", "write_files"]


@dataclass
class Written:
    """The files an import wrote (programs, catalog, tools) and the cases they hold."""

    suite: str
    out: Path
    files: list[Path] = field(default_factory=list)
    cases: int = 0
    refs: int = 0
    literals_left: int = 0
    literals_in_lists: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """Cases that could not be written (id, why); the check counts them as misses."""

    @classmethod
    def of(cls, suite: str, out: Path, files: list[Path], cases: list[GoldCase],
           skipped: list[tuple[str, str]] | None = None) -> Written:
        """What writing ``cases`` into ``files`` amounts to: the forwarded values written as
        references (the ordering ``after`` aside) and the values left literal that an earlier
        output holds (and how many of those are inside list or object arguments)."""
        return cls(suite=suite, out=out, files=files, cases=len(cases),
                   refs=sum(1 for c in cases for _, p, _ in c.refs() if p != ORDER_PARAM),
                   literals_left=sum(c.extra.get("nested", 0) for c in cases),
                   literals_in_lists=sum(c.extra.get("nested_in_lists", 0) for c in cases),
                   skipped=list(skipped or []))

    def summary(self) -> str:
        """One line: cases, files, forwarded values written as references."""
        return (f"{self.suite}: {self.cases} cases, {len(self.files)} files in {self.out}, "
                f"{self.refs} forwarded values written as references")


@dataclass
class Reproduced:
    """How many cases of a suite the written programs reproduce (``what``: the measure)."""

    suite: str
    what: str
    total: int = 0
    matched: int = 0
    misses: list[tuple[str, str]] = field(default_factory=list)

    def add(self, case_id: str, problem: str | None) -> None:
        """Count one case: ``problem`` None when it reproduces the gold, else why not."""
        self.total += 1
        if problem is None:
            self.matched += 1
        else:
            self.misses.append((case_id, problem))

    @property
    def share(self) -> float:
        """The reproduced share (0.0 for no cases)."""
        return self.matched / self.total if self.total else 0.0

    def summary(self) -> str:
        """One line: the reproduced share and the measure."""
        return (f"{self.suite}: {self.matched}/{self.total} {self.what} "
                f"({100 * self.share:.1f}%)")

    def as_json(self) -> dict[str, Any]:
        """The report as JSON data."""
        return {"suite": self.suite, "what": self.what, "total": self.total,
                "matched": self.matched, "share": self.share,
                "misses": [{"case": c, "problem": p} for c, p in self.misses]}


def run_file(path: Path, tools: dict[str, Any], trajectory: str | None = None,
             ) -> list[RunResult]:
    """Compile the ``.edge`` file at ``path`` (its catalogs beside it) and run it (or one of
    its trajectories) on the python backend over ``tools``."""
    plan = compile(read_source(path), search_paths=(path.parent,))
    return run_plan_sync(plan, PythonBackend(tools), trajectory=trajectory)


def failure(result: RunResult) -> str:
    """Why a run failed: its diagnostics, one line."""
    return "; ".join(f"{d.code} {d.message}" for d in result.diagnostics)


def write_files(files: dict[Path, str]) -> list[Path]:
    """Write each text (UTF-8) at its path; the paths, in order."""
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return list(files)


def program_files(cases: list[GoldCase], out: Path, make: Callable[[GoldCase], str],
                  ) -> tuple[dict[Path, str], list[GoldCase], list[tuple[str, str]]]:
    """``out/<case name>.edge`` for each case that can be written (``make`` gives its text);
    one that cannot (a value with no literal) is skipped with the reason, and an old file of
    its name removed, so that the check counts it as a miss instead of the import failing."""
    files, written, skipped = {}, [], []
    for case in cases:
        path = out / f"{case.name}.edge"
        try:
            files[path] = make(case)
            written.append(case)
        except SuiteError as exc:
            skipped.append((case.case_id, str(exc)))
            path.unlink(missing_ok=True)
    return files, written, skipped
