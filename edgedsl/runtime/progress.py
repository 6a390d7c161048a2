"""What a run tells an observer while it goes (``edgedsl run``'s progress line on a terminal):
a trajectory's steps as they finish and each page a call reads.

The runtime draws nothing itself: it calls a :class:`Progress` (by default :data:`SILENT`,
which ignores everything); the command line passes one that draws a line on stderr."""

from __future__ import annotations

__all__ = ["SILENT", "Progress"]


class Progress:
    """An observer of runs; every method does nothing here (subclass what you need). Called on
    the run's event loop thread, so an implementation must not block."""

    def started(self, trajectory: str, steps: int) -> None:
        """Trajectory ``trajectory`` starts, with ``steps`` steps (all scopes counted)."""

    def step_finished(self, trajectory: str, step: str, ok: bool) -> None:
        """Step ``step`` of ``trajectory`` finished (``ok`` False: it failed)."""

    def page_read(self, trajectory: str, step: str, page: int, records: int,
                  total: int | None) -> None:
        """A call of ``step`` read page ``page``: ``records`` records so far in this arm, of
        ``total`` the service reported (None when it reports none)."""

    def finished(self, trajectory: str) -> None:
        """Trajectory ``trajectory`` finished (whether or not it succeeded)."""


SILENT = Progress()
"""The observer that ignores everything (a run's default)."""
