"""The kernel LSVM from rows on demand (lsvm_kernel_columns) against the Gram-matrix solvers."""

import copy
import importlib
import pickle
import pkgutil
import types
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from ksvm import LagrangianSVC, kernels
from ksvm.columns import KernelColumns
from ksvm.datasets import make_checkerboard, make_noisy_2d
from ksvm.lsvm import (
    KeptMemory,
    active_set,
    augment,
    dual_matrix,
    lsvm_kernel,
    lsvm_kernel_columns,
    lsvm_kernel_newton,
    working_set,
)
from ksvm.lsvm.block import BlockSolver, _block_of, _solve_lower
from ksvm.lsvm.working_set import (
    _accelerated_projected_gradient,
    _largest_eigenvalue_bound,
    _plus_minus_one,
    _predict,
    _Workspace,
)

from .conftest import frozen


def _problem(m, gamma, seed=0):
    X, y = make_checkerboard(m, seed=seed)
    G = augment(X)
    return G, y, kernels.make_kernel("rbf", gamma=gamma)


def _kkt_residual(Q, u):
    g = Q @ u - 1.0
    return max(-u.min(), -g.min(), np.abs(u * g).max())


@pytest.mark.parametrize("nu", [1.0, 10.0, 100.0, 1000.0])
@pytest.mark.parametrize("m", [300, 1100])  # 1100: two levels of warm start
def test_columns_path_equals_the_gram_path(m, nu):
    G, y, k = _problem(m, 100.0)
    K = k(G, G)
    ref = lsvm_kernel_newton(K, y, nu)
    columns = KernelColumns(k, frozen(G))
    r = lsvm_kernel_columns(columns, frozen(y), nu)
    assert r.converged and ref.converged
    np.testing.assert_allclose(r.u, ref.u, rtol=0, atol=1e-10 * ref.u.max())
    # only rows of points that were candidates for the free set: fewer than m
    assert columns.n_rows_computed < m
    assert _kkt_residual(dual_matrix(K, y, nu), r.u) <= 1e-8 * r.u.max()


@pytest.mark.parametrize("nu", [1.0, 1000.0])
def test_a_cache_too_small_for_the_free_rows_changes_nothing(nu):
    G, y, k = _problem(900, 100.0, seed=2)
    K = k(G, G)
    ref = lsvm_kernel_newton(K, y, nu)
    large = KernelColumns(k, G)
    small = KernelColumns(k, G, cache_size=20 * 900 * 8 / 2**20)  # 20 rows
    assert small.capacity == 20 < np.sum(ref.u > 0)
    r_large = lsvm_kernel_columns(large, y, nu)
    r_small = lsvm_kernel_columns(small, y, nu)
    np.testing.assert_allclose(r_small.u, ref.u, rtol=0, atol=1e-10 * ref.u.max())
    np.testing.assert_allclose(r_large.u, ref.u, rtol=0, atol=1e-10 * ref.u.max())
    assert small.cache_bytes <= 20 * 900 * 8
    assert r_small.kernel_values > r_large.kernel_values  # values had to be recomputed


def test_equals_the_fixed_point():
    G, y, k = _problem(400, 10.0, seed=3)
    K = k(G, G)
    r = lsvm_kernel_columns(KernelColumns(k, G), y, 10.0)
    fp = lsvm_kernel(K, y, 10.0, max_iter=100_000, tol=1e-10)
    assert fp.converged
    np.testing.assert_allclose(r.u, fp.u, atol=1e-7 * max(1.0, fp.u.max()))


def test_ends_on_the_problem_where_plain_newton_cycles():
    # The 100-point board of tests/test_lsvm.py on which the unguarded free-set update
    # cycles: the working sets and the guarded pivoting inside them still end at (12).
    G, y, k = _problem(100, 10.0)
    K = k(G, G)
    Q = dual_matrix(K, y, 1000.0)
    for warm_start in (False, True):
        r = lsvm_kernel_columns(KernelColumns(k, G), y, 1000.0, max_iter=200, warm_start=warm_start)
        assert r.converged
        assert _kkt_residual(Q, r.u) <= 1e-8 * r.u.max()
        np.testing.assert_allclose(
            r.u, lsvm_kernel_newton(K, y, 1000.0, max_iter=200).u, atol=1e-10 * r.u.max()
        )


def test_a_hand_checkable_case():
    A = np.array([[0.0], [1.0], [3.0], [4.0]])
    columns = KernelColumns(lambda X, Y: X @ Y.T, augment(A))
    r = lsvm_kernel_columns(columns, [-1, -1, 1, 1], nu=100.0)
    np.testing.assert_allclose(r.u, [0.0, 3.4004, 1.4587, 0.0], atol=1e-4)


def test_warns_at_max_iter_and_checks_its_input():
    G, y, k = _problem(300, 100.0)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        r = lsvm_kernel_columns(KernelColumns(k, G), y, 1000.0, max_iter=1)
    assert not r.converged
    with pytest.raises(ValueError, match="labels"):
        lsvm_kernel_columns(KernelColumns(k, G), y[:-1], 1.0)
    with pytest.raises(ValueError, match="nu"):
        lsvm_kernel_columns(KernelColumns(k, G), y, -1.0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 12), st.integers(0, 12))
def test_block_update_equals_a_direct_solve(seed, n_leave, n_enter):
    # Factor Q_BB for a random B, then ask for F = B - R + A: the block update must be
    # the direct solve of Q_FF u = e.
    rng = np.random.default_rng(seed)
    X, y = make_noisy_2d(120, seed=seed % 1000)
    Q = dual_matrix(kernels.rbf_kernel(X, gamma=2.0), y, 100.0)
    base = rng.random(120) < 0.7
    solver = BlockSolver(Q)
    solver(base)
    free = base.copy()
    free[rng.choice(np.flatnonzero(base), min(n_leave, base.sum() - 1), replace=False)] = False
    free[rng.choice(np.flatnonzero(~base), min(n_enter, (~base).sum()), replace=False)] = True
    u = solver(free)
    direct = np.linalg.solve(Q[np.ix_(free, free)], np.ones(free.sum()))
    np.testing.assert_allclose(u, direct, rtol=0, atol=1e-10 * np.abs(direct).max())


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 60), min_size=1, max_size=6))
def test_a_chain_of_refactorings_equals_direct_solves(seed, changes):
    # Free sets that change by up to half their size, one after the other: the solver
    # updates, refactors from the first point that leaves (keeping the leading columns
    # of its factor) or refactors whole; each answer must be the direct solve.
    rng = np.random.default_rng(seed)
    X, y = make_noisy_2d(120, seed=seed % 1000)
    Q = dual_matrix(kernels.rbf_kernel(X, gamma=2.0), y, 1.0)
    free = rng.random(120) < 0.6
    solver = BlockSolver(Q)
    for change in [0, *changes]:
        flip = rng.choice(120, change, replace=False)
        free[flip] = ~free[flip]
        if not free.any():
            free[0] = True
        u = solver(free)
        direct = np.linalg.solve(Q[np.ix_(free, free)], np.ones(free.sum()))
        np.testing.assert_allclose(u, direct, rtol=0, atol=1e-10 * np.abs(direct).max())


@pytest.mark.parametrize("nu", [1.0, 100.0])
def test_estimator_needs_no_gram_matrix_and_matches_the_gram_path(nu):
    X, y = make_checkerboard(800, seed=4)
    labels = np.where(y > 0, "black", "white")
    model = LagrangianSVC(kernel="rbf", gamma=100.0, nu=nu, solver="newton").fit(X, labels)
    K = kernels.rbf_kernel(augment(X), gamma=100.0)
    ref = LagrangianSVC(kernel="precomputed", nu=nu).fit(K, labels)  # the m x m path
    np.testing.assert_allclose(model.u_, ref.u_, rtol=0, atol=1e-10 * ref.u_.max())
    np.testing.assert_array_equal(model.support_, ref.support_)
    assert ref.n_kernel_rows_ == 800
    assert nu < 100 or model.n_kernel_rows_ < 800  # few support vectors: few rows
    np.testing.assert_array_equal(model.predict(X), ref.predict(K))
    assert model.converged_ and model.solver_ == "newton"


def test_estimator_cache_size_is_validated():
    X, y = make_checkerboard(50, seed=0)
    with pytest.raises(ValueError, match="cache_size"):
        LagrangianSVC(kernel="rbf", cache_size=0.0).fit(X, y)


def test_updates_on_one_factor_reuse_columns_and_stay_exact():
    # Updates on one factor that repeat, extend and shrink the last one's entering and
    # leaving points (whose columns of L^{-1}[Q_BA E_R] are kept), then a new factor whose
    # positions mean other points (kept columns would be stale): every answer must be the
    # direct solve, and the kept columns must serve the repeated points.
    X, y = make_noisy_2d(150, seed=3)
    Q = dual_matrix(kernels.rbf_kernel(X, gamma=2.0), y, 1.0)
    base = np.zeros(150, dtype=bool)
    base[:100] = True
    solver = BlockSolver(Q)
    solver(base)
    sets = []
    # Points near the start of the factor leave: an update, not a refactoring of the rest.
    for leave, enter in [
        ([5, 10], [120]),
        ([5, 10, 12], [120, 130]),
        ([10], [130]),
        ([], [120, 121, 122]),
        ([6, 10, 19], []),
    ]:
        free = base.copy()
        free[leave], free[enter] = False, True
        sets.append(free)
    sets.append(np.arange(150) % 3 != 0)  # refactored: positions now mean other points
    sets.append(sets[-1] & (np.arange(150) != 4))
    for free in sets:
        u = solver(free)
        direct = np.linalg.solve(Q[np.ix_(free, free)], np.ones(free.sum()))
        np.testing.assert_allclose(u, direct, rtol=0, atol=1e-10 * np.abs(direct).max())
        if free is sets[2]:  # 10 and 130 both seen before on this factor
            assert {("r", 10), ("a", 130)} <= set(solver._columns)


@pytest.mark.parametrize("n_free", [10, 60, 110])  # more and fewer rows off F than on it
def test_Q_times_off_is_Qu_off_the_free_set(n_free):
    rng = np.random.default_rng(n_free)
    X, y = make_noisy_2d(120, seed=1)
    Q = dual_matrix(kernels.rbf_kernel(X, gamma=2.0), y, 10.0)
    free = np.zeros(120, dtype=bool)
    free[rng.choice(120, n_free, replace=False)] = True
    u = np.where(free, rng.random(120), 0.0)
    g = BlockSolver(Q).M_times_off(u, free)
    np.testing.assert_allclose(g[~free], (Q @ u)[~free], rtol=1e-13, atol=1e-13)


def test_block_of_is_fancy_indexing():
    rng = np.random.default_rng(0)
    A = rng.random((30, 30))
    Q = A + A.T
    for rows, cols in [([3, 1, 7], list(range(0, 30, 2))), (list(range(25)), [4, 9])]:
        block = _block_of(Q, np.array(rows), np.array(cols))
        np.testing.assert_array_equal(block, Q[np.ix_(rows, cols)])


@pytest.mark.parametrize(
    "d",
    [np.array([1.0, -1.0, 1.0]), np.array([3, 5, 3]), np.array(["b", "a", "b"]), [2.0, 1.0, 2.0]],
)
def test_labels_taken_as_they_are_only_when_already_encoded(d):
    from ksvm._validation import encode_binary_labels

    np.testing.assert_array_equal(_plus_minus_one(d), encode_binary_labels(d)[0])


@pytest.mark.parametrize("d", [np.ones(4), np.array([1.0, -1.0, 2.0]), np.array([1.0, -1.0, 0.0])])
def test_labels_not_two_classes_are_refused_as_before(d):
    with pytest.raises(ValueError):
        _plus_minus_one(d)


@pytest.mark.parametrize("order", ["F", "C", "F slice", "C slice"])
@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("columns", [None, 1, 7])
def test_solve_lower_is_scipys_solve_triangular(order, trans, columns):
    # The block solver's triangular solves call LAPACK as solve_triangular does: the same
    # values bit for bit, for factors in either memory order and for their leading blocks.
    from scipy.linalg import solve_triangular

    rng = np.random.default_rng(len(order) + 3 * trans)
    A = rng.standard_normal((60, 60))
    L = np.linalg.cholesky(A @ A.T + 60 * np.eye(60))
    L = np.asfortranarray(L) if order.startswith("F") else np.ascontiguousarray(L)
    if order.endswith("slice"):
        L = L[:45, :45]
    b = rng.standard_normal(len(L) if columns is None else (len(L), columns))
    b_before = b.copy()
    expected = solve_triangular(L, b, lower=True, trans=int(trans), check_finite=False)
    np.testing.assert_array_equal(_solve_lower(L, b, trans=trans), expected)
    np.testing.assert_array_equal(b, b_before)  # b is not overwritten unless asked


@pytest.mark.parametrize("order", ["F", "C", "slice"])
@pytest.mark.parametrize("overwrite", [False, True])
def test_cholesky_calls_lapack_as_cho_factor_does(order, overwrite):
    # ksvm.linalg.cholesky factors a float64 matrix by cho_factor's own LAPACK call: the
    # same array bit for bit (its upper triangle left as it was), M kept unless overwrite.
    from scipy.linalg import cho_factor

    from ksvm.linalg import cholesky

    A = np.random.default_rng(len(order)).standard_normal((50, 50))
    M = np.asfortranarray(A @ A.T + 50 * np.eye(50)) if order != "C" else A @ A.T + 50 * np.eye(50)
    if order == "slice":
        M = M[:40, :40]
    expected = cho_factor(M.copy(order="K"), lower=True, check_finite=False)[0]
    before = M.copy()
    c, lower = cholesky(M, "M", overwrite=overwrite)
    assert lower
    np.testing.assert_array_equal(c, expected)
    if not overwrite:
        np.testing.assert_array_equal(M, before)
    np.testing.assert_array_equal(
        cholesky(M.astype(np.float32), "M")[0], cho_factor(M.astype(np.float32), lower=True)[0]
    )  # other types through cho_factor itself
    M = before.copy()
    M[3, 3] = -1.0
    with pytest.raises(ValueError, match="M is not positive definite"):
        cholesky(M, "M")


def test_solve_lower_refuses_a_singular_factor_and_takes_no_columns():
    L = np.asfortranarray(np.tril(np.ones((4, 4))))
    assert _solve_lower(L, np.empty((4, 0))).shape == (4, 0)
    L[2, 2] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="diagonal 2"):
        _solve_lower(L, np.ones(4))


def test_a_refactoring_whose_order_ends_on_its_size_is_not_the_leading_block():
    # The factor's own order becomes [2, 0, 1, 4] (point 2 first, the others bordered);
    # then 2 leaves and 3 enters: the order [0, 1, 4, 3] ends on 3 = its size - 1, yet its
    # points are not the leading block {0, 1, 2, 3} of Q.
    X, y = make_noisy_2d(6, seed=0)
    Q = dual_matrix(kernels.rbf_kernel(X, gamma=0.5), y, 1.0)
    solver = BlockSolver(Q)
    for points in ([2], [2, 0, 1, 4], [0, 1, 3, 4]):
        free = np.isin(np.arange(6), points)
        u = solver(free)
        direct = np.linalg.solve(Q[np.ix_(free, free)], np.ones(free.sum()))
        np.testing.assert_allclose(u, direct, rtol=0, atol=1e-12 * np.abs(direct).max())
    assert solver.base_idx.tolist() == [0, 1, 4, 3]


def _exact(Q):
    r = active_set(
        lambda F: np.linalg.solve(Q[np.ix_(F, F)], np.ones(F.sum())),
        lambda u, F: Q @ u,
        len(Q),
        200,
        1e-13,
    )
    assert r.converged
    return r.u


@pytest.mark.parametrize("n", [7, 300])  # 300: Q's rows taken in blocks of 109
def test_largest_eigenvalue_bound_is_the_largest_absolute_row_sum(n):
    X, y = make_noisy_2d(n, seed=1)
    Q = dual_matrix(kernels.rbf_kernel(X, gamma=2.0), y, 3.0)
    bound = _largest_eigenvalue_bound(frozen(Q))
    assert bound == np.abs(Q).sum(axis=1).max()
    assert bound >= np.linalg.eigvalsh(Q)[-1]


@pytest.mark.parametrize("nu", [2.0, 200.0])
@pytest.mark.parametrize("dtype, digits", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_accelerated_projected_gradient_keeps_its_rate(nu, dtype, digits):
    # Beck's Theorem 10.42 with f(0) - f* = e'u*/2: ||u_k - u*||^2 <= (2/mu) (1 - q)^k
    # (e'u*/2 + mu ||u*||^2 / 2); also with L the Gershgorin bound, above lambda_max;
    # in single precision too, down to its rounding.
    X, y = make_checkerboard(200, seed=4)
    Q = dual_matrix(kernels.rbf_kernel(X, gamma=100.0), y, nu)
    u_star, mu, L = _exact(Q), 1.0 / nu, _largest_eigenvalue_bound(Q)
    q = np.sqrt(mu / L)
    start = u_star.sum() / 2 + mu * (u_star @ u_star) / 2
    rounding = len(Q) * (digits * u_star.max()) ** 2
    Q_frozen = frozen(Q).astype(dtype)
    for k in (1, 5, 20, 80, 320):  # at nu = 2 the last bound is the rounding's
        u = _accelerated_projected_gradient(Q_frozen, mu, L, k)
        assert u.dtype == dtype and u.min() >= 0.0
        assert np.sum((u - u_star) ** 2) <= 2 / mu * (1 - q) ** k * start * (1 + 1e-9) + rounding


def test_the_prediction_puts_nearly_every_point_on_its_side_of_the_margin():
    # A warm start's lowest level for 1000 points at nu = 1: 500 points, nu doubled.  It
    # is given P = I/nu + K and the labels, with Q = D P D.
    X, y = make_checkerboard(500, seed=0)
    K, d = kernels.rbf_kernel(X, gamma=100.0), _plus_minus_one(y)
    u = _predict(frozen(K + np.eye(500) / 2.0), frozen(d), 2.0)
    assert np.mean((u > 0) != (_exact(dual_matrix(K, y, 2.0)) > 0)) <= 0.02


def test_the_prediction_in_single_precision_is_the_one_in_double_precision():
    # _predict steps on a float32 copy of P (in a workspace's memory, apart from P's):
    # the same points on each side of the margin as the same steps in float64.
    X, y = make_checkerboard(500, seed=0)
    K, d = kernels.rbf_kernel(X, gamma=100.0), _plus_minus_one(y)
    mu, L = 0.5, _largest_eigenvalue_bound(K + np.eye(500) / 2.0)
    steps = min(working_set._PREDICTION_STEPS, int(np.ceil(np.log(100.0) / np.sqrt(mu / L))))
    double = _accelerated_projected_gradient(frozen(K + np.eye(500) / 2.0), mu, L, steps, d)
    workspace = _Workspace(500, KeptMemory(), solve=False)
    P = workspace.P(500)
    P[...] = K + np.eye(500) / 2.0
    single = workspace.single(500)
    assert single.dtype == np.float32 and not np.shares_memory(single, P)
    u = _predict(P, frozen(d), 2.0, single)
    assert u.dtype == np.float64
    np.testing.assert_array_equal(P, K + np.eye(500) / 2.0)  # P itself unchanged
    np.testing.assert_array_equal(u > 0, double > 0)
    np.testing.assert_allclose(u, double, rtol=0, atol=1e-5 * double.max())
    np.testing.assert_array_equal(_predict(frozen(P), frozen(d), 2.0), u)
    # the values of far points, subnormal in single precision (slow to multiply), are 0
    tiny = np.finfo(np.float32).tiny
    assert np.count_nonzero((P > 0) & np.less(P, tiny)) > 1000
    assert not np.any((single != 0) & (np.abs(single) < tiny))


def test_the_gradient_steps_with_labels_are_those_on_DPD():
    X, y = make_checkerboard(120, seed=6)
    K, d = kernels.rbf_kernel(X, gamma=30.0), _plus_minus_one(y)
    P = K + np.eye(120) / 5.0
    Q = dual_matrix(K, y, 5.0)
    np.testing.assert_array_equal(Q, d[:, None] * P * d[None, :])
    L = _largest_eigenvalue_bound(Q)
    assert _largest_eigenvalue_bound(P) == L
    # the signs change no rounding: the same iterates to the last bit, in either precision
    # (which lets _predict run on Y P Y)
    for dtype in (np.float64, np.float32):
        np.testing.assert_array_equal(
            _accelerated_projected_gradient(P.astype(dtype), 0.2, L, 25, d),
            _accelerated_projected_gradient(Q.astype(dtype), 0.2, L, 25),
        )


def test_kept_memory_gives_its_block_to_one_taker_at_a_time():
    kept = KeptMemory(limit=8 * 1000)
    first = kept.take(100)
    assert first.size == 100 and kept.nbytes == 0
    kept.give(first)
    assert kept.nbytes == 800
    again = kept.take(60)  # the kept block, taken: no longer kept
    assert again.size == 60 and np.shares_memory(again, first) and kept.nbytes == 0
    other = kept.take(50)  # nothing kept: a new block
    assert not np.shares_memory(other, first)
    kept.give(again)
    kept.give(other)  # smaller than the one kept: not kept
    assert kept.nbytes == 800 and not np.shares_memory(kept.take(10), other)
    kept.give(kept.take(2000))  # over the limit: not kept
    assert kept.nbytes == 0
    kept.give(first)
    kept.clear()
    assert kept.nbytes == 0


def test_a_workspace_never_hands_out_memory_in_use():
    kept = KeptMemory(limit=10**9)
    w = _Workspace(10, kept)
    Q1, F1 = w.P(8), w.factor(8, "F")
    Q2, F2 = w.P(10), w.factor(9)  # formed from Q1 and F1
    assert Q2.flags.c_contiguous and F1.flags.f_contiguous and F2.flags.c_contiguous
    temps = [w.empty((10, 10)), w.empty((7, 13)), w.empty((5, 5))]
    arrays = [Q1, F1, Q2, F2, *temps]
    for i, a in enumerate(arrays):
        for b in arrays[i + 1 :]:
            assert not np.shares_memory(a, b)
    Q3, F3 = w.P(3), w.factor(4)  # in the slots of Q1 and F1, no longer in use
    assert np.shares_memory(Q3, Q1) and not np.shares_memory(Q3, Q2)
    assert np.shares_memory(F3, F1) and not np.shares_memory(F3, F2)
    w.release()
    assert np.shares_memory(w.empty((10, 10)), temps[0])  # temporaries handed out again
    w.close()
    assert kept.nbytes == 6 * 10**2 * 8


@pytest.mark.parametrize("room, size", [(1.0, 1000), (1.125, 300)])
def test_workspaces_change_no_answer(monkeypatch, room, size):
    # room 1.0: every working set that grows moves to a new workspace; size 300: the
    # lower levels take one and the top level does not.
    G, y, k = _problem(1100, 100.0, seed=5)
    for nu in (1.0, 1000.0):
        monkeypatch.setattr(working_set, "_WORKSPACE_SIZE", 0)
        ref = lsvm_kernel_columns(KernelColumns(k, G), y, nu)
        monkeypatch.setattr(working_set, "_WORKSPACE_SIZE", size)
        monkeypatch.setattr(working_set, "_WORKSPACE_ROOM", room)
        r = lsvm_kernel_columns(KernelColumns(k, G), y, nu)
        assert r.n_iter == ref.n_iter and r.kernel_values == ref.kernel_values
        np.testing.assert_allclose(r.u, ref.u, rtol=0, atol=1e-12 * ref.u.max())


def _taking(monkeypatch, kept):
    """The sizes taken from ``kept`` from now on, and the arrays it hands out."""
    taken, original = [], kept.take
    monkeypatch.setattr(kept, "take", lambda size: taken.append(original(size)) or taken[-1])
    return taken


def test_repeated_fits_of_an_estimator_work_in_the_memory_it_keeps(monkeypatch):
    X, y = make_checkerboard(1000, seed=0)
    clf = LagrangianSVC(kernel="rbf", gamma=100.0, nu=1.0, solver="newton").fit(X, y)
    kept = clf._kept
    block = kept._block
    assert 0 < kept.nbytes <= kept.limit
    taken = _taking(monkeypatch, kept)
    clf.fit(X, y)
    assert taken and all(np.shares_memory(t, block) for t in taken)
    assert clf._kept is kept and kept._block is block
    # Another estimator keeps its own: it takes nothing of this one's.
    other = LagrangianSVC(kernel="rbf", gamma=100.0, nu=1.0, solver="newton").fit(X, y)
    assert other._kept is not kept and not np.shares_memory(other._kept._block, block)
    assert kept._block is block


def test_the_memory_kept_is_neither_cloned_nor_pickled():
    X, y = make_checkerboard(300, seed=0)
    clf = LagrangianSVC(kernel="rbf", gamma=100.0, nu=1.0, solver="newton").fit(X, y)
    assert clf._kept.nbytes > 0
    assert not hasattr(clone(clf), "_kept")
    again = pickle.loads(pickle.dumps(clf))
    assert not hasattr(again, "_kept") and clf._kept.nbytes > 0  # the original keeps it
    assert len(pickle.dumps(clf)) < clf._kept.nbytes
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))
    assert not hasattr(copy.deepcopy(clf), "_kept")
    np.testing.assert_array_equal(again.fit(X, y).u_, clf.u_)  # refitted with memory of its own


def test_two_estimators_fitted_at_once_in_two_threads_fit_as_one_after_the_other():
    problems = [make_checkerboard(1000, seed=s) for s in (0, 1)]
    params = [{"nu": 1.0}, {"nu": 100.0}]

    def fit(i, rounds=3):  # several fits each, so that each reuses its memory under the other
        clf = LagrangianSVC(kernel="rbf", gamma=100.0, **params[i])
        return [clf.fit(*problems[i]).u_.copy() for _ in range(rounds)]

    alone = [fit(i, 1)[0] for i in (0, 1)]
    for _ in range(2):
        with ThreadPoolExecutor(max_workers=2) as pool:
            together = list(pool.map(fit, (0, 1)))
        for i in (0, 1):
            for u in together[i]:
                np.testing.assert_array_equal(u, alone[i])


def test_a_call_without_kept_memory_keeps_nothing_after_it(monkeypatch):
    made = []
    original = working_set.KeptMemory.__init__

    def init(self, *args, **kwargs):
        made.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(working_set.KeptMemory, "__init__", init)
    G, y, k = _problem(1100, 100.0, seed=5)
    lsvm_kernel_columns(KernelColumns(k, G), y, 1.0)
    lsvm_kernel_columns(KernelColumns(k, G), y, 1.0)
    assert len(made) == 2 and made[0] is not made[1]  # one for each call, dropped after it
    with pytest.raises(TypeError, match="kept must be a KeptMemory"):
        lsvm_kernel_columns(KernelColumns(k, G), y, 1.0, kept=np.empty(10))


def test_a_fit_with_a_large_working_set_keeps_no_memory(monkeypatch):
    # 1100 points, workspaces up to 300 points: the lower levels take them, the top level
    # (over 300) empties the memory kept, which would only add to its peak.
    kept = KeptMemory()
    monkeypatch.setattr(working_set, "_WORKSPACE_SIZE", 300)
    G, y, k = _problem(1100, 100.0, seed=5)
    taken = _taking(monkeypatch, kept)
    lsvm_kernel_columns(KernelColumns(k, G), y, 1.0, kept=kept)
    assert taken and kept.nbytes == 0


def test_no_module_of_the_lsvm_holds_state_of_its_own():
    # Constants, functions, classes and modules only (and scipy's BLAS routines): no
    # object that a fit could change, such as a memory pool shared by every caller.
    import ksvm.lsvm

    immutable = (
        int,
        float,
        str,
        bool,
        tuple,
        frozenset,
        type(None),
        type,
        types.ModuleType,
        types.FunctionType,
        types.BuiltinFunctionType,
    )
    found = []
    for info in pkgutil.iter_modules(ksvm.lsvm.__path__):
        module = importlib.import_module(f"ksvm.lsvm.{info.name}")
        for name, value in vars(module).items():
            if name.startswith("__") or isinstance(value, immutable):
                continue
            if type(value).__name__ in ("fortran", "CPUDispatcher"):  # BLAS, numba functions
                continue
            found.append(f"{info.name}.{name}")
    assert found == []


@pytest.mark.parametrize("nu", [1.0, 1000.0])
def test_a_level_below_the_top_solves_its_first_working_set_alone(nu):
    # 1100 points: a level of 550 above the lowest, of 275.  Below the top a level only
    # predicts: it returns the exact solution of the problem restricted to the working
    # set its own half predicts, not checked against the points outside that set.
    G, y, k = _problem(1100, 100.0, seed=4)
    y = _plus_minus_one(y)
    points = np.arange(1, 1100, 2)
    level = working_set._WorkingSets(KernelColumns(k, G), y, 100, 1e-8, True, KeptMemory())
    work, _ = level.warm_start_set(nu, points)
    u, steps, converged, Ku = level.solve(nu, points, exact=False)
    assert steps > 0 and not converged and Ku is None
    K = k(G[points], G[points])
    W = np.sort(work)
    restricted = lsvm_kernel_newton(K[np.ix_(W, W)], y[points][W], nu)
    expected = np.zeros(points.size)
    expected[W] = restricted.u
    np.testing.assert_allclose(u, expected, rtol=0, atol=1e-10 * expected.max())
    # ... which is not the solution on all its points: some point outside its working
    # set is on the wrong side, and the exact level, which checks them, differs.
    exact = lsvm_kernel_newton(K, y[points], nu).u
    assert np.abs(exact - u).max() > 1e-6 * exact.max()
    u_exact, _, converged, _ = level.solve(nu, points)
    assert converged
    np.testing.assert_allclose(u_exact, exact, rtol=0, atol=1e-10 * exact.max())
