"""The lecture's four rules that build new kernels from kernels.

``sum_kernel(k1, k2)``, ``scaled_kernel(k, alpha)``, ``product_kernel(k1, k2)``
and ``normalized_kernel(k)`` take kernels ``k(X, Y=None)`` (those of
:mod:`ksvm.kernels` or a user's functions) and return a new one under the
protocol of :class:`ksvm.kernels.Kernel`, ``k(X, Y=None, out=None)``.  Each
rule keeps the kernel valid: its feature map is built from the maps of its
parts (see each function).

References
----------
Lecture notes, "Non-linear SVMs" (valid-kernel rules).
"""

import numpy as np

from ._validation import check_pair, check_positive
from .kernels import Kernel, _describe, _into

__all__ = ["normalized_kernel", "product_kernel", "scaled_kernel", "sum_kernel"]

# ----------------------------------------------------------------------------


def _check_kernel_callable(k, name):
    if not callable(k):
        raise ValueError(
            f"{name} must be a kernel function k(X, Y=None) returning a Gram block, got {k!r}."
        )


class _CombinedKernel(Kernel):
    """A kernel built from others by one of the lecture's rules (see below)."""

    def __init__(self, description, function):
        self._function = function
        self.__name__ = description

    def __call__(self, X, Y=None, out=None):
        return _into(self._function(X, Y), out)


def sum_kernel(k1, k2):
    """Rule 1: ``k(x, z) = k1(x, z) + k2(x, z)``.

    Its feature map is the two maps stacked, ``Phi = (Phi1, Phi2)``.

    Parameters
    ----------
    k1, k2 : callable
        Kernels with the signature ``k(X, Y=None)``.

    Returns
    -------
    k : callable
        The kernel ``k(X, Y=None)``.

    Raises
    ------
    ValueError
        If ``k1`` or ``k2`` is not callable.

    Examples
    --------
    >>> from ksvm.kernels import linear_kernel
    >>> k = sum_kernel(linear_kernel, linear_kernel)
    >>> k([[1.0, 2.0]])
    array([[10.]])
    """
    _check_kernel_callable(k1, "k1")
    _check_kernel_callable(k2, "k2")
    return _CombinedKernel(
        f"sum_kernel({_describe(k1)}, {_describe(k2)})",
        lambda X, Y: k1(X, Y) + k2(X, Y),
    )


def scaled_kernel(k, alpha):
    """Rule 2: ``k(x, z) = alpha k1(x, z)`` with ``alpha > 0``.

    Its feature map is ``sqrt(alpha) Phi1``.

    Parameters
    ----------
    k : callable
        A kernel ``k(X, Y=None)``.
    alpha : float > 0

    Returns
    -------
    k : callable

    Raises
    ------
    ValueError
        If ``k`` is not callable or ``alpha <= 0``.

    Examples
    --------
    >>> from ksvm.kernels import linear_kernel
    >>> scaled_kernel(linear_kernel, 3.0)([[1.0, 1.0]])
    array([[6.]])
    """
    _check_kernel_callable(k, "k")
    alpha = check_positive(alpha, "alpha")
    return _CombinedKernel(
        f"scaled_kernel({_describe(k)}, {alpha!r})",
        lambda X, Y: alpha * k(X, Y),
    )


def product_kernel(k1, k2):
    """Rule 3: ``k(x, z) = k1(x, z) k2(x, z)`` (element-wise on Gram blocks).

    Its feature map holds all products ``phi1_a(x) phi2_b(x)`` (the tensor
    product of the two maps).

    Parameters
    ----------
    k1, k2 : callable
        Kernels with the signature ``k(X, Y=None)``.

    Returns
    -------
    k : callable

    Raises
    ------
    ValueError
        If ``k1`` or ``k2`` is not callable.

    Examples
    --------
    >>> from ksvm.kernels import linear_kernel
    >>> product_kernel(linear_kernel, linear_kernel)([[1.0, 2.0]])
    array([[25.]])
    """
    _check_kernel_callable(k1, "k1")
    _check_kernel_callable(k2, "k2")
    return _CombinedKernel(
        f"product_kernel({_describe(k1)}, {_describe(k2)})",
        lambda X, Y: k1(X, Y) * k2(X, Y),
    )


def _kernel_diagonal(k, X):
    """The values ``k(x_i, x_i)``, one kernel call per row (never n x n)."""
    return np.array([k(X[i : i + 1])[0, 0] for i in range(X.shape[0])])


def normalized_kernel(k):
    """Rule 4: ``k(x, z) = k1(x, z) / sqrt(k1(x, x) k1(z, z))``.

    Its feature map is ``Phi1(x) / ||Phi1(x)||``, so the new kernel has
    ``k(x, x) = 1``.  (The lecture's slide prints ``k1(x, z)`` twice in the
    denominator; the feature map it gives next shows that ``k1(x, x) k1(z, z)``
    is meant.)

    Parameters
    ----------
    k : callable
        A kernel ``k(X, Y=None)``.

    Returns
    -------
    k : callable

    Raises
    ------
    ValueError
        If ``k`` is not callable, or (when the new kernel is called) if
        ``k1(x, x) <= 0`` for some row, where the normalisation is undefined.

    Examples
    --------
    >>> from ksvm.kernels import linear_kernel
    >>> normalized_kernel(linear_kernel)([[3.0, 4.0]], [[4.0, 3.0]])
    array([[0.96]])
    """
    _check_kernel_callable(k, "k")

    def normalized(X, Y):
        X, Y = check_pair(X, Y)
        same = Y is X
        K = np.array(k(X, None if same else Y), dtype=np.float64)
        dx = _kernel_diagonal(k, X)
        dy = dx if same else _kernel_diagonal(k, Y)
        if np.any(dx <= 0) or np.any(dy <= 0):
            raise ValueError(
                "normalized_kernel needs k(x, x) > 0 for every row; some row has "
                "k(x, x) <= 0 (e.g. a zero row with the linear kernel)."
            )
        K /= np.sqrt(dx)[:, None]
        K /= np.sqrt(dy)[None, :]
        return K

    return _CombinedKernel(f"normalized_kernel({_describe(k)})", normalized)
