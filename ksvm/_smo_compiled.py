"""The inner loop of :func:`ksvm.smo.run_smo`, compiled by Numba.

:func:`ksvm.smo.run_smo` spends an SMO step in about a dozen numpy calls (the
pair, the second index, the update of ``F``), each paying Python's and numpy's
overhead of about a microsecond.  On a thousand points that overhead, not the
arithmetic, is the step's cost, about three times libsvm's.  :func:`smo_steps`
takes the same steps in one compiled loop: the pair by one pass over the active
variables, the second index by a second one, and the update of ``F`` fused with
the search for the next pair.

It is the same iteration, not an approximation of it: every value is computed
with the operations of :class:`ksvm._smo_loop._ActiveSet`, in the same order (no
``fastmath``, so no reordering or fused multiply-add), and the ties are broken
the same way (the first index, as ``argmax``).  The Gram path therefore takes
exactly the numpy loop's steps (``tests/test_smo_compiled.py`` checks it pair by
pair).  The loop returns to Python when it has converged on the active
variables, reached its step budget, found enough variables to set aside, or
needs a row of ``K`` that its provider has not cached yet; the caller fetches
the row and calls again, and the loop starts over from the same state.
"""

import numba
import numpy as np

from ._smo_loop import _TAU
from ._smo_loop import _snap as _snap_python

__all__ = ["CONVERGED", "NEED_ROW", "OUT_OF_STEPS", "SHRINK", "smo_steps", "store_rows"]

#: What :func:`smo_steps` returns: why it stopped.
CONVERGED, OUT_OF_STEPS, SHRINK, NEED_ROW = 0, 1, 2, 3

# the numpy loop's constant and its rounding to a bound, compiled
_snap = numba.njit(cache=True, inline="always")(_snap_python)


@numba.njit(cache=True, inline="always")
def _in_up(a, p, C):
    return a < C if p else a > 0


@numba.njit(cache=True, inline="always")
def _in_low(a, p, C):
    return a > 0 if p else a < C


@numba.njit(cache=True, inline="always")
def _max(a, b):
    return a if a > b else b


@numba.njit(cache=True, inline="always")
def _min(a, b):
    return a if a < b else b


@numba.njit(cache=True)
def _violating_pair(F_up, F_low):
    """``i = argmax F_up``, ``j = argmin F_low`` (the first of equal values, as numpy's
    ``argmax``) and the two values.

    ``F_up`` is ``F`` on ``I_up`` and -inf elsewhere, ``F_low`` is ``F`` on ``I_low``
    and +inf elsewhere.  A running ``argmax`` is a chain of dependent comparisons, one
    per element, and mispredicted branches where the sets interleave; instead the
    extreme values are found by four independent chains, then the first index that
    holds each, about four times faster.
    """
    m = F_up.size
    a0 = a1 = a2 = a3 = -np.inf
    b0 = b1 = b2 = b3 = np.inf
    m4 = m - m % 4
    for t in range(0, m4, 4):
        a0, a1 = _max(a0, F_up[t]), _max(a1, F_up[t + 1])
        a2, a3 = _max(a2, F_up[t + 2]), _max(a3, F_up[t + 3])
        b0, b1 = _min(b0, F_low[t]), _min(b1, F_low[t + 1])
        b2, b3 = _min(b2, F_low[t + 2]), _min(b3, F_low[t + 3])
    for t in range(m4, m):
        a0, b0 = _max(a0, F_up[t]), _min(b0, F_low[t])
    Fi, Fj = _max(_max(a0, a1), _max(a2, a3)), _min(_min(b0, b1), _min(b2, b3))
    i = 0
    while i < m - 1 and F_up[i] != Fi:
        i += 1
    j = 0
    while j < m - 1 and F_low[j] != Fj:
        j += 1
    return i, j, Fi, Fj


@numba.njit(cache=True)
def _membership(alpha, pos, C, F, up, low, F_up, F_low):
    """``up``, ``low``: the membership of ``I_up`` and ``I_low``; ``F_up``, ``F_low``:
    ``F`` on each set and -inf / +inf elsewhere."""
    for t in range(alpha.size):
        up[t], low[t] = _in_up(alpha[t], pos[t], C), _in_low(alpha[t], pos[t], C)
        F_up[t] = F[t] if up[t] else -np.inf
        F_low[t] = F[t] if low[t] else np.inf


@numba.njit(cache=True)
def _second_index(Ki, active, F_low, diag, i, Fi):
    """The ``t`` in ``I_low`` with ``F_t < F_i`` of largest ``(F_i - F_t)^2 / a_it`` (0
    for the others, as ``_ActiveSet.second_order_j``), -1 if there is none.

    The quotient is formed only where it may beat the best so far (a product with a
    margin of 1e-12 rules the others out exactly), so that the loop's one
    data-dependent branch is rarely taken.
    """
    best, bound, jj, di = 0.0, 0.0, -1, diag[i]
    for t in range(F_low.size):
        b = Fi - F_low[t]
        if b < 0.0:
            b = 0.0
        curv = Ki[active[t]] * -2.0 + diag[t] + di
        if curv < _TAU:
            curv = _TAU
        b2 = b * b
        if b2 > bound * curv:
            score = b2 / curv
            if score > best:
                best, bound, jj = score, score * (1.0 - 1e-12), t
    return jj


@numba.njit(cache=True)
def _out_of_race(up, low, F, Fi, Fj, drop):
    """Mark in ``drop`` the variables out of the race, as ``_ActiveSet.out_of_race``
    (``Fj``: the minimum over ``I_low``, of the maximal violating pair); their count."""
    count = 0
    for t in range(F.size):
        out = (up[t] and not low[t] and Fj > F[t]) or (low[t] and not up[t] and Fi < F[t])
        drop[t] = out
        count += out
    return count


@numba.njit(cache=True)
def _pair_step(alpha, F, pos, diag, Kij, i, j, C):
    """Move ``alpha_i``, ``alpha_j`` as ``_ActiveSet.pair_step``; return the step ``t``."""
    a = diag[i] + diag[j] - 2.0 * Kij
    if a <= 0:
        a = _TAU
    t = (F[i] - F[j]) / a
    ai, aj = alpha[i], alpha[j]
    if pos[i]:
        lo_i, hi_i = -ai, C - ai
    else:
        lo_i, hi_i = ai - C, ai
    if pos[j]:
        lo_j, hi_j = aj - C, aj
    else:
        lo_j, hi_j = -aj, C - aj
    t = min(max(t, lo_i, lo_j), hi_i, hi_j)
    alpha[i] = _snap(ai + t if pos[i] else ai - t, C)
    alpha[j] = _snap(aj - t if pos[j] else aj + t, C)
    return t


@numba.njit(cache=True)
def _update(F, F_up, F_low, up, low, Ki, Kj, active, t):
    """``F -= t (K_i - K_j)``, and its restrictions to ``I_up`` and ``I_low``."""
    for k in range(F.size):
        g = active[k]
        f = F[k] - (Ki[g] - Kj[g]) * t
        F[k] = f
        F_up[k] = f if up[k] else -np.inf
        F_low[k] = f if low[k] else np.inf


@numba.njit(cache=True)
def smo_steps(cache, clock, problem, C, tol, steps, countdown, shrink, work, resume):
    """SMO steps on the active variables until there is a reason to stop.

    The arrays come in four tuples: ``cache = (store, slot, used)``, ``problem =
    (active, alpha, F, pos, diag)``, ``shrink = (shrink_every, shrink_at, second_order,
    shrinking)`` and ``work = (up, low, F_up, F_low, drop, state)``.

    Parameters
    ----------
    store : ndarray of shape (r, n), C-contiguous
        Rows of ``K`` over all ``n`` variables: the Gram matrix, or a cache's store.
    slot : ndarray of int, shape (n,)
        The row of ``store`` holding ``K[k, :]``, -1 if it is not there.
    used : ndarray of int64, shape (r,)
        A row's last use (``clock``), updated at each read: the cache's LRU record.
    clock : int
        The cache's clock before this call.
    active : ndarray of int, shape (m,)
        The active variables' indices in the whole problem.
    alpha, F, pos, diag : ndarrays of shape (m,)
        The active variables' multipliers and ``F`` (updated in place), labels
        (``y > 0``) and ``K_kk``.
    C, tol : float
    steps : int
        Most steps to take in this call.
    countdown, shrink_every : int
        Steps until the next look for variables to set aside, and the period.
    shrink_at : float
        Stop with ``SHRINK`` when more than this many are out of the race.
    second_order, shrinking : bool
    up, low : ndarrays of bool, shape (m,)
        Written: membership of ``I_up`` and ``I_low``.
    F_up, F_low : ndarrays of shape (m,)
        Written: ``F`` on ``I_up`` and -inf elsewhere, ``F`` on ``I_low`` and +inf
        elsewhere, kept up to date with ``F`` (what a prefetch ranks its candidates by).
    drop : ndarray of bool, shape (m,)
        Written at a ``SHRINK`` stop: the variables out of the race.
    state : ndarray of float, shape (11,)
        Written at every stop: the pair ``i``, ``j`` (for ``NEED_ROW``, the active
        position of the missing row and of the row to keep, or -1), the gap, the
        steps taken, ``countdown`` and ``clock``; then, for ``NEED_ROW``, where to
        resume: ``i``, the maximal violating ``j``, their ``F``, and the second index
        if it was chosen (else -1).
    resume : bool
        Go on from a ``NEED_ROW`` stop (``up``, ``low``, ``F_up``, ``F_low`` and
        ``state`` as that call left them) instead of starting afresh.

    Returns
    -------
    status : int
        ``CONVERGED``, ``OUT_OF_STEPS``, ``SHRINK`` or ``NEED_ROW``.
    """
    store, slot, used = cache
    active, alpha, F, pos, diag = problem
    shrink_every, shrink_at, second_order, shrinking = shrink
    up, low, F_up, F_low, drop, state = work
    taken = 0
    if resume:
        i, jm, Fi, Fj, known = int(state[6]), int(state[7]), state[8], state[9], int(state[10])
    else:
        _membership(alpha, pos, C, F, up, low, F_up, F_low)
        i, jm, Fi, Fj = _violating_pair(F_up, F_low)
        known = -1
    while True:
        gap = Fi - Fj
        if gap <= tol:
            status = CONVERGED
            break
        if taken >= steps:
            status = OUT_OF_STEPS
            break
        si = slot[active[i]]
        if si < 0:
            state[0], state[1], status = i, -1, NEED_ROW
            state[6], state[7], state[8], state[9], state[10] = i, jm, Fi, Fj, -1
            break
        Ki = store[si]
        j = jm
        if known >= 0:
            j, known = known, -1
        elif second_order:
            jj = _second_index(Ki, active, F_low, diag, i, Fi)
            if jj >= 0:
                j = jj
        sj = slot[active[j]]
        if sj < 0:
            state[0], state[1], status = j, i, NEED_ROW
            state[6], state[7], state[8], state[9], state[10] = i, jm, Fi, Fj, j
            break
        Kj = store[sj]
        countdown -= 1
        if shrinking and countdown <= 0:
            countdown = shrink_every
            if _out_of_race(up, low, F, Fi, Fj, drop) > shrink_at:
                status = SHRINK
                break
        clock += 1
        used[si] = clock
        clock += 1
        used[sj] = clock
        t = _pair_step(alpha, F, pos, diag, Ki[active[j]], i, j, C)
        for k in (i, j):
            up[k] = _in_up(alpha[k], pos[k], C)
            low[k] = _in_low(alpha[k], pos[k], C)
        taken += 1
        _update(F, F_up, F_low, up, low, Ki, Kj, active, t)
        i, jm, Fi, Fj = _violating_pair(F_up, F_low)
    if status != NEED_ROW:
        state[0] = i
        state[1] = jm
    state[2] = gap
    state[3] = taken
    state[4] = countdown
    state[5] = clock
    return status


@numba.njit(cache=True)
def store_rows(points, rows, keep, store, slot, owner, used, clock, filled):
    """Put ``rows``, the kernel rows of ``points``, in a cache's store
    (:class:`ksvm.columns.KernelColumns`'s arrays, updated in place).

    A point already cached is skipped.  A row takes a free slot while there is one
    (``filled[0]``, the slots in use, grows), else the least recently used slot's,
    never the slot ``keep`` (-1: none), whose point leaves the cache.  What
    ``KernelColumns`` does in numpy with a sort of the record of use: here one pass
    over the slots per row, without a return to Python, for the misses of
    :func:`smo_steps`, typically one or two rows at a time.
    """
    capacity = store.shape[0]
    for r in range(points.size):
        p = points[r]
        if slot[p] >= 0:
            continue
        if filled[0] < capacity:
            s = filled[0]
            filled[0] += 1
        else:
            s, oldest = -1, np.iinfo(np.int64).max
            for q in range(capacity):
                if q != keep and used[q] < oldest:
                    s, oldest = q, used[q]
            slot[owner[s]] = -1
        store[s, :] = rows[r]
        owner[s], slot[p], used[s] = p, s, clock
