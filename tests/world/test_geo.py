"""WGS84 ⇄ UTM-K (EPSG:5179): reference points computed with PROJ, round trips, known origin."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgedsl.world.geo import utmk_to_wgs84, wgs84_to_utmk

# (lat, lon) → (x, y) as computed by PROJ 9 (pyproj, EPSG:4326 → EPSG:5179), to the millimetre.
REFERENCE = [
    ((38.0, 127.5), (1_000_000.000, 2_000_000.000)),  # the projection origin
    ((37.5665, 126.9780), (953_901.165, 1_952_032.081)),  # 서울시청
    ((37.5759, 126.9769), (953_809.827, 1_953_075.506)),  # 광화문
    ((35.1796, 129.0756), (1_143_467.380, 1_688_281.982)),  # 부산시청
    ((33.4996, 126.5312), (910_010.546, 1_501_279.789)),  # 제주시
    ((37.8228, 128.1555), (1_057_689.669, 1_980_541.959)),  # 강원 홍천
    ((36.3504, 127.3845), (989_636.503, 1_817_005.246)),  # 대전시청
]


@pytest.mark.parametrize(("wgs", "utmk"), REFERENCE)
def test_forward_matches_proj(wgs: tuple[float, float], utmk: tuple[float, float]) -> None:
    x, y = wgs84_to_utmk(*wgs)
    assert x == pytest.approx(utmk[0], abs=1e-3)
    assert y == pytest.approx(utmk[1], abs=1e-3)


@pytest.mark.parametrize(("wgs", "utmk"), REFERENCE)
def test_inverse_matches_proj(wgs: tuple[float, float], utmk: tuple[float, float]) -> None:
    lat, lon = utmk_to_wgs84(*utmk)
    # 1 mm is about 1e-8 degrees
    assert lat == pytest.approx(wgs[0], abs=2e-8)
    assert lon == pytest.approx(wgs[1], abs=2e-8)


@given(
    st.floats(min_value=32.5, max_value=39.5), st.floats(min_value=124.0, max_value=132.0)
)
def test_round_trip_over_korea(lat: float, lon: float) -> None:
    x, y = wgs84_to_utmk(lat, lon)
    back = utmk_to_wgs84(x, y)
    assert back[0] == pytest.approx(lat, abs=1e-9)
    assert back[1] == pytest.approx(lon, abs=1e-9)


def test_scale_on_the_central_meridian_is_k0() -> None:
    # one arc-second of latitude at 38°N is ρ·π/648000 ≈ 30.832 m
    # (meridional radius ρ ≈ 6,359,618 m), times 0.9996
    _, y1 = wgs84_to_utmk(38.0, 127.5)
    _, y2 = wgs84_to_utmk(38.0 + 1 / 3600, 127.5)
    assert y2 - y1 == pytest.approx(30.820, abs=0.002)
    x, _ = wgs84_to_utmk(38.0, 127.5)
    assert math.isclose(x, 1_000_000.0, abs_tol=1e-6)


def test_east_is_larger_x_and_north_is_larger_y() -> None:
    x0, y0 = wgs84_to_utmk(37.5, 127.0)
    x1, y1 = wgs84_to_utmk(37.5, 127.1)
    x2, y2 = wgs84_to_utmk(37.6, 127.0)
    assert x1 > x0 and abs(y1 - y0) < 100
    assert y2 > y0 and abs(x2 - x0) < 100
