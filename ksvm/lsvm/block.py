"""``M_FF^{-1} 1_F`` for the successive free sets of the active-set method on a dense block:
the Cholesky factor of the last free set updated, not recomputed (:class:`BlockSolver`).

``M`` is a symmetric positive definite matrix: the LSVM dual's ``M = I/nu + Y K-tilde Y``
(Mangasarian & Musicant's ``Q``) or, as the working-set solver passes it, the same
without the labels' signs.
"""

import numpy as np
from scipy.linalg import LinAlgError
from scipy.linalg.blas import dsyrk
from scipy.linalg.lapack import dtrtrs

from ..linalg import cholesky

__all__ = ["BlockSolver"]


def _block_of(M, rows, cols, empty=np.empty, out=None):
    """``M[np.ix_(rows, cols)]`` for a symmetric ``M`` (rows of contiguous values), by two
    ``take``s (whole rows copied, then columns picked), the shorter index list first:
    fancy indexing by ``np.ix_`` costs about twice as much.  The arrays come from
    ``empty(shape)``: the rows copied, and the result unless ``out`` (C-ordered, for
    ``len(rows) <= len(cols)``) is given."""
    # mode="clip" (the indices are valid) lets take write into its out without a buffer.
    if len(rows) <= len(cols):
        whole = M.take(rows, axis=0, out=empty((len(rows), M.shape[1])), mode="clip")
        if out is None:
            out = empty((len(rows), len(cols)))
        return whole.take(cols, axis=1, out=out, mode="clip")
    whole = M.take(cols, axis=0, out=empty((len(cols), M.shape[1])), mode="clip")
    return whole.take(rows, axis=1, out=empty((len(cols), len(rows))), mode="clip").T


def _solve_lower(L, b, trans=False, overwrite_b=False):
    """``L^{-1} b`` (``L'^{-1} b`` if ``trans``) for a lower triangular float64 ``L``: what
    ``scipy.linalg.solve_triangular(L, b, lower=True, check_finite=False)`` computes, by
    the same LAPACK call (``dtrtrs``; on ``L.T`` as an upper triangle when ``L`` is not
    in Fortran order), without its checks of the arguments, which cost as much as the
    solve itself on the small blocks of a working set (a step makes several)."""
    if b.size == 0:
        return np.zeros(b.shape)
    if L.flags.f_contiguous:
        x, info = dtrtrs(L, b, lower=1, trans=int(trans), overwrite_b=overwrite_b)
    else:
        x, info = dtrtrs(L.T, b, lower=0, trans=int(not trans), overwrite_b=overwrite_b)
    if info != 0:
        raise LinAlgError(f"singular triangular factor: a zero at diagonal {info - 1}.")
    return x


def _cholesky_lower(MF):
    """The lower Cholesky factor of a C-ordered symmetric ``MF``, in place (``MF`` is lost),
    in Fortran order: LAPACK factors ``MF.T``, which is ``MF`` in Fortran order, where
    scipy would first copy a C-ordered array."""
    return cholesky(MF.T, "M = I/nu + YKY", overwrite=True)[0]


class BlockSolver:
    """``M_FF^{-1} r_F`` for the free sets ``F`` of :func:`~ksvm.lsvm.active_set` on a dense ``M``
    (``r = 1`` unless given).

    The Cholesky factor ``L`` of ``M_BB`` for the last set ``B`` factored is kept,
    with ``B`` in an order of its own (``order``, positions in ``M``).  When ``F``
    differs from ``B`` in few indices (``R = B - F`` leave, ``J = F - B``
    join), the solve is a block update instead of a new factorisation: with
    ``u_R = 0`` imposed by multipliers ``lam`` on the rows of ``R``,

        M_BB x_B + M_BJ x_J - E_R lam = r_B,   M_JB x_B + M_JJ x_J = r_J,   x_R = 0,

    and ``x_B`` eliminated by the factor, a system of size ``|J| + |R|`` is left,
    whose blocks are ``Z'Z`` for ``Z = L^{-1} [M_BJ  E_R]`` (one triangular solve):
    ``O(|B|^2 (|J| + |R|))`` against ``|F|^3 / 3``.

    When more change, ``F`` is factored again, but only from the first point of
    ``order`` that leaves: the leading ``p`` columns of ``L`` stay (they depend
    on the leading block alone), the rows of ``L`` below them are kept for the
    points that stay and computed by a triangular solve for those that enter
    (appended at the end), and the trailing block is the factor of its Schur
    complement ``M_TT - L_T L_T'``: ``O(|T|^2 p + |T|^3 / 3)``, plus ``p^2`` for
    the row of each point that enters; when that exceeds ``|F|^3 / 3``, ``F`` is
    factored whole.  A caller that puts the points most likely to leave last (the
    working-set solver orders them by the margin its warm start predicts) keeps
    ``p`` large.  Between two factorisations, the columns of
    ``L^{-1} [M_BJ  E_R]`` of the points that entered or left in an update are
    kept for the next updates, which mostly repeat them.

    With a ``workspace`` (the working-set solver's buffers), the factors and
    the temporaries of a step are taken from it.

    Examples
    --------
    >>> M = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
    >>> solve = BlockSolver(M)  # solve(F) is M_FF^{-1} 1_F, F a boolean mask
    >>> bool(np.allclose(solve(np.array([True, True, False])), np.linalg.solve(M[:2, :2], [1, 1])))
    True
    >>> bool(np.allclose(solve(np.ones(3, dtype=bool)), np.linalg.solve(M, [1, 1, 1])))
    True
    """

    #: Update instead of refactoring while |J| + |R| is at most this fraction of |B|
    #: and the update takes fewer flops (``|B| k (|B| + 2k)``, ``k = |J| + |R|``) than the
    #: refactoring.
    UPDATE_FRACTION = 0.125

    def __init__(self, M, workspace=None, r=None):
        self.M = M
        self.base = None
        self.workspace = workspace
        self.r = np.ones(len(M)) if r is None else r

    def grow(self, M, workspace=None, r=None):
        """Continue with ``M``, whose leading block is the current ``M``, ``workspace`` and
        ``r``, whose leading entries are the current ``r`` (ones if None)."""
        n_old = len(self.M)
        self.M = M
        self.workspace = workspace
        self.r = np.ones(len(M)) if r is None else r
        if self.base is not None:
            self.base = np.concatenate([self.base, np.zeros(len(M) - n_old, dtype=bool)])

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
            MF = self._new_factor(order.size)
            if np.array_equal(order, np.arange(order.size)):  # a leading block, in order
                MF[...] = self.M[: order.size, : order.size]
            else:
                _block_of(self.M, order, order, self._empty, out=MF)
            factor = _cholesky_lower(MF)
        else:
            old = self.factor[0]
            n_stay = int(stay[p:].sum())
            L_T = self._empty((tail.size, p))  # the rows of L below its leading p columns
            L_T[:n_stay] = old[p:, :p][stay[p:]]
            if tail.size > n_stay:
                L_T[n_stay:] = _solve_lower(
                    old[:p, :p],
                    _block_of(self.M, order[:p], tail[n_stay:], self._empty),
                    overwrite_b=True,
                ).T
            # Only the lower half is read; in the old factor's memory order, so that its
            # leading block is copied by contiguous columns (or rows), not transposed.
            factor = self._new_factor(order.size, "F" if old.flags.f_contiguous else "C")
            factor[:p, :p] = old[:p, :p]
            factor[p:, :p] = L_T
            if tail.size:
                # The Schur complement M_TT - L_T L_T' of the leading block (lower half;
                # transposed views are the Fortran arrays BLAS takes without a copy).
                S = dsyrk(
                    -1.0,
                    L_T.T,
                    beta=1.0,
                    c=_block_of(self.M, tail, tail, self._empty).T,
                    trans=1,
                    lower=1,
                    overwrite_c=1,
                )
                factor[p:, p:] = cholesky(S, "M = I/nu + YKY", overwrite=True)[0]
        self.factor = (factor, True)
        self._columns = {}
        self.base = np.zeros(len(self.M), dtype=bool)
        self.base[order] = True
        self.base_idx = order
        self.c = _solve_lower(factor, self.r[order])
        self.z = _solve_lower(factor, self.c, trans=True)
        u = np.zeros(len(self.M))  # z = M_BB^{-1} r = L'^{-1} c, c = L^{-1} r
        u[order] = self.z
        return u[free]

    def M_times_off(self, u, free):
        """``Mu`` off ``free`` (zero on ``free``, where :func:`~ksvm.lsvm.active_set` does not read
        it): from the rows off ``free`` alone when they are fewer than half."""
        off = ~free
        n_off = int(off.sum())
        if 2 * n_off >= len(free):
            return self.M @ u
        g = np.zeros(len(free))
        rows = self.M.take(
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
            u = np.zeros(len(self.M))
            u[self.base_idx] = self.z
            return u[free]
        B, J = self.base_idx, np.flatnonzero(enter)
        R = np.flatnonzero(leave[B])  # positions in B
        L = self.factor[0]
        # With Z = L^{-1} [M_BJ  E_R] (triangular solves), the blocks of the system are
        # the products Z'Z: C' M_BB^{-1} C = Z'Z.  L^{-1} E_R is 0 above the first
        # position r of R (L is lower triangular): only L's trailing block from r is
        # used, and the points that leave are mostly near the end of B.  The updates on
        # one factor mostly repeat the last one's J and R: their columns are kept.
        cache = self._columns
        # Keys: ("a", j) for a point j that joins (J), ("r", q) for the one at position q
        # of B that leaves (R).
        new = [j for j in J if ("a", j) not in cache]
        if new:
            new = np.array(new)
            cols = _solve_lower(L, _block_of(self.M, B, new, self._empty))
            cache.update({("a", j): cols[:, k] for k, j in enumerate(new)})
        new = [q for q in R if ("r", q) not in cache]
        if new:
            new, r = np.array(new), new[0]
            E = np.zeros((B.size - r, new.size))
            E[new - r, np.arange(new.size)] = 1.0
            cols = np.zeros((B.size, new.size))
            cols[r:] = _solve_lower(L[r:, r:], E)
            cache.update({("r", q): cols[:, j] for j, q in enumerate(new)})
        Z = np.empty((B.size, n_enter + n_leave))
        for k, key in enumerate([("a", j) for j in J] + [("r", q) for q in R]):
            Z[:, k] = cache[key]
        G = Z.T @ Z
        V = G[n_enter:, :n_enter]  # (M_BB^{-1} M_BJ)_R
        system = np.empty((n_enter + n_leave, n_enter + n_leave))
        system[:n_enter, :n_enter] = _block_of(self.M, J, J) - G[:n_enter, :n_enter]
        system[:n_enter, n_enter:] = V.T
        system[n_enter:, :n_enter] = -V
        system[n_enter:, n_enter:] = G[n_enter:, n_enter:]
        rhs = np.concatenate([self.r[J] - Z[:, :n_enter].T @ self.c, -self.z[R]])
        x = np.linalg.solve(system, rhs)
        x_J = x[:n_enter].copy()
        # x_B = M_BB^{-1}(r_B - M_BJ x_J + E_R lam) = L'^{-1}(c - Z_J x_J + Z_R lam), with c =
        # L^{-1} r_B: one triangular solve, on the factor as stored (cho_solve would copy it).
        x[:n_enter] *= -1.0
        x_B = _solve_lower(L, self.c + Z @ x, trans=True)
        u = np.zeros(len(self.M))
        u[B] = x_B
        u[J] = x_J
        return u[free]
