"""Mercer's condition checked on a Gram matrix, and the two tests the solvers use.

A function ``k`` is a valid (Mercer) kernel when every Gram matrix it builds
on a finite set of points is symmetric and positive semi-definite.  On a
computer we can only look at finitely many Gram matrices and only up to
rounding, so :func:`check_mercer` reports what it saw, with the tolerance it
used, rather than a bare yes or no.

The solvers need less than a report, and each test here is named for what it
does:

* :func:`check_mercer`: the symmetric part's extreme eigenvalues, for a
  reader who wants to know (``O(n^3)``, several times a factorisation);
* :func:`require_psd`: one Cholesky factorisation of ``K + delta I``, to
  refuse a Gram matrix that is clearly not PSD before a solver runs on it;
* :func:`cholesky` (from :mod:`ksvm.linalg`, where the solvers' shared linear
  algebra lives): the factorisation a solver needs anyway (of ``K + lam I``
  or ``I/nu + YKY``), refused with a message that names the kernel when it
  fails, so that no solver runs a second test.

References
----------
Mercer, J. (1909).  Lecture notes, "Non-linear SVMs" (Mercer's theorem and
the proof that a valid kernel gives a PSD Gram matrix).
"""

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor

from ._validation import check_gram, check_positive
from .linalg import cholesky

__all__ = ["MercerReport", "check_mercer", "cholesky", "require_psd"]


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


def require_psd(K, why):
    """Refuse ``K`` unless ``K + delta I`` has a Cholesky factor, ``delta`` at rounding level.

    One factorisation, ``O(n^3 / 3)``: cheaper than the eigenvalues that
    :func:`check_mercer` computes, and enough to tell a PSD Gram matrix from
    one with a clearly negative eigenvalue.  The shift
    ``delta = 10 n eps max(1, max_i |K_ii|)`` with the ``eps`` of float32
    absorbs the rounding of a Gram matrix computed in single precision.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        A validated square matrix (not modified).
    why : str
        What the caller needs a PSD matrix for; it ends the error message.

    Raises
    ------
    ValueError
        If the factorisation fails.

    Examples
    --------
    >>> require_psd(np.ones((3, 3)), "")  # PSD, singular: accepted
    >>> require_psd(np.array([[1.0, 3.0], [3.0, 1.0]]), "SMO needs a valid kernel.")
    Traceback (most recent call last):
    ...
    ValueError: The kernel matrix is not positive semi-definite ...SMO needs a valid kernel.
    """
    n = K.shape[0]
    delta = 10.0 * n * np.finfo(np.float32).eps * max(float(np.abs(np.diag(K)).max()), 1.0)
    shifted = K + delta * np.eye(n)
    try:
        cho_factor(shifted, lower=True, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError as exc:
        raise ValueError(
            f"The kernel matrix is not positive semi-definite (K + {delta:.1e} I has no "
            "Cholesky factor), so it is not the Gram matrix of a Mercer kernel; check the "
            f"kernel with ksvm.check_mercer. {why}".rstrip()
        ) from exc
