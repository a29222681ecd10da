"""The steps of :func:`ksvm.lsvm.lsvm_kernel_coordinate`, compiled by Numba.

A step reads one row of ``K`` and passes once over the active variables; on a
thousand points that is about a microsecond of arithmetic, which a loop of numpy
calls would bury under their overhead (as :mod:`ksvm._smo_compiled` explains for
SMO).  :func:`coordinate_steps` returns to Python when it has converged, run out
of steps, or needs a row that the cache does not hold; the caller computes it and
calls again with ``resume``, and the loop goes on from the same state.
"""

import numba
import numpy as np

from .._smo_compiled import _max

__all__ = ["CONVERGED", "NEED_ROW", "OUT_OF_STEPS", "coordinate_steps", "pair_steps"]

#: What :func:`coordinate_steps` returns: why it stopped.
CONVERGED, OUT_OF_STEPS, NEED_ROW = 0, 1, 3


@numba.njit(cache=True)
def _argmax(V):
    """The first index of the largest value of ``V`` and that value: the largest by four
    independent chains of comparisons (a running ``argmax`` is one dependent chain),
    then the first index that holds it."""
    m = V.size
    a0 = a1 = a2 = a3 = -np.inf
    m4 = m - m % 4
    for t in range(0, m4, 4):
        a0, a1 = _max(a0, V[t]), _max(a1, V[t + 1])
        a2, a3 = _max(a2, V[t + 2]), _max(a3, V[t + 3])
    for t in range(m4, m):
        a0 = _max(a0, V[t])
    v = _max(_max(a0, a1), _max(a2, a3))
    i = 0
    while i < m - 1 and V[i] != v:
        i += 1
    return i, v


@numba.njit(cache=True, inline="always")
def _violation(u, g):
    """How far ``u`` breaks the optimality condition in its coordinate: ``|g|`` where
    ``u > 0`` (there ``g`` must be 0), ``max(0, -g)`` where ``u = 0``."""
    return _max(-g, g if u > 0.0 else 0.0)


@numba.njit(cache=True)
def _step_all(Ki, y, u, g, V, c):
    """``g += c y K_i`` and the violations, on the whole problem (rows read in order)."""
    for k in range(g.size):
        gk = g[k] + y[k] * Ki[k] * c
        g[k] = gk
        V[k] = _violation(u[k], gk)


@numba.njit(cache=True)
def _step_some(Ki, active, y, u, g, V, c):
    """As :func:`_step_all` on the ``active`` points (rows read through the indices)."""
    for k in range(g.size):
        gk = g[k] + y[k] * Ki[active[k]] * c
        g[k] = gk
        V[k] = _violation(u[k], gk)


@numba.njit(cache=True)
def coordinate_steps(cache, clock, problem, inv_nu, omega, tol, steps, work, resume):
    """Greedy projected over-relaxed coordinate steps on ``min_{u>=0} u'Mu/2 - 1'u``,
    ``M = I/nu + YKY``, restricted to the active points, until there is a reason to stop.

    Each step takes the point of largest violation (:func:`_violation` of ``g = Mu - 1``),
    moves its ``u_i`` to ``max(0, u_i - omega g_i / M_ii)`` and updates ``g`` by the
    change times the column ``M_:i``, read from the row ``K_i`` of the cache.

    Parameters
    ----------
    cache : tuple ``(store, slot, used)``
        Rows of ``K`` over all the points (C-contiguous), the row of ``store`` that holds
        each point's (-1 if none) and the record of each row's last use (``clock``).
    clock : int
        The cache's clock before this call.
    problem : tuple ``(active, u, g, y, diag)``
        The active points' indices in the whole problem (``whole`` if they are all of
        them, in order), their ``u`` and ``g`` (updated in place), labels (+-1) and
        ``M_ii``.
    inv_nu, omega, tol : float
        ``1 / nu``, the over-relaxation (in ``(0, 2)``) and the largest violation
        accepted.
    steps : int
        Most steps to take in this call.
    work : tuple ``(V, state)``
        ``V`` (written): the violations; ``state`` (written at every stop): the point
        whose row is missing (for ``NEED_ROW``), the largest violation, the steps taken
        and the clock.
    resume : bool
        Go on from a ``NEED_ROW`` stop (``V`` as that call left it).

    Returns
    -------
    status : int
        ``CONVERGED``, ``OUT_OF_STEPS`` or ``NEED_ROW``.
    """
    store, slot, used = cache
    active, u, g, y, diag = problem
    V, state = work
    whole = active.size == store.shape[1] and active[0] == 0 and active[-1] == active.size - 1
    if not resume:
        for k in range(u.size):
            V[k] = _violation(u[k], g[k])
    i, worst = _argmax(V)
    taken = 0
    while True:
        if worst <= tol:
            status = CONVERGED
            break
        if taken >= steps:
            status = OUT_OF_STEPS
            break
        s = slot[active[i]]
        if s < 0:
            state[0], status = i, NEED_ROW
            break
        clock += 1
        used[s] = clock
        new = u[i] - omega * g[i] / diag[i]
        if new < 0.0:
            new = 0.0
        change = new - u[i]
        u[i] = new
        g[i] += change * inv_nu
        if whole:
            _step_all(store[s], y, u, g, V, y[i] * change)
        else:
            _step_some(store[s], active, y, u, g, V, y[i] * change)
        taken += 1
        i, worst = _argmax(V)
    state[1] = worst
    state[2] = taken
    state[3] = clock
    return status


@numba.njit(cache=True, inline="always")
def _gain(a, b, c, gi, gk, movable):
    """How much the objective falls when ``u_i, u_k`` move together to the minimum of its
    restriction to them, bounds left out: ``h'H^{-1}h / 2`` for ``h = (g_i, g_k)`` and
    ``H = [[a, b], [b, c]]``, the block of ``M``; doubled, as only the order counts.  0
    if ``u_k`` cannot move (``movable`` false) or ``H`` is singular to rounding."""
    det = a * c - b * b
    num = c * gi * gi - 2.0 * b * gi * gk + a * gk * gk
    return num / det if movable & (det > 1e-12 * a * c) else 0.0


# error_model="numpy": a division by zero gives inf, as in numpy, where Numba's
# default would test every divisor to raise; without the test the loops vectorize
# (measured on 1,000 points: 0.9 us a pass against 2.1).
@numba.njit(cache=True, error_model="numpy")
def _gains_all(Ki, y, u, g, diag, i, W):
    """``W[k]``: :func:`_gain` of the pair ``(i, k)`` on the whole problem (rows read in
    order).  ``u_k`` can move where ``u_k > 0`` or ``g_k < 0``."""
    a, gi, yi = diag[i], g[i], y[i]
    for k in range(g.size):
        gk = g[k]
        W[k] = _gain(a, yi * y[k] * Ki[k], diag[k], gi, gk, (u[k] > 0.0) | (gk < 0.0))


@numba.njit(cache=True, error_model="numpy")
def _gains_some(Ki, active, y, u, g, diag, i, W):
    """As :func:`_gains_all` on the ``active`` points (rows read through the indices)."""
    a, gi, yi = diag[i], g[i], y[i]
    for k in range(g.size):
        gk = g[k]
        W[k] = _gain(a, yi * y[k] * Ki[active[k]], diag[k], gi, gk, (u[k] > 0.0) | (gk < 0.0))


@numba.njit(cache=True)
def _pair_step(ui, uj, gi, gj, a, b, c):
    """The changes ``(d_i, d_j)`` that take ``u_i, u_j`` to the minimum of the objective
    over ``u_i, u_j >= 0``, the others fixed (``H = [[a, b], [b, c]]`` their block of
    ``M``, ``(g_i, g_j)`` the gradient): the minimum without the bounds if it is feasible,
    else the lower of the minima on the edges ``u_i = 0`` and ``u_j = 0``."""
    det = a * c - b * b
    di, dj = -(c * gi - b * gj) / det, -(a * gj - b * gi) / det
    if ui + di >= 0.0 and uj + dj >= 0.0:
        return di, dj
    di1 = -ui  # on the edge u_i = 0
    dj1 = _max(0.0, uj - (gj + b * di1) / c) - uj
    dj2 = -uj  # on the edge u_j = 0
    di2 = _max(0.0, ui - (gi + b * dj2) / a) - ui
    fall1 = gi * di1 + gj * dj1 + 0.5 * (a * di1 * di1 + 2.0 * b * di1 * dj1 + c * dj1 * dj1)
    fall2 = gi * di2 + gj * dj2 + 0.5 * (a * di2 * di2 + 2.0 * b * di2 * dj2 + c * dj2 * dj2)
    return (di1, dj1) if fall1 <= fall2 else (di2, dj2)


@numba.njit(cache=True)
def _pair_all(Ki, Kj, y, u, g, V, ci, cj):
    """``g += y (ci K_i + cj K_j)`` and the violations, on the whole problem."""
    for k in range(g.size):
        gk = g[k] + y[k] * (Ki[k] * ci + Kj[k] * cj)
        g[k] = gk
        V[k] = _violation(u[k], gk)


@numba.njit(cache=True)
def _pair_some(Ki, Kj, active, y, u, g, V, ci, cj):
    """As :func:`_pair_all` on the ``active`` points."""
    for k in range(g.size):
        t = active[k]
        gk = g[k] + y[k] * (Ki[t] * ci + Kj[t] * cj)
        g[k] = gk
        V[k] = _violation(u[k], gk)


@numba.njit(cache=True)
def pair_steps(cache, clock, problem, inv_nu, tol, steps, work, resume):
    """As :func:`coordinate_steps`, but each step moves two multipliers: ``u_i`` of the point
    of largest violation and ``u_j`` of the point whose pair with it lowers the objective
    most without the bounds (:func:`_gains_all`), both to the minimum over
    ``u_i, u_j >= 0`` (:func:`_pair_step`).  That lowers the objective at least as much as
    the exact step on ``u_i`` alone, which the loop takes if no ``j`` can move.

    ``work`` is ``(V, W, state)``: ``W`` a buffer as long as ``V``, ``state`` five long;
    on ``NEED_ROW``, ``state[4]`` is the point whose row must stay in the cache while the
    missing one is computed (``-1`` if none)."""
    store, slot, used = cache
    active, u, g, y, diag = problem
    V, W, state = work
    whole = active.size == store.shape[1] and active[0] == 0 and active[-1] == active.size - 1
    if not resume:
        for k in range(u.size):
            V[k] = _violation(u[k], g[k])
    i, worst = _argmax(V)
    taken = 0
    state[4] = -1
    while True:
        if worst <= tol:
            status = CONVERGED
            break
        if taken >= steps:
            status = OUT_OF_STEPS
            break
        si = slot[active[i]]
        if si < 0:
            state[0], status = i, NEED_ROW
            break
        Ki = store[si]
        if whole:
            _gains_all(Ki, y, u, g, diag, i, W)
        else:
            _gains_some(Ki, active, y, u, g, diag, i, W)
        W[i] = 0.0
        j, best = _argmax(W)
        if best > 0.0:
            sj = slot[active[j]]
            if sj < 0:
                state[0], state[4], status = j, i, NEED_ROW
                break
            b = y[i] * y[j] * Ki[active[j]]
            di, dj = _pair_step(u[i], u[j], g[i], g[j], diag[i], b, diag[j])
        else:  # no partner: the exact step on u_i alone
            j, sj = i, si
            di, dj = _max(0.0, u[i] - g[i] / diag[i]) - u[i], 0.0
        clock += 1
        used[si] = clock
        used[sj] = clock
        u[i] += di
        g[i] += di * inv_nu
        u[j] += dj
        g[j] += dj * inv_nu
        ci, cj = y[i] * di, y[j] * dj
        if whole:
            _pair_all(Ki, store[sj], y, u, g, V, ci, cj)
        else:
            _pair_some(Ki, store[sj], active, y, u, g, V, ci, cj)
        taken += 1
        i, worst = _argmax(V)
    state[1] = worst
    state[2] = taken
    state[3] = clock
    return status
