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
steps stays small however large ``nu`` is.  Newton's free-set updates can
cycle; Judice & Pires' safeguard (Murty's single pivots when the count of
wrong signs stops falling) makes the number of steps finite.

References
----------
Mangasarian, O. L. and Musicant, D. R. (2001), Lagrangian Support Vector
Machines, JMLR 1, 161-177, sections 3 and 4.

Hintermueller, M., Ito, K. and Kunisch, K. (2002), The primal-dual active set
strategy as a semismooth Newton method, SIAM J. Optim. 13(3), 865-888.

Judice, J. J. and Pires, F. M. (1994), A block principal pivoting algorithm for
large-scale strictly monotone linear complementarity problems, Computers &
Operations Research 21(5), 587-596.
"""

import sys
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import cho_solve
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
from .base import BaseKernelClassifier
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
    """

    n_iter: int
    opt: float
    u: np.ndarray
    w: np.ndarray = None
    gamma: float = None
    converged: bool = True
    at_floor: bool = False
    history: np.ndarray = field(default=None, repr=False)


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
    for a ``u`` that is zero off ``free``.  A sign counts as infeasible beyond
    ``tol * max(1, max u)``, so at the end (12) holds to that tolerance.
    :func:`lsvm_linear_newton` and :func:`lsvm_kernel_newton` supply the two
    functions for their ``Q``.

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
    best, chances = m + 1, patience
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
        if count < best:  # a new record: block step
            best, chances = count, patience
        elif chances > 0:  # no record, but still some patience: block step
            chances -= 1
        else:  # Murty's single pivot on the largest infeasible index
            last = np.flatnonzero(infeasible)[-1]
            infeasible[:] = False
            infeasible[last] = True
        free ^= infeasible
    if converged:
        u = np.maximum(u, 0.0)  # entries of at most the threshold's size below 0
    else:
        warnings.warn(
            f"The LSVM active-set (Newton) solver stopped after {it} iterations with "
            f"{count} indices still on the wrong side (tol={tol:g}); raise itmax (max_iter "
            "of LagrangianSVC) or tol, or use solver='fixed-point'.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return LSVMResult(
        n_iter=it, opt=opt, u=u, converged=converged,
        history=np.array(history) if return_history else None,
    )


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
    One step costs ``O(|F| n^2)`` for ``H_F'H_F`` plus an ``(n+1) x (n+1)``
    factorisation; the number of steps does not grow with ``nu`` as the
    fixed-point iteration's does.

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
    # H = D [A  -e] is never formed (as in lsvm_linear): [A  -e] would copy A, and its
    # free rows another time per step.  Only the free rows of A are copied, once a step.

    def solve_free(free):  # (I/nu + H_F H_F')^{-1} e_F by Sherman-Morrison-Woodbury
        AF, dF = (A, dd) if free.all() else (A[free], dd[free])  # all free at the start
        return smw_solve(AF, dF, nu, smw_factor(AF, nu), np.ones(AF.shape[0]))

    def Q_times(u, free):  # u/nu + H(H'u); u is zero off free: no copy of A
        du = dd * u
        return u / nu + dd * (A @ (A.T @ du) + du.sum())

    result = active_set(solve_free, Q_times, m, itmax, tol, return_history)
    du = dd * result.u
    result.w, result.gamma = A.T @ du, float(-du.sum())
    return result


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


class LagrangianSVC(BaseKernelClassifier):
    """The Lagrangian SVM of Mangasarian & Musicant (2001) as an estimator.

    It solves their formulation (7) through its dual (11).  With
    ``kernel='linear'`` no ``m x m`` matrix is formed (Sherman-Morrison-Woodbury:
    millions of points are fine), and ``coef_ = w``, ``intercept_ = -gamma``.
    With any other kernel it builds ``K(G, G')`` with ``G = [X -e]`` (``m x m``
    memory).  The decision function is ``K([x' -1], G') D u``; for the linear
    kernel that is ``x'w - gamma``.

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
        chapters on the Newton solver and on choosing a method).
    alpha : float in (0, 2/nu) or None, default=None
        Step of the fixed-point iteration; None means ``1.9 / nu``.  Only
        'fixed-point' uses it.
    tol : float > 0 or None, default=None
        The solver's tolerance; None means its default (1e-5 for the fixed
        point, the authors' ``tol``; 1e-8 for Newton's sign test).
    max_iter : int or None, default=None
        The solver's ``itmax``; None means its default (100, the authors').

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
    }

    def __init__(
        self, *, nu=None, kernel="linear", gamma="scale", degree=3, coef0=1.0, solver="auto",
        alpha=None, tol=None, max_iter=None,
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
            solve = lsvm_linear_newton if newton else lsvm_linear
            result = solve(X, d, nu, **options)
            margins = d * (X @ result.w - result.gamma)
        else:
            K, d = self._fit_gram(X, y)  # K(G, G'), see _kernel_points
            self._check_kernel_psd(K, "LSVM needs a PSD kernel for (29)-(30) to have a solution.")
            nu, alpha = _check_nu_alpha(p["nu"], p["alpha"], len(d))
            solve = lsvm_kernel_newton if newton else lsvm_kernel
            result = solve(K, d, nu, **options)
            margins = d * (K @ (d * result.u))
        # At the solution u_i = nu * max(0, 1 - d_i f(x_i)) (the slack, (9)), so the
        # support vectors are the points with d_i f(x_i) < 1.  A fixed-point iterate has
        # entries of the size of tol, of either sign, where the solution has 0: its sign
        # is no test.
        intercept = -result.gamma if self.kernel == "linear" else 0.0
        self._set_solution(
            d * result.u, intercept, result.n_iter, result.converged,
            support=np.flatnonzero(margins < 1.0), coef=result.w,
        )
        self.u_ = result.u
        self.nu_ = nu
        self.alpha_ = None if newton else alpha
        self.solver_ = "newton" if newton else "fixed-point"
        return self

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
