"""What every kernel classifier of ``ksvm`` shares: one contract, kept here.

:class:`BaseKernelClassifier` is to ``ksvm`` what scikit-learn's ``BaseLibSVM``
is to ``SVC``.  A fitted estimator, whatever its solver, has

* ``classes_`` (any two labels; ``classes_[1]`` is the positive class) and
  ``n_features_in_``;
* ``support_`` (indices of the training points with a nonzero weight),
  ``support_vectors_`` and ``dual_coef_`` of shape ``(1, n_SV)``, so that
  ``decision_function(x) = sum_k dual_coef_[0, k] k(support_vectors_[k], x) + intercept_[0]``;
* ``intercept_`` of shape ``(1,)``;
* ``coef_`` of shape ``(1, n_features)`` when ``kernel='linear'``: the weight
  vector ``w``, with ``decision_function(x) = x'w + intercept_[0]``;
* ``n_iter_`` and ``converged_``: the solver's iterations (1 for a direct
  solve) and whether it reached its tolerance.

A fitted model keeps what prediction needs, the support vectors, and not the
training set: its size (pickled, too) grows with the number of support vectors.

``fit`` is written once, here: it validates the hyper-parameters (each
estimator declares them in one table, ``_parameters``: name -> validator from
:mod:`ksvm._validation`) before any work, then the data and labels, resolves
the kernel, hands the estimator's ``_solve`` its training data (the Gram
matrix, unless the estimator asks for something else through
``_training_data``) and records the :class:`Solution` through
:meth:`~BaseKernelClassifier._set_solution`.  The decision function and
``predict`` are written once, here, too.  :class:`KernelMeanClassifier`
(:mod:`ksvm.nearest_mean`) is the smallest example.
"""

from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _memory
from ._validation import (
    check_degree,
    check_finite_real,
    check_gamma,
    check_gram,
    encode_binary_labels,
    validate_parameters,
)
from .columns import KernelColumns
from .kernels import KERNELS, RBFBlock, block_rows, make_kernel, resolve_gamma
from .mercer import require_psd

__all__ = ["BaseKernelClassifier", "ExampleWeightsClassifier", "Solution"]

#: Named kernels whose Gram matrices are PSD for every valid parameter value.
_ALWAYS_PSD = ("linear", "rbf", "exponential")


def check_kernel(value, name="kernel"):
    """Return ``value`` if it names a kernel of :data:`ksvm.kernels.KERNELS`, is
    'precomputed', or is a callable."""
    if callable(value) or (isinstance(value, str) and (value in KERNELS or value == "precomputed")):
        return value
    names = ", ".join(repr(k) for k in KERNELS)
    raise ValueError(f"{name} must be one of {names}, 'precomputed' or a callable, got {value!r}.")


@dataclass
class Solution:
    """What an estimator's ``_solve`` returns: the classifier ``sum_i weights_i k(x_i, x) + b``.

    Attributes
    ----------
    weights : ndarray of shape (n_train,)
        The coefficient of each training point's kernel column (``lambda_i y_i``
        for an SVM, ``c_i`` for RLSC); points with weight 0 are dropped.
    intercept : float
        ``b``.
    n_iter : int, default=1
    converged : bool, default=True
    support : ndarray of int or None
        The support vectors, if not the nonzero weights; kept as given (a lazy
        array of a Dask fit stays lazy).
    coef : ndarray of shape (n_features,) or None
        ``w`` with the linear kernel, if the solver has it; else
        ``sum_k dual_coef_k x_k``.
    """

    weights: object
    intercept: float
    n_iter: int = 1
    converged: bool = True
    support: object = None
    coef: object = None


class BaseKernelClassifier(ClassifierMixin, BaseEstimator):
    """Base class for the two-class kernel classifiers of ``ksvm``.

    Subclasses define a keyword-only ``__init__`` that stores the
    hyper-parameters (at least ``kernel``, ``gamma``, ``degree``, ``coef0``),
    extend the table ``_parameters`` with their own, and implement
    ``_solve(data, y_pm, params)``, which returns a :class:`Solution`.
    ``data`` is the Gram matrix of the training points by default (checked
    positive semi-definite where the kernel is not so by theory and
    ``_psd_reason`` says why the solver needs it); an estimator that needs
    something else (the points themselves, kernel rows on demand) overrides
    ``_training_data``.

    With ``kernel='precomputed'``, ``fit`` takes the square training Gram
    matrix and ``predict`` the ``(n_test, n_train)`` block of kernel values
    between test and training points.
    """

    #: name -> validator ``(value, name) -> value``; every ``__init__`` argument has one.
    _parameters = {
        "kernel": check_kernel,
        "gamma": check_gamma,
        "degree": check_degree,
        "coef0": check_finite_real,
    }

    #: Why the solver needs a positive semi-definite Gram matrix (the message of the
    #: refusal), or None if it does not check one (or its own factorisation does).
    _psd_reason = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.classifier_tags.multi_class = False
        return tags

    # --- fitting -----------------------------------------------------------------

    def fit(self, X, y):
        """Train on ``X`` (or a precomputed Gram matrix) and two-class labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Training data, or the Gram matrix if ``kernel='precomputed'``.
        y : array-like of shape (n_samples,)
            Two class labels of any type.

        Returns
        -------
        self : estimator
            The fitted estimator.

        Raises
        ------
        ValueError
            On invalid hyper-parameters (before any work), invalid data, labels
            that are not exactly two classes, or a kernel the solver cannot use.
        """
        params = self._validate_parameters()
        X, y_pm = self._validate_training_data(X, y)
        self._gamma = resolve_gamma(self.gamma, self._gamma_data(X)) if self._uses_gamma() else None
        data = self._training_data(X, params)
        try:
            solution = self._solve(data, y_pm, params)
        finally:
            if isinstance(data, KernelColumns):  # its memory, for the next fit's rows
                data.release()
        self._set_solution(X, solution)
        return self

    def _validate_parameters(self):
        """Every hyper-parameter through its validator, before any work.

        Returns
        -------
        params : dict
            The validated values by name (``None`` kept where it means a default).
        """
        return validate_parameters(self._parameters, vars(self))

    def _validate_training_data(self, X, y):
        """Validate the training data; set ``classes_``; return ``(X, y_pm)``,
        the labels as -1/+1."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=1)
        y_pm, self.classes_ = encode_binary_labels(y)
        if self.kernel == "precomputed":
            X = check_gram(X, name="X (a precomputed kernel)")
        return X, y_pm

    def _training_data(self, X, params):
        """What ``_solve`` is given: the Gram matrix of the training points."""
        return self._fit_gram(X)

    def _solve(self, data, y_pm, params):
        """Solve the training problem; return a :class:`Solution`.  Each estimator has one."""
        raise NotImplementedError

    def _fit_gram(self, X):
        """The Gram matrix of the training points (``X`` itself if precomputed),
        refused (:func:`ksvm.mercer.require_psd`) if the solver needs it PSD
        (``_psd_reason``), the kernel is not PSD by theory (:meth:`_needs_psd_check`)
        and the matrix is not."""
        K = X if self.kernel == "precomputed" else self._kernel_function()(self._kernel_points(X))
        if self._psd_reason is not None and self._needs_psd_check():
            require_psd(K, self._psd_reason)
        return K

    def _kernel_function(self):
        return make_kernel(self.kernel, gamma=self._gamma, degree=self.degree, coef0=self.coef0)

    def _kernel_columns(self, X, cache_size):
        """The kernel rows of the training points computed on demand, in a cache of
        ``cache_size`` megabytes, for a named kernel."""
        if self.kernel == "rbf":  # libsvm's formula, on X (see _kernel_points)
            return self._row_cache(RBFBlock(self._gamma, X), X, cache_size)
        return self._row_cache(self._kernel_function(), self._kernel_points(X), cache_size)

    def _row_cache(self, kernel, points, cache_size):
        """A :class:`KernelColumns` of ``kernel`` on ``points`` in the memory that the
        process keeps for the caches of kernel rows (``ksvm.columns.kept_rows``), which
        :meth:`fit` gives back: a new cache's memory costs a page fault per 4 KB at its
        first touch, and libsvm's rows, allocated a row at a time, come back from the
        allocator at the next fit without any.  Measured (``ksvm.smo.SoftMarginSVC``,
        5,000 noisy points at ``C = 1``, repeated fits): 48,800 faults and 203 ms a fit
        with new memory in small pages, 800 faults and 155 ms in numpy's huge pages,
        none and 117 ms with the memory kept."""
        return KernelColumns(kernel, points, cache_size=cache_size, memory=_memory.ROWS)

    def _kernel_points(self, X):
        """The points the kernel compares: the rows of ``X``, unless a subclass
        maps them first (the Lagrangian SVM appends a 1 to each, which does not
        change the distances that 'rbf' and 'exponential' read)."""
        return X

    def _gamma_data(self, X):
        """The data that ``gamma='scale'`` or ``'auto'`` is resolved on: the points the
        kernel compares."""
        return self._kernel_points(X)

    def _uses_gamma(self):
        if callable(self.kernel):
            return False
        return "gamma" in KERNELS.get(self.kernel, (None, ()))[1]

    def _psd_by_theory(self):
        """Whether the kernel is PSD for every valid parameter value: 'linear', 'rbf',
        'exponential', and 'poly' with ``coef0 >= 0``."""
        return self.kernel in _ALWAYS_PSD or (self.kernel == "poly" and self.coef0 >= 0)

    def _needs_psd_check(self):
        """Whether the training Gram matrix must be tested for PSD: unless the kernel is
        PSD by theory ('sigmoid', a callable and a precomputed matrix are tested)."""
        return not self._psd_by_theory()

    def _set_solution(self, X, solution):
        """Record ``solution`` (a :class:`Solution`) for the training data ``X`` in the
        attributes of the contract.

        ``support_vectors_`` holds copies of the support rows of ``X`` (empty, shape
        ``(0, 0)``, for a precomputed kernel).  With the linear kernel, where
        prediction reads ``coef_`` alone, a fit whose every point is a support vector
        keeps a read-only view of ``X`` instead of a second copy of it.
        """
        s = solution
        self.support_ = np.flatnonzero(s.weights) if s.support is None else s.support
        self.dual_coef_ = s.weights[self.support_][None, :]
        self.intercept_ = np.array([float(s.intercept)])
        self.n_iter_ = int(s.n_iter)
        self.converged_ = bool(s.converged)
        self.support_vectors_ = self._support_rows(X)
        if self.kernel == "linear":
            w = self.dual_coef_[0] @ self.support_vectors_ if s.coef is None else s.coef
            self.coef_ = np.asarray(w, dtype=np.float64)[None, :]

    def _support_rows(self, X):
        """``X[support_]``: a copy (``np.take``, faster than fancy indexing on a large
        ``X``), a read-only view where a linear model keeps every row, lazy on Dask."""
        if self.kernel == "precomputed":
            return np.empty((0, 0))
        if not isinstance(X, np.ndarray):  # a Dask array: support_ is lazy, so are its rows
            return X[self.support_]
        if self.kernel == "linear" and self.support_.size == len(X):
            rows = X.view()
            rows.flags.writeable = False
            return rows
        return np.take(X, self.support_, axis=0)

    # --- using the fitted model ------------------------------------------------

    def _test_scores(self, X):
        """Validate test data; return ``K(X, support_vectors_) @ dual_coef_[0]``, the
        kernel block formed a block of rows at a time (:func:`ksvm.kernels.block_rows`)
        when it would take more than 16 MB: 20,000 points against 16,000 support vectors
        would take 2.6 GB at once.  (With ``kernel='precomputed'``, the support columns
        of the given block.)"""
        check_is_fitted(self, "classes_")
        if self.kernel == "precomputed":
            return self._test_gram(X) @ self.dual_coef_[0]
        X = validate_data(self, X, dtype=np.float64, reset=False)
        points, support = self._kernel_points(X), self._kernel_points(self.support_vectors_)
        kernel, step = self._kernel_function(), block_rows(len(support))
        if len(points) <= step:
            return kernel(points, support) @ self.dual_coef_[0]
        scores = np.empty(len(points))
        for start in range(0, len(points), step):
            rows = points[start : start + step]
            scores[start : start + len(rows)] = kernel(rows, support) @ self.dual_coef_[0]
        return scores

    def _test_gram(self, X):
        """Validate a precomputed test block ``K(X, training points)``; return its
        support columns."""
        try:
            K = validate_data(self, X, dtype=np.float64, reset=False)
        except ValueError as exc:
            if "features" not in str(exc):
                raise
            raise ValueError(
                f"{exc} With kernel='precomputed', X must hold the kernel values between "
                f"each test point and the training points: one column per training "
                f"sample ({self.n_features_in_})."
            ) from exc
        return K[:, self.support_]

    def decision_function(self, X):
        """``sum_k dual_coef_k k(x_k, x) + intercept_`` over the support vectors;
        ``x'coef_ + intercept_`` with the linear kernel.  Positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Or ``(n_samples, n_train)`` kernel values if ``kernel='precomputed'``.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "dual_coef_")
        if self.kernel == "linear":
            X = validate_data(self, X, dtype=np.float64, reset=False)
            return X @ self.coef_[0] + self.intercept_[0]
        return self._test_scores(X) + self.intercept_[0]

    def predict(self, X):
        """Predict class labels: ``classes_[1]`` where the decision function is positive.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Or ``(n_samples, n_train)`` kernel values if ``kernel='precomputed'``.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]


class ExampleWeightsClassifier(BaseKernelClassifier):
    """A classifier ``f(x) = sum_i c_i k(x_i, x) + b`` with a weight on every example.

    RLSC, kernel logistic regression and the nearest class mean keep every
    training point: ``support_`` is all of them, even where a weight happens
    to be 0.
    """

    def _example_weights(self, c, b, n_iter=1, converged=True):
        """The :class:`Solution` with every training point a support vector."""
        return Solution(c, b, n_iter, converged, support=np.arange(len(c)))
