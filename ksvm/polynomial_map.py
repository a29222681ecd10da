"""The explicit feature map of the polynomial kernel ``(x'z + coef0)^degree``.

:func:`polynomial_feature_map` writes out the vector ``Phi(x)`` whose inner
products are the kernel's values (:func:`ksvm.kernels.polynomial_kernel` with
``gamma=1``), one coordinate per monomial; :func:`n_polynomial_features` gives its
length, which grows as ``C(n_features + degree, degree)``: the reason the kernel
trick never forms it.

References
----------
Lecture notes, "Non-linear SVMs" (the quadratic feature map).
"""

import itertools
import math

import numpy as np

from ._validation import check_degree, check_finite_real, check_matrix

__all__ = ["n_polynomial_features", "polynomial_feature_map"]


def n_polynomial_features(n_features, degree, coef0=1.0):
    """Length of :func:`polynomial_feature_map` for ``n_features`` inputs.

    With ``coef0 > 0`` every monomial of degree 0 to ``degree`` appears:
    ``C(n_features + degree, degree)`` of them (the lecture's
    ``(d + 2)(d + 1) / 2`` for degree 2).  With ``coef0 = 0`` only those of
    degree exactly ``degree``: ``C(n_features + degree - 1, degree)``.

    Examples
    --------
    >>> n_polynomial_features(100, 2)
    5151
    """
    degree = check_degree(degree)
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)):
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}.")
    if n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}.")
    coef0 = check_finite_real(coef0, "coef0")
    if coef0 == 0:
        return math.comb(int(n_features) + degree - 1, degree)
    return math.comb(int(n_features) + degree, degree)


def polynomial_feature_map(X, degree, coef0=1.0, return_powers=False):
    """Explicit feature map ``Phi`` with ``Phi(x)'Phi(z) = (x'z + coef0)^degree``.

    Expanding the power by the multinomial theorem,

    .. math::

        (x'z + c)^p = \\sum_{k_0 + k_1 + \\dots + k_d = p}
            \\frac{p!}{k_0!\\,k_1!\\cdots k_d!}\\, c^{k_0}
            \\prod_{i=1}^d (x_i z_i)^{k_i},

    so ``Phi`` has one coordinate per monomial ``x_1^{k_1} ... x_d^{k_d}`` of
    total degree ``k_1 + ... + k_d <= p``, weighted by the square root of its
    multinomial coefficient times ``c^{k_0}``.  For degree 2 and ``c = 1``
    this is the lecture's quadratic map ``(1, sqrt(2) x_i, x_i^2,
    sqrt(2) x_i x_j)``.

    Monomials are ordered by total degree, then lexicographically in their
    indices.  Each degree block is built from the previous one by one
    multiplication per coordinate, so the work is proportional to the output
    size.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    degree : int >= 1
    coef0 : float >= 0, default=1.0
        With ``coef0 = 0`` the monomials of lower degree have weight zero and
        are left out.
    return_powers : bool, default=False
        Also return the exponents of each monomial.

    Returns
    -------
    Phi : ndarray of shape (n_samples, n_polynomial_features(n_features, degree, coef0))
    powers : ndarray of shape (n_output_features, n_features), dtype int
        Only if ``return_powers``: row ``j`` holds the exponents ``k_1..k_d``
        of feature ``j``.

    Raises
    ------
    ValueError
        On invalid data, ``degree`` not an integer >= 1, or ``coef0 < 0``
        (the weights would be square roots of negative numbers).

    Examples
    --------
    >>> Phi = polynomial_feature_map([[1.0, 2.0]], degree=2)
    >>> Phi.round(4)
    array([[1.    , 1.4142, 2.8284, 1.    , 2.8284, 4.    ]])
    >>> float(Phi[0] @ Phi[0])  # (x'x + 1)^2 = (1 + 4 + 1)^2
    36.0
    """
    X = check_matrix(X)
    degree = check_degree(degree)
    coef0 = check_finite_real(coef0, "coef0")
    if coef0 < 0:
        raise ValueError(
            f"coef0 must be >= 0 for a real feature map, got {coef0!r}; "
            "(x'z + coef0)^degree with coef0 < 0 has no real polynomial feature map."
        )
    n, d = X.shape

    # blocks[j]: monomials of degree j, as (values, first index, multiplicity of
    # the first index, product of the factorials of all exponents).
    ones = np.ones((n, 1))
    block = (ones, np.array([d]), np.array([0]), np.array([1.0]))
    blocks = [block]
    for _ in range(degree):
        values, first, mult, fact = block
        parts = ([], [], [], [])
        for i in range(d):
            # Prepend x_i to every monomial whose smallest index is >= i.  Blocks are
            # sorted by their smallest index, so these form a suffix of the block.
            start = np.searchsorted(first, i)
            same = first[start:] == i
            new_mult = np.where(same, mult[start:] + 1, 1)
            parts[0].append(X[:, i : i + 1] * values[:, start:])
            parts[1].append(np.full(new_mult.shape, i))
            parts[2].append(new_mult)
            parts[3].append(fact[start:] * new_mult)
        block = tuple(np.concatenate(p, axis=-1) for p in parts)
        blocks.append(block)

    columns, weights = [], []
    for j, (values, _, _, fact) in enumerate(blocks):
        k0 = degree - j
        if coef0 == 0 and k0 > 0:
            continue
        # multinomial coefficient p! / (k0! prod k_i!) times coef0^k0
        w = math.factorial(degree) / math.factorial(k0) / fact * coef0**k0
        columns.append(values)
        weights.append(np.sqrt(w))
    Phi = np.concatenate(columns, axis=1) * np.concatenate(weights)[None, :]
    if not return_powers:
        return Phi
    powers = []
    for j in range(degree + 1):
        if coef0 == 0 and j < degree:
            continue
        for combo in itertools.combinations_with_replacement(range(d), j):
            row = np.zeros(d, dtype=int)
            np.add.at(row, list(combo), 1)
            powers.append(row)
    return Phi, np.array(powers, dtype=int).reshape(-1, d)
