"""The Lagrangian SVM (LSVM) of Mangasarian & Musicant (2001).

LSVM solves a slightly different SVM from the lecture's soft margin, their
formulation (7): squared slacks and the offset inside the objective,

.. math::

    \\min_{w, \\gamma, y}\\ \\frac{\\nu}{2}\\|y\\|^2 + \\frac12 (w'w + \\gamma^2)
    \\quad\\text{s.t.}\\quad D(Aw - e\\gamma) + y \\ge e ,

with the data as the rows of ``A``, the labels on the diagonal of ``D`` and
the separating plane ``x'w = gamma``.  Its dual (11) has only the bound
``u >= 0``:

.. math::

    \\min_{u \\ge 0}\\ \\tfrac12 u'Qu - e'u, \\qquad
    Q = \\frac{I}{\\nu} + HH', \\quad H = D[A\\ \\ -e],

and the KKT conditions ``0 <= u  perp  Qu - e >= 0`` (12) are a fixed point of
``u = Q^{-1}(e + ((Qu - e) - alpha u)_+)`` (15), which converges linearly for
``0 < alpha < 2 / nu`` (their Algorithm 1).  The primal solution is
``w = A'Du``, ``gamma = -e'Du``, ``y = u / nu`` (9).

Two implementations:

* :func:`lsvm_linear` follows their Code 2: ``Q^{-1}`` by the
  Sherman-Morrison-Woodbury identity, so only an ``(n+1) x (n+1)`` system is
  factored and no ``m x m`` object is ever formed.  ``H`` is not formed either:
  products with it are products with ``A``.  Since ``u^{i+1} = Q^{-1} z^i``
  gives ``Q u^{i+1} = z^i`` exactly, each iteration needs one application of
  ``Q^{-1}``, that is one product with ``A'`` and one with ``A``;
* :func:`lsvm_kernel` follows their Code 3: ``Q = I/nu + D K(G, G') D`` with
  ``G = [A -e]``, factored once by Cholesky (``m x m``: moderate ``m`` only).

Beyond the paper, :func:`lsvm_linear_newton` and :func:`lsvm_kernel_newton`
solve the same dual exactly by a primal-dual active-set method, which is
Newton's method for the piecewise-linear KKT equation ``min(u, Qu - e) = 0``:
each step solves ``Q_FF u_F = e_F`` on a guessed free set, and the number of
steps stays small however large ``nu`` is (for the linear kernel a step is
one pass over ``A``, with ``H_F'H_F`` updated by the rows that change side).
Newton's free-set updates can cycle; Judice & Pires' safeguard (Murty's
single pivots when the count of wrong signs stops falling) makes the number
of steps finite.

References
----------
Mangasarian, O. L. and Musicant, D. R. (2001), Lagrangian Support Vector
Machines, JMLR 1, 161-177, sections 3 and 4.

Hintermueller, M., Ito, K. and Kunisch, K. (2002), The primal-dual active set
strategy as a semismooth Newton method, SIAM J. Optim. 13(3), 865-888.

Judice, J. J. and Pires, F. M. (1994), A block principal pivoting algorithm for
large-scale strictly monotone linear complementarity problems, Computers &
Operations Research 21(5), 587-596.

Beck, A. (2017), First-Order Methods in Optimization, SIAM, section 10.7.7
(V-FISTA, Theorem 10.42).
"""

import sys
import threading
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.linalg.blas import dsyrk
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import validate_data

from ._validation import (
    check_gram_labels,
    check_integer,
    check_matrix,
    check_positive,
    encode_binary_labels,
    one_of,
    optional,
)
from .base import _ALWAYS_PSD, BaseKernelClassifier
from .columns import KernelColumns, RBFBlock
from .kernels import resolve_gamma
from .mercer import cholesky

__all__ = [
    "LSVMResult",
    "augment",
    "dual_matrix",
    "smw_factor",
    "smw_solve",
    "lsvm_linear",
    "lsvm_kernel",
    "active_set",
    "lsvm_linear_newton",
    "lsvm_kernel_newton",
    "lsvm_kernel_columns",
    "free_kept_memory",
    "LagrangianSVC",
]


@dataclass
class LSVMResult:
    """What :func:`lsvm_linear` and :func:`lsvm_kernel` return.

    Attributes
    ----------
    n_iter : int
        Iterations made (Code 2's ``it``; the Newton solvers' steps).
    opt : float
        The last ``||u^{i+1} - u^i||`` (Code 2's ``opt``).
    u : ndarray of shape (m,)
        The dual solution.
    w : ndarray of shape (n,) or None
        ``A'Du`` (linear version only).
    gamma : float or None
        ``-e'Du`` (linear version only); the plane is ``x'w = gamma``.
    converged : bool
        ``opt <= tol`` within ``itmax``, or the rounding floor was reached
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
    gamma: float = None
    converged: bool = True
    at_floor: bool = False
    history: np.ndarray = field(default=None, repr=False)
    kernel_values: int = None


_SQRT_EPS = float(np.sqrt(np.finfo(np.float64).eps))


def _on_dask(x):
    """True for a Dask collection (Dask is imported only by a caller that made one)."""
    dask_base = sys.modules.get("dask.base")
    return dask_base is not None and dask_base.is_dask_collection(x)


def _check_nu_alpha(nu, alpha, m):
    nu = 1.0 / m if nu is None else check_positive(nu, "nu")
    alpha = 1.9 / nu if alpha is None else check_positive(alpha, "alpha")
    if not alpha < 2.0 / nu:
        raise ValueError(
            f"alpha must lie in (0, 2/nu) = (0, {2.0 / nu:.6g}) for the LSVM iteration to "
            f"converge (condition (16)); got alpha = {alpha:.6g}. The authors use 1.9/nu."
        )
    return nu, alpha


def _check_itmax_tol(itmax, tol):
    return check_integer(itmax, "itmax"), check_positive(tol, "tol")


def _warn_itmax(itmax, opt, tol):
    warnings.warn(
        f"LSVM stopped at itmax={itmax} with ||u^(i+1) - u^i|| = {opt:.3g} > tol={tol:g}; "
        "raise itmax (max_iter of LagrangianSVC) or tol, or use the active-set Newton "
        "solver (lsvm_linear_newton, lsvm_kernel_newton; solver='newton' or 'auto' in "
        "LagrangianSVC).  Convergence is linear, and slower the larger nu is; the "
        "step alpha changes the rate too (the LSVM chapters measure both).",
        ConvergenceWarning,
        stacklevel=4,
    )


#: Steps without a new lowest ``||u^{i+1} - u^i||`` after which the iteration has stalled.
_STALL_PATIENCE = 10


def _iterate(step, u, itmax, tol, return_history):
    """Run ``u <- step(u)`` until ``||u^{i+1} - u^i|| <= tol``, the rounding floor, or ``itmax``.

    The map is a contraction, so ``||u^{i+1} - u^i||`` falls geometrically until
    rounding decides its size: a few times ``eps ||u||`` to ``100 eps ||u||`` on the
    book's problems, depending on the machine's summation order.  A ``tol`` below
    that can never be met; the iteration then stops when the step has not set a
    new lowest value for ``_STALL_PATIENCE`` steps while below ``sqrt(eps) ||u||``.
    """
    history = []
    it, opt, best, since_best, at_floor = 0, np.inf, np.inf, 0, False
    while it < itmax:
        u_new = step(u)
        opt = float(np.linalg.norm(u_new - u))
        u = u_new
        it += 1
        if return_history:
            history.append(opt)
        if opt <= tol:
            break
        best, since_best = (opt, 0) if opt < best else (best, since_best + 1)
        if since_best >= _STALL_PATIENCE and opt <= _SQRT_EPS * np.linalg.norm(u):
            at_floor = True
            break
    converged = opt <= tol or at_floor
    if not converged:
        _warn_itmax(itmax, opt, tol)
    return LSVMResult(
        n_iter=it, opt=opt, u=u, converged=converged, at_floor=at_floor,
        history=np.array(history) if return_history else None,
    )


def augment(X):
    """``[X  -e]``: the data with a column of -1 appended, Mangasarian & Musicant's ``G``.

    Parameters
    ----------
    X : ndarray of shape (m, n)

    Returns
    -------
    G : ndarray of shape (m, n + 1)

    Examples
    --------
    >>> augment(np.array([[1.0, 2.0]]))
    array([[ 1.,  2., -1.]])
    """
    return np.hstack([X, -np.ones((X.shape[0], 1))])


def dual_matrix(KM, d, nu):
    """``Q = I / nu + D K D``, the matrix of the dual (11) with a kernel (Code 3's ``Q``).

    Parameters
    ----------
    KM : ndarray of shape (m, m)
        ``K(G, G')`` (or a block of it).
    d : ndarray of shape (m,)
        The labels as -1/+1.
    nu : float > 0

    Returns
    -------
    Q : ndarray of shape (m, m)
        A new array.

    Examples
    --------
    >>> dual_matrix(np.ones((2, 2)), np.array([1.0, -1.0]), 0.5)
    array([[ 3., -1.],
           [-1.,  3.]])
    """
    Q = d[:, None] * KM * d[None, :]
    Q[np.diag_indices_from(Q)] += 1.0 / nu
    return Q


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
    m, n = A.shape
    M = np.empty((n + 1, n + 1))
    M[:n, :n] = A.T @ A
    M[:n, n] = M[n, :n] = -A.sum(axis=0)
    M[n, n] = m
    M[np.diag_indices(n + 1)] += 1.0 / nu
    return cholesky(M, "I/nu + H'H", overwrite=True)


def smw_solve(A, d, nu, factor, z):
    """``Q^{-1} z`` for ``Q = I/nu + HH'``, ``H = D [A  -e]``, by Sherman-Morrison-Woodbury.

    ``Q^{-1} z = nu (z - H M^{-1} H'z)`` with ``M = I/nu + H'H`` factored by
    :func:`smw_factor`: two products with ``A`` and one ``(n+1) x (n+1)``
    solve, ``H`` never formed.

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
    >>> np.allclose(smw_solve(A, d, 1.0, smw_factor(A, 1.0), z), np.linalg.solve(np.eye(2) + H @ H.T, z))
    True
    """
    dz = d * z
    Htz = np.append(A.T @ dz, -dz.sum())  # H'z = [A'Dz; -e'Dz]
    p = cho_solve(factor, Htz, check_finite=False)  # M^{-1} H'z
    return nu * (z - d * (A @ p[:-1] - p[-1]))  # H p = D (A p_{1..n} - p_{n+1})


def lsvm_linear(A, d, nu=None, itmax=100, tol=1e-5, *, alpha=None, return_history=False):
    """LSVM for a linear classifier, Code 2 of Mangasarian & Musicant (2001).

    Parameters
    ----------
    A : array-like of shape (m, n)
        The data, one point per row.
    d : array-like of shape (m,)
        The labels (the diagonal of their ``D``); any two classes, the second
        in sort order is +1.
    nu : float > 0 or None, default=None
        Weight of the squared slacks; None means ``1 / m`` (the authors' default).
    itmax : int, default=100
    tol : float > 0, default=1e-5
        Stop when ``||u^{i+1} - u^i|| <= tol``.
    alpha : float in (0, 2/nu) or None, default=None
        Step of the iteration; None means ``1.9 / nu``.
    return_history : bool, default=False
        Keep ``||u^{i+1} - u^i||`` per iteration.

    Returns
    -------
    result : LSVMResult
        With ``w`` and ``gamma``: classify ``x`` by ``sign(x'w - gamma)``.

    Raises
    ------
    ValueError
        On invalid data, labels that are not two classes, ``nu <= 0``, or
        ``alpha`` outside ``(0, 2/nu)``.

    Warns
    -----
    ConvergenceWarning
        If ``itmax`` is reached first.

    Notes
    -----
    The Sherman-Morrison-Woodbury identity gives
    ``Q^{-1} = nu (I - H (I/nu + H'H)^{-1} H')``.  The ``(n+1) x (n+1)``
    matrix ``M = I/nu + H'H`` is factored once (Cholesky); Code 2 inverts it.
    Memory beyond ``A``: a handful of vectors of length ``m``.

    Examples
    --------
    >>> A = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> r = lsvm_linear(A, [-1, -1, 1, 1], nu=100.0, tol=1e-10, itmax=1000)
    >>> round(float(r.w[0]), 4), round(r.gamma, 4)
    (0.9757, 1.9417)
    """
    if _on_dask(A):  # a Dask array chunked by rows: Code 2 block by block (ksvm.lsvm_dask)
        return _lsvm_dask().lsvm_linear(
            A, d, nu, itmax, tol, alpha=alpha, return_history=return_history)
    A = check_matrix(A, "A")
    dd, _ = encode_binary_labels(d)
    m, n = A.shape
    if dd.shape[0] != m:
        raise ValueError(f"A has {m} rows but d has {dd.shape[0]} labels.")
    nu, alpha = _check_nu_alpha(nu, alpha, m)
    itmax, tol = _check_itmax_tol(itmax, tol)

    factor = smw_factor(A, nu)  # Code 2 inverts this (n+1) x (n+1) matrix
    Qu = np.ones(m)  # Q u^0 = e for u^0 = Q^{-1} e, Code 2's start

    def step(u):
        # u^{i+1} = Q^{-1} z with z = e + ((Q u^i - e) - alpha u^i)_+, and then Q u^{i+1} = z
        nonlocal Qu
        Qu = 1.0 + np.maximum((Qu - 1.0) - alpha * u, 0.0)
        return smw_solve(A, dd, nu, factor, Qu)

    # u^0 is handed over, not kept here: the loop holds one u at a time.
    result = _iterate(step, smw_solve(A, dd, nu, factor, np.ones(m)), itmax, tol, return_history)
    Du = dd * result.u
    result.w, result.gamma = A.T @ Du, float(-Du.sum())
    return result


def lsvm_kernel(KM, d, nu=None, itmax=100, tol=1e-5, *, alpha=None, return_history=False):
    """LSVM with a kernel, Code 3 of Mangasarian & Musicant (2001).

    Parameters
    ----------
    KM : array-like of shape (m, m)
        ``K(G, G')`` with ``G = [A -e]``: the kernel evaluated on the data with
        a column of -1 appended (see :class:`LagrangianSVC`, which builds it).
    d : array-like of shape (m,)
        The labels; any two classes.
    nu, itmax, tol, alpha, return_history
        As in :func:`lsvm_linear`.

    Returns
    -------
    result : LSVMResult
        ``w`` and ``gamma`` are None; classify ``x`` by the sign of
        ``K([x' -1], G') D u``.

    Raises
    ------
    ValueError
        As :func:`lsvm_linear`, and if ``KM`` is not square or ``Q`` is not
        positive definite (a kernel that is far from PSD).

    Warns
    -----
    ConvergenceWarning
        If ``itmax`` is reached first.

    Notes
    -----
    ``Q = I/nu + D KM D`` is factored once by Cholesky (Code 3 inverts it), so
    each iteration costs two triangular solves and a product with ``Q``:
    ``O(m^2)`` time and ``8 m^2`` bytes for ``Q``.

    Examples
    --------
    >>> A = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> G = np.hstack([A, -np.ones((4, 1))])
    >>> r = lsvm_kernel(G @ G.T, [-1, -1, 1, 1], nu=100.0, tol=1e-10, itmax=1000)
    >>> np.round(r.u, 4) + 0.0
    array([0.    , 3.4004, 1.4587, 0.    ])
    """
    KM, dd = check_gram_labels(KM, d, names=("KM", "d"))
    m = KM.shape[0]
    nu, alpha = _check_nu_alpha(nu, alpha, m)
    itmax, tol = _check_itmax_tol(itmax, tol)
    Q = dual_matrix(KM, dd, nu)
    factor = cholesky(Q, "Q = I/nu + D K D")  # Code 3 inverts Q

    def step(u):  # (15)
        return cho_solve(factor, 1.0 + np.maximum(Q @ u - 1.0 - alpha * u, 0.0), check_finite=False)

    u0 = cho_solve(factor, np.ones(m), check_finite=False)  # u^0 = Q^{-1} e
    return _iterate(step, u0, itmax, tol, return_history)


class _Pivoting:
    """Judice & Pires' safeguard for the block pivots of the active-set solvers.

    :meth:`block_step` says whether every wrong index may change side (a block
    step) or only one (Murty's single pivot): block steps while the count of
    wrong signs sets a new record, or within ``patience`` steps of the last one.
    """

    def __init__(self, m, patience):
        self.best, self.patience, self.chances = m + 1, patience, patience

    def block_step(self, count):
        if count < self.best:  # a new record
            self.best, self.chances = count, self.patience
            return True
        if self.chances > 0:  # no record, but still some patience
            self.chances -= 1
            return True
        return False


def _murty(infeasible):
    """Murty's single pivot: keep only the largest wrong index (in place)."""
    last = np.flatnonzero(infeasible)[-1]
    infeasible[:] = False
    infeasible[last] = True


def _warn_active_set(it, count, tol, where=""):
    warnings.warn(
        f"The LSVM active-set (Newton) solver{where} stopped after {it} iterations with "
        f"{count} indices still on the wrong side (tol={tol:g}); raise itmax (max_iter "
        "of LagrangianSVC) or tol, or use solver='fixed-point'.",
        ConvergenceWarning,
        stacklevel=4,
    )


def active_set(solve_free, Q_times, m, itmax, tol, return_history=False, free=None, patience=3):
    """Block principal pivoting for ``min_{u>=0} u'Qu/2 - e'u``, i.e. for the LCP (12).

    With ``g = Qu - e`` the KKT conditions (12) read ``u >= 0, g >= 0, u'g = 0``.
    Each step guesses the free set ``F``, sets ``u = 0`` off ``F`` and solves
    ``Q_FF u_F = e_F`` (so ``g_F = 0``).  The guess is right when no index is
    infeasible, that is no ``u_i < 0`` in ``F`` and no ``g_i < 0`` off ``F``.
    Otherwise every infeasible index changes side: this is the primal-dual
    active-set step, Newton's method for the piecewise-linear equation
    ``min(u, Qu - e) = 0`` (Hintermueller, Ito & Kunisch 2002).  On its own it can
    cycle; Judice & Pires (1994) keep it finite by counting the infeasible
    indices: after ``patience`` steps without a new lowest count, only the
    infeasible index with the largest number changes side (Murty's rule, finite
    for any positive definite ``Q``) until the count drops below its record.

    ``solve_free(free)`` returns ``u_F``; ``Q_times(u, free)`` returns ``Qu``
    for a ``u`` that is zero off ``free`` (only its entries off ``free`` are
    read).  A sign counts as infeasible beyond ``tol * max(1, max u)``, so at
    the end (12) holds to that tolerance.
    :func:`lsvm_kernel_newton` supplies the two functions for its ``Q`` (and
    :func:`lsvm_kernel_columns` for a working set's); :func:`lsvm_linear_newton`
    takes the same steps in a loop of its own, which needs one pass over ``A``
    per step.

    Parameters
    ----------
    solve_free, Q_times : callable
    m : int
        The number of unknowns.
    itmax : int
    tol : float > 0
    return_history : bool, default=False
        Keep ``||u^{i+1} - u^i||`` per step.
    free : ndarray of bool or None, default=None
        The first guess of ``F``; None means every index.
    patience : int, default=3
        Block steps allowed without a new lowest count of wrong signs.

    Returns
    -------
    result : LSVMResult
        ``w`` and ``gamma`` are None.

    Warns
    -----
    ConvergenceWarning
        If some index is still on the wrong side after ``itmax`` steps.

    Examples
    --------
    >>> Q = np.array([[2.0, -1.0], [-1.0, 2.0]])  # free set {0, 1}: Q u = e
    >>> r = active_set(lambda F: np.linalg.solve(Q[np.ix_(F, F)], np.ones(F.sum())),
    ...                lambda u, F: Q @ u, 2, itmax=10, tol=1e-12)
    >>> r.u, r.n_iter, r.converged
    (array([1., 1.]), 1, True)
    """
    free = np.ones(m, dtype=bool) if free is None else free.copy()
    u = np.zeros(m)
    history = []
    pivoting = _Pivoting(m, patience)
    it, opt, converged = 0, np.inf, False
    while it < itmax:
        u_new = np.zeros(m)
        if free.any():
            u_new[free] = solve_free(free)
        g = Q_times(u_new, free) - 1.0
        opt = float(np.linalg.norm(u_new - u))
        u = u_new
        it += 1
        if return_history:
            history.append(opt)
        threshold = tol * max(1.0, float(u.max()))
        infeasible = np.where(free, u < -threshold, g < -threshold)
        count = int(infeasible.sum())
        if count == 0:
            converged = True
            break
        if not pivoting.block_step(count):
            _murty(infeasible)
        free ^= infeasible
    if converged:
        u = np.maximum(u, 0.0)  # entries of at most the threshold's size below 0
    else:
        _warn_active_set(it, count, tol)
    return LSVMResult(
        n_iter=it, opt=opt, u=u, converged=converged,
        history=np.array(history) if return_history else None,
    )


#: Rows of ``A`` per block in the passes of :func:`lsvm_linear_newton`: with ten features a
#: block is 640 KB and a block of a vector 64 KB, which stay in a core's cache from one
#: operation to the next (on the book's machine 8192 rows took half the time of 65536).
_BLOCK_ROWS = 8192


def _free_gram(A, dd, rows=None):
    """``H_F'H_F`` and ``H_F'e_F`` for ``H = D [A  -e]`` and the rows ``F`` of ``rows``.

    The labels square away in ``H_F'H_F = [A_F'A_F, -A_F'e; -e'A_F, |F|]``, and
    ``H_F'e_F = [A_F'd_F; -e'd_F]``.  ``rows`` is None (every row), a boolean mask of
    length ``m`` (read block by block, so that only a block's free rows are copied) or
    an array of row numbers.  Returns ``(G, b)``, new arrays.
    """
    m, n = A.shape
    G, b = np.zeros((n + 1, n + 1)), np.zeros(n + 1)

    def add(X, dX):
        G[:n, :n] += X.T @ X  # numpy's syrk for a.T @ a
        s = X.T @ np.ones(X.shape[0])  # a product: much faster than X.sum(axis=0)
        G[:n, n] -= s
        G[n, :n] -= s
        G[n, n] += X.shape[0]
        b[:n] += X.T @ dX
        b[n] -= dX.sum()

    if rows is not None and rows.dtype != bool:
        add(A[rows], dd[rows])
        return G, b
    for start in range(0, m, _BLOCK_ROWS):
        block = slice(start, start + _BLOCK_ROWS)
        if rows is None:
            add(A[block], dd[block])
        else:
            mask = rows[block]
            add(A[block][mask], dd[block][mask])
    return G, b


def _linear_active_set(A, dd, nu, itmax, tol, return_history=False, patience=3):
    """:func:`active_set` for ``Q = I/nu + HH'``, ``H = D [A  -e]``, with ``H_F'H_F`` updated.

    The same steps as ``active_set(solve_free, Q_times, ...)`` with the functions of
    Sherman-Morrison-Woodbury, written out for the linear kernel, because here a step
    can be done in one pass over ``A`` instead of three and a copy of ``A_F``:

    * ``(I/nu + H_F'H_F) v = H_F'e_F`` gives ``u_F = nu (e_F - H_F v)`` (SMW, as in
      :func:`smw_solve`), and then ``H'u = v`` exactly, so ``Qu - e = u/nu + Hv - e``:
      the sign test needs only the margins ``Hv``, one product with ``A``;
    * the ``(n+1) x (n+1)`` matrix ``H_F'H_F`` and the vector ``H_F'e_F`` are kept from
      step to step, and only the rows that change side are added or subtracted;
      they are rebuilt from the free rows when that reads fewer rows, and always
      before the answer is accepted, so the final solve is the from-scratch one.

    Returns the :class:`LSVMResult` (with ``w``, ``gamma``) and the margins ``Hv``.
    """
    m, n = A.shape
    free = np.ones(m, dtype=bool)  # the first step is Code 2's start u^0 = Q^{-1} e
    G_all, b_all = _free_gram(A, dd)
    G, b, exact = G_all, b_all, True  # exact: summed over F's rows; G is never written to

    def solve(G, b):
        if not free.any():
            return np.zeros(n + 1)
        M = G.copy()
        M[np.diag_indices(n + 1)] += 1.0 / nu
        factor = cholesky(M, "I/nu + H_F'H_F", overwrite=True)
        return cho_solve(factor, b, check_finite=False)

    # One pass over A per step, block by block, so that the vectors of a block are still
    # in cache when the next operation reads them: t = Hv, the new u, and in `wrong` the
    # value whose sign is tested (u_i in F, (Qu - e)_i = t_i - 1 off F).
    t, u, u_new, wrong = np.empty(m), np.zeros(m), np.empty(m), np.empty(m)

    def signs(v):  # fills t, u_new, wrong; returns the threshold and ||u_new - u||^2
        top, step = 0.0, 0.0
        for start in range(0, m, _BLOCK_ROWS):
            block = slice(start, start + _BLOCK_ROWS)
            tb, ub, fb = t[block], u_new[block], free[block]
            np.matmul(A[block], v[:n], out=tb)
            tb -= v[n]
            tb *= dd[block]  # t = D (A w - e gamma) = Hv
            np.subtract(1.0, tb, out=ub)
            ub *= nu
            ub *= fb  # u_F = nu (e_F - H_F v), 0 off F
            np.subtract(tb, 1.0, out=wrong[block])
            np.copyto(wrong[block], ub, where=fb)
            top = max(top, float(ub.max()))
            diff = ub - u[block]
            step += float(diff @ diff)
        return tol * max(1.0, top), step

    history = []
    pivoting = _Pivoting(m, patience)
    it, opt, converged = 0, np.inf, False
    while it < itmax:
        v = solve(G, b)
        threshold, step = signs(v)
        infeasible = wrong < -threshold
        if not exact and not infeasible.any():  # accept only a from-scratch solve
            G, b, exact = *_free_gram(A, dd, free), True
            v = solve(G, b)
            threshold, step = signs(v)
            infeasible = wrong < -threshold
        opt = float(np.sqrt(step))
        u, u_new = u_new, u
        it += 1
        if return_history:
            history.append(opt)
        count = int(infeasible.sum())
        if count == 0:
            converged = True
            break
        if not pivoting.block_step(count):
            _murty(infeasible)
        leaving = np.flatnonzero(infeasible & free)
        free ^= infeasible
        entering = np.flatnonzero(infeasible & free)
        n_free = int(free.sum())
        # the cheapest of: update by the rows that changed side, build from the free
        # rows, or subtract the rows off F from the whole
        if count <= min(n_free, m - n_free):
            G_in, b_in = _free_gram(A, dd, entering)
            G_out, b_out = _free_gram(A, dd, leaving)
            G, b, exact = G + (G_in - G_out), b + (b_in - b_out), False
        elif n_free <= m - n_free:
            G, b, exact = *_free_gram(A, dd, free), True
        else:
            G_off, b_off = _free_gram(A, dd, ~free)
            G, b, exact = G_all - G_off, b_all - b_off, False
    if converged:
        neg = np.flatnonzero(u < 0)  # entries of at most the threshold's size below 0
        if neg.size:  # (w, gamma) = H'u for the u returned: take the clipped share out of v
            du = dd[neg] * u[neg]
            v = v.copy()
            v[:n] -= A[neg].T @ du
            v[n] += du.sum()
        u = np.maximum(u, 0.0)
    else:
        _warn_active_set(it, count, tol)
    # w = A'Du and gamma = -e'Du (9) are H'u = v: no further pass over A (the clipped
    # entries above are a few rows)
    result = LSVMResult(
        n_iter=it, opt=opt, u=u, w=v[:n].copy(), gamma=float(v[n]), converged=converged,
        history=np.array(history) if return_history else None,
    )
    return result, t


def lsvm_linear_newton(A, d, nu=None, itmax=100, tol=1e-8, *, return_history=False):
    """LSVM for a linear classifier by an active-set (semismooth Newton) method.

    Solves the same dual (11) as :func:`lsvm_linear`, exactly rather than by
    the fixed-point iteration (15): each step solves ``Q_FF u_F = e_F`` on a
    guessed free set ``F``, by Sherman-Morrison-Woodbury with the rows of ``A``
    in ``F``.  Every index on the wrong side (``u_i < 0`` in ``F``, or
    ``(Qu - e)_i < 0`` outside it) then changes side, which is a semismooth
    Newton step for ``min(u, Qu - e) = 0``; if three such steps in a row fail
    to lower the number of wrong indices below its record, only the last wrong
    index changes side (Judice & Pires' block principal pivoting, with
    Murty's rule as the safeguard), so the method ends after finitely many
    steps.  The first step is Code 2's start ``u^0 = Q^{-1} e``.

    Parameters
    ----------
    A : array-like of shape (m, n)
    d : array-like of shape (m,)
        Two class labels; the second in sort order is +1.
    nu : float > 0 or None, default=None
        None means ``1 / m``.
    itmax : int, default=100
    tol : float > 0, default=1e-8
        A sign is wrong beyond ``tol * max(1, max u)``; at the end ``u >= 0``
        (entries within that size below 0 are set to 0) and ``Qu - e`` is at
        least ``-tol * max(1, max u)``, and exactly 0 on the free set.
    return_history : bool, default=False
        Keep ``||u^{i+1} - u^i||`` per iteration.

    Returns
    -------
    result : LSVMResult
        As :func:`lsvm_linear`.

    Raises
    ------
    ValueError
        As :func:`lsvm_linear`.

    Warns
    -----
    ConvergenceWarning
        If some index is still on the wrong side after ``itmax`` steps.

    Notes
    -----
    With ``v = (I/nu + H_F'H_F)^{-1} H_F'e_F`` the step's solution is
    ``u_F = nu (e_F - H_F v)``, and ``H'u = v``: ``v`` is the plane ``(w, gamma)``
    of the step, and the signs to test are those of the margins ``Hv``.  A step
    therefore costs one product with ``A`` (``2mn`` operations) and an
    ``(n+1) x (n+1)`` factorisation, plus ``O(k n^2)`` for the ``k`` rows that
    changed side, by which ``H_F'H_F`` is updated rather than recomputed; before
    the answer is accepted it is rebuilt from the free rows.  The number of steps
    does not grow with ``nu`` as the fixed-point iteration's does.

    Examples
    --------
    >>> A = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> r = lsvm_linear_newton(A, [-1, -1, 1, 1], nu=100.0)
    >>> round(float(r.w[0]), 4), round(r.gamma, 4), r.n_iter
    (0.9757, 1.9417, 2)
    """
    if _on_dask(A):  # a Dask array chunked by rows: the same method block by block
        return _lsvm_dask().lsvm_linear_newton(A, d, nu, itmax, tol, return_history=return_history)
    A = check_matrix(A, "A")
    dd, _ = encode_binary_labels(d)
    m, n = A.shape
    if dd.shape[0] != m:
        raise ValueError(f"A has {m} rows but d has {dd.shape[0]} labels.")
    nu, _ = _check_nu_alpha(nu, None, m)
    itmax, tol = _check_itmax_tol(itmax, tol)
    # H = D [A  -e] is never formed (as in lsvm_linear), nor a copy of the free rows A_F.
    return _linear_active_set(A, dd, nu, itmax, tol, return_history)[0]


#: Above this many points, lsvm_kernel_newton first solves a random half of the problem.
_WARM_START_SIZE = 500


def lsvm_kernel_newton(
    KM, d, nu=None, itmax=100, tol=1e-8, *, warm_start=True, return_history=False,
):
    """LSVM with a kernel by an active-set (semismooth Newton) method.

    Solves the dual (11) of :func:`lsvm_kernel` exactly: each step factors
    the block ``Q_FF = I/nu + D_F K_FF D_F`` of the guessed free set (Cholesky)
    and solves ``Q_FF u_F = e_F``; the free set changes as in
    :func:`lsvm_linear_newton` (block principal pivoting with Murty's rule as
    the safeguard, so the number of steps is finite).

    Parameters
    ----------
    KM : array-like of shape (m, m)
        ``K(G, G')`` with ``G = [A -e]``.
    d : array-like of shape (m,)
    nu, itmax, tol, return_history
        As in :func:`lsvm_linear_newton`.
    warm_start : bool, default=True
        For more than 500 points, first solve the problem of a random half of
        them (recursively, with a fixed seed), and start from the free set its
        solution predicts: ``u_i - g_i > 0`` with ``u`` the half's solution
        (0 on the other half) and ``g = Qu - e``.  The answer does not change,
        since the pivoting ends at the unique solution from any start; the
        first factorisations shrink from ``m x m`` to about the number of
        support vectors.  ``n_iter`` counts the steps on the whole problem only.

    Returns
    -------
    result : LSVMResult
        As :func:`lsvm_kernel`.

    Raises
    ------
    ValueError
        As :func:`lsvm_kernel`.

    Warns
    -----
    ConvergenceWarning
        If some index is still on the wrong side after ``itmax`` steps.

    Notes
    -----
    A step costs ``O(|F|^3 / 3)``: the free set holds the support vectors, so
    the cost follows their number, not ``nu``.

    Examples
    --------
    >>> A = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> G = np.hstack([A, -np.ones((4, 1))])
    >>> r = lsvm_kernel_newton(G @ G.T, [-1, -1, 1, 1], nu=100.0)
    >>> np.round(r.u, 4) + 0.0, r.n_iter
    (array([0.    , 3.4004, 1.4587, 0.    ]), 2)
    """
    KM, dd = check_gram_labels(KM, d, names=("KM", "d"))
    m = KM.shape[0]
    nu, _ = _check_nu_alpha(nu, None, m)
    itmax, tol = _check_itmax_tol(itmax, tol)

    def solve_free(free):
        QF = dual_matrix(KM[np.ix_(free, free)], dd[free], nu)
        factor = cholesky(QF, "Q = I/nu + D K D", overwrite=True)
        return cho_solve(factor, np.ones(QF.shape[0]), check_finite=False)

    def Q_times(u, free):  # only the columns of the free set
        return u / nu + dd * (KM[:, free] @ (dd * u)[free])

    free = None
    if warm_start and m > _WARM_START_SIZE:
        # Solve for a random half first (recursively), and start from the free set
        # its solution predicts for every point: u_S on the half, 0 elsewhere.
        half = np.sort(np.random.default_rng(0).permutation(m)[: m // 2])
        sub = lsvm_kernel_newton(KM[np.ix_(half, half)], dd[half], nu, itmax, tol)
        u0 = np.zeros(m)
        u0[half] = sub.u
        support = u0 > 0
        free = u0 - (Q_times(u0, support) - 1.0) > 0
    return active_set(solve_free, Q_times, m, itmax, tol, return_history, free=free)


def _block_of(Q, rows, cols, empty=np.empty, out=None):
    """``Q[np.ix_(rows, cols)]`` for a symmetric ``Q`` (rows of contiguous values), by two
    ``take``s (whole rows copied, then columns picked), the shorter index list first:
    fancy indexing by ``np.ix_`` costs about twice as much.  The arrays come from
    ``empty(shape)``: the rows copied, and the result unless ``out`` (C-ordered, for
    ``len(rows) <= len(cols)``) is given."""
    # mode="clip" (the indices are valid) lets take write into its out without a buffer.
    if len(rows) <= len(cols):
        whole = Q.take(rows, axis=0, out=empty((len(rows), Q.shape[1])), mode="clip")
        if out is None:
            out = empty((len(rows), len(cols)))
        return whole.take(cols, axis=1, out=out, mode="clip")
    whole = Q.take(cols, axis=0, out=empty((len(cols), Q.shape[1])), mode="clip")
    return whole.take(rows, axis=1, out=empty((len(cols), len(rows))), mode="clip").T


def _cholesky_lower(M):
    """The lower Cholesky factor of a C-ordered symmetric ``M``, in place (``M`` is lost),
    in Fortran order: LAPACK factors ``M.T``, which is ``M`` in Fortran order, where
    scipy would first copy a C-ordered array."""
    return cholesky(M.T, "Q = I/nu + D K D", overwrite=True)[0]


class _KeptMemory:
    """One block of memory kept from one fit to the next: the largest given back, if it
    is at most ``limit`` bytes.  Thread-safe: a block serves one fit at a time.

    Arrays of one to four megabytes, formed and dropped, go back to the operating
    system, and the next fit pays a page fault for every 4 KB of them: on 1000 points
    (nu = 1) a fit of the kernel LSVM made about 2400 and took 1.3 times as long as with
    its memory kept, while libsvm's small allocations made none.  Repeated fits of one
    size (a grid search, a cross-validation, a benchmark) take the same block instead.
    """

    def __init__(self, limit):
        self.limit = limit
        self._block = None
        self._lock = threading.Lock()

    def take(self, size):
        """An empty float64 array of ``size`` values: the kept block if it is large
        enough (it is then no longer kept), else a new one."""
        with self._lock:
            if self._block is not None and self._block.size >= size:
                block, self._block = self._block, None
                return block[:size]
        return np.empty(size)

    def give(self, array):
        """Keep the memory of ``array`` (from :meth:`take`, no longer used) if it is the
        largest given and within the limit."""
        block = array if array.base is None else array.base
        with self._lock:
            if block.nbytes <= self.limit and (self._block is None
                                                or block.size >= self._block.size):
                self._block = block

    def clear(self):
        with self._lock:
            self._block = None

    @property
    def nbytes(self):
        """Bytes kept now."""
        return 0 if self._block is None else self._block.nbytes


#: A level of :func:`_working_set` whose working set has at most this many points takes
#: its large arrays from a :class:`_Workspace`, of ``_WORKSPACE_SLOTS`` arrays of ``c^2``
#: values for its capacity ``c``: two for Q_WW, two for factors, two for temporaries.
_WORKSPACE_SIZE = 1000
_WORKSPACE_SLOTS = 6
#: The capacity of a workspace, as a multiple of the working set it is made for: room
#: for the points that join the working set later (6-8 % on the book's checkerboards).
_WORKSPACE_ROOM = 1.125


def _capacity(n):
    """The capacity of a workspace made for a working set of ``n`` points."""
    return int(np.ceil(_WORKSPACE_ROOM * n))


#: The workspace memory kept between fits: the largest workspace, 61 MB.
_KEPT = _KeptMemory(8 * _WORKSPACE_SLOTS * _capacity(_WORKSPACE_SIZE) ** 2)


def free_kept_memory():
    """Free the memory that the kernel LSVM keeps from one fit to the next.

    :class:`LagrangianSVC` with a kernel keeps, after a fit of a small problem (working
    sets of at most 1000 points), the block of memory its solver worked in, at most
    61 MB, so that the next fit maps no new pages (a fit with a larger working set
    gives it back itself); this gives it back to the system.

    Returns
    -------
    nbytes : int
        The bytes freed.

    Examples
    --------
    >>> free_kept_memory() >= 0
    True
    """
    nbytes = _KEPT.nbytes
    _KEPT.clear()
    return nbytes


class _Workspace:
    """The memory of a level of :func:`_working_set` for its arrays of up to ``c^2``
    values, ``c`` its capacity in points, taken at once (from :data:`_KEPT` if it holds
    a block large enough): ``Q_WW`` and a larger one when the working set grows
    (``c^2`` each), two factors (``c^2`` each: the one kept and the one formed from it)
    and the temporaries of one step (``2 c^2``, handed out anew at every step).  The
    same memory serves every step while it is in the processor's cache, and a fit's
    last workspace goes back to :data:`_KEPT` for the next fit (:meth:`close`).  Every
    array is contiguous: ``np.take`` copies a strided array whole first.  With
    ``solve=False`` (a level that only predicts), it holds one ``Q_WW`` and nothing else.
    """

    def __init__(self, capacity, solve=True):
        self.capacity = capacity
        self._solve = solve
        self._memory = _KEPT.take((_WORKSPACE_SLOTS if solve else 1) * capacity**2)
        self._slots = [0, 0]  # the Q slot and the factor slot given last
        self.release()

    def _slot(self, kind, shape, order="C"):
        """The other of the two slots of ``kind`` (0 for Q, 1 for factors) than the one
        given last, which the new array is formed from."""
        self._slots[kind] = 1 - self._slots[kind]
        start = (2 * kind + self._slots[kind]) * self.capacity**2
        return self._memory[start : start + shape[0] * shape[1]].reshape(shape, order=order)

    def Q(self, n):
        """An empty C-ordered ``n x n`` array for ``Q_WW`` (``n <= capacity``)."""
        if not self._solve:  # one Q only
            return self._memory[: n * n].reshape(n, n)
        return self._slot(0, (n, n))

    def factor(self, n, order="C"):
        """An empty ``n x n`` array for a new factor."""
        return self._slot(1, (n, n), order)

    def empty(self, shape):
        """An empty C-ordered array valid until :meth:`release` (a new one if the
        temporaries' part is full)."""
        size = shape[0] * shape[1]
        if self._top + size > self._memory.size:
            return np.empty(shape)
        self._top += size
        return self._memory[self._top - size : self._top].reshape(shape)

    def release(self):
        """Every array of :meth:`empty` may be given again."""
        self._top = 4 * self.capacity**2

    def close(self):
        """The level is done with every array of this workspace: its memory goes back
        to :data:`_KEPT`."""
        _KEPT.give(self._memory)
        self._memory = None


class _BlockSolver:
    """``Q_FF^{-1} b_F`` for the free sets ``F`` of :func:`active_set` on a dense ``Q``
    (``b = e`` unless given).

    The Cholesky factor ``L`` of ``Q_BB`` for the last set ``B`` factored is kept,
    with ``B`` in an order of its own (``order``, positions in ``Q``).  When ``F``
    differs from ``B`` in few indices (``R = B - F`` leave, ``A = F - B``
    enter), the solve is a block update instead of a new factorisation: with
    ``u_R = 0`` imposed by multipliers ``lam`` on the rows of ``R``,

        Q_BB x_B + Q_BA x_A - E_R lam = b_B,   Q_AB x_B + Q_AA x_A = b_A,   x_R = 0,

    and ``x_B`` eliminated by the factor, a system of size ``|A| + |R|`` is left,
    whose blocks are ``Y'Y`` for ``Y = L^{-1} [Q_BA  E_R]`` (one triangular solve):
    ``O(|B|^2 (|A| + |R|))`` against ``|F|^3 / 3``.

    When more change, ``F`` is factored again, but only from the first point of
    ``order`` that leaves: the leading ``p`` columns of ``L`` stay (they depend
    on the leading block alone), the rows of ``L`` below them are kept for the
    points that stay and computed by a triangular solve for those that enter
    (appended at the end), and the trailing block is the factor of its Schur
    complement ``Q_TT - L_T L_T'``: ``O(|T|^2 p + |T|^3 / 3)``, plus ``p^2`` for
    the row of each point that enters; when that exceeds ``|F|^3 / 3``, ``F`` is
    factored whole.  A caller that puts the points most likely to leave last
    (:func:`_working_set` orders them by the margin its warm start predicts)
    keeps ``p`` large.  Between two factorisations, the columns of
    ``L^{-1} [Q_BA  E_R]`` of the points that entered or left in an update are
    kept for the next updates, which mostly repeat them.

    With a ``workspace`` (:class:`_Workspace`), the factors and the temporaries of a
    step are taken from it.
    """

    #: Update instead of refactoring while |A| + |R| is at most this fraction of |B|
    #: and the update takes fewer flops (``|B| k (|B| + 2k)``, ``k = |A| + |R|``) than the
    #: refactoring.
    UPDATE_FRACTION = 0.125

    def __init__(self, Q, workspace=None, b=None):
        self.Q = Q
        self.base = None
        self.workspace = workspace
        self.b = np.ones(len(Q)) if b is None else b

    def grow(self, Q, workspace=None, b=None):
        """Continue with ``Q``, whose leading block is the current ``Q``, ``workspace`` and
        ``b``, whose leading entries are the current ``b`` (ones if None)."""
        n_old = len(self.Q)
        self.Q = Q
        self.workspace = workspace
        self.b = np.ones(len(Q)) if b is None else b
        if self.base is not None:
            self.base = np.concatenate([self.base, np.zeros(len(Q) - n_old, dtype=bool)])

    def _empty(self, shape):
        return np.empty(shape) if self.workspace is None else self.workspace.empty(shape)

    def _new_factor(self, n, order="C"):
        if self.workspace is None:
            return np.empty((n, n), order=order)
        return self.workspace.factor(n, order)

    def _factor(self, free):
        if self.base is None:
            order, p = np.flatnonzero(free), 0
        else:
            stay = free[self.base_idx]
            p = self.base_idx.size if stay.all() else int(np.argmin(stay))  # first to leave
            enter = np.flatnonzero(free & ~self.base)
            order = np.concatenate([self.base_idx[stay], enter])
            # Many entering points (at the top of a warm start) can make a whole new
            # factorisation cheaper than keeping the leading p columns.
            if self._keep_flops(p, enter.size, order.size - p) > order.size**3 / 3:
                p = 0
        tail = order[p:]
        if p == 0:
            QF = self._new_factor(order.size)
            if np.array_equal(order, np.arange(order.size)):  # a leading block, in order
                QF[...] = self.Q[: order.size, : order.size]
            else:
                _block_of(self.Q, order, order, self._empty, out=QF)
            factor = _cholesky_lower(QF)
        else:
            old = self.factor[0]
            n_stay = int(stay[p:].sum())
            L_T = self._empty((tail.size, p))  # the rows of L below its leading p columns
            L_T[:n_stay] = old[p:, :p][stay[p:]]
            if tail.size > n_stay:
                L_T[n_stay:] = solve_triangular(
                    old[:p, :p], _block_of(self.Q, order[:p], tail[n_stay:], self._empty),
                    lower=True, overwrite_b=True, check_finite=False,
                ).T
            # Only the lower half is read; in the old factor's memory order, so that its
            # leading block is copied by contiguous columns (or rows), not transposed.
            factor = self._new_factor(order.size, "F" if old.flags.f_contiguous else "C")
            factor[:p, :p] = old[:p, :p]
            factor[p:, :p] = L_T
            if tail.size:
                # The Schur complement Q_TT - L_T L_T' of the leading block (lower half;
                # transposed views are the Fortran arrays BLAS takes without a copy).
                S = dsyrk(-1.0, L_T.T, beta=1.0, c=_block_of(self.Q, tail, tail, self._empty).T,
                          trans=1, lower=1, overwrite_c=1)
                factor[p:, p:] = cholesky(S, "Q = I/nu + D K D", overwrite=True)[0]
        self.factor = (factor, True)
        self._columns = {}
        self.base = np.zeros(len(self.Q), dtype=bool)
        self.base[order] = True
        self.base_idx = order
        self.y = solve_triangular(factor, self.b[order], lower=True, check_finite=False)
        self.z = solve_triangular(factor, self.y, lower=True, trans="T", check_finite=False)
        u = np.zeros(len(self.Q))  # z = Q_BB^{-1} b = L'^{-1} y, y = L^{-1} b
        u[order] = self.z
        return u[free]

    def Q_times_off(self, u, free):
        """``Qu`` off ``free`` (zero on ``free``, where :func:`active_set` does not read
        it): from the rows off ``free`` alone when they are fewer than half."""
        off = ~free
        n_off = int(off.sum())
        if 2 * n_off >= len(free):
            return self.Q @ u
        g = np.zeros(len(free))
        rows = self.Q.take(np.flatnonzero(off), axis=0, out=self._empty((n_off, len(free))),
                           mode="clip")
        g[off] = rows @ u
        return g

    @staticmethod
    def _keep_flops(p, n_enter, t):
        """Flops of a factor that keeps its leading ``p`` columns: a triangular solve
        for the rows of the ``n_enter`` points that enter, the Schur complement of the
        ``t`` trailing points and its factor."""
        return p * p * n_enter + t * t * p + t**3 / 3

    def _refactor_flops(self, free, n_enter, n_leave):
        """Flops of :meth:`_factor`: from the first point of ``order`` that leaves, or
        of a whole new factorisation if that is fewer (the choice :meth:`_factor` makes)."""
        stay = free[self.base_idx]
        p = stay.size if stay.all() else int(np.argmin(stay))
        t = stay.size - n_leave + n_enter - p
        return min(self._keep_flops(p, n_enter, t), (p + t) ** 3 / 3)

    def __call__(self, free):
        if self.workspace is not None:
            self.workspace.release()  # nothing of the last step's temporaries is kept
        if self.base is None:
            return self._factor(free)
        enter = free & ~self.base
        leave = self.base & ~free
        n_enter, n_leave = int(enter.sum()), int(leave.sum())
        n, k = self.base_idx.size, n_enter + n_leave
        refactor = self._refactor_flops(free, n_enter, n_leave)
        if k > self.UPDATE_FRACTION * n or refactor < n * k * (n + 2 * k):
            # Many enter: border the factor with them first (its leading n columns stay),
            # if the few that leave can then be handled by the update, for fewer flops.
            a, r, n_a = n_enter, n_leave, n + n_enter
            border = n * n * a + a * a * n + a**3 / 3 + n_a * r * (n_a + 2 * r)
            if a and r <= self.UPDATE_FRACTION * n_a and border < refactor:
                self._factor(self.base | enter)
                return self(free)
            return self._factor(free)
        if n_enter + n_leave == 0:
            u = np.zeros(len(self.Q))
            u[self.base_idx] = self.z
            return u[free]
        B, A = self.base_idx, np.flatnonzero(enter)
        R = np.flatnonzero(leave[B])  # positions in B
        L = self.factor[0]
        # With Y = L^{-1} [Q_BA  E_R] (triangular solves), the blocks of the system are
        # the products Y'Y: C' Q_BB^{-1} C = Y'Y.  L^{-1} E_R is 0 above the first
        # position r of R (L is lower triangular): only L's trailing block from r is
        # used, and the points that leave are mostly near the end of B.  The updates on
        # one factor mostly repeat the last one's A and R: their columns are kept.
        cache = self._columns
        new = [a for a in A if ("a", a) not in cache]
        if new:
            new = np.array(new)
            cols = solve_triangular(L, _block_of(self.Q, B, new, self._empty), lower=True,
                                    check_finite=False)
            cache.update({("a", a): cols[:, j] for j, a in enumerate(new)})
        new = [q for q in R if ("r", q) not in cache]
        if new:
            new, r = np.array(new), new[0]
            E = np.zeros((B.size - r, new.size))
            E[new - r, np.arange(new.size)] = 1.0
            cols = np.zeros((B.size, new.size))
            cols[r:] = solve_triangular(L[r:, r:], E, lower=True, check_finite=False)
            cache.update({("r", q): cols[:, j] for j, q in enumerate(new)})
        Y = np.empty((B.size, n_enter + n_leave))
        for j, key in enumerate([("a", a) for a in A] + [("r", q) for q in R]):
            Y[:, j] = cache[key]
        G = Y.T @ Y
        V = G[n_enter:, :n_enter]  # (Q_BB^{-1} Q_BA)_R
        system = np.empty((n_enter + n_leave, n_enter + n_leave))
        system[:n_enter, :n_enter] = _block_of(self.Q, A, A) - G[:n_enter, :n_enter]
        system[:n_enter, n_enter:] = V.T
        system[n_enter:, :n_enter] = -V
        system[n_enter:, n_enter:] = G[n_enter:, n_enter:]
        rhs = np.concatenate([self.b[A] - Y[:, :n_enter].T @ self.y, -self.z[R]])
        x = np.linalg.solve(system, rhs)
        x_A = x[:n_enter].copy()
        # x_B = Q_BB^{-1}(b_B - Q_BA x_A + E_R lam) = L'^{-1}(y - Y_A x_A + Y_R lam), with y =
        # L^{-1} b_B: one triangular solve, on the factor as stored (cho_solve would copy it).
        x[:n_enter] *= -1.0
        x_B = solve_triangular(L, self.y + Y @ x, lower=True, trans="T", check_finite=False)
        u = np.zeros(len(self.Q))
        u[B] = x_B
        u[A] = x_A
        return u[free]


def _dual_block(columns, nu, W, P_old=None, counter=None, out=None):
    """``P_WW = I/nu + K_WW`` for the points ``W``, in ``out`` if given; if ``P_old`` is
    given, it is the block of the first ``len(P_old)`` points of ``W`` and only the rest
    is computed (``out`` must not overlap it).

    The dual's block is ``Q_WW = D_W P_WW D_W``; the labels are left to the vectors:
    ``Q_FF^{-1} e_F = D_F P_FF^{-1} d_F`` and ``Qu = D P D u``, while scaling the rows
    and columns of ``K_WW`` by the labels would take two passes over it (the signs
    change no rounding: a factor of ``P_FF`` is one of ``Q_FF`` with signs changed)."""
    n_old = 0 if P_old is None else len(P_old)
    new = W[n_old:]
    P = np.empty((W.size, W.size)) if out is None else out
    block = columns.block(new, W, out=P[n_old:])  # rows of K_WW for the new points
    counter[0] += block.size
    block[np.arange(new.size), n_old + np.arange(new.size)] += 1.0 / nu
    if n_old:
        P[:n_old, :n_old] = P_old
        P[:n_old, n_old:] = block[:, :n_old].T
    return P


def _level_memory(columns, nu, W, counter, solver=None, solve=True):
    """``P_WW`` (:func:`_dual_block`) and its :class:`_Workspace` (None for more than
    ``_WORKSPACE_SIZE`` points, and then :data:`_KEPT` is emptied; with room for ``W``
    alone if not ``solve``).  For a ``solver`` whose working set grew to ``W``, its ``Q``
    is copied and the rows of the points that joined added, in its workspace while that
    has room."""
    P_old = None if solver is None else solver.Q
    workspace = None if solver is None else solver.workspace
    if W.size > _WORKSPACE_SIZE:
        # A large level: the memory kept for small ones would only add to the peak.
        _KEPT.clear()
        workspace = None
    elif not solve:
        workspace = _Workspace(W.size, solve=False)
    elif workspace is None or workspace.capacity < W.size:
        workspace = _Workspace(_capacity(W.size))
    out = None if workspace is None else workspace.Q(W.size)
    return _dual_block(columns, nu, W, P_old, counter, out=out), workspace


def _largest_eigenvalue_bound(Q):
    """An upper bound of the largest eigenvalue of a symmetric ``Q``: its largest absolute
    row sum (Gershgorin's circles), a block of rows at a time (no copy of ``Q``)."""
    rows = max(1, 2**15 // len(Q))
    return max(float(np.abs(Q[i : i + rows]).sum(axis=1).max()) for i in range(0, len(Q), rows))


def _accelerated_projected_gradient(Q, mu, L, steps, d=None):
    """``steps`` steps of V-FISTA (Beck 2017, section 10.7.7) on ``min_{u>=0} u'Qu/2 - e'u``
    from ``u = 0``, for a ``Q`` whose eigenvalues lie in ``[mu, L]``, ``mu > 0``; with
    signs ``d``, for ``D Q D`` (``Q`` given without them, as :func:`_dual_block` gives it).

    Each step is one projected gradient step, of length ``1 / L``, from the point
    ``y`` extrapolated with the constant momentum ``(1 - q) / (1 + q)``, ``q = sqrt(mu/L)``:
    ``u+ = max(0, y - (Qy - e) / L)``.  By Beck's Theorem 10.42 the objective's excess
    falls at least by the factor ``1 - q`` per step,

        f(u_k) - f* <= (1 - q)^k (f(0) - f* + mu ||u*||^2 / 2),

    and since ``f`` is ``mu``-strongly convex, ``||u_k - u*||^2 <= 2 (f(u_k) - f*) / mu``.
    (At the solution ``g*'u* = 0``, so ``f(0) - f* = e'u* / 2``.)  One product ``Qy`` a step.
    """
    q = np.sqrt(mu / L)
    momentum = (1.0 - q) / (1.0 + q)
    u = previous = np.zeros(len(Q))
    for _ in range(steps):
        y = u + momentum * (u - previous)
        previous = u
        Qy = Q @ y if d is None else d * (Q @ (d * y))
        u = np.maximum(y - (Qy - 1.0) / L, 0.0)
    return u


#: A warm start's lowest level is solved approximately: at most this many gradient steps.
_PREDICTION_STEPS = 60


def _predict(P, d, nu):
    """An approximate solution of the dual restricted to a warm start's lowest level, of
    labels ``d`` and ``P = I/nu + K_WW``: only a prediction, which the level above
    corrects exactly.

    ``Q_WW = D P D`` has its eigenvalues in ``[1/nu, L]`` (``K`` is positive
    semi-definite), ``L`` bounded by :func:`_largest_eigenvalue_bound` (of ``P`` or
    ``Q_WW``: the signs change no absolute value).  The objective's excess over its minimum
    falls by about ``exp(-q)`` a step in :func:`_accelerated_projected_gradient`, so
    ``ln(100) / q`` steps divide it by about a hundred (the distance to the solution by
    about ten), which puts nearly every point on the side of the margin the exact solution
    puts it (a thousand took half as many steps again and gave the level above no fewer
    flops); at most ``_PREDICTION_STEPS``, since at large ``nu`` (small ``q``) even a rough
    prediction is worth more than its steps.
    """
    mu, L = 1.0 / nu, _largest_eigenvalue_bound(P)
    steps = min(_PREDICTION_STEPS, int(np.ceil(np.log(100.0) / np.sqrt(mu / L))))
    return _accelerated_projected_gradient(P, mu, L, steps, d)


#: In a working set predicted by a warm start, the points whose predicted slack
#: ``1 - d_i f(x_i)`` exceeds this start free; the others of the set enter if needed.
_FIRST_FREE_SLACK = 0.2


def _working_set(columns, dd, nu, points, itmax, tol, warm_start, counter, exact=True):
    """The LSVM dual restricted to ``points`` (sorted indices), by working sets.

    Returns ``(u, steps, converged, Ku)`` with ``u`` on ``points``; ``steps`` counts
    the active-set steps of this level only; ``Ku`` is the last :func:`_gradient`'s
    ``K[:, S] (d u)_S`` on all the points of ``columns`` (None if not converged), which
    the level above, whose start is this ``u``, needs as it is.  ``exact=False`` (the
    levels below the top of a warm start, whose ``u`` only predicts) lets the lowest
    level, of at most ``_WARM_START_SIZE`` points, return :func:`_predict`'s
    approximation (no steps, not converged) instead of the exact solution.
    """
    m = points.size
    if warm_start and m > _WARM_START_SIZE:
        # A random half first (recursively): its support vectors and the points
        # its solution classifies inside the margin make the first working set.  The
        # half is solved with nu * m / |half|: (11) is the dual of (7), min nu/2 sum_i
        # xi_i^2 + ||(w, gamma)||^2 / 2, and with each point of the half standing for
        # two, the half's weighted sum estimates the whole sum, so that the half's f(x)
        # estimates the whole problem's.  With nu itself the half would be regularised
        # more and put more points inside the margin than the whole problem has.
        half = np.sort(np.random.default_rng(0).permutation(m)[: m // 2])
        nu_half = nu * m / half.size
        with warnings.catch_warnings():  # a start, however rough, cannot change the answer
            warnings.simplefilter("ignore", ConvergenceWarning)
            u_half, _, _, Ku = _working_set(columns, dd, nu_half, points[half], itmax, tol,
                                            True, counter, exact=False)
        u = np.zeros(m)
        u[half] = u_half
        support = u > 0
        g, Ku = _gradient(columns, dd, nu, points, u, support, counter, Ku)
        work = np.flatnonzero(support | (g < -tol * max(1.0, float(u.max()))))
        # The slack 1 - d_i f(x_i) that the half's solution predicts: u_i / nu_half on
        # its support (u_i = nu xi_i at a solution, (9)), -g_i elsewhere.  Deepest inside
        # the margin first: the points that leave the free set are then mostly near the
        # end, where the block solver refactors (the leading columns of its factor
        # stay).  Only the points with a clear slack start free; the others enter at the
        # end if they must.
        slack = np.where(support, u / nu_half, -g)[work]
        order = np.argsort(-slack, kind="stable")
        work, slack = work[order], slack[order]
        free = slack > _FIRST_FREE_SLACK
    elif not exact:
        P, workspace = _level_memory(columns, nu, points, counter, solve=False)
        u = _predict(P, dd[points], nu)
        if workspace is not None:
            workspace.close()
        return u, 0, False, None
    else:
        work, free = np.arange(m), None
    # The working set only grows (new points at the end), so that Q_WW and the
    # factor of the block solver carry over from one working set to the next.
    d = dd[points[work]]
    solver = _BlockSolver(*_level_memory(columns, nu, points[work], counter), b=d)

    def solve_free(free):  # Q_FF^{-1} e_F = D_F P_FF^{-1} d_F
        return d[free] * solver(free)

    def Q_times_off(u, free):  # Qu = D P D u
        return d * solver.Q_times_off(d * u, free)

    steps, converged, Ku = 0, False, None
    while steps < itmax:
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always", ConvergenceWarning)
            inner = active_set(solve_free, Q_times_off, work.size, itmax - steps, tol,
                               free=free)
        steps += inner.n_iter
        u = np.zeros(m)
        u[work] = inner.u
        if not inner.converged:
            break
        support = u > 0
        g, Ku = _gradient(columns, dd, nu, points, u, support, counter)
        outside = np.ones(m, dtype=bool)
        outside[work] = False
        violators = np.flatnonzero(outside & (g < -tol * max(1.0, float(u.max()))))
        if violators.size == 0:
            converged = True
            break
        # The problem restricted to work was solved exactly and each violator lowers
        # the objective: the next restricted problem ends lower, so the loop ends.
        work = np.concatenate([work, violators])
        d = dd[points[work]]
        solver.grow(*_level_memory(columns, nu, points[work], counter, solver), b=d)
        free = np.concatenate([inner.u > 0, np.ones(violators.size, dtype=bool)])
    if solver.workspace is not None:
        solver.workspace.close()
    return u, steps, converged, (Ku if converged else None)


def _gradient(columns, dd, nu, points, u, support, counter, Ku=None):
    """``(Qu - e)`` on ``points`` for a ``u`` (on ``points``) that is zero off ``support``,
    and ``Ku = K[:, S] (d u)_S`` on all the points of ``columns`` (``S = points[support]``).

    From the rows of the support vectors: those in the cache are read in place and
    the others computed (and cached), so a cache smaller than the support vectors'
    rows costs only the rows that are missing at each call.  A ``Ku`` given (the
    lower level's, for the same ``u``) is used as it is."""
    if Ku is None:
        S = points[support]
        Ku = columns.dot(S, dd[S] * u[support])
    return u / nu + dd[points] * Ku[points] - 1.0, Ku


def _plus_minus_one(d):
    """``encode_binary_labels(d)[0]``; a float array of -1 and +1 holding both (what
    that function returns, as ``LagrangianSVC.fit`` passes) is taken as it is,
    without scikit-learn's checks of the target type (a third of a millisecond)."""
    if isinstance(d, np.ndarray) and d.dtype == np.float64 and d.ndim == 1:
        positive = d == 1.0
        if np.all(positive | (d == -1.0)) and 0 < positive.sum() < d.size:
            return d
    return encode_binary_labels(d)[0]


def lsvm_kernel_columns(columns, d, nu=None, itmax=100, tol=1e-8, *, warm_start=True):
    """LSVM with a kernel by working sets of the active-set method, with no ``m x m`` matrix.

    Solves the dual (11) of :func:`lsvm_kernel` and :func:`lsvm_kernel_newton`
    from rows of the kernel matrix computed on demand
    (:class:`ksvm.columns.KernelColumns`, with its cache budget).  A working
    set ``W`` of points that may be support vectors is chosen; the problem
    restricted to ``W`` (only ``K_WW`` is needed) is solved exactly by
    :func:`active_set`; then ``g = Qu - e`` is computed for every point from
    the rows of the support vectors alone (``K[:, S] u_S``).  If some point
    outside ``W`` has ``g_i < 0``, the support vectors and those points make the
    next ``W``.  Each restricted problem ends lower than the last (a point with
    ``g_i < 0`` is a descent direction), so no working set comes back and the
    method ends, at the same unique solution as :func:`lsvm_kernel_newton`.

    Parameters
    ----------
    columns : KernelColumns
        The rows of ``K(G, G')``, ``G = [A -e]``, on demand.
    d : array-like of shape (m,)
        The labels; any two classes.
    nu : float > 0 or None, default=None
        None means ``1 / m``.
    itmax : int, default=100
        Active-set steps allowed on the whole problem (the restricted problems'
        steps added up).
    tol : float > 0, default=1e-8
        As in :func:`lsvm_kernel_newton`.
    warm_start : bool, default=True
        For more than 500 points, the first working set is predicted by the
        solution on a random half of them with ``nu`` doubled (solved the same
        way, recursively, except that the last half, of at most 500 points, is
        solved only approximately, by accelerated projected gradient steps),
        whose decision function estimates the whole problem's: its support
        vectors and the points it puts inside the margin.  Only their rows are
        ever computed, about the support vectors' number.

    Returns
    -------
    result : LSVMResult
        As :func:`lsvm_kernel`; ``n_iter`` counts the steps on the whole problem.

    Raises
    ------
    ValueError
        If ``d`` does not have one label per row of ``columns``, or not two
        classes; if ``nu <= 0``; or if a block ``Q_WW`` is not positive definite.

    Warns
    -----
    ConvergenceWarning
        If ``itmax`` steps do not reach the solution.

    Notes
    -----
    Memory: the cache of rows, and ``Q_WW``, ``|W| x |W|``; a working set of at
    most 1000 points takes ``Q_WW``, its factors and a step's temporaries from one
    workspace of ``6 (1.125 |W|)^2`` values, kept for the next fit
    (:func:`free_kept_memory`).  Time: the rows of
    the support vectors, ``m`` kernel values each (again whenever they have
    left a cache too small to hold them all), ``K_WW``, and the Cholesky
    factorisations of the free sets, ``|F|^3 / 3``.  A working set only grows
    within a level, and between active-set steps that change few indices the
    factor is updated (a system of the size of the change) rather than
    recomputed, so most steps cost ``O(|F|^2)`` per changed index.

    Examples
    --------
    >>> from ksvm.columns import KernelColumns
    >>> A = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> columns = KernelColumns(lambda X, Y: X @ Y.T, augment(A))
    >>> r = lsvm_kernel_columns(columns, [-1, -1, 1, 1], nu=100.0)
    >>> np.round(r.u, 4) + 0.0, r.n_iter
    (array([0.    , 3.4004, 1.4587, 0.    ]), 2)
    """
    dd = _plus_minus_one(d)
    m = columns.m
    if dd.shape[0] != m:
        raise ValueError(f"columns has {m} rows but d has {dd.shape[0]} labels.")
    nu, _ = _check_nu_alpha(nu, None, m)
    itmax, tol = _check_itmax_tol(itmax, tol)
    rows_before = columns.n_rows_computed
    counter = [0]  # kernel values computed outside the cache of rows
    u, steps, converged, _ = _working_set(columns, dd, nu, np.arange(m), itmax, tol, warm_start,
                                          counter)
    if not converged:
        warnings.warn(
            f"The LSVM active-set (Newton) solver stopped after {steps} iterations with "
            f"points still on the wrong side (tol={tol:g}); raise itmax (max_iter of "
            "LagrangianSVC) or tol, or use solver='fixed-point'.",
            ConvergenceWarning,
            stacklevel=2,
        )
    values = counter[0] + (columns.n_rows_computed - rows_before) * m
    return LSVMResult(n_iter=steps, opt=0.0, u=u, converged=converged, kernel_values=values)


class LagrangianSVC(BaseKernelClassifier):
    """The Lagrangian SVM of Mangasarian & Musicant (2001) as an estimator.

    It solves their formulation (7) through its dual (11).  With
    ``kernel='linear'`` no ``m x m`` matrix is formed (Sherman-Morrison-Woodbury:
    millions of points are fine), and ``coef_ = w``, ``intercept_ = -gamma``.
    With another kernel it works with ``K(G, G')``, ``G = [X -e]``: the Newton
    solver with a kernel that is PSD by theory ('rbf', 'exponential', 'poly'
    with ``coef0 >= 0``) computes only the rows of the points that can be free,
    on demand and in a cache of ``cache_size`` MB (:func:`lsvm_kernel_columns`), and
    keeps the memory its last small problem was solved in for the next fit
    (:func:`free_kept_memory`); the fixed point, a callable, 'sigmoid' and
    'precomputed' use the whole ``m x m`` matrix.  The decision function is
    ``K([x' -1], G') D u``; for the linear kernel that is ``x'w - gamma``.

    Parameters
    ----------
    nu : float > 0 or None, default=None
        Weight of the squared slacks; None means ``1 / n_samples``.
    kernel : {'linear', 'poly', 'rbf', 'exponential', 'sigmoid', 'precomputed'} or callable, default='linear'
        Applied to the augmented points ``[x, -1]``.  With 'precomputed',
        ``fit`` takes ``K(G, G')`` and ``decision_function`` the block
        ``K([X -e], G')``.
    gamma : {'scale', 'auto'} or float > 0, default='scale'
        'scale' and 'auto' are resolved on ``X`` for the distance kernels ('rbf',
        'exponential'), whose values the appended -1 does not change, so that
        ``gamma='scale'`` means what it means for ``SVC``; and on the augmented
        data ``[X -e]`` for the inner-product kernels ('poly', 'sigmoid').
    degree : int >= 1, default=3
    coef0 : float, default=1.0
    solver : {'auto', 'newton', 'fixed-point'}, default='auto'
        'fixed-point' is the authors' iteration (15) (:func:`lsvm_linear`,
        :func:`lsvm_kernel`, their Codes 2 and 3), which converges linearly and
        the more slowly the larger ``nu``; 'newton' is the safeguarded active-set
        method (:func:`lsvm_linear_newton`, :func:`lsvm_kernel_newton`), which
        solves (11) exactly in a few steps at any ``nu``.  'auto' takes 'newton':
        it was as fast or faster in every setting the book measures (the
        chapters on the Newton solver and on choosing a method).  With
        ``kernel='linear'`` a Newton step is one pass over ``X`` plus an update
        of the ``(n+1) x (n+1)`` matrix ``H_F'H_F`` by the points that changed
        side; at 2,000,000 x 10 points the whole ``fit`` took a third of
        ``LinearSVC``'s time or less on the same problem (the chapter "LSVM at
        scale").
    alpha : float in (0, 2/nu) or None, default=None
        Step of the fixed-point iteration; None means ``1.9 / nu``.  Only
        'fixed-point' uses it.
    tol : float > 0 or None, default=None
        The solver's tolerance; None means its default (1e-5 for the fixed
        point, the authors' ``tol``; 1e-8 for Newton's sign test).
    max_iter : int or None, default=None
        The solver's ``itmax``; None means its default (100, the authors').
    cache_size : float > 0, default=200.0
        Megabytes of kernel rows kept by the Newton solver when it computes them
        on demand (as ``SVC``'s ``cache_size``); rows that do not fit are computed
        again when needed.

    Attributes
    ----------
    classes_, n_features_in_, X_fit_, support_vectors_
        As for every ``ksvm`` classifier (:mod:`ksvm.base`).
    u_ : ndarray of shape (n_samples,)
        The dual solution.
    support_ : ndarray of int
        The points with ``d_i f(x_i) < 1``: those with ``u_i > 0`` at the solution,
        where ``u_i = nu max(0, 1 - d_i f(x_i))``.  (The sign of an iterate ``u_``
        of the fixed point is no test: it has entries of the size of ``tol`` where
        the solution has 0.)
    dual_coef_ : ndarray of shape (1, n_SV)
        ``d_i u_i`` of the support vectors.
    coef_ : ndarray of shape (1, n_features)
        ``w`` (linear kernel only).
    intercept_ : ndarray of shape (1,)
        ``-gamma`` (linear kernel); 0 otherwise, the offset being inside the kernel.
    n_iter_ : int
    converged_ : bool
    nu_ : float
        The value used.
    alpha_ : float or None
        The step used by the fixed point (None with the Newton solver).
    solver_ : str
        'newton' or 'fixed-point'.
    n_kernel_rows_ : int or None
        Kernel values computed by the solver, in rows of ``n_samples`` values
        (``n_samples`` when the whole matrix is formed; None for the linear kernel).

    Raises
    ------
    ValueError
        From ``fit``: invalid data, not two classes, ``nu <= 0``, ``alpha``
        outside ``(0, 2/nu)``, or a kernel whose Gram matrix is not PSD.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> clf = LagrangianSVC(nu=100.0).fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[1.5], [2.5]]).tolist()
    ['a', 'b']
    >>> round(float(clf.coef_[0, 0]), 4), round(float(clf.intercept_[0]), 4), clf.n_iter_
    (0.9757, -1.9417, 2)
    """

    _parameters = {
        **BaseKernelClassifier._parameters,
        "nu": optional(check_positive),
        "solver": one_of("auto", "newton", "fixed-point"),
        "alpha": optional(check_positive),
        "tol": optional(check_positive),
        "max_iter": optional(lambda value, name: check_integer(value, name, minimum=1)),
        "cache_size": check_positive,
    }

    def __init__(
        self, *, nu=None, kernel="linear", gamma="scale", degree=3, coef0=1.0, solver="auto",
        alpha=None, tol=None, max_iter=None, cache_size=200.0,
    ):
        self.nu = nu
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.cache_size = cache_size

    def fit(self, X, y):
        """Solve the LSVM dual for ``X`` and two-class labels ``y``.

        ``X`` may be a Dask array chunked by rows (linear kernel only): see
        :func:`ksvm.lsvm_dask.fit`.

        Returns
        -------
        self : LagrangianSVC
        """
        if _on_dask(X):  # block by block on the cluster (ksvm.lsvm_dask)
            return _lsvm_dask().fit(self, X, y)
        p = self._validate_parameters()
        newton = p["solver"] in ("auto", "newton")
        if newton and p["alpha"] is not None:
            raise ValueError(
                f"alpha is the step of the fixed-point iteration; solver={p['solver']!r} uses "
                "the Newton method, which has none. Pass solver='fixed-point' to use alpha."
            )
        options = {"itmax": 100 if p["max_iter"] is None else p["max_iter"]}
        if p["tol"] is not None:
            options["tol"] = p["tol"]
        if not newton:
            options["alpha"] = p["alpha"]
        if self.kernel == "linear":
            X, y = validate_data(self, X, y, dtype=np.float64)
            d, self.classes_ = encode_binary_labels(y)
            self.X_fit_, self._gamma = X, None
            nu, alpha = _check_nu_alpha(p["nu"], p["alpha"], len(d))
            if newton:  # X and d are checked: call the loop, which returns the margins too
                tol = options.get("tol", 1e-8)  # lsvm_linear_newton's default
                result, margins = _linear_active_set(X, d, nu, options["itmax"], tol)
            else:
                result = lsvm_linear(X, d, nu, **options)
                margins = d * (X @ result.w - result.gamma)
        elif newton and self._psd_by_theory():
            # No m x m matrix: rows of K(G, G') on demand, for the points that can be free.
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=1)
            d, self.classes_ = encode_binary_labels(y)
            points = self._kernel_points(X)
            self._gamma = resolve_gamma(self.gamma, self._gamma_data(X, points)) \
                if self._uses_gamma() else None
            self.X_fit_ = X
            if self.kernel == "rbf":  # libsvm's formula, on X: the -1 of G cancels in ||g - h||
                columns = KernelColumns(RBFBlock(self._gamma, X), X, cache_size=p["cache_size"])
            else:
                columns = KernelColumns(self._kernel_function(), points,
                                        cache_size=p["cache_size"])
            nu, alpha = _check_nu_alpha(p["nu"], p["alpha"], len(d))
            result = lsvm_kernel_columns(columns, d, nu, **options)
            # The solution is exact (to the sign test's tol), so u_i > 0 exactly where
            # d_i f(x_i) < 1: no further pass over the kernel rows is needed.
            margins = np.where(result.u > 0, 0.0, 1.0)
            n_rows = round(result.kernel_values / len(d))
        else:
            K, d = self._fit_gram(X, y)  # K(G, G'), see _kernel_points
            self._check_kernel_psd(K, "LSVM needs a PSD kernel for (29)-(30) to have a solution.")
            nu, alpha = _check_nu_alpha(p["nu"], p["alpha"], len(d))
            solve = lsvm_kernel_newton if newton else lsvm_kernel
            result = solve(K, d, nu, **options)
            margins = d * (K @ (d * result.u))
            n_rows = len(d)
        # At the solution u_i = nu * max(0, 1 - d_i f(x_i)) (the slack, (9)), so the
        # support vectors are the points with d_i f(x_i) < 1.  A fixed-point iterate has
        # entries of the size of tol, of either sign, where the solution has 0: its sign
        # is no test.
        intercept = -result.gamma if self.kernel == "linear" else 0.0
        # With the linear kernel, prediction needs only coef_, and at nu = 1/m nearly
        # every point is a support vector: support_vectors_ is copied at its first use.
        self._set_solution(
            d * result.u, intercept, result.n_iter, result.converged,
            support=np.flatnonzero(margins < 1.0), coef=result.w, gather=self.kernel != "linear",
        )
        self.u_ = result.u
        self.n_kernel_rows_ = None if self.kernel == "linear" else n_rows
        self.nu_ = nu
        self.alpha_ = None if newton else alpha
        self.solver_ = "newton" if newton else "fixed-point"
        return self

    def _psd_by_theory(self):
        """A named kernel whose Gram matrix is PSD for every parameter value: the
        Newton solver then needs no Gram matrix (nor its PSD check)."""
        return self.kernel in _ALWAYS_PSD or (self.kernel == "poly" and self.coef0 >= 0)

    def decision_function(self, X):
        """As :meth:`BaseKernelClassifier.decision_function`; a Dask ``X`` gives a Dask array."""
        if _on_dask(X):  # scores chunked like X (ksvm.lsvm_dask)
            return _lsvm_dask().decision_function(self, X)
        return super().decision_function(X)

    def predict(self, X):
        """As :meth:`BaseKernelClassifier.predict`; a Dask ``X`` gives a Dask array."""
        if _on_dask(X):  # labels chunked like X (ksvm.lsvm_dask)
            return _lsvm_dask().predict(self, X)
        return super().predict(X)

    def _kernel_points(self, X):
        """The kernel compares the augmented points ``G = [X -e]`` (26)-(27)."""
        return augment(X)

    def _gamma_data(self, X, points):
        """``X`` for a distance kernel (the -1 cancels in ``||g - h||``), else ``[X -e]``."""
        return X if self.kernel in ("rbf", "exponential") else points


def _lsvm_dask():
    from . import lsvm_dask

    return lsvm_dask
