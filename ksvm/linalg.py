"""The linear algebra that the solvers share.

* :func:`cholesky`: the factor of a matrix that a positive semi-definite
  kernel makes definite (``K + lam I``, ``I/nu + D K D``, one of their blocks),
  refused with a message that names the kernel when it fails, so that no solver
  runs a second test (:func:`ksvm.mercer.require_psd` is the test before a
  solver that factors nothing);
* the Sherman-Morrison-Woodbury identity for the linear LSVM's
  ``Q = I/nu + HH'``, ``H = D [A  -e]`` (Mangasarian & Musicant's Code 2):

  .. math::

      Q^{-1} z = \\nu \\bigl(z - H M^{-1} H'z\\bigr), \\qquad M = I/\\nu + H'H,

  so that only the ``(n+1) x (n+1)`` matrix ``M`` is factored
  (:func:`smw_factor`, or :func:`smw_gram_factor` from ``H'H`` summed elsewhere)
  and ``Q^{-1} z`` costs two products with ``A`` (:func:`smw_solve`;
  :func:`apply_Ht` and :func:`apply_H` apply them to a block); ``H`` is never formed.  The in-memory
  solvers of :mod:`ksvm.lsvm` and their Dask versions (:mod:`ksvm.lsvm.dask`,
  where ``H'H`` and ``H'z`` are sums over row blocks) use these functions.
"""

import numpy as np
from scipy.linalg import cho_factor, cho_solve

__all__ = [
    "apply_H",
    "apply_Ht",
    "augmented_gram",
    "cholesky",
    "smw_factor",
    "smw_gram_factor",
    "smw_solve",
]


def cholesky(M, what, *, overwrite=False):
    """The Cholesky factor of a matrix that a positive semi-definite kernel makes definite.

    Parameters
    ----------
    M : ndarray of shape (n, n)
        ``K + lam I``, ``I / nu + D K D`` or one of their blocks.
    what : str
        The matrix's name in the error message, e.g. ``"K + lam I"``.
    overwrite : bool, default=False
        Factor ``M`` in place (it is then destroyed).

    Returns
    -------
    factor : tuple
        For :func:`scipy.linalg.cho_solve`.

    Raises
    ------
    ValueError
        If ``M`` is not positive definite: the kernel is then not PSD.

    Examples
    --------
    >>> c, lower = cholesky(np.array([[4.0, 2.0], [2.0, 3.0]]), "Q")
    >>> np.round(np.tril(c), 4) if lower else np.round(np.triu(c), 4)
    array([[2.    , 0.    ],
           [1.    , 1.4142]])
    """
    try:
        return cho_factor(M, lower=True, overwrite_a=overwrite, check_finite=False)
    except np.linalg.LinAlgError as exc:
        raise ValueError(
            f"{what} is not positive definite: the kernel matrix is not positive "
            "semi-definite (check it with ksvm.check_mercer)."
        ) from exc


def augmented_gram(A):
    """``H'H = [A'A, -A'e; -e'A, m]`` for ``H = D [A  -e]``: the labels square away.

    It depends on ``A`` alone, and ``[A  -e]`` is not formed.

    Parameters
    ----------
    A : ndarray of shape (m, n)

    Returns
    -------
    HtH : ndarray of shape (n + 1, n + 1)
        A new array.

    Examples
    --------
    >>> augmented_gram(np.array([[1.0], [2.0]]))
    array([[ 5., -3.],
           [-3.,  2.]])
    """
    m, n = A.shape
    M = np.empty((n + 1, n + 1))
    M[:n, :n] = A.T @ A
    M[:n, n] = M[n, :n] = -A.sum(axis=0)
    M[n, n] = m
    return M


def apply_Ht(A, d, z):
    """``H'z = [A'Dz; -e'Dz]`` for ``H = D [A  -e]``, ``H`` not formed.

    Parameters
    ----------
    A : ndarray of shape (m, n)
    d : ndarray of shape (m,)
        The labels as floats -1.0 and +1.0.
    z : ndarray of shape (m,)

    Returns
    -------
    Htz : ndarray of shape (n + 1,)

    Examples
    --------
    >>> apply_Ht(np.array([[1.0], [2.0]]), np.array([1.0, -1.0]), np.array([1.0, 3.0]))
    array([-5.,  2.])
    """
    dz = d * z
    return np.append(A.T @ dz, -dz.sum())


def apply_H(A, d, p):
    """``Hp = D (A p_{1..n} - p_{n+1})`` for ``H = D [A  -e]``, ``H`` not formed.

    Parameters
    ----------
    A : ndarray of shape (m, n)
    d : ndarray of shape (m,)
        The labels as floats -1.0 and +1.0.
    p : ndarray of shape (n + 1,)

    Returns
    -------
    Hp : ndarray of shape (m,)

    Examples
    --------
    >>> apply_H(np.array([[1.0], [2.0]]), np.array([1.0, -1.0]), np.array([1.0, 1.0]))
    array([ 0., -1.])
    """
    return d * (A @ p[:-1] - p[-1])


def smw_factor(A, nu):
    """Cholesky factor of ``I / nu + H'H`` with ``H = D [A  -e]``: the small matrix of SMW.

    The labels square away, ``H'H = [A'A, -A'e; -e'A, m]``, so the factor
    depends on ``A`` alone; ``[A  -e]`` is not formed.  With it,
    Sherman-Morrison-Woodbury gives
    ``Q^{-1} z = nu (z - H (I/nu + H'H)^{-1} H'z)`` for ``Q = I/nu + HH'``.

    Parameters
    ----------
    A : ndarray of shape (m, n)
    nu : float > 0

    Returns
    -------
    factor : tuple
        For :func:`scipy.linalg.cho_solve`; the matrix is ``(n+1) x (n+1)``.

    Examples
    --------
    >>> c, lower = smw_factor(np.array([[1.0], [2.0]]), 1.0)  # [[1 + 5, -3], [-3, 1 + 2]]
    >>> np.round(np.tril(c) if lower else np.triu(c).T, 4)
    array([[ 2.4495,  0.    ],
           [-1.2247,  1.2247]])
    """
    M = augmented_gram(A)  # H'H from A alone: the labels square away
    M[np.diag_indices(len(M))] += 1.0 / nu
    return cholesky(M, "I/nu + H'H", overwrite=True)


def smw_solve(A, d, nu, factor, z):
    """``Q^{-1} z`` for ``Q = I/nu + HH'``, ``H = D [A  -e]``, by Sherman-Morrison-Woodbury.

    ``Q^{-1} z = nu (z - H M^{-1} H'z)`` with ``M = I/nu + H'H`` factored by
    :func:`smw_factor`: two products with ``A`` and one ``(n+1) x (n+1)``
    solve, ``H`` never formed.  The products are those of :func:`apply_Ht` and
    :func:`apply_H`, written out: the chapter "The Lagrangian SVM: the algorithm"
    lists them, and "LSVM at scale" measures the memory of an iteration of
    :func:`ksvm.lsvm.lsvm_linear` with them, six vectors of length ``m`` at its peak.

    Parameters
    ----------
    A : ndarray of shape (m, n)
    d : ndarray of shape (m,)
        The labels as floats -1.0 and +1.0.
    nu : float > 0
    factor : tuple
        ``smw_factor(A, nu)``.
    z : ndarray of shape (m,)

    Returns
    -------
    u : ndarray of shape (m,)

    Examples
    --------
    >>> A, d, z = np.array([[1.0], [2.0]]), np.array([1.0, -1.0]), np.array([1.0, 1.0])
    >>> H = d[:, None] * np.column_stack([A, -np.ones(2)])
    >>> Q = np.eye(2) + H @ H.T
    >>> np.allclose(smw_solve(A, d, 1.0, smw_factor(A, 1.0), z), np.linalg.solve(Q, z))
    True
    """
    dz = d * z
    Htz = np.append(A.T @ dz, -dz.sum())  # H'z = [A'Dz; -e'Dz]
    p = cho_solve(factor, Htz, check_finite=False)  # M^{-1} H'z
    return nu * (z - d * (A @ p[:-1] - p[-1]))  # H p = D (A p_{1..n} - p_{n+1})


def smw_gram_factor(HtH, nu, what="I/nu + H'H"):
    """Cholesky factor of ``I / nu + H'H`` from ``H'H`` summed elsewhere.

    What :func:`smw_factor` factors, for a caller that has ``H'H`` already: summed
    over the row blocks of a Dask array, or over the rows of a free set ``F``
    (``H_F'H_F``) and updated from one step to the next.

    Parameters
    ----------
    HtH : ndarray of shape (n + 1, n + 1)
        Not modified.
    nu : float > 0
    what : str, default="I/nu + H'H"
        The matrix's name in the error message of :func:`cholesky`.

    Returns
    -------
    factor : tuple
        For :func:`scipy.linalg.cho_solve`.

    Examples
    --------
    >>> A = np.array([[1.0], [2.0]])
    >>> np.array_equal(smw_gram_factor(augmented_gram(A), 1.0)[0], smw_factor(A, 1.0)[0])
    True
    """
    M = HtH.copy()
    M[np.diag_indices(len(M))] += 1.0 / nu
    return cholesky(M, what, overwrite=True)
