"""Argument types shared by every command family (``edgedsl run``, ``store``, ``graph``,
``synth``): a bound below its least sensible value is a usage error (exit 2) at the command
line, never a run that does nothing, hangs (a semaphore of 0) or fails later."""

from __future__ import annotations

import argparse
import math

__all__ = ["positive_int", "seconds"]


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} is not positive (at least 1)")
    return n


def seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (x > 0 and math.isfinite(x)):
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return x
