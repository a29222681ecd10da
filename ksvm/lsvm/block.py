"""``Q_FF^{-1} e_F`` for the successive free sets of the active-set method on a dense block:
the Cholesky factor of the last free set updated, not recomputed (:class:`BlockSolver`).
"""

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.blas import dsyrk

from ..linalg import cholesky

__all__ = ["BlockSolver"]


def _block_of(Q, rows, cols, empty=np.empty, out=None):
    """``Q[np.ix_(rows, cols)]`` for a symmetric ``Q`` (rows of contiguous values), by two
    ``take``s (whole rows copied, then columns picked), the shorter index list first:
    fancy indexing by ``np.ix_`` costs about twice as much.  The arrays come from
    ``empty(shape)``: the rows copied, and the result unless ``out`` (C-ordered, for
    ``len(rows) <= len(cols)``) is given."""
    # mode="clip" (the indices are valid) lets take write into its out without a buffer.
    if len(rows) <= len(cols):
        whole = Q.take(rows, axis=0, out=empty((len(rows), Q.shape[1])), mode="clip")
        if out is None:
            out = empty((len(rows), len(cols)))
        return whole.take(cols, axis=1, out=out, mode="clip")
    whole = Q.take(cols, axis=0, out=empty((len(cols), Q.shape[1])), mode="clip")
    return whole.take(rows, axis=1, out=empty((len(cols), len(rows))), mode="clip").T


def _cholesky_lower(M):
    """The lower Cholesky factor of a C-ordered symmetric ``M``, in place (``M`` is lost),
    in Fortran order: LAPACK factors ``M.T``, which is ``M`` in Fortran order, where
    scipy would first copy a C-ordered array."""
    return cholesky(M.T, "Q = I/nu + D K D", overwrite=True)[0]


class BlockSolver:
    """``Q_FF^{-1} b_F`` for the free sets ``F`` of :func:`active_set` on a dense ``Q``
    (``b = e`` unless given).

    The Cholesky factor ``L`` of ``Q_BB`` for the last set ``B`` factored is kept,
    with ``B`` in an order of its own (``order``, positions in ``Q``).  When ``F``
    differs from ``B`` in few indices (``R = B - F`` leave, ``A = F - B``
    enter), the solve is a block update instead of a new factorisation: with
    ``u_R = 0`` imposed by multipliers ``lam`` on the rows of ``R``,

        Q_BB x_B + Q_BA x_A - E_R lam = b_B,   Q_AB x_B + Q_AA x_A = b_A,   x_R = 0,

    and ``x_B`` eliminated by the factor, a system of size ``|A| + |R|`` is left,
    whose blocks are ``Y'Y`` for ``Y = L^{-1} [Q_BA  E_R]`` (one triangular solve):
    ``O(|B|^2 (|A| + |R|))`` against ``|F|^3 / 3``.

    When more change, ``F`` is factored again, but only from the first point of
    ``order`` that leaves: the leading ``p`` columns of ``L`` stay (they depend
    on the leading block alone), the rows of ``L`` below them are kept for the
    points that stay and computed by a triangular solve for those that enter
    (appended at the end), and the trailing block is the factor of its Schur
    complement ``Q_TT - L_T L_T'``: ``O(|T|^2 p + |T|^3 / 3)``, plus ``p^2`` for
    the row of each point that enters; when that exceeds ``|F|^3 / 3``, ``F`` is
    factored whole.  A caller that puts the points most likely to leave last (the
    working-set solver orders them by the margin its warm start predicts) keeps
    ``p`` large.  Between two factorisations, the columns of
    ``L^{-1} [Q_BA  E_R]`` of the points that entered or left in an update are
    kept for the next updates, which mostly repeat them.

    With a ``workspace`` (:class:`ksvm.lsvm.working_set._Workspace`), the factors and
    the temporaries of a step are taken from it.

    Examples
    --------
    >>> Q = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
    >>> solve = BlockSolver(Q)  # solve(F) is Q_FF^{-1} e_F, F a boolean mask
    >>> bool(np.allclose(solve(np.array([True, True, False])), np.linalg.solve(Q[:2, :2], [1, 1])))
    True
    >>> bool(np.allclose(solve(np.ones(3, dtype=bool)), np.linalg.solve(Q, [1, 1, 1])))
    True
    """

    #: Update instead of refactoring while |A| + |R| is at most this fraction of |B|
    #: and the update takes fewer flops (``|B| k (|B| + 2k)``, ``k = |A| + |R|``) than the
    #: refactoring.
    UPDATE_FRACTION = 0.125

    def __init__(self, Q, workspace=None, b=None):
        self.Q = Q
        self.base = None
        self.workspace = workspace
        self.b = np.ones(len(Q)) if b is None else b

    def grow(self, Q, workspace=None, b=None):
        """Continue with ``Q``, whose leading block is the current ``Q``, ``workspace`` and
        ``b``, whose leading entries are the current ``b`` (ones if None)."""
        n_old = len(self.Q)
        self.Q = Q
        self.workspace = workspace
        self.b = np.ones(len(Q)) if b is None else b
        if self.base is not None:
            self.base = np.concatenate([self.base, np.zeros(len(Q) - n_old, dtype=bool)])

    def _empty(self, shape):
        return np.empty(shape) if self.workspace is None else self.workspace.empty(shape)

    def _new_factor(self, n, order="C"):
        if self.workspace is None:
            return np.empty((n, n), order=order)
        return self.workspace.factor(n, order)

    def _factor(self, free):
        if self.base is None:
            order, p = np.flatnonzero(free), 0
        else:
            stay = free[self.base_idx]
            p = self.base_idx.size if stay.all() else int(np.argmin(stay))  # first to leave
            enter = np.flatnonzero(free & ~self.base)
            order = np.concatenate([self.base_idx[stay], enter])
            # Many entering points (at the top of a warm start) can make a whole new
            # factorisation cheaper than keeping the leading p columns.
            if self._keep_flops(p, enter.size, order.size - p) > order.size**3 / 3:
                p = 0
        tail = order[p:]
        if p == 0:
            QF = self._new_factor(order.size)
            if np.array_equal(order, np.arange(order.size)):  # a leading block, in order
                QF[...] = self.Q[: order.size, : order.size]
            else:
                _block_of(self.Q, order, order, self._empty, out=QF)
            factor = _cholesky_lower(QF)
        else:
            old = self.factor[0]
            n_stay = int(stay[p:].sum())
            L_T = self._empty((tail.size, p))  # the rows of L below its leading p columns
            L_T[:n_stay] = old[p:, :p][stay[p:]]
            if tail.size > n_stay:
                L_T[n_stay:] = solve_triangular(
                    old[:p, :p],
                    _block_of(self.Q, order[:p], tail[n_stay:], self._empty),
                    lower=True,
                    overwrite_b=True,
                    check_finite=False,
                ).T
            # Only the lower half is read; in the old factor's memory order, so that its
            # leading block is copied by contiguous columns (or rows), not transposed.
            factor = self._new_factor(order.size, "F" if old.flags.f_contiguous else "C")
            factor[:p, :p] = old[:p, :p]
            factor[p:, :p] = L_T
            if tail.size:
                # The Schur complement Q_TT - L_T L_T' of the leading block (lower half;
                # transposed views are the Fortran arrays BLAS takes without a copy).
                S = dsyrk(
                    -1.0,
                    L_T.T,
                    beta=1.0,
                    c=_block_of(self.Q, tail, tail, self._empty).T,
                    trans=1,
                    lower=1,
                    overwrite_c=1,
                )
                factor[p:, p:] = cholesky(S, "Q = I/nu + D K D", overwrite=True)[0]
        self.factor = (factor, True)
        self._columns = {}
        self.base = np.zeros(len(self.Q), dtype=bool)
        self.base[order] = True
        self.base_idx = order
        self.y = solve_triangular(factor, self.b[order], lower=True, check_finite=False)
        self.z = solve_triangular(factor, self.y, lower=True, trans="T", check_finite=False)
        u = np.zeros(len(self.Q))  # z = Q_BB^{-1} b = L'^{-1} y, y = L^{-1} b
        u[order] = self.z
        return u[free]

    def Q_times_off(self, u, free):
        """``Qu`` off ``free`` (zero on ``free``, where :func:`active_set` does not read
        it): from the rows off ``free`` alone when they are fewer than half."""
        off = ~free
        n_off = int(off.sum())
        if 2 * n_off >= len(free):
            return self.Q @ u
        g = np.zeros(len(free))
        rows = self.Q.take(
            np.flatnonzero(off), axis=0, out=self._empty((n_off, len(free))), mode="clip"
        )
        g[off] = rows @ u
        return g

    @staticmethod
    def _keep_flops(p, n_enter, t):
        """Flops of a factor that keeps its leading ``p`` columns: a triangular solve
        for the rows of the ``n_enter`` points that enter, the Schur complement of the
        ``t`` trailing points and its factor."""
        return p * p * n_enter + t * t * p + t**3 / 3

    def _refactor_flops(self, free, n_enter, n_leave):
        """Flops of :meth:`_factor`: from the first point of ``order`` that leaves, or
        of a whole new factorisation if that is fewer (the choice :meth:`_factor` makes)."""
        stay = free[self.base_idx]
        p = stay.size if stay.all() else int(np.argmin(stay))
        t = stay.size - n_leave + n_enter - p
        return min(self._keep_flops(p, n_enter, t), (p + t) ** 3 / 3)

    def __call__(self, free):
        if self.workspace is not None:
            self.workspace.release()  # nothing of the last step's temporaries is kept
        if self.base is None:
            return self._factor(free)
        enter = free & ~self.base
        leave = self.base & ~free
        n_enter, n_leave = int(enter.sum()), int(leave.sum())
        n, k = self.base_idx.size, n_enter + n_leave
        refactor = self._refactor_flops(free, n_enter, n_leave)
        if k > self.UPDATE_FRACTION * n or refactor < n * k * (n + 2 * k):
            # Many enter: border the factor with them first (its leading n columns stay),
            # if the few that leave can then be handled by the update, for fewer flops.
            a, r, n_a = n_enter, n_leave, n + n_enter
            border = n * n * a + a * a * n + a**3 / 3 + n_a * r * (n_a + 2 * r)
            if a and r <= self.UPDATE_FRACTION * n_a and border < refactor:
                self._factor(self.base | enter)
                return self(free)
            return self._factor(free)
        if n_enter + n_leave == 0:
            u = np.zeros(len(self.Q))
            u[self.base_idx] = self.z
            return u[free]
        B, A = self.base_idx, np.flatnonzero(enter)
        R = np.flatnonzero(leave[B])  # positions in B
        L = self.factor[0]
        # With Y = L^{-1} [Q_BA  E_R] (triangular solves), the blocks of the system are
        # the products Y'Y: C' Q_BB^{-1} C = Y'Y.  L^{-1} E_R is 0 above the first
        # position r of R (L is lower triangular): only L's trailing block from r is
        # used, and the points that leave are mostly near the end of B.  The updates on
        # one factor mostly repeat the last one's A and R: their columns are kept.
        cache = self._columns
        new = [a for a in A if ("a", a) not in cache]
        if new:
            new = np.array(new)
            cols = solve_triangular(
                L, _block_of(self.Q, B, new, self._empty), lower=True, check_finite=False
            )
            cache.update({("a", a): cols[:, j] for j, a in enumerate(new)})
        new = [q for q in R if ("r", q) not in cache]
        if new:
            new, r = np.array(new), new[0]
            E = np.zeros((B.size - r, new.size))
            E[new - r, np.arange(new.size)] = 1.0
            cols = np.zeros((B.size, new.size))
            cols[r:] = solve_triangular(L[r:, r:], E, lower=True, check_finite=False)
            cache.update({("r", q): cols[:, j] for j, q in enumerate(new)})
        Y = np.empty((B.size, n_enter + n_leave))
        for j, key in enumerate([("a", a) for a in A] + [("r", q) for q in R]):
            Y[:, j] = cache[key]
        G = Y.T @ Y
        V = G[n_enter:, :n_enter]  # (Q_BB^{-1} Q_BA)_R
        system = np.empty((n_enter + n_leave, n_enter + n_leave))
        system[:n_enter, :n_enter] = _block_of(self.Q, A, A) - G[:n_enter, :n_enter]
        system[:n_enter, n_enter:] = V.T
        system[n_enter:, :n_enter] = -V
        system[n_enter:, n_enter:] = G[n_enter:, n_enter:]
        rhs = np.concatenate([self.b[A] - Y[:, :n_enter].T @ self.y, -self.z[R]])
        x = np.linalg.solve(system, rhs)
        x_A = x[:n_enter].copy()
        # x_B = Q_BB^{-1}(b_B - Q_BA x_A + E_R lam) = L'^{-1}(y - Y_A x_A + Y_R lam), with y =
        # L^{-1} b_B: one triangular solve, on the factor as stored (cho_solve would copy it).
        x[:n_enter] *= -1.0
        x_B = solve_triangular(L, self.y + Y @ x, lower=True, trans="T", check_finite=False)
        u = np.zeros(len(self.Q))
        u[B] = x_B
        u[A] = x_A
        return u[free]
