"""Argument types shared by every command family (``edgedsl run``, ``store``, ``graph``,
``synth``): a bound below its least sensible value is a usage error (exit 2) at the command
line, never a run that does nothing, hangs (a semaphore of 0) or fails later."""

from __future__ import annotations

import argparse
import math

__all__ = ["non_negative", "non_negative_int", "positive", "positive_int", "probability",
           "seconds"]


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    n = _whole(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} is not positive (at least 1)")
    return n


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    n = _whole(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"{n} is negative")
    return n


def _number(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(x):
        raise argparse.ArgumentTypeError(f"{text} is not a finite number")
    return x


def probability(text: str) -> float:
    """An argparse type: a number from 0 to 1."""
    x = _number(text)
    if not 0 <= x <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not a probability (0 … 1)")
    return x


def positive(text: str) -> float:
    """An argparse type: a finite number above 0."""
    x = _number(text)
    if x <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not positive")
    return x


def seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds."""
    return positive(text)


def non_negative(text: str) -> float:
    """An argparse type: a finite number of at least 0."""
    x = _number(text)
    if x < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return x
