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

__all__ = ["CONVERGED", "NEED_ROW", "OUT_OF_STEPS", "coordinate_steps"]

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
