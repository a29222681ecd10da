"""The kernel LSVM by greedy coordinate steps from kernel rows on demand
(:func:`lsvm_kernel_coordinate`).

The dual (11) has only the bound ``u >= 0``, so one multiplier can move on its own:
the step that minimises the objective along ``u_i`` is ``u_i - g_i / M_ii`` cut at 0,
``g = Mu - 1``, and it costs one row of ``K`` and one pass over ``g``.  Taken in
turn this is projected Gauss-Seidel, which Mangasarian & Musicant (1999) used for
the SVM with the offset in the objective, over-relaxed by a factor ``omega``; here
the coordinate is chosen greedily, the one that breaks its optimality condition
most, as SMO chooses its pairs, so that the rows computed are mostly those of
the support vectors.  When ``nu`` is small, ``M = I/nu + YKY`` is well conditioned
and a few steps per support vector reach the tolerance: no factorisation of the
free set's block, which is what the Newton solver (:mod:`ksvm.lsvm.working_set`)
spends most of its time on there.

Two points nearly the same make ``M`` ill-conditioned along their difference, where
single steps zigzag.  A pair step moves the worst violator together with the
partner whose pair lowers the objective most, to the exact minimum of the 2 x 2
problem with its bounds: on the book's checkerboards a fifth to a half as many steps
as single ones, and above 4,000 points fewer rows computed.

The letters are the book's (:mod:`ksvm.lsvm`): ``u`` is the book's ``alpha``.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .problem import LSVMResult, _check_max_iter_tol, _check_nu_eta
from .working_set import _plus_minus_one

__all__ = ["lsvm_kernel_coordinate"]


#: Above this many points the steps start from the solution on a random half of them,
#: unless the whole matrix is computed first (:data:`_WHOLE_UP_TO`).  (Measured: 250
#: computed fewer rows at 1,000 and 2,000 points than the Newton solver's 500, whose last
#: half, solved from zero, moves nearly every point once.)
_WARM_START_SIZE = 250

#: Up to this many points, when the cache holds every row, every level reads whole rows
#: from it; beyond, each level has rows over its own points, restricted further as it
#: sets points aside.  Measured on the book's checkerboards (nu = 1 and 10): whole rows
#: took 0.7 to 0.8 of the time of restricted ones up to 3,000 points, 1.1 to 1.2 at 5,000.
_SHARED_UP_TO = 4000

#: Up to this many points, when the cache holds every row, the whole matrix is computed
#: before the first step, in one call of the kernel, and the steps start from ``u = 0``:
#: a warm start saves rows, and when none are left to save its levels cost steps (at 1,000
#: points and ``nu = 1000``, 18,294 steps with it against 10,670 from zero).  Measured,
#: fit time whole and from zero / on demand from the warm start, on the checkerboards of
#: ``benchmarks/bench_lsvm_newton.py`` (``nu`` 1 to 1000): 0.65 to 0.71 at 1,000 points,
#: 0.64 to 0.67 at 1,200 and 1,500, 0.86 to 0.93 at 2,000; 0.75 to 0.90 on 455 points of
#: the breast cancer set and 0.66 to 0.77 on 1,437 digits (``gamma='scale'``); at 2,500
#: points 0.93 at ``nu = 1``, but 1.14 at ``nu = 10``.
_WHOLE_UP_TO = 2000

#: A warm start's levels below the top stop at this violation: they only predict.
_START_TOL = 0.5

#: From a warm start, the points at ``u_i = 0`` with ``g_i`` above this are set aside
#: before the first step (those that come to violate their condition come back).
_ASIDE_AT_START = 0.25

#: Steps between two looks for points to set aside (libsvm's period, at most).
_SHRINK_EVERY = 1000


def _relaxation(nu):
    """The step length the coordinate steps take at ``nu``: 1.3 up to ``nu = 1``, 1.6 at
    ``nu = 5`` and 1.85 from ``nu = 50``, in proportion to ``log(nu)`` between them.
    Measured on the book's checkerboards (1,000 to 5,000 points, ``nu`` 1 to 1000), the
    digits and the breast cancer set, against the Gaussian kernel's effective ``nu``
    (:meth:`ksvm.lsvm.LagrangianSVC._effective_nu`), which sets the conditioning of ``M``
    better than ``nu``: the fewest steps came at 1.3 where it was about 1, 1.45 to 1.6 at
    3 to 5, 1.6 to 1.7 at 6 to 17, 1.75 to 1.8 at 20 to 30 and 1.85 from 40 on; 1.6 at
    every ``nu`` above 10 took up to 1.8 times as many steps on the checkerboards."""
    return float(np.interp(np.log10(nu), [0.0, np.log10(5.0), np.log10(50.0)], [1.3, 1.6, 1.85]))


def _worst(u, g):
    """The largest violation of the conditions (12) (0 for an empty problem)."""
    return float(np.max(np.where(u > 0, np.abs(g), -g), initial=0.0))


class _Levels:
    """The coordinate steps on the points of each level of a warm start, from the rows of
    ``columns`` (a :class:`ksvm.columns.KernelColumns` over all the points, the top
    level's cache), labels ``y`` (+-1), ``omega`` and the steps allowed (``budget``);
    steps on pairs of multipliers if ``pairs``.

    When ``columns`` holds every row of at most ``_SHARED_UP_TO`` points, every level
    reads whole rows from it, so that the rows of a level's support vectors serve the
    levels above.  Otherwise a level below
    the top computes its rows over its own points, in a cache of the same budget, and
    a level that sets more than half of its points aside goes on with rows over the
    others (:meth:`~ksvm.columns.KernelColumns.restricted`); if ``columns`` holds no
    rows when the solve starts, those caches take its memory (and leave it empty).
    ``kernel_values`` counts the kernel values computed."""

    def __init__(self, columns, y, omega, budget, pairs=False, warm=True):
        self.columns, self.y, self.omega, self.budget = columns, y, omega, budget
        self.pairs, self.warm = pairs, warm
        self.diagonal = np.asarray(columns.diagonal, dtype=float)
        self.steps_taken = 0
        self.kernel_values = 0
        # an empty cache lends its memory to the lower levels' rows and to the shorter
        # rows of the points left after shrinking: no new memory is touched
        self.borrow = columns.n_cached == 0
        # a cache that holds every row serves every level with whole rows
        self.shared = columns.capacity == columns.m and columns.m <= _SHARED_UP_TO

    def product(self, rows, cols, v):
        """``K[rows, cols] @ v``, computed from the points (nothing cached)."""
        from ..smo import _kernel_times

        self.kernel_values += rows.size * cols.size
        return _kernel_times(self.columns.kernel, self.columns.X, rows, cols, v)

    def gradient(self, nu, points, u, where):
        """``g = Mu - 1`` of the problem on ``points`` for its ``u``, at the positions
        ``where``, from the points with ``u > 0``: from their rows in the cache when it
        holds every row (they are then cached for the steps), else computed from the
        points."""
        y = self.y[points]
        S = np.flatnonzero(u > 0)
        g = u[where] / nu - 1.0
        if S.size and self.shared:
            g += y[where] * self.columns.dot(points[S], y[S] * u[S])[points[where]]
        elif S.size:
            g += y[where] * self.product(points[where], points[S], y[S] * u[S])
        return g

    @staticmethod
    def fetch(cache, active, i, violation, tol, keep=()):
        """Cache the row of the active point ``i`` and those of the most violating
        active points whose rows are missing: the points a greedy step takes next are
        the violators.  When the cache holds every row, as many as a quarter of the rows
        computed so far (at least 16), so that a fit makes few calls; else 16, which
        push out few rows that the steps still read.  The cached rows of ``keep`` stay."""
        count = 16
        if cache.capacity == cache.m:
            count = max(count, cache.n_rows_computed // 4)
        count = min(count, cache.capacity - 1 - len(keep))  # room for i, and keep's rows
        wanted = np.flatnonzero(violation > tol)  # the violators: usually few of the points
        wanted = wanted[~cache.cached(active[wanted])]
        if wanted.size > count:
            cut = wanted.size - count
            wanted = wanted[np.argpartition(violation[wanted], cut)[cut:]] if count else wanted[:0]
        cache.fetch(active[np.concatenate(([i], wanted))], keep=keep)

    def steps(self, cache, labels, nu, active, u, g, tol, steps):
        """Coordinate steps on the ``active`` points of ``cache`` (their ``u``, ``g``
        updated in place; ``labels``: ``y`` and ``K_ii`` of the cache's points) until
        the largest violation is at most ``tol`` or ``steps`` are taken; the status of
        :func:`~ksvm.lsvm._coordinate_compiled.coordinate_steps` (or ``pair_steps``) and
        the violation."""
        from ._coordinate_compiled import NEED_ROW, coordinate_steps, pair_steps

        (y, diag), inv_nu = labels, 1.0 / nu
        problem = (active, u, g, y[active], diag[active] + inv_nu)
        V, state = np.empty(active.size), np.full(5, -1.0)
        rows = (cache._store, cache._slot, cache._used)
        W = np.empty(active.size) if self.pairs else None
        resume, taken = False, 0
        while True:
            if self.pairs:
                status = pair_steps(
                    rows, cache._clock, problem, inv_nu, tol, steps - taken, (V, W, state), resume
                )
            else:
                status = coordinate_steps(
                    rows, cache._clock, problem, inv_nu, self.omega, tol, steps - taken,
                    (V, state), resume,
                )  # fmt: skip
            taken += int(state[2])
            cache._clock = int(state[3])
            if status != NEED_ROW:
                self.steps_taken += taken
                return status, state[1]
            keep = active[[int(state[4])]] if state[4] >= 0 else ()  # a pair's first row
            self.fetch(cache, active, int(state[0]), V, tol, keep)
            resume = True

    def run(self, nu, points, u, tol):
        """Coordinate steps on ``points`` from ``u`` (updated in place) until the largest
        violation is at most ``tol`` or the budget is spent; whether it converged and
        the last ``g``.

        Every ``_SHRINK_EVERY`` steps the points at ``u_i = 0`` whose ``g_i`` exceeds
        the largest violation are set aside, as libsvm shrinks: they are far from
        entering, and each step then passes over fewer points.  When the others
        converge, ``g`` of those set aside is computed again and the steps go on over
        all the points if any of them has come to violate its condition."""
        from ._coordinate_compiled import CONVERGED

        n = points.size
        made = []  # the caches of rows this level makes (not the caller's)

        def restricted(columns, idx):  # in the same memory, unless it holds the caller's rows
            made.append(columns.restricted(idx, reuse=columns is not self.columns or self.borrow))
            made[-1].n_rows_computed = 0
            return made[-1]

        shared = self.shared or n == self.columns.m
        level = self.columns if shared else restricted(self.columns, points)
        g = self.gradient(nu, points, u, np.arange(n))
        cache, base = level, np.arange(n)  # the cache's points, as positions on the level
        active = base
        if u.any():  # a warm start: set aside at once the points it puts well outside
            active = np.flatnonzero((u > 0) | (g < _ASIDE_AT_START))
            if 2 * active.size <= base.size and not self.shared:
                cache, base = restricted(level, active), active
        try:
            while True:
                left = self.budget - self.steps_taken
                chunk = min(left, _SHRINK_EVERY)
                on = points[base] if cache is not self.columns else slice(None)
                labels = (self.y[on], self.diagonal[on])
                # the active points in the cache
                at = points[active] if cache is self.columns else np.searchsorted(base, active)
                u_a, g_a = u[active], g[active]
                status, worst = self.steps(cache, labels, nu, at, u_a, g_a, tol, chunk)
                u[active], g[active] = u_a, g_a
                if status == CONVERGED:
                    aside = np.setdiff1d(np.arange(n), active, assume_unique=True)
                    if aside.size == 0:
                        return True, g
                    g[aside] = self.gradient(nu, points, u, aside)
                    if _worst(u[aside], g[aside]) <= tol:
                        return True, g
                    cache, base, active = level, np.arange(n), np.arange(n)  # all back
                elif chunk == left:
                    return False, g
                else:
                    active = active[(u_a > 0) | (g_a <= worst)]
                    if 2 * active.size <= base.size and not self.shared:
                        # shorter rows, and more of them in the cache
                        cache = restricted(cache, np.searchsorted(base, active))
                        base = active
        finally:
            self.kernel_values += sum(made.n_rows_computed * made.m for made in made)

    def solve(self, nu, points, tol):
        """``u`` on ``points``, whether it converged, and its ``g``; above
        ``_WARM_START_SIZE`` points, from the solution on a random half of them with
        ``nu`` scaled as the Newton solver's warm start scales it
        (:meth:`ksvm.lsvm.working_set._WorkingSets.warm_start_set`), solved only to
        ``_START_TOL``; from zero if not ``warm``."""
        n = points.size
        u = np.zeros(n)
        if self.warm and n > _WARM_START_SIZE:
            half = np.sort(np.random.default_rng(0).permutation(n)[: n // 2])
            u[half], _, _ = self.solve(nu * n / half.size, points[half], max(tol, _START_TOL))
        converged, g = self.run(nu, points, u, tol)
        return u, converged, g


def lsvm_kernel_coordinate(columns, y, nu=None, max_iter=None, tol=1e-3, *, omega=None, pairs=None):
    """LSVM with a kernel by greedy over-relaxed coordinate steps, with no ``n x n`` matrix.

    Solves the dual (11) of :func:`lsvm_kernel` to a tolerance: each step moves the
    multiplier ``u_i`` that most breaks the conditions (12), ``|g_i|`` where
    ``u_i > 0`` and ``max(0, -g_i)`` where ``u_i = 0`` for ``g = Mu - 1``, to
    ``max(0, u_i - omega g_i / M_ii)``, and brings ``g`` up to date from the row
    ``K_i`` (computed on demand, in the cache of ``columns``).  With ``omega = 1``
    the step is the exact minimum along ``u_i``; every ``omega`` in ``(0, 2)``
    lowers the objective at each step.  A pair step moves ``u_i`` together with the
    ``u_j`` whose pair with it lowers the objective most without the bounds,
    ``(M_jj g_i^2 - 2 M_ij g_i g_j + M_ii g_j^2) / (M_ii M_jj - M_ij^2)`` (as libsvm's
    second-order choice of its pair), both to their exact minimum over
    ``u_i, u_j >= 0``.  Up to 2,000 points, if the cache holds every row, the
    whole matrix is computed first, in one call of the kernel, and the steps start
    from zero: cheaper there than fetching the rows as the steps ask.  Otherwise,
    above 250 points, the steps start from the solution on a random half of the
    points (found the same way, to a violation of 0.5), so that the rows computed
    are mostly those of support vectors.

    Parameters
    ----------
    columns : KernelColumns
        The rows of the Gram matrix of the augmented points, the rows of
        ``augment(X) = [X  1]``, on demand.
    y : array-like of shape (n,)
        The labels; any two classes.
    nu : float > 0 or None, default=None
        None means ``1 / n``.
    max_iter : int or None, default=None
        Most coordinate steps, all levels counted; None means ``max(10**6, 100 n)``.
    tol : float > 0, default=1e-3
        The largest violation accepted (as ``SVC``'s ``tol`` bounds its pair's).
    omega : float in (0, 2) or None, default=None
        The length of each single step, relative to the minimum along the coordinate (1;
        pair steps go to the minimum).  None means 1.3 up to ``nu = 1``, rising with
        ``log(nu)`` to 1.6 at ``nu = 5`` and 1.85 from ``nu = 50``: right when ``M`` is as
        ill-conditioned as ``nu`` allows,
        too long when the points are far apart (``LagrangianSVC`` passes the length for
        the Gaussian kernel's effective ``nu``).
    pairs : bool or None, default=None
        Steps on pairs of multipliers.  None means pairs where the levels of the warm
        start compute their own rows, above 4,000 points or when the cache cannot hold
        every row (and holds two).  Measured on the checkerboards of
        ``benchmarks/bench_lsvm_newton.py``, a pair step took the place of 2 to 4 single
        ones; with rows per level the pairs computed fewer (5,000 points at ``nu = 10``:
        2,090 against 2,813, fit 0.85 of the time; 0.95 at ``nu = 1``), with rows shared
        by the levels about as many, and a pair step's two passes more made the fit
        slower (1.0 to 1.2 from 1,100 to 4,000 points and on 1,437 digits).

    Returns
    -------
    result : LSVMResult
        As :func:`lsvm_kernel`; ``n_iter`` counts the steps, ``opt`` is the largest
        violation left.

    Raises
    ------
    ValueError
        If ``y`` does not have one label per row of ``columns``, or not two classes;
        if ``nu <= 0``; if ``omega`` is not in ``(0, 2)``; or if ``pairs`` is true and
        the cache holds fewer than two rows.

    Warns
    -----
    ConvergenceWarning
        If ``max_iter`` steps do not reach ``tol``.

    Notes
    -----
    The steps are those of projected successive over-relaxation (Mangasarian &
    Musicant 1999), taken in the greedy order of the largest violation, which
    Hsieh et al. (2008) compare with their cyclic one for the same dual of the
    squared hinge loss; the pair steps are SMO's (Platt 1998) without its equality
    constraint, their pair chosen as by Fan, Chen & Lin (2005).  The larger ``nu``,
    the worse conditioned ``M`` and the more steps: the Newton solver
    (:func:`lsvm_kernel_columns`) is the one for large ``nu``.

    Examples
    --------
    >>> from ksvm.columns import KernelColumns
    >>> from ksvm.lsvm import augment
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> columns = KernelColumns(lambda X1, Z1: X1 @ Z1.T, augment(X))
    >>> r = lsvm_kernel_coordinate(columns, [-1, -1, 1, 1], nu=100.0, tol=1e-10)
    >>> np.round(r.u, 4) + 0.0, r.converged
    (array([0.    , 3.4004, 1.4587, 0.    ]), True)
    >>> r2 = lsvm_kernel_coordinate(columns, [-1, -1, 1, 1], nu=100.0, tol=1e-10, pairs=True)
    >>> bool(np.allclose(r2.u, r.u, atol=1e-8)), r2.n_iter < r.n_iter
    (True, True)
    """
    y = _plus_minus_one(y)
    n = columns.m
    if y.shape[0] != n:
        raise ValueError(f"columns has {n} rows but y has {y.shape[0]} labels.")
    nu, _ = _check_nu_eta(nu, None, n)
    max_iter, tol = _check_max_iter_tol(max(10**6, 100 * n) if max_iter is None else max_iter, tol)
    omega = _relaxation(nu) if omega is None else float(omega)
    if not 0.0 < omega < 2.0:
        raise ValueError(f"omega must lie in (0, 2) for the steps to converge; got {omega!r}.")
    rows_before = columns.n_rows_computed
    whole = columns.capacity == n <= _WHOLE_UP_TO
    if whole:
        columns.fetch_all()
    if pairs is None:
        pairs = columns.capacity >= 2 and not columns.capacity == n <= _SHARED_UP_TO
    elif pairs and columns.capacity < 2:
        raise ValueError("pair steps need a cache of at least two rows; raise cache_size.")
    levels = _Levels(columns, y, omega, max_iter, bool(pairs), warm=not whole)
    u, converged, g = levels.solve(nu, np.arange(n), tol)
    worst = _worst(u, g)
    if not converged:
        warnings.warn(
            f"The LSVM coordinate solver stopped after {levels.steps_taken} steps with a "
            f"violation of {worst:.3g} (tol={tol:g}); raise max_iter or tol, or use "
            "solver='newton'.",
            ConvergenceWarning,
            stacklevel=2,
        )
    values = levels.kernel_values + (columns.n_rows_computed - rows_before) * n
    return LSVMResult(
        n_iter=levels.steps_taken, opt=worst, u=u, converged=converged, kernel_values=values
    )
