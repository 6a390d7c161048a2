"""``edgedsl world serve``: the world's ASGI app under uvicorn."""

from __future__ import annotations

import sys

from .app import make_app
from .engine import World
from .faults import FaultPlan
from .limits import Limits

__all__ = ["serve"]


def serve(*, host: str = "127.0.0.1", port: int = 8088, seed: int = 0,
          faults: FaultPlan | None = None, world: World | None = None,
          limits: Limits | None = None) -> None:
    """Serve a world with ``seed``, ``faults`` and ``limits`` until interrupted (``world``:
    serve this one instead, e.g. a world of chosen platform modules; ``seed``, ``faults`` and
    ``limits`` are then its own)."""
    import uvicorn

    if world is None:
        world = World(seed=seed, faults=faults or FaultPlan(), limits=limits or Limits())
    n = len(world.endpoints)
    sys.stderr.write(f"edgedsl world: {n} endpoints, seed {world.seed}, request bodies up to "
                     f"{world.limits.body_bytes:,} bytes, on http://{host}:{port}\n")
    uvicorn.run(make_app(world), host=host, port=port, log_level="warning", lifespan="on")
