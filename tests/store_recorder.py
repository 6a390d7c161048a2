"""A recording process for the store concurrency tests (run as a script, not collected).

    python store_recorder.py STORE START STOP SIZE FLUSH_EVERY [forever]

records ``t.items(n=k, size=SIZE)`` for k in START..STOP-1 through a :class:`RecordingBackend`
given the store's *path* (buffered, one transaction per flush), printing ``flushed N`` after each
flush and ``done N`` after closing. With ``forever`` it loops over START..STOP-1 again and again
(re-recording the same keys) until killed. With ``EDGEDSL_TEST_WAIT=1`` it prints ``ready`` and
waits for a line on stdin before recording (so that two processes start together). With
``EDGEDSL_TEST_KILL=POINT:K`` it kills itself with SIGKILL at POINT of its K-th flush:
``begin`` (the transaction begun, nothing written), ``records`` (the responses and records of
the flush written, not committed) or ``commit`` (committed, the file not yet closed: the
transaction only in the write-ahead log).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import Any

from edgedsl.plan.model import ToolSpec, validated
from edgedsl.runtime import PythonBackend, RecordingBackend, Store

TOOL = validated(ToolSpec, {
    "qualname": "t.items", "platform": "t", "name": "items", "declaration_hash": "ab12cd34ef56ab78",
    "params": [{"name": "n", "type": "int"}, {"name": "size", "type": "int"}],
    "fields": {"i": "int", "name": "str", "day": "date", "tags": {"list": "str"}},
})


def items(n: int, size: int) -> list[dict[str, Any]]:
    """``size`` records for call ``n`` (the same for the same arguments, in every process)."""
    return [{"i": n * 100_000 + j, "name": f"item {n}/{j}", "day": f"2024-01-{1 + j % 28:02d}",
             "tags": [f"n{n}", f"j{j % 5}"]} for j in range(size)]


def arm_kill(spec: str) -> None:
    """Make this process SIGKILL itself at a point of its K-th flush (``POINT:K``)."""
    point, k = spec.split(":")
    flushes = 0

    def die() -> None:
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)

    commit, write_group, insert_records = Store._commit, Store._write_group, Store._insert_records

    def counted_commit(self: Store, groups: Any) -> None:
        nonlocal flushes
        flushes += 1
        commit(self, groups)
        if point == "commit" and flushes == int(k):
            die()

    def killing_write_group(self: Store, *args: Any) -> None:
        if point == "begin" and flushes == int(k):
            die()
        write_group(self, *args)

    def killing_insert_records(self: Store, *args: Any) -> None:
        insert_records(self, *args)
        if point == "records" and flushes == int(k):
            die()

    Store._commit = counted_commit  # type: ignore[method-assign]
    Store._write_group = killing_write_group  # type: ignore[method-assign]
    Store._insert_records = killing_insert_records  # type: ignore[method-assign]


async def main(path: str, start: int, stop: int, size: int, flush_every: int,
               forever: bool) -> None:
    rec = RecordingBackend(PythonBackend({"t.items": items}), path, flush_every=flush_every,
                           flush_seconds=1e9, timeout=300)
    seen = 0
    while True:
        for n in range(start, stop):
            await rec.call(TOOL, {"n": n, "size": size}, page=None)
            if rec.flushes != seen:
                seen = rec.flushes
                print(f"flushed {rec.recorded}", flush=True)
        if not forever:
            break
    rec.close()
    print(f"done {rec.recorded}", flush=True)


if __name__ == "__main__":
    a = sys.argv[1:]
    if os.environ.get("EDGEDSL_TEST_KILL"):
        arm_kill(os.environ["EDGEDSL_TEST_KILL"])
    if os.environ.get("EDGEDSL_TEST_WAIT"):
        print("ready", flush=True)
        sys.stdin.readline()
    asyncio.run(main(a[0], int(a[1]), int(a[2]), int(a[3]), int(a[4]),
                     len(a) > 5 and a[5] == "forever"))
