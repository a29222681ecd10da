"""The linear algebra that the solvers share.

* :func:`cholesky`: the factor of a matrix that a positive semi-definite
  kernel makes definite (``K + lam I``, ``I/nu + YKY``, one of their blocks),
  refused with a message that names the kernel when it fails, so that no solver
  runs a second test (:func:`ksvm.mercer.require_psd` is the test before a
  solver that factors nothing);
* the Sherman-Morrison-Woodbury identity for the linear LSVM's
  ``M = I/nu + HH'``, ``H = Y [X  1]`` (Mangasarian & Musicant's Code 2, where
  ``M`` is their ``Q`` and ``H = D [A  -e]``):

  .. math::

      M^{-1} z = \\nu \\bigl(z - H S^{-1} H'z\\bigr), \\qquad S = I/\\nu + H'H,

  so that only the ``(d+1) x (d+1)`` matrix ``S`` (the book's calligraphic ``M``) is
  factored (:func:`smw_factor`, or :func:`smw_gram_factor` from ``H'H`` summed
  elsewhere) and ``M^{-1} z`` costs two products with ``X`` (:func:`smw_solve`;
  :func:`apply_Ht` and :func:`apply_H` apply them to a block); ``H`` is never formed.
  The in-memory solvers of :mod:`ksvm.lsvm` and their Dask versions
  (:mod:`ksvm.lsvm.dask`, where ``H'H`` and ``H'z`` are sums over row blocks) use
  these functions.
"""

import numpy as np
from scipy.linalg import cho_factor
from scipy.linalg.lapack import dpotrf, dpotrs

__all__ = [
    "apply_H",
    "apply_Ht",
    "augmented_gram",
    "cholesky",
    "cholesky_solve",
    "smw_factor",
    "smw_gram_factor",
    "smw_solve",
]


def cholesky(M, what, *, overwrite=False):
    """The Cholesky factor of a matrix that a positive semi-definite kernel makes definite.

    Parameters
    ----------
    M : ndarray of shape (n, n)
        ``K + lam I``, ``I / nu + YKY`` or one of their blocks.
    what : str
        The matrix's name in the error message, e.g. ``"K + lam I"``.
    overwrite : bool, default=False
        Factor ``M`` in place (it is then destroyed).

    Returns
    -------
    factor : tuple
        For :func:`cholesky_solve` (or :func:`scipy.linalg.cho_solve`).

    Raises
    ------
    ValueError
        If ``M`` is not positive definite: the kernel is then not PSD.

    Examples
    --------
    >>> c, lower = cholesky(np.array([[4.0, 2.0], [2.0, 3.0]]), "M")
    >>> np.round(np.tril(c), 4) if lower else np.round(np.triu(c), 4)
    array([[2.    , 0.    ],
           [1.    , 1.4142]])
    """
    not_pd = (
        f"{what} is not positive definite: the kernel matrix is not positive "
        "semi-definite (check it with ksvm.check_mercer)."
    )
    if type(M) is np.ndarray and M.dtype == np.float64 and M.ndim == 2 and 0 < len(M) == M.shape[1]:
        # cho_factor's own LAPACK call, without its checks and dispatch (a hundredth of a
        # millisecond, as much as factoring a small block of the LSVM's working set).
        c, info = dpotrf(M, lower=1, clean=0, overwrite_a=int(overwrite))
        if info > 0:
            raise ValueError(not_pd) from np.linalg.LinAlgError(
                f"{info}-th leading minor not positive definite"
            )
        if info < 0:
            raise ValueError(f"illegal value in argument {-info} of LAPACK's dpotrf")
        return c, True
    try:
        return cho_factor(M, lower=True, overwrite_a=overwrite, check_finite=False)
    except np.linalg.LinAlgError as exc:
        raise ValueError(not_pd) from exc


def cholesky_solve(factor, b):
    """``M^{-1} b`` from the factor of ``M`` that :func:`cholesky` returns.

    LAPACK's ``dpotrs``, which :func:`scipy.linalg.cho_solve` calls, without that
    function's checks and wrappers: they cost tens of microseconds a call, several times
    the solve itself for the small systems that the LSVM's iterations solve thousands of
    times.  The result is the same, bit for bit.

    Parameters
    ----------
    factor : tuple
        ``(c, lower)`` as :func:`cholesky` returns it (float64).
    b : ndarray of shape (n,) or (n, k)

    Returns
    -------
    x : ndarray, the shape of ``b``

    Examples
    --------
    >>> factor = cholesky(np.array([[4.0, 2.0], [2.0, 3.0]]), "M")
    >>> cholesky_solve(factor, np.array([2.0, 1.0]))
    array([0.5, 0. ])
    """
    c, lower = factor
    x, info = dpotrs(c, b, lower=lower)
    if info != 0:
        raise ValueError(f"LAPACK's dpotrs refused argument {-info}.")
    return x


def augmented_gram(X):
    """``H'H = [X'X, X'1; 1'X, n]`` for ``H = Y [X  1]``: the labels square away.

    It depends on ``X`` alone, and ``[X  1]`` is not formed.

    Parameters
    ----------
    X : ndarray of shape (n, d)

    Returns
    -------
    HtH : ndarray of shape (d + 1, d + 1)
        A new array.

    Examples
    --------
    >>> augmented_gram(np.array([[1.0], [2.0]]))
    array([[5., 3.],
           [3., 2.]])
    """
    n, d = X.shape
    HtH = np.empty((d + 1, d + 1))
    HtH[:d, :d] = X.T @ X
    HtH[:d, d] = HtH[d, :d] = X.sum(axis=0)
    HtH[d, d] = n
    return HtH


def apply_Ht(X, y, z):
    """``H'z = [X'Yz; 1'Yz]`` for ``H = Y [X  1]``, ``H`` not formed.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        The labels as floats -1.0 and +1.0.
    z : ndarray of shape (n,)

    Returns
    -------
    Htz : ndarray of shape (d + 1,)

    Examples
    --------
    >>> apply_Ht(np.array([[1.0], [2.0]]), np.array([1.0, -1.0]), np.array([1.0, 3.0]))
    array([-5., -2.])
    """
    yz = y * z
    return np.append(X.T @ yz, yz.sum())


def apply_H(X, y, p):
    """``Hp = Y (X p_{1..d} + p_{d+1})`` for ``H = Y [X  1]``, ``H`` not formed.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        The labels as floats -1.0 and +1.0.
    p : ndarray of shape (d + 1,)

    Returns
    -------
    Hp : ndarray of shape (n,)

    Examples
    --------
    >>> apply_H(np.array([[1.0], [2.0]]), np.array([1.0, -1.0]), np.array([1.0, -1.0]))
    array([ 0., -1.])
    """
    return y * (X @ p[:-1] + p[-1])


def smw_factor(X, nu):
    """Cholesky factor of ``S = I / nu + H'H`` with ``H = Y [X  1]``: the small matrix of SMW.

    The labels square away, ``H'H = [X'X, X'1; 1'X, n]``, so the factor
    depends on ``X`` alone; ``[X  1]`` is not formed.  With it,
    Sherman-Morrison-Woodbury gives
    ``M^{-1} z = nu (z - H S^{-1} H'z)`` for ``M = I/nu + HH'``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    nu : float > 0

    Returns
    -------
    factor : tuple
        For :func:`scipy.linalg.cho_solve`; the matrix is ``(d+1) x (d+1)``.

    Examples
    --------
    >>> c, lower = smw_factor(np.array([[1.0], [2.0]]), 1.0)  # [[1 + 5, 3], [3, 1 + 2]]
    >>> np.round(np.tril(c) if lower else np.triu(c).T, 4)
    array([[2.4495, 0.    ],
           [1.2247, 1.2247]])
    """
    S = augmented_gram(X)  # H'H from X alone: the labels square away
    S[np.diag_indices(len(S))] += 1.0 / nu
    return cholesky(S, "I/nu + H'H", overwrite=True)


def smw_solve(X, y, nu, factor, z):
    """``M^{-1} z`` for ``M = I/nu + HH'``, ``H = Y [X  1]``, by Sherman-Morrison-Woodbury.

    ``M^{-1} z = nu (z - H S^{-1} H'z)`` with ``S = I/nu + H'H`` factored by
    :func:`smw_factor`: two products with ``X`` and one ``(d+1) x (d+1)``
    solve, ``H`` never formed.  The products are those of :func:`apply_Ht` and
    :func:`apply_H`, written out: the chapter "The Lagrangian SVM: the algorithm"
    lists them, and "LSVM at scale" measures the memory of an iteration of
    :func:`ksvm.lsvm.lsvm_linear` with them, six vectors of length ``n`` at its peak.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        The labels as floats -1.0 and +1.0.
    nu : float > 0
    factor : tuple
        ``smw_factor(X, nu)``.
    z : ndarray of shape (n,)

    Returns
    -------
    v : ndarray of shape (n,)

    Examples
    --------
    >>> X, y, z = np.array([[1.0], [2.0]]), np.array([1.0, -1.0]), np.array([1.0, 1.0])
    >>> H = y[:, None] * np.column_stack([X, np.ones(2)])
    >>> M = np.eye(2) + H @ H.T
    >>> np.allclose(smw_solve(X, y, 1.0, smw_factor(X, 1.0), z), np.linalg.solve(M, z))
    True
    """
    yz = y * z
    Htz = np.append(X.T @ yz, yz.sum())  # H'z = [X'Yz; 1'Yz]
    p = cholesky_solve(factor, Htz)  # S^{-1} H'z
    return nu * (z - y * (X @ p[:-1] + p[-1]))  # H p = Y (X p_{1..d} + p_{d+1})


def smw_gram_factor(HtH, nu, what="I/nu + H'H"):
    """Cholesky factor of ``I / nu + H'H`` from ``H'H`` summed elsewhere.

    What :func:`smw_factor` factors, for a caller that has ``H'H`` already: summed
    over the row blocks of a Dask array, or over the rows of a free set ``F``
    (``H_F'H_F``) and updated from one step to the next.

    Parameters
    ----------
    HtH : ndarray of shape (d + 1, d + 1)
        Not modified.
    nu : float > 0
    what : str, default="I/nu + H'H"
        The matrix's name in the error message of :func:`cholesky`.

    Returns
    -------
    factor : tuple
        For :func:`cholesky_solve` (or :func:`scipy.linalg.cho_solve`).

    Examples
    --------
    >>> X = np.array([[1.0], [2.0]])
    >>> np.array_equal(smw_gram_factor(augmented_gram(X), 1.0)[0], smw_factor(X, 1.0)[0])
    True
    """
    S = HtH.copy()
    S[np.diag_indices(len(S))] += 1.0 / nu
    return cholesky(S, what, overwrite=True)
