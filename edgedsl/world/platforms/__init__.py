"""The ten platforms of the world, one module each (``DATASETS`` and ``ENDPOINTS``)."""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType

__all__ = ["MODULES", "platform_modules"]

MODULES = ("dart", "fsc", "neis", "law", "assembly", "nec", "ex", "bus", "region", "seoul")
"""Module names under this package: OpenDART; 금융위원회 (KRX prices, corp info, FS); NEIS;
law.go.kr; 열린국회정보; 중앙선거관리위원회; 한국도로공사; TAGO + 서울 버스; 행정안전부 codes +
juso + 국토부 실거래가; 서울 열린데이터광장."""


@cache
def platform_modules() -> tuple[ModuleType, ...]:
    """The imported platform modules, in ``MODULES`` order."""
    return tuple(importlib.import_module(f"{__name__}.{m}") for m in MODULES)
