"""Benchmark: the scorer alone (``edgedsl bench score``) on recorded episodes.

Issue 19 §3 asks for at least 1,000 recorded episodes scored per second. The episodes are real
ones: the oracle and the two scripted baselines run on two world tasks (``two_bridges``, a
parallel pair of reads; ``rights_offering_sweep``, two pages, a fan of three and a fan of
three paged reads), each with its gold run; they are then copied, with new rollout numbers, up
to ``--episodes`` lines of one results directory. Timed, alternating over ``--rounds`` rounds:

- ours — :func:`~edgedsl.bench.score.summary.score_results`: read ``episodes.jsonl``, score
  every episode on the three axes, aggregate with bootstrap intervals, write ``scores.jsonl``
  and ``summary.json`` (everything ``bench score`` does but printing);
- baseline — reading and validating the same ``episodes.jsonl`` alone (the floor any scorer
  pays).

Prints the rate, its ratio to the 1,000 episodes/s target (the time budget 1 ms per episode
over the measured time per episode: ≥ 1 meets it) and the cost of scoring over reading.
Asserts nothing about time::

    python benchmarks/bench_score.py [--episodes 20000] [--rounds 5] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import orjson
from ratios import alternating_medians, cost, speedup  # benchmarks/ is the script's directory

from edgedsl.bench.agents.base import make_agent
from edgedsl.bench.bundle import make_bundle
from edgedsl.bench.episode import EPISODES_FILE, RunMeta, read_episodes, write_meta
from edgedsl.bench.runner import run_bench
from edgedsl.bench.score.summary import score_results

TARGET_PER_SECOND = 1000
TASKS = ("02_two_bridges.edge", "03_rights_offering_sweep.edge")


def recorded(directory: Path, n: int, tasks: tuple[str, ...]) -> int:
    """Write ``n`` episodes to ``directory``: real episodes of the three reference agents,
    copied with new rollout numbers; returns how many real episodes were recorded."""
    bundle = make_bundle([ROOT / "examples" / "world" / t for t in tasks]).sealed()
    lines: list[bytes] = []
    for agent in ("oracle", "first-page", "first-record"):
        out = directory / f"run-{agent}"
        run_bench(bundle, make_agent(agent, bundle), out=out)
        lines += [line for line in (out / EPISODES_FILE).read_bytes().splitlines() if line]
    real = len(lines)
    eps = [orjson.loads(line) for line in lines]
    target = directory / "scored"
    write_meta(target, RunMeta(bundle_hash=bundle.hash, agent="mixed", k=1))
    with (target / EPISODES_FILE).open("wb") as fh:
        for i in range(n):
            ep = dict(eps[i % real])
            ep["rollout"] = i // real
            fh.write(orjson.dumps(ep) + b"\n")
    return real


def main() -> None:
    """Measure and print the ratios."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--smoke", action="store_true", help="one task, 300 episodes, 1 round")
    args = ap.parse_args()
    n, rounds, tasks = args.episodes, args.rounds, TASKS
    if args.smoke:
        n, rounds, tasks = 300, 1, TASKS[:1]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        real = recorded(d, n, tasks)
        scored = d / "scored"
        count = sum(1 for _ in read_episodes(scored))
        assert count == n
        med = alternating_medians({
            "score": lambda: score_results(scored),
            "read": lambda: sum(1 for _ in read_episodes(scored)),
        }, rounds)
        per_ep = med["score"] / n
        print(f"{n} episodes ({real} recorded, copied), {rounds} round(s), load "
              f"{os.getloadavg()[0]:.2f}: scored {n / med['score']:,.0f} episodes/s "
              f"(target {TARGET_PER_SECOND:,}/s)")
        speedup("bench score: time per episode vs the 1 ms budget", per_ep,
                1.0 / TARGET_PER_SECOND, at_least=1.0,
                baseline_label="the target, 1,000 episodes/s")
        cost("bench score vs reading the episodes alone", med["score"], med["read"],
             baseline_label="read_episodes")


if __name__ == "__main__":
    main()
