"""The numpy special functions of scenario sampling against scipy (the reference).

scipy is itself accurate to a few ulp at best and a few hundred in the far normal tail
(its ``ndtr`` rounds ``x / sqrt 2`` first), so the tolerances here are those of the worse
of the two; checks that need no reference (round trips, edge values) are tight.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import special, stats

from forecast.core.special import betainc, betaincinv, ndtr, ndtri, truncnorm_ppf

RNG = np.random.default_rng(20251031)
SHAPES = [(7.0, 13.0), (5.0, 13.0), (12.0, 4.0), (16.0, 4.0), (4.077, 1.923), (2.31, 3.69),
          (1.0, 1.0), (1.0, 7.5), (1.5, 1.0), (0.5, 0.5), (0.3, 4.0), (4.0, 0.3),
          (50.0, 60.0), (200.0, 3.0), (0.05, 0.05)]


def test_ndtr_matches_scipy() -> None:
    x = np.concatenate([np.linspace(-37.0, 8.5, 100_001), RNG.normal(size=10_000)])
    expected = special.ndtr(x)
    got = ndtr(x)
    central = np.abs(x) <= 10
    # scipy's own error grows like x^2 ulp in the lower tail: compare within that.
    np.testing.assert_allclose(got[central], expected[central], rtol=2e-14, atol=0)
    np.testing.assert_allclose(got, expected, rtol=3e-13, atol=0)
    np.testing.assert_array_equal(ndtr(np.array([-np.inf, 0.0, np.inf])), [0.0, 0.5, 1.0])
    assert np.isnan(ndtr(np.nan))
    assert ndtr(1.5).shape == ()


def test_ndtr_is_symmetric() -> None:
    x = np.linspace(0.0, 8.0, 10_001)
    np.testing.assert_allclose(ndtr(x) + ndtr(-x), 1.0, rtol=0, atol=2.3e-16)


def test_ndtri_matches_scipy_and_inverts_ndtr() -> None:
    p = np.concatenate([np.logspace(-300, -1, 20_000), RNG.random(20_000),
                        1 - np.logspace(-16, -1, 2_000), 0.5 + np.logspace(-17, -2, 500),
                        0.5 - np.logspace(-17, -2, 500)])
    np.testing.assert_allclose(ndtri(p), special.ndtri(p), rtol=2e-15, atol=1e-300)
    # Round trip where Phi(x) is not crowded against 1 (above the median p holds only the
    # 16 digits of 1 - p, and ndtri uses the exact 1 - p there).
    x = RNG.uniform(-37.0, 0.5, size=20_000)
    np.testing.assert_allclose(ndtri(ndtr(x)), x, rtol=2e-15, atol=1e-16)
    edges = ndtri(np.array([0.0, 0.5, 1.0, -0.1, 1.1, np.nan]))
    np.testing.assert_array_equal(edges[:3], [-np.inf, 0.0, np.inf])
    assert np.isnan(edges[3:]).all()
    assert ndtri(0.3).shape == ()


@pytest.mark.parametrize(("a", "b"), SHAPES)
def test_betainc_matches_scipy(a: float, b: float) -> None:
    x = np.concatenate([RNG.random(5_000), np.logspace(-12, -1, 200),
                        1 - np.logspace(-12, -1, 200)])
    got = betainc(a, b, x)
    expected = special.betainc(a, b, x)
    lower = expected <= 0.5
    # Relative accuracy where I_x is small. Above the median the reference is taken from
    # the small complement, 1 - I_{1-x}(b, a), which scipy computes to full precision (its
    # I_x itself is off by up to 4e-11 near 1 for a = b = 0.5).
    complement = 1.0 - special.betainc(b, a, 1.0 - x[~lower])
    # The prefactor x^a (1-x)^b / B(a, b) loses digits as the shapes grow: 3e-13 at a = 200,
    # under 1e-14 for the scenarios' shapes (up to 16).
    np.testing.assert_allclose(got[lower], expected[lower], rtol=5e-13, atol=1e-300)
    np.testing.assert_allclose(got[~lower], complement, rtol=0, atol=2e-13)
    np.testing.assert_array_equal(betainc(a, b, np.array([0.0, 1.0])), [0.0, 1.0])


@pytest.mark.parametrize(("a", "b"), SHAPES)
def test_betaincinv_matches_scipy_and_inverts_betainc(a: float, b: float) -> None:
    p = np.concatenate([RNG.random(5_000), np.logspace(-15, -1, 300),
                        1 - np.logspace(-15, -1, 300)])
    got = betaincinv(a, b, p)
    np.testing.assert_allclose(got, special.betaincinv(a, b, p), rtol=2e-13, atol=1e-300)
    edges = betaincinv(a, b, np.array([0.0, 1.0, -0.5, 2.0, np.nan]))
    np.testing.assert_array_equal(edges[:2], [0.0, 1.0])
    assert np.isnan(edges[2:]).all()
    if min(a, b) < 1:
        return  # U- and J-shaped: quantiles sit closer to 0 or 1 than doubles resolve
    lower = p <= 0.5
    np.testing.assert_allclose(betainc(a, b, got[lower]), p[lower], rtol=5e-13)
    np.testing.assert_allclose(betainc(a, b, got[~lower]), p[~lower], rtol=0, atol=2e-13)


def test_betaincinv_values_do_not_depend_on_the_batch() -> None:
    # Scenario sampling calls it per input; a caller batching inputs (or a block boundary
    # inside a long array) must get the very same numbers.
    p = RNG.random(20_000)
    alone = [betaincinv(a, b, p) for a, b in SHAPES[:4]]
    together = betaincinv(np.repeat([s[0] for s in SHAPES[:4]], p.size),
                          np.repeat([s[1] for s in SHAPES[:4]], p.size), np.tile(p, 4))
    np.testing.assert_array_equal(np.concatenate(alone), together)
    np.testing.assert_array_equal(betaincinv(7.0, 13.0, p[:100]), alone[0][:100])


@pytest.mark.parametrize(
    ("a", "b"),
    [(-1.333, 3.667), (-2.0, 3.0), (0.5, 4.0), (-5.0, -1.0), (-np.inf, 1.0), (0.0, np.inf),
     (-np.inf, np.inf), (-1.0, 0.0), (0.0, 1.0), (3.0, 9.0), (6.0, np.inf), (-np.inf, -6.5),
     (-0.1, 0.1)],
)
@pytest.mark.parametrize(("loc", "scale"), [(0.0, 1.0), (0.08, 0.06)])
def test_truncnorm_ppf_matches_scipy_stats(a: float, b: float, loc: float, scale: float) -> None:
    q = np.concatenate([RNG.random(5_000), [1e-15, 1 - 1e-15, 0.0, 1.0, 0.5]])
    expected = stats.truncnorm(a, b, loc=loc, scale=scale).ppf(q)
    got = truncnorm_ppf(q, a, b, loc=loc, scale=scale)
    finite = np.isfinite(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-13, atol=5e-13 * scale)
    np.testing.assert_array_equal(got[~finite], expected[~finite])
    assert ((got >= a * scale + loc) & (got <= b * scale + loc)).all()
    assert np.isnan(truncnorm_ppf(np.array([-0.1, 1.1, np.nan]), a, b, loc, scale)).all()
    assert truncnorm_ppf(0.3, a, b, loc, scale).shape == ()


def test_forecast_special_imports_no_scipy() -> None:
    code = ("import sys, forecast.core.special\n"
            "assert not [m for m in sys.modules if m.startswith('scipy')]\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])
