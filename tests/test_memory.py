"""The buffers allocated without numpy's huge-page advice (ksvm._memory)."""

import numpy as np
import pytest

from ksvm import _memory
from ksvm.columns import KernelColumns
from ksvm.lsvm.working_set import KeptMemory


def test_numpy_has_the_switch_the_module_turns():
    assert _memory._SET_HUGEPAGE is not None  # else every buffer keeps numpy's advice


@pytest.mark.parametrize("advised", [True, False])
def test_the_advice_is_off_for_the_allocation_and_as_it_was_after(advised):
    switch = _memory._SET_HUGEPAGE
    before = switch(advised)
    try:
        a = _memory.empty((3, 5))
        assert switch(advised) is advised  # left as it was
    finally:
        switch(before)
    assert a.shape == (3, 5) and a.dtype == np.float64 and a.flags.writeable


def test_the_advice_is_turned_off_then_back(monkeypatch):
    calls = []

    def fake(enabled):
        calls.append(enabled)
        return True

    monkeypatch.setattr(_memory, "_SET_HUGEPAGE", fake)
    assert _memory.empty(4).shape == (4,)
    assert calls == [False, True]
    monkeypatch.setattr(_memory, "_SET_HUGEPAGE", None)  # a numpy without the switch
    assert _memory.empty((2, 2)).shape == (2, 2)


def test_the_row_cache_and_the_kept_workspace_take_their_memory_from_it(monkeypatch):
    made = []

    def spy(shape):
        made.append(shape)
        return np.empty(shape)

    monkeypatch.setattr(_memory, "empty", spy)
    columns = KernelColumns(lambda A, B: A @ B.T, np.ones((30, 2)))
    assert made == [columns.capacity * 30]
    block = KeptMemory().take(100)
    assert made[-1] == 100 and block.size == 100


def test_a_cache_takes_its_memory_from_memory_and_release_gives_it_back():
    kept = KeptMemory(limit=np.inf)
    X = np.random.default_rng(0).normal(size=(40, 3))
    first = KernelColumns(lambda A, B: A @ B.T, X, memory=kept)
    first.fetch_all()
    assert np.allclose(first.rows([3]), X[3] @ X.T)
    first.release()
    assert kept.nbytes == 8 * 40 * 40
    for use in (lambda: first.rows([0]), first.fetch_all, lambda: first.row(1)):
        with pytest.raises(ValueError, match="released"):
            use()
    second = KernelColumns(lambda A, B: A @ B.T, X, memory=kept)
    assert kept.nbytes == 0  # taken again: the same pages
    assert not second.cached(np.arange(40)).any()  # no row of the first is taken for one
    assert np.allclose(second.rows([5, 7]), X[[5, 7]] @ X.T)


def test_a_kept_block_is_taken_once():
    kept = _memory.KeptBlock(limit=8 * 100)
    kept.give(np.empty(100))
    first, second = kept.take(50), kept.take(50)
    assert not np.shares_memory(first, second) and kept.nbytes == 0
    kept.give(np.empty(101))  # over the limit: not kept
    assert kept.nbytes == 0
    kept.give(first)  # its whole block comes back
    assert kept.nbytes == 800
    kept.clear()
    assert kept.nbytes == 0


@pytest.mark.parametrize("make", ["smo", "lsvm"])
def test_fits_take_their_rows_memory_from_the_one_before(make, monkeypatch):
    from sklearn.base import clone

    from ksvm import LagrangianSVC, SoftMarginSVC
    from ksvm.datasets import make_checkerboard

    monkeypatch.setattr(_memory, "ROWS", _memory.KeptBlock(limit=np.inf))  # this test's own
    X, y = make_checkerboard(600, seed=0)
    if make == "smo":
        model = SoftMarginSVC(kernel="rbf", gamma=10.0, C=10.0, solver="rows", cache_size=1)
    else:
        model = LagrangianSVC(kernel="rbf", gamma=10.0, nu=10.0, cache_size=1)
    first = model.fit(X, y).decision_function(X)
    assert _memory.ROWS.nbytes == 8 * 600 * (2**20 // (8 * 600))  # the 1 MB store, given back
    block = _memory.ROWS._block
    again = clone(model).fit(X, y)  # a new estimator: the same memory, no new pages
    assert _memory.ROWS._block is block
    np.testing.assert_array_equal(first, again.decision_function(X))


def test_the_public_name_is_the_process_memory():
    from ksvm import columns

    assert columns.kept_rows is _memory.ROWS
