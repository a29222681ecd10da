"""What every kernel classifier of ``ksvm`` shares.

* :func:`make_kernel` turns ``kernel`` (a name or a callable) and the
  hyper-parameters ``gamma``, ``degree`` and ``coef0`` into one Gram function
  ``k(X, Y=None)``;
* :func:`resolve_gamma` turns ``gamma='scale'`` or ``'auto'`` into a number
  from the training data, as scikit-learn's ``SVC`` does;
* :class:`BaseKernelClassifier` validates ``X`` and two-class labels with
  scikit-learn's utilities, maps any two labels onto -1/+1 and back
  (``classes_``), builds the training and test Gram matrices (or checks a
  precomputed one) and predicts from the sign of ``decision_function``.

A new estimator subclasses :class:`BaseKernelClassifier`, declares its
hyper-parameters in ``__init__``, calls :meth:`~BaseKernelClassifier._fit_gram`
in ``fit`` and :meth:`~BaseKernelClassifier._test_gram` in
``decision_function``; :class:`ksvm.KernelMeanClassifier` is the smallest example.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import (
    check_degree,
    check_finite_real,
    check_gram,
    check_positive,
    encode_binary_labels,
)
from .kernels import (
    exponential_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
)
from .mercer import check_mercer

__all__ = ["KERNELS", "make_kernel", "resolve_gamma", "BaseKernelClassifier"]

#: The kernels that can be named by a string, and the hyper-parameters each uses.
KERNELS = {
    "linear": (linear_kernel, ()),
    "poly": (polynomial_kernel, ("degree", "gamma", "coef0")),
    "rbf": (rbf_kernel, ("gamma",)),
    "exponential": (exponential_kernel, ("gamma",)),
    "sigmoid": (sigmoid_kernel, ("gamma", "coef0")),
}

#: Named kernels whose Gram matrices are PSD for every valid parameter value.
_ALWAYS_PSD = ("linear", "rbf", "exponential")


def resolve_gamma(gamma, X):
    """Turn ``gamma`` into a positive number, using the training data if needed.

    Parameters
    ----------
    gamma : {'scale', 'auto'} or float > 0
        ``'scale'`` is ``1 / (n_features * X.var())`` (1.0 if ``X`` is
        constant) and ``'auto'`` is ``1 / n_features``, both as in
        scikit-learn's ``SVC``.
    X : ndarray of shape (n_samples, n_features)
        The validated training data.

    Returns
    -------
    gamma : float

    Raises
    ------
    ValueError
        If ``gamma`` is neither of the two strings nor a finite positive number.

    Examples
    --------
    >>> resolve_gamma("auto", np.zeros((3, 4)))
    0.25
    """
    if isinstance(gamma, str):
        if gamma == "scale":
            var = float(X.var())
            return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        if gamma == "auto":
            return 1.0 / X.shape[1]
        raise ValueError(f"gamma must be 'scale', 'auto' or a positive number, got {gamma!r}.")
    return check_positive(gamma, "gamma")


class _CallableKernel:
    """A user's kernel function, with its output checked on every call."""

    def __init__(self, function):
        self.function = function

    def __call__(self, X, Y=None):
        Yc = X if Y is None else Y
        K = np.asarray(self.function(X, Yc), dtype=np.float64)
        expected = (X.shape[0], Yc.shape[0])
        if K.shape != expected:
            raise ValueError(
                f"The kernel function returned an array of shape {K.shape}; a Gram "
                f"block of shape {expected} (rows of X by rows of Y) is needed."
            )
        if not np.all(np.isfinite(K)):
            raise ValueError("The kernel function returned NaN or infinite values.")
        return K


def make_kernel(kernel, *, gamma=1.0, degree=3, coef0=1.0):
    """Return the Gram function ``k(X, Y=None)`` that ``kernel`` names.

    Parameters
    ----------
    kernel : {'linear', 'poly', 'rbf', 'exponential', 'sigmoid'} or callable
        A name from :data:`KERNELS`, or a function ``f(X, Y)`` returning the
        Gram block of shape ``(len(X), len(Y))``.  ('precomputed' has no
        function: estimators handle it themselves.)
    gamma : float > 0, default=1.0
        Used by 'poly', 'rbf', 'exponential' and 'sigmoid'.  Resolve
        'scale'/'auto' first with :func:`resolve_gamma`.
    degree : int >= 1, default=3
        Used by 'poly'.
    coef0 : float, default=1.0
        Used by 'poly' and 'sigmoid'.

    Returns
    -------
    k : callable
        ``k(X, Y=None)`` returning ``K[i, j] = k(X[i], Y[j])``.

    Raises
    ------
    ValueError
        If ``kernel`` is unknown, or a parameter the kernel uses is invalid.
        Parameters the kernel does not use are not checked.

    Examples
    --------
    >>> k = make_kernel("poly", degree=2, gamma=1.0, coef0=1.0)
    >>> k(np.array([[1.0, 2.0]]))
    array([[36.]])
    """
    if callable(kernel):
        return _CallableKernel(kernel)
    if not isinstance(kernel, str) or kernel not in KERNELS:
        names = ", ".join(repr(name) for name in KERNELS)
        raise ValueError(
            f"kernel must be one of {names}, 'precomputed' or a callable, got {kernel!r}."
        )
    function, uses = KERNELS[kernel]
    checks = {
        "gamma": lambda: check_positive(gamma, "gamma"),
        "degree": lambda: check_degree(degree),
        "coef0": lambda: check_finite_real(coef0, "coef0"),
    }
    params = {name: checks[name]() for name in uses}

    def k(X, Y=None):
        return function(X, Y, **params)

    k.__name__ = f"{function.__name__}({', '.join(f'{p}={v!r}' for p, v in params.items())})"
    return k


class BaseKernelClassifier(ClassifierMixin, BaseEstimator):
    """Base class for the two-class kernel classifiers of ``ksvm``.

    Subclasses define ``__init__`` with (at least) the hyper-parameters
    ``kernel``, ``gamma``, ``degree`` and ``coef0``, and implement ``fit`` and
    ``decision_function``.  This class supplies:

    * ``_fit_gram(X, y)``: validate, set ``classes_``, ``n_features_in_``,
      ``X_fit_`` and ``_gamma``, and return the training Gram matrix and the
      labels as -1/+1;
    * ``_test_gram(X)``: check the estimator is fitted, validate ``X`` and
      return the Gram block between ``X`` and the training data;
    * ``predict``: ``classes_[1]`` where ``decision_function > 0``, else
      ``classes_[0]``.

    With ``kernel='precomputed'``, ``fit`` takes the square training Gram
    matrix and ``predict`` the ``(n_test, n_train)`` block of kernel values
    between test and training points.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.classifier_tags.multi_class = False
        return tags

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

    def _require_psd(self, K, why):
        """Refuse a Gram matrix that is clearly not a valid kernel's.

        PSD up to single-precision rounding is accepted (a Gram matrix may have
        been computed in float32); ``why`` says what the solver needs it for.
        """
        report = check_mercer(K, eps=np.finfo(np.float32).eps)
        if not report.is_psd:
            raise ValueError(
                "The kernel matrix fails Mercer's condition: it is not symmetric positive "
                f"semi-definite ({report}); {why} Check the kernel function or the "
                "precomputed matrix."
            )

    def _check_kernel_psd(self, K, why):
        """:meth:`_require_psd`, skipped for the named kernels that are PSD by construction.

        Those are 'linear', 'rbf', 'exponential' and 'poly' with ``coef0 >= 0``;
        'sigmoid', a callable and a precomputed matrix are checked.
        """
        if self.kernel in _ALWAYS_PSD or (self.kernel == "poly" and self.coef0 >= 0):
            return
        self._require_psd(K, why)

    def _uses_gamma(self):
        if callable(self.kernel):
            return False
        return "gamma" in KERNELS.get(self.kernel, (None, ()))[1]

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
