"""Large buffers that a solver fills itself, allocated without huge-page advice.

numpy advises the kernel (``madvise(MADV_HUGEPAGE)``) to back every array of 4 MB or
more with 2 MB pages.  Where transparent huge pages are set to ``madvise`` with
``defrag`` on ``madvise`` too (a common default), each first touch of such a page may
make the kernel compact memory to find one.  On the 2-core virtual machine the book's
benchmarks ran on, a fresh process fitting the kernel LSVM on 20,000 points
(``nu = 10``) spent 0.16 to 0.78 s of system time on the faults of its row cache and
workspace, and its fit took 0.50 to 1.21 s from run to run; without the advice, 0.13 to
0.14 s and 0.51 to 0.52 s.  :func:`empty` turns the advice off for one allocation only.
"""

import numpy as np

__all__ = ["empty"]

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
