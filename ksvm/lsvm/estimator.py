"""The Lagrangian SVM as a scikit-learn estimator: :class:`LagrangianSVC`.

The letters are the book's (:mod:`ksvm.lsvm`): the equation numbers are
Mangasarian & Musicant's, whose ``A``, ``D``, ``e``, ``Q`` are ``X``, ``Y``, ``1``,
``M`` here, whose augmented points ``G = [A  -e]`` are ``[X  1]`` (:func:`augment`)
and whose offset ``gamma`` is ``-b``; ``u`` is the book's ``alpha``.
"""

import numpy as np

from .._validation import check_positive, check_positive_integer, one_of, optional
from ..base import BaseKernelClassifier, Solution
from ..columns import KernelColumns
from ..kernels import RBFBlock
from .coordinate import _relaxation, lsvm_kernel_coordinate
from .fixed_point import lsvm_kernel, lsvm_linear
from .newton import _linear_active_set, lsvm_kernel_newton
from .problem import _check_nu_eta, _dask_path, augment
from .working_set import KeptMemory, lsvm_kernel_columns

__all__ = [
    "COMPILED_ROWS_FROM",
    "COORDINATE_NU",
    "COORDINATE_NU_N",
    "COORDINATE_UP_TO",
    "NEIGHBOUR_SAMPLE",
    "LagrangianSVC",
]


#: ``solver='auto'`` takes coordinate steps (:func:`ksvm.lsvm.lsvm_kernel_coordinate`) for a kernel
#: whose rows it computes when ``nu`` is at most this, or ``nu * n_samples`` at most
#: ``COORDINATE_NU_N``; the Newton solver otherwise.  Measured on the checkerboards of
#: ``benchmarks/bench_lsvm_newton.py`` (one BLAS thread, coordinate / Newton fit time):
#: at ``nu = 1`` 0.5 to 0.7 from 1,000 to 20,000 points; at ``nu = 10`` 0.5 at 1,000
#: points, 0.9 at 3,000, 1.3 at 5,000 and 1.9 at 20,000; at ``nu = 100`` 0.8 at 1,000
#: points and 1.1 at 2,000; at ``nu = 1000`` 1.05 to 1.2 at 900 and 1,000 points (``M`` is
#: the worse conditioned, the larger ``nu``; with the Gaussian kernel's effective ``nu``,
#: :data:`NEIGHBOUR_SAMPLE`, ``nu * n`` is 27,000 at 3,000 points and ``nu = 10``, 28,000 at
#: 1,000 and ``nu = 100``, 21,000 and 38,000 at ``nu = 1000``).  Those were single steps.
#: With the step length of the effective ``nu`` and, above 4,000 points, steps on pairs,
#: ``nu = 10`` (effective 9 to 10) went faster by coordinate steps in one process (0.86
#: at 3,500 points, 0.87 to 0.91 at 5,000, 0.87 at 20,000; 1.1 at 10,000), but a fit in a
#: fresh process also loads the compiled steps, 0.3 to 0.6 s with numba, which Newton
#: below ``COMPILED_ROWS_FROM`` does not: at 20,000 points that made the coordinate fit
#: slower (1.18 of SVC's time against 0.73).  Up to 2,000 points the coordinate steps now
#: start from zero on the whole matrix, which made them faster where ``nu`` is large
#: (coordinate / Newton, effective ``nu * n`` in brackets: 1,000 points at ``nu = 1000``
#: (38,000) 0.68, 1,200 at 1000 (46,000) 0.64, 1,500 at 1000 (67,000) 0.83; but 1,800 at
#: 100 (72,000) 1.02, 2,000 at 50 (59,000) 1.18, 2,000 at 30 (42,000) 0.98 to 1.18); on
#: rows fetched on demand and pair steps, 4,000 points at ``nu = 10`` (36,000) 1.00 to
#: 1.07, 4,500 (42,000) 0.98, 5,000 (47,000) 0.81 to 0.83, with the row cache's memory
#: kept from fit to fit.  Hence 50,000.
COORDINATE_NU = 1.0

#: See :data:`COORDINATE_NU`.
COORDINATE_NU_N = 50_000.0

#: Up to this many points ``solver='auto'`` takes coordinate steps at every ``nu``: the
#: Newton solver starts there with every point free (its warm start begins above 500
#: points) and factors the whole block.  Measured, coordinate / Newton fit time: 0.5 to
#: 0.8 on checkerboards of 300 and 450 points (``gamma = 100``, ``nu`` from 1 to 1000),
#: 0.6 to 0.7 on the breast cancer set (455 points of a fold, ``gamma='scale'``).
COORDINATE_UP_TO = 500

#: For the Gaussian kernel, how many points (drawn with a fixed seed) ``solver='auto'`` takes
#: the kernel value of each one's nearest neighbour at; their mean ``r`` turns ``nu`` into
#: the effective ``1 / (1/nu + 1 - r)``, which the rules above may also compare.  Two points
#: at kernel value ``r`` make a block of ``M`` with eigenvalues ``1/nu + 1 +- r``, whose
#: condition number, about ``2 / (1/nu + 1 - r)`` for ``r`` near 1, sets how slowly the
#: coordinate steps on the pair converge.  On the checkerboards ``r`` is 0.97 to 0.998: the
#: effective ``nu`` is 8 to 10 at ``nu = 10``, 28 at ``nu = 100`` and 1,000 points.  On the
#: digits (``gamma='scale'``) ``r`` is about 0.8 and the effective ``nu`` at most 5.4, where
#: the coordinate steps took about 0.75 of the Newton solver's time at ``nu`` = 100 and 1000
#: (1,438 points, one BLAS thread).
NEIGHBOUR_SAMPLE = 32

#: From this many points the Newton solver computes Gaussian rows of points with few
#: features by the compiled kernel that SMO and the coordinate steps use
#: (``ksvm._rbf_compiled.RBFFewFeatures``, about half the time per value of
#: :class:`ksvm.kernels.RBFBlock`); below, loading it (Numba, about a quarter of a second
#: in a new process) costs about what it saves.  Measured on the checkerboard at
#: ``nu = 10``, a fit in a fresh process: about 29 s with ``RBFBlock`` (14 s of it rows) and
#: 24.5 s with the compiled rows at 200,000 points; 2.1 and 2.3 s at 50,000.
COMPILED_ROWS_FROM = 100_000


class LagrangianSVC(BaseKernelClassifier):
    """The Lagrangian SVM of Mangasarian & Musicant (2001) as an estimator.

    It solves their formulation (7) through its dual (11).  With
    ``kernel='linear'`` no ``n x n`` matrix is formed (Sherman-Morrison-Woodbury:
    millions of points are fine), and ``coef_ = w``, ``intercept_ = b``.
    With another kernel it works with the Gram matrix ``K-tilde`` of the augmented
    points ``[x_i  1]`` (:func:`augment`): the Newton
    solver with a kernel that is PSD by theory ('rbf', 'exponential', 'poly'
    with ``coef0 >= 0``) computes only the rows of the points that can be free,
    on demand and in a cache of ``cache_size`` MB (:func:`lsvm_kernel_columns`), and
    keeps the memory its last small problem was solved in (at most 61 MB) for its next
    fit (neither ``clone`` nor pickling copies it); the fixed point, a callable, 'sigmoid' and
    'precomputed' use the whole ``n x n`` matrix.  The decision function is
    ``sum_i u_i y_i k([x  1], [x_i  1])``; for the linear kernel that is ``x'w + b``.
    With the linear kernel, ``fit``, ``decision_function`` and ``predict`` also
    take a Dask array chunked by rows, solved block by block
    (:mod:`ksvm.lsvm.dask`).

    Parameters
    ----------
    nu : float > 0 or None, default=None
        Weight of the squared slacks; None means ``1 / n_samples``.
    kernel : {'linear', 'poly', 'rbf', 'exponential', 'sigmoid', 'precomputed'} or callable
        The kernel, 'linear' by default, applied to the augmented points
        ``[x, 1]``.  With 'precomputed', ``fit`` takes the Gram matrix of the
        augmented training points and ``decision_function`` the kernel values
        between the augmented new points and them.
    gamma : {'scale', 'auto'} or float > 0, default='scale'
        'scale' and 'auto' are resolved on ``X`` for the distance kernels ('rbf',
        'exponential'), whose values the appended column does not change, so that
        ``gamma='scale'`` means what it means for ``SVC``; for the inner-product
        kernels ('poly', 'sigmoid') on the augmented points ``[X  1]`` that the kernel
        multiplies.
    degree : int >= 1, default=3
    coef0 : float, default=1.0
    solver : {'auto', 'newton', 'coordinate', 'fixed-point'}, default='auto'
        'fixed-point' is the authors' iteration (15) (:func:`lsvm_linear`,
        :func:`lsvm_kernel`, their Codes 2 and 3), which converges linearly and
        the more slowly the larger ``nu``; 'newton' is the safeguarded active-set
        method (:func:`lsvm_linear_newton`, :func:`lsvm_kernel_newton`), which
        solves (11) exactly in a few steps at any ``nu``; 'coordinate' takes greedy
        steps on one multiplier or a pair at a time (:func:`lsvm_kernel_coordinate`,
        a named kernel PSD by theory only) to the tolerance ``tol``, which is fast
        where ``nu`` is small and ``M`` well conditioned.  'auto' takes 'coordinate'
        for such a kernel when ``nu <= COORDINATE_NU``, ``nu * n_samples <=
        COORDINATE_NU_N`` or ``n_samples <= COORDINATE_UP_TO`` (1, 50,000 and 500,
        measured on the book's checkerboards), where for the Gaussian kernel either of
        the first two may hold for the effective ``1 / (1/nu + 1 - r)`` in place of
        ``nu``, ``r`` the mean kernel value at the nearest neighbour of
        ``NEIGHBOUR_SAMPLE`` points (about 0.8 on the digits, 0.97 and more on the
        checkerboards), and 'newton' otherwise: it was as fast
        or faster than the fixed point in every setting the book measures (the
        chapters on the Newton solver and on choosing a method).  With
        ``kernel='linear'`` a Newton step is one pass over ``X`` plus an update
        of the ``(d+1) x (d+1)`` matrix ``H_F'H_F`` by the points that changed
        side; at 2,000,000 x 10 points the whole ``fit`` took a third of
        ``LinearSVC``'s time or less on the same problem (the chapter "LSVM at
        scale").
    eta : float in (0, 2/nu) or None, default=None
        Step of the fixed-point iteration; None means ``1.9 / nu``.  Only
        'fixed-point' uses it.
    tol : float > 0 or None, default=None
        The solver's tolerance; None means its default (1e-5 for the fixed
        point, the authors' ``tol``; 1e-8 for Newton's sign test; 1e-3 for the
        coordinate steps' largest violation, as ``SVC``'s).
    max_iter : int or None, default=None
        The solver's ``max_iter``; None means its default (100, the authors';
        ``max(10**6, 100 n_samples)`` coordinate steps).
    cache_size : float > 0, default=200.0
        Megabytes of kernel rows kept by the Newton solver or the coordinate steps
        when they compute them on demand (as ``SVC``'s ``cache_size``); rows that do
        not fit are computed again when needed.  After the fit the process keeps that
        memory (the pages the rows touched) for the next fit's rows, as the C library
        keeps libsvm's; ``ksvm.columns.kept_rows.clear()`` gives it back to the system.

    Attributes
    ----------
    classes_, n_features_in_, support_vectors_
        As for every ``ksvm`` classifier (:mod:`ksvm.base`).  With the linear kernel
        and every point a support vector (``nu = 1/n`` puts them all inside the
        margin), ``support_vectors_`` is a read-only view of ``X``, not a copy.
    u_ : ndarray of shape (n_samples,)
        The dual solution, the multipliers (the book's ``alpha``).
    support_ : ndarray of int
        The points with ``y_i f(x_i) < 1``: those with ``u_i > 0`` at the solution,
        where ``u_i = nu max(0, 1 - y_i f(x_i))``.  (The sign of an iterate ``u_``
        of the fixed point is no test: it has entries of the size of ``tol`` where
        the solution has 0.)
    dual_coef_ : ndarray of shape (1, n_SV)
        ``y_i u_i`` of the support vectors.
    coef_ : ndarray of shape (1, n_features)
        ``w`` (linear kernel only).
    intercept_ : ndarray of shape (1,)
        ``b`` (linear kernel); 0 otherwise, the offset being inside the kernel.
    n_iter_ : int
    converged_ : bool
    nu_ : float
        The value used.
    eta_ : float or None
        The step used by the fixed point (None with the Newton solver).
    solver_ : str
        'newton', 'coordinate' or 'fixed-point'.
    n_kernel_rows_ : int or None
        Kernel values computed by the solver, in rows of ``n_samples`` values
        (``n_samples`` when the whole matrix is formed; None for the linear kernel).

    Raises
    ------
    ValueError
        From ``fit``: invalid data, not two classes, ``nu <= 0``, ``eta``
        outside ``(0, 2/nu)``, or a kernel whose Gram matrix is not PSD.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> clf = LagrangianSVC(nu=100.0).fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[1.5], [2.5]]).tolist()
    ['a', 'b']
    >>> round(float(clf.coef_[0, 0]), 4), round(float(clf.intercept_[0]), 4), clf.n_iter_
    (0.9757, -1.9417, 2)
    """

    _parameters = {
        **BaseKernelClassifier._parameters,
        "nu": optional(check_positive),
        "solver": one_of("auto", "newton", "fixed-point", "coordinate"),
        "eta": optional(check_positive),
        "tol": optional(check_positive),
        "max_iter": optional(check_positive_integer),
        "cache_size": check_positive,
    }

    def __init__(
        self,
        *,
        nu=None,
        kernel="linear",
        gamma="scale",
        degree=3,
        coef0=1.0,
        solver="auto",
        eta=None,
        tol=None,
        max_iter=None,
        cache_size=200.0,
    ):
        self.nu = nu
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.eta = eta
        self.tol = tol
        self.max_iter = max_iter
        self.cache_size = cache_size

    _psd_reason = "LSVM needs a PSD kernel for (29)-(30) to have a solution."

    def _validate_parameters(self):
        """The table, then the choice of solver and its options (``newton``, ``options``):
        a step ``eta`` with the Newton method is refused before any work."""
        params = super()._validate_parameters()
        params["newton"], params["options"] = self._solver_options(params)
        return params

    def _validate_training_data(self, X, y):
        """As every estimator's; a Dask ``X`` chunked by rows (linear kernel only) is
        checked on the cluster (:func:`ksvm.lsvm.dask.validate_training_data`)."""
        dask_path = _dask_path(X)
        if dask_path is not None:
            return dask_path.validate_training_data(self, X, y)
        return super()._validate_training_data(X, y)

    def _training_data(self, X, params):
        """The points themselves for the linear kernel (no ``n x n`` matrix); for the
        Newton solver or coordinate steps and a kernel PSD by theory, the rows of the
        augmented points' Gram matrix on demand; else the whole matrix, checked PSD.
        Records in ``params['coordinate']`` whether coordinate steps solve, and in
        ``params['omega']`` their step length (None: the solver's default for ``nu``)."""
        params["coordinate"], params["omega"] = False, None
        if self.kernel == "linear":
            return X
        if params["newton"] and self._psd_by_theory():
            params["coordinate"] = self._takes_coordinate_steps(params, X)
            nu = self._nu(params, X)
            if params["coordinate"] and self.kernel == "rbf" and nu > 1.0:
                # (up to nu = 1 the length is that of nu, whatever the effective nu)
                effective = params.get("effective_nu") or self._effective_nu(nu, X)
                params["omega"] = _relaxation(effective)
            compiled = params["coordinate"] or X.shape[0] >= COMPILED_ROWS_FROM
            if compiled and self.kernel == "rbf":
                from ..smo import _rbf_rows  # the compiled rows, as SMO's

                return self._row_cache(_rbf_rows(self._gamma, X), X, params["cache_size"])
            return self._kernel_columns(X, params["cache_size"])
        return super()._training_data(X, params)

    def _takes_coordinate_steps(self, p, X):
        """Whether a kernel whose rows are computed is solved by coordinate steps:
        ``solver='coordinate'``, or 'auto' at a small ``nu`` or on few points
        (:data:`COORDINATE_NU`, :data:`COORDINATE_UP_TO`), with the Gaussian kernel's
        ``nu`` made effective by the spread of the points (:meth:`_effective_nu`)."""
        if p["solver"] != "auto":
            return p["solver"] == "coordinate"
        n, nu = X.shape[0], self._nu(p, X)
        if n <= COORDINATE_UP_TO:
            return True

        def small(nu):
            return nu <= COORDINATE_NU or nu * n <= COORDINATE_NU_N

        if small(nu) or self.kernel != "rbf":
            return small(nu)
        p["effective_nu"] = self._effective_nu(nu, X)  # for the steps' length
        return small(p["effective_nu"])

    @staticmethod
    def _nu(p, X):
        """``nu``, None made ``1 / n_samples``."""
        return 1.0 / X.shape[0] if p["nu"] is None else p["nu"]

    def _effective_nu(self, nu, X):
        """``1 / (1/nu + 1 - r)``, ``r`` the mean over :data:`NEIGHBOUR_SAMPLE` points (drawn
        with a fixed seed) of the Gaussian kernel's value at each one's nearest neighbour.

        Two points at kernel value ``r`` make a block ``[[a, +-r], [+-r, a]]`` of
        ``M = I/nu + YKY``, ``a = 1/nu + 1``, whose eigenvalues are ``a +- r``: its condition
        number ``(a + r) / (a - r)``, which sets how slowly coordinate steps on the pair
        converge, is about ``2 / (1/nu + 1 - r)`` when ``r`` is near 1 and depends little on
        ``nu`` when ``r`` is well below 1.  On the checkerboards the rules were measured on,
        ``r`` is 0.97 to 0.998 and the effective ``nu`` close to ``nu`` up to 10; on the digits
        (``gamma='scale'``) ``r`` is about 0.8, and the effective ``nu`` at most 5.4."""
        n = X.shape[0]
        sample = np.random.default_rng(0).choice(n, min(NEIGHBOUR_SAMPLE, n), replace=False)
        # RBFBlock, not the compiled rows: a Newton fit must not load numba for this
        values = RBFBlock(self._gamma)(X[sample], X)
        values[np.arange(sample.size), sample] = -np.inf  # not the point itself
        r = float(values.max(axis=1).mean())
        return 1.0 / (1.0 / nu + 1.0 - r)

    def _solve(self, data, y, params):
        """Solve the dual (11) on what :meth:`_training_data` gave, for the labels ``y``."""
        newton, options = params["newton"], params["options"]
        nu, eta = _check_nu_eta(params["nu"], params["eta"], y.shape[0])
        dask_path = _dask_path(data)
        if dask_path is not None:  # block by block on the cluster; support_ stays lazy
            result, support = dask_path.solve_linear(data, y, nu, newton, options)
            n_rows = None
        else:
            result, margins, n_rows = self._solve_in_memory(data, y, nu, params)
            # At the solution u_i = nu * max(0, 1 - y_i f(x_i)) (the slack, (9)), so the
            # support vectors are the points with y_i f(x_i) < 1.  A fixed-point iterate
            # has entries of the size of tol, of either sign, where the solution has 0:
            # its sign is no test.
            support = np.flatnonzero(margins < 1.0)
        self.u_ = result.u
        self.n_kernel_rows_ = n_rows
        self.nu_ = nu
        self.eta_ = None if newton else eta
        self.solver_ = (
            "coordinate" if params["coordinate"] else "newton" if newton else "fixed-point"
        )
        intercept = result.b if self.kernel == "linear" else 0.0
        return Solution(
            y * result.u, intercept, result.n_iter, result.converged, support=support, coef=result.w
        )

    def _solve_in_memory(self, data, y, nu, params):
        """The solver's result, the margins ``y_i f(x_i)`` (or a stand-in with the same
        points below 1) and the kernel values computed, in rows (None if linear)."""
        newton, options = params["newton"], params["options"]
        if self.kernel == "linear":
            if newton:  # X and y are checked: call the loop, which returns the margins too
                tol = options.get("tol", 1e-8)  # lsvm_linear_newton's default
                result, margins = _linear_active_set(data, y, nu, options["max_iter"], tol)
            else:
                result = lsvm_linear(data, y, nu, **options)
                margins = y * (data @ result.w + result.b)
            return result, margins, None
        if params["coordinate"]:
            tol = options.get("tol", 1e-3)  # lsvm_kernel_coordinate's default
            max_iter = None if self.max_iter is None else options["max_iter"]
            result = lsvm_kernel_coordinate(
                data, y, nu, max_iter=max_iter, tol=tol, omega=params["omega"]
            )
            # support_: the points with u_i > 0 (the solution to the tolerance)
            return result, np.where(result.u > 0, 0.0, 1.0), round(result.kernel_values / len(y))
        if isinstance(data, KernelColumns):
            # No n x n matrix: rows of K-tilde on demand, for the points that can be free.
            result = lsvm_kernel_columns(data, y, nu, kept=self._kept_memory(), **options)
            # The solution is exact (to the sign test's tol), so u_i > 0 exactly where
            # y_i f(x_i) < 1: no further pass over the kernel rows is needed.
            return result, np.where(result.u > 0, 0.0, 1.0), round(result.kernel_values / len(y))
        solve = lsvm_kernel_newton if newton else lsvm_kernel
        result = solve(data, y, nu, **options)
        return result, y * (data @ (y * result.u)), len(y)

    def _kept_memory(self):
        """The :class:`KeptMemory` in which this estimator's working-set solver keeps its
        workspace from one fit to the next: its own, made at its first use; not a
        parameter, so ``clone`` makes a new estimator without it."""
        kept = getattr(self, "_kept", None)
        if kept is None:
            kept = self._kept = KeptMemory()
        return kept

    def __getstate__(self):
        """The state to pickle (or deep-copy): the fitted model without the memory kept
        for the next fit."""
        state = dict(super().__getstate__())  # a copy: object's may be __dict__ itself
        state.pop("_kept", None)
        return state

    def _solver_options(self, p):
        """Whether the fixed point is not the solver (the Newton method or coordinate
        steps solve), and the solver's ``max_iter``, ``tol`` and ``eta``, from the
        validated hyper-parameters ``p``; a Dask fit takes them too."""
        newton = p["solver"] in ("auto", "newton", "coordinate")
        if newton and p["eta"] is not None:
            raise ValueError(
                f"eta is the step of the fixed-point iteration; solver={p['solver']!r} has "
                "none. Pass solver='fixed-point' to use eta."
            )
        if p["solver"] == "coordinate" and (self.kernel == "linear" or not self._psd_by_theory()):
            raise ValueError(
                "solver='coordinate' computes kernel rows on demand and needs a named kernel "
                f"that is PSD by theory ('rbf', 'exponential', 'poly' with coef0 >= 0), not "
                f"{self.kernel!r}; use solver='newton'."
            )
        options = {"max_iter": 100 if p["max_iter"] is None else p["max_iter"]}
        if p["tol"] is not None:
            options["tol"] = p["tol"]
        if not newton:
            options["eta"] = p["eta"]
        return newton, options

    def decision_function(self, X):
        """As :meth:`~ksvm.base.BaseKernelClassifier.decision_function`.

        A Dask ``X`` gives a Dask array.
        """
        dask_path = _dask_path(X)
        if dask_path is not None:  # scores chunked like X
            return dask_path.decision_function(self, X)
        return super().decision_function(X)

    def predict(self, X):
        """As :meth:`~ksvm.base.BaseKernelClassifier.predict`; a Dask ``X`` gives a Dask array."""
        dask_path = _dask_path(X)
        if dask_path is not None:  # labels chunked like X
            return dask_path.predict(self, X)
        return super().predict(X)

    def _kernel_points(self, X):
        """The kernel compares the augmented points ``[X  1]`` (26)-(27)."""
        return augment(X)

    def _gamma_data(self, X):
        """The points whose variance ``gamma='scale'`` is resolved on: ``X`` for a distance
        kernel (the appended column cancels in every distance, and the kernel is that of
        ``X``), else, as for every estimator, the points the kernel compares, ``[X  1]``."""
        if self.kernel in ("rbf", "exponential"):
            return X
        return super()._gamma_data(X)
