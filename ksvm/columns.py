"""Rows of a Gram matrix computed on demand, with a cache of bounded size.

A solver that never needs the whole ``m x m`` Gram matrix ``K = k(X, X)`` (SMO
touches the rows of its working set; an active-set solver the rows of its free
set) can ask :class:`KernelColumns` for those rows.  Missing rows are computed
together, in one call of the kernel on a block of points, so that the work is
done by BLAS (for the distance kernels, through ``X_B X'``) rather than one
value at a time; computed rows are kept, least recently used first out, in a
store of at most ``cache_size`` megabytes, as libsvm's ``cache_size``.  Since
``K`` is symmetric, the row ``K[i, :]`` is also the column ``K[:, i]``.

The cache only caches: it calls its kernel through the protocol of
:class:`ksvm.kernels.Kernel`, ``kernel(A, B, out=...)``, which writes a block
of rows straight into the store, and sizes its blocks by
:func:`ksvm.kernels.block_rows`.  The kernel arithmetic (the fast Gaussian
block among it) lives in :mod:`ksvm.kernels`.
"""

import numpy as np

from . import _memory
from ._validation import check_matrix, check_positive
from .kernels import block_rows, make_kernel

__all__ = ["KernelColumns", "kept_rows"]

#: The memory that the estimators' caches of kernel rows are made in, kept by the process
#: from one fit to the next, as the C library keeps libsvm's rows: at most one cache's
#: ``cache_size`` megabytes, of which only the pages its rows touched are resident.
#: ``kept_rows.nbytes`` is what it keeps now; ``kept_rows.clear()`` gives it back to the
#: system.  A cache made with ``memory=kept_rows`` takes it (:class:`KernelColumns`).
kept_rows = _memory.ROWS

#: Rows computed per kernel call when filling free slots: a block small enough to
#: stay in a core's cache between the passes of the kernel (its product, its
#: exponential), large enough for BLAS.
_FILL_ROWS = 64


class KernelColumns:
    """The rows of ``K = k(X, X)`` on demand, cached under a memory budget.

    Parameters
    ----------
    kernel : callable
        A kernel of :func:`ksvm.kernels.make_kernel` (``kernel(A, B, out=None)``),
        or a function ``kernel(X, Y)`` returning the block ``K[i, j] = k(X[i], Y[j])``
        of shape ``(len(X), len(Y))``, which ``make_kernel`` wraps to follow the
        protocol.  It must be symmetric (``k(x, z) = k(z, x)``).
    X : array-like of shape (m, n)
        The points.
    cache_size : float > 0, default=200.0
        Megabytes the cached rows may take (libsvm's and ``SVC``'s
        ``cache_size``).  At least one row is always kept.
    memory : object or None, default=None
        Where the cache takes its memory from and :meth:`release` gives it back to:
        any object with ``take(size)`` and ``give(array)``, such as :data:`kept_rows`
        or a :class:`ksvm.lsvm.KeptMemory`, so that a cache made after this one reuses
        its pages.  None: new memory, without huge pages (numpy asks for them for large
        arrays, and where memory is fragmented the system compacts it to find them).

    Attributes
    ----------
    m : int
        The number of points.
    diagonal : ndarray of shape (m,)
        ``k(x_i, x_i)``.
    capacity : int
        How many rows the cache holds.
    n_rows_computed : int
        Rows of ``K`` computed so far (each costs ``m`` kernel values); a row
        computed twice, because it had left the cache, counts twice.
    cache_bytes : int
        Bytes of the rows stored now.
    n_cached : int
        Rows held in the cache now.

    Raises
    ------
    ValueError
        If ``X`` is not a finite 2-D array, ``kernel`` is not callable or
        ``cache_size`` is not positive.

    Examples
    --------
    >>> from ksvm.kernels import make_kernel
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> K = KernelColumns(make_kernel("linear"), X)
    >>> K.rows([2, 0])
    array([[0., 3., 9.],
           [0., 0., 0.]])
    >>> K.dot([1, 2], np.array([1.0, -1.0]))  # K[:, [1, 2]] @ [1, -1]
    array([ 0., -2., -6.])
    >>> K.n_rows_computed  # rows 2 and 0, then row 1 for dot
    3
    >>> K.rows([0, 1]).shape, K.n_rows_computed  # both cached: nothing computed
    ((2, 3), 3)
    >>> K.cached([0, 1, 2]).tolist(), K.cached(1)
    ([True, True, True], True)
    >>> K.row(1)  # a read-only view of the cached row
    array([0., 1., 3.])
    >>> K.fetch([0, 1, 2]); K.n_rows_computed  # all cached already
    3
    """

    def __init__(self, kernel, X, *, cache_size=200.0, memory=None):
        if not callable(kernel):
            raise ValueError(f"kernel must be a callable k(X, Y), got {kernel!r}.")
        self.X = check_matrix(X, "X")
        self.kernel = make_kernel(kernel)
        self.cache_size = check_positive(cache_size, "cache_size")
        self.m = m = self.X.shape[0]
        self.capacity = int(min(m, max(1, self.cache_size * 2**20 // (8 * max(m, 1)))))
        # The store: one row per slot, allocated whole but only touched as it fills
        # (the operating system maps pages on first write, small ones: ksvm._memory),
        # or memory that an earlier cache touched (a page fault saved per 4 KB)
        size = self.capacity * m
        self._memory = memory
        store = _memory.empty(size) if memory is None else memory.take(size)
        self._store = store.reshape(self.capacity, m)
        self._slot = np.full(m, -1, dtype=np.intp)  # point -> slot, -1 if not cached
        self._owner = np.full(self.capacity, -1, dtype=np.intp)  # slot -> point
        self._used = np.zeros(self.capacity, dtype=np.int64)  # last use, for LRU
        self._clock = 0
        self._filled = 0
        self.n_rows_computed = 0
        self._scratch = None  # rows computed by dot, reused: no fresh pages at each call
        self._diag = None

    @property
    def cache_bytes(self):
        return self._filled * self.m * 8

    @property
    def n_cached(self):
        """Rows held in the cache now."""
        return self._filled

    @property
    def diagonal(self):
        """``k(x_i, x_i)``, computed at the first use (a solver may need none of it)."""
        if self._diag is None:
            self._diag = self._diagonal()
        return self._diag

    def _diagonal(self):
        """``k(x_i, x_i)``: the kernel's own, if it knows it (1 for the Gaussian), else from
        small square blocks (never a whole row per point)."""
        known = getattr(self.kernel, "diagonal", lambda X: None)(self.X)
        if known is not None:
            return np.asarray(known, dtype=float)
        diag = np.empty(self.m)
        for start in range(0, self.m, 256):
            block = self.X[start : start + 256]
            diag[start : start + len(block)] = np.diagonal(self.kernel(block, block))
        return diag

    def _compute(self, points):
        """``K[points, :]``, in blocks of :func:`ksvm.kernels.block_rows` rows."""
        step = block_rows(self.m)
        if len(points) <= step:  # one block: the kernel's own array, no copy
            self.n_rows_computed += len(points)
            return self.kernel(self.X[points], self.X)
        out = np.empty((len(points), self.m))
        for start in range(0, len(points), step):
            chunk = points[start : start + step]
            self._rows_into(chunk, out[start : start + len(chunk)])
        return out

    def block(self, rows, cols, out):
        """``k(X[rows], X[cols])`` written into ``out`` (rows of contiguous values) and
        returned: neither cached nor counted in ``n_rows_computed``."""
        return self.kernel(self.X[rows], self.X[cols], out=out)

    def _rows_into(self, points, out):
        """Write ``K[points, :]`` into ``out`` and return it."""
        self.kernel(self.X[points], self.X, out=out)
        self.n_rows_computed += len(points)
        return out

    def _scratch_rows(self, points):
        """``K[points, :]`` (at most one block) in an array kept from call to call, valid
        until the next call: a large new array costs the operating system's mapping of
        its pages at every call, about what computing RBF values in it costs."""
        n = len(points)
        if self._scratch is None or self._scratch.shape[0] < n:
            # as many rows as asked for (at least _FILL_ROWS), not a whole block: the
            # SMO's misses ask for a few rows, and the scratch is memory beyond cache_size
            self._scratch = np.empty((min(max(n, _FILL_ROWS), self.m), self.m))
        return self._rows_into(points, self._scratch[:n])

    def _fill(self, points):
        """Compute ``K[points, :]`` straight into the next free slots of the store (there
        must be room) and return them: no copy."""
        start, n = self._filled, len(points)
        out = self._rows_into(points, self._store[start : start + n])
        slots = np.arange(start, start + n)
        self._owner[slots] = points
        self._slot[points] = slots
        self._used[slots] = self._clock
        self._filled = start + n
        return out

    def _store_rows(self, points, rows, keep):
        """Cache ``rows`` of ``points``, evicting the least recently used slots
        except those of ``keep`` (the slots the current request reads)."""
        free = self.capacity - self._filled
        if len(points) > free:
            evictable = np.ones(self.capacity, dtype=bool)
            evictable[keep] = False
            evictable[self._filled :] = False
            candidates = np.flatnonzero(evictable)
            n_evict = min(len(points) - free, candidates.size)
            if n_evict < candidates.size:
                order = np.argpartition(self._used[candidates], n_evict - 1)[:n_evict]
                candidates = candidates[order]
            slots = np.concatenate([np.arange(self._filled, self.capacity), candidates])
        else:
            slots = np.arange(self._filled, self._filled + len(points))
        slots = slots[: len(points)]
        points, rows = points[: len(slots)], rows[: len(slots)]
        old = self._owner[slots]
        self._slot[old[old >= 0]] = -1
        self._owner[slots] = points
        self._slot[points] = slots
        self._store[slots] = rows
        self._used[slots] = self._clock
        self._filled = max(self._filled, int(slots.max()) + 1 if slots.size else 0)

    def release(self):
        """Give the cache's memory back to ``memory`` (if given) and empty the cache for
        good: any later use raises ValueError.  The rows it held go with the memory."""
        if self._memory is not None and self._store is not None:
            self._memory.give(self._store)
        self._store = None
        self._slot[:] = -1
        self._filled = 0

    def _live(self):
        if self._store is None:
            raise ValueError("this cache has been released; make a new KernelColumns.")

    def _index(self, idx):
        self._live()
        idx = np.asarray(idx, dtype=np.intp).ravel()
        if idx.size and (idx.min() < -self.m or idx.max() >= self.m):
            raise ValueError(
                f"row indices must lie in [0, {self.m}), got {idx.min()}..{idx.max()}."
            )
        return idx % self.m if idx.size else idx

    def cached(self, idx):
        """Whether each row of ``idx`` is in the cache now (a bool array; a bool
        for one integer index), so that a solver can ask for the missing rows
        together, in one block."""
        if isinstance(idx, (int, np.integer)):
            return bool(self._slot[idx] >= 0)
        return self._slot[self._index(idx)] >= 0

    def fetch(self, idx, keep=()):
        """Bring the rows of ``idx`` into the cache, the missing ones computed in
        one block, without returning them (no copy): a solver's prefetch.  The
        cached rows of ``keep`` are not evicted to make room; if the others cannot all
        be cached, the first ones of ``idx`` are."""
        idx = self._index(idx)
        self._clock += 1
        slots = self._slot[idx]
        hit = slots >= 0
        self._used[slots[hit]] = self._clock
        if not hit.all():
            # in the order asked (the first ones are kept if not all fit), once each
            missing = idx[~hit]
            missing = missing[np.sort(np.unique(missing, return_index=True)[1])]
            if missing.size <= self.capacity - self._filled:
                # room for all: computed straight into free slots, a cache-sized
                # block of rows at a time (no copy, no large temporary)
                for start in range(0, missing.size, _FILL_ROWS):
                    self._fill(missing[start : start + _FILL_ROWS])
                return
            kept = self._slot[self._index(keep)]
            kept = np.concatenate([slots[hit], kept[kept >= 0]])
            self._store_rows(missing, self._compute(missing), keep=kept)

    def fetch_all(self):
        """Bring every row into the cache, the missing ones in one call of the kernel: for a
        few hundred points, cheaper than the calls that fetch them as a solver asks.

        Raises
        ------
        ValueError
            If the cache cannot hold every row (``capacity < m``).
        """
        self._live()
        if self.capacity < self.m:
            raise ValueError(
                f"the cache holds {self.capacity} of the {self.m} rows; raise cache_size to "
                f"at least {8 * self.m * self.m / 2**20:.3g} MB to fetch them all."
            )
        missing = np.flatnonzero(self._slot < 0)
        if missing.size:
            self._clock += 1
            self._fill(missing)

    def row(self, i):
        """``K[i, :]`` as a read-only view of the cache, computed first if missing.

        No copy: the cheapest access for a solver that reads one or two rows
        per iteration.  The view stays valid until the row leaves the cache,
        which only a later call that computes rows can make it do.
        """
        slot = self._slot[i]
        if slot < 0 or self._store is None:
            self.rows([i])
            slot = self._slot[i]
        self._clock += 1
        self._used[slot] = self._clock
        view = self._store[slot]
        view.flags.writeable = False
        return view

    def rows(self, idx):
        """``K[idx, :]`` (equal to ``K[:, idx].T``), a new array of shape ``(len(idx), m)``.

        Cached rows are copied from the cache; the others are computed in one
        block and cached, least recently used rows making room.
        """
        idx = self._index(idx)
        self._clock += 1
        out = np.empty((idx.size, self.m))
        slots = self._slot[idx]
        hit = slots >= 0
        out[hit] = self._store[slots[hit]]
        self._used[slots[hit]] = self._clock
        if not hit.all():
            missing, where = np.unique(idx[~hit], return_inverse=True)
            computed = self._compute(missing)
            out[~hit] = computed[where]
            self._store_rows(missing, computed, keep=slots[hit])
        return out

    def dot(self, idx, v):
        """``K[:, idx] @ v`` without gathering the rows: cached rows are used in
        place, missing ones computed block by block (and cached)."""
        idx = self._index(idx)
        v = np.asarray(v, dtype=np.float64).ravel()
        if v.shape[0] != idx.size:
            raise ValueError(f"v has {v.shape[0]} entries for {idx.size} rows.")
        self._clock += 1
        slots = self._slot[idx]
        hit = slots >= 0
        result = np.zeros(self.m)
        if hit.any():
            if 4 * hit.sum() >= self._filled:
                # Most of the store is read: one product with all of it, no copy.
                weights = np.zeros(self._filled)
                np.add.at(weights, slots[hit], v[hit])
                result += weights @ self._store[: self._filled]
            else:  # a few rows of a large store: copy them out
                result += v[hit] @ self._store[slots[hit]]
            self._used[slots[hit]] = self._clock
        if not hit.all():
            missing, where = np.unique(idx[~hit], return_inverse=True)
            weights = np.zeros(missing.size)
            np.add.at(weights, where, v[~hit])
            # Block by block, each cached as it is used: no array of all the missing
            # rows (more than the cache holds, when the cache is too small for them).
            step = block_rows(self.m)
            keep, room = slots[hit], True
            for start in range(0, missing.size, step):
                chunk = missing[start : start + step]
                if self.capacity - self._filled >= chunk.size:  # room: compute them in place
                    computed = self._fill(chunk)
                    result += weights[start : start + step] @ computed
                    keep = np.concatenate([keep, self._slot[chunk]])
                    continue
                computed = self._scratch_rows(chunk)
                result += weights[start : start + step] @ computed
                if room:
                    # Rows of this request push out only other rows: once the cache holds
                    # nothing else, the rest are not stored (with more rows than the cache
                    # holds, each would push out one that the next call reads again).
                    self._store_rows(chunk, computed, keep=keep)
                    stored = self._slot[chunk]
                    keep = np.concatenate([keep, stored[stored >= 0]])
                    room = keep.size < self.capacity
        return result

    def restricted(self, idx, reuse=False):
        """The rows of the points ``idx`` (sorted, distinct) over those points alone: a new
        :class:`KernelColumns` on ``X[idx]`` with the same kernel and budget, holding the
        rows of ``idx`` cached here, restricted to ``idx``, as far as its cache has room
        (computing nothing).  A solver that has set points aside reads shorter rows, and
        as many more of them fit in the same budget (libsvm restricts its cached columns
        to the active variables in the same way).

        With ``reuse=True`` the new rows are written into this cache's memory, whose
        pages the operating system has already mapped, and this cache is emptied: a
        solver that restricts its rows again and again touches no new memory.
        """
        idx = self._index(idx)
        if idx.size and np.any(np.diff(idx) <= 0):
            raise ValueError("restricted takes sorted, distinct indices.")
        other = KernelColumns(self.kernel, self.X[idx], cache_size=self.cache_size)
        if self._diag is not None:
            other._diag = self._diag[idx]
        held = np.flatnonzero(self._slot[idx] >= 0)  # positions in idx
        held = held[np.argsort(self._slot[idx[held]], kind="stable")][: other.capacity]
        if reuse:
            memory = self._store.reshape(-1)
            other.capacity = min(other.capacity, max(1, memory.size // max(other.m, 1)))
            other._store = memory[: other.capacity * other.m].reshape(other.capacity, other.m)
            other._owner = other._owner[: other.capacity]
            other._used = other._used[: other.capacity]
            held = held[: other.capacity]
        # A block of rows at a time, in the order of their slots here: with reuse, the
        # new rows (shorter) of a block end before the first old row of the next block
        # starts, and a block is read whole before it is written.
        for start in range(0, held.size, _FILL_ROWS):
            part = held[start : start + _FILL_ROWS]
            rows = self._store[self._slot[idx[part]]][:, idx]
            other._store[start : start + part.size] = rows
        slots = np.arange(held.size)
        other._owner[slots], other._slot[held] = held, slots
        other._filled = held.size
        if reuse:
            self._slot[:] = -1
            self._owner[:] = -1
            self._filled = 0
        return other

    def submatrix(self, idx):
        """``K[np.ix_(idx, idx)]``, from the rows of ``idx`` (which are then cached)."""
        idx = self._index(idx)
        return self.rows(idx)[:, idx]
