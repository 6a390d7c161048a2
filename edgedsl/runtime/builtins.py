"""The ``std`` platform: edgedsl's own in-process tools (``stdlib/std.edge``).

Pure conversions that link the platforms' code systems, run in process on every backend: the
HTTP-based backends, the python backend (unless the user's ``TOOLS`` override a name) and the
store backend answer ``std.*`` calls with these functions instead of the network or the store.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..world.geo import utmk_to_wgs84 as _utmk_to_wgs84

__all__ = ["BUILTINS", "is_builtin"]

PLATFORM = "std"


def lawd_cd(*, admCd: str, **_: Any) -> dict[str, Any]:
    """법정동코드 10자리 → 시군구 5자리 (``LAWD_CD``)."""
    code = str(admCd).strip()
    if len(code) != 10 or not code.isdigit():
        raise ValueError(f"admCd must be a 10-digit 법정동코드, not {code!r}")
    return {"admCd": code, "LAWD_CD": code[:5]}


def utmk_to_wgs84(*, entX: float, entY: float, **_: Any) -> dict[str, Any]:
    """UTM-K metres (juso ``entX``/``entY``) → WGS84 degrees (TAGO ``gpsLati``/``gpsLong``)."""
    x, y = float(entX), float(entY)
    lat, lon = _utmk_to_wgs84(x, y)
    return {"entX": x, "entY": y, "gpsLati": round(lat, 7), "gpsLong": round(lon, 7)}


BUILTINS: dict[str, Callable[..., Any]] = {
    "std.lawd_cd": lawd_cd,
    "std.utmk_to_wgs84": utmk_to_wgs84,
}


def is_builtin(qualname: str) -> bool:
    """True for a tool of the ``std`` platform that edgedsl implements."""
    return qualname in BUILTINS
