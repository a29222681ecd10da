"""RLSC (Rennie section 2): the bordered system, its two solvers and the estimator."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge
from sklearn.utils.estimator_checks import parametrize_with_checks

from ksvm import RLSClassifier, kernels
from ksvm.datasets import load_breast_cancer_pm, make_noisy_2d
from ksvm.rlsc import bordered_system, conjugate_gradient, rlsc_cg, rlsc_direct, rlsc_objective

from .conftest import PRECOMPUTED_XFAIL, frozen


@parametrize_with_checks(
    [
        RLSClassifier(),
        RLSClassifier(kernel="linear", lam=0.1),
        RLSClassifier(kernel="poly", degree=2, solver="cg"),
        RLSClassifier(kernel="precomputed"),
    ],
    expected_failed_checks=lambda est: PRECOMPUTED_XFAIL if est.kernel == "precomputed" else {},
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _problem(rng, n=40, d=3, kernel="rbf"):
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    K = {
        "rbf": lambda: kernels.rbf_kernel(X, gamma=0.5),
        "linear": lambda: kernels.linear_kernel(X),
        "poly": lambda: kernels.polynomial_kernel(X, degree=3),
    }[kernel]()
    return X, y, K


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("lam", [1e-3, 1.0, 50.0])
def test_direct_solves_the_bordered_system(rng, kernel, lam):
    _, y, K = _problem(rng, kernel=kernel)
    A, rhs = bordered_system(K, y, lam)
    reference = np.linalg.solve(A, rhs)  # LU on the whole indefinite system
    r = rlsc_direct(frozen(K), frozen(y), lam)
    scale = np.abs(reference).max()
    np.testing.assert_allclose(r.c, reference[:-1], atol=1e-9 * scale)
    assert r.b == pytest.approx(reference[-1], abs=1e-9 * scale)
    assert abs(r.c.sum()) <= 1e-9 * np.abs(r.c).sum()  # the missing equation 1'c = 0


@pytest.mark.slow
@pytest.mark.parametrize("lam", [1e-2, 1.0])
def test_direct_minimises_the_objective(rng, lam):
    """The bordered system's solution beats every perturbation of (6), and BFGS finds it."""
    _, y, K = _problem(rng, n=25)
    r = rlsc_direct(K, y, lam)
    best = rlsc_objective(K, y, lam, r.c, r.b)
    for _ in range(20):
        dc, db = 1e-3 * rng.normal(size=len(y)), 1e-3 * rng.normal()
        assert rlsc_objective(K, y, lam, r.c + dc, r.b + db) >= best
    res = minimize(
        lambda p: rlsc_objective(K, y, lam, p[:-1], p[-1]),
        np.zeros(len(y) + 1),
        method="BFGS",
        options={"gtol": 1e-10},
    )
    assert res.fun == pytest.approx(best, rel=1e-7)


@pytest.mark.parametrize("solver", ["direct", "cg"])
@pytest.mark.parametrize("shape", [(200, 5), (30, 60)])  # n > d (K singular) and n < d
def test_linear_kernel_is_ridge_regression(rng, solver, shape):
    n, d = shape
    X = rng.normal(size=(n, d)) + 2.0
    score = X @ rng.normal(size=d) + rng.normal(size=n)
    y = np.where(score > np.median(score), 1.0, -1.0)
    for lam in (0.1, 10.0):
        ridge = Ridge(alpha=lam, tol=1e-14, solver="svd").fit(X, y)
        clf = RLSClassifier(lam=lam, kernel="linear", solver=solver, tol=1e-14).fit(X, y)
        np.testing.assert_allclose(clf.coef_[0], ridge.coef_, atol=1e-8)
        assert clf.intercept_[0] == pytest.approx(ridge.intercept_, abs=1e-8)
        # the representer theorem: ridge's w is a combination of the data points
        np.testing.assert_allclose(X.T @ clf.dual_coef_[0], ridge.coef_, atol=1e-8)


def test_ridge_on_breast_cancer():
    X, y = load_breast_cancer_pm()
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    ridge = Ridge(alpha=1.0, solver="svd").fit(X, y)
    clf = RLSClassifier(lam=1.0, kernel="linear").fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], ridge.coef_, atol=1e-8)
    assert clf.intercept_[0] == pytest.approx(ridge.intercept_, abs=1e-8)


@pytest.mark.parametrize("lam", [1e-2, 1.0, 100.0])
@pytest.mark.parametrize("tol", [1e-6, 1e-10])
def test_cg_agrees_with_direct_to_its_tolerance(rng, lam, tol):
    _, y, K = _problem(rng, n=120)
    d = rlsc_direct(K, y, lam)
    g = rlsc_cg(frozen(K), frozen(y), lam, tol=tol, return_history=True)
    assert g.converged
    eig = np.linalg.eigvalsh(K)
    kappa = (eig[-1] + lam) / (eig[0] + lam)
    # each CG solve has relative residual <= tol, so relative error <= kappa * tol;
    # the bias elimination combines two solutions and can amplify that by a few
    err = np.abs(np.append(g.c - d.c, g.b - d.b)).max() / np.abs(np.append(d.c, d.b)).max()
    assert err <= 10 * kappa * tol
    assert g.history.shape == (g.n_iter + 1, 2)
    assert g.history[-1].max() <= tol
    assert g.history[0].tolist() == [1.0, 1.0]


def test_cg_is_exact_in_at_most_n_steps_on_few_eigenvalues():
    """CG ends after as many steps as M has distinct eigenvalues."""
    rng = np.random.default_rng(5)
    Q, _ = np.linalg.qr(rng.normal(size=(30, 30)))
    M = (Q * np.repeat([1.0, 2.0, 7.0], 10)) @ Q.T
    _X, n_iter, ok = conjugate_gradient(lambda P: M @ P, rng.normal(size=(30, 2)), tol=1e-10)
    assert ok and n_iter == 3


def test_cg_refuses_an_indefinite_matrix():
    M = np.diag([1.0, -1.0])
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        conjugate_gradient(lambda P: M @ P, np.ones((2, 1)))


def test_cg_warns_when_it_runs_out_of_iterations(rng):
    _, y, K = _problem(rng, n=80)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        r = rlsc_cg(K, y, 1e-3, max_iter=2)
    assert not r.converged and r.n_iter == 2


@pytest.mark.parametrize("solver", [rlsc_direct, rlsc_cg])
def test_indefinite_kernel_is_refused(solver):
    K = np.array([[1.0, 3.0], [3.0, 1.0]])  # eigenvalues 4 and -2
    with pytest.raises(ValueError, match="not positive semi-definite"):
        solver(K, [-1, 1], 1.0)


@pytest.mark.parametrize("lam", [0.0, -1.0, np.nan, np.inf, "1"])
def test_bad_lambda(lam):
    with pytest.raises(ValueError, match="lam"):
        rlsc_direct(np.eye(2), [-1, 1], lam)
    with pytest.raises(ValueError, match="lam"):
        RLSClassifier(lam=lam).fit([[0.0], [1.0]], [0, 1])


@pytest.mark.parametrize("max_iter", [0, -1, 2.5, "a"])
def test_rlsc_cg_refuses_a_budget_the_estimators_table_refuses(max_iter):
    with pytest.raises(ValueError, match=r"max_iter must be an integer >= 1"):
        rlsc_cg(np.eye(2), [-1, 1], 1.0, max_iter=max_iter)
    with pytest.raises(ValueError, match=r"max_iter must be an integer >= 1"):
        RLSClassifier(solver="cg", max_iter=max_iter).fit([[0.0], [1.0]], [0, 1])


def test_bad_labels_and_shapes():
    with pytest.raises(ValueError, match="exactly two classes"):
        rlsc_direct(np.eye(2), [1, 1], 1.0)
    with pytest.raises(ValueError, match="exactly two classes"):
        RLSClassifier().fit([[0.0], [1.0]], ["a", "a"])
    with pytest.raises(ValueError, match="3 labels"):
        rlsc_cg(np.eye(2), [-1, 1, 1], 1.0)
    with pytest.raises(ValueError, match="solver"):
        RLSClassifier(solver="lu").fit([[0.0], [1.0]], [0, 1])


def test_estimator_refuses_a_kernel_that_is_not_psd():
    X, y = make_noisy_2d(60, seed=1)
    with pytest.raises(ValueError, match="Mercer"):
        RLSClassifier(kernel="sigmoid", gamma=2.0, coef0=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="Mercer"):
        RLSClassifier(kernel="precomputed").fit(-np.eye(3), [0, 1, 1])


def test_estimator_any_labels_and_precomputed_agree():
    X, y = make_noisy_2d(80, seed=3)
    labels = np.where(y > 0, "spam", "ham")
    a = RLSClassifier(lam=0.5, gamma=1.0).fit(X, labels)
    K = kernels.rbf_kernel(X, gamma=1.0)
    b = RLSClassifier(lam=0.5, kernel="precomputed").fit(K, labels)
    np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, atol=1e-12)
    np.testing.assert_array_equal(a.predict(X[:10]), b.predict(K[:10]))
    assert set(a.predict(X)) <= {"spam", "ham"} and a.classes_.tolist() == ["ham", "spam"]
    cg = RLSClassifier(lam=0.5, gamma=1.0, solver="cg").fit(X, labels)
    np.testing.assert_allclose(cg.decision_function(X), a.decision_function(X), atol=1e-7)
    assert cg.n_iter_ > 1 and a.n_iter_ == 1


def test_no_warning_and_inputs_untouched(rng):
    X, y, K = _problem(rng)
    Kf, yf = frozen(K), frozen(y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rlsc_direct(Kf, yf, 1.0)
        rlsc_cg(Kf, yf, 1.0)
        RLSClassifier().fit(frozen(X), yf)
