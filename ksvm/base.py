"""What every kernel classifier of ``ksvm`` shares: one contract, kept here.

:class:`BaseKernelClassifier` is to ``ksvm`` what scikit-learn's ``BaseLibSVM``
is to ``SVC``.  A fitted estimator, whatever its solver, has

* ``classes_`` (any two labels; ``classes_[1]`` is the positive class),
  ``n_features_in_`` and ``X_fit_``;
* ``support_`` (indices of the training points with a nonzero weight),
  ``support_vectors_`` and ``dual_coef_`` of shape ``(1, n_SV)``, so that
  ``decision_function(x) = sum_k dual_coef_[0, k] k(support_vectors_[k], x) + intercept_[0]``;
* ``intercept_`` of shape ``(1,)``;
* ``coef_`` of shape ``(1, n_features)`` when ``kernel='linear'``: the weight
  vector ``w``, with ``decision_function(x) = x'w + intercept_[0]``;
* ``n_iter_`` and ``converged_``: the solver's iterations (1 for a direct
  solve) and whether it reached its tolerance.

The decision function and ``predict`` are written once, here.  Each
estimator declares its hyper-parameters in one table, ``_parameters``
(name -> validator from :mod:`ksvm._validation`); ``fit`` validates them all
with :meth:`~BaseKernelClassifier._validate_parameters` before any work, and
ends with :meth:`~BaseKernelClassifier._set_solution`.  :class:`KernelMeanClassifier`
(:mod:`ksvm.nearest_mean`) is the smallest example.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import (
    check_degree,
    check_finite_real,
    check_gamma,
    check_gram,
    encode_binary_labels,
)
from .kernels import KERNELS, make_kernel, resolve_gamma
from .mercer import require_psd

__all__ = ["BaseKernelClassifier", "ExampleWeightsClassifier"]

#: Named kernels whose Gram matrices are PSD for every valid parameter value.
_ALWAYS_PSD = ("linear", "rbf", "exponential")


def check_kernel(value, name="kernel"):
    """Return ``value`` if it names a kernel of :data:`ksvm.kernels.KERNELS`, is
    'precomputed', or is a callable."""
    if callable(value) or (isinstance(value, str) and (value in KERNELS or value == "precomputed")):
        return value
    names = ", ".join(repr(k) for k in KERNELS)
    raise ValueError(f"{name} must be one of {names}, 'precomputed' or a callable, got {value!r}.")


class BaseKernelClassifier(ClassifierMixin, BaseEstimator):
    """Base class for the two-class kernel classifiers of ``ksvm``.

    Subclasses define a keyword-only ``__init__`` that stores the
    hyper-parameters (at least ``kernel``, ``gamma``, ``degree``, ``coef0``),
    extend the table ``_parameters`` with their own, and implement ``fit``:
    validate the table, build the Gram matrix with :meth:`_fit_gram`, solve,
    and record the solution with :meth:`_set_solution`.

    With ``kernel='precomputed'``, ``fit`` takes the square training Gram
    matrix and ``predict`` the ``(n_test, n_train)`` block of kernel values
    between test and training points.
    """

    #: name -> validator ``(value, name) -> value``; every ``__init__`` argument has one.
    _parameters = {
        "kernel": check_kernel,
        "gamma": check_gamma,
        "degree": lambda value, name: check_degree(value, name),
        "coef0": check_finite_real,
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.classifier_tags.multi_class = False
        return tags

    # --- fitting -----------------------------------------------------------------

    def _validate_parameters(self):
        """Every hyper-parameter through its validator, before any work.

        Returns
        -------
        params : dict
            The validated values by name (``None`` kept where it means a default).
        """
        return {name: check(getattr(self, name), name) for name, check in self._parameters.items()}

    def _kernel_function(self):
        return make_kernel(self.kernel, gamma=self._gamma, degree=self.degree, coef0=self.coef0)

    def _fit_gram(self, X, y):
        """Validate the training data; return (K_train, y_pm)."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=1)
        y_pm, self.classes_ = encode_binary_labels(y)
        if self.kernel == "precomputed":
            K = check_gram(X, name="X (a precomputed kernel)")
            self._gamma = None
            self.X_fit_ = None
            return K, y_pm
        points = self._kernel_points(X)
        self._gamma = resolve_gamma(self.gamma, self._gamma_data(X, points)) if self._uses_gamma() else None
        self.X_fit_ = X
        return self._kernel_function()(points), y_pm

    def _kernel_points(self, X):
        """The points the kernel compares: the rows of ``X``, unless a subclass
        maps them first (the Lagrangian SVM appends a -1 to each)."""
        return X

    def _gamma_data(self, X, points):
        """The data that ``gamma='scale'`` or ``'auto'`` is resolved on: the points the
        kernel compares."""
        return points

    def _uses_gamma(self):
        if callable(self.kernel):
            return False
        return "gamma" in KERNELS.get(self.kernel, (None, ()))[1]

    def _check_kernel_psd(self, K, why):
        """Refuse a Gram matrix that is not PSD (:func:`ksvm.mercer.require_psd`).

        Skipped for the kernels that are PSD by construction: 'linear', 'rbf',
        'exponential' and 'poly' with ``coef0 >= 0``.  'sigmoid', a callable
        and a precomputed matrix are checked; ``why`` says what the solver
        needs a PSD kernel for.
        """
        if self.kernel in _ALWAYS_PSD or (self.kernel == "poly" and self.coef0 >= 0):
            return
        require_psd(K, why)

    def _set_solution(self, weights, intercept, n_iter, converged, *, support=None, coef=None,
                      gather=True):
        """Record the solution in the attributes of the contract.

        Parameters
        ----------
        weights : ndarray of shape (n_train,)
            The coefficient of each training point's kernel column (``lambda_i y_i``
            for an SVM, ``c_i`` for RLSC); points with weight 0 are dropped.
        intercept : float
        n_iter : int
        converged : bool
        support : ndarray of int or None
            The support vectors, if not the nonzero weights; kept as given (a lazy
            array of a Dask fit stays lazy).
        coef : ndarray of shape (n_features,) or None
            ``w`` with the linear kernel, if the solver has it; else
            ``sum_k dual_coef_k x_k``.
        gather : bool, default=True
            Copy ``support_vectors_`` out of ``X_fit_`` now; if False, at its first
            use.  A linear model with ``coef`` predicts without them, and where
            nearly every point is a support vector the copy is a second ``X``.
        """
        self.support_ = np.flatnonzero(weights) if support is None else support
        self.dual_coef_ = weights[self.support_][None, :]
        self.intercept_ = np.array([float(intercept)])
        self.n_iter_ = int(n_iter)
        self.converged_ = bool(converged)
        if self.X_fit_ is None:
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = self.X_fit_[self.support_] if gather else None
        if self.kernel == "linear":
            w = self.dual_coef_[0] @ self.support_vectors_ if coef is None else coef
            self.coef_ = np.asarray(w, dtype=np.float64)[None, :]

    @property
    def support_vectors_(self):
        """``X_fit_[support_]``, copied when first asked for if the fit did not gather it."""
        try:
            rows = self.__dict__["_support_vectors"]
        except KeyError:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute 'support_vectors_'"
            ) from None
        if rows is None:
            rows = self._support_vectors = self.X_fit_[self.support_]
        return rows

    @support_vectors_.setter
    def support_vectors_(self, rows):
        self._support_vectors = rows

    # --- using the fitted model ------------------------------------------------

    def _test_gram(self, X, columns=None):
        """Validate test data; return the Gram block K(X, X_fit_[columns]).

        ``columns`` (indices of training points, e.g. the support vectors)
        limits the work to those columns; None means all of them.
        """
        check_is_fitted(self, "classes_")
        if self.kernel != "precomputed":
            X = validate_data(self, X, dtype=np.float64, reset=False)
            train = self.X_fit_ if columns is None else self.X_fit_[columns]
            return self._kernel_function()(self._kernel_points(X), self._kernel_points(train))
        try:
            K = validate_data(self, X, dtype=np.float64, reset=False)
            return K if columns is None else K[:, columns]
        except ValueError as exc:
            if "features" not in str(exc):
                raise
            raise ValueError(
                f"{exc} With kernel='precomputed', X must hold the kernel values between "
                f"each test point and the training points: one column per training "
                f"sample ({self.n_features_in_})."
            ) from exc

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
        return self._test_gram(X, columns=self.support_) @ self.dual_coef_[0] + self.intercept_[0]

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

    def _set_weights(self, c, b, n_iter=1, converged=True):
        self._set_solution(c, b, n_iter, converged, support=np.arange(len(c)))
