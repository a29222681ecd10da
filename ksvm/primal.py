"""The SVM in its primal forms, solved directly: for teaching and for checking SMO.

Two forms of the same problem (lecture notes):

* the quadratic program
  ``min 1/2 ||w||^2 + C sum_i xi_i  s.t.  y_i (w'x_i + b) >= 1 - xi_i, xi_i >= 0``
  (hard margin: ``C = inf``, no slack), solved by :func:`primal_qp` with a
  general-purpose solver;
* the unconstrained hinge form
  ``min 1/2 ||w||^2 + C sum_i max(0, 1 - y_i (w'x_i + b))``, solved by
  :func:`primal_hinge` through a smoothed hinge and L-BFGS.

Both work on explicit features ``X`` (use :func:`ksvm.polynomial_map.polynomial_feature_map`
for a polynomial kernel): their cost grows with the number of features and,
for the QP, with the cube of ``n + d``, so they are meant for small problems.
For anything larger use :func:`ksvm.smo.smo`.

The hard-margin problem has a solution exactly when the data are separable,
which one linear program decides: :func:`is_linearly_separable`.
"""

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog, minimize

from ._validation import check_C, check_matrix_labels, check_positive, check_positive_integer

__all__ = [
    "PrimalResult",
    "is_linearly_separable",
    "primal_hinge",
    "primal_objective",
    "primal_qp",
    "smoothed_hinge",
]


@dataclass
class PrimalResult:
    """A primal solution ``(w, b)``.

    Attributes
    ----------
    w : ndarray of shape (n_features,)
    b : float
    xi : ndarray of shape (n_samples,)
        The slacks ``max(0, 1 - y_i (w'x_i + b))`` at the solution.
    objective : float
        ``1/2 ||w||^2 + C sum_i xi_i`` (the hinge objective; with ``C = inf``
        just ``1/2 ||w||^2``).
    n_iter : int
        Iterations of the underlying solver (summed over the smoothing stages
        for :func:`primal_hinge`).
    """

    w: np.ndarray
    b: float
    xi: np.ndarray
    objective: float
    n_iter: int


def primal_objective(w, b, X, y, C):
    """``1/2 ||w||^2 + C sum_i max(0, 1 - y_i (w'x_i + b))`` (y in {-1, +1}).

    With ``C = inf`` this is ``1/2 ||w||^2`` if every margin is at least 1
    (up to 1e-9) and ``inf`` otherwise.

    Examples
    --------
    >>> primal_objective(np.array([1.0]), 0.0, np.array([[2.0], [-0.5]]), np.array([1, -1]), 1.0)
    1.0
    """
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    hinge = np.maximum(0.0, 1.0 - np.asarray(y) * (X @ w + b))
    if np.isinf(C):
        return 0.5 * float(w @ w) if hinge.max() <= 1e-9 else np.inf
    return float(0.5 * w @ w + C * hinge.sum())


def _check(X, y, C, tol, max_iter):
    X, y_pm = check_matrix_labels(X, y)
    return (
        X,
        y_pm,
        check_C(C, "C"),
        check_positive(tol, "tol"),
        check_positive_integer(max_iter, "max_iter"),
    )


def primal_qp(X, y, C=1.0, *, tol=1e-14, max_iter=1000):
    """Solve the primal QP of the (soft- or hard-margin) linear SVM.

    The variables are ``(w, b, xi)``; the constraints
    ``y_i (w'x_i + b) + xi_i >= 1`` and ``xi >= 0`` are handed with their
    exact Jacobians to SciPy's SLSQP.  SLSQP solves a dense least-squares
    subproblem in all ``d + 1 + n`` variables at every step, so this is for a
    few hundred points at most.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two classes (the second in sort order is +1).
    C : float > 0 or numpy.inf, default=1.0
        ``numpy.inf`` solves the hard-margin problem (no slack variables);
        it has a solution only if the classes are linearly separable.
    tol : float > 0, default=1e-14
        SLSQP's ``ftol``, on the objective divided by ``C n``.
    max_iter : int >= 1, default=1000

    Returns
    -------
    result : PrimalResult

    Raises
    ------
    ValueError
        On invalid input, or if SLSQP fails (for the hard margin this
        usually means the data are not separable).

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> r = primal_qp(X, [-1, -1, 1, 1], C=np.inf)
    >>> round(float(r.w[0]), 6), round(r.b, 6)
    (1.0, -2.0)
    """
    X, y, C, tol, max_iter = _check(X, y, C, tol, max_iter)
    n, d = X.shape
    hard = np.isinf(C)
    m = d + 1 + (0 if hard else n)
    Y_X = y[:, None] * X

    # SLSQP's line search fails on the raw objective when C n is large (seen at
    # C = 10, n = 200); the objective divided by C n has the same minimiser.
    scale = 1.0 if hard else 1.0 / max(1.0, C * n)

    def objective(z):
        w = z[:d]
        return scale * (0.5 * w @ w + (0.0 if hard else C * z[d + 1 :].sum()))

    def gradient(z):
        g = np.zeros(m)
        g[:d] = z[:d]
        if not hard:
            g[d + 1 :] = C
        return scale * g

    # y_i (w'x_i + b) + xi_i - 1 >= 0, linear in z: A z - 1 >= 0
    A = np.hstack([Y_X, y[:, None]] + ([] if hard else [np.eye(n)]))
    constraints = [{"type": "ineq", "fun": lambda z: A @ z - 1.0, "jac": lambda z: A}]
    bounds = [(None, None)] * (d + 1) + ([] if hard else [(0.0, None)] * n)
    z0 = np.zeros(m)
    if not hard:
        z0[d + 1 :] = 1.0  # w = 0, b = 0, xi = 1 is feasible
    result = minimize(
        objective,
        z0,
        jac=gradient,
        method="SLSQP",
        bounds=bounds,
        constraints=constraints,
        options={"ftol": tol, "maxiter": max_iter},
    )
    if not result.success:
        hint = " (with C = inf: are the classes linearly separable?)" if hard else ""
        raise ValueError(f"SLSQP did not solve the primal QP: {result.message}{hint}")
    w, b = result.x[:d], float(result.x[d])
    xi = np.maximum(0.0, 1.0 - y * (X @ w + b))
    return PrimalResult(
        w=w, b=b, xi=xi, objective=primal_objective(w, b, X, y, C), n_iter=int(result.nit)
    )


def smoothed_hinge(z, mu):
    """Value and derivative of the hinge max(0, 1 - z) with its corner rounded.

    Quadratic on (1 - mu, 1), linear below, zero above; it differs from the
    hinge by at most mu / 2 and its derivative is (1 / mu)-Lipschitz.

    Parameters
    ----------
    z : ndarray
        The margins ``y_i (w'x_i + b)``.
    mu : float > 0
        The width of the rounded band.

    Returns
    -------
    value, slope : ndarray
        The smoothed hinge and its derivative in ``z``, entrywise.

    Examples
    --------
    >>> smoothed_hinge(np.array([-1.0, 0.95, 2.0]), 0.1)
    (array([1.95  , 0.0125, 0.    ]), array([-1. , -0.5, -0. ]))
    """
    u = 1.0 - z
    value = np.where(u >= mu, u - mu / 2, np.where(u > 0, u * u / (2 * mu), 0.0))
    slope = -np.clip(u / mu, 0.0, 1.0)  # d value / d z
    return value, slope


def primal_hinge(X, y, C=1.0, *, mu_final=1e-7, tol=1e-10, max_iter=10000):
    """Minimise the hinge form of the linear SVM without constraints.

    The hinge ``max(0, 1 - y_i (w'x_i + b))`` has a corner where the gradient
    jumps, which defeats quasi-Newton methods.  Here it is replaced by a
    smoothed hinge that is quadratic on a band of width ``mu`` below the
    corner; that objective is smooth and L-BFGS minimises it.  The band is
    narrowed by factors of 10 from ``mu = 1`` to ``mu_final``, each stage
    started from the previous answer (continuation).  Since the smoothed
    hinge is within ``mu / 2`` of the hinge, the final objective is within
    ``C n mu_final / 2`` of the true optimum (plus L-BFGS's tolerance).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    C : float > 0, default=1.0
        (The hard margin has no hinge form: use :func:`primal_qp`.)
    mu_final : float > 0, default=1e-7
    tol : float > 0, default=1e-10
        L-BFGS's gradient tolerance at each stage.
    max_iter : int >= 1, default=10000
        L-BFGS iterations per stage.

    Returns
    -------
    result : PrimalResult
        ``objective`` is the true (unsmoothed) hinge objective at ``(w, b)``.

    Raises
    ------
    ValueError
        On invalid input or ``C = inf``.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> r = primal_hinge(X, [-1, -1, 1, 1], C=10.0)
    >>> round(float(r.w[0]), 5), round(r.b, 5)
    (1.0, -2.0)
    """
    X, y, C, tol, max_iter = _check(X, y, C, tol, max_iter)
    if np.isinf(C):
        raise ValueError("The hinge form needs a finite C; for the hard margin use primal_qp.")
    mu_final = check_positive(mu_final, "mu_final")
    n, d = X.shape
    Y_X1 = y[:, None] * np.hstack([X, np.ones((n, 1))])  # rows y_i (x_i, 1)

    def fun(z, mu):
        value, slope = smoothed_hinge(Y_X1 @ z, mu)
        w = z[:d]
        grad = C * (Y_X1.T @ slope)
        grad[:d] += w
        return 0.5 * w @ w + C * value.sum(), grad

    z = np.zeros(d + 1)
    n_iter, mu = 0, 1.0
    while True:
        result = minimize(
            fun,
            z,
            args=(mu,),
            jac=True,
            method="L-BFGS-B",
            options={"gtol": tol, "ftol": 1e-15, "maxiter": max_iter, "maxcor": 30},
        )
        z, n_iter = result.x, n_iter + int(result.nit)
        if mu <= mu_final:
            break
        mu = max(mu / 10, mu_final)
    w, b = z[:d], float(z[d])
    xi = np.maximum(0.0, 1.0 - y * (X @ w + b))
    return PrimalResult(w=w, b=b, xi=xi, objective=primal_objective(w, b, X, y, C), n_iter=n_iter)


def is_linearly_separable(X, y):
    """Decide by linear programming whether a hyperplane separates two classes.

    The classes are strictly separable exactly when some ``(w, b)`` has
    ``y_i (w'x_i + b) >= 1`` for every i (scale any strict separator until
    its smallest margin is 1), a feasibility problem that
    :func:`scipy.optimize.linprog` decides.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two class labels.

    Returns
    -------
    separable : bool

    Raises
    ------
    ValueError
        On invalid data or labels that are not exactly two classes.

    Examples
    --------
    >>> is_linearly_separable([[0.0], [1.0]], [-1, 1])
    True
    >>> is_linearly_separable([[0.0], [1.0], [2.0]], [-1, 1, -1])
    False
    """
    X, y_pm = check_matrix_labels(X, y)
    n, d = X.shape
    # Variables (w, b): constraints -y_i (x_i'w + b) <= -1, zero objective.
    A_ub = -y_pm[:, None] * np.hstack([X, np.ones((n, 1))])
    result = linprog(
        np.zeros(d + 1),
        A_ub=A_ub,
        b_ub=-np.ones(n),
        bounds=[(None, None)] * (d + 1),
        method="highs",
    )
    return bool(result.status == 0)
