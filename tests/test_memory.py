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
    assert made == [(columns.capacity, 30)]
    block = KeptMemory().take(100)
    assert made[-1] == 100 and block.size == 100
