"""The kernel LSVM by working sets, with no ``n x n`` matrix (:func:`lsvm_kernel_columns`).

Rows of the Gram matrix ``K`` of the augmented points ``[x_i  1]`` (the book's
``K-tilde``) are computed on demand for the points that can be free;
the problem restricted to a working set is solved by the active-set method
with the block solver of :mod:`ksvm.lsvm.block`, and a warm start predicts the
first working set from a random half of the points.  A level's large arrays
come from a :class:`_Workspace`, whose memory a :class:`KeptMemory` keeps from one
level to the next, and from one fit to the next for its owner (a
:class:`~ksvm.lsvm.LagrangianSVC` keeps one); nothing is shared between callers.

The letters are the book's (:mod:`ksvm.lsvm`): the equation numbers are
Mangasarian & Musicant's, whose ``D``, ``e`` and ``Q`` are ``Y``, ``1`` and the
dual's matrix ``M = I/nu + YKY`` here, and whose offset ``gamma`` is ``-b``; ``u``
is the book's ``alpha``.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .. import _memory
from .._validation import encode_binary_labels
from .block import BlockSolver
from .newton import _WARM_START_SIZE, active_set
from .problem import LSVMResult, _check_max_iter_tol, _check_nu_eta

__all__ = ["KeptMemory", "lsvm_kernel_columns"]


#: A level of the working-set solver whose working set has at most this many points
#: takes its large arrays from a :class:`_Workspace`, of ``_WORKSPACE_SLOTS`` arrays of
#: ``c^2`` values for its capacity ``c``: two for P_WW, two for factors, two for
#: temporaries.
_WORKSPACE_SIZE = 1000
_WORKSPACE_SLOTS = 6


#: The capacity of a workspace, as a multiple of the working set it is made for: room
#: for the points that join the working set later (6-8 % on the book's checkerboards).
_WORKSPACE_ROOM = 1.125


def _capacity(n):
    """The capacity of a workspace made for a working set of ``n`` points."""
    return int(np.ceil(_WORKSPACE_ROOM * n))


class KeptMemory(_memory.KeptBlock):
    """One block of memory kept from one use to the next: the largest given back, if it
    is at most ``limit`` bytes (None: the largest workspace, 61 MB).

    Arrays of one to four megabytes, formed and dropped, go back to the operating
    system, and the next fit pays a page fault for every 4 KB of them: on 1000 points
    (nu = 1) a fit of the kernel LSVM made about 2400 and took 1.3 times as long as with
    its memory kept, while libsvm's small allocations made none.  So the levels of one
    fit of :func:`lsvm_kernel_columns` pass their memory on through one of these, and
    :class:`~ksvm.lsvm.LagrangianSVC` keeps its own from one fit to the next (repeated
    fits of one estimator, such as a benchmark's, take the same block).

    Dropping it (or :meth:`clear`) gives the memory back to the system.

    Examples
    --------
    >>> kept = KeptMemory()
    >>> kept.give(kept.take(100))
    >>> kept.nbytes
    800
    """

    def __init__(self, limit=None):
        default = 8 * _WORKSPACE_SLOTS * _capacity(_WORKSPACE_SIZE) ** 2
        super().__init__(default if limit is None else limit)


class _Workspace:
    """The memory of a level of the working-set solver for its arrays of up to ``c^2``
    values, ``c`` its capacity in points, taken at once (from a :class:`KeptMemory` if
    it holds a block large enough): ``P_WW`` and a larger one when the working set grows
    (``c^2`` each), two factors (``c^2`` each: the one kept and the one formed from it)
    and the temporaries of one step (``2 c^2``, handed out anew at every step).  The
    same memory serves every step while it is in the processor's cache, and a level's
    workspace goes back to the :class:`KeptMemory` for the next level or fit
    (:meth:`close`).  Every array is contiguous: ``np.take`` copies a strided array
    whole first.  With ``solve=False`` (a level that only predicts), it holds one
    ``P_WW`` and its copy in single precision (:meth:`single`), nothing else.
    """

    def __init__(self, capacity, kept, solve=True):
        self.capacity = capacity
        self._solve = solve
        self._kept = kept
        self._memory = kept.take((_WORKSPACE_SLOTS if solve else 2) * capacity**2)
        self._slots = [0, 0]  # the P slot and the factor slot given last
        self.release()

    def _slot(self, kind, shape, order="C"):
        """The other of the two slots of ``kind`` (0 for P, 1 for factors) than the one
        given last, which the new array is formed from."""
        self._slots[kind] = 1 - self._slots[kind]
        start = (2 * kind + self._slots[kind]) * self.capacity**2
        return self._memory[start : start + shape[0] * shape[1]].reshape(shape, order=order)

    def P(self, n):
        """An empty C-ordered ``n x n`` array for ``P_WW`` (``n <= capacity``)."""
        if not self._solve:  # one P only
            return self._memory[: n * n].reshape(n, n)
        return self._slot(0, (n, n))

    def single(self, n):
        """An empty C-ordered ``n x n`` float32 array, after :meth:`P`'s, for a workspace
        made with ``solve=False``."""
        c2 = self.capacity**2
        return self._memory[c2 : 2 * c2].view(np.float32)[: n * n].reshape(n, n)

    def factor(self, n, order="C"):
        """An empty ``n x n`` array for a new factor."""
        return self._slot(1, (n, n), order)

    def empty(self, shape):
        """An empty C-ordered array valid until :meth:`release` (a new one if the
        temporaries' part is full)."""
        size = shape[0] * shape[1]
        if self._top + size > self._memory.size:
            return np.empty(shape)
        self._top += size
        return self._memory[self._top - size : self._top].reshape(shape)

    def release(self):
        """Every array of :meth:`empty` may be given again."""
        self._top = 4 * self.capacity**2

    def close(self):
        """The level is done with every array of this workspace: its memory goes back
        to the :class:`KeptMemory` it came from."""
        self._kept.give(self._memory)
        self._memory = None


def _dual_block(columns, nu, W, P_old=None, out=None):
    """``P_WW = I/nu + K_WW`` for the points ``W``, in ``out`` if given; if ``P_old`` is
    given, it is the block of the first ``len(P_old)`` points of ``W`` and only the rest
    is computed (``out`` must not overlap it).

    The dual's block is ``M_WW = Y_W P_WW Y_W``; the labels are left to the vectors:
    ``M_FF^{-1} 1_F = Y_F P_FF^{-1} y_F`` and ``Mu = Y P Y u``, while scaling the rows
    and columns of ``K_WW`` by the labels would take two passes over it (the signs
    change no rounding: a factor of ``P_FF`` is one of ``M_FF`` with signs changed)."""
    n_old = 0 if P_old is None else len(P_old)
    new = W[n_old:]
    P = np.empty((W.size, W.size)) if out is None else out
    block = columns.block(new, W, out=P[n_old:])  # rows of K_WW for the new points
    block[np.arange(new.size), n_old + np.arange(new.size)] += 1.0 / nu
    if n_old:
        P[:n_old, :n_old] = P_old
        P[:n_old, n_old:] = block[:, :n_old].T
    return P


def _largest_eigenvalue_bound(P):
    """An upper bound of the largest eigenvalue of a symmetric ``P``: its largest absolute
    row sum (Gershgorin's circles), a block of rows at a time (no copy of ``P``)."""
    rows = max(1, 2**15 // len(P))
    return max(float(np.abs(P[i : i + rows]).sum(axis=1).max()) for i in range(0, len(P), rows))


def _accelerated_projected_gradient(P, mu, L, steps, y=None):
    """``steps`` steps of V-FISTA (Beck 2017, section 10.7.7) on ``min_{u>=0} u'Mu/2 - 1'u``
    from ``u = 0``, for ``M = P`` whose eigenvalues lie in ``[mu, L]``, ``mu > 0``; with
    labels ``y``, for ``M = Y P Y`` (``P`` given without them, as :func:`_dual_block`
    gives it).

    Each step is one projected gradient step, of length ``1 / L``, from the point
    ``v`` extrapolated with the constant momentum ``(1 - q) / (1 + q)``, ``q = sqrt(mu/L)``:
    ``u+ = max(0, v - (Mv - 1) / L)``.  By Beck's Theorem 10.42 the objective's excess
    falls at least by the factor ``1 - q`` per step,

        f(u_k) - f* <= (1 - q)^k (f(0) - f* + mu ||u*||^2 / 2),

    and since ``f`` is ``mu``-strongly convex, ``||u_k - u*||^2 <= 2 (f(u_k) - f*) / mu``.
    (At the solution ``g*'u* = 0``, so ``f(0) - f* = 1'u* / 2``.)  One product ``Mv`` a step.
    The steps are taken in the precision of ``P`` (float64 or float32), and so is ``u``.
    """
    real = P.dtype.type
    q = np.sqrt(mu / L)
    momentum, L = real((1.0 - q) / (1.0 + q)), real(L)
    y = None if y is None else y.astype(P.dtype, copy=False)
    # Four vectors, written in place: a step at a few hundred points costs little more
    # than its product, and numpy's new arrays would cost as much again.
    u, previous, v, Mv = (np.zeros(len(P), dtype=P.dtype) for _ in range(4))
    yv = None if y is None else np.empty_like(v)
    for _ in range(steps):
        np.subtract(u, previous, out=v)  # v = u + momentum (u - previous)
        v *= momentum
        v += u
        previous, u = u, previous  # u's memory now takes the new iterate
        if y is None:
            np.dot(P, v, out=Mv)
        else:
            np.dot(P, np.multiply(y, v, out=yv), out=Mv)
            Mv *= y
        Mv -= 1.0  # u = max(0, v - (Mv - 1) / L)
        Mv /= L
        np.maximum(np.subtract(v, Mv, out=u), 0.0, out=u)
    return u


#: A warm start's lowest level is solved approximately: at most this many gradient steps.
_PREDICTION_STEPS = 60


def _predict(P, y, nu, single=None):
    """An approximate solution of the dual restricted to a warm start's lowest level, of
    labels ``y`` and ``P = I/nu + K_WW``: only a prediction, which the level above
    corrects exactly.

    ``M_WW = Y P Y`` has its eigenvalues in ``[1/nu, L]`` (``K`` is positive
    semi-definite), ``L`` bounded by :func:`_largest_eigenvalue_bound` (of ``P`` or
    ``M_WW``: the signs change no absolute value).  The objective's excess over its minimum
    falls by about ``exp(-q)`` a step in :func:`_accelerated_projected_gradient`, so
    ``ln(100) / q`` steps divide it by about a hundred (the distance to the solution by
    about ten), which puts nearly every point on the side of the margin the exact solution
    puts it (a thousand took half as many steps again and gave the level above no fewer
    flops); at most ``_PREDICTION_STEPS``, since at large ``nu`` (small ``q``) even a rough
    prediction is worth more than its steps.

    The steps are taken on a copy of ``P`` in single precision, in ``single`` (an empty
    float32 array of its shape) if given: each step reads the whole matrix, which in
    half the bytes is read in half the time (a tenth of a fit at 1000 points), and the
    rounding of single precision, a part in ten million, is far below the error that
    the prediction keeps.  The copy is ``M_WW = Y P Y`` itself: the labels' signs
    change no rounding, so the steps are those with the labels applied at each step,
    to the last bit, for two fewer products a step.  Returns ``u`` in double precision.
    """
    mu, L = 1.0 / nu, _largest_eigenvalue_bound(P)
    steps = min(_PREDICTION_STEPS, int(np.ceil(np.log(100.0) / np.sqrt(mu / L))))
    if single is None:
        single = np.empty(P.shape, dtype=np.float32)
    np.copyto(single, P, casting="same_kind")
    # The values of far points round to subnormal numbers in single precision (below
    # 1.2e-38: a Gaussian kernel's exp(-88) and less), which many processors multiply
    # tens of times more slowly: measured, the steps on 500 checkerboard points took
    # 8.2 ms with them, 1.1 ms with them set to 0, a change far below the prediction's
    # error.  (Multiplied by a mask: fewer passes than assigning through it.)
    np.multiply(single, np.abs(single) >= np.finfo(np.float32).tiny, out=single)
    signs = y.astype(np.float32)
    single *= signs[:, None]
    single *= signs[None, :]
    return _accelerated_projected_gradient(single, mu, L, steps).astype(np.float64)


#: In a working set predicted by a warm start, the points whose predicted slack
#: ``1 - y_i f(x_i)`` exceeds this start free; the others of the set enter if needed.
_FIRST_FREE_SLACK = 0.2


class _WorkingSets:
    """The working-set solver of one problem: the rows ``columns`` of ``K``, the
    labels ``y`` (-1/+1), ``max_iter``, ``tol`` and ``warm_start`` as
    :func:`lsvm_kernel_columns` takes them; its levels take their workspaces from
    ``kept`` (a :class:`KeptMemory`) and give them back to it.  ``kernel_values``
    counts the kernel values computed outside the cache of rows."""

    def __init__(self, columns, y, max_iter, tol, warm_start, kept):
        self.columns, self.y = columns, y
        self.max_iter, self.tol, self.warm_start = max_iter, tol, warm_start
        self.kept = kept
        self.kernel_values = 0

    def level_memory(self, nu, W, solver=None, solve=True):
        """``P_WW`` (:func:`_dual_block`) and its :class:`_Workspace` (None for more than
        ``_WORKSPACE_SIZE`` points, and then the memory kept is given back; with room for
        ``W`` alone if not ``solve``).  For a ``solver`` whose working set grew to ``W``,
        its ``P`` (the matrix ``M`` of the :class:`BlockSolver`) is copied and the rows of
        the points that joined added, in its workspace while that has room."""
        P_old = None if solver is None else solver.M
        workspace = None if solver is None else solver.workspace
        if W.size > _WORKSPACE_SIZE:
            # A large level: the memory kept for small ones would only add to the peak.
            self.kept.clear()
            workspace = None
        elif not solve:
            workspace = _Workspace(W.size, self.kept, solve=False)
        elif workspace is None or workspace.capacity < W.size:
            workspace = _Workspace(_capacity(W.size), self.kept)
        out = None if workspace is None else workspace.P(W.size)
        self.kernel_values += (W.size - (0 if P_old is None else len(P_old))) * W.size
        return _dual_block(self.columns, nu, W, P_old, out=out), workspace

    def gradient(self, nu, points, u, support, Ku=None):
        """``(Mu - 1)`` on ``points`` for a ``u`` (on ``points``) that is zero off
        ``support``, and ``Ku = K[:, S] (y u)_S`` on all the points of ``columns``
        (``S = points[support]``).

        From the rows of the support vectors: those in the cache are read in place and
        the others computed (and cached), so a cache smaller than the support vectors'
        rows costs only the rows that are missing at each call.  A ``Ku`` given (the
        lower level's, for the same ``u``) is used as it is."""
        y = self.y
        if Ku is None:
            S = points[support]
            Ku = self.columns.dot(S, y[S] * u[support])
        return u / nu + y[points] * Ku[points] - 1.0, Ku

    def _threshold(self, u):
        """A ``g_i`` below minus this is a violation."""
        return self.tol * max(1.0, float(u.max()))

    def warm_start_set(self, nu, points):
        """The first working set of the problem on ``points`` (more than
        ``_WARM_START_SIZE``) and the points of it that start free, from the solution on
        a random half of them, and ``Ku`` of that solution.

        The half is solved with nu * n / |half|: (11) is the dual of (7), min nu/2 sum_i
        xi_i^2 + ||(w, b)||^2 / 2, and with each point of the half standing for two,
        the half's weighted sum estimates the whole sum, so that the half's f(x) estimates
        the whole problem's.  With nu itself the half would be regularised more and put
        more points inside the margin than the whole problem has.  Its support vectors
        and the points its solution classifies inside the margin make the first working
        set."""
        n = points.size
        half = np.sort(np.random.default_rng(0).permutation(n)[: n // 2])
        nu_half = nu * n / half.size
        with warnings.catch_warnings():  # a start, however rough, cannot change the answer
            warnings.simplefilter("ignore", ConvergenceWarning)
            u_half, _, _, Ku = self.solve(nu_half, points[half], exact=False)
        u = np.zeros(n)
        u[half] = u_half
        support = u > 0
        g, Ku = self.gradient(nu, points, u, support, Ku)
        work = np.flatnonzero(support | (g < -self._threshold(u)))
        # The slack 1 - y_i f(x_i) that the half's solution predicts: u_i / nu_half on
        # its support (u_i = nu xi_i at a solution, (9)), -g_i elsewhere.  Deepest inside
        # the margin first: the points that leave the free set are then mostly near the
        # end, where the block solver refactors (the leading columns of its factor
        # stay).  Only the points with a clear slack start free; the others enter at the
        # end if they must.
        slack = np.where(support, u / nu_half, -g)[work]
        order = np.argsort(-slack, kind="stable")
        return work[order], slack[order] > _FIRST_FREE_SLACK

    def solve(self, nu, points, exact=True):
        """The LSVM dual restricted to ``points`` (sorted indices), by working sets.

        Returns ``(u, steps, converged, Ku)`` with ``u`` on ``points``; ``steps`` counts
        the active-set steps of this level only; ``Ku`` is the last :meth:`gradient`'s
        ``K[:, S] (y u)_S`` on all the points of ``columns`` (None if not converged),
        which the level above, whose start is this ``u``, needs as it is.
        ``exact=False`` (the levels below the top of a warm start, whose ``u`` only
        predicts) lets the lowest level, of at most ``_WARM_START_SIZE`` points, return
        :func:`_predict`'s approximation (no steps, not converged) instead of the exact
        solution, and a level above it return the exact solution of the problem
        restricted to its first working set (not converged, ``Ku`` None): the points
        outside that set are not checked, which would cost the rows of its support
        vectors and, for the few points found on the wrong side, a larger working set
        solved again, while the level above corrects such a prediction in its own
        first round.
        """
        n, y = points.size, self.y
        if self.warm_start and n > _WARM_START_SIZE:
            work, free = self.warm_start_set(nu, points)
        elif not exact:
            P, workspace = self.level_memory(nu, points, solve=False)
            u = _predict(P, y[points], nu, None if workspace is None else workspace.single(n))
            if workspace is not None:
                workspace.close()
            return u, 0, False, None
        else:
            work, free = np.arange(n), None
        # The working set only grows (new points at the end), so that P_WW and the
        # factor of the block solver carry over from one working set to the next.
        y_W = y[points[work]]
        solver = BlockSolver(*self.level_memory(nu, points[work]), r=y_W)

        def solve_free(free):  # M_FF^{-1} 1_F = Y_F P_FF^{-1} y_F
            return y_W[free] * solver(free)

        def M_times_off(u, free):  # Mu = Y P Y u
            return y_W * solver.M_times_off(y_W * u, free)

        steps, converged, Ku = 0, False, None
        while steps < self.max_iter:
            with warnings.catch_warnings(record=True):
                warnings.simplefilter("always", ConvergenceWarning)
                inner = active_set(
                    solve_free, M_times_off, work.size, self.max_iter - steps, self.tol, free=free
                )
            steps += inner.n_iter
            u = np.zeros(n)
            u[work] = inner.u
            if not inner.converged or not exact:
                break
            support = u > 0
            g, Ku = self.gradient(nu, points, u, support)
            outside = np.ones(n, dtype=bool)
            outside[work] = False
            violators = np.flatnonzero(outside & (g < -self._threshold(u)))
            if violators.size == 0:
                converged = True
                break
            # The problem restricted to work was solved exactly and each violator lowers
            # the objective: the next restricted problem ends lower, so the loop ends.
            work = np.concatenate([work, violators])
            y_W = y[points[work]]
            solver.grow(*self.level_memory(nu, points[work], solver), r=y_W)
            free = np.concatenate([inner.u > 0, np.ones(violators.size, dtype=bool)])
        if solver.workspace is not None:
            solver.workspace.close()
        return u, steps, converged, (Ku if converged else None)


def _plus_minus_one(y):
    """``encode_binary_labels(y)[0]``; a float array of -1 and +1 holding both (what
    that function returns, as ``LagrangianSVC.fit`` passes) is taken as it is,
    without scikit-learn's checks of the target type (a third of a millisecond)."""
    if isinstance(y, np.ndarray) and y.dtype == np.float64 and y.ndim == 1:
        positive = y == 1.0
        if np.all(positive | (y == -1.0)) and 0 < positive.sum() < y.size:
            return y
    return encode_binary_labels(y)[0]


def lsvm_kernel_columns(columns, y, nu=None, max_iter=100, tol=1e-8, *, warm_start=True, kept=None):
    """LSVM with a kernel by working sets of the active-set method, with no ``n x n`` matrix.

    Solves the dual (11) of :func:`lsvm_kernel` and :func:`lsvm_kernel_newton`
    from rows of the kernel matrix computed on demand
    (:class:`ksvm.columns.KernelColumns`, with its cache budget).  A working
    set ``W`` of points that may be support vectors is chosen; the problem
    restricted to ``W`` (only ``K_WW`` is needed) is solved exactly by
    :func:`active_set`; then ``g = Mu - 1`` is computed for every point from
    the rows of the support vectors alone (``K[:, S] u_S``).  If some point
    outside ``W`` has ``g_i < 0``, the support vectors and those points make the
    next ``W``.  Each restricted problem ends lower than the last (a point with
    ``g_i < 0`` is a descent direction), so no working set comes back and the
    method ends, at the same unique solution as :func:`lsvm_kernel_newton`.

    Parameters
    ----------
    columns : KernelColumns
        The rows of the Gram matrix of the augmented points, the rows of
        ``augment(X) = [X  1]``, on demand.
    y : array-like of shape (n,)
        The labels; any two classes.
    nu : float > 0 or None, default=None
        None means ``1 / n``.
    max_iter : int, default=100
        Active-set steps allowed on the whole problem (the restricted problems'
        steps added up).
    tol : float > 0, default=1e-8
        As in :func:`lsvm_kernel_newton`.
    warm_start : bool, default=True
        For more than 500 points, the first working set is predicted by the
        solution on a random half of them with ``nu`` doubled (solved the same
        way, recursively, but only on the first working set that its own half
        predicts, and the last half, of at most 500 points, only approximately,
        by accelerated projected gradient steps),
        whose decision function estimates the whole problem's: its support
        vectors and the points it puts inside the margin.  Only their rows are
        ever computed, about the support vectors' number.
    kept : KeptMemory or None, default=None
        Where the levels take the memory of their workspaces from and give it back
        to, and where the last one stays for the next call with the same ``kept``
        (:class:`LagrangianSVC` passes its own); None means a new one for this call.

    Returns
    -------
    result : LSVMResult
        As :func:`lsvm_kernel`; ``n_iter`` counts the steps on the whole problem.

    Raises
    ------
    ValueError
        If ``y`` does not have one label per row of ``columns``, or not two
        classes; if ``nu <= 0``; or if a block ``M_WW`` is not positive definite.

    Warns
    -----
    ConvergenceWarning
        If ``max_iter`` steps do not reach the solution.

    Notes
    -----
    Memory: the cache of rows, and ``P_WW = I/nu + K_WW``, ``|W| x |W|``; a working set
    of at most 1000 points takes ``P_WW``, its factors and a step's temporaries from one
    workspace of ``6 (1.125 |W|)^2`` values, kept in ``kept`` for the next level
    and the next call.  Time: the rows of
    the support vectors, ``n`` kernel values each (again whenever they have
    left a cache too small to hold them all), ``K_WW``, and the Cholesky
    factorisations of the free sets, ``|F|^3 / 3``.  A working set only grows
    within a level, and between active-set steps that change few indices the
    factor is updated (a system of the size of the change) rather than
    recomputed, so most steps cost ``O(|F|^2)`` per changed index.

    Examples
    --------
    >>> from ksvm.columns import KernelColumns
    >>> from ksvm.lsvm import augment
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> columns = KernelColumns(lambda X1, Z1: X1 @ Z1.T, augment(X))
    >>> r = lsvm_kernel_columns(columns, [-1, -1, 1, 1], nu=100.0)
    >>> np.round(r.u, 4) + 0.0, r.n_iter
    (array([0.    , 3.4004, 1.4587, 0.    ]), 2)
    """
    y = _plus_minus_one(y)
    n = columns.m
    if y.shape[0] != n:
        raise ValueError(f"columns has {n} rows but y has {y.shape[0]} labels.")
    nu, _ = _check_nu_eta(nu, None, n)
    max_iter, tol = _check_max_iter_tol(max_iter, tol)
    if kept is not None and not isinstance(kept, KeptMemory):
        raise TypeError(f"kept must be a KeptMemory or None, got {type(kept).__name__}.")
    rows_before = columns.n_rows_computed
    solver = _WorkingSets(
        columns, y, max_iter, tol, warm_start, KeptMemory() if kept is None else kept
    )
    u, steps, converged, _ = solver.solve(nu, np.arange(n))
    if not converged:
        warnings.warn(
            f"The LSVM active-set (Newton) solver stopped after {steps} iterations with "
            f"points still on the wrong side (tol={tol:g}); raise max_iter or tol, or use "
            "solver='fixed-point'.",
            ConvergenceWarning,
            stacklevel=2,
        )
    values = solver.kernel_values + (columns.n_rows_computed - rows_before) * n
    return LSVMResult(n_iter=steps, opt=0.0, u=u, converged=converged, kernel_values=values)
