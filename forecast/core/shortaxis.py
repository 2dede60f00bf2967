"""Sums and maxima over a short axis (a handful of vendors), without numpy's reduce.

``values.sum(axis=-1)`` over an axis of 4 or 5 elements runs numpy's reduction loop once per
outer element, which at forecast sizes (thousands of draws x quarters x 5 vendors) costs
more than the arithmetic itself. Folding the axis slice by slice with a binary ufunc
(``out = v[0]; out += v[1]; ...``) does the same arithmetic in the same order for fewer than
eight elements (numpy adds short runs left to right) without that per-element loop.
"""

from __future__ import annotations

import numpy as np


def fold(ufunc: np.ufunc, values: np.ndarray, axis: int = -1,
         keepdims: bool = False) -> np.ndarray:
    """``ufunc.reduce(values, axis)`` by folding the axis slice by slice.

    Parameters
    ----------
    ufunc
        A binary ufunc such as ``np.add`` or ``np.maximum``.
    values
        The array; the axis must not be empty.
    axis
        The (short) axis to reduce.
    keepdims
        Keep the reduced axis with length 1.

    Returns
    -------
    numpy.ndarray
        A new array.
    """
    moved = np.moveaxis(np.asarray(values), axis, 0)
    if moved.shape[0] == 0:
        raise ValueError("fold of an empty axis")
    out = np.array(moved[0])  # a copy, and an array even when it is 0-d
    for part in moved[1:]:
        ufunc(out, part, out=out)
    return np.expand_dims(out, axis) if keepdims else out


def short_sum(values: np.ndarray, axis: int = -1, keepdims: bool = False) -> np.ndarray:
    """Sum over a short axis (see the module docstring)."""
    return fold(np.add, values, axis, keepdims)


def short_max(values: np.ndarray, axis: int = -1, keepdims: bool = False) -> np.ndarray:
    """Maximum over a short axis (see the module docstring)."""
    return fold(np.maximum, values, axis, keepdims)
