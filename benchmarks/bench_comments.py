"""Comment attachment: parse + check of one large file with and without comments.

One file of ``--n`` small trajectories over the mini catalog of ``bench_compile`` (4,000 by
default), written twice: as it is, and with two comments per trajectory (one before it, one
inside it). Prints the time of ``edgedsl.check`` (parse, build with comment attachment, check)
on each, best of ``--repeat``, and the ratio with / without comments. Attaching comments used to
scan every comment for every statement (4,000 trajectories: 1.7 s without comments, 15.4 s with
two each); it is linear now, so the ratio stays near 1 whatever ``--n`` is. Never asserts on
time (``tests/syntax/test_build_direct.py`` bounds the work by counting instead).

    python benchmarks/bench_comments.py [--n 4000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_compile import CATALOG, trajectory

from edgedsl.api import check
from edgedsl.core.source import Source


def corpus(n: int, comments: bool) -> str:
    """One file of ``n`` trajectories (the same ones every time), two comments each or none."""
    rng = random.Random(7)
    parts = ["use fin\n"]
    for i in range(n):
        body = trajectory(i, rng).split("\n", 2)[2]  # without its `use fin` header
        if comments:
            body = f"# trajectory {i}: 최근 공시와 종가\n" + body.replace(
                "  corp =", "  # 회사 코드부터 찾는다\n  corp =", 1)
        parts.append(body)
    return "\n".join(parts)


def best_seconds(path: Path, repeat: int) -> float:
    """The fastest of ``repeat`` checks of the file at ``path``."""
    best = float("inf")
    for _ in range(repeat):
        source = Source.from_path(path)
        t0 = time.perf_counter()
        check(source)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4000, help="trajectories in the file (default 4000)")
    ap.add_argument("--repeat", type=int, default=3, help="checks of each file (default 3)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "fin.edge").write_text(CATALOG, encoding="utf-8")
        plain, commented = d / "plain.edge", d / "commented.edge"
        plain.write_text(corpus(args.n, comments=False), encoding="utf-8")
        commented.write_text(corpus(args.n, comments=True), encoding="utf-8")
        check(Source.from_path(plain))  # warm the parsers and the catalog memo
        without = best_seconds(plain, args.repeat)
        with_comments = best_seconds(commented, args.repeat)
        size = commented.stat().st_size
    print(f"file: {args.n} trajectories, {size / 1e6:.1f} MB with {2 * args.n} comments")
    print(f"check without comments:   {without:8.2f} s")
    print(f"check with comments:      {with_comments:8.2f} s")
    print(f"ratio with / without:     {with_comments / without:8.2f}")


if __name__ == "__main__":
    main()
