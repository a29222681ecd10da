"""The fixed-point iteration (15) of the LSVM: the authors' Codes 2 and 3.

``u = M^{-1}(1 + ((Mu - 1) - eta u)_+)`` converges linearly for
``0 < eta < 2 / nu`` (their Algorithm 1).  :func:`lsvm_linear` follows
Code 2: ``M^{-1}`` by the Sherman-Morrison-Woodbury identity, so only a
``(d+1) x (d+1)`` system is factored and no ``n x n`` object is ever formed;
:func:`lsvm_kernel` follows Code 3: ``M = I/nu + Y K-tilde Y`` factored once by
Cholesky.  Both stop at ``tol``, at ``max_iter``, or at the rounding floor of the
iteration (:func:`_iterate`).

The letters are the book's (:mod:`ksvm.lsvm`): the equation and code numbers are
Mangasarian & Musicant's, whose ``A``, ``D``, ``e``, ``Q`` and step ``alpha`` are
``X``, ``Y``, ``1``, ``M`` and ``eta`` here, whose ``G = [A  -e]`` is ``[X  1]`` and
whose plane ``(w, gamma)`` is ``(w, -b)``; ``u`` is the book's ``alpha``.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..linalg import cholesky, cholesky_solve, smw_factor, smw_solve
from .problem import (
    LSVMResult,
    _check_kernel_problem,
    _check_linear_problem,
    _dask_path,
    dual_matrix,
)

__all__ = ["lsvm_kernel", "lsvm_linear"]


def _warn_max_iter(max_iter, opt, tol):
    warnings.warn(
        f"LSVM stopped at max_iter={max_iter} with ||u^(i+1) - u^i|| = {opt:.3g} > "
        f"tol={tol:g}; raise max_iter or tol, or use the active-set Newton solver "
        "(lsvm_linear_newton, lsvm_kernel_newton; solver='newton' or 'auto' in "
        "LagrangianSVC).  Convergence is linear, and slower the larger nu is; the "
        "step eta changes the rate too (the LSVM chapters measure both).",
        ConvergenceWarning,
        stacklevel=4,
    )


_SQRT_EPS = float(np.sqrt(np.finfo(np.float64).eps))
#: Steps without a new lowest ``||u^{i+1} - u^i||`` after which the iteration has stalled.
_STALL_PATIENCE = 10


def _iterate(step, u, max_iter, tol, return_history):
    """Run ``u <- step(u)`` until ``||u^{i+1} - u^i|| <= tol``, the rounding floor, or ``max_iter``.

    The map is a contraction, so ``||u^{i+1} - u^i||`` falls geometrically until
    rounding decides its size: a few times ``eps ||u||`` to ``100 eps ||u||`` on the
    book's problems, depending on the machine's summation order.  A ``tol`` below
    that can never be met; the iteration then stops when the step has not set a
    new lowest value for ``_STALL_PATIENCE`` steps while below ``sqrt(eps) ||u||``.
    """
    history = []
    it, opt, best, since_best, at_floor = 0, np.inf, np.inf, 0, False
    while it < max_iter:
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
        _warn_max_iter(max_iter, opt, tol)
    return LSVMResult(
        n_iter=it,
        opt=opt,
        u=u,
        converged=converged,
        at_floor=at_floor,
        history=np.array(history) if return_history else None,
    )


def lsvm_linear(X, y, nu=None, max_iter=100, tol=1e-5, *, eta=None, return_history=False):
    """LSVM for a linear classifier, Code 2 of Mangasarian & Musicant (2001).

    Parameters
    ----------
    X : array-like of shape (n, d)
        The training points, one per row.
    y : array-like of shape (n,)
        The labels; any two classes, the second
        in sort order is +1.
    nu : float > 0 or None, default=None
        Weight of the squared slacks; None means ``1 / n`` (the authors' default).
    max_iter : int, default=100
    tol : float > 0, default=1e-5
        Stop when ``||u^{i+1} - u^i|| <= tol`` (``u`` is the book's ``alpha``).
    eta : float in (0, 2/nu) or None, default=None
        Step of the iteration; None means ``1.9 / nu``.
    return_history : bool, default=False
        Keep ``||u^{i+1} - u^i||`` per iteration.

    Returns
    -------
    result : LSVMResult
        With ``w`` and ``b``: classify ``x`` by ``sign(x'w + b)``.

    Raises
    ------
    ValueError
        On invalid data, labels that are not two classes, ``nu <= 0``, or
        ``eta`` outside ``(0, 2/nu)``.

    Warns
    -----
    ConvergenceWarning
        If ``max_iter`` is reached first.

    Notes
    -----
    The Sherman-Morrison-Woodbury identity gives
    ``M^{-1} = nu (I - H (I/nu + H'H)^{-1} H')`` for the dual's matrix
    ``M = I/nu + HH'`` and ``H = Y[X  1]``.  The
    ``(d+1) x (d+1)`` matrix ``I/nu + H'H`` is factored once (Cholesky); Code 2
    inverts it.  Memory beyond ``X``: a handful of vectors of length ``n``.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> r = lsvm_linear(X, [-1, -1, 1, 1], nu=100.0, tol=1e-10, max_iter=1000)
    >>> round(float(r.w[0]), 4), round(r.b, 4)
    (0.9757, -1.9417)
    """
    dask_path = _dask_path(X)
    if dask_path is not None:  # a Dask array chunked by rows: Code 2 block by block
        return dask_path.lsvm_linear(
            X, y, nu, max_iter, tol, eta=eta, return_history=return_history
        )
    X, y, nu, eta, max_iter, tol = _check_linear_problem(X, y, nu, eta, max_iter, tol)
    n = X.shape[0]

    factor = smw_factor(X, nu)  # Code 2 inverts this (d+1) x (d+1) matrix
    Mu = np.ones(n)  # M u^0 = 1 for u^0 = M^{-1} 1, Code 2's start

    def step(u):
        # u^{i+1} = M^{-1} z with z = 1 + ((M u^i - 1) - eta u^i)_+, and then M u^{i+1} = z
        nonlocal Mu
        Mu = 1.0 + np.maximum((Mu - 1.0) - eta * u, 0.0)
        return smw_solve(X, y, nu, factor, Mu)

    # u^0 is handed over, not kept here: the loop holds one u at a time.
    result = _iterate(step, smw_solve(X, y, nu, factor, np.ones(n)), max_iter, tol, return_history)
    Yu = y * result.u
    result.w, result.b = X.T @ Yu, float(Yu.sum())
    return result


def lsvm_kernel(KM, y, nu=None, max_iter=100, tol=1e-5, *, eta=None, return_history=False):
    """LSVM with a kernel, Code 3 of Mangasarian & Musicant (2001).

    Parameters
    ----------
    KM : array-like of shape (n, n)
        The Gram matrix of the augmented points ``[x_i  1]`` (the book's
        ``K-tilde``): the kernel evaluated on the rows of ``augment(X) = [X  1]``,
        the data with a column of ones appended (see :class:`LagrangianSVC`, which
        builds it).
    y : array-like of shape (n,)
        The labels; any two classes.
    nu, max_iter, tol, eta, return_history
        As in :func:`lsvm_linear`.

    Returns
    -------
    result : LSVMResult
        ``w`` and ``b`` are None; classify ``x`` by the sign of
        ``sum_i u_i y_i k([x  1], [x_i  1])``.

    Raises
    ------
    ValueError
        As :func:`lsvm_linear`, and if ``KM`` is not square or ``M`` is not
        positive definite (a kernel that is far from PSD).

    Warns
    -----
    ConvergenceWarning
        If ``max_iter`` is reached first.

    Notes
    -----
    The dual's matrix ``M = I/nu + Y KM Y`` is factored once
    by Cholesky (Code 3 inverts it), so each iteration costs two triangular solves
    and a product with ``M``: ``O(n^2)`` time and ``8 n^2`` bytes for ``M``.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> X1 = np.hstack([X, np.ones((4, 1))])
    >>> r = lsvm_kernel(X1 @ X1.T, [-1, -1, 1, 1], nu=100.0, tol=1e-10, max_iter=1000)
    >>> np.round(r.u, 4) + 0.0
    array([0.    , 3.4004, 1.4587, 0.    ])
    """
    KM, y, nu, eta, max_iter, tol = _check_kernel_problem(KM, y, nu, eta, max_iter, tol)
    n = KM.shape[0]
    M = dual_matrix(KM, y, nu)
    factor = cholesky(M, "M = I/nu + YKY")  # Code 3 inverts M

    def step(u):  # (15)
        return cholesky_solve(factor, 1.0 + np.maximum(M @ u - 1.0 - eta * u, 0.0))

    u0 = cholesky_solve(factor, np.ones(n))  # u^0 = M^{-1} 1
    return _iterate(step, u0, max_iter, tol, return_history)
