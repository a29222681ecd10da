"""What the LSVM's solvers share: the problem's data, its dual matrix, the checks of
their arguments, and the result they return.

Mangasarian & Musicant's formulation (7) is solved through its dual (11),
``min_{u >= 0} u'Mu/2 - 1'u`` with ``M = I/nu + Y K-tilde Y``, ``K-tilde`` the Gram
matrix of the augmented points ``[x_i  1]`` (:func:`augment`, :func:`dual_matrix`);
every solver of :mod:`ksvm.lsvm` checks ``nu``, ``eta``, ``max_iter`` and ``tol``
alike and returns an :class:`LSVMResult`.  The letters are the book's; the paper's
``A``, ``D``, ``e``, ``Q``, ``u`` and step ``alpha`` are ``X``, ``Y``, ``1``, ``M``,
the book's ``alpha`` (``u`` here) and ``eta``, its ``G = [A  -e]`` is ``[X  1]``, and
its offset ``gamma`` is ``-b``.
"""

import sys
from dataclasses import dataclass, field

import numpy as np

from .._validation import (
    check_gram_labels,
    check_integer,
    check_matrix,
    check_positive,
    encode_binary_labels,
)

__all__ = ["LSVMResult", "augment", "dual_matrix"]


@dataclass
class LSVMResult:
    """What :func:`lsvm_linear` and :func:`lsvm_kernel` return.

    Attributes
    ----------
    n_iter : int
        Iterations made (Code 2's ``it``; the Newton solvers' steps).
    opt : float
        The last ``||u^{i+1} - u^i||`` (Code 2's ``opt``).
    u : ndarray of shape (n,)
        The dual solution, the multipliers (the book's ``alpha``).
    w : ndarray of shape (d,) or None
        ``X'Yu`` (linear version only).
    b : float or None
        The offset ``y'u`` (linear version only); the plane is ``w'x + b = 0``
        (Mangasarian & Musicant's ``gamma`` is ``-b``: their plane is ``x'w = gamma``).
    converged : bool
        ``opt <= tol`` within ``max_iter``, or the rounding floor was reached
        (``at_floor``).
    at_floor : bool
        The fixed-point iteration stopped at its rounding floor above ``tol``:
        ``||u^{i+1} - u^i||`` set no new lowest value for ten iterations while
        below ``sqrt(eps) ||u||``, so rounding, not the contraction, decides
        its size, and no more digits of ``u`` can be had.
    history : ndarray or None
        ``||u^{i+1} - u^i||`` per iteration, if asked for.
    kernel_values : int or None
        Kernel values computed (:func:`lsvm_kernel_columns` only).
    """

    n_iter: int
    opt: float
    u: np.ndarray
    w: np.ndarray = None
    b: float = None
    converged: bool = True
    at_floor: bool = False
    history: np.ndarray = field(default=None, repr=False)
    kernel_values: int = None


def _dask_path(x):
    """:mod:`ksvm.lsvm.dask` if ``x`` is a Dask collection, else None.

    The one place the Dask path is imported: by a caller that made a Dask
    collection, so that ``import ksvm`` imports no Dask.
    """
    dask_base = sys.modules.get("dask.base")
    if dask_base is None or not dask_base.is_dask_collection(x):
        return None
    from . import dask

    return dask


def _check_nu_eta(nu, eta, n):
    nu = 1.0 / n if nu is None else check_positive(nu, "nu")
    eta = 1.9 / nu if eta is None else check_positive(eta, "eta")
    if not eta < 2.0 / nu:
        raise ValueError(
            f"eta must lie in (0, 2/nu) = (0, {2.0 / nu:.6g}) for the LSVM iteration to "
            f"converge (condition (16)); got eta = {eta:.6g}. The authors use 1.9/nu."
        )
    return nu, eta


def _check_max_iter_tol(max_iter, tol):
    return check_integer(max_iter, "max_iter"), check_positive(tol, "tol")


def _check_linear_problem(X, y, nu, eta, max_iter, tol):
    """``(X, labels as -1/+1, nu, eta, max_iter, tol)`` for a solver with the linear
    kernel, checked (``eta`` is its default where None)."""
    X = check_matrix(X, "X")
    y, _ = encode_binary_labels(y)
    n = X.shape[0]
    if y.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y.shape[0]} labels.")
    return (X, y, *_check_nu_eta(nu, eta, n), *_check_max_iter_tol(max_iter, tol))


def _check_kernel_problem(KM, y, nu, eta, max_iter, tol):
    """As :func:`_check_linear_problem`, for a solver given the Gram matrix ``KM`` of the
    augmented points."""
    KM, y = check_gram_labels(KM, y, names=("KM", "y"))
    return (KM, y, *_check_nu_eta(nu, eta, KM.shape[0]), *_check_max_iter_tol(max_iter, tol))


def augment(X):
    """``[X  1]``: the data with a column of ones appended, the book's augmented points.

    The Lagrangian SVM's kernel compares the points ``x~_i = (x_i, 1)``, and
    ``H = Y [X  1]``.  Mangasarian & Musicant append ``-e`` instead (their ``G = [A  -e]``,
    whose offset ``gamma`` is ``-b``); no kernel value differs, since ``(-1)(-1) = 1``
    and the last column cancels in every distance.

    Parameters
    ----------
    X : ndarray of shape (n, d)

    Returns
    -------
    X1 : ndarray of shape (n, d + 1)

    Examples
    --------
    >>> augment(np.array([[1.0, 2.0]]))
    array([[1., 2., 1.]])
    """
    return np.hstack([X, np.ones((X.shape[0], 1))])


def dual_matrix(KM, y, nu):
    """``M = I / nu + Y KM Y``, the matrix of the dual (11) with a kernel (Code 3 inverts it).

    Parameters
    ----------
    KM : ndarray of shape (n, n)
        The Gram matrix of the augmented points, ``K-tilde`` (or a block of it).
    y : ndarray of shape (n,)
        The labels as -1/+1.
    nu : float > 0

    Returns
    -------
    M : ndarray of shape (n, n)
        A new array.

    Examples
    --------
    >>> dual_matrix(np.ones((2, 2)), np.array([1.0, -1.0]), 0.5)
    array([[ 3., -1.],
           [-1.,  3.]])
    """
    M = y[:, None] * KM * y[None, :]
    M[np.diag_indices_from(M)] += 1.0 / nu
    return M
