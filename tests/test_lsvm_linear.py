"""The linear active-set (Newton) LSVM: H_F'H_F kept up to date, one pass over A a step.

The incremental matrix is compared with the one built from scratch and with a naive
``H_F'H_F``; the solver with :func:`ksvm.lsvm.active_set` (the general loop, here fed
with the Sherman-Morrison-Woodbury solve of the free rows), with liblinear, and with
itself on the rows in another order.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from ksvm import LagrangianSVC
from ksvm.datasets import make_linear_large
from ksvm.linalg import apply_H, apply_Ht
from ksvm.lsvm import (
    active_set,
    augment,
    lsvm_linear,
    lsvm_linear_newton,
    newton,
    smw_factor,
    smw_solve,
)

from .conftest import frozen


def _naive_gram(A, d, free):
    """``H_F'H_F`` and ``H_F'1_F`` with ``H = Y [X 1]`` formed."""
    H = d[:, None] * np.hstack([A, np.ones((A.shape[0], 1))])
    return H[free].T @ H[free], H[free].T @ np.ones(int(free.sum()))


def _reference_newton(A, d, nu, max_iter=100, tol=1e-8):
    """The previous implementation: active_set with the free rows copied and factored."""

    def solve_free(free):
        AF, dF = A[free], d[free]
        return smw_solve(AF, dF, nu, smw_factor(AF, nu), np.ones(AF.shape[0]))

    def Q_times(u, free):
        du = d * u
        return u / nu + d * (A @ (A.T @ du) + du.sum())

    return active_set(solve_free, Q_times, A.shape[0], max_iter, tol, return_history=True)


def test_free_gram_equals_the_naive_one_for_masks_indices_and_blocks(monkeypatch):
    rng = np.random.default_rng(0)
    A, d = rng.normal(size=(50, 3)), np.where(rng.random(50) < 0.5, -1.0, 1.0)
    free = rng.random(50) < 0.6
    G_ref, b_ref = _naive_gram(A, d, free)
    monkeypatch.setattr(newton, "_BLOCK_ROWS", 7)  # several blocks, the last one short
    for rows in (free, np.flatnonzero(free)):
        G, b = newton._free_gram(A, d, rows)
        np.testing.assert_allclose(G, G_ref, rtol=1e-13, atol=1e-12)
        np.testing.assert_allclose(b, b_ref, rtol=1e-13, atol=1e-12)
    G, b = newton._free_gram(A, d)
    np.testing.assert_allclose(G, _naive_gram(A, d, np.ones(50, bool))[0], rtol=1e-13, atol=1e-12)
    G, b = newton._free_gram(A, d, np.zeros(50, bool))
    assert not G.any() and not b.any()


def test_incremental_gram_after_many_side_changes_equals_the_one_from_scratch():
    rng = np.random.default_rng(1)
    m = 5000
    A, d = make_linear_large(m, 10, seed=1)
    d = d.astype(float)
    free = np.ones(m, dtype=bool)
    G, b = newton._free_gram(A, d)
    for _ in range(200):  # 200 steps, each moving between 1 and 500 rows to the other side
        changed = np.zeros(m, dtype=bool)
        changed[rng.choice(m, size=rng.integers(1, 500), replace=False)] = True
        leaving = np.flatnonzero(changed & free)
        free ^= changed
        entering = np.flatnonzero(changed & free)
        G_in, b_in = newton._free_gram(A, d, entering)
        G_out, b_out = newton._free_gram(A, d, leaving)
        G, b = G + (G_in - G_out), b + (b_in - b_out)
    G_ref, b_ref = _naive_gram(A, d, free)
    scale = np.abs(G_ref).max()
    np.testing.assert_allclose(G, G_ref, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(b, b_ref, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("nu_times_m", [1.0, 3.0, 100.0, 1000.0, 1e5])
def test_takes_the_steps_of_the_general_active_set_loop(nu_times_m, monkeypatch):
    """Same free sets, same number of steps, same u as active_set with SMW on the copied
    free rows; blocks of 1000 rows so that the passes cross block boundaries."""
    monkeypatch.setattr(newton, "_BLOCK_ROWS", 1000)
    m = 4500
    A, d = make_linear_large(m, 10, seed=2)
    d = d.astype(float)
    ref = _reference_newton(A, d, nu_times_m / m)
    r = lsvm_linear_newton(frozen(A), frozen(d), nu_times_m / m, return_history=True)
    assert ref.converged and r.converged
    assert r.n_iter == ref.n_iter
    np.testing.assert_allclose(r.history, ref.history, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(r.u, ref.u, rtol=0, atol=1e-11 * ref.u.max())
    du = d * ref.u
    np.testing.assert_allclose(np.append(r.w, r.b), np.append(A.T @ du, du.sum()), rtol=1e-10)


def test_murty_pivots_take_the_same_path():
    """patience 0: after the first step only single pivots, each an update of one row."""
    rng = np.random.default_rng(3)
    m, n, nu = 60, 3, 1000.0
    A = rng.normal(size=(m, n))
    d = np.where(A @ [1.0, -2.0, 0.5] + 0.5 * rng.normal(size=m) > 0.3, 1.0, -1.0)

    def solve_free(free):
        return smw_solve(A[free], d[free], nu, smw_factor(A[free], nu), np.ones(free.sum()))

    def Q_times(u, free):
        du = d * u
        return u / nu + d * (A @ (A.T @ du) + du.sum())

    ref = active_set(solve_free, Q_times, m, 500, 1e-8, return_history=True, patience=0)
    r, margins = newton._linear_active_set(A, d, nu, 500, 1e-8, True, patience=0)
    assert ref.converged and r.converged and r.n_iter == ref.n_iter > 5
    np.testing.assert_allclose(r.u, ref.u, atol=1e-10 * ref.u.max())
    np.testing.assert_allclose(margins, d * (A @ r.w + r.b), atol=1e-12)


@pytest.mark.parametrize("nu_times_m", [1.0, 1000.0])
def test_equals_liblinear_and_the_fixed_point(nu_times_m):
    m = 20_000
    A, d = make_linear_large(m, 10, seed=0)
    nu = nu_times_m / m
    r = lsvm_linear_newton(A, d, nu)
    assert r.converged and r.n_iter <= 10
    fp = lsvm_linear(A, d, nu, max_iter=5000, tol=1e-11)
    plane = np.append(r.w, r.b)
    np.testing.assert_allclose(plane, np.append(fp.w, fp.b), rtol=1e-7)
    clf = LinearSVC(C=nu / 2, loss="squared_hinge", dual=False, tol=1e-10, max_iter=10000)
    clf.fit(A, d)
    np.testing.assert_allclose(plane, np.append(clf.coef_[0], clf.intercept_[0]), rtol=1e-5)


@settings(max_examples=25, deadline=None)
@given(st.integers(5, 60), st.integers(1, 4), st.floats(1e-2, 1e4), st.integers(0, 2**32 - 1))
def test_the_answer_does_not_depend_on_the_order_of_the_rows(m, n, nu, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, n))
    d = np.where(rng.random(m) < 0.5, -1, 1)
    d[:2] = [-1, 1]
    order = rng.permutation(m)
    r = lsvm_linear_newton(A, d, nu, max_iter=500)
    p = lsvm_linear_newton(A[order], d[order], nu, max_iter=500)
    assert r.converged and p.converged
    scale = max(1.0, r.u.max())
    np.testing.assert_allclose(p.u, r.u[order], rtol=0, atol=1e-8 * scale)
    np.testing.assert_allclose(np.append(p.w, p.b), np.append(r.w, r.b), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("nu_times_m", [1.0, 1000.0])
def test_the_default_estimator_takes_this_solver_and_reaches_its_tolerance(nu_times_m):
    m = 20_000
    A, d = make_linear_large(m, 10, seed=4)
    labels = np.where(d > 0, "yes", "no")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = LagrangianSVC(nu=nu_times_m / m).fit(A, labels)
    assert clf.solver_ == "newton" and clf.converged_
    r = lsvm_linear_newton(A, d, nu_times_m / m)
    np.testing.assert_array_equal(clf.u_, r.u)
    np.testing.assert_array_equal(clf.coef_[0], r.w)
    # the KKT conditions (12) to the default tolerance 1e-8, checked without the solver:
    # g = Qu - e = u / nu + H H'u - e, with H'u recomputed from u
    du = d * clf.u_
    g = clf.u_ / clf.nu_ + d * (A @ (A.T @ du) + du.sum()) - 1.0
    threshold = 1e-8 * max(1.0, clf.u_.max())
    assert clf.u_.min() >= 0 and g.min() >= -threshold
    assert np.abs(g[clf.u_ > 0]).max() <= 1e-9
    margins = d * clf.decision_function(A)
    np.testing.assert_array_equal(clf.support_, np.flatnonzero(margins < 1.0))


def test_the_estimator_warns_at_its_iteration_limit_and_names_the_knob():
    A, d = make_linear_large(2000, 10, seed=5)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        clf = LagrangianSVC(nu=0.5, max_iter=1).fit(A, d)
    assert not clf.converged_ and clf.n_iter_ == 1


@pytest.mark.parametrize("nu_times_m", [10.0, 1000.0])
def test_plane_is_h_transpose_u_of_the_returned_u(nu_times_m):
    # (9): w = A'Du and gamma = -e'Du for the u returned, whose entries within the
    # sign test's threshold below 0 are set to 0: the plane follows that u, as the
    # Dask solver's does, not the unclipped one of the last solve.
    A, d = make_linear_large(20_000, 5, seed=3)
    dd = np.where(d == np.unique(d)[1], 1.0, -1.0)
    # a loose tol, so that some entries end within the threshold below 0
    r = lsvm_linear_newton(A, d, nu=nu_times_m / 20_000, tol=1e-3)
    assert r.converged and r.u.min() >= 0.0
    du = dd * r.u
    np.testing.assert_allclose(r.w, A.T @ du, rtol=1e-12, atol=1e-15)
    assert abs(r.b - du.sum()) <= 1e-12 * max(1.0, abs(du).sum())


def test_h_transpose_u_is_the_plane_w_b_with_the_column_of_ones():
    # H = Y[X 1] (augment appends +1): H'u is (w, b) itself, with no sign to turn, for
    # the helpers of ksvm.linalg and for augment alike.
    X, y = make_linear_large(500, 3, seed=4)
    yy = np.where(y == np.unique(y)[1], 1.0, -1.0)
    r = lsvm_linear_newton(X, y, nu=1.0)
    plane = np.append(r.w, r.b)
    np.testing.assert_allclose(apply_Ht(X, yy, r.u), plane, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(augment(X).T @ (yy * r.u), plane, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(apply_H(X, yy, plane), yy * (X @ r.w + r.b), rtol=1e-12)


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("columns", [None, 1, 3])
def test_cholesky_solve_is_scipy_s_cho_solve_bit_for_bit(rng, lower, columns):
    from scipy.linalg import cho_factor, cho_solve

    from ksvm.linalg import cholesky_solve

    A = rng.normal(size=(7, 7))
    factor = cho_factor(A @ A.T + np.eye(7), lower=lower)
    b = rng.normal(size=7 if columns is None else (7, columns))
    x = cholesky_solve(factor, b)
    np.testing.assert_array_equal(x, cho_solve(factor, b, check_finite=False))
    np.testing.assert_allclose((A @ A.T + np.eye(7)) @ x, b, atol=1e-10)
    assert not np.shares_memory(x, b)
