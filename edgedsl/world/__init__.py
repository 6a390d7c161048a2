"""The world: an embedded, deterministic simulation of ten Korean public-API platforms (ASGI)."""
