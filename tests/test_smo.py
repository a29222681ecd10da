"""SMO and SoftMarginSVC against libsvm, the primal QP, the hinge form and the KKT conditions."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from ksvm import SoftMarginSVC, kernels
from ksvm._smo_loop import _ActiveSet, _ActiveSetBLAS
from ksvm.columns import KernelColumns
from ksvm.datasets import (
    load_breast_cancer_pm,
    make_cocianu_state,
    make_noisy_2d,
    make_separable_2d,
)
from ksvm.kernels import RBFBlock
from ksvm.primal import is_linearly_separable, primal_hinge, primal_objective, primal_qp
from ksvm.smo import CachedRows, GramRows, dual_objective, run_smo, smo, smo_rows

from .conftest import frozen


@parametrize_with_checks(
    [
        SoftMarginSVC(),
        SoftMarginSVC(kernel="linear", C=10.0),
        # on the checks' unscaled data this kernel reaches 1e8 and needs ~1e6
        # iterations; capped, it also exercises the ConvergenceWarning path
        SoftMarginSVC(kernel="poly", degree=2, selection="mvp", max_iter=20000),
        SoftMarginSVC(kernel="precomputed"),
        SoftMarginSVC(solver="rows", cache_size=0.01),
    ],
    expected_failed_checks=lambda estimator: (
        {
            "check_positive_only_tag_during_fit": (
                "it passes an indefinite matrix as a precomputed kernel, which SMO must refuse"
            ),
            "check_estimators_dtypes": (
                "it truncates a precomputed Gram matrix to integers; the result has an "
                "eigenvalue of -2 and SMO must refuse it"
            ),
        }
        if estimator.kernel == "precomputed"
        else {}
    ),
)
def test_scikit_learn_compatible(estimator, check):
    check(estimator)


def _breast_cancer():
    X, y = load_breast_cancer_pm()
    return StandardScaler().fit_transform(X), y


DATA = {
    "breast cancer": _breast_cancer(),
    "noisy 2-D": make_noisy_2d(300, flip=0.1, seed=0),
    "noisy 2-D, clean": make_noisy_2d(200, flip=0.0, seed=1),
}
KERNELS = {
    "linear": {},
    "poly": {"degree": 3, "gamma": 0.1, "coef0": 1.0},
    "rbf": {"gamma": 0.5},
}
GRAM = {
    "linear": kernels.linear_kernel,
    "poly": kernels.polynomial_kernel,
    "rbf": kernels.rbf_kernel,
}


def libsvm_multipliers(svc, n):
    alpha = np.zeros(n)
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return alpha


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_matches_libsvm(data, kernel, C):
    X, y = DATA[data]
    params = KERNELS[kernel]
    ours = SoftMarginSVC(C=C, kernel=kernel, tol=1e-6, **params).fit(X, y)
    ref = SVC(C=C, kernel=kernel, tol=1e-6, **params).fit(X, y)
    K = GRAM[kernel](X, **params)
    theirs = dual_objective(libsvm_multipliers(ref, len(y)), K, y)
    assert abs(ours.dual_objective_ - theirs) <= 1e-6 * abs(theirs)
    assert_array_equal(ours.predict(X), ref.predict(X))
    # Our (w, b) solves the primal: the duality gap is bounded by the KKT tolerance.
    gap = duality_gap(ours, K, y, C)  # >= 0 up to the rounding of two sums of size |theirs|
    assert -1e-12 * abs(theirs) <= gap <= gap_bound(len(y), C, 1e-6)
    if (data, kernel) != ("breast cancer", "linear") or C < 10:
        # (On breast cancer with the linear kernel and C >= 10 the optimum is
        # degenerate: (w, b) is not unique to 1e-4, and only the gap is compared.)
        assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-4)


def duality_gap(model, K, y, C):
    """P(w, b) - Theta(lambda) of a fitted model, w in feature space, from the training Gram
    matrix."""
    alpha = np.zeros(len(y))
    alpha[model.support_] = np.abs(model.dual_coef_[0])
    v = alpha * y
    f = K @ v + model.intercept_[0]
    primal = 0.5 * v @ K @ v + C * np.maximum(0.0, 1.0 - y * f).sum()
    return primal - dual_objective(alpha, K, y)


def gap_bound(n, C, tol):
    """At multipliers that meet the KKT conditions to ``tol`` (libsvm's test), with
    ``b`` between ``max_{I_up} F`` and ``min_{I_low} F``, every point adds at most
    ``2 C tol`` to the duality gap ``sum_i (C xi_i - lambda_i (1 - y_i f_i))``."""
    return 2.0 * n * C * tol


@pytest.mark.slow
def test_the_duality_gap_closes_on_a_degenerate_optimum():
    """Breast cancer, linear kernel, C = 100: the dual optimum is degenerate, so
    (w, b) is not pinned down by the dual objective; the duality gap of ours is
    bounded by the tolerance, measured both in feature space and with explicit w."""
    X, y = DATA["breast cancer"]
    C, tol = 100.0, 1e-8
    ours = SoftMarginSVC(C=C, kernel="linear", tol=tol).fit(X, y)
    gap = duality_gap(ours, X @ X.T, y, C)
    assert ours.converged_ and 0 <= gap <= gap_bound(len(y), C, tol)
    explicit = primal_objective(ours.coef_[0], ours.intercept_[0], X, y, C) - ours.dual_objective_
    assert explicit == pytest.approx(gap, abs=1e-8)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("C", [0.1, 10.0, np.inf])
def test_kkt_conditions_hold_to_the_tolerance(kernel, C):
    X, y = make_separable_2d(60, margin=0.5, seed=3) if np.isinf(C) else DATA["noisy 2-D"]
    tol = 1e-5
    K = GRAM[kernel](X, **KERNELS[kernel])
    r = smo(K, y, C, tol=tol)
    alpha, b = r.alpha, r.b
    yf = y * (K @ (alpha * y) + b)
    assert np.all(alpha >= 0) and np.all(alpha <= C)
    assert abs(alpha @ y) <= 1e-10 * max(1.0, alpha.sum())
    assert np.all(yf[alpha == 0] >= 1 - tol)
    assert np.all(yf[alpha == C] <= 1 + tol)
    free = (alpha > 0) & (alpha < C)
    assert np.all(np.abs(yf[free] - 1) <= tol)
    assert r.converged and r.gap <= tol


@pytest.mark.parametrize("data", ["noisy 2-D", "separable"])
@pytest.mark.parametrize("C", [0.1, 1.0, 100.0, np.inf])
def test_primal_and_dual_optima_agree(data, C):
    if data == "separable":
        X, y = make_separable_2d(40, seed=0)
    else:
        if np.isinf(C):
            pytest.skip("the noisy set is not separable: no hard-margin solution")
        X, y = make_noisy_2d(120, seed=2)
    dual = smo(X @ X.T, y, C, tol=1e-10)
    qp = primal_qp(X, y, C)
    assert qp.objective == pytest.approx(dual.objective, rel=1e-8)
    w_dual = (dual.alpha * y) @ X
    assert_allclose(w_dual, qp.w, atol=1e-5 * max(1.0, np.abs(qp.w).max()))
    if np.isfinite(C):
        hinge = primal_hinge(X, y, C)
        assert hinge.objective == pytest.approx(dual.objective, rel=1e-6)
        assert hinge.objective <= qp.objective + C * len(y) * 1e-7 / 2 + 1e-9


def test_hard_margin_hand_example_and_margin():
    X = np.array([[0.0], [1.0], [3.0], [4.0]])
    y = np.array([-1, -1, 1, 1])
    r = smo(X @ X.T, y, np.inf, tol=1e-12)
    assert_allclose(r.alpha, [0, 0.5, 0.5, 0], atol=1e-12)
    assert r.b == pytest.approx(-2.0)
    w = (r.alpha * y) @ X
    assert 2 / np.linalg.norm(w) == pytest.approx(2.0)  # the gap between x = 1 and x = 3
    q = primal_qp(X, y, np.inf)
    assert_allclose(q.w, [1.0], atol=1e-8)
    assert q.b == pytest.approx(-2.0, abs=1e-8)


def test_hard_margin_on_cocianu_state_data_matches_primal():
    X, y = make_cocianu_state(60, 70, accept=is_linearly_separable, seed=0)
    clf = SoftMarginSVC(C=np.inf, kernel="linear", tol=1e-9).fit(X, y)
    q = primal_qp(X, y, np.inf)
    assert clf.dual_objective_ == pytest.approx(q.objective, rel=1e-7)
    assert np.all(y * clf.decision_function(X) >= 1 - 1e-6)


def test_hard_margin_on_inseparable_data_warns():
    X, y = make_noisy_2d(50, flip=0.3, seed=0)
    with pytest.warns(ConvergenceWarning, match="not be separable"):
        smo(X @ X.T, y, np.inf, max_iter=2000)


def test_max_iter_warns_and_says_what_to_change():
    X, y = DATA["noisy 2-D"]
    with pytest.warns(ConvergenceWarning, match="raise max_iter or tol, or lower C"):
        clf = SoftMarginSVC(C=10.0, kernel="rbf", gamma=0.5, max_iter=5).fit(X, y)
    assert clf.n_iter_ == 5
    assert not clf.converged_ and clf.kkt_gap_ > clf.tol
    done = SoftMarginSVC(C=10.0, kernel="rbf", gamma=0.5).fit(X, y)
    assert done.converged_ and done.kkt_gap_ <= done.tol


def test_selection_rules_reach_the_same_optimum():
    X, y = DATA["noisy 2-D"]
    K = kernels.rbf_kernel(X, gamma=0.5)
    second = smo(K, y, 10.0, tol=1e-8)
    mvp = smo(K, y, 10.0, tol=1e-8, selection="mvp")
    assert second.objective == pytest.approx(mvp.objective, rel=1e-9)
    assert second.n_iter < mvp.n_iter


def test_history_rises_monotonically_to_the_objective():
    X, y = DATA["noisy 2-D"]
    r = smo(kernels.rbf_kernel(X, gamma=0.5), y, 1.0, tol=1e-6, return_history=True)
    assert r.history[0] == 0.0 and len(r.history) == r.n_iter + 1
    assert np.all(np.diff(r.history) >= -1e-12)
    assert r.history[-1] == pytest.approx(r.objective, rel=1e-10)


def test_prediction_from_support_vectors_alone_equals_the_full_sum(rng):
    X, y = DATA["noisy 2-D"]
    clf = SoftMarginSVC(C=1.0, kernel="rbf", gamma=0.5, tol=1e-6).fit(X, y)
    X_test = rng.uniform(-1, 1, size=(50, 2))
    coef = np.zeros(len(y))
    coef[clf.support_] = clf.dual_coef_[0]
    full = kernels.rbf_kernel(X_test, X, gamma=0.5) @ coef + clf.intercept_[0]
    assert len(clf.support_) < len(y)
    assert_allclose(clf.decision_function(X_test), full, rtol=1e-12, atol=1e-12)
    assert_array_equal(clf.support_vectors_, X[clf.support_])


def test_answer_does_not_depend_on_the_order_of_the_samples(rng):
    X, y = DATA["noisy 2-D"]
    X_test = rng.uniform(-1, 1, size=(30, 2))
    perm = rng.permutation(len(y))
    a = SoftMarginSVC(C=1.0, tol=1e-8).fit(X, y)
    b = SoftMarginSVC(C=1.0, tol=1e-8).fit(X[perm], y[perm])
    assert_allclose(a.decision_function(X_test), b.decision_function(X_test), atol=1e-6)


def test_precomputed_equals_named_kernel(rng):
    X, y = DATA["noisy 2-D"]
    X_test = rng.uniform(-1, 1, size=(20, 2))
    named = SoftMarginSVC(kernel="rbf", gamma=0.5, tol=1e-8).fit(X, y)
    pre = SoftMarginSVC(kernel="precomputed", tol=1e-8).fit(kernels.rbf_kernel(X, gamma=0.5), y)
    # the named kernel's Gram matrix is formed as its rows are (RBFBlock), which differs
    # from rbf_kernel's by rounding: the two runs agree to the KKT tolerance, not bit for bit
    assert_allclose(
        pre.decision_function(kernels.rbf_kernel(X_test, X, gamma=0.5)),
        named.decision_function(X_test),
        rtol=0,
        atol=1e-7,
    )
    assert pre.support_vectors_.shape == (0, 0)


def test_any_two_labels():
    X, y = DATA["noisy 2-D"]
    labels = np.where(y > 0, "yes", "no")
    clf = SoftMarginSVC(tol=1e-6).fit(X, labels)
    assert_array_equal(clf.classes_, ["no", "yes"])
    ref = SoftMarginSVC(tol=1e-6).fit(X, y)
    assert_array_equal(clf.predict(X) == "yes", ref.predict(X) == 1)


def test_inputs_are_not_modified():
    X, y = DATA["noisy 2-D"]
    X_ro = frozen(X)
    K_ro = frozen(kernels.rbf_kernel(X, gamma=0.5))
    SoftMarginSVC().fit(X_ro, y).predict(X_ro)
    smo(K_ro, y, 1.0)
    primal_qp(X_ro[:40], y[:40], 1.0)
    primal_hinge(X_ro, y, 1.0)
    assert_array_equal(X_ro, X)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda X, y: SoftMarginSVC().fit(X, np.ones_like(y)), "exactly two classes, got 1 class"),
        (lambda X, y: SoftMarginSVC().fit(X, np.arange(len(y)) % 3), "exactly two classes, got 3"),
        (lambda X, y: SoftMarginSVC(C=0.0).fit(X, y), "C must be > 0"),
        (lambda X, y: SoftMarginSVC(C=-1.0).fit(X, y), "C must be > 0"),
        (lambda X, y: SoftMarginSVC(tol=0.0).fit(X, y), "tol must be > 0"),
        (lambda X, y: SoftMarginSVC(selection="random").fit(X, y), "selection must be"),
        (lambda X, y: SoftMarginSVC(max_iter=-3).fit(X, y), "max_iter must be"),
        (lambda X, y: SoftMarginSVC(kernel="precomputed").fit(X, y), "must be square"),
        (
            lambda X, y: SoftMarginSVC(kernel="precomputed").fit(-kernels.rbf_kernel(X), y),
            "not positive semi-definite",
        ),
        (
            lambda X, y: SoftMarginSVC(kernel=lambda A, B: -A @ B.T).fit(X, y),
            "not positive semi-definite",
        ),
        (lambda X, y: smo(np.eye(len(y) + 1), y), "labels"),
        (lambda X, y: primal_qp(X, y, C=0.0), "C must be > 0"),
        (lambda X, y: primal_hinge(X, y, C=np.inf), "finite C"),
        (lambda X, y: primal_qp(X, y, C=np.inf), "separable"),
    ],
)
def test_bad_input(call, message):
    X, y = make_noisy_2d(40, flip=0.2, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(ValueError, match=message):
            call(X, y)


def test_precomputed_test_kernel_of_wrong_shape():
    X, y = make_noisy_2d(40, seed=5)
    clf = SoftMarginSVC(kernel="precomputed").fit(kernels.rbf_kernel(X), y)
    with pytest.raises(ValueError, match="one column per training sample"):
        clf.predict(np.ones((3, 39)))


# --- the step both solvers take ----------------------------------------------------


@pytest.mark.parametrize("cls", [_ActiveSet, _ActiveSetBLAS])
def test_pair_step_by_hand(cls):
    """K = I, y = (+1, -1), C = 0.4 from alpha = 0: F = y, a = 2, t = (1 - (-1)) / 2 = 1,
    clipped to 0.4; then F = y - 0.4 (K_0 - K_1) = (0.6, -0.6), and both multipliers sit
    at C: index 0 (y = +1) is in I_low only, index 1 (y = -1) in I_up only."""
    y = np.array([1.0, -1.0])
    act = cls(np.zeros(2), y.copy(), y > 0, np.ones(2), 0.4)
    i, j, gap = act.violating_pair()
    assert (i, j, gap) == (0, 1, 2.0)
    K = np.eye(2)
    assert act.second_order_j(i, K[i]) == 1
    gain = act.pair_step(i, j, K[i], K[j])
    assert act.t == 0.4  # the step, clipped to the box
    assert_allclose(act.alpha, [0.4, 0.4], rtol=0, atol=1e-15)
    assert_allclose(act.F, [0.6, -0.6], rtol=0, atol=1e-15)
    assert gain == pytest.approx(dual_objective(act.alpha, K, y), abs=1e-15)  # 0.64
    assert_array_equal(np.isfinite(act.up_pen), [False, True])
    assert_array_equal(np.isfinite(act.low_pen), [True, False])
    # optimal: m = max_{I_up} F = -0.6 <= M = min_{I_low} F = 0.6, any b in between
    assert act.violating_pair() == (1, 0, pytest.approx(-1.2, abs=1e-15))


@pytest.mark.parametrize("same_diag", [True, False])
def test_the_blas_step_equals_the_numpy_step_to_rounding(rng, same_diag):
    X, y = DATA["noisy 2-D"]
    K = kernels.rbf_kernel(X, gamma=0.5) if same_diag else kernels.polynomial_kernel(X, degree=2)
    C = 1.0
    alpha = np.where(rng.random(len(y)) < 0.3, rng.random(len(y)) * C, 0.0)
    F = y - K @ (alpha * y)
    plain = _ActiveSet(alpha.copy(), F.copy(), y > 0, np.diag(K).copy(), C)
    blas = _ActiveSetBLAS(alpha.copy(), F.copy(), y > 0, np.diag(K).copy(), C)
    assert blas.same_diag == same_diag
    for _ in range(50):
        i, j, gap = plain.violating_pair()
        i_b, j_b, gap_b = blas.violating_pair()
        assert (i_b, j_b) == (i, j) and gap_b == pytest.approx(gap, rel=1e-12)
        j = plain.second_order_j(i, K[i])
        assert blas.second_order_j(i, K[i]) == j
        assert blas.pair_step(i, j, K[i], K[j]) == pytest.approx(plain.pair_step(i, j, K[i], K[j]))
        assert_allclose(blas.F, plain.F, rtol=0, atol=1e-12)
        assert_allclose(blas.alpha, plain.alpha, rtol=0, atol=1e-12)
    assert_allclose(plain.F, y - K @ (plain.alpha * y), rtol=0, atol=1e-10)  # F from scratch


# --- smo_rows: the same iteration on kernel rows computed on demand ---------------


def kkt_violation(alpha, K, y, C):
    """max_{I_up} F - min_{I_low} F, from scratch."""
    F = y - K @ (alpha * y)
    up = np.where(y > 0, alpha < C, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < C)
    return F[up].max() - F[low].min()


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("C", [0.1, 10.0])
@pytest.mark.parametrize("shrinking", [True, False])
def test_rows_solver_equals_the_gram_matrix_solver(kernel, C, shrinking):
    X, y = DATA["noisy 2-D"]
    params = KERNELS[kernel]
    k = kernels.make_kernel(kernel, **params)
    K = k(X, X)
    dense = smo(K, y, C, tol=1e-6, shrinking=shrinking)
    rows = smo_rows(KernelColumns(k, X), y, C, tol=1e-6, shrinking=shrinking)
    assert rows.converged and rows.gap <= 1e-6
    assert kkt_violation(rows.alpha, K, y, C) <= 1.01e-6  # F maintained = F from scratch
    assert rows.objective == pytest.approx(dense.objective, rel=1e-9)
    assert rows.objective == pytest.approx(dual_objective(rows.alpha, K, y), rel=1e-12)
    assert abs(rows.b - dense.b) <= 1e-5
    assert_allclose(rows.alpha, dense.alpha, atol=1e-3 * max(1.0, C))


@pytest.mark.parametrize("cache_rows", [1, 3, 20])
def test_a_cache_too_small_for_the_work_gives_the_same_answer(cache_rows):
    X, y = DATA["noisy 2-D"]
    K = kernels.rbf_kernel(X, gamma=0.5)
    cols = KernelColumns(RBFBlock(0.5, X), X, cache_size=cache_rows * len(y) * 8 / 2**20)
    assert cols.capacity == cache_rows
    result = smo_rows(cols, y, 10.0, tol=1e-6, shrinking=False)  # every row from cols
    dense = smo(K, y, 10.0, tol=1e-6)
    assert result.objective == pytest.approx(dense.objective, rel=1e-9)
    assert kkt_violation(result.alpha, K, y, 10.0) <= 1.01e-6
    assert cols.n_rows_computed > len(y)  # rows were evicted and computed again


@pytest.mark.parametrize("data", ["breast cancer", "noisy 2-D"])
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_rows_solver_matches_libsvm(data, C):
    X, y = DATA[data]
    ours = SoftMarginSVC(C=C, gamma=0.5, tol=1e-6, solver="rows", cache_size=0.05).fit(X, y)
    assert ours.solver_ == "rows"
    ref = SVC(C=C, gamma=0.5, tol=1e-6).fit(X, y)
    K = kernels.rbf_kernel(X, gamma=0.5)
    theirs = dual_objective(libsvm_multipliers(ref, len(y)), K, y)
    assert abs(ours.dual_objective_ - theirs) <= 1e-6 * abs(theirs)
    assert_array_equal(ours.predict(X), ref.predict(X))
    assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-4)


def test_auto_takes_the_rows_when_the_gram_matrix_does_not_fit_the_cache():
    X, y = DATA["noisy 2-D"]  # 300 points: a Gram matrix of 0.69 MB
    small = SoftMarginSVC(gamma=0.5, tol=1e-6, cache_size=0.5).fit(X, y)
    large = SoftMarginSVC(gamma=0.5, tol=1e-6, cache_size=1.0).fit(X, y)
    assert (small.solver_, large.solver_) == ("rows", "gram")
    # the same iteration; rounding (libsvm's form of the RBF kernel) may change a few pairs
    assert abs(small.n_iter_ - large.n_iter_) <= 0.1 * large.n_iter_
    assert small.dual_objective_ == pytest.approx(large.dual_objective_, rel=1e-10)
    history = SoftMarginSVC(gamma=0.5, cache_size=0.5, keep_history=True).fit(X, y)
    pre = SoftMarginSVC(kernel="precomputed", cache_size=0.5).fit(kernels.rbf_kernel(X), y)
    assert history.solver_ == pre.solver_ == "gram"


@pytest.mark.parametrize(
    "params, message",
    [
        ({"solver": "rows", "kernel": "precomputed"}, "needs a named kernel"),
        ({"solver": "rows", "kernel": kernels.linear_kernel}, "needs a named kernel"),
        ({"solver": "rows", "keep_history": True}, "keep_history=True needs solver='gram'"),
        ({"solver": "fast"}, "solver must be"),
        ({"cache_size": 0.0}, "cache_size"),
    ],
)
def test_bad_solver_settings(params, message):
    X, y = DATA["noisy 2-D"]
    if params.get("kernel") == "precomputed":
        X = kernels.rbf_kernel(X)
    with pytest.raises(ValueError, match=message):
        SoftMarginSVC(**params).fit(X, y)


def test_rows_solver_warns_at_max_iter_and_keeps_inputs():
    X, y = DATA["noisy 2-D"]
    X0, y0 = X.copy(), y.copy()
    with pytest.warns(ConvergenceWarning, match="raise max_iter or tol"):
        clf = SoftMarginSVC(C=10.0, gamma=0.5, max_iter=5, solver="rows").fit(X, y)
    assert clf.n_iter_ == 5 and not clf.converged_
    assert_array_equal(X, X0)
    assert_array_equal(y, y0)


# --- one loop, two row providers, a callback -----------------------------------------


def index_kernel(K):
    """A kernel on the points ``[[0], [1], ...]`` that reads ``K``: its rows, computed
    by ``KernelColumns``, are exactly those of ``K``."""

    def k(A, B):
        return K[np.ix_(A[:, 0].astype(int), B[:, 0].astype(int))]

    return k


def providers(K, cache_rows=None):
    """The Gram-matrix provider and the cached-rows provider of the same ``K``."""
    n = len(K)
    index = np.arange(n, dtype=float)[:, None]
    size = (cache_rows or n) * n * 8 / 2**20
    columns = KernelColumns(index_kernel(K), index, cache_size=size)

    def product(rows, cols, v):
        return K[np.ix_(rows, cols)] @ v

    return GramRows(K), CachedRows(columns, product)


@pytest.mark.parametrize("second_order", [True, False])
@pytest.mark.parametrize("cache_rows", [None, 5])
def test_the_two_providers_take_the_same_steps(second_order, cache_rows):
    """Without shrinking, and with the arithmetic of the Gram matrix, the cached rows
    (all of them, or five at a time) give the same multipliers bit for bit."""
    X, y = DATA["noisy 2-D"]
    K = kernels.rbf_kernel(X, gamma=0.5)
    dense, rows = providers(K, cache_rows)
    rows.active_set = _ActiveSet
    args = dict(tol=1e-6, max_iter=10**5, second_order=second_order, shrinking=False)
    a, b = run_smo(dense, y, 10.0, **args), run_smo(rows, y, 10.0, **args)
    assert a.n_iter == b.n_iter > 100
    assert_array_equal(a.alpha, b.alpha)
    assert_array_equal(a.F, b.F)


def test_the_two_providers_reach_the_same_multipliers():
    """With their own arithmetic and shrinking, the same optimum to the tolerance."""
    X, y = DATA["noisy 2-D"]
    K = kernels.rbf_kernel(X, gamma=0.5)
    dense, rows = providers(K)
    a = run_smo(dense, y, 10.0, tol=1e-8, max_iter=10**5)
    b = run_smo(rows, y, 10.0, tol=1e-8, max_iter=10**5)
    assert_allclose(b.alpha, a.alpha, rtol=0, atol=1e-5)
    assert dual_objective(b.alpha, K, y) == pytest.approx(dual_objective(a.alpha, K, y), rel=1e-12)
    assert (
        kkt_violation(a.alpha, K, y, 10.0) <= 1.01e-8
        and kkt_violation(b.alpha, K, y, 10.0) <= 1.01e-8
    )


@pytest.mark.parametrize("which", ["gram", "rows"])
def test_the_callback_sees_every_step(which):
    """One call per pair step, shrinking included; replaying the steps from alpha = 0
    gives the final multipliers (exactly from the new values, to rounding from t)."""
    X, y = make_noisy_2d(1200, flip=0.1, seed=3)
    K = kernels.rbf_kernel(X, gamma=1.0)
    provider = providers(K)[which == "rows"]
    steps = []
    run = run_smo(provider, y, 10.0, tol=1e-6, max_iter=10**5, callback=steps.append)
    assert len(steps) == run.n_iter > 1000
    assert [s.n_iter for s in steps] == list(range(1, run.n_iter + 1))
    assert min(s.active.size for s in steps) < len(y)  # some steps ran shrunk
    exact, by_t = np.zeros(len(y)), np.zeros(len(y))
    objective = 0.0
    for s in steps:
        assert s.i != s.j and s.gain >= 0 and s.gap > 1e-6
        exact[s.i], exact[s.j] = s.alpha_i, s.alpha_j
        by_t[s.i] += y[s.i] * s.t
        by_t[s.j] -= y[s.j] * s.t
        objective += s.gain
    assert_array_equal(exact, run.alpha)
    assert_allclose(by_t, run.alpha, rtol=0, atol=1e-12)
    assert objective == pytest.approx(dual_objective(run.alpha, K, y), rel=1e-10)


def test_the_callback_does_not_change_the_steps():
    X, y = DATA["noisy 2-D"]
    K = kernels.rbf_kernel(X, gamma=0.5)
    watched = run_smo(GramRows(K), y, 10.0, tol=1e-6, max_iter=10**5, callback=lambda step: None)
    assert_array_equal(watched.alpha, smo(K, y, 10.0, tol=1e-6).alpha)


@pytest.mark.parametrize("C", [10.0, np.inf])
def test_one_warning_for_both_paths(C):
    """smo and smo_rows warn alike at max_iter, at the line that called them."""
    X, y = DATA["noisy 2-D"]
    k = kernels.make_kernel("rbf", gamma=0.5)
    with pytest.warns(ConvergenceWarning) as dense:
        smo(k(X, X), y, C, max_iter=5)
    with pytest.warns(ConvergenceWarning) as rows:
        smo_rows(KernelColumns(k, X), y, C, max_iter=5)
    assert [str(w.message) for w in dense] == [str(w.message) for w in rows]
    assert "max_iter=5" in str(dense[0].message)
    assert ("not be separable" in str(rows[0].message)) == np.isinf(C)
    assert dense[0].filename == rows[0].filename == __file__
