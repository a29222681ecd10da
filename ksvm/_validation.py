"""Input validation shared by every function and estimator of ``ksvm``.

Everything here is built on scikit-learn's own validation utilities
(:func:`sklearn.utils.check_array`, :func:`sklearn.utils.multiclass.type_of_target`,
with the "Unknown label type" error of
:func:`sklearn.utils.multiclass.check_classification_targets`) so that the
error messages a reader sees are the familiar ones.  What scikit-learn does
not check for us (positive kernel parameters, integer degrees, a precomputed
Gram matrix of the right shape, exactly two classes) is checked here, once,
with a :class:`ValueError` that says what was wrong and what to do.

Every validator of a single value takes ``(value, name)`` (``name`` is what the
error message calls it) and returns the value to use: the same functions check an
estimator's table of hyper-parameters (:mod:`ksvm.base`) and the arguments of
the public functions and transformers (:func:`validate_parameters`).

Nothing in this module modifies its inputs: arrays are converted to float64
(a copy only when the dtype or layout requires one) and returned.
"""

import numbers

import numpy as np
from sklearn.utils import check_array
from sklearn.utils.multiclass import type_of_target

__all__ = [
    "check_C",
    "check_bool",
    "check_degree",
    "check_finite_real",
    "check_gamma",
    "check_gram",
    "check_gram_labels",
    "check_integer",
    "check_matrix",
    "check_matrix_labels",
    "check_nonnegative_integer",
    "check_pair",
    "check_positive",
    "check_positive_integer",
    "check_unit_interval",
    "encode_binary_labels",
    "one_of",
    "optional",
    "validate_parameters",
]


def check_matrix(X, name="X"):
    """Return ``X`` as a finite, non-empty, two-dimensional float64 array.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.  Lists, tuples and arrays of any real dtype are accepted.
    name : str, default="X"
        The name used in error messages.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
        The validated data (the input itself if it was already a float64
        array; never modified).

    Raises
    ------
    ValueError
        If ``X`` is not two-dimensional, is empty, holds NaN or infinity, or
        holds non-numeric or complex values.

    Examples
    --------
    >>> check_matrix([[1, 2], [3, 4]]).dtype
    dtype('float64')
    >>> check_matrix([1, 2])
    Traceback (most recent call last):
    ...
    ValueError: Expected 2D array, got 1D array instead...
    """
    try:
        return check_array(
            X,
            dtype=np.float64,
            ensure_2d=True,
            ensure_all_finite=True,
            ensure_min_samples=1,
            ensure_min_features=1,
            input_name=name,
        )
    except TypeError as exc:  # e.g. a dict or another object numpy cannot read
        raise ValueError(f"{name} must be a real numeric 2-D array-like: {exc}") from exc


def check_pair(X, Y=None, names=("X", "Y")):
    """Validate a pair of data matrices that a kernel compares row by row.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features) or None
        If None, ``Y`` is ``X`` (the square Gram matrix of ``X``).
    names : tuple of str
        Names used in error messages.

    Returns
    -------
    X, Y : ndarray
        Validated float64 arrays; ``Y is X`` when ``Y`` was None.

    Raises
    ------
    ValueError
        If either fails :func:`check_matrix`, or the numbers of columns differ.
    """
    X = check_matrix(X, names[0])
    if Y is None:
        return X, X
    Y = check_matrix(Y, names[1])
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"{names[0]} has {X.shape[1]} features per row but {names[1]} has "
            f"{Y.shape[1]}; a kernel compares rows of the same length."
        )
    return X, Y


def check_finite_real(value, name):
    """Return ``value`` as a float after checking that it is a finite real number.

    Raises
    ------
    ValueError
        If ``value`` is not a real number (booleans included) or is not finite.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}.")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}.")
    return value


def check_positive(value, name):
    """Return ``value`` as a float after checking that it is finite and > 0.

    Raises
    ------
    ValueError
        If ``value`` is not a real number, is not finite, or is not positive.

    Examples
    --------
    >>> check_positive(0.5, "gamma")
    0.5
    >>> check_positive(0, "gamma")
    Traceback (most recent call last):
    ...
    ValueError: gamma must be > 0, got 0.0.
    """
    value = check_finite_real(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}.")
    return value


def check_C(value, name="C"):
    """Return ``value`` as a float after checking that it is > 0; ``numpy.inf`` is allowed.

    ``C = inf`` stands for the hard margin (no slack) in the SVM solvers.

    Raises
    ------
    ValueError
        If ``value`` is not a real number, is NaN or -inf, or is not positive.

    Examples
    --------
    >>> check_C(np.inf)
    inf
    """
    real = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if real and value == np.inf:
        return float(value)
    return check_positive(value, name)


def check_integer(value, name, minimum=0):
    """Return ``value`` as an int after checking that it is an integer >= ``minimum``.

    Raises
    ------
    ValueError
        If ``value`` is not an integer (booleans and floats such as 2.0 are
        refused) or is smaller than ``minimum``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def check_positive_integer(value, name):
    """Return ``value`` as an int after checking that it is an integer >= 1."""
    return check_integer(value, name, minimum=1)


def check_nonnegative_integer(value, name):
    """Return ``value`` as an int after checking that it is an integer >= 0."""
    return check_integer(value, name, minimum=0)


def check_degree(value, name="degree"):
    """Return ``value`` as an int after checking that it is an integer >= 1.

    Raises
    ------
    ValueError
        If ``value`` is not an integer (a float such as 2.0 is refused, so
        that a fractional power can never slip in) or is smaller than 1.
    """
    return check_integer(value, name, minimum=1)


def check_gram(K, name="K", n_columns=None):
    """Validate a precomputed kernel (Gram) matrix.

    Parameters
    ----------
    K : array-like of shape (n_rows, n_columns)
        Kernel values between the rows of two data sets.
    name : str
        The name used in error messages.
    n_columns : int or None
        If given, the number of columns ``K`` must have (the number of
        training samples, when ``K`` holds test-versus-training values).
        If None, ``K`` must be square.

    Returns
    -------
    K : ndarray, dtype float64

    Raises
    ------
    ValueError
        If ``K`` fails :func:`check_matrix`, is not square when it must be,
        or has the wrong number of columns.
    """
    K = check_matrix(K, name)
    if n_columns is None:
        if K.shape[0] != K.shape[1]:
            raise ValueError(
                f"A precomputed kernel matrix {name} must be square (n_samples, "
                f"n_samples), got shape {K.shape}."
            )
    elif K.shape[1] != n_columns:
        raise ValueError(
            f"A precomputed kernel matrix {name} must have one column per training "
            f"sample ({n_columns}), got shape {K.shape}."
        )
    return K


def check_matrix_labels(X, y, names=("X", "y")):
    """Validate a data matrix and its two-class labels together.

    Returns
    -------
    X : ndarray of shape (n, n_features)
        From :func:`check_matrix`.
    y_pm : ndarray of shape (n,)
        The labels as -1/+1, from :func:`encode_binary_labels`.

    Raises
    ------
    ValueError
        As the two functions, and if ``y`` does not have one label per row of ``X``.
    """
    X = check_matrix(X, names[0])
    return X, _labels_for_rows(y, X.shape[0], f"{names[0]} has {X.shape[0]} rows", names[1])


def check_gram_labels(K, y, names=("K", "y")):
    """Validate a square Gram matrix and its two-class labels together.

    Returns
    -------
    K : ndarray of shape (n, n)
        From :func:`check_gram`.
    y_pm : ndarray of shape (n,)
        The labels as -1/+1, from :func:`encode_binary_labels`.

    Raises
    ------
    ValueError
        As the two functions, and if ``y`` does not have one label per row of ``K``.
    """
    K = check_gram(K, name=names[0])
    n = K.shape[0]
    return K, _labels_for_rows(y, n, f"{names[0]} is {n} x {n}", names[1])


def _labels_for_rows(y, n, what, name):
    y_pm, _ = encode_binary_labels(y)
    if y_pm.shape[0] != n:
        raise ValueError(f"{what} but {name} has {y_pm.shape[0]} labels.")
    return y_pm


#: The target types of scikit-learn's check_classification_targets.
_CLASSIFICATION_TARGETS = (
    "binary",
    "multiclass",
    "multiclass-multioutput",
    "multilabel-indicator",
    "multilabel-sequences",
)


def encode_binary_labels(y):
    """Map any two class labels onto -1 and +1.

    The first class of ``np.unique(y)`` (the smaller one in sort order)
    becomes -1, the second +1, as in scikit-learn's binary classifiers, so
    that ``classes_[1]`` is the "positive" class of ``decision_function``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels of any type that scikit-learn accepts for classification.

    Returns
    -------
    y_pm : ndarray of shape (n_samples,), dtype float64
        The labels as -1.0 and +1.0.
    classes : ndarray of shape (2,)
        The two original labels; ``classes[(y_pm > 0).astype(int)]`` gives ``y``.

    Raises
    ------
    ValueError
        If ``y`` is continuous, multi-output, or does not hold exactly two classes
        (with more than two, the message names scikit-learn's ``OneVsOneClassifier``
        and ``OneVsRestClassifier``, which reduce them to two-class problems).

    Examples
    --------
    >>> y_pm, classes = encode_binary_labels(["spam", "ham", "spam"])
    >>> y_pm
    array([ 1., -1.,  1.])
    >>> classes
    array(['ham', 'spam'], dtype='<U4')
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a one-dimensional array of class labels, got shape {y.shape}.")
    if y.size == 0:
        raise ValueError("y is empty; at least one sample of each of two classes is needed.")
    if y.dtype.kind in "biu":
        # Integers or booleans: type_of_target would find 'binary' for at most two values
        # and 'multiclass' for more, after checks that such an array always passes (a
        # tenth of a millisecond; np.unique's sort, another, is not needed for two).
        low, high = y.min(), y.max()
        positive = y == high
        if low != high and np.all(positive | (y == low)):
            return np.where(positive, 1.0, -1.0), np.array([low, high], dtype=y.dtype)
        classes, y_index = np.unique(y, return_inverse=True)
        y_type = "binary" if classes.size <= 2 else "multiclass"
    else:
        # What check_classification_targets tests, from one type_of_target (each call
        # costs a tenth of a millisecond or more, as much as the rest of a small fit's
        # checks).
        y_type = type_of_target(y, input_name="y")
        if y_type not in _CLASSIFICATION_TARGETS:
            raise ValueError(
                f"Unknown label type: {y_type}. A classifier needs discrete class labels, "
                "not a regression target with continuous values."
            )
        classes, y_index = np.unique(y, return_inverse=True)
    shown = f"{classes[:5].tolist()}{'...' if classes.size > 5 else ''}"
    if classes.size < 2:
        raise ValueError(
            f"This is a two-class method: y must hold exactly two classes, got 1 class ({shown})."
        )
    if classes.size > 2 or y_type != "binary":
        raise ValueError(
            "Only binary classification is supported: y must hold exactly two classes, "
            f"got {classes.size} classes ({shown}); the type of the target is {y_type}. "
            "For more than two classes, wrap the estimator in "
            "sklearn.multiclass.OneVsOneClassifier or OneVsRestClassifier."
        )
    return np.where(y_index == 1, 1.0, -1.0), classes


# ----------------------------------------------------------------------------
# Validators for the estimators' tables of hyper-parameters (see ksvm.base):
# each takes ``(value, name)`` and returns the value to use or raises ValueError.
# ----------------------------------------------------------------------------


def optional(check):
    """``check``, or None passed through: for a parameter whose None means "the default".

    Examples
    --------
    >>> optional(check_positive)(None, "tol") is None, optional(check_positive)(2, "tol")
    (True, 2.0)
    """

    def check_or_none(value, name):
        return None if value is None else check(value, name)

    return check_or_none


def one_of(*options):
    """A validator that accepts exactly the given strings.

    Examples
    --------
    >>> one_of("direct", "cg")("qr", "solver")
    Traceback (most recent call last):
    ...
    ValueError: solver must be one of 'direct', 'cg', got 'qr'.
    """

    def check_option(value, name):
        if not (isinstance(value, str) and value in options):
            shown = ", ".join(repr(option) for option in options)
            raise ValueError(f"{name} must be one of {shown}, got {value!r}.")
        return value

    return check_option


def check_bool(value, name):
    """Return ``value`` if it is a bool (``True``, ``False`` or a numpy bool)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}.")
    return bool(value)


def check_unit_interval(value, name):
    """Return ``value`` as a float after checking that it lies in [0, 1]."""
    value = check_finite_real(value, name)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}.")
    return value


def check_gamma(value, name="gamma"):
    """Return ``'scale'``, ``'auto'`` or a finite number > 0 (a kernel's width)."""
    if isinstance(value, str):
        if value in ("scale", "auto"):
            return value
        raise ValueError(f"{name} must be 'scale', 'auto' or a positive number, got {value!r}.")
    return check_positive(value, name)


def validate_parameters(table, values):
    """Each value through its validator: ``{name: table[name](values[name], name)}``.

    The one loop that checks an estimator's hyper-parameters (``values`` its
    attributes) and a function's arguments alike.

    Examples
    --------
    >>> validate_parameters({"tol": check_positive, "max_iter": check_positive_integer},
    ...                     {"tol": 1e-3, "max_iter": 10})
    {'tol': 0.001, 'max_iter': 10}
    >>> validate_parameters({"tol": check_positive}, {"tol": -1})
    Traceback (most recent call last):
    ...
    ValueError: tol must be > 0, got -1.0.
    """
    return {name: check(values[name], name) for name, check in table.items()}
