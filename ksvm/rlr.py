"""Regularized logistic regression (RLR) with a kernel, after Rennie (2003).

With ``g(z) = 1 / (1 + e^{-z})``, labels ``y`` in {-1, +1}, ``Y = diag(y)``
and the weights written on the examples (``w = X'c``, ``K = XX'``), RLR
minimises Rennie's (9),

.. math::

    L(c, b) = -\\sum_i \\log g\\big(y_i (Kc + b\\mathbf 1)_i\\big)
              + \\frac{\\lambda}{2}\\, c'Kc ,

whose gradient, Rennie's (10)-(11) written as column vectors, is

.. math::

    \\nabla_c L = -K Y g(-z) + \\lambda K c, \\qquad
    \\partial_b L = -y' g(-z), \\qquad z = Y(Kc + b\\mathbf 1),

with ``g`` applied entrywise (``1 - g(z) = g(-z)``).  Three minimisers:

* :func:`rlr_gd`, gradient descent with the constant step ``1 / L_grad``,
  where ``L_grad = (lambda_max(K)^2 + n) / 4 + lambda lambda_max(K)`` bounds
  the Hessian: the objective then decreases at every step and the iterates
  converge (at rate ``O(1/k)`` in the objective);
* :func:`rlr_lbfgs`, scipy's L-BFGS on the same objective and gradient;
* :func:`rlr_newton`, Newton's method with a backtracking line search.  Each
  Newton step is a *weighted* RLSC problem (iteratively reweighted least
  squares): with ``D = diag(g(z) g(-z))`` the next iterate solves the bordered
  system ``(K + lambda D^{-1}) c + b 1 = f + D^{-1} Y g(-z)``, ``1'c = 0``.

All three stop when the gradient, measured where the model lives, is small:
with ``r = lambda c - Y g(-z)`` the gradient in ``c`` is ``K r``, and
``sqrt(r'Kr)`` is the norm of the gradient with respect to ``w = X'c`` (for
any kernel, with respect to the function ``f`` in the kernel's Hilbert
space).  The test is ``max(sqrt(r'Kr), |dL/db|) <= tol * max(1, same at c = 0, b = 0)``;
unlike the norm of ``K r`` it does not carry the scale of ``K``.

A gradient can be asked to be smaller than floating point allows: near the
minimum the decrease a step promises falls below the rounding error of (9),
and a line search that compares values of (9) can no longer tell a better
point from a worse one.  Where exactly that happens depends on the machine's
summation order.  :func:`rlr_newton` and :func:`rlr_lbfgs` therefore also stop,
as converged, at this *rounding floor*: when the decrease that their model
predicts, ``g'H^{-1}g / 2`` (Newton's decrement, with the exact Hessian or
L-BFGS's approximation of it), is at most ``16 eps L``, where ``L > 0`` is the
value of (9) (a sum of nonnegative terms, so ``eps L`` is the size of its
rounding error).  ``RLRResult.at_floor`` says which test stopped them.

References
----------
Rennie, J. D. M. (2003), Kernelizing linear classifiers, section 3.
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import eigvalsh
from scipy.optimize import minimize
from scipy.special import expit, log_expit
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
from .mercer import require_psd
from .rlsc import eliminate_bias

__all__ = [
    "KernelLogisticRegression",
    "RLRResult",
    "rlr_gd",
    "rlr_gradient",
    "rlr_lbfgs",
    "rlr_lipschitz",
    "rlr_loss_and_gradient",
    "rlr_newton",
    "rlr_objective",
]


@dataclass
class RLRResult:
    """What the three RLR solvers return.

    Attributes
    ----------
    c : ndarray of shape (n,)
        The weights on the examples; ``f(x) = sum_i c_i k(x_i, x) + b``.
    b : float
        The bias.
    objective : float
        Rennie's (9) at ``(c, b)``.
    grad_norm : float
        ``max(sqrt(r'Kr), |dL/db|)``, the gradient norm of the stopping test.
    n_iter : int
    converged : bool
        ``grad_norm <= tol * max(1, grad_norm at c = 0, b = 0)`` within
        ``max_iter``, or the rounding floor was reached (``at_floor``).
    at_floor : bool
        Stopped because a further step could not lower (9) by more than its
        rounding error (see the module docstring); ``grad_norm`` is then as
        small as this solver can make it in floating point.
    history : ndarray or None
        The objective at every iterate (the start included), if asked for.
    """

    c: np.ndarray
    b: float
    objective: float
    grad_norm: float
    n_iter: int
    converged: bool
    at_floor: bool = False
    history: np.ndarray = field(default=None, repr=False)


def rlr_loss_and_gradient(K, y, lam, c, b):
    """(9), its gradient (10)-(11), and the gradient norm of the stopping test, in one pass.

    The solvers' inner evaluation, called once or more per iteration: it does
    not check its input.  :func:`rlr_objective` and :func:`rlr_gradient` take
    any labels and check everything.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The Gram matrix, float64.
    y : ndarray of shape (n,)
        The labels as floats -1.0 and +1.0.
    lam : float > 0
    c : ndarray of shape (n,)
        float64.
    b : float

    Returns
    -------
    value : float
        (9).
    grad_c : ndarray of shape (n,)
        ``K (lam c - Y g(-z))``, with ``z = Y(Kc + b 1)``.
    grad_b : float
        ``-y'g(-z)``.
    grad_norm : float
        ``max(sqrt(r'Kr), |grad_b|)`` with ``r = lam c - Y g(-z)``: the size of
        the gradient in the feature space, which the stopping tests use.

    Examples
    --------
    >>> value, gc, gb, size = rlr_loss_and_gradient(np.eye(2), np.array([-1.0, 1.0]), 1.0,
    ...                                             np.zeros(2), 0.0)
    >>> round(value, 6), gc, gb  # 2 log 2, as rlr_objective and rlr_gradient say
    (1.386294, array([ 0.5, -0.5]), -0.0)
    """
    Kc = K @ c
    z = y * (Kc + b)
    s = y * expit(-z)  # Y g(-z)
    r = lam * c - s  # the gradient in c is K r
    gc, gb = K @ r, float(-s.sum())
    value = float(-log_expit(z).sum() + 0.5 * lam * c @ Kc)
    return value, gc, gb, max(float(np.sqrt(max(r @ gc, 0.0))), abs(gb))  # sqrt(r'Kr): in w


def rlr_objective(K, y, lam, c, b):
    """Rennie's (9): ``-sum log g(Y(Kc + b 1)) + lam/2 c'Kc``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        The Gram matrix.
    y : array-like of shape (n,)
        The labels; any two classes, the second in sort order is +1.
    lam : float > 0
    c : array-like of shape (n,)
    b : float

    Returns
    -------
    value : float

    Examples
    --------
    >>> round(rlr_objective(np.eye(2), [-1, 1], 1.0, [0.0, 0.0], 0.0), 6)  # 2 log 2
    1.386294
    """
    K, y_pm = check_gram_labels(K, y)
    lam = check_positive(lam, "lam")
    return rlr_loss_and_gradient(K, y_pm, lam, np.asarray(c, dtype=np.float64), float(b))[0]


def rlr_gradient(K, y, lam, c, b):
    """Rennie's (10)-(11) as column vectors: ``(-K Y g(-z) + lam K c, -y'g(-z))``.

    Parameters
    ----------
    K, y, lam, c, b
        As in :func:`rlr_objective`.

    Returns
    -------
    grad_c : ndarray of shape (n,)
    grad_b : float

    Examples
    --------
    >>> gc, gb = rlr_gradient(np.eye(2), [-1, 1], 1.0, [0.0, 0.0], 0.0)
    >>> gc, gb
    (array([ 0.5, -0.5]), -0.0)
    """
    K, y_pm = check_gram_labels(K, y)
    lam = check_positive(lam, "lam")
    return rlr_loss_and_gradient(K, y_pm, lam, np.asarray(c, dtype=np.float64), float(b))[1:3]


def rlr_lipschitz(K, lam):
    """A Lipschitz constant of the gradient of (9) in ``(c, b)``.

    The Hessian is ``[K; 1'] D [K 1] + lam diag(K, 0)`` with
    ``D = diag(g(z) g(-z)) <= I / 4``, so its largest eigenvalue is at most
    ``(lambda_max(K)^2 + n) / 4 + lam lambda_max(K)``.

    Parameters
    ----------
    K : array-like of shape (n, n)
    lam : float > 0

    Returns
    -------
    L : float

    Examples
    --------
    >>> rlr_lipschitz(np.eye(4), 1.0)  # (1 + 4) / 4 + 1
    2.25
    """
    K = np.asarray(K, dtype=np.float64)
    n = K.shape[0]
    top = float(eigvalsh(K, subset_by_index=[n - 1, n - 1])[0])
    return (top**2 + n) / 4.0 + lam * max(top, 0.0)


def _setup(K, y, lam, tol, max_iter, default_max_iter):
    K, y_pm = check_gram_labels(K, y)
    lam = check_positive(lam, "lam")
    require_psd(K, "Kernel logistic regression needs a PSD kernel for (9) to be convex.")
    tol = check_positive(tol, "tol")
    max_iter = check_positive_integer(
        default_max_iter if max_iter is None else max_iter, "max_iter"
    )
    threshold = tol * max(1.0, rlr_loss_and_gradient(K, y_pm, lam, np.zeros(len(y_pm)), 0.0)[3])
    return K, y_pm, lam, threshold, max_iter


#: A predicted decrease of (9) at most this many machine epsilons times (9) is rounding noise.
_FLOOR_EPS = 16.0 * np.finfo(np.float64).eps


def _at_floor(predicted_decrease, value):
    """Whether a step promising this decrease of (9) is below (9)'s rounding error."""
    return predicted_decrease <= _FLOOR_EPS * value


def _finish(K, y, lam, c, b, n_iter, threshold, history, name, hint, at_floor=False):
    value, _, _, grad_norm = rlr_loss_and_gradient(K, y, lam, c, b)
    converged = grad_norm <= threshold or at_floor
    if not converged:
        warnings.warn(
            f"{name} stopped after {n_iter} iterations with gradient norm {grad_norm:.3g} > "
            f"{threshold:.3g} (tol times the initial one); {hint}",
            ConvergenceWarning,
            stacklevel=3,
        )
    return RLRResult(
        c=c,
        b=float(b),
        objective=value,
        grad_norm=grad_norm,
        n_iter=n_iter,
        converged=converged,
        at_floor=at_floor and grad_norm > threshold,
        history=None if history is None else np.array(history),
    )


def rlr_gd(K, y, lam, tol=1e-6, max_iter=10000, step=None, return_history=False):
    """Minimise (9) by gradient descent with a constant step.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A positive semi-definite Gram matrix.
    y : array-like of shape (n,)
        The labels; any two classes, the second in sort order is +1.
    lam : float > 0
    tol : float > 0, default=1e-6
        Relative gradient tolerance (see the module docstring).
    max_iter : int >= 1 or None, default=10000
    step : float > 0 or None, default=None
        None means ``1 / rlr_lipschitz(K, lam)``, for which every step
        decreases (9) (the descent lemma).  A step above ``2 / L`` may diverge.
    return_history : bool, default=False
        Keep the objective per iteration.

    Returns
    -------
    result : RLRResult

    Warns
    -----
    ConvergenceWarning
        If ``max_iter`` is reached first.  The gradient in ``c`` is ``K`` times
        the residual, so the Hessian ``K D K + lam K`` carries ``K`` on both
        sides: its condition number can reach ``kappa(K) (1 + lambda_max(K) / (4 lam))``,
        far above that of the same problem in ``w``, and plain gradient descent is slow.

    Examples
    --------
    With ``K = I`` and ``lam = 1`` the solution is ``c_i = y_i a``, ``b = 0``,
    where ``a = g(-a)``, that is ``a = 0.4011``:

    >>> r = rlr_gd(np.eye(4), [-1, -1, 1, 1], lam=1.0, tol=1e-10)
    >>> np.round(r.c, 4), r.converged
    (array([-0.4011, -0.4011,  0.4011,  0.4011]), True)
    """
    K, y_pm, lam, threshold, max_iter = _setup(K, y, lam, tol, max_iter, 10000)
    step = 1.0 / rlr_lipschitz(K, lam) if step is None else check_positive(step, "step")
    c, b = np.zeros(len(y_pm)), 0.0
    history = [] if return_history else None
    n_iter = 0
    while True:
        value, gc, gb, grad_norm = rlr_loss_and_gradient(K, y_pm, lam, c, b)
        if return_history:
            history.append(value)
        if n_iter == max_iter or grad_norm <= threshold:
            break
        c = c - step * gc
        b = b - step * gb
        n_iter += 1
    return _finish(
        K,
        y_pm,
        lam,
        c,
        b,
        n_iter,
        threshold,
        history,
        "Gradient descent",
        "raise max_iter or tol, or use solver='lbfgs' or 'newton'.",
    )


def rlr_lbfgs(K, y, lam, tol=1e-6, max_iter=15000, return_history=False):
    """Minimise (9) with scipy's L-BFGS-B, given the gradient (10)-(11).

    Parameters
    ----------
    K, y, lam, tol, return_history
        As in :func:`rlr_gd`.
    max_iter : int >= 1 or None, default=15000

    Returns
    -------
    result : RLRResult

    Warns
    -----
    ConvergenceWarning
        If L-BFGS stops before the gradient tolerance is met.

    Examples
    --------
    The example of :func:`rlr_gd`:

    >>> r = rlr_lbfgs(np.eye(4), [-1, -1, 1, 1], lam=1.0, tol=1e-10)
    >>> np.round(r.c, 4), r.converged
    (array([-0.4011, -0.4011,  0.4011,  0.4011]), True)
    """
    K, y_pm, lam, threshold, max_iter = _setup(K, y, lam, tol, max_iter, 15000)
    n = len(y_pm)

    def fun(p):
        value, gc, gb, grad_norm = rlr_loss_and_gradient(K, y_pm, lam, p[:n], p[n])
        last_eval["x"], last_eval["norm"] = p.copy(), grad_norm
        return value, np.append(gc, gb)

    last_eval = {"x": None, "norm": np.inf}  # the latest point fun saw, and its gradient norm
    history = [fun(np.zeros(n + 1))[0]] if return_history else None
    last = {"x": np.zeros(n + 1), "nit": 0}

    def callback(intermediate_result):
        x = intermediate_result.x
        last["x"], last["nit"] = x.copy(), last["nit"] + 1
        if return_history:
            history.append(float(intermediate_result.fun))
        if np.array_equal(x, last_eval["x"]):  # L-BFGS-B evaluated the iterate last
            grad_norm = last_eval["norm"]
        else:
            grad_norm = rlr_loss_and_gradient(K, y_pm, lam, x[:n], x[n])[3]
        if grad_norm <= threshold:
            raise StopIteration  # the stopping test of this module, not L-BFGS-B's own

    res = minimize(
        fun,
        np.zeros(n + 1),
        jac=True,
        method="L-BFGS-B",
        callback=callback,
        options={"maxiter": max_iter, "gtol": 0.0, "ftol": 0.0, "maxls": 50},
    )
    x = res.x if res.nit >= last["nit"] else last["x"]
    at_floor = False
    if res.nit < max_iter:  # L-BFGS-B stopped by a test of its own: is it the rounding floor?
        value, gc, gb, _ = rlr_loss_and_gradient(K, y_pm, lam, x[:n], x[n])
        g = np.append(gc, gb)
        at_floor = _at_floor(0.5 * g @ res.hess_inv.matvec(g), value)
    return _finish(
        K,
        y_pm,
        lam,
        x[:n],
        x[n],
        max(int(res.nit), last["nit"]),
        threshold,
        history,
        "L-BFGS",
        "raise max_iter or tol, or use solver='newton'.",
        at_floor=at_floor,
    )


def rlr_newton(K, y, lam, tol=1e-6, max_iter=100, return_history=False):
    """Minimise (9) by Newton's method, each step a weighted RLSC bordered system.

    Parameters
    ----------
    K, y, lam, tol, return_history
        As in :func:`rlr_gd`.
    max_iter : int >= 1 or None, default=100

    Returns
    -------
    result : RLRResult

    Raises
    ------
    ValueError
        If ``K`` is not positive semi-definite (a Cholesky factorisation of
        ``D^{1/2} K D^{1/2} + lam I`` fails).

    Notes
    -----
    With ``f = Kc + b 1``, ``p = g(-z)`` and ``W = D^{1/2}``, the Newton step
    solves ``(WKW + lam I) a + W1 b = Wf + W^{-1}Yp``, ``1'Wa = 0``, and sets
    ``c = Wa``; the matrix is symmetric positive definite with eigenvalues at
    least ``lam``.  A backtracking (Armijo) line search on the step keeps the
    objective decreasing.  Each iteration costs one ``O(n^3)`` factorisation.

    Examples
    --------
    The example of :func:`rlr_gd`, in three Newton steps:

    >>> r = rlr_newton(np.eye(4), [-1, -1, 1, 1], lam=1.0, tol=1e-10)
    >>> np.round(r.c, 4), r.converged, r.n_iter
    (array([-0.4011, -0.4011,  0.4011,  0.4011]), True, 3)
    """
    K, y_pm, lam, threshold, max_iter = _setup(K, y, lam, tol, max_iter, 100)
    n = len(y_pm)
    c, b = np.zeros(n), 0.0
    value, gc, gb, grad_norm = rlr_loss_and_gradient(K, y_pm, lam, c, b)
    history = [value] if return_history else None
    n_iter, at_floor = 0, False
    while n_iter < max_iter and grad_norm > threshold:
        f = K @ c + b
        z = y_pm * f
        W = np.sqrt(expit(z) * expit(-z))  # D^{1/2}
        M = W[:, None] * K * W[None, :]
        M[np.diag_indices(n)] += lam
        factor = cholesky(M, "D^(1/2) K D^(1/2) + lam I", overwrite=True)
        rhs = W * f + y_pm * np.exp(np.minimum(-0.5 * z, 700.0))  # W f + W^{-1} Y g(-z)
        sol = cholesky_solve(factor, np.column_stack([rhs, W]))
        a, b_new = eliminate_bias(sol[:, 0], sol[:, 1], W) if W.sum() > 0 else (sol[:, 0], b)
        dc, db = W * a - c, b_new - b
        slope = gc @ dc + gb * db  # minus Newton's decrement squared
        t = 1.0
        if _at_floor(-0.5 * slope, value):
            # (9) can no longer rank the points along the step, so a line search would be
            # guessing; this close to the minimum the full step converges quadratically.
            # Take it while it still lowers the gradient, and stop at the rounding floor.
            new = rlr_loss_and_gradient(K, y_pm, lam, c + dc, b + db)
            if not new[3] < grad_norm:
                at_floor = True
                break
        else:
            for _ in range(60):  # Armijo backtracking
                new = rlr_loss_and_gradient(K, y_pm, lam, c + t * dc, b + t * db)
                if new[0] <= value + 1e-4 * t * slope:
                    break
                t *= 0.5
            else:
                break  # no decrease found although the decrement is above the floor: warn
        c, b = c + t * dc, b + t * db
        value, gc, gb, grad_norm = new
        n_iter += 1
        if return_history:
            history.append(value)
    return _finish(
        K,
        y_pm,
        lam,
        c,
        b,
        n_iter,
        threshold,
        history,
        "Newton's method",
        "raise max_iter or tol, or use solver='lbfgs'.",
        at_floor=at_floor,
    )


_SOLVERS = {"newton": rlr_newton, "lbfgs": rlr_lbfgs, "gd": rlr_gd}


class KernelLogisticRegression(ExampleWeightsClassifier):
    """Regularized logistic regression with a kernel (Rennie's (8)-(11)).

    Minimises ``-sum_i log g(y_i f(x_i)) + lam/2 c'Kc`` with
    ``f(x) = sum_i c_i k(x_i, x) + b`` (``decision_function``, the log-odds),
    and reads ``g(f(x))`` as the probability of ``classes_[1]``.  With the linear kernel this is
    scikit-learn's ``LogisticRegression(C=1/lam)``.

    Parameters
    ----------
    lam : float > 0, default=1.0
        Rennie's ``lambda``; the penalty is ``lam/2 ||w||^2``.
    kernel : {'linear', 'poly', 'rbf', 'exponential', 'sigmoid', 'precomputed'} or callable
        The kernel (:func:`ksvm.kernels.make_kernel`), 'rbf' by default.
    gamma : {'scale', 'auto'} or float > 0, default='scale'
    degree : int >= 1, default=3
    coef0 : float, default=1.0
    solver : {'newton', 'lbfgs', 'gd'}, default='newton'
        :func:`rlr_newton`, :func:`rlr_lbfgs` or :func:`rlr_gd`.
    tol : float > 0, default=1e-6
        Relative gradient tolerance.
    max_iter : int or None, default=None
        None means the solver's default (100, 15000, 10000).

    Attributes
    ----------
    classes_, n_features_in_, support_, support_vectors_
        As for every ``ksvm`` classifier (:mod:`ksvm.base`); every training
        point is a support vector.
    dual_coef_ : ndarray of shape (1, n_samples)
        The weights ``c``.
    intercept_ : ndarray of shape (1,)
        The bias ``b``.
    coef_ : ndarray of shape (1, n_features)
        ``w = X'c``, with the linear kernel only.
    n_iter_ : int
    converged_ : bool
        The gradient test was met (or the solver's rounding floor reached;
        see :mod:`ksvm.rlr`).
    objective_ : float
        (9) at the solution.

    Raises
    ------
    ValueError
        From ``fit``: invalid data or hyper-parameters, not exactly two classes,
        or a kernel whose Gram matrix is not positive semi-definite.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> clf = KernelLogisticRegression(lam=0.1, kernel="linear").fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[1.5], [2.5]]).tolist()
    ['a', 'b']
    >>> np.round(clf.predict_proba([[2.0]]), 4)
    array([[0.5, 0.5]])
    """

    _parameters = {
        **BaseKernelClassifier._parameters,
        "lam": check_positive,
        "solver": one_of("newton", "lbfgs", "gd"),
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
        solver="newton",
        tol=1e-6,
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

    def _solve(self, K, y_pm, params):
        """Minimise (9) for the Gram matrix ``K``.  The solver refuses a ``K`` that is
        not PSD (one factorisation): no second test here."""
        result = _SOLVERS[params["solver"]](
            K, y_pm, params["lam"], tol=params["tol"], max_iter=params["max_iter"]
        )
        self.objective_ = result.objective
        return self._example_weights(result.c, result.b, result.n_iter, result.converged)

    def predict_proba(self, X):
        """Probabilities of the two classes, ``[1 - g(f(x)), g(f(x))]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Columns in the order of ``classes_``.
        """
        f = self.decision_function(X)
        return np.column_stack([expit(-f), expit(f)])

    def predict_log_proba(self, X):
        """Logarithms of :meth:`predict_proba`, computed without overflow.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, 2)
        """
        f = self.decision_function(X)
        return np.column_stack([log_expit(-f), log_expit(f)])
