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

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import (
    check_gram,
    check_gram_labels,
    check_integer,
    check_matrix,
    check_positive,
    encode_binary_labels,
)
from .base import BaseKernelClassifier

__all__ = [
    "LSVMResult",
    "lsvm_linear",
    "lsvm_kernel",
    "lsvm_linear_newton",
    "lsvm_kernel_newton",
    "LagrangianSVC",
]


@dataclass
class LSVMResult:
    """What :func:`lsvm_linear` and :func:`lsvm_kernel` return.

    Attributes
    ----------
    it : int
        Iterations made (Code 2's ``it``).
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

    it: int
    opt: float
    u: np.ndarray
    w: np.ndarray = None
    gamma: float = None
    converged: bool = True
    at_floor: bool = False
    history: np.ndarray = field(default=None, repr=False)


_SQRT_EPS = float(np.sqrt(np.finfo(np.float64).eps))


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
        "raise itmax or tol.  Convergence is linear, and slower the larger nu is; the "
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
        it=it, opt=opt, u=u, converged=converged, at_floor=at_floor,
        history=np.array(history) if return_history else None,
    )


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
    A = check_matrix(A, "A")
    dd, _ = encode_binary_labels(d)
    m, n = A.shape
    if dd.shape[0] != m:
        raise ValueError(f"A has {m} rows but d has {dd.shape[0]} labels.")
    nu, alpha = _check_nu_alpha(nu, alpha, m)
    itmax, tol = _check_itmax_tol(itmax, tol)

    # Products with H = D [A  -e] without forming it.
    def Ht(v):  # H'v, length n + 1
        dv = dd * v
        return np.append(A.T @ dv, -dv.sum())

    def H(p):  # H p, length m
        return dd * (A @ p[:n] - p[n])

    Hte = Ht(np.ones(m))
    M = A.T @ A  # H'H = [A'A, -A'e; -e'A, m]: the labels square away
    col = -A.sum(axis=0)
    M = np.block([[M, col[:, None]], [col[None, :], np.array([[float(m)]])]])
    M[np.diag_indices(n + 1)] += 1.0 / nu
    factor = cho_factor(M)

    def Q_inv(z, Htz):  # Sherman-Morrison-Woodbury, given H'z
        return nu * (z - H(cho_solve(factor, Htz, check_finite=False)))

    e = np.ones(m)
    Qu = e.copy()  # Q u^0 = e for u^0 = Q^{-1} e, Code 2's start

    def step(u):
        # u^{i+1} = Q^{-1} z with z = e + ((Q u^i - e) - alpha u^i)_+, and then Q u^{i+1} = z
        nonlocal Qu
        Qu = 1.0 + np.maximum((Qu - 1.0) - alpha * u, 0.0)
        return Q_inv(Qu, Ht(Qu))

    # u^0 is handed over, not kept here: the loop holds one u at a time.
    result = _iterate(step, Q_inv(e, Hte), itmax, tol, return_history)
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
    KM = check_gram(KM, name="KM")
    dd, _ = encode_binary_labels(d)
    m = KM.shape[0]
    if dd.shape[0] != m:
        raise ValueError(f"KM is {m} x {m} but d has {dd.shape[0]} labels.")
    nu, alpha = _check_nu_alpha(nu, alpha, m)
    itmax, tol = _check_itmax_tol(itmax, tol)
    Q = dd[:, None] * KM * dd[None, :]
    Q[np.diag_indices(m)] += 1.0 / nu
    try:
        factor = cho_factor(Q)
    except np.linalg.LinAlgError as exc:
        raise ValueError(
            "Q = I/nu + D K D is not positive definite: the kernel matrix is not PSD "
            "(check it with ksvm.check_mercer)."
        ) from exc
    e = np.ones(m)
    def step(u):  # (15)
        return cho_solve(factor, 1.0 + np.maximum(Q @ u - 1.0 - alpha * u, 0.0), check_finite=False)

    return _iterate(step, cho_solve(factor, e), itmax, tol, return_history)  # u^0 = Q^{-1} e


def _active_set(solve_free, Q_times, m, itmax, tol, return_history, free=None, patience=3):
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
            f"{count} indices still on the wrong side (tol={tol:g}); raise itmax, or use "
            "solver='fixed-point'.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return it, opt, u, converged, (np.array(history) if return_history else None)


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
    >>> round(float(r.w[0]), 4), round(r.gamma, 4), r.it
    (0.9757, 1.9417, 2)
    """
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
        col = -AF.sum(axis=0)
        M = np.empty((n + 1, n + 1))  # H_F'H_F = [A_F'A_F, -A_F'e; -e'A_F, |F|]
        M[:n, :n] = AF.T @ AF
        M[:n, n] = M[n, :n] = col
        M[n, n] = AF.shape[0]
        M[np.diag_indices(n + 1)] += 1.0 / nu
        HtE = np.append(AF.T @ dF, -dF.sum())  # H_F' e_F
        p = cho_solve(cho_factor(M), HtE, check_finite=False)
        return nu * (1.0 - dF * (AF @ p[:n] - p[n]))

    def Q_times(u, free):  # u is zero off free: one pass over A, no copy
        du = dd * u
        return u / nu + dd * (A @ (A.T @ du) + du.sum())

    it, opt, u, converged, history = _active_set(solve_free, Q_times, m, itmax, tol, return_history)
    du = dd * u
    return LSVMResult(
        it=it, opt=opt, u=u, w=A.T @ du, gamma=float(-du.sum()), converged=converged,
        history=history,
    )


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
        support vectors.  ``it`` counts the steps on the whole problem only.

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
    >>> np.round(r.u, 4) + 0.0, r.it
    (array([0.    , 3.4004, 1.4587, 0.    ]), 2)
    """
    KM, dd = check_gram_labels(KM, d, names=("KM", "d"))
    m = KM.shape[0]
    nu, _ = _check_nu_alpha(nu, None, m)
    itmax, tol = _check_itmax_tol(itmax, tol)

    def solve_free(free):
        dF = dd[free]
        QF = dF[:, None] * KM[np.ix_(free, free)] * dF[None, :]
        QF[np.diag_indices_from(QF)] += 1.0 / nu
        try:
            factor = cho_factor(QF, overwrite_a=True)
        except np.linalg.LinAlgError as exc:
            raise ValueError(
                "Q = I/nu + D K D is not positive definite: the kernel matrix is not PSD "
                "(check it with ksvm.check_mercer)."
            ) from exc
        return cho_solve(factor, np.ones(len(dF)), check_finite=False)

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
    it, opt, u, converged, history = _active_set(
        solve_free, Q_times, m, itmax, tol, return_history, free=free,
    )
    return LSVMResult(it=it, opt=opt, u=u, converged=converged, history=history)


def _augment(X):
    """``[X  -e]``: the data with a column of -1, Mangasarian & Musicant's G."""
    return np.hstack([X, -np.ones((X.shape[0], 1))])


class LagrangianSVC(BaseKernelClassifier):
    """The Lagrangian SVM of Mangasarian & Musicant (2001) as an estimator.

    With ``kernel='linear'`` it runs :func:`lsvm_linear` (Sherman-Morrison-
    Woodbury: millions of points are fine) and exposes ``coef_`` and
    ``intercept_`` (``intercept_ = -gamma``).  With any other kernel it builds
    ``K(G, G')`` with ``G = [X -e]`` and runs :func:`lsvm_kernel` (``m x m``
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
    alpha : float in (0, 2/nu) or None, default=None
        None means ``1.9 / nu``.
    tol : float > 0, default=1e-5
    max_iter : int, default=100
        Code 2's ``itmax``.
    solver : {'fixed-point', 'newton'}, default='fixed-point'
        The authors' iteration (15) (:func:`lsvm_linear`, :func:`lsvm_kernel`)
        or the safeguarded active-set Newton method (:func:`lsvm_linear_newton`,
        :func:`lsvm_kernel_newton`), which solves (11) exactly in a few steps
        at any ``nu``; ``alpha`` is then unused, and ``tol`` is the Newton
        solver's (its default there is 1e-8: pass ``tol=1e-8`` for the same).
        Prefer 'newton' with a nonlinear kernel or a large ``nu``; the fixed
        point is the paper's algorithm and is cheapest for a linear kernel at
        small ``nu``.

    Attributes
    ----------
    classes_, n_features_in_, X_fit_
        As for every ``ksvm`` classifier.
    u_ : ndarray of shape (n_samples,)
        The dual solution.
    support_ : ndarray of int
        The points with ``d_i f(x_i) < 1``: those with ``u_i > 0`` at the solution,
        where ``u_i = nu max(0, 1 - d_i f(x_i))``.  (The sign of the iterate ``u_``
        is no test: it has entries of the size of ``tol`` where the solution has 0.)
    dual_coef_ : ndarray of shape (1, n_SV)
        ``d_i u_i`` of the support vectors.
    coef_ : ndarray of shape (1, n_features)
        ``w`` (linear kernel only).
    intercept_ : ndarray of shape (1,)
        ``-gamma`` (linear kernel); 0 otherwise, the offset being inside the kernel.
    n_iter_ : int
    nu_, alpha_ : float
        The values used.

    Raises
    ------
    ValueError
        From ``fit``: invalid data, not two classes, ``nu <= 0``, ``alpha``
        outside ``(0, 2/nu)``, or a kernel whose Gram matrix fails
        :func:`ksvm.check_mercer`.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> clf = LagrangianSVC(nu=100.0, tol=1e-10, max_iter=1000).fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[1.5], [2.5]]).tolist()
    ['a', 'b']
    >>> round(float(clf.coef_[0, 0]), 4), round(float(clf.intercept_[0]), 4)
    (0.9757, -1.9417)
    """

    def __init__(
        self, nu=None, kernel="linear", gamma="scale", degree=3, coef0=1.0, alpha=None, tol=1e-5,
        max_iter=100, solver="fixed-point",
    ):
        self.nu = nu
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver

    def fit(self, X, y):
        """Solve the LSVM dual for ``X`` and two-class labels ``y``.

        Returns
        -------
        self : LagrangianSVC
        """
        if self.solver not in ("fixed-point", "newton"):
            raise ValueError(f"solver must be 'fixed-point' or 'newton', got {self.solver!r}.")
        newton = self.solver == "newton"
        if self.kernel == "linear":
            X, y = validate_data(self, X, y, dtype=np.float64)
            d, self.classes_ = encode_binary_labels(y)
            self.X_fit_, self._gamma = X, None
            if newton:
                result = lsvm_linear_newton(X, d, self.nu, self.max_iter, self.tol)
            else:
                result = lsvm_linear(X, d, self.nu, self.max_iter, self.tol, alpha=self.alpha)
            self.coef_ = result.w[None, :]
            self.intercept_ = np.array([-result.gamma])
            margins = d * (X @ result.w - result.gamma)
        else:
            K, d = self._fit_gram(X, y)  # K(G, G'), see _kernel_points
            self._check_kernel_psd(K, "LSVM needs a PSD kernel for (29)-(30) to have a solution.")
            if newton:
                result = lsvm_kernel_newton(K, d, self.nu, self.max_iter, self.tol)
            else:
                result = lsvm_kernel(K, d, self.nu, self.max_iter, self.tol, alpha=self.alpha)
            self.intercept_ = np.array([0.0])
            margins = d * (K @ (d * result.u))
        m = len(d)
        self.nu_, self.alpha_ = _check_nu_alpha(self.nu, self.alpha, m)
        self.u_ = result.u
        # At the solution u_i = nu * max(0, 1 - d_i f(x_i)) (the slack, (9)), so the
        # support vectors are the points with d_i f(x_i) < 1.  The iterate itself
        # has entries of the size of tol, of either sign, where the solution has 0:
        # its sign is no test.
        self.support_ = np.flatnonzero(margins < 1.0)
        self.dual_coef_ = (d * result.u)[self.support_][None, :]
        self.n_iter_ = result.it
        return self

    def _kernel_points(self, X):
        """The kernel compares the augmented points ``G = [X -e]`` (26)-(27)."""
        return _augment(X)

    def _gamma_data(self, X, points):
        """``X`` for a distance kernel (the -1 cancels in ``||g - h||``), else ``[X -e]``."""
        return X if self.kernel in ("rbf", "exponential") else points

    def decision_function(self, X):
        """``K([x' -1], G') D u`` (``x'w - gamma`` for the linear kernel); positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Or the block ``K([X -e], G')`` of shape (n_samples, n_train) if
            ``kernel='precomputed'``.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "u_")
        if self.kernel == "linear":
            X = validate_data(self, X, dtype=np.float64, reset=False)
            return X @ self.coef_[0] + self.intercept_[0]
        K = self._test_gram(X, columns=self.support_)  # K([X -e], G_support')
        return K @ self.dual_coef_[0]
