"""Folded sums and maxima equal numpy's reductions."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.core.shortaxis import fold, short_max, short_sum


@pytest.mark.parametrize("axis", [0, 1, -1, 2])
@pytest.mark.parametrize("length", [1, 4, 7])
def test_short_reductions_equal_numpy_exactly(axis: int, length: int) -> None:
    shape = [30, 6, 5]
    shape[axis] = length
    values = np.random.default_rng(length).lognormal(sigma=3.0, size=shape)
    values.flat[::17] = -values.flat[::17]
    for keepdims in (False, True):
        np.testing.assert_array_equal(short_sum(values, axis, keepdims),
                                      values.sum(axis=axis, keepdims=keepdims))
        np.testing.assert_array_equal(short_max(values, axis, keepdims),
                                      values.max(axis=axis, keepdims=keepdims))


def test_long_axes_agree_to_rounding_and_nan_propagates() -> None:
    values = np.random.default_rng(0).normal(size=(50, 40))
    np.testing.assert_allclose(short_sum(values), values.sum(axis=-1), rtol=1e-12, atol=1e-12)
    values[3, 5] = np.nan
    assert np.isnan(short_sum(values)[3]) and np.isnan(short_max(values)[3])
    assert not np.isnan(short_max(values)[np.arange(50) != 3]).any()


def test_fold_returns_a_new_array_and_rejects_an_empty_axis() -> None:
    assert short_sum(np.array([1.0, 2.0, 4.0])) == 7.0
    np.testing.assert_array_equal(short_max(np.array([[1.0, 3.0]]), keepdims=True), [[3.0]])
    values = np.ones((3, 1))
    out = fold(np.add, values)
    out[:] = 5.0
    assert (values == 1.0).all()
    with pytest.raises(ValueError, match="empty axis"):
        fold(np.add, np.ones((3, 0)))
