"""Large buffers that a solver fills itself, allocated without huge-page advice.

numpy advises the kernel (``madvise(MADV_HUGEPAGE)``) to back every array of 4 MB or
more with 2 MB pages.  Where transparent huge pages are set to ``madvise`` with
``defrag`` on ``madvise`` too (a common default), each first touch of such a page may
make the kernel compact memory to find one.  On the 2-core virtual machine the book's
benchmarks ran on, a fresh process fitting the kernel LSVM on 20,000 points
(``nu = 10``) spent 0.16 to 0.78 s of system time on the faults of its row cache and
workspace, and its fit took 0.50 to 1.21 s from run to run; without the advice, 0.13 to
0.14 s and 0.51 to 0.52 s.  :func:`empty` turns the advice off for one allocation only.

Small pages cost a fault each, 4 KB at a time: 48,800 for the row cache of one SMO fit
on 5,000 points.  libsvm's rows, allocated and freed a row at a time, come back from
the C library at the next fit without any.  :data:`ROWS` keeps the memory of the last
row cache for the next in the same way (:class:`KeptBlock`).
"""

import threading

import numpy as np

__all__ = ["ROWS", "KeptBlock", "empty"]

# numpy's switch for the advice: private, so looked up, and left alone if absent
_multiarray = getattr(np, "_core", None) or np.core
_SET_HUGEPAGE = getattr(_multiarray.multiarray, "_set_madvise_hugepage", None)


def empty(shape):
    """``np.empty(shape)`` (float64) without numpy's huge-page advice; numpy's setting
    is as it was on return.  The setting is the process's: an array that another thread
    makes in the same instant goes without the advice too."""
    if _SET_HUGEPAGE is None:
        return np.empty(shape)
    was = _SET_HUGEPAGE(False)
    try:
        return np.empty(shape)
    finally:
        _SET_HUGEPAGE(was)


class KeptBlock:
    """One block of memory kept from one use to the next: the largest given back, if it
    is at most ``limit`` bytes.  :meth:`take` and :meth:`give` may be called from several
    threads: a block is taken by one of them only.

    Examples
    --------
    >>> kept = KeptBlock(limit=10**6)
    >>> kept.give(kept.take(100))
    >>> kept.nbytes
    800
    """

    def __init__(self, limit):
        self.limit = limit
        self._block = None
        self._lock = threading.Lock()

    def take(self, size):
        """An empty float64 array of ``size`` values: the kept block if it is large
        enough (it is then no longer kept), else a new one, without numpy's
        huge-page advice."""
        with self._lock:
            block = self._block
            if block is not None and block.size >= size:
                self._block = None
                return block[:size]
        return empty(size)

    def give(self, array):
        """Keep the memory of ``array`` (from :meth:`take`, no longer used) if it is the
        largest given and within the limit."""
        block = array if array.base is None else array.base
        with self._lock:
            if block.nbytes <= self.limit and (
                self._block is None or block.size >= self._block.size
            ):
                self._block = block

    def clear(self):
        """Keep nothing: the memory goes back to the system."""
        with self._lock:
            self._block = None

    @property
    def nbytes(self):
        """Bytes kept now."""
        block = self._block
        return 0 if block is None else block.nbytes


#: The memory of the estimators' caches of kernel rows (``ksvm.columns.kept_rows``):
#: ``fit`` gives it back here for the next fit.
ROWS = KeptBlock(limit=float("inf"))
