"""Regularized least-squares classification (RLSC) with a kernel, after Rennie (2003).

RLSC fits the labels ``y`` in {-1, +1} by least squares with a ridge penalty.
With the weights written on the examples, ``w = X'c`` and ``K = XX'``, it
minimises Rennie's (6),

.. math::

    L(c, b) = (Kc + b\\mathbf 1 - y)'(Kc + b\\mathbf 1 - y) + \\lambda\\, c'Kc .

Setting the derivative in ``c`` to zero gives Rennie's (7),
``(K + lambda I) c + b 1 = y`` (after cancelling a factor ``K``); setting the
derivative in ``b`` to zero and using (7) gives the missing equation
``1'c = 0``.  Together they form the bordered system

.. math::

    \\begin{bmatrix} K + \\lambda I & \\mathbf 1 \\\\ \\mathbf 1' & 0 \\end{bmatrix}
    \\begin{bmatrix} c \\\\ b \\end{bmatrix} =
    \\begin{bmatrix} y \\\\ 0 \\end{bmatrix},

which is symmetric but indefinite.  Both solvers here eliminate ``b``: with
``M = K + lambda I`` (positive definite when ``K`` is PSD), solve
``M eta = y`` and ``M nu = 1``; then ``b = 1'eta / 1'nu`` and
``c = eta - b nu``.  :func:`rlsc_direct` solves the two systems with one
Cholesky factorisation, :func:`rlsc_cg` with conjugate gradients (Rennie's
suggestion, after Rifkin), both right-hand sides at once.

References
----------
Rennie, J. D. M. (2003), Kernelizing linear classifiers, section 2.
Rifkin, R. (2002), Everything old is new again, PhD thesis, MIT, chapter 3.
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._validation import (
    check_gram_labels,
    check_positive,
    check_positive_integer,
    one_of,
    optional,
)
from .base import BaseKernelClassifier, ExampleWeightsClassifier
from .linalg import cholesky, cholesky_solve

__all__ = [
    "RLSCResult",
    "RLSClassifier",
    "bordered_system",
    "conjugate_gradient",
    "eliminate_bias",
    "rlsc_cg",
    "rlsc_direct",
    "rlsc_objective",
]


@dataclass
class RLSCResult:
    """What :func:`rlsc_direct` and :func:`rlsc_cg` return.

    Attributes
    ----------
    c : ndarray of shape (n,)
        The weights on the examples; ``f(x) = sum_i c_i k(x_i, x) + b``.
    b : float
        The bias.
    n_iter : int
        Conjugate-gradient iterations (1 for the direct solver: one factorisation).
    converged : bool
    history : ndarray of shape (n_iter + 1, 2) or None
        CG only, if asked for: the relative residuals ``||r_k|| / ||rhs||`` of
        the two systems ``M eta = y`` and ``M nu = 1`` at every iteration.
    """

    c: np.ndarray
    b: float
    n_iter: int = 1
    converged: bool = True
    history: np.ndarray = field(default=None, repr=False)


def bordered_system(K, y, lam):
    """The ``(n+1) x (n+1)`` system of the RLSC optimality conditions.

    Parameters
    ----------
    K : array-like of shape (n, n)
        The Gram matrix.
    y : array-like of shape (n,)
        The labels; any two classes, the second in sort order is +1.
    lam : float > 0
        Rennie's ``lambda``.

    Returns
    -------
    A : ndarray of shape (n + 1, n + 1)
        ``[[K + lam I, 1], [1', 0]]``.
    rhs : ndarray of shape (n + 1,)
        ``[y; 0]``; the solution of ``A [c; b] = rhs`` minimises (6).

    Examples
    --------
    >>> A, rhs = bordered_system(np.eye(2), [-1, 1], lam=1.0)
    >>> A
    array([[2., 0., 1.],
           [0., 2., 1.],
           [1., 1., 0.]])
    >>> rhs
    array([-1.,  1.,  0.])
    """
    K, y_pm = check_gram_labels(K, y)
    lam = check_positive(lam, "lam")
    n = K.shape[0]
    A = np.zeros((n + 1, n + 1))
    A[:n, :n] = K
    A[np.arange(n), np.arange(n)] += lam
    A[:n, n] = A[n, :n] = 1.0
    return A, np.append(y_pm, 0.0)


def rlsc_objective(K, y, lam, c, b):
    """Rennie's (6): ``||Kc + b 1 - y||^2 + lam c'Kc``.

    Parameters
    ----------
    K, y, lam
        As in :func:`bordered_system`.
    c : array-like of shape (n,)
    b : float

    Returns
    -------
    value : float
    """
    K, y_pm = check_gram_labels(K, y)
    lam = check_positive(lam, "lam")
    c = np.asarray(c, dtype=np.float64)
    Kc = K @ c
    r = Kc + b - y_pm
    return float(r @ r + lam * c @ Kc)


def eliminate_bias(eta, nu, u=None):
    """Solve the bordered system ``M c + u b = r``, ``u'c = 0`` from two solves with ``M``.

    Given ``eta = M^{-1} r`` and ``nu = M^{-1} u``, the second equation fixes
    ``b = u'eta / u'nu`` and then ``c = eta - b nu``.  RLSC has ``u = 1``
    (:func:`rlsc_direct`); one Newton step of kernel logistic regression has
    ``u = D^{1/2} 1`` (:func:`ksvm.rlr.rlr_newton`).

    Parameters
    ----------
    eta, nu : ndarray of shape (n,)
    u : ndarray of shape (n,) or None, default=None
        None means the vector of ones.

    Returns
    -------
    c : ndarray of shape (n,)
    b : float

    Examples
    --------
    >>> M = np.array([[2.0, 0.0], [0.0, 4.0]])  # M c + 1 b = [1, 1], c1 + c2 = 0
    >>> c, b = eliminate_bias(np.linalg.solve(M, [1.0, 1.0]), np.linalg.solve(M, [1.0, 1.0]))
    >>> c, b
    (array([0., 0.]), 1.0)
    """
    b = (eta.sum() / nu.sum()) if u is None else (u @ eta) / (u @ nu)
    return eta - b * nu, float(b)


def rlsc_direct(K, y, lam):
    """Solve the RLSC bordered system by one Cholesky factorisation of ``K + lam I``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A positive semi-definite Gram matrix.
    y : array-like of shape (n,)
        The labels; any two classes, the second in sort order is +1.
    lam : float > 0

    Returns
    -------
    result : RLSCResult

    Raises
    ------
    ValueError
        If ``K`` is not square and finite, ``y`` is not two classes of the right
        length, ``lam <= 0``, or ``K + lam I`` is not positive definite.

    Notes
    -----
    ``O(n^3 / 3)`` for the factorisation and ``O(n^2)`` for the two solves;
    ``8 n^2`` bytes for the factor.

    Examples
    --------
    >>> r = rlsc_direct(np.eye(3), [-1, 1, 1], lam=1.0)
    >>> np.round(r.c, 4), round(r.b, 4)
    (array([-0.6667,  0.3333,  0.3333]), 0.3333)
    """
    K, y_pm = check_gram_labels(K, y)
    lam = check_positive(lam, "lam")
    M = K.copy()
    M[np.diag_indices_from(M)] += lam
    factor = cholesky(M, "K + lam I", overwrite=True)
    sol = cholesky_solve(factor, np.column_stack([y_pm, np.ones_like(y_pm)]))
    c, b = eliminate_bias(sol[:, 0], sol[:, 1])
    return RLSCResult(c=c, b=b)


def conjugate_gradient(matvec, B, tol=1e-10, max_iter=None, return_history=False):
    """Conjugate gradients for ``M X = B``, ``M`` symmetric positive definite, column by column.

    The columns of ``B`` are solved together (one product ``M @ P`` per
    iteration for all of them) but each has its own step lengths; a column
    stops changing once its relative residual ``||r|| / ||b||`` is at most
    ``tol``.

    Parameters
    ----------
    matvec : callable
        ``matvec(P)`` returns ``M @ P`` for an ``(n, k)`` array ``P``.
    B : ndarray of shape (n, k)
        The right-hand sides.
    tol : float > 0, default=1e-10
    max_iter : int or None, default=None
        None means ``10 n``.  (In exact arithmetic CG ends in ``n`` steps.)
    return_history : bool, default=False
        Also return the relative residuals at every iteration.

    Returns
    -------
    X : ndarray of shape (n, k)
    n_iter : int
    converged : bool
    history : ndarray of shape (n_iter + 1, k)
        Only if ``return_history``.

    Raises
    ------
    numpy.linalg.LinAlgError
        If a search direction ``p`` has ``p'Mp <= 0``: ``M`` is not positive definite.

    Examples
    --------
    >>> M = np.array([[4.0, 1.0], [1.0, 3.0]])
    >>> X, n_iter, ok = conjugate_gradient(lambda P: M @ P, np.eye(2))
    >>> np.allclose(X, np.linalg.inv(M)), n_iter, ok
    (True, 2, True)
    """
    B = np.asarray(B, dtype=np.float64)
    n, k = B.shape
    max_iter = 10 * n if max_iter is None else max_iter
    X = np.zeros((n, k))
    R = B.copy()
    P = R.copy()
    rr = np.einsum("ij,ij->j", R, R)
    scale = np.sqrt(rr)
    scale[scale == 0] = 1.0
    active = np.sqrt(rr) > tol * scale
    history = [np.sqrt(rr) / scale]
    it = 0
    while active.any() and it < max_iter:
        MP = matvec(P)
        pMp = np.einsum("ij,ij->j", P, MP)
        if np.any(pMp[active] <= 0):
            raise np.linalg.LinAlgError(
                "M is not positive definite: p'Mp <= 0 for a search direction."
            )
        step = np.where(active, rr / np.where(active, pMp, 1.0), 0.0)  # (rr_k / p'Mp)
        X += step * P
        R -= step * MP
        rr_new = np.einsum("ij,ij->j", R, R)
        P = R + np.where(active, rr_new / np.where(active, rr, 1.0), 0.0) * P
        rr = rr_new
        active &= np.sqrt(rr) > tol * scale
        it += 1
        history.append(np.sqrt(rr) / scale)
    converged = not active.any()
    if return_history:
        return X, it, converged, np.array(history)
    return X, it, converged


def rlsc_cg(K, y, lam, tol=1e-10, max_iter=None, return_history=False):
    """Solve the RLSC bordered system by conjugate gradients on ``K + lam I``.

    Parameters
    ----------
    K, y, lam
        As in :func:`rlsc_direct`.
    tol : float > 0, default=1e-10
        Relative residual at which each of the two CG solves stops.  The error
        in ``c`` is at most about ``kappa * tol`` relative, with
        ``kappa = (lambda_max(K) + lam) / lam``.
    max_iter : int >= 1 or None, default=None
        None means ``10 n``.
    return_history : bool, default=False
        Keep the relative residuals per iteration in ``result.history``.

    Returns
    -------
    result : RLSCResult

    Raises
    ------
    ValueError
        As :func:`rlsc_direct`; ``K + lam I`` is found not positive definite
        when CG meets a direction of non-positive curvature.

    Warns
    -----
    ConvergenceWarning
        If ``max_iter`` is reached first.

    Notes
    -----
    One product with ``K`` (for both right-hand sides) per iteration:
    ``O(n^2)``; the number of iterations grows like ``sqrt(kappa)``.

    Examples
    --------
    >>> r = rlsc_cg(np.eye(3), [-1, 1, 1], lam=1.0)
    >>> np.round(r.c, 4), round(r.b, 4), r.n_iter
    (array([-0.6667,  0.3333,  0.3333]), 0.3333, 1)
    """
    K, y_pm = check_gram_labels(K, y)
    lam = check_positive(lam, "lam")
    tol = check_positive(tol, "tol")
    max_iter = optional(check_positive_integer)(max_iter, "max_iter")
    B = np.column_stack([y_pm, np.ones_like(y_pm)])
    try:
        out = conjugate_gradient(
            lambda P: K @ P + lam * P, B, tol=tol, max_iter=max_iter, return_history=return_history
        )
    except np.linalg.LinAlgError as exc:
        raise ValueError(
            "K + lam I is not positive definite: the kernel matrix is not positive "
            "semi-definite (check it with ksvm.check_mercer)."
        ) from exc
    sol, n_iter, converged = out[:3]
    if not converged:
        warnings.warn(
            f"Conjugate gradients stopped at max_iter={n_iter} before the relative residual "
            f"reached tol={tol:g}; raise max_iter or lam (the iteration count grows like "
            "sqrt((lambda_max(K) + lam) / lam)), or use the direct solver (solver='direct').",
            ConvergenceWarning,
            stacklevel=2,
        )
    c, b = eliminate_bias(sol[:, 0], sol[:, 1])
    return RLSCResult(
        c=c,
        b=b,
        n_iter=n_iter,
        converged=converged,
        history=out[3] if return_history else None,
    )


class RLSClassifier(ExampleWeightsClassifier):
    """Regularized least-squares classification with a kernel (Rennie's (5)-(7)).

    Minimises ``||Kc + b 1 - y||^2 + lam c'Kc`` with ``y`` in {-1, +1}; the
    decision function is ``f(x) = sum_i c_i k(x_i, x) + b``.  With the
    linear kernel this is ridge regression on the labels, scikit-learn's
    ``Ridge(alpha=lam)`` with an intercept.

    Parameters
    ----------
    lam : float > 0, default=1.0
        Rennie's ``lambda``, the weight of the penalty ``c'Kc = ||w||^2``.
    kernel : {'linear', 'poly', 'rbf', 'exponential', 'sigmoid', 'precomputed'} or callable
        The kernel (:func:`ksvm.kernels.make_kernel`), 'rbf' by default.
    gamma : {'scale', 'auto'} or float > 0, default='scale'
    degree : int >= 1, default=3
    coef0 : float, default=1.0
    solver : {'direct', 'cg'}, default='direct'
        Cholesky factorisation (:func:`rlsc_direct`) or conjugate gradients
        (:func:`rlsc_cg`).
    tol : float > 0, default=1e-10
        Relative residual of the CG solves (unused by 'direct').
    max_iter : int or None, default=None
        CG iterations; None means ``10 n_samples``.

    Attributes
    ----------
    classes_, n_features_in_, support_, support_vectors_
        As for every ``ksvm`` classifier (:mod:`ksvm.base`); every training
        point is a support vector.
    dual_coef_ : ndarray of shape (1, n_samples)
        The weights ``c``: every training point carries one (no sparsity).
    intercept_ : ndarray of shape (1,)
        The bias ``b``.
    coef_ : ndarray of shape (1, n_features)
        ``w = X'c``, with the linear kernel only.
    n_iter_ : int
        CG iterations; 1 for 'direct' (one factorisation).
    converged_ : bool

    Raises
    ------
    ValueError
        From ``fit``: invalid data or hyper-parameters, not exactly two classes,
        or a kernel whose Gram matrix is not positive semi-definite.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> clf = RLSClassifier(lam=0.1, kernel="linear").fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[1.5], [2.5]]).tolist()
    ['a', 'b']
    >>> np.round(clf.coef_, 4), np.round(clf.intercept_, 4)
    (array([[0.5941]]), array([-1.1881]))
    """

    _parameters = {
        **BaseKernelClassifier._parameters,
        "lam": check_positive,
        "solver": one_of("direct", "cg"),
        "tol": check_positive,
        "max_iter": optional(check_positive_integer),
    }

    def __init__(
        self,
        *,
        lam=1.0,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=1.0,
        solver="direct",
        tol=1e-10,
        max_iter=None,
    ):
        self.lam = lam
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter

    _psd_reason = "RLSC needs a PSD kernel for (6) to be convex."

    def _solve(self, K, y_pm, params):
        """Solve the bordered system (7) for the Gram matrix ``K``."""
        if params["solver"] == "direct":
            result = rlsc_direct(K, y_pm, params["lam"])
        else:
            result = rlsc_cg(K, y_pm, params["lam"], tol=params["tol"], max_iter=params["max_iter"])
        return self._example_weights(result.c, result.b, result.n_iter, result.converged)
