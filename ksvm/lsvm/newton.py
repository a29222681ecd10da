"""The active-set (semismooth Newton) method for the LSVM dual: block principal pivoting.

Each step solves ``M_FF u_F = 1_F`` on a guessed free set ``F`` and moves every
index on the wrong side; Judice & Pires' safeguard (Murty's single pivots when
the count of wrong signs stops falling) makes the number of steps finite.
:func:`active_set` is the general loop; :func:`lsvm_linear_newton` takes the same
steps for the linear kernel in one pass over ``X`` a step, and
:func:`lsvm_kernel_newton` on a Gram matrix.

The letters are the book's (:mod:`ksvm.lsvm`): the equation numbers are
Mangasarian & Musicant's, whose ``A``, ``D``, ``e``, ``Q`` are ``X``, ``Y``, ``1``,
``M`` here and whose plane ``(w, gamma)`` is ``(w, -b)``; ``u`` is the book's ``alpha``.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..linalg import cholesky, cholesky_solve, smw_gram_factor
from .problem import (
    LSVMResult,
    _check_kernel_problem,
    _check_linear_problem,
    _dask_path,
    dual_matrix,
)

__all__ = ["active_set", "lsvm_kernel_newton", "lsvm_linear_newton"]


class _Pivoting:
    """Judice & Pires' safeguard for the block pivots of the active-set solvers.

    :meth:`block_step` says whether every wrong index may change side (a block
    step) or only one (Murty's single pivot): block steps while the count of
    wrong signs sets a new record, or within ``patience`` steps of the last one;
    :meth:`pivot` applies it to the wrong indices of an in-memory solver.
    """

    def __init__(self, n, patience):
        self.best, self.patience, self.chances = n + 1, patience, patience

    def block_step(self, count):
        if count < self.best:  # a new record
            self.best, self.chances = count, self.patience
            return True
        if self.chances > 0:  # no record, but still some patience
            self.chances -= 1
            return True
        return False

    def pivot(self, infeasible):
        """The count of wrong signs in ``infeasible``, which is cut to Murty's single
        pivot (in place) where a block step is not allowed."""
        count = int(infeasible.sum())
        if count and not self.block_step(count):
            _murty(infeasible)
        return count


def _murty(infeasible):
    """Murty's single pivot: keep only the largest wrong index (in place)."""
    last = np.flatnonzero(infeasible)[-1]
    infeasible[:] = False
    infeasible[last] = True


def _warn_active_set(it, count, tol, where=""):
    """``count`` is None when no step was taken (max_iter=0)."""
    state = (
        "at max_iter=0, before its first step"
        if count is None
        else f"after {it} iterations with {count} indices still on the wrong side (tol={tol:g})"
    )
    warnings.warn(
        f"The LSVM active-set (Newton) solver{where} stopped {state}; raise max_iter or "
        "tol, or use solver='fixed-point'.",
        ConvergenceWarning,
        stacklevel=4,
    )


def active_set(solve_free, M_times, n, max_iter, tol, return_history=False, free=None, patience=3):
    """Block principal pivoting for ``min_{u>=0} u'Mu/2 - 1'u``, i.e. for the LCP (12).

    With ``g = Mu - 1`` the KKT conditions (12) read ``u >= 0, g >= 0, u'g = 0``.
    Each step guesses the free set ``F``, sets ``u = 0`` off ``F`` and solves
    ``M_FF u_F = 1_F`` (so ``g_F = 0``).  The guess is right when no index is
    infeasible, that is no ``u_i < 0`` in ``F`` and no ``g_i < 0`` off ``F``.
    Otherwise every infeasible index changes side: this is the primal-dual
    active-set step, Newton's method for the piecewise-linear equation
    ``min(u, Mu - 1) = 0`` (Hintermueller, Ito & Kunisch 2002).  On its own it can
    cycle; Judice & Pires (1994) keep it finite by counting the infeasible
    indices: after ``patience`` steps without a new lowest count, only the
    infeasible index with the largest number changes side (Murty's rule, finite
    for any positive definite ``M``) until the count drops below its record.

    ``solve_free(free)`` returns ``u_F``; ``M_times(u, free)`` returns ``Mu``
    for a ``u`` that is zero off ``free`` (only its entries off ``free`` are
    read).  A sign counts as infeasible beyond ``tol * max(1, max u)``, so at
    the end (12) holds to that tolerance.
    :func:`lsvm_kernel_newton` supplies the two functions for its ``M`` (and
    :func:`lsvm_kernel_columns` for a working set's); :func:`lsvm_linear_newton`
    takes the same steps in a loop of its own, which needs one pass over ``X``
    per step.

    Parameters
    ----------
    solve_free, M_times : callable
    n : int
        The number of unknowns (of training points).
    max_iter : int
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
        ``w`` and ``b`` are None.

    Warns
    -----
    ConvergenceWarning
        If some index is still on the wrong side after ``max_iter`` steps.

    Examples
    --------
    >>> M = np.array([[2.0, -1.0], [-1.0, 2.0]])  # free set {0, 1}: M u = 1
    >>> r = active_set(lambda F: np.linalg.solve(M[np.ix_(F, F)], np.ones(F.sum())),
    ...                lambda u, F: M @ u, 2, max_iter=10, tol=1e-12)
    >>> r.u, r.n_iter, r.converged
    (array([1., 1.]), 1, True)
    """
    free = np.ones(n, dtype=bool) if free is None else free.copy()
    u = np.zeros(n)
    history = []
    pivoting = _Pivoting(n, patience)
    it, opt, converged, count = 0, np.inf, False, None
    while it < max_iter:
        u_new = np.zeros(n)
        if free.any():
            u_new[free] = solve_free(free)
        g = M_times(u_new, free) - 1.0
        opt = float(np.linalg.norm(u_new - u))
        u = u_new
        it += 1
        if return_history:
            history.append(opt)
        threshold = tol * max(1.0, float(u.max()))
        infeasible = np.where(free, u < -threshold, g < -threshold)
        count = pivoting.pivot(infeasible)
        if count == 0:
            converged = True
            break
        free ^= infeasible
    if converged:
        u = np.maximum(u, 0.0)  # entries of at most the threshold's size below 0
    else:
        _warn_active_set(it, count, tol)
    return LSVMResult(
        n_iter=it,
        opt=opt,
        u=u,
        converged=converged,
        history=np.array(history) if return_history else None,
    )


#: Rows of ``X`` per block in the passes of :func:`lsvm_linear_newton`: with ten features a
#: block is 640 KB and a block of a vector 64 KB, which stay in a core's cache from one
#: operation to the next (on the book's machine 8192 rows took half the time of 65536).
_BLOCK_ROWS = 8192


def _free_gram(X, y, rows=None):
    """``H_F'H_F`` and ``H_F'1_F`` for ``H = Y [X  1]`` and the rows ``F`` of ``rows``.

    The labels square away in ``H_F'H_F = [X_F'X_F, X_F'1; 1'X_F, |F|]``, and
    ``H_F'1_F = [X_F'y_F; 1'y_F]``.  ``rows`` is None (every row), a boolean mask of
    length ``n`` (read block by block, so that only a block's free rows are copied) or
    an array of row numbers.  Returns ``(HtH, Ht1)``, new arrays.
    """
    n, d = X.shape
    HtH, Ht1 = np.zeros((d + 1, d + 1)), np.zeros(d + 1)

    def add(XF, yF):
        HtH[:d, :d] += XF.T @ XF  # numpy's syrk for a.T @ a
        s = XF.T @ np.ones(XF.shape[0])  # a product: much faster than XF.sum(axis=0)
        HtH[:d, d] += s
        HtH[d, :d] += s
        HtH[d, d] += XF.shape[0]
        Ht1[:d] += XF.T @ yF
        Ht1[d] += yF.sum()

    if rows is not None and rows.dtype != bool:
        add(X[rows], y[rows])
        return HtH, Ht1
    for start in range(0, n, _BLOCK_ROWS):
        block = slice(start, start + _BLOCK_ROWS)
        if rows is None:
            add(X[block], y[block])
        else:
            mask = rows[block]
            add(X[block][mask], y[block][mask])
    return HtH, Ht1


def _linear_active_set(X, y, nu, max_iter, tol, return_history=False, patience=3):
    """:func:`active_set` for ``M = I/nu + HH'``, ``H = Y [X  1]``, with ``H_F'H_F`` updated.

    The same steps as ``active_set(solve_free, M_times, ...)`` with the functions of
    Sherman-Morrison-Woodbury, written out for the linear kernel, because here a step
    can be done in one pass over ``X`` instead of three and a copy of ``X_F``:

    * ``(I/nu + H_F'H_F) v = H_F'1_F`` gives ``u_F = nu (1_F - H_F v)`` (SMW, as in
      :func:`ksvm.linalg.smw_solve`), and then ``H'u = v`` exactly, so ``Mu - 1 = u/nu + Hv - 1``:
      the sign test needs only the margins ``Hv``, one product with ``X``;
    * the ``(d+1) x (d+1)`` matrix ``H_F'H_F`` and the vector ``H_F'1_F`` are kept from
      step to step, and only the rows that change side are added or subtracted;
      they are rebuilt from the free rows when that reads fewer rows, and always
      before the answer is accepted, so the final solve is the from-scratch one.

    Returns the :class:`LSVMResult` (with ``w``, ``b``) and the margins ``Hv``.
    """
    n, d = X.shape
    free = np.ones(n, dtype=bool)  # the first step is Code 2's start u^0 = M^{-1} 1
    HtH_all, Ht1_all = _free_gram(X, y)
    # exact: summed over F's rows; HtH is never written to
    HtH, Ht1, exact = HtH_all, Ht1_all, True

    def solve(HtH, Ht1):
        if not free.any():
            return np.zeros(d + 1)
        return cholesky_solve(smw_gram_factor(HtH, nu, "I/nu + H_F'H_F"), Ht1)

    # One pass over X per step, block by block, so that the vectors of a block are still
    # in cache when the next operation reads them: t = Hv, the new u, and in `wrong` the
    # value whose sign is tested (u_i in F, (Mu - 1)_i = t_i - 1 off F).
    t, u, u_new, wrong = np.empty(n), np.zeros(n), np.empty(n), np.empty(n)

    def signs(v):  # fills t, u_new, wrong; returns the threshold and ||u_new - u||^2
        top, step = 0.0, 0.0
        for start in range(0, n, _BLOCK_ROWS):
            block = slice(start, start + _BLOCK_ROWS)
            tb, ub, fb = t[block], u_new[block], free[block]
            np.matmul(X[block], v[:d], out=tb)
            tb += v[d]
            tb *= y[block]  # t = Y (X w + 1 b) = Hv
            np.subtract(1.0, tb, out=ub)
            ub *= nu
            ub *= fb  # u_F = nu (1_F - H_F v), 0 off F
            np.subtract(tb, 1.0, out=wrong[block])
            np.copyto(wrong[block], ub, where=fb)
            top = max(top, float(ub.max()))
            diff = ub - u[block]
            step += float(diff @ diff)
        return tol * max(1.0, top), step

    history = []
    pivoting = _Pivoting(n, patience)
    it, opt, converged, count = 0, np.inf, False, None
    v = np.zeros(d + 1)  # (w, b) before the first step, with u = 0
    while it < max_iter:
        v = solve(HtH, Ht1)
        threshold, step = signs(v)
        infeasible = wrong < -threshold
        if not exact and not infeasible.any():  # accept only a from-scratch solve
            HtH, Ht1, exact = *_free_gram(X, y, free), True
            v = solve(HtH, Ht1)
            threshold, step = signs(v)
            infeasible = wrong < -threshold
        opt = float(np.sqrt(step))
        u, u_new = u_new, u
        it += 1
        if return_history:
            history.append(opt)
        count = pivoting.pivot(infeasible)
        if count == 0:
            converged = True
            break
        leaving = np.flatnonzero(infeasible & free)
        free ^= infeasible
        entering = np.flatnonzero(infeasible & free)
        HtH, Ht1, exact = _next_free_gram(
            X, y, (HtH, Ht1), (HtH_all, Ht1_all), free, entering, leaving, count
        )
    if converged:
        u, v = _clipped(X, y, u, v)
    else:
        _warn_active_set(it, count, tol)
    # w = X'Yu and b = 1'Yu (9) are H'u = v: no further pass over X (the clipped
    # entries above are a few rows)
    result = LSVMResult(
        n_iter=it,
        opt=opt,
        u=u,
        w=v[:d].copy(),
        b=float(v[d]),
        converged=converged,
        history=np.array(history) if return_history else None,
    )
    return result, t


def _next_free_gram(X, y, last, whole, free, entering, leaving, count):
    """``(H_F'H_F, H_F'1_F, exact)`` for the new free set ``free`` of
    :func:`_linear_active_set`, the cheapest of three ways: the sums of the last free
    set (``last``) updated by the rows ``entering`` and ``leaving`` it, the sums over the
    free rows, or the sums over every row (``whole``) less those over the rows off ``F``.
    ``count`` is the step's count of wrong signs; ``exact`` says the sums were taken over
    the rows of ``F`` alone."""
    n = len(free)
    n_free = int(free.sum())
    if count <= min(n_free, n - n_free):
        HtH_in, Ht1_in = _free_gram(X, y, entering)
        HtH_out, Ht1_out = _free_gram(X, y, leaving)
        return last[0] + (HtH_in - HtH_out), last[1] + (Ht1_in - Ht1_out), False
    if n_free <= n - n_free:
        return *_free_gram(X, y, free), True
    HtH_off, Ht1_off = _free_gram(X, y, ~free)
    return whole[0] - HtH_off, whole[1] - Ht1_off, False


def _clipped(X, y, u, v):
    """``max(u, 0)`` and its plane ``H'max(u, 0)`` from the plane ``v = H'u``: the entries
    below 0 (of at most the sign test's threshold) are few, and their share of ``v`` is
    taken out of it row by row, with no pass over ``X``."""
    d = X.shape[1]
    neg = np.flatnonzero(u < 0)
    if neg.size:
        yu = y[neg] * u[neg]
        v = v.copy()
        v[:d] -= X[neg].T @ yu
        v[d] -= yu.sum()
    return np.maximum(u, 0.0), v


def lsvm_linear_newton(X, y, nu=None, max_iter=100, tol=1e-8, *, return_history=False):
    """LSVM for a linear classifier by an active-set (semismooth Newton) method.

    Solves the same dual (11) as :func:`lsvm_linear`, exactly rather than by
    the fixed-point iteration (15): each step solves ``M_FF u_F = 1_F`` on a
    guessed free set ``F``, by Sherman-Morrison-Woodbury with the rows of ``X``
    in ``F``.  Every index on the wrong side (``u_i < 0`` in ``F``, or
    ``(Mu - 1)_i < 0`` outside it) then changes side, which is a semismooth
    Newton step for ``min(u, Mu - 1) = 0``; if three such steps in a row fail
    to lower the number of wrong indices below its record, only the last wrong
    index changes side (Judice & Pires' block principal pivoting, with
    Murty's rule as the safeguard), so the method ends after finitely many
    steps.  The first step is Code 2's start ``u^0 = M^{-1} 1``.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The training points, one per row.
    y : array-like of shape (n,)
        Two class labels; the second in sort order is +1.
    nu : float > 0 or None, default=None
        None means ``1 / n``.
    max_iter : int, default=100
    tol : float > 0, default=1e-8
        A sign is wrong beyond ``tol * max(1, max u)``; at the end ``u >= 0``
        (entries within that size below 0 are set to 0) and ``Mu - 1`` is at
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
        If some index is still on the wrong side after ``max_iter`` steps.

    Notes
    -----
    With ``v = (I/nu + H_F'H_F)^{-1} H_F'1_F`` the step's solution is
    ``u_F = nu (1_F - H_F v)``, and ``H'u = v``: ``v`` is the plane ``(w, b)``
    of the step, and the signs to test are those of the margins ``Hv``.  A step
    therefore costs one product with ``X`` (``2nd`` operations) and an
    ``(d+1) x (d+1)`` factorisation, plus ``O(k d^2)`` for the ``k`` rows that
    changed side, by which ``H_F'H_F`` is updated rather than recomputed; before
    the answer is accepted it is rebuilt from the free rows.  The number of steps
    does not grow with ``nu`` as the fixed-point iteration's does.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> r = lsvm_linear_newton(X, [-1, -1, 1, 1], nu=100.0)
    >>> round(float(r.w[0]), 4), round(r.b, 4), r.n_iter
    (0.9757, -1.9417, 2)
    """
    dask_path = _dask_path(X)
    if dask_path is not None:  # a Dask array chunked by rows: the same method block by block
        return dask_path.lsvm_linear_newton(X, y, nu, max_iter, tol, return_history=return_history)
    X, y, nu, _, max_iter, tol = _check_linear_problem(X, y, nu, None, max_iter, tol)
    # H = Y [X  1] is never formed (as in lsvm_linear), nor a copy of the free rows X_F.
    return _linear_active_set(X, y, nu, max_iter, tol, return_history)[0]


#: Above this many points, lsvm_kernel_newton first solves a random half of the problem.
_WARM_START_SIZE = 500


def lsvm_kernel_newton(
    KM,
    y,
    nu=None,
    max_iter=100,
    tol=1e-8,
    *,
    warm_start=True,
    return_history=False,
):
    """LSVM with a kernel by an active-set (semismooth Newton) method.

    Solves the dual (11) of :func:`lsvm_kernel` exactly: each step factors
    the block ``M_FF = I/nu + Y_F K_FF Y_F`` of the guessed free set (Cholesky)
    and solves ``M_FF u_F = 1_F``; the free set changes as in
    :func:`lsvm_linear_newton` (block principal pivoting with Murty's rule as
    the safeguard, so the number of steps is finite).

    Parameters
    ----------
    KM : array-like of shape (n, n)
        The Gram matrix of the augmented points ``[x_i  1]``, the rows of
        ``augment(X) = [X  1]`` (the book's ``K-tilde``).
    y : array-like of shape (n,)
        The labels; any two classes.
    nu, max_iter, tol, return_history
        As in :func:`lsvm_linear_newton`.
    warm_start : bool, default=True
        For more than 500 points, first solve the problem of a random half of
        them (recursively, with a fixed seed), and start from the free set its
        solution predicts: ``u_i - g_i > 0`` with ``u`` the half's solution
        (0 on the other half) and ``g = Mu - 1``.  The answer does not change,
        since the pivoting ends at the unique solution from any start; the
        first factorisations shrink from ``n x n`` to about the number of
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
        If some index is still on the wrong side after ``max_iter`` steps.

    Notes
    -----
    A step costs ``O(|F|^3 / 3)``: the free set holds the support vectors, so
    the cost follows their number, not ``nu``.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> X1 = np.hstack([X, np.ones((4, 1))])
    >>> r = lsvm_kernel_newton(X1 @ X1.T, [-1, -1, 1, 1], nu=100.0)
    >>> np.round(r.u, 4) + 0.0, r.n_iter
    (array([0.    , 3.4004, 1.4587, 0.    ]), 2)
    """
    KM, y, nu, _, max_iter, tol = _check_kernel_problem(KM, y, nu, None, max_iter, tol)
    n = KM.shape[0]

    def solve_free(free):
        MF = dual_matrix(KM[np.ix_(free, free)], y[free], nu)
        factor = cholesky(MF, "M = I/nu + YKY", overwrite=True)
        return cholesky_solve(factor, np.ones(MF.shape[0]))

    def M_times(u, free):  # only the columns of the free set
        return u / nu + y * (KM[:, free] @ (y * u)[free])

    free = None
    if warm_start and n > _WARM_START_SIZE:
        # Solve for a random half first (recursively), and start from the free set
        # its solution predicts for every point: u_S on the half, 0 elsewhere.
        half = np.sort(np.random.default_rng(0).permutation(n)[: n // 2])
        sub = lsvm_kernel_newton(KM[np.ix_(half, half)], y[half], nu, max_iter, tol)
        u0 = np.zeros(n)
        u0[half] = sub.u
        support = u0 > 0
        free = u0 - (M_times(u0, support) - 1.0) > 0
    return active_set(solve_free, M_times, n, max_iter, tol, return_history, free=free)
