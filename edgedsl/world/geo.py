"""WGS84 ⇄ UTM-K (EPSG:5179), the plane coordinates of juso.go.kr's ``addrCoordApi``.

UTM-K is a Transverse Mercator projection on the GRS80 ellipsoid (for these purposes identical to
WGS84): central meridian 127.5°E, latitude of origin 38°N, scale factor 0.9996, false easting
1,000,000 m and false northing 2,000,000 m. juso answers ``entX``/``entY`` in it, while TAGO and
한국도로공사 speak WGS84 degrees, so a chain from an address to nearby bus stops converts once.

The projection uses Krüger's series to sixth order in the third flattening (Karney 2011), accurate
to well under a millimetre across the Korean peninsula; forward and inverse are exact inverses of
each other to the same precision.
"""

from __future__ import annotations

import math

__all__ = [
    "UTMK_FALSE_EASTING",
    "UTMK_FALSE_NORTHING",
    "utmk_to_wgs84",
    "wgs84_to_utmk",
]

# GRS80
_A = 6378137.0
_F = 1 / 298.257222101

# EPSG:5179 (Korea 2000 / Unified CS)
_LAT0 = math.radians(38.0)
_LON0 = math.radians(127.5)
_K0 = 0.9996
UTMK_FALSE_EASTING = 1_000_000.0
UTMK_FALSE_NORTHING = 2_000_000.0

_N = _F / (2 - _F)
_N2, _N3, _N4, _N5, _N6 = (_N**k for k in range(2, 7))
_RECT = _A / (1 + _N) * (1 + _N2 / 4 + _N4 / 64 + _N6 / 256)  # rectifying radius

_ALPHA = (
    _N / 2 - 2 * _N2 / 3 + 5 * _N3 / 16 + 41 * _N4 / 180 - 127 * _N5 / 288 + 7891 * _N6 / 37800,
    13 * _N2 / 48 - 3 * _N3 / 5 + 557 * _N4 / 1440 + 281 * _N5 / 630 - 1983433 * _N6 / 1935360,
    61 * _N3 / 240 - 103 * _N4 / 140 + 15061 * _N5 / 26880 + 167603 * _N6 / 181440,
    49561 * _N4 / 161280 - 179 * _N5 / 168 + 6601661 * _N6 / 7257600,
    34729 * _N5 / 80640 - 3418889 * _N6 / 1995840,
    212378941 * _N6 / 319334400,
)
_BETA = (
    _N / 2 - 2 * _N2 / 3 + 37 * _N3 / 96 - _N4 / 360 - 81 * _N5 / 512 + 96199 * _N6 / 604800,
    _N2 / 48 + _N3 / 15 - 437 * _N4 / 1440 + 46 * _N5 / 105 - 1118711 * _N6 / 3870720,
    17 * _N3 / 480 - 37 * _N4 / 840 - 209 * _N5 / 4480 + 5569 * _N6 / 90720,
    4397 * _N4 / 161280 - 11 * _N5 / 504 - 830251 * _N6 / 7257600,
    4583 * _N5 / 161280 - 108847 * _N6 / 3991680,
    20648693 * _N6 / 638668800,
)
_DELTA = (
    2 * _N - 2 * _N2 / 3 - 2 * _N3 + 116 * _N4 / 45 + 26 * _N5 / 45 - 2854 * _N6 / 675,
    7 * _N2 / 3 - 8 * _N3 / 5 - 227 * _N4 / 45 + 2704 * _N5 / 315 + 2323 * _N6 / 945,
    56 * _N3 / 15 - 136 * _N4 / 35 - 1262 * _N5 / 105 + 73814 * _N6 / 2835,
    4279 * _N4 / 630 - 332 * _N5 / 35 - 399572 * _N6 / 14175,
    4174 * _N5 / 315 - 144838 * _N6 / 6237,
    601676 * _N6 / 22275,
)
_E2N = 2 * math.sqrt(_N) / (1 + _N)  # the first eccentricity e


def _conformal_tan(lat: float) -> float:
    """tan χ of the conformal latitude χ of geodetic latitude ``lat`` (radians)."""
    s = math.sin(lat)
    return math.sinh(math.atanh(s) - _E2N * math.atanh(_E2N * s))


def _xi_eta(lat: float, dlon: float) -> tuple[float, float]:
    t = _conformal_tan(lat)
    xi_p = math.atan2(t, math.cos(dlon))
    eta_p = math.atanh(math.sin(dlon) / math.sqrt(1 + t * t))
    xi, eta = xi_p, eta_p
    for j, a in enumerate(_ALPHA, start=1):
        xi += a * math.sin(2 * j * xi_p) * math.cosh(2 * j * eta_p)
        eta += a * math.cos(2 * j * xi_p) * math.sinh(2 * j * eta_p)
    return xi, eta


_XI0, _ = _xi_eta(_LAT0, 0.0)


def wgs84_to_utmk(lat: float, lon: float) -> tuple[float, float]:
    """WGS84 degrees → UTM-K metres ``(x, y)`` = (easting, northing), juso's ``(entX, entY)``."""
    xi, eta = _xi_eta(math.radians(lat), math.radians(lon) - _LON0)
    x = UTMK_FALSE_EASTING + _K0 * _RECT * eta
    y = UTMK_FALSE_NORTHING + _K0 * _RECT * (xi - _XI0)
    return x, y


def utmk_to_wgs84(x: float, y: float) -> tuple[float, float]:
    """UTM-K metres ``(x, y)`` (juso ``entX``, ``entY``) → WGS84 ``(lat, lon)`` in degrees."""
    xi = (y - UTMK_FALSE_NORTHING) / (_K0 * _RECT) + _XI0
    eta = (x - UTMK_FALSE_EASTING) / (_K0 * _RECT)
    xi_p, eta_p = xi, eta
    for j, b in enumerate(_BETA, start=1):
        xi_p -= b * math.sin(2 * j * xi) * math.cosh(2 * j * eta)
        eta_p -= b * math.cos(2 * j * xi) * math.sinh(2 * j * eta)
    chi = math.asin(math.sin(xi_p) / math.cosh(eta_p))
    lat = chi + sum(d * math.sin(2 * j * chi) for j, d in enumerate(_DELTA, start=1))
    lon = _LON0 + math.atan2(math.sinh(eta_p), math.cos(xi_p))
    return math.degrees(lat), math.degrees(lon)
