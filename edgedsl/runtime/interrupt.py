"""Ctrl-C, told apart from a ``KeyboardInterrupt`` that a tool raises itself.

A python tool's own code may raise ``KeyboardInterrupt``; that is the tool failing, and the run
records it (:func:`edgedsl.runtime.backends.classify_raised`). A real Ctrl-C must still stop the
run cleanly, wherever the signal lands — on an async tool's line too. :func:`watching` installs
a SIGINT handler (main thread only) that notes the signal before raising ``KeyboardInterrupt``
as Python's own handler does; :func:`requested` then tells the two apart.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["requested", "watching"]

_SEEN = threading.Event()


def requested() -> bool:
    """True once Ctrl-C (SIGINT) arrived while :func:`watching` was active."""
    return _SEEN.is_set()


def _handler(signum: int, frame: FrameType | None) -> None:
    _SEEN.set()
    raise KeyboardInterrupt


@contextmanager
def watching() -> Iterator[None]:
    """Note SIGINT for :func:`requested` while the block runs (a no-op off the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _SEEN.clear()
    previous = signal.signal(signal.SIGINT, _handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
