"""The SMO iteration, written once, over a provider of kernel rows.

:func:`run_smo` is the loop of :func:`ksvm.smo.smo` and :func:`ksvm.smo.smo_rows`
(and of the book's SMO stepper): choose the pair, take its step, set aside the
variables out of the race (shrinking) and take them back before stopping.  Where
the rows of ``K`` come from is left to a *row provider*, as libsvm leaves it to
its ``QMatrix``:

* :class:`GramRows` reads the rows of a Gram matrix in memory; once it has
  shrunk, the iteration runs on a copy of the active block, and ``F`` is
  recomputed from ``K`` when the variables set aside are taken back;
* :class:`CachedRows` takes them from a cache of kernel rows with a memory budget
  (:class:`ksvm.columns.KernelColumns`), a missing row computed with the rows of
  the next likely candidates; once it has shrunk, it reads the active entries of
  the cached rows, and brings the ``F`` of the variables set aside up to date
  with one product over the multipliers that changed since.

The inner loop is written twice.  In numpy, with the arithmetic of the step that
the provider brings (:class:`_ActiveSet` for the Gram matrix, whose iterates the
book prints, :class:`_ActiveSetBLAS` for the cached rows, which differs by rounding
only): it runs when a callback or a history watches the steps, and it is the one to
read.  Compiled (``ksvm._smo_compiled.smo_steps``), with :class:`_ActiveSet`'s
arithmetic: it runs otherwise, takes the same steps bit for bit on a Gram matrix,
and costs a few microseconds a step where the numpy loop's dozen calls cost about
twelve on a thousand points.  The compiled loop reads the provider's arrays
(``compiled_arrays``) and, at a missing row, returns to Python for it
(``fetch_missing``) and resumes.

The notation (``F``, ``I_up``, ``I_low``, the second-order rule) is that of
:mod:`ksvm.smo`'s docstring.
"""

from typing import NamedTuple

import numpy as np
from scipy.linalg.blas import daxpy as _axpy

__all__ = ["CachedRows", "GramRows", "SMORun", "SMOStep", "run_smo"]

#: Curvature used when a_ij <= 0 (a kernel that is not PSD, or two equal points).
_TAU = 1e-12

_EPS = float(np.finfo(np.float64).eps)


def _snap(value, C):
    """Put a multiplier that rounding left a hair outside or inside a bound on it.

    A step that ends at a bound computes, e.g., ``alpha_j - alpha_j`` or
    ``alpha_i + (C - alpha_i)``, which may miss 0 or C by one rounding error;
    a multiplier of 1e-17 would then count as a support vector.
    """
    scale = 4 * _EPS * (C if np.inf != C else max(1.0, abs(value)))
    if value <= scale:
        return 0.0
    if value >= C - scale:
        return C
    return value


def _penalties(alpha, pos, C):
    """Membership of ``I_up`` and ``I_low`` as additive penalties (0 inside,
    -inf / +inf outside), so that ``F`` restricted to a set is one addition."""
    in_up = np.where(pos, alpha < C, alpha > 0)
    in_low = np.where(pos, alpha > 0, alpha < C)
    return np.where(in_up, 0.0, -np.inf), np.where(in_low, 0.0, np.inf)


class _ActiveSet:
    """SMO on a set of active variables: the choice of the pair and its step.

    :func:`run_smo` hands it the rows of ``K`` its provider gives.  The state is that of the
    active variables: the multipliers ``alpha`` and ``F = -y * G`` (copies,
    updated in place), ``diag``, the diagonal of ``K``, and the membership of
    ``I_up`` and ``I_low`` (see :func:`_penalties`).  Indices are positions in
    the active set; ``Ki`` is row ``i`` of ``K`` over the active variables.
    """

    def __init__(self, alpha, F, pos, diag, C):
        self.alpha, self.F, self.diag, self.C = alpha, F, diag, C
        self.is_pos = pos.tolist()  # Python bools: faster in pair_step()
        self.up_pen, self.low_pen = _penalties(alpha, pos, C)
        m = alpha.size  # work arrays, reused at every iteration:
        self.F_up, self.F_low = np.empty(m), np.empty(m)
        self.score, self.curv = np.empty(m), np.empty(m)

    def violating_pair(self):
        """``i = argmax F`` over ``I_up``, ``j = argmin F`` over ``I_low``, and
        the KKT violation ``F_i - F_j``."""
        F_up, F_low = self.F_up, self.F_low
        # (methods, not np.argmax: the wrapper costs as much as the search at this size)
        np.add(self.F, self.up_pen, out=F_up)  # -inf outside I_up
        i = int(F_up.argmax())
        np.add(self.F, self.low_pen, out=F_low)  # +inf outside I_low
        j = int(F_low.argmin())
        return i, j, F_up[i] - F_low[j]  # the KKT gap m - M

    def out_of_race(self, i, j):
        """The variables to set aside (shrinking), given the violating pair.

        A multiplier at a bound lies in only one of ``I_up``, ``I_low``.  One
        in ``I_up`` alone can only be picked as ``i``, which needs the largest
        ``F`` over ``I_up``; if its ``F`` is below ``min_{I_low} F`` it is out
        of the race for now.  Likewise for ``I_low`` alone and ``F`` above
        ``max_{I_up} F``.
        """
        F, F_up, F_low = self.F, self.F_up, self.F_low
        only_up = np.isfinite(self.up_pen) & ~np.isfinite(self.low_pen)
        only_low = np.isfinite(self.low_pen) & ~np.isfinite(self.up_pen)
        return (only_up & (F_low[j] > F)) | (only_low & (F_up[i] < F))

    def second_order_j(self, i, Ki):
        """The second index by the second-order rule: the ``t`` in ``I_low``
        with ``F_t < F_i`` of largest gain ``(F_i - F_t)^2 / a_it``, where
        ``a_it = K_ii + K_tt - 2 K_it`` is the curvature (at least tau:
        ``a_ii = 0``, and rounding can make ``a_it <= 0``)."""
        # the gain (F_i - F_t)^2 / a_it of each t in I_low with F_t < F_i,
        # 0 for the other t
        score = self.score
        np.subtract(self.F[i], self.F_low, out=score)  # -inf outside I_low
        np.maximum(score, 0.0, out=score)
        score *= score
        score /= self.curvature(i, Ki)
        return int(score.argmax())

    def curvature(self, i, Ki):
        """``a_it = K_ii + K_tt - 2 K_it`` for every ``t``, at least tau."""
        curv = self.curv
        np.multiply(Ki, -2.0, out=curv)
        curv += self.diag
        curv += self.diag[i]
        return np.maximum(curv, _TAU, out=curv)

    def pair_step(self, i, j, Ki, Kj):
        """Move the pair ``(i, j)`` to the best point on its segment of the box;
        return the increase of the dual objective.  The step ``t`` (``alpha_i``
        moves by ``y_i t``, ``alpha_j`` by ``-y_j t``) is kept in ``self.t``."""
        alpha, F, C, is_pos = self.alpha, self.F, self.C, self.is_pos
        a = float(self.diag[i] + self.diag[j] - 2.0 * Ki[j])
        if a <= 0:
            a = _TAU
        # Step t along lambda_i += y_i t, lambda_j -= y_j t: the objective
        # (minimisation form) changes by -t (F_i - F_j) + t^2 a / 2.
        dF = float(F[i] - F[j])
        t = dF / a
        # keep both multipliers in [0, C]
        ai, aj = float(alpha[i]), float(alpha[j])
        lo_i, hi_i = (-ai, C - ai) if is_pos[i] else (ai - C, ai)
        lo_j, hi_j = (aj - C, aj) if is_pos[j] else (-aj, C - aj)
        t = min(max(t, lo_i, lo_j), hi_i, hi_j)
        ai = _snap(ai + t if is_pos[i] else ai - t, C)
        aj = _snap(aj - t if is_pos[j] else aj + t, C)
        alpha[i], alpha[j] = ai, aj
        self.t = t
        self.update_F(t, Ki, Kj)
        for k, ak in ((i, ai), (j, aj)):
            in_up = ak < C if is_pos[k] else ak > 0
            in_low = ak > 0 if is_pos[k] else ak < C
            self.up_pen[k] = 0.0 if in_up else -np.inf
            self.low_pen[k] = 0.0 if in_low else np.inf
        return t * dF - 0.5 * t * t * a  # Theta = -f goes up

    def update_F(self, t, Ki, Kj):
        """``F -= t (K_i - K_j)``: only two rows of ``K`` change ``F``."""
        np.subtract(Ki, Kj, out=self.score)
        self.score *= t
        self.F -= self.score


class _ActiveSetBLAS(_ActiveSet):
    """:class:`_ActiveSet` with the two vector updates of an iteration in fewer
    passes over the active set, for :class:`CachedRows` (about 5 % of the time of
    :func:`ksvm.smo.smo_rows`):
    ``F`` through two in-place BLAS ``daxpy``, and the curvature as
    ``2 K_11 - 2 K_it`` when the diagonal is constant (rbf, exponential).  The
    values differ from the parent's by rounding only; :class:`GramRows` keeps the
    parent's arithmetic, so that the iterates of :func:`ksvm.smo.smo`, which the
    book prints, stay the same.
    """

    def __init__(self, alpha, F, pos, diag, C):
        super().__init__(alpha, F, pos, diag, C)
        self.same_diag = bool(diag.size and diag.min() == diag.max())

    def curvature(self, i, Ki):
        if not self.same_diag:
            return super().curvature(i, Ki)
        curv = self.curv
        np.multiply(Ki, -2.0, out=curv)
        curv += 2.0 * self.diag[0]
        return np.maximum(curv, _TAU, out=curv)

    def update_F(self, t, Ki, Kj):
        _axpy(Ki, self.F, a=-t)
        _axpy(Kj, self.F, a=t)


class _Prefetch:
    """Compute a missing row of the Gram matrix together with the uncached rows
    of the next likely members of a pair, in one block.

    The candidates are the ``count`` largest ``F`` in ``I_up`` and smallest in
    ``I_low``; finding them costs two partial sorts of ``F`` (more than a
    whole SMO iteration at 50 000 points), so they are found again only every
    ``renew`` misses.
    """

    def __init__(self, rows, count, active, renew=16):
        self.rows, self.count, self.active, self.renew = rows, count, active, renew
        self.candidates, self.age = np.empty(0, dtype=np.intp), renew

    def __call__(self, i, F_up, F_low):
        """Make row ``active[i]`` cached; ``F_up``, ``F_low`` over the active set."""
        self.rows.fetch(self.batch(i, F_up, F_low))

    def batch(self, i, F_up, F_low, kept=0):
        """The points whose rows to compute: ``active[i]`` first, then the uncached
        candidates, as many as leave half the cache alone (besides ``kept`` rows
        that must stay)."""
        rows, n, k = self.rows, F_up.size, min(self.count, F_up.size - 1)
        i = int(self.active[i])
        if k <= 0:
            return [i]
        if self.age >= self.renew:
            batch = np.concatenate(
                (np.argpartition(F_up, n - 1 - k)[n - 1 - k :], np.argpartition(F_low, k)[: k + 1])
            )
            batch = batch[np.isfinite(F_up[batch]) | np.isfinite(F_low[batch])]
            self.candidates = self.active[batch]
            self.age = 0
        self.age += 1
        batch = self.candidates[rows._slot[self.candidates] < 0].tolist()
        room = (rows.capacity - kept) // 2
        return list(dict.fromkeys([i, *batch]))[: max(1, min(2 * k + 1, room))]


# -- the row providers --------------------------------------------------------------
class GramRows:
    """Rows of ``K`` from the Gram matrix in memory.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The Gram matrix, checked by the caller; never modified.

    Attributes
    ----------
    n : int
    diagonal : ndarray of shape (n,)
    active_set : type
        The arithmetic of the step, :class:`_ActiveSet`.
    shrink_share : float
        The iteration shrinks once more than this share of the active variables
        is out of the race: a half, since each shrinking copies the active block of ``K``.
    """

    active_set = _ActiveSet
    shrink_share = 0.5
    compiled = True

    def __init__(self, K):
        self.K = K
        self.n = K.shape[0]
        self.diagonal = np.diag(K).copy()
        self.clock = 0

    def compiled_arrays(self):
        """What ``ksvm._smo_compiled.smo_steps`` reads the rows from: ``K`` itself
        (C-ordered), every row in its own place, and a record of use nobody reads."""
        K = self.K if self.K.flags.c_contiguous else np.ascontiguousarray(self.K)
        return K, np.arange(self.n), np.zeros(self.n, dtype=np.int64)

    def start(self, active, act):
        """``row(k)``, row ``k`` of ``K`` over the active variables, and
        ``pair_rows(Ki, j)``, the rows ``(K_i, K_j)`` of a pair, for a round of
        the iteration on ``active`` (positions in the whole problem)."""
        Ka = self.K[np.ix_(active, active)] if active.size < self.n else self.K
        return Ka.__getitem__, lambda Ki, j: (Ki, Ka[j])

    def set_aside(self, idx, v):
        """Nothing to keep: ``take_back`` recomputes ``F`` from ``K``."""

    def take_back(self, F, v, y):
        """``F = y - K v`` of every variable, ``v = alpha * y``."""
        return y - self.K @ v


class CachedRows:
    """Rows of ``K`` from a cache of kernel rows, computed on demand.

    Parameters
    ----------
    columns : ksvm.columns.KernelColumns
        The cache of rows (one for the whole run).
    product : callable
        ``product(rows, cols, v)`` returns ``K[rows, cols] @ v``, computed from the
        points: it brings the ``F`` of the variables set aside up to date.
    prefetch : int >= 0, default=16
        How many candidates from each end (the largest ``F`` in ``I_up``, the
        smallest in ``I_low``) are computed with a missing row, in one block.

    Attributes
    ----------
    n, diagonal, active_set, shrink_share
        As for :class:`GramRows`; the arithmetic is the BLAS-backed one, and one
        variable out of the race is enough to shrink (a round costs no copy here,
        and the fewer the active variables, the fewer the rows a run asks for).
    """

    active_set = _ActiveSetBLAS
    shrink_share = 0.0

    def __init__(self, columns, product, prefetch=16):
        self.columns, self.product, self.prefetch = columns, product, prefetch
        self.n = columns.m
        self.diagonal = np.asarray(columns.diagonal, dtype=float)
        self._aside = []  # (indices, alpha * y when they were set aside)
        self._fetch = None
        # the compiled loop holds the two rows of a pair in the cache at once
        self.compiled = columns.capacity >= 2

    @property
    def clock(self):
        """The cache's clock of row uses (its least recently used row leaves first)."""
        return self.columns._clock

    @clock.setter
    def clock(self, value):
        self.columns._clock = value

    def compiled_arrays(self):
        """The cache's store of rows, its map from a point to its row (-1 if missing)
        and its record of use, which ``ksvm._smo_compiled.smo_steps`` reads and
        updates in place."""
        columns = self.columns
        return columns._store, columns._slot, columns._used

    def fetch_missing(self, active, k, keep, F_up, F_low):
        """Cache the row of the active variable ``k`` with the next likely candidates,
        keeping the row of the active variable ``keep`` (-1: none) cached; ``F_up`` and
        ``F_low`` are ``F`` on ``I_up`` and ``I_low`` (see :func:`_penalties`).

        When the cache holds every row, the candidates are the uncached variables of
        largest ``F`` in ``I_up`` and smallest in ``I_low``, as many as half the rows
        computed so far (at least ``2 prefetch + 1``): the blocks grow geometrically,
        so that a run computes its rows in a few BLAS calls, not one call per miss.
        Otherwise as :class:`_Prefetch`."""
        columns = self.columns
        if columns.capacity < self.n:
            if self._fetch is None or self._fetch.active is not active:
                self._fetch = _Prefetch(columns, self.prefetch, active)
            from ._smo_compiled import store_rows

            keep_slot = -1 if keep < 0 else int(columns._slot[active[keep]])
            batch = np.array(self._fetch.batch(k, F_up, F_low, 0 if keep < 0 else 1))
            filled = np.array([columns._filled])
            store_rows(
                batch,
                columns._scratch_rows(batch),
                keep_slot,
                columns._store,
                columns._slot,
                columns._owner,
                columns._used,
                columns._clock,
                filled,
            )
            columns._filled = int(filled[0])
            return
        keep = () if keep < 0 else (int(active[keep]),)
        cached = columns.cached(active)
        F_up, F_low = F_up.copy(), F_low.copy()
        F_up[cached], F_low[cached] = -np.inf, np.inf
        half = min(max(self.prefetch, columns.n_rows_computed // 4), active.size - 1)
        batch = [int(active[k])]
        if half > 0:
            top = np.argpartition(F_up, active.size - 1 - half)[active.size - 1 - half :]
            bottom = np.argpartition(F_low, half)[: half + 1]
            top, bottom = top[np.isfinite(F_up[top])], bottom[np.isfinite(F_low[bottom])]
            batch += active[np.concatenate((top, bottom))].tolist()
        columns.fetch(list(dict.fromkeys(batch)), keep=keep)

    def start(self, active, act):
        """As :meth:`GramRows.start`; a missing row is computed with the next likely
        candidates of ``act``.  With nothing set aside the rows are views of the
        cache, and row ``i`` is copied when computing row ``j`` may evict it."""
        columns, shrunk = self.columns, active.size < self.n
        cached, cache_row = columns.cached, columns.row
        fetch = _Prefetch(columns, self.prefetch, active)

        def row(k):
            if not cached(int(active[k])):
                fetch(k, act.F_up, act.F_low)
            return cache_row(active[k])[active] if shrunk else cache_row(k)

        if shrunk:
            return row, lambda Ki, j: (Ki, row(j))
        return row, lambda Ki, j: (Ki if cached(j) else Ki.copy(), row(j))

    def set_aside(self, idx, v):
        """Remember ``v = alpha * y`` at the time the variables ``idx`` leave."""
        self._aside.append((idx, v))

    def take_back(self, F, v, y):
        """Bring ``F`` of the variables set aside up to date (in place): it moved by
        ``-K[set aside, changed] (delta alpha * y)_changed`` since they left."""
        for idx, v_then in self._aside:
            change = v - v_then
            changed = np.flatnonzero(change)
            if changed.size:
                F[idx] -= self.product(idx, changed, change[changed])
        self._aside = []
        return F


def _compiled_round(rows, active, alpha, F, pos, diag, C, tol, options):
    """One round of :func:`run_smo`'s inner loop by ``ksvm._smo_compiled.smo_steps``:
    the same steps, ``alpha`` and ``F`` (the active variables') updated in place.
    ``options`` are the most steps to take, ``shrink_every``, ``shrink_at``,
    ``second_order`` and ``shrinking``.  Returns the gap, the steps taken and the
    variables out of the race (meaningful only when the round stopped to shrink)."""
    from ._smo_compiled import NEED_ROW, smo_steps  # numba loads with the first run

    steps, shrink_every, shrink_at, second_order, shrinking = options
    store, slot, used = rows.compiled_arrays()
    m = active.size
    up, low, drop = np.empty(m, dtype=bool), np.empty(m, dtype=bool), np.zeros(m, dtype=bool)
    F_up, F_low, state = np.empty(m), np.empty(m), np.empty(11)
    countdown, taken, resume = shrink_every, 0, False
    while True:
        status = smo_steps(
            (store, slot, used), rows.clock, (active, alpha, F, pos, diag), C, tol,
            steps - taken, countdown, (shrink_every, shrink_at, second_order, shrinking),
            (up, low, F_up, F_low, drop, state), resume,
        )  # fmt: skip
        taken += int(state[3])
        countdown = int(state[4])
        rows.clock = int(state[5])
        if status != NEED_ROW:
            return state[2], taken, drop
        rows.fetch_missing(active, int(state[0]), int(state[1]), F_up, F_low)
        resume = True  # the cache changed, nothing else: go on where the loop stopped


# -- the loop ------------------------------------------------------------------------
class SMOStep(NamedTuple):
    """What one pair step moved, as :func:`run_smo` hands it to its callback.

    Attributes
    ----------
    n_iter : int
        Steps taken, this one included.
    i, j : int
        The pair, as indices of the whole problem.
    t : float
        The step: ``alpha_i += y_i t``, ``alpha_j -= y_j t``, clipped to the box.
    alpha_i, alpha_j : float
        The two multipliers after the step (put on a bound where rounding left
        them a hair from it).
    gain : float
        The increase of the dual objective.
    gap : float
        The KKT violation of the active variables before the step.
    active : ndarray of int
        The indices of the active variables (all of them unless shrinking set
        some aside).
    alpha, F : ndarray
        The multipliers and ``F = -y * G`` of the active variables after the
        step: the solver's own arrays, to be read (or copied) during the call only.
    """

    n_iter: int
    i: int
    j: int
    t: float
    alpha_i: float
    alpha_j: float
    gain: float
    gap: float
    active: np.ndarray
    alpha: np.ndarray
    F: np.ndarray


class SMORun(NamedTuple):
    """What :func:`run_smo` returns: the multipliers, ``F = y - K (alpha * y)`` as
    maintained, the number of pair steps, and the dual objective after each step
    (``history[0] = 0``, the start) if asked for, else None."""

    alpha: np.ndarray
    F: np.ndarray
    n_iter: int
    history: list


class _Watch:
    """The dual objective summed over the steps (its history) and the callback."""

    def __init__(self, callback, history):
        self.callback, self.objective = callback, 0.0
        self.history = [0.0] if history else None

    def __call__(self, act, active, i, j, gain, gap, n_iter):
        self.objective += gain
        if self.history is not None:
            self.history.append(self.objective)
        if self.callback is not None:
            alpha = act.alpha
            self.callback(
                SMOStep(
                    n_iter,
                    int(active[i]),
                    int(active[j]),
                    act.t,
                    float(alpha[i]),
                    float(alpha[j]),
                    gain,
                    float(gap),
                    active,
                    alpha,
                    act.F,
                )
            )


def run_smo(
    rows,
    y,
    C,
    *,
    tol,
    max_iter,
    second_order=True,
    shrinking=True,
    callback=None,
    history=False,
):
    """SMO from ``alpha = 0`` on the rows of ``K`` that ``rows`` gives.

    Parameters
    ----------
    rows : GramRows or CachedRows
        The row provider (anything with their attributes and methods).
    y : array-like of shape (n,)
        Labels in {-1, +1}.
    C : float > 0 or numpy.inf
    tol : float > 0
        Stop when the KKT violation of every variable is at most ``tol``.
    max_iter : int >= 0
        Most pair steps.
    second_order : bool, default=True
        The second index by the second-order rule, else the maximal violating pair.
    shrinking : bool, default=True
        Every ``min(n, 1000)`` steps, set aside the multipliers out of the race
        once more than ``rows.shrink_share`` of the active ones are; take them
        all back when the gap is below ``10 tol`` (once) and before stopping.
    callback : callable, optional
        Called after each step with its :class:`SMOStep`.
    history : bool, default=False
        Keep the dual objective after each step.

    Returns
    -------
    run : SMORun
        The arguments are not checked here (:func:`ksvm.smo.smo` does), and
        reaching ``max_iter`` does not warn.

    Examples
    --------
    >>> K = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> steps = []
    >>> run = run_smo(GramRows(K), np.array([1.0, -1.0]), 0.4, tol=1e-9, max_iter=10,
    ...               callback=steps.append)
    >>> run.alpha.tolist(), run.n_iter, [(s.i, s.j, s.t) for s in steps]
    ([0.4, 0.4], 1, [(0, 1, 0.4)])
    """
    y = np.asarray(y, dtype=np.float64)
    n = y.shape[0]
    pos_all, alpha_all, F_all = y > 0, np.zeros(n), y.copy()  # F = y at alpha = 0
    diag_all = rows.diagonal
    watch = _Watch(callback, history) if callback is not None or history else None
    n_iter, gap = 0, np.inf
    shrink_every = min(n, 1000)
    unshrunk_near_optimum = False
    active = np.arange(n)
    while True:
        # --- the (sub)problem on the active set: copies of its alpha and F ---
        shrunk = active.size < n
        shrink_at = active.size * rows.shrink_share
        if watch is None and rows.compiled:  # nobody watches: the compiled twin of the loop
            alpha_a, F_a = alpha_all[active], F_all[active]
            gap, taken, drop = _compiled_round(
                rows, active, alpha_a, F_a, pos_all[active], diag_all[active], C, tol,
                (max_iter - n_iter, shrink_every, shrink_at, second_order, shrinking),
            )  # fmt: skip
            n_iter += taken
        else:
            act = rows.active_set(
                alpha_all[active], F_all[active], pos_all[active], diag_all[active], C
            )
            row, pair_rows = rows.start(active, act)
            violating_pair, out_of_race = act.violating_pair, act.out_of_race
            second_order_j, pair_step = act.second_order_j, act.pair_step
            countdown = shrink_every
            while True:
                i, j, gap = violating_pair()
                if gap <= tol or n_iter >= max_iter:
                    break
                countdown -= 1
                if shrinking and countdown <= 0:
                    countdown = shrink_every
                    drop = out_of_race(i, j)
                    if drop.sum() > shrink_at:  # worth going on without them
                        break
                Ki = row(i)  # from the Gram matrix or from a cache of rows
                if second_order:
                    j = second_order_j(i, Ki)
                Ki, Kj = pair_rows(Ki, j)
                gain = pair_step(i, j, Ki, Kj)
                n_iter += 1
                if watch is not None:
                    watch(act, active, i, j, gain, gap, n_iter)
            alpha_a, F_a = act.alpha, act.F

        alpha_all[active] = alpha_a
        F_all[active] = F_a
        if gap > tol and n_iter < max_iter and (unshrunk_near_optimum or gap > 10 * tol):
            rows.set_aside(active[drop], alpha_all * y)  # left the inner loop to shrink
            active = active[~drop]
            continue
        if not shrunk and (gap <= tol or n_iter >= max_iter):
            break  # converged on the whole problem, or out of iterations
        # Converged on the active set, near the end (gap <= 10 tol, once), or out
        # of iterations while shrunk: bring F up to date on every variable and go
        # on with all of them.
        F_all = rows.take_back(F_all, alpha_all * y, y)
        active = np.arange(n)
        unshrunk_near_optimum = True
        if n_iter >= max_iter:
            break
    return SMORun(alpha_all, F_all, n_iter, watch.history if watch is not None else None)
