"""The compiled SMO loop against the numpy loop it twins: the same steps, bit for bit."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from ksvm import SoftMarginSVC, kernels
from ksvm._rbf_compiled import FEW_FEATURES, RBFFewFeatures
from ksvm._smo_compiled import _violating_pair
from ksvm.columns import KernelColumns
from ksvm.datasets import make_checkerboard, make_noisy_2d, make_separable_2d
from ksvm.kernels import RBFBlock
from ksvm.smo import GRAM_UP_TO, CachedRows, GramRows, _rbf_rows, run_smo, smo


def watched(provider, y, C, **options):
    """The numpy loop: a callback makes run_smo step in Python."""
    return run_smo(provider, y, C, callback=lambda step: None, **options)


def problems():
    X, y = make_noisy_2d(400, flip=0.1, seed=5)
    Xs, ys = make_separable_2d(80, seed=2)
    Xc, yc = make_checkerboard(500, seed=4)
    twice = np.vstack([X[:150], X[:150]])  # every point twice: curvatures of 0
    return {
        "rbf, C=10": (kernels.rbf_kernel(X, gamma=1.0), y, 10.0),
        "rbf, C=0.1": (kernels.rbf_kernel(X, gamma=1.0), y, 0.1),
        "checkerboard, C=100": (kernels.rbf_kernel(Xc, gamma=8.0), yc, 100.0),
        "linear, hard margin": (kernels.linear_kernel(Xs), ys, np.inf),
        "sigmoid (not PSD)": (kernels.sigmoid_kernel(X, gamma=0.5, coef0=-1.0), y, 1.0),
        "duplicate points": (kernels.rbf_kernel(twice, gamma=1.0), np.tile(y[:150], 2), 5.0),
    }


@pytest.mark.parametrize("problem", list(problems()))
@pytest.mark.parametrize("second_order", [True, False])
@pytest.mark.parametrize("shrinking", [True, False])
def test_the_compiled_loop_takes_the_numpy_loops_steps(problem, second_order, shrinking):
    K, y, C = problems()[problem]
    options = dict(tol=1e-5, max_iter=20_000, second_order=second_order, shrinking=shrinking)
    fast = run_smo(GramRows(K), y, C, **options)
    slow = watched(GramRows(K), y, C, **options)
    assert fast.n_iter == slow.n_iter > 10
    assert_array_equal(fast.alpha, slow.alpha)
    assert_array_equal(fast.F, slow.F)


def test_out_of_steps_stops_where_the_numpy_loop_does():
    K, y, C = problems()["rbf, C=10"]
    for max_iter in (0, 1, 7, 999):
        fast = run_smo(GramRows(K), y, C, tol=1e-9, max_iter=max_iter)
        slow = watched(GramRows(K), y, C, tol=1e-9, max_iter=max_iter)
        assert fast.n_iter == slow.n_iter == max_iter
        assert_array_equal(fast.alpha, slow.alpha)


def test_a_non_contiguous_gram_matrix_gives_the_same_steps():
    K, y, C = problems()["rbf, C=10"]
    fortran = np.asfortranarray(K)
    assert_array_equal(smo(fortran, y, C).alpha, smo(K, y, C).alpha)


@pytest.mark.parametrize(
    "F_up, F_low",
    [
        ([1.0, 3.0, 3.0, -np.inf], [np.inf, 0.5, 0.5, 2.0]),  # ties: the first, as argmax
        ([-np.inf] * 5, [np.inf] * 5),  # empty sets
        ([2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]),
        (np.arange(9.0)[::-1], np.arange(9.0)),  # the extremes at either end
    ],
)
def test_the_pair_search_agrees_with_argmax(F_up, F_low):
    F_up, F_low = np.array(F_up), np.array(F_low)
    i, j, Fi, Fj = _violating_pair(F_up, F_low)
    assert (i, j, Fi, Fj) == (F_up.argmax(), F_low.argmin(), F_up.max(), F_low.min())


def test_random_arrays_pair_search_agrees_with_argmax():
    rng = np.random.default_rng(0)
    for m in range(1, 40):
        values = rng.integers(0, 5, size=m).astype(float)  # many ties
        up, low = rng.random(m) < 0.6, rng.random(m) < 0.6
        F_up, F_low = np.where(up, values, -np.inf), np.where(low, values, np.inf)
        i, j, _, _ = _violating_pair(F_up, F_low)
        assert (i, j) == (F_up.argmax(), F_low.argmin())


def index_kernel(K):
    """A kernel on the points ``[[0], [1], ...]`` whose rows are exactly those of ``K``."""

    def k(A, B):
        return K[np.ix_(A[:, 0].astype(int), B[:, 0].astype(int))]

    return k


@pytest.mark.parametrize("cache_rows", [2, 3, 50])
def test_cached_rows_of_any_capacity_take_the_gram_matrix_steps(cache_rows):
    """The compiled loop needs both rows of a pair cached at once: it keeps the first
    while it fetches the second, and the steps are those on the Gram matrix."""
    K, y, C = problems()["rbf, C=10"]
    index = np.arange(len(y), dtype=float)[:, None]
    columns = KernelColumns(index_kernel(K), index, cache_size=cache_rows * len(y) * 8 / 2**20)
    assert columns.capacity == cache_rows
    provider = CachedRows(columns, product=None)
    assert provider.compiled
    run = run_smo(provider, y, C, tol=1e-6, max_iter=10**5, shrinking=False)
    dense = run_smo(GramRows(K), y, C, tol=1e-6, max_iter=10**5, shrinking=False)
    assert run.n_iter == dense.n_iter > 100
    assert_array_equal(run.alpha, dense.alpha)


def test_a_cache_of_one_row_is_left_to_the_numpy_loop():
    """One row cannot hold a pair: the numpy loop copies the first row instead."""
    K, y, C = problems()["rbf, C=10"]
    index = np.arange(len(y), dtype=float)[:, None]
    columns = KernelColumns(index_kernel(K), index, cache_size=len(y) * 8 / 2**20)
    provider = CachedRows(columns, product=None)
    assert columns.capacity == 1 and not provider.compiled
    run = run_smo(provider, y, C, tol=1e-6, max_iter=10**5, shrinking=False)
    dense = run_smo(GramRows(K), y, C, tol=1e-6, max_iter=10**5, shrinking=False)
    v, w = run.alpha * y, dense.alpha * y
    assert run.alpha.sum() - 0.5 * v @ K @ v == pytest.approx(
        dense.alpha.sum() - 0.5 * w @ K @ w, rel=1e-9
    )


def test_a_fetch_keeps_the_rows_it_is_told_to_keep():
    X = np.arange(12.0)[:, None]
    for keep, cached in (((), [True, False, True, True]), ([1], [True, True, False, True])):
        columns = KernelColumns(RBFBlock(0.1, X), X, cache_size=3 * 12 * 8 / 2**20)
        columns.fetch([0, 1, 2])
        columns.row(2)
        columns.row(0)  # row 1 is the least recently used, then row 2
        columns.fetch([5], keep=keep)
        assert columns.cached([0, 1, 2, 5]).tolist() == cached


def test_auto_forms_the_gram_matrix_up_to_the_measured_size():
    for n, solver in ((GRAM_UP_TO, "gram"), (GRAM_UP_TO + 1, "rows")):
        X, y = make_noisy_2d(n, flip=0.1, seed=0)
        clf = SoftMarginSVC(C=0.01, gamma=1.0, tol=1e-2).fit(X, y)
        assert clf.solver_ == solver


def test_the_rbf_of_few_features_equals_the_kernels_of_the_book():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(50, 3)), rng.normal(size=(7, 3))
    k = RBFFewFeatures(0.7, X)
    assert_allclose(k(Y, X), kernels.rbf_kernel(Y, X, gamma=0.7), rtol=1e-14, atol=0)
    assert_allclose(k(Y, X[::2]), kernels.rbf_kernel(Y, X[::2], gamma=0.7), rtol=1e-14, atol=0)
    # the last B is kept for the next call: a new B of the same shape is not taken for it
    other = X[::-1].copy()
    assert_allclose(k(Y, other), kernels.rbf_kernel(Y, other, gamma=0.7), rtol=1e-14, atol=0)
    assert_allclose(k(Y, X), kernels.rbf_kernel(Y, X, gamma=0.7), rtol=1e-14, atol=0)
    K = k(X, X)
    assert_array_equal(K, K.T)  # exactly symmetric
    assert_array_equal(np.diag(K), 1.0)
    out = np.empty((7, 50))
    assert k(Y, X, out=out) is out
    with pytest.raises(ValueError, match="features"):
        k(Y[:, :2], X)
    with pytest.raises(ValueError, match="shape"):
        k(Y, X, out=np.empty((7, 49)))


@pytest.mark.parametrize("n_features, kind", [(2, RBFFewFeatures), (FEW_FEATURES + 1, RBFBlock)])
def test_the_estimator_computes_rbf_rows_by_the_number_of_features(n_features, kind):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, n_features))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=120) > 0, 1, -1)
    assert isinstance(_rbf_rows(0.5, X), kind)
    rows = SoftMarginSVC(gamma=0.5, solver="rows", tol=1e-8).fit(X, y)
    gram = SoftMarginSVC(gamma=0.5, solver="gram", tol=1e-8).fit(X, y)
    assert rows.dual_objective_ == pytest.approx(gram.dual_objective_, rel=1e-10)
