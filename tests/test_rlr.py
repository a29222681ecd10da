"""RLR (Rennie section 3): the gradient, three minimisers and the estimator."""

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from ksvm import KernelLogisticRegression, kernels
from ksvm.datasets import load_breast_cancer_pm, make_noisy_2d
from ksvm.rlr import rlr_gd, rlr_gradient, rlr_lbfgs, rlr_lipschitz, rlr_newton, rlr_objective

from .conftest import PRECOMPUTED_XFAIL, frozen

PRECOMPUTED_XFAIL_PROBA = {
    **PRECOMPUTED_XFAIL,
    "check_decision_proba_consistency": "it fits a precomputed kernel on a non-square matrix",
}


@parametrize_with_checks(
    [
        KernelLogisticRegression(),
        KernelLogisticRegression(kernel="linear", lam=0.1),
        KernelLogisticRegression(kernel="precomputed"),
    ],
    expected_failed_checks=lambda est: (
        PRECOMPUTED_XFAIL_PROBA if est.kernel == "precomputed" else {}
    ),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.slow  # L-BFGS needs a few hundred steps per fit: about 15 seconds in all
@parametrize_with_checks([KernelLogisticRegression(kernel="rbf", solver="lbfgs")])
def test_sklearn_compatible_lbfgs(estimator, check):
    check(estimator)


def _problem(rng, n=40, d=3, kernel="rbf"):
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=n) > 0, 1.0, -1.0)
    K = {
        "rbf": lambda: kernels.rbf_kernel(X, gamma=0.5),
        "linear": lambda: kernels.linear_kernel(X),
        "poly": lambda: kernels.polynomial_kernel(X, degree=2),
    }[kernel]()
    return X, y, K


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("lam", [0.01, 1.0])
def test_gradient_matches_finite_differences(rng, kernel, lam):
    _, y, K = _problem(rng, n=15, kernel=kernel)
    c, b = 0.3 * rng.normal(size=len(y)), 0.2
    gc, gb = rlr_gradient(K, y, lam, c, b)
    h = 1e-6
    fd = np.array(
        [
            (rlr_objective(K, y, lam, c + h * e, b) - rlr_objective(K, y, lam, c - h * e, b))
            / (2 * h)
            for e in np.eye(len(y))
        ]
    )
    fd_b = (rlr_objective(K, y, lam, c, b + h) - rlr_objective(K, y, lam, c, b - h)) / (2 * h)
    scale = max(np.abs(fd).max(), 1.0)
    np.testing.assert_allclose(gc, fd, atol=1e-6 * scale)
    assert gb == pytest.approx(fd_b, abs=1e-6 * scale)


def test_a_wrong_gradient_fails_the_check(rng):
    """The finite-difference check can fail: drop the factor K in front of Y g(-z)."""
    _, y, K = _problem(rng, n=15)
    lam, c, b = 1.0, 0.3 * rng.normal(size=15), 0.2
    z = y * (K @ c + b)
    wrong = -y * expit(-z) + lam * K @ c
    h = 1e-6
    fd = np.array(
        [
            (rlr_objective(K, y, lam, c + h * e, b) - rlr_objective(K, y, lam, c - h * e, b))
            / (2 * h)
            for e in np.eye(15)
        ]
    )
    assert np.abs(wrong - fd).max() > 1e-2
    assert np.abs(rlr_gradient(K, y, lam, c, b)[0] - fd).max() < 1e-6


def _breast_cancer_half():
    X, y = load_breast_cancer_pm()
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X[::2], y[::2]


@pytest.mark.parametrize("lam", [0.1, 1.0, 10.0])
def test_linear_kernel_is_logistic_regression_newton(lam):
    X, y = _breast_cancer_half()
    ref = LogisticRegression(C=1.0 / lam, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(
        X, y
    )
    r = rlr_newton(kernels.linear_kernel(X), y, lam, tol=1e-10)
    assert r.converged and r.n_iter <= 15
    np.testing.assert_allclose(X.T @ r.c, ref.coef_[0], atol=1e-7)
    assert r.b == pytest.approx(ref.intercept_[0], abs=1e-7)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("lam", [1.0, 10.0])
def test_linear_kernel_is_logistic_regression_lbfgs(lam):
    """L-BFGS on c: the Hessian K D K + lam K carries K on both sides, and the
    run stops at rounding level (with a warning) before a relative gradient of 1e-10,
    with w still within 1e-5 of the answer."""
    X, y = _breast_cancer_half()
    ref = LogisticRegression(C=1.0 / lam, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(
        X, y
    )
    r = rlr_lbfgs(kernels.linear_kernel(X), y, lam, tol=1e-10)
    np.testing.assert_allclose(X.T @ r.c, ref.coef_[0], atol=1e-5)
    assert r.b == pytest.approx(ref.intercept_[0], abs=1e-5)


def test_estimator_linear_kernel_matches_logistic_regression(rng):
    X = rng.normal(size=(150, 4)) + 1.0
    y = np.where(X @ [1.0, -1.0, 0.5, 0.0] + rng.normal(size=150) > 0.5, "yes", "no")
    ref = LogisticRegression(C=2.0, solver="newton-cholesky", tol=1e-12).fit(X, y)
    clf = KernelLogisticRegression(lam=0.5, kernel="linear", tol=1e-10).fit(X, y)
    np.testing.assert_allclose(clf.coef_, ref.coef_, atol=1e-5)
    np.testing.assert_allclose(clf.intercept_, ref.intercept_, atol=1e-5)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(X), atol=1e-5)
    assert clf.classes_.tolist() == ref.classes_.tolist()


@pytest.mark.slow
def test_three_solvers_reach_the_same_minimum(rng):
    _, y, K = _problem(rng, n=30)
    lam = 0.5
    n = rlr_newton(frozen(K), frozen(y), lam, tol=1e-12)
    lb = rlr_lbfgs(frozen(K), frozen(y), lam, tol=1e-7)
    gd = rlr_gd(frozen(K), frozen(y), lam, tol=1e-7, max_iter=200000)
    assert n.converged and lb.converged and gd.converged
    for r in (lb, gd):
        assert r.objective == pytest.approx(n.objective, rel=1e-9)
        np.testing.assert_allclose(K @ r.c + r.b, K @ n.c + n.b, atol=1e-4)
    # at the minimum (K nonsingular) c = Y g(-z) / lam, hence 1'c = 0
    z = y * (K @ n.c + n.b)
    np.testing.assert_allclose(n.c, y * expit(-z) / lam, atol=1e-9)
    assert abs(n.c.sum()) < 1e-9


def test_gradient_descent_with_the_lipschitz_step_never_goes_up(rng):
    _, y, K = _problem(rng, kernel="poly")
    with pytest.warns(ConvergenceWarning, match="Gradient descent stopped after 300"):
        r = rlr_gd(K, y, 0.1, max_iter=300, return_history=True, tol=1e-12)
    assert len(r.history) == 301
    assert np.all(np.diff(r.history) <= 1e-12 * abs(r.history[0]))


def test_lipschitz_bound_holds(rng):
    """The largest Hessian eigenvalue, computed exactly, is below the bound."""
    _, y, K = _problem(rng, n=20)
    lam, c, b = 0.3, rng.normal(size=20), 0.1
    z = y * (K @ c + b)
    D = expit(z) * expit(-z)
    A = np.hstack([K, np.ones((20, 1))])
    H = A.T @ (D[:, None] * A)
    H[:20, :20] += lam * K
    assert np.linalg.eigvalsh(H)[-1] <= rlr_lipschitz(K, lam)


def test_gradient_descent_too_long_a_step_diverges(rng):
    _, y, K = _problem(rng, n=20)
    L = rlr_lipschitz(K, 0.1)
    with pytest.warns(ConvergenceWarning):
        r = rlr_gd(K, y, 0.1, step=50.0 / L, max_iter=200, return_history=True)
    assert r.history[-1] > r.history[0]


def test_newton_converges_quadratically(rng):
    _, y, K = _problem(rng, n=60)
    r = rlr_newton(K, y, 0.1, tol=1e-13, return_history=True)
    assert r.converged and r.n_iter <= 12
    gaps = np.array(r.history[:-1]) - r.history[-1]
    tail = gaps[gaps > 1e-12]
    assert tail[-1] < tail[-2] ** 1.5 * 10  # superlinear at the end


@pytest.mark.parametrize("solver", [rlr_newton, rlr_lbfgs])
def test_a_tolerance_below_the_rounding_floor_stops_there(rng, solver):
    # No machine can bring the gradient to 1e-30 of its start; where each one stalls
    # depends on its summation order.  The solvers stop there, converged, and say so.
    _, y, K = _problem(rng, n=30)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        r = solver(K, y, 0.5, tol=1e-30)
    ref = rlr_newton(K, y, 0.5, tol=1e-10)
    assert r.converged and r.at_floor and not ref.at_floor
    assert r.n_iter <= (12 if solver is rlr_newton else 2000)
    g0 = max(0.5 * np.sqrt(y @ K @ y), 0.5 * abs(y.sum()), 1.0)  # the test's norm at c = 0, b = 0
    # Newton's full steps reach the gradient's own rounding level; L-BFGS, whose line
    # search compares values of (9), stops near sqrt(eps) of the start
    assert r.grad_norm <= (1e-13 if solver is rlr_newton else 1e-5) * g0 * len(y)
    assert r.objective == pytest.approx(ref.objective, rel=1e-12)


def test_predict_proba_is_the_logistic_of_the_decision_function():
    X, y = make_noisy_2d(100, seed=4)
    clf = KernelLogisticRegression(lam=0.1, gamma=2.0).fit(X, y)
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(P[:, 1], expit(clf.decision_function(X)))
    np.testing.assert_allclose(clf.predict_log_proba(X), np.log(P), atol=1e-12)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[P.argmax(axis=1)])
    far = clf.predict_log_proba(1e3 * X[:3])
    assert np.all(np.isfinite(far))


@pytest.mark.parametrize("solver", [rlr_gd, rlr_lbfgs, rlr_newton])
def test_non_convergence_warns(rng, solver):
    _, y, K = _problem(rng, n=40)
    with pytest.warns(ConvergenceWarning, match="stopped after 1 iterations"):
        r = solver(K, y, 0.01, tol=1e-14, max_iter=1)
    assert not r.converged


def test_indefinite_kernel_is_refused():
    K = np.array([[1.0, 3.0], [3.0, 1.0]])
    with pytest.raises(ValueError, match="not positive semi-definite"):
        rlr_newton(K, [-1, 1], 1.0)
    X, y = make_noisy_2d(60, seed=1)
    with pytest.raises(ValueError, match="Mercer"):
        KernelLogisticRegression(kernel="sigmoid", gamma=2.0, coef0=-1.0).fit(X, y)


@pytest.mark.parametrize("lam", [0.0, -1.0, np.nan, "a"])
def test_bad_lambda(lam):
    with pytest.raises(ValueError, match="lam"):
        rlr_lbfgs(np.eye(2), [-1, 1], lam)
    with pytest.raises(ValueError, match="lam"):
        KernelLogisticRegression(lam=lam).fit([[0.0], [1.0]], [0, 1])


def test_bad_input():
    with pytest.raises(ValueError, match="exactly two classes"):
        KernelLogisticRegression().fit([[0.0], [1.0]], [3, 3])
    with pytest.raises(ValueError, match="solver"):
        KernelLogisticRegression(solver="sgd").fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(ValueError, match="max_iter"):
        rlr_gd(np.eye(2), [-1, 1], 1.0, max_iter=2.5)
    with pytest.raises(ValueError, match="step"):
        rlr_gd(np.eye(2), [-1, 1], 1.0, step=-1.0)


@pytest.mark.parametrize("solver", [rlr_gd, rlr_lbfgs, rlr_newton])
def test_max_iter_is_at_least_one_as_in_the_estimators_table(solver):
    # the functions and KernelLogisticRegression validate max_iter alike
    with pytest.raises(ValueError, match="max_iter must be an integer >= 1, got 0"):
        solver(np.eye(2), [-1, 1], 1.0, max_iter=0)
    with pytest.raises(ValueError, match="max_iter must be an integer >= 1, got 0"):
        KernelLogisticRegression(max_iter=0).fit([[0.0], [1.0]], [0, 1])


def test_no_warning_and_inputs_untouched(rng):
    X, y, K = _problem(rng)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rlr_newton(frozen(K), frozen(y), 1.0)
        rlr_lbfgs(frozen(K), frozen(y), 1.0)
        KernelLogisticRegression().fit(frozen(X), frozen(y))
