"""Mercer's condition checked on a Gram matrix.

A function ``k`` is a valid (Mercer) kernel when every Gram matrix it builds
on a finite set of points is symmetric and positive semi-definite.  On a
computer we can only look at finitely many Gram matrices and only up to
rounding, so :func:`check_mercer` reports what it saw, with the tolerance it
used, rather than a bare yes or no.

References
----------
Mercer, J. (1909).  Lecture notes, "Non-linear SVMs" (Mercer's theorem and
the proof that a valid kernel gives a PSD Gram matrix).
"""

from dataclasses import dataclass

import numpy as np

from ._validation import check_gram, check_positive

__all__ = ["MercerReport", "check_mercer"]


@dataclass(frozen=True)
class MercerReport:
    """What :func:`check_mercer` found about one Gram matrix.

    Attributes
    ----------
    n : int
        The size of the (square) matrix.
    max_asymmetry : float
        ``max |K_ij - K_ji|``.
    min_eigenvalue, max_eigenvalue : float
        Extreme eigenvalues of the symmetric part ``(K + K') / 2``.
    tol : float
        The tolerance used for both tests.
    symmetric : bool
        ``max_asymmetry <= tol``.
    is_psd : bool
        ``symmetric`` and ``min_eigenvalue >= -tol``: K is symmetric positive
        semi-definite up to rounding.
    """

    n: int
    max_asymmetry: float
    min_eigenvalue: float
    max_eigenvalue: float
    tol: float
    symmetric: bool
    is_psd: bool

    def __str__(self):
        """One line; values within ``tol`` of zero print as 0, so that the text
        does not depend on rounding noise of the machine that ran it."""

        def show(value):
            return "0" if abs(value) <= self.tol else f"{value:.4g}"

        verdict = "PSD" if self.is_psd else "NOT PSD"
        symmetry = (
            "symmetric"
            if self.symmetric
            else f"not symmetric (max |K_ij - K_ji| = {self.max_asymmetry:.3g})"
        )
        return (
            f"{verdict} (n={self.n}): {symmetry}, eigenvalues in "
            f"[{show(self.min_eigenvalue)}, {show(self.max_eigenvalue)}], tol={self.tol:.2e}"
        )


def check_mercer(K, tol=None, *, eps=None):
    """Check that a Gram matrix is symmetric and positive semi-definite.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A Gram matrix ``K[i, j] = k(x_i, x_j)``.
    tol : float > 0 or None, default=None
        Tolerance for the asymmetry and for how negative the smallest
        eigenvalue may be.  None means ``10 * n * eps * max(1, ||K||_2)``,
        with ``eps`` the float64 machine epsilon.  A backward-stable
        symmetric eigensolver returns eigenvalues within ``p(n) * eps *
        ||K||_2`` of the true ones, for a modestly growing ``p(n)``;
        ``numpy.linalg.matrix_rank`` takes ``p(n) = n``, but ``eigvalsh`` has
        been seen to return -1.04 n eps ||K||_2 for the (PSD) 12 x 12 matrix
        of ones, so the default allows ten times that.  The floor of 1 keeps
        a tiny matrix from being judged on an absurdly small scale.
    eps : float > 0 or None, default=None
        The machine epsilon of the arithmetic that produced ``K``, used in
        the default ``tol``; None means float64's.  A Gram matrix computed in
        float32 carries rounding errors of float32's size (1.2e-7) even after
        conversion to float64: pass ``np.finfo(np.float32).eps``.

    Returns
    -------
    report : MercerReport
        The symmetry, the extreme eigenvalues, the tolerance and the verdict
        ``report.is_psd``.

    Raises
    ------
    ValueError
        If ``K`` is not a finite, non-empty, square numeric matrix, or
        ``tol <= 0``.

    Notes
    -----
    The eigenvalues are those of the symmetric part ``(K + K') / 2``, computed
    by :func:`numpy.linalg.eigvalsh`: for a quadratic form only the symmetric
    part matters, since ``z'Kz = z'((K + K') / 2)z``.

    Examples
    --------
    >>> report = check_mercer([[2.0, 1.0], [1.0, 2.0]])
    >>> report.is_psd, report.min_eigenvalue
    (True, 1.0)
    >>> check_mercer([[0.0, 1.0], [1.0, 0.0]]).is_psd
    False
    """
    K = check_gram(K, name="K")
    n = K.shape[0]
    sym = (K + K.T) / 2.0
    eigenvalues = np.linalg.eigvalsh(sym)
    lo, hi = float(eigenvalues[0]), float(eigenvalues[-1])
    if tol is None:
        scale = max(1.0, abs(lo), abs(hi))
        eps = np.finfo(np.float64).eps if eps is None else check_positive(eps, "eps")
        tol = 10 * n * eps * scale
    else:
        tol = check_positive(tol, "tol")
    asym = float(np.max(np.abs(K - K.T)))
    symmetric = asym <= tol
    return MercerReport(
        n=n,
        max_asymmetry=asym,
        min_eigenvalue=lo,
        max_eigenvalue=hi,
        tol=float(tol),
        symmetric=bool(symmetric),
        is_psd=bool(symmetric and lo >= -tol),
    )
