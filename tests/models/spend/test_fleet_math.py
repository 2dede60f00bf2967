"""M5's stock recursion: the numpy step-by-step fleet against the matrix form PyTensor uses."""

from __future__ import annotations

import numpy as np

from forecast.models.spend.fleet_math import decay_matrix, fleet_stock


def test_numpy_fleet_equals_the_matrix_form_with_an_opening_fleet() -> None:
    rng = np.random.default_rng(7)
    shipped = rng.uniform(0.0, 1e5, (50, 3, 12))
    survival = rng.uniform(0.9, 0.99, 50)
    opening = rng.uniform(0.0, 1e6, (50, 3))
    matrix = decay_matrix(survival, 12)  # M[t, s] = survival ** (t - s)
    expected = (np.einsum("dgs,dts->dgt", shipped, matrix)
                + opening[..., None] * survival[:, None, None] ** np.arange(1, 13))
    np.testing.assert_allclose(fleet_stock(shipped, survival, initial=opening), expected,
                               rtol=1e-12)
    np.testing.assert_allclose(fleet_stock(shipped, survival),
                               np.einsum("dgs,dts->dgt", shipped, matrix), rtol=1e-12)
