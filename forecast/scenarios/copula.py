"""Correlated normal scores for joint sampling: a Gaussian copula, or Iman-Conover for LHS.

Correlated sampling uses a Gaussian copula. Each requested Spearman rank correlation ``rho`` is
converted to the Pearson correlation of the underlying normals, ``r = 2 sin(pi rho / 6)``, so
that continuous marginals show the requested rank correlation. With Latin hypercube sampling the
correlated columns are reordered with the Iman-Conover method instead, which keeps every column's
stratification intact (values are permuted, never moved).

Correlations on ``quarter`` inputs are allowed: the copula still orders launch dates by the
partner input, but ties between equal quarters make the realised rank correlation smaller in
magnitude than the requested one. Correlations on ``fixed`` inputs are rejected (a constant has
no ranks to correlate).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Not scipy: scipy.stats (qmc) is imported on demand for Latin hypercube sampling only.
from forecast.core.special import ndtr, ndtri

SAMPLING_METHODS: tuple[str, ...] = ("mc", "lhs")
# Uniforms are kept off 0 and 1 so unbounded inverse CDFs stay finite; normal scores alike,
# within the scores of those uniforms.
_U_MIN = 1e-15
_U_MAX = 1.0 - 1e-15
_Z_MAX = float(-ndtri(_U_MIN))


def spearman_to_pearson(rho: np.ndarray | float) -> np.ndarray:
    """Pearson correlation of a Gaussian copula giving Spearman correlation ``rho``.

    Parameters
    ----------
    rho : array_like
        Spearman rank correlation(s) in [-1, 1].

    Returns
    -------
    numpy.ndarray
        ``2 sin(pi rho / 6)``.
    """
    return 2.0 * np.sin(np.pi * np.asarray(rho, dtype=float) / 6.0)


def copula_matrix(spearman: np.ndarray) -> np.ndarray:
    """Pearson matrix of the Gaussian copula for a Spearman matrix (unit diagonal).

    Parameters
    ----------
    spearman : numpy.ndarray
        Square matrix of requested rank correlations with a unit diagonal.

    Returns
    -------
    numpy.ndarray
        A new matrix; the diagonal is set to exactly 1 (``2 sin(pi / 6)`` rounds).
    """
    pearson = spearman_to_pearson(spearman)
    np.fill_diagonal(pearson, 1.0)
    return pearson


def factor(matrix: np.ndarray) -> np.ndarray:
    """A matrix ``F`` with ``F @ F.T == matrix``: Cholesky, or eigen for singular PSD ones."""
    try:
        return np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        # Singular but PSD (e.g. rho = 1): the eigen factor still reproduces the matrix.
        eigenvalues, eigenvectors = np.linalg.eigh(matrix)
        return eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))


def iman_conover(uniforms: np.ndarray, target: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Reorder each column of ``uniforms`` so the ranks follow correlated normal scores.

    Values inside each column are only permuted, so Latin hypercube stratification survives.
    ``target`` is the Pearson matrix of the normal scores (the Gaussian-copula matrix).
    """
    n, k = uniforms.shape
    whitening = None
    if n > k + 1:
        scores = ndtri(np.arange(1, n + 1) / (n + 1.0))
        shuffled = np.column_stack([rng.permutation(scores) for _ in range(k)])
        try:
            whitening = np.linalg.inv(np.linalg.cholesky(np.corrcoef(shuffled, rowvar=False)))
        except np.linalg.LinAlgError:
            whitening = None
    if whitening is None:
        # Too few rows to whiten: fall back to the copula transform (stratification is lost).
        normals = ndtri(uniforms) @ factor(target).T
        return ndtr(normals)
    targets = shuffled @ whitening.T @ factor(target).T
    result = np.empty_like(uniforms)
    for j in range(k):
        ranks = np.argsort(np.argsort(targets[:, j], kind="stable"), kind="stable")
        result[:, j] = np.sort(uniforms[:, j])[ranks]
    return result


def correlated_normals(
    n: int,
    k: int,
    columns: Sequence[int],
    pearson: np.ndarray,
    rng: np.random.Generator,
    method: str,
) -> np.ndarray:
    """Standard normal scores for ``k`` inputs whose ``columns`` follow the copula ``pearson``.

    Scores rather than uniforms: most inputs are functions of the score itself
    (:meth:`~forecast.scenarios.distributions.InputSpec.at_normal`), so they need neither the
    normal CDF nor its inverse.

    Parameters
    ----------
    n, k : int
        Number of draws and of inputs.
    columns : sequence of int
        Positions of the correlated inputs, in the order of ``pearson``'s rows.
    pearson : numpy.ndarray
        Pearson matrix of the Gaussian copula over ``columns`` (see :func:`copula_matrix`).
    rng : numpy.random.Generator
        Source of randomness; the draws depend only on its state.
    method : {"mc", "lhs"}
        Plain Monte Carlo through the copula, or Latin hypercube uniforms (scipy
        ``qmc.LatinHypercube``) with the correlated columns reordered by Iman-Conover, as
        their normal scores.

    Returns
    -------
    numpy.ndarray
        ``(n, k)`` scores clipped to the scores of ``[1e-15, 1 - 1e-15]``.
    """
    columns = list(columns)
    correlated = len(columns) >= 2
    if method == "mc":
        normals = rng.standard_normal((n, k))
        if correlated:
            normals[:, columns] = normals[:, columns] @ factor(pearson).T
    else:
        from scipy.stats import qmc

        uniforms = qmc.LatinHypercube(d=k, rng=rng).random(n)
        if correlated:
            uniforms[:, columns] = iman_conover(uniforms[:, columns], pearson, rng)
        normals = ndtri(np.clip(uniforms, _U_MIN, _U_MAX))
    return np.clip(normals, -_Z_MAX, _Z_MAX)
