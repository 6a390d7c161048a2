"""The progress line of ``edgedsl run`` on stderr: the steps finished and the page a call is
reading, drawn by tqdm once a run has taken more than :data:`AFTER` seconds, redrawn while a
slow page is in flight, and cleared when the run ends. Off with ``--quiet`` and whenever
stderr is not a terminal (a pipe, a file, CI), so output that is read by programs never
carries it."""

from __future__ import annotations

import threading
import time
from typing import IO, Any

from ..runtime.progress import Progress

__all__ = ["AFTER", "TerminalProgress", "progress_for"]

AFTER = 1.0
"""Seconds a run goes before its progress line appears (a quick run draws nothing)."""

_TICK = 0.25
"""Seconds between two redraws while nothing finishes (the elapsed time keeps moving)."""


class TerminalProgress(Progress):
    """One tqdm line over every trajectory of a run: ``3/7 steps · filings: page 5, 500 of
    1,280 records [00:04]``. Use as a context manager; :meth:`close` clears the line."""

    def __init__(self, stream: IO[str], label: str, after: float | None = None) -> None:
        from tqdm import tqdm

        self.after = AFTER if after is None else after
        self.start = time.monotonic()
        self.bar: Any = tqdm(total=0, file=stream, desc=label, unit="step", leave=False,
                             delay=self.after, dynamic_ncols=True,
                             bar_format="{desc}: {n_fmt}/{total_fmt} steps{postfix} "
                                        "[{elapsed}]")
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="edgedsl-progress", daemon=True)
        self._ticker.start()

    def _due(self) -> bool:
        return time.monotonic() - self.start >= self.after

    def _tick(self) -> None:
        while not self._stop.wait(_TICK):
            if self._due():
                self.bar.refresh()

    def started(self, trajectory: str, steps: int) -> None:
        """Count the trajectory's steps into the line's total."""
        self.bar.total += steps

    def step_finished(self, trajectory: str, step: str, ok: bool) -> None:
        """One more step done."""
        self.bar.update(1)
        if self._due():
            self.bar.refresh()

    def page_read(self, trajectory: str, step: str, page: int, records: int,
                  total: int | None) -> None:
        """Show the page a call has reached and the records read so far."""
        of = "" if total is None else f" of {total:,}"
        self.bar.set_postfix_str(f"{trajectory}/{step}: page {page}, {records:,}{of} records",
                                 refresh=self._due())

    def close(self) -> None:
        """Stop redrawing and clear the line."""
        self._stop.set()
        self._ticker.join()
        self.bar.close()

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress_for(stream: IO[str], label: str, *, quiet: bool) -> TerminalProgress | None:
    """A progress line on ``stream``, or None when ``quiet`` or ``stream`` is no terminal."""
    isatty = getattr(stream, "isatty", None)
    if quiet or isatty is None or not isatty():
        return None
    return TerminalProgress(stream, label)
