"""KernelColumns against the whole Gram matrix, whatever the cache holds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ksvm.columns import KernelColumns
from ksvm.kernels import RBFBlock, make_kernel, rbf_kernel


def data(m=40, n=3, seed=0):
    return np.random.default_rng(seed).normal(size=(m, n))


@pytest.mark.parametrize("name", ["linear", "rbf", "poly"])
def test_rows_dot_submatrix_equal_the_gram_matrix(name):
    X = data()
    k = make_kernel(name, gamma=0.5)
    K = k(X, X)
    cols = KernelColumns(k, X)
    idx = np.array([5, 0, 39, 5, 12])
    np.testing.assert_allclose(cols.rows(idx), K[idx], rtol=1e-13, atol=1e-13)
    v = np.random.default_rng(1).normal(size=idx.size)
    np.testing.assert_allclose(cols.dot(idx, v), K[:, idx] @ v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cols.submatrix(idx), K[np.ix_(idx, idx)], rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(cols.diagonal, np.diag(K), rtol=1e-13)


def test_cached_rows_are_not_computed_again():
    X = data(m=30)
    cols = KernelColumns(make_kernel("rbf", gamma=1.0), X)
    cols.rows([1, 2, 3])
    assert cols.n_rows_computed == 3
    cols.rows([3, 2, 1])
    cols.dot([1, 2], [1.0, 1.0])
    assert cols.n_rows_computed == 3
    cols.rows([4])
    assert cols.n_rows_computed == 4
    assert cols.cache_bytes == 4 * 30 * 8


def test_a_small_cache_evicts_the_least_recently_used_row():
    X = data(m=1000)
    k = make_kernel("rbf", gamma=1.0)
    cols = KernelColumns(k, X, cache_size=3 * 1000 * 8 / 2**20)  # three rows
    assert cols.capacity == 3
    cols.rows([0, 1, 2])
    cols.rows([0])  # 1 is now the least recently used
    cols.rows([3])  # evicts 1
    before = cols.n_rows_computed
    cols.rows([0, 2, 3])
    assert cols.n_rows_computed == before
    cols.rows([1])
    assert cols.n_rows_computed == before + 1
    assert cols.cache_bytes <= 3 * 1000 * 8


@settings(max_examples=40, deadline=None)
@given(
    requests=st.lists(
        st.lists(st.integers(0, 24), min_size=1, max_size=12), min_size=1, max_size=12
    ),
    capacity=st.integers(1, 30),
)
def test_any_sequence_of_requests_gives_the_gram_matrix(requests, capacity):
    X = data(m=25, seed=2)
    k = make_kernel("rbf", gamma=0.3)
    K = k(X, X)
    cols = KernelColumns(k, X, cache_size=capacity * 25 * 8 / 2**20)
    rng = np.random.default_rng(0)
    for idx in requests:
        idx = np.array(idx)
        np.testing.assert_allclose(cols.rows(idx), K[idx], rtol=1e-13, atol=1e-14)
        v = rng.normal(size=idx.size)
        np.testing.assert_allclose(cols.dot(idx, v), K[:, idx] @ v, rtol=1e-12, atol=1e-12)
        assert cols.cache_bytes <= cols.capacity * 25 * 8
    # the store's bookkeeping is a bijection between cached points and slots
    cached = np.flatnonzero(cols._slot >= 0)
    assert np.array_equal(np.sort(cols._owner[cols._slot[cached]]), cached)


def test_bad_input():
    X = data()
    with pytest.raises(ValueError, match="callable"):
        KernelColumns("rbf", X)
    with pytest.raises(ValueError, match="cache_size"):
        KernelColumns(make_kernel("rbf"), X, cache_size=0)
    cols = KernelColumns(make_kernel("rbf"), X)
    with pytest.raises(ValueError, match="row indices"):
        cols.rows([40])
    with pytest.raises(ValueError, match="entries"):
        cols.dot([1, 2], [1.0])


def test_cached_and_row_view():
    X = data()
    k = make_kernel("rbf", gamma=0.5)
    K = k(X, X)
    cols = KernelColumns(k, X, cache_size=3 * 40 * 8 / 2**20)  # three rows
    assert not cols.cached(7) and cols.cached([7, 8]).tolist() == [False, False]
    r = cols.row(7)  # computed, cached, returned in place
    np.testing.assert_allclose(r, K[7], rtol=1e-13)
    assert cols.cached(7) and cols.n_rows_computed == 1
    assert not r.flags.writeable
    np.testing.assert_allclose(cols.row(7), K[7], rtol=1e-13)
    assert cols.n_rows_computed == 1
    for i in (1, 2, 3):  # row 7 is the least recently used: evicted by the third
        cols.row(i)
    assert not cols.cached(7) and cols.cached([1, 2, 3]).all()


def test_fetch_caches_without_returning():
    X = data()
    k = make_kernel("rbf", gamma=0.5)
    cols = KernelColumns(k, X)
    cols.fetch([3, 4, 3])
    assert cols.n_rows_computed == 2 and cols.cached([3, 4]).all()
    np.testing.assert_allclose(cols.row(4), k(X, X)[4], rtol=1e-13)
    cols.fetch([4])
    assert cols.n_rows_computed == 2


def test_fetch_beyond_the_cache_keeps_the_rows_asked_first():
    X = data()
    k = make_kernel("rbf", gamma=0.5)
    cols = KernelColumns(k, X, cache_size=8 * 40 * 3 / 2**20)  # three rows
    assert cols.capacity == 3
    cols.fetch([30, 2, 17, 5, 30])  # four rows asked, three fit: the first three
    assert cols.cached([30, 2, 17]).all() and not cols.cached(5)
    cols.fetch([9, 1], keep=[17])  # two more: 17 stays, 30 and 2 make room
    assert cols.cached([9, 1, 17]).all() and not cols.cached([30, 2]).any()
    np.testing.assert_allclose(cols.row(9), k(X, X)[9], rtol=1e-13)


def test_fetch_all_computes_the_missing_rows_in_one_call():
    X = np.random.default_rng(3).normal(size=(40, 3))
    calls = []

    def kernel(A, B):
        calls.append(len(A))
        return rbf_kernel(A, B, gamma=0.5)

    K = KernelColumns(kernel, X)
    K.fetch([5, 7])
    K.fetch_all()
    assert calls == [2, 38] and K.n_rows_computed == 40 and K.n_cached == 40
    np.testing.assert_allclose(K.rows(range(40)), rbf_kernel(X, X, gamma=0.5), rtol=1e-13)
    K.fetch_all()  # nothing missing: no call
    assert calls == [2, 38]
    small = KernelColumns(kernel, X, cache_size=8 * 40 * 10 / 2**20)
    with pytest.raises(ValueError, match="holds 10 of the 40 rows; raise cache_size"):
        small.fetch_all()
    assert small.n_rows_computed == 0


def test_a_user_function_without_out_works():
    X = data(m=30, n=2, seed=6)
    k = lambda A, B: (A @ B.T + 1.0) ** 2  # noqa: E731  (no out: its block is copied in)
    K = k(X, X)
    cols = KernelColumns(k, X, cache_size=5 * 30 * 8 / 2**20)
    np.testing.assert_array_equal(cols.rows([3, 0, 29]), K[[3, 0, 29]])
    np.testing.assert_allclose(cols.dot(np.arange(12), np.ones(12)), K[:, :12].sum(axis=1))
    np.testing.assert_array_equal(cols.diagonal, np.diag(K))
    out = np.empty((2, 3))
    assert cols.block([1, 2], [0, 5, 9], out) is out
    np.testing.assert_array_equal(out, K[np.ix_([1, 2], [0, 5, 9])])
    with pytest.raises(ValueError, match="shape"):
        KernelColumns(lambda A, B: A @ A.T, X).rows([0])


def _rbf_bound(A, B, gamma):
    """The error RBFBlock may make: a few gamma * eps * (||a||^2 + ||b||^2), the rounding
    of ||a||^2 + ||b||^2 - 2 a'b, which the formula does not recompute where it cancels,
    and a few eps for the rounding of exp itself (values at most 1)."""
    norms = np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :]
    return np.finfo(float).eps * (8 * gamma * norms + 4)


@pytest.mark.parametrize("gamma", [0.01, 1.0, 100.0])
@pytest.mark.parametrize("shift", [0.0, 5.0])
def test_rbf_block_is_the_rbf_kernel_to_its_rounding(gamma, shift):
    X = data(m=60, n=4, seed=3) * 0.3 + shift
    X[7] = X[3] + 1e-9  # nearly equal points: the subtraction cancels
    exact = rbf_kernel(X, gamma=gamma)  # recomputes cancelling distances
    k = RBFBlock(gamma, X)
    rows = np.array([3, 7, 0, 59])
    err = np.abs(k(X[rows], X) - exact[rows])
    assert np.all(err <= _rbf_bound(X[rows], X, gamma))
    Y = X[10:25]  # other points than X: their extended form is made at the call
    assert np.all(np.abs(k(X[:5], Y) - exact[:5, 10:25]) <= _rbf_bound(X[:5], Y, gamma))
    out = np.empty((4, 60))
    assert k(X[rows], X, out=out) is out  # and X's again, after Y
    np.testing.assert_array_equal(out, k(X[rows], X))
    assert np.all(out <= 1.0) and np.all(out > 0.0)  # clipped: no distance below 0


def test_rbf_block_hand_checkable_and_bad_gamma():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    K = RBFBlock(0.5)(X, X)
    np.testing.assert_allclose(K[0], [1.0, np.exp(-0.5), np.exp(-2.0)], rtol=1e-15)
    np.testing.assert_allclose(K[1, 2], np.exp(-2.5), rtol=1e-15)
    with pytest.raises(ValueError, match="gamma"):
        RBFBlock(0.0)


@settings(max_examples=40, deadline=None)
@given(
    requests=st.lists(
        st.lists(st.integers(0, 59), min_size=1, max_size=60), min_size=1, max_size=8
    ),
    capacity=st.integers(1, 70),
    block_rows=st.integers(1, 8),
)
def test_dot_with_rbf_blocks_and_any_cache_gives_the_gram_matrix(requests, capacity, block_rows):
    # Requests larger than the cache, rows computed in place into free slots or in the
    # scratch block, blocks of a few rows: K[:, idx] @ v and a bounded cache throughout.
    import ksvm.kernels as kernels_module  # block_rows' budget: every block of kernel values

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernels_module, "_BLOCK_BYTES", block_rows * 60 * 8)
        _check_dot_requests(requests, capacity)


def _check_dot_requests(requests, capacity):
    X = data(m=60, n=2, seed=4)
    K = rbf_kernel(X, gamma=2.0)
    cols = KernelColumns(RBFBlock(2.0, X), X, cache_size=capacity * 60 * 8 / 2**20)
    rng = np.random.default_rng(1)
    for idx in requests:
        idx = np.array(idx)
        v = rng.normal(size=idx.size)
        np.testing.assert_allclose(
            cols.dot(idx, v), K[:, idx] @ v, rtol=0, atol=1e-12 * max(1.0, np.abs(v).sum())
        )
        assert cols.cache_bytes <= cols.capacity * 60 * 8
        cached = np.flatnonzero(cols._slot >= 0)
        np.testing.assert_allclose(cols._store[cols._slot[cached]], K[cached], atol=1e-13)
    cached = np.flatnonzero(cols._slot >= 0)
    assert np.array_equal(np.sort(cols._owner[cols._slot[cached]]), cached)


@pytest.mark.parametrize("reuse", [False, True])
def test_restricted_rows_are_the_gram_matrix_of_the_points_kept(reuse):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 3))
    K = rbf_kernel(X, gamma=0.7)
    columns = KernelColumns(RBFBlock(0.7, X), X, cache_size=8 * 90 * 30 / 2**20)  # 30 rows
    columns.fetch([80, 3, 50, 7, 61])  # cached in this order: slots not sorted by point
    computed = columns.n_rows_computed
    idx = np.array([3, 7, 20, 50, 61, 62, 89])
    small = columns.restricted(idx, reuse=reuse)
    # the cached rows of idx come over, restricted to idx, and nothing is computed
    assert columns.n_rows_computed == computed and small.n_rows_computed == 0
    assert small.cached(np.arange(7)).tolist() == [True, True, False, True, True, False, False]
    copied = small.rows([0, 1, 3, 4])
    assert small.n_rows_computed == 0
    assert np.allclose(copied, K[np.ix_(idx[[0, 1, 3, 4]], idx)], rtol=0, atol=1e-14)
    assert np.allclose(small.rows(np.arange(7)), K[np.ix_(idx, idx)], rtol=0, atol=1e-14)
    assert np.array_equal(small.diagonal, np.ones(7))
    if reuse:  # the new rows live in the old cache's memory, which is emptied
        assert np.shares_memory(small._store, columns._store)
        assert columns.n_cached == 0 and not columns.cached(80)
    else:
        assert columns.n_cached == 5 and columns.cached([80, 3, 50, 7, 61]).all()


def test_restricted_in_the_same_memory_keeps_every_row_it_copies():
    # a full cache of long rows shrunk in place to shorter ones: each new row is written
    # over old rows that have already been read (rows copied in the order of their slots)
    rng = np.random.default_rng(4)
    X = rng.normal(size=(64, 2))
    K = rbf_kernel(X, gamma=1.3)
    columns = KernelColumns(RBFBlock(1.3, X), X)
    columns.fetch(rng.permutation(64))  # every row, in a random order of slots
    before = columns.rows(np.arange(64))  # what the cache holds
    idx = np.sort(rng.permutation(64)[:40])
    small = columns.restricted(idx, reuse=True)
    assert small.n_cached == 40
    assert np.array_equal(small.rows(np.arange(40)), before[np.ix_(idx, idx)])
    assert np.allclose(before, K, rtol=0, atol=1e-14)
    assert small.n_rows_computed == 0


def test_restricted_takes_sorted_distinct_points():
    X = np.arange(12.0).reshape(6, 2)
    columns = KernelColumns(RBFBlock(1.0, X), X)
    with pytest.raises(ValueError, match="sorted, distinct"):
        columns.restricted([3, 1])
    with pytest.raises(ValueError, match="sorted, distinct"):
        columns.restricted([1, 1, 2])
