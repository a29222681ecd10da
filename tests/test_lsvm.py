"""LSVM (Mangasarian & Musicant 2001) against independent solvers of (7), (11) and (12)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from ksvm import LagrangianSVC, kernels
from ksvm.datasets import make_checkerboard, make_linear_large, make_noisy_2d
from ksvm.lsvm import lsvm_kernel, lsvm_kernel_newton, lsvm_linear, lsvm_linear_newton

from .conftest import PRECOMPUTED_XFAIL, frozen


@parametrize_with_checks(
    [
        LagrangianSVC(),
        LagrangianSVC(nu=10.0, max_iter=1000),
        LagrangianSVC(kernel="rbf", nu=1.0, max_iter=1000),
        LagrangianSVC(kernel="precomputed", nu=1.0, max_iter=1000),
        LagrangianSVC(nu=100.0, solver="newton"),
        LagrangianSVC(kernel="rbf", nu=100.0, solver="newton"),
    ],
    expected_failed_checks=lambda estimator: (
        PRECOMPUTED_XFAIL if estimator.kernel == "precomputed" else {}
    ),
)
def test_scikit_learn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def problem(m=120, nu=10.0, seed=0):
    X, y = make_noisy_2d(m, flip=0.15, seed=seed)
    H = y[:, None] * np.hstack([X, -np.ones((m, 1))])
    Q = np.eye(m) / nu + H @ H.T
    return X, y, H, Q


@pytest.mark.parametrize("nu", [0.1, 10.0, 1000.0])
def test_kkt_conditions_12_hold(nu):
    X, y, _H, Q = problem(nu=nu)
    r = lsvm_linear(X, y, nu, max_iter=10000, tol=1e-10)
    g = Q @ r.u - 1.0
    scale = max(1.0, np.abs(r.u).max())
    assert r.converged
    assert r.u.min() >= -1e-8 * scale
    assert g.min() >= -1e-8 * np.abs(Q).max() * scale
    assert abs(r.u @ g) <= 1e-7 * scale * len(y)


@pytest.mark.parametrize("nu", [0.1, 10.0, 1000.0])
def test_equals_the_dual_11_by_l_bfgs_b(nu):
    X, y, _H, Q = problem(nu=nu)
    r = lsvm_linear(X, y, nu, max_iter=10000, tol=1e-10)
    e = np.ones(len(y))
    ref = minimize(
        lambda u: (0.5 * u @ Q @ u - e @ u, Q @ u - e),
        np.zeros(len(y)),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0, None)] * len(y),
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 100000},
    )
    f = lambda u: 0.5 * u @ Q @ u - e @ u  # noqa: E731
    assert f(r.u) == pytest.approx(ref.fun, rel=1e-8)
    assert_allclose(r.u, ref.x, atol=1e-5 * max(1.0, np.abs(ref.x).max()))


@pytest.mark.parametrize("nu", [0.1, 10.0])
def test_equals_the_primal_7_by_a_general_qp(nu):
    X, y, _H, _Q = problem(m=60, nu=nu)
    m, n = X.shape
    r = lsvm_linear(X, y, nu, max_iter=10000, tol=1e-11)
    # variables (w, gamma, slack):
    # min nu/2 |s|^2 + 1/2 (w'w + gamma^2)  s.t.  D(Aw - e gamma) + s >= e
    B = np.hstack([y[:, None] * X, -y[:, None], np.eye(m)])
    c = 1.0 / max(1.0, nu * m)  # SLSQP's line search needs a well-scaled objective
    ref = minimize(
        lambda z: c * (0.5 * nu * z[n + 1 :] @ z[n + 1 :] + 0.5 * z[: n + 1] @ z[: n + 1]),
        np.zeros(n + 1 + m),
        jac=lambda z: c * np.concatenate([z[: n + 1], nu * z[n + 1 :]]),
        constraints=[{"type": "ineq", "fun": lambda z: B @ z - 1.0, "jac": lambda z: B}],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert ref.success
    assert_allclose(r.w, ref.x[:n], atol=1e-6)
    assert r.b == pytest.approx(-ref.x[n], abs=1e-6)  # the paper's gamma is -b
    assert_allclose(r.u / nu, np.maximum(ref.x[n + 1 :], 0.0), atol=1e-6)  # y = u / nu, (9)


def test_smw_path_equals_code_3_with_the_linear_kernel():
    X, y, _H, _Q = problem(nu=10.0)
    G = np.hstack([X, -np.ones((len(y), 1))])
    a = lsvm_linear(X, y, 10.0, max_iter=500, tol=1e-9)
    b = lsvm_kernel(G @ G.T, y, 10.0, max_iter=500, tol=1e-9)
    assert a.n_iter == b.n_iter
    assert_allclose(a.u, b.u, rtol=1e-7, atol=1e-10)


def test_equals_liblinear_on_the_same_problem():
    """(7) is LinearSVC's squared hinge with C = nu / 2 and the intercept
    penalised (intercept_scaling = 1): the same problem, solved independently."""
    X, y = make_linear_large(5000, 10, seed=3)
    nu = 5.0 / len(y)
    r = lsvm_linear(X, y, nu, max_iter=1000, tol=1e-10)
    ref = LinearSVC(C=nu / 2, loss="squared_hinge", tol=1e-12, max_iter=100000).fit(X, y)
    assert_allclose(r.w, ref.coef_[0], atol=1e-6)
    assert r.b == pytest.approx(ref.intercept_[0], abs=1e-6)


def test_authors_defaults_and_convergence_rate():
    X, y, _H, Q = problem(nu=1000.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        # tol = 1e-12 lies below this problem's rounding floor (a few eps ||u||, where the
        # exact value depends on the machine): the iteration stops there, as converged
        r = lsvm_linear(X, y, 1000.0, max_iter=10000, tol=1e-12, return_history=True)
    assert r.converged and r.at_floor and r.n_iter < 1000
    assert r.opt <= 1e3 * np.finfo(float).eps * np.linalg.norm(r.u)
    # above the floor ||u^{i+1} - u^i|| falls at every step, and on average no slower than
    # the contraction factor ||I - eta Q^{-1}|| of the paper's proof
    h = r.history
    k = np.flatnonzero(h > 1e3 * np.finfo(float).eps * np.linalg.norm(r.u))[-1]
    assert k > 100 and np.all(h[1 : k + 1] < h[:k])
    rate = np.linalg.norm(np.eye(len(y)) - (1.9 / 1000.0) * np.linalg.inv(Q), 2)
    assert (h[k] / h[0]) ** (1.0 / k) <= rate
    clf = LagrangianSVC(solver="fixed-point").fit(X, y)  # the authors' defaults
    assert clf.nu_ == pytest.approx(1 / len(y)) and clf.eta_ == pytest.approx(1.9 * len(y))


def test_a_reachable_tol_is_met_and_max_iter_still_warns():
    X, y, _H, _Q = problem(nu=1000.0)
    r = lsvm_linear(X, y, 1000.0, max_iter=10000, tol=1e-8)
    assert r.converged and not r.at_floor and r.opt <= 1e-8
    with pytest.warns(ConvergenceWarning, match="raise max_iter"):
        short = lsvm_linear(X, y, 1000.0, max_iter=50, tol=1e-14)
    assert not short.converged and not short.at_floor


def test_gaussian_kernel_ignores_the_minus_e_column():
    X, y = make_checkerboard(200, seed=0)
    G = np.hstack([X, -np.ones((200, 1))])
    assert_allclose(kernels.rbf_kernel(G, gamma=5.0), kernels.rbf_kernel(X, gamma=5.0), rtol=1e-14)
    clf = LagrangianSVC(
        kernel="rbf", gamma=5.0, nu=100.0, solver="newton", max_iter=5000, tol=1e-8
    ).fit(X, y)
    r = lsvm_kernel(kernels.rbf_kernel(X, gamma=5.0), y, 100.0, max_iter=5000, tol=1e-8)
    assert_allclose(clf.u_, r.u, atol=1e-9 * np.abs(r.u).max())
    X_test = np.random.default_rng(1).random((50, 2))
    expected = kernels.rbf_kernel(X_test, X, gamma=5.0) @ (y * np.maximum(r.u, 0.0) * (r.u > 0))
    assert_allclose(clf.decision_function(X_test), expected, atol=1e-8 * np.abs(r.u).sum())


def test_linear_estimator_matches_the_function_and_any_labels():
    X, y, _H, _Q = problem(nu=10.0)
    r = lsvm_linear(X, y, 10.0, max_iter=1000, tol=1e-9)
    clf = LagrangianSVC(nu=10.0, max_iter=1000, tol=1e-9).fit(X, np.where(y > 0, "b", "a"))
    assert_allclose(clf.coef_[0], r.w)
    assert clf.intercept_[0] == pytest.approx(r.b)
    assert_array_equal(clf.predict(X) == "b", X @ r.w + r.b > 0)


def test_support_vectors_are_the_points_inside_the_margin():
    """u_i = nu * max(0, 1 - d_i f(x_i)) at the solution: compare with an exact dual solve."""
    X, y, _H, Q = problem(m=200, nu=2.0, seed=1234)
    clf = LagrangianSVC(nu=2.0, tol=1e-8, max_iter=10000).fit(X, y)
    e = np.ones(len(y))
    ref = minimize(
        lambda u: (0.5 * u @ Q @ u - e @ u, Q @ u - e),
        np.zeros(len(y)),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0, None)] * len(y),
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 100000},
    )
    margins = y * (X @ clf.coef_[0] + clf.intercept_[0])
    assert_allclose(2.0 * np.maximum(0.0, 1.0 - margins), ref.x, atol=1e-5)
    assert_array_equal(clf.support_, np.flatnonzero(ref.x > 1e-6))


def test_inputs_are_not_modified():
    X, y, _H, _Q = problem()
    X_ro, K_ro = frozen(X), frozen(kernels.rbf_kernel(X))
    lsvm_linear(X_ro, y, 10.0)
    lsvm_kernel(K_ro, y, 10.0)
    LagrangianSVC(kernel="rbf", nu=1.0).fit(X_ro, y).predict(X_ro)
    assert_array_equal(X_ro, X)


def test_max_iter_warns():
    X, y, _H, _Q = problem(nu=1000.0)
    with pytest.warns(ConvergenceWarning, match="raise max_iter"):
        r = lsvm_linear(X, y, 1000.0, max_iter=3)
    assert r.n_iter == 3 and not r.converged


@pytest.mark.parametrize(
    "solve",
    [
        lsvm_linear,
        lsvm_linear_newton,
        lambda X, y, nu, max_iter: lsvm_kernel(X @ X.T + 1.0, y, nu, max_iter=max_iter),
        lambda X, y, nu, max_iter: lsvm_kernel_newton(X @ X.T + 1.0, y, nu, max_iter=max_iter),
    ],
    ids=["fixed-point", "newton", "kernel", "kernel-newton"],
)
def test_max_iter_zero_returns_the_start_and_warns(solve):
    """max_iter=0 is allowed by every solver's check: no step is taken, the multipliers are
    the solver's start, and the warning says the run did not converge."""
    X, y, _H, _Q = problem(nu=1.0)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        r = solve(X, y, 1.0, max_iter=0)
    assert r.n_iter == 0 and not r.converged and np.all(np.isfinite(r.u))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda X, y: lsvm_linear(X, y, nu=0.0), "nu must be > 0"),
        (lambda X, y: lsvm_linear(X, y, nu=-1.0), "nu must be > 0"),
        (lambda X, y: lsvm_linear(X, y, nu=1.0, eta=2.0), r"eta must lie in \(0, 2/nu\)"),
        (lambda X, y: lsvm_linear(X, y, nu=1.0, eta=-1.0), "eta must be > 0"),
        (lambda X, y: lsvm_linear(X, np.ones(len(y))), "exactly two classes, got 1 class"),
        (lambda X, y: lsvm_linear(X, y[:-1]), "rows but y has"),
        (lambda X, y: lsvm_linear(X, y, max_iter=-1), "max_iter must be"),
        (lambda X, y: lsvm_kernel(np.ones((3, 4)), y[:3]), "must be square"),
        (
            lambda X, y: LagrangianSVC(kernel="sigmoid", gamma=1.0, coef0=0.0, nu=1.0).fit(
                X * 3, y
            ),
            "Mercer",
        ),
        (lambda X, y: LagrangianSVC(kernel="precomputed").fit(-kernels.rbf_kernel(X), y), "Mercer"),
        (
            lambda X, y: LagrangianSVC(nu=2.0, eta=1.5, solver="fixed-point").fit(X, y),
            r"eta must lie in \(0, 2/nu\)",
        ),
        (lambda X, y: LagrangianSVC(eta=1.5).fit(X, y), "solver='auto' has none"),
        (lambda X, y: LagrangianSVC(solver="pdas").fit(X, y), "solver must be one of"),
        (lambda X, y: LagrangianSVC(max_iter=0).fit(X, y), "max_iter must be an integer >= 1"),
        (lambda X, y: LagrangianSVC().fit(X, np.arange(len(y)) % 3), "exactly two classes, got 3"),
    ],
)
def test_bad_input(call, message):
    X, y = make_noisy_2d(40, flip=0.2, seed=4)
    with pytest.raises(ValueError, match=message):
        call(X, y)


# --- the active-set (Newton) solvers -------------------------------------------------------


def _dual_reference(Q):
    """min_{u >= 0} u'Qu/2 - e'u by L-BFGS-B, to high accuracy: independent of both solvers."""
    m = Q.shape[0]
    res = minimize(
        lambda u: (0.5 * u @ Q @ u - u.sum(), Q @ u - 1.0),
        np.zeros(m),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0, None)] * m,
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 100000},
    )
    return res.x


@pytest.mark.parametrize("nu", [0.1, 10.0, 1000.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_newton_linear_equals_the_fixed_point_and_the_dual(nu, seed):
    rng = np.random.default_rng(seed)
    X, y = make_noisy_2d(150, seed=seed)
    X = np.hstack([X, rng.normal(size=(150, 2))])
    r = lsvm_linear_newton(frozen(X), frozen(y), nu)
    assert r.converged and r.n_iter <= 20
    G = np.hstack([X, -np.ones((150, 1))])
    Q = np.eye(150) / nu + (y[:, None] * G) @ (y[:, None] * G).T
    g = Q @ r.u - 1.0
    assert r.u.min() >= 0 and g.min() >= -1e-9 * max(1, r.u.max())
    assert abs(r.u @ g) <= 1e-8 * max(1.0, r.u.sum())  # complementarity (12)
    fp = lsvm_linear(X, y, nu, max_iter=200000, tol=1e-11)  # at nu = 1000: its rounding floor
    assert fp.converged
    np.testing.assert_allclose(r.u, fp.u, atol=1e-8 * max(1.0, np.abs(fp.u).max()))
    np.testing.assert_allclose(r.w, fp.w, atol=1e-7 * max(1.0, np.abs(fp.w).max()))
    np.testing.assert_allclose(r.u, _dual_reference(Q), atol=1e-5 * max(1.0, r.u.max()))


@pytest.mark.parametrize("nu", [1.0, 100.0])
def test_newton_kernel_equals_the_fixed_point_on_the_checkerboard(nu):
    X, y = make_checkerboard(300, seed=0)
    G = np.hstack([X, -np.ones((300, 1))])
    K = kernels.rbf_kernel(G, gamma=10.0)
    r = lsvm_kernel_newton(frozen(K), frozen(y), nu)
    assert r.converged and r.n_iter <= 30
    fp = lsvm_kernel(K, y, nu, max_iter=100000, tol=1e-10)
    assert fp.converged
    np.testing.assert_allclose(r.u, fp.u, atol=1e-7 * max(1.0, np.abs(fp.u).max()))


def test_newton_estimator_matches_the_fixed_point_estimator():
    X, y = make_checkerboard(200, seed=1)
    labels = np.where(y > 0, "black", "white")
    a = LagrangianSVC(kernel="rbf", gamma=10.0, nu=10.0, solver="newton").fit(X, labels)
    fixed = dict(solver="fixed-point", tol=1e-10, max_iter=100000)
    b = LagrangianSVC(kernel="rbf", gamma=10.0, nu=10.0, **fixed).fit(X, labels)
    np.testing.assert_allclose(a.u_, b.u_, atol=1e-6)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.solver_ == "newton" and b.solver_ == "fixed-point"
    assert a.n_iter_ < 20 < b.n_iter_ and a.converged_ and b.converged_
    lin = LagrangianSVC(nu=10.0).fit(X, labels)
    ref = LagrangianSVC(nu=10.0, **{**fixed, "tol": 1e-11}).fit(X, labels)
    np.testing.assert_allclose(lin.coef_, ref.coef_, atol=1e-7)


def test_newton_warns_when_it_runs_out_of_steps():
    X, y = make_noisy_2d(200, seed=3)
    with pytest.warns(ConvergenceWarning, match="active-set"):
        r = lsvm_linear_newton(X, y, 1000.0, max_iter=1)
    assert not r.converged


def _plain_active_set(Q, max_iter):
    """Newton's free-set update with no safeguard: returns the number of steps and
    whether a free set came back (a cycle) before the KKT conditions held."""
    m = Q.shape[0]
    free, seen = np.ones(m, dtype=bool), set()
    for it in range(1, max_iter + 1):
        u = np.zeros(m)
        u[free] = np.linalg.solve(Q[np.ix_(free, free)], np.ones(free.sum()))
        new_free = u - (Q @ u - 1.0) > 0
        if np.array_equal(new_free, free):
            return it, False
        if new_free.tobytes() in seen:
            return it, True
        seen.add(new_free.tobytes())
        free = new_free
    return max_iter, True


def _kkt_residual(Q, u):
    g = Q @ u - 1.0
    return max(-u.min(), -g.min(), np.abs(u * g).max())


def test_newton_kernel_ends_where_plain_newton_cycles():
    # On this checkerboard the unguarded free-set update returns to a free set
    # it has already visited; the safeguarded pivoting must still end at (12).
    X, y = make_checkerboard(100, seed=0)
    G = np.hstack([X, -np.ones((100, 1))])
    K = kernels.rbf_kernel(G, gamma=10.0)
    nu = 1000.0
    Q = np.eye(100) / nu + y[:, None] * K * y[None, :]
    _, cycled = _plain_active_set(Q, max_iter=200)
    assert cycled
    r = lsvm_kernel_newton(K, y, nu, max_iter=200)
    assert r.converged
    assert _kkt_residual(Q, r.u) <= 1e-8 * r.u.max()
    # the KKT conditions of a strictly convex QP fix u: compare with the reference too
    np.testing.assert_allclose(r.u, _dual_reference(Q), atol=1e-4 * r.u.max())


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_newton_kernel_warm_start_changes_the_path_not_the_answer(seed):
    X, y = make_checkerboard(1200, seed=seed)
    G = np.hstack([X, -np.ones((1200, 1))])
    K = kernels.rbf_kernel(G, gamma=100.0)
    cold = lsvm_kernel_newton(K, y, 100.0, warm_start=False)
    warm = lsvm_kernel_newton(K, y, 100.0)
    assert cold.converged and warm.converged
    np.testing.assert_allclose(warm.u, cold.u, atol=1e-9 * cold.u.max())
    Q = np.eye(1200) / 100.0 + y[:, None] * K * y[None, :]
    assert _kkt_residual(Q, warm.u) <= 1e-8 * warm.u.max()


@settings(max_examples=30)
@given(
    st.integers(5, 40),
    st.integers(1, 4),
    st.floats(1e-2, 1e4),
    st.integers(0, 2**32 - 1),
)
def test_newton_linear_satisfies_kkt_on_random_problems(m, n, nu, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, n))
    d = np.where(rng.random(m) < 0.5, -1, 1)
    d[:2] = [-1, 1]
    r = lsvm_linear_newton(A, d, nu, max_iter=500)
    assert r.converged
    H = d[:, None] * np.hstack([A, -np.ones((m, 1))])
    Q = np.eye(m) / nu + H @ H.T
    assert _kkt_residual(Q, r.u) <= 1e-7 * max(1.0, r.u.max())


def test_gamma_scale_means_what_it_means_for_svc():
    # The appended 1 does not change a Gaussian kernel, so it must not change 'scale'
    # either; for the polynomial kernel it is part of the data the kernel multiplies.
    X, y = make_checkerboard(300, seed=5)
    from sklearn.svm import SVC

    svc = SVC(gamma="scale").fit(X, y)
    for kernel in ("rbf", "exponential"):
        clf = LagrangianSVC(kernel=kernel, nu=1.0, solver="newton").fit(X, y)
        assert clf._gamma == pytest.approx(svc._gamma, rel=1e-12)
    G = np.hstack([X, np.ones((300, 1))])
    poly = LagrangianSVC(kernel="poly", degree=2, nu=1.0, solver="newton").fit(X, y)
    assert poly._gamma == pytest.approx(1.0 / (3 * G.var()), rel=1e-12)
