"""ksvm.kernels against naive double loops, scikit-learn, and exact hand values."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics import pairwise

from ksvm import kernel_rules as R
from ksvm import kernels as K
from ksvm import polynomial_map as PM
from ksvm.mercer import check_mercer

from .conftest import frozen

# --- naive references: one pair at a time, written from the formulas -------------


def naive_gram(k, X, Y):
    return np.array([[k(x, z) for z in Y] for x in X])


NAIVE = {
    "linear": lambda x, z: sum(a * b for a, b in zip(x, z, strict=True)),
    "poly": lambda x, z, degree=3, gamma=1.0, coef0=1.0: (
        (gamma * float(np.dot(x, z)) + coef0) ** degree
    ),
    "rbf": lambda x, z, gamma: math.exp(
        -gamma * sum((a - b) ** 2 for a, b in zip(x, z, strict=True))
    ),
    "exponential": lambda x, z, gamma: math.exp(
        -gamma * math.sqrt(sum((a - b) ** 2 for a, b in zip(x, z, strict=True)))
    ),
    "sigmoid": lambda x, z, gamma, coef0=1.0: math.tanh(gamma * float(np.dot(x, z)) + coef0),
}

CASES = [
    ("linear", K.linear_kernel, {}),
    ("poly", K.polynomial_kernel, {"degree": 2}),
    ("poly", K.polynomial_kernel, {"degree": 5, "gamma": 0.3, "coef0": 0.5}),
    ("poly", K.polynomial_kernel, {"degree": 3, "gamma": 2.0, "coef0": -1.0}),
    ("rbf", K.rbf_kernel, {"gamma": 0.7}),
    ("exponential", K.exponential_kernel, {"gamma": 0.7}),
    ("sigmoid", K.sigmoid_kernel, {"gamma": 0.2, "coef0": -0.5}),
]


@pytest.mark.parametrize("name, kernel, params", CASES)
def test_kernels_match_naive_double_loop(name, kernel, params, rng):
    X = rng.standard_normal((17, 4))
    Y = rng.standard_normal((9, 4))
    expected = naive_gram(lambda x, z: NAIVE[name](x, z, **params), X, Y)
    assert_allclose(kernel(X, Y, **params), expected, rtol=1e-12, atol=1e-14)
    expected_sq = naive_gram(lambda x, z: NAIVE[name](x, z, **params), X, X)
    assert_allclose(kernel(X, **params), expected_sq, rtol=1e-12, atol=1e-14)


SKLEARN = [
    (K.linear_kernel, pairwise.linear_kernel, {}),
    (K.polynomial_kernel, pairwise.polynomial_kernel, {"degree": 4, "gamma": 0.5, "coef0": 2.0}),
    (K.polynomial_kernel, pairwise.polynomial_kernel, {"degree": 1, "gamma": 1.0, "coef0": 0.0}),
    (K.rbf_kernel, pairwise.rbf_kernel, {"gamma": 0.25}),
    (K.rbf_kernel, pairwise.rbf_kernel, {"gamma": 1 / 6}),  # scikit-learn's default, 1 / n_features
    (K.sigmoid_kernel, pairwise.sigmoid_kernel, {"gamma": 0.1, "coef0": 0.3}),
    (K.sigmoid_kernel, pairwise.sigmoid_kernel, {"gamma": 1 / 6, "coef0": 1.0}),
]


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (K.polynomial_kernel, pairwise.polynomial_kernel),
        (K.rbf_kernel, pairwise.rbf_kernel),
        (K.exponential_kernel, None),
        (K.sigmoid_kernel, pairwise.sigmoid_kernel),
    ],
)
def test_the_kernel_functions_default_to_gamma_one(ours, theirs, rng):
    """One rule (ksvm.kernels): a kernel function has no data to scale by, so its gamma is 1;
    scikit-learn's functions take 1 / n_features instead."""
    X = rng.standard_normal((7, 3))
    assert_array_equal(ours(X), ours(X, gamma=1.0))
    if theirs is not None:
        assert_allclose(
            ours(X),
            theirs(X, gamma=1.0, coef0=1.0)
            if "coef0" in theirs.__code__.co_varnames
            else theirs(X, gamma=1.0),
            rtol=1e-12,
        )
        assert not np.allclose(ours(X), theirs(X))


@pytest.mark.parametrize("ours, theirs, params", SKLEARN)
def test_kernels_match_scikit_learn(ours, theirs, params, rng):
    X = rng.standard_normal((30, 6))
    Y = rng.standard_normal((20, 6))
    assert_allclose(ours(X, Y, **params), theirs(X, Y, **params), rtol=1e-12, atol=1e-14)
    assert_allclose(ours(X, **params), theirs(X, **params), rtol=1e-12, atol=1e-14)


def test_exponential_kernel_is_euclidean_not_sklearn_laplacian(rng):
    X = rng.standard_normal((10, 3))
    Y = rng.standard_normal((8, 3))
    dist = pairwise.euclidean_distances(X, Y)
    assert_allclose(K.exponential_kernel(X, Y, gamma=0.4), np.exp(-0.4 * dist), rtol=1e-12)
    # scikit-learn's laplacian kernel uses the L1 norm: different in 3-D ...
    assert not np.allclose(
        K.exponential_kernel(X, Y, gamma=0.4), pairwise.laplacian_kernel(X, Y, gamma=0.4)
    )
    # ... and the same in 1-D, where the two norms coincide.
    assert_allclose(
        K.exponential_kernel(X[:, :1], Y[:, :1], gamma=0.4),
        pairwise.laplacian_kernel(X[:, :1], Y[:, :1], gamma=0.4),
        rtol=1e-12,
    )


def test_hand_checkable_values():
    x, z = [[1.0, 2.0]], [[3.0, -1.0]]  # x'z = 1, ||x - z||^2 = 13
    assert K.linear_kernel(x, z)[0, 0] == 1.0
    assert K.polynomial_kernel(x, z, degree=2)[0, 0] == 4.0  # (1 + 1)^2
    assert K.polynomial_kernel(x, z, degree=3, gamma=2.0, coef0=0.0)[0, 0] == 8.0
    assert K.rbf_kernel(x, z, gamma=1.0)[0, 0] == pytest.approx(math.exp(-13))
    assert K.exponential_kernel(x, z, gamma=1.0)[0, 0] == pytest.approx(math.exp(-math.sqrt(13)))
    assert K.sigmoid_kernel(x, z, gamma=1.0, coef0=0.0)[0, 0] == pytest.approx(math.tanh(1.0))
    assert_array_equal(K.squared_distances(x, z), [[13.0]])


def test_distances_of_nearby_points_are_accurate():
    """||x||^2 + ||z||^2 - 2x'z cancels for nearby points; the result must not."""
    a = np.array([1000.0, -2000.0, 500.0])
    X = np.vstack([a, a + np.array([1e-06, 0.0, 0.0]), a + np.array([0.0, 3e-06, 4e-06])])
    D2 = K.squared_distances(X)
    naive = np.array([[np.sum((x - z) ** 2) for z in X] for x in X])
    assert_allclose(D2, naive, rtol=1e-6)
    E = K.exponential_kernel(X, gamma=1.0)
    assert_allclose(E, np.exp(-np.sqrt(naive)), rtol=1e-12)
    assert check_mercer(E).is_psd


def test_squared_distances_exact_zero_diagonal_nonnegative_and_symmetric(rng):
    X = 1e8 + rng.standard_normal((300, 3))  # cancellation-prone; several row blocks
    D2 = K.squared_distances(X)
    assert_array_equal(np.diag(D2), 0.0)
    assert np.all(D2 >= 0)
    assert_array_equal(D2, D2.T)
    Z = rng.standard_normal((300, 3))
    assert_array_equal(K.rbf_kernel(Z), K.rbf_kernel(Z).T)
    naive = np.array([[np.sum((a - b) ** 2) for b in Z[:40]] for a in Z])
    assert_allclose(K.squared_distances(Z, Z[:40]), naive, rtol=1e-12, atol=1e-12)


# --- the explicit polynomial feature map --------------------------------------------


@pytest.mark.parametrize("degree", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("coef0", [0.0, 0.5, 1.0, 2.0])
def test_feature_map_reproduces_polynomial_kernel(degree, coef0, rng):
    X = rng.standard_normal((12, 4))
    Y = rng.standard_normal((7, 4))
    Phi_X = PM.polynomial_feature_map(X, degree, coef0)
    Phi_Y = PM.polynomial_feature_map(Y, degree, coef0)
    assert Phi_X.shape == (12, PM.n_polynomial_features(4, degree, coef0))
    expected = K.polynomial_kernel(X, Y, degree=degree, gamma=1.0, coef0=coef0)
    assert_allclose(Phi_X @ Phi_Y.T, expected, rtol=1e-11, atol=1e-11 * np.abs(expected).max())


def test_feature_map_is_the_lecture_quadratic_map():
    x1, x2 = 0.3, -1.7
    Phi, powers = PM.polynomial_feature_map([[x1, x2]], 2, return_powers=True)
    r2 = math.sqrt(2)
    assert_allclose(Phi[0], [1, r2 * x1, r2 * x2, x1**2, r2 * x1 * x2, x2**2], rtol=1e-15)
    assert_array_equal(powers, [[0, 0], [1, 0], [0, 1], [2, 0], [1, 1], [0, 2]])


@pytest.mark.parametrize("d, degree", [(1, 4), (3, 3), (5, 2), (2, 5)])
def test_feature_map_powers_and_weights_from_multinomial_theorem(d, degree, rng):
    """Each coordinate is sqrt(multinomial * c^k0) * prod x_i^k_i, rebuilt here from the powers."""
    coef0 = 1.5
    X = rng.uniform(0.5, 2.0, size=(3, d))
    Phi, powers = PM.polynomial_feature_map(X, degree, coef0, return_powers=True)
    assert len({tuple(p) for p in powers}) == len(powers) == math.comb(d + degree, degree)
    for j, k in enumerate(powers):
        k0 = degree - k.sum()
        weight = math.factorial(degree) / (
            math.factorial(k0) * math.prod(math.factorial(int(v)) for v in k)
        )
        expected = math.sqrt(weight * coef0**k0) * np.prod(X**k, axis=1)
        assert_allclose(Phi[:, j], expected, rtol=1e-13)


def test_feature_count_matches_lecture_formula():
    for d in [1, 2, 10, 100]:
        assert PM.n_polynomial_features(d, 2) == (d + 2) * (d + 1) // 2
    assert PM.n_polynomial_features(3, 2, coef0=0.0) == 6  # x1^2, x2^2, x3^2 and three cross terms


def test_feature_map_without_constant_drops_lower_degrees():
    Phi, powers = PM.polynomial_feature_map([[1.0, 2.0, 3.0]], 2, coef0=0.0, return_powers=True)
    assert np.all(powers.sum(axis=1) == 2)
    assert Phi.shape == (1, 6)


# --- the lecture's four rules ----------------------------------------------------------


def test_combinators_match_their_formulas(rng):
    X = rng.standard_normal((15, 3))
    Y = rng.standard_normal((6, 3))
    k1 = K.rbf_kernel
    k2 = lambda A, B=None: K.polynomial_kernel(A, B, degree=2)  # noqa: E731
    assert_allclose(R.sum_kernel(k1, k2)(X, Y), k1(X, Y) + k2(X, Y), rtol=1e-14)
    assert_allclose(R.scaled_kernel(k2, 2.5)(X, Y), 2.5 * k2(X, Y), rtol=1e-14)
    assert_allclose(R.product_kernel(k1, k2)(X, Y), k1(X, Y) * k2(X, Y), rtol=1e-14)
    expected = naive_gram(
        lambda x, z: k2([x], [z])[0, 0] / math.sqrt(k2([x], [x])[0, 0] * k2([z], [z])[0, 0]), X, Y
    )
    assert_allclose(R.normalized_kernel(k2)(X, Y), expected, rtol=1e-13)
    assert_allclose(np.diag(R.normalized_kernel(k2)(X)), 1.0, rtol=1e-14)


def test_combinators_have_the_feature_maps_of_the_lecture(rng):
    """Rules 1-4 through explicit maps: stacked, scaled, tensor product, normalised."""
    X = rng.standard_normal((8, 2))
    P1 = PM.polynomial_feature_map(X, 2)
    P2 = PM.polynomial_feature_map(X, 3, coef0=0.5)
    k1 = lambda A, B=None: K.polynomial_kernel(A, B, degree=2)  # noqa: E731
    k2 = lambda A, B=None: K.polynomial_kernel(A, B, degree=3, coef0=0.5)  # noqa: E731
    stacked = np.hstack([P1, P2])
    assert_allclose(R.sum_kernel(k1, k2)(X), stacked @ stacked.T, rtol=1e-12)
    assert_allclose(R.scaled_kernel(k1, 4.0)(X), (2 * P1) @ (2 * P1).T, rtol=1e-12)
    tensor = np.einsum("ia,ib->iab", P1, P2).reshape(len(X), -1)
    assert_allclose(R.product_kernel(k1, k2)(X), tensor @ tensor.T, rtol=1e-12)
    unit = P1 / np.linalg.norm(P1, axis=1, keepdims=True)
    assert_allclose(R.normalized_kernel(k1)(X), unit @ unit.T, rtol=1e-12)


def test_combinator_errors():
    with pytest.raises(ValueError, match="alpha must be > 0"):
        R.scaled_kernel(K.linear_kernel, -1.0)
    with pytest.raises(ValueError, match="k1 must be a kernel function"):
        R.sum_kernel(3.0, K.linear_kernel)
    with pytest.raises(ValueError, match=r"k\(x, x\) > 0"):
        R.normalized_kernel(K.linear_kernel)([[0.0, 0.0], [1.0, 1.0]])
    assert (
        repr(R.sum_kernel(K.linear_kernel, K.rbf_kernel)) == "sum_kernel(linear_kernel, rbf_kernel)"
    )


# --- properties -------------------------------------------------------------------------

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
points = arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 4)), elements=finite)
PSD_KERNELS = [
    K.linear_kernel,
    lambda X: K.polynomial_kernel(X, degree=3, gamma=0.1, coef0=1.0),
    lambda X: K.rbf_kernel(X, gamma=0.5),
    lambda X: K.exponential_kernel(X, gamma=0.5),
]


@settings(max_examples=40, deadline=None)
@given(X=points, which=st.integers(0, len(PSD_KERNELS) - 1))
def test_gram_matrices_of_valid_kernels_are_symmetric_psd(X, which):
    G = PSD_KERNELS[which](X)
    assert_array_equal(G, G.T)
    assert check_mercer(G).is_psd


@settings(max_examples=30, deadline=None)
@given(X=points, seed=st.integers(0, 2**32 - 1))
def test_permuting_samples_permutes_the_gram_matrix(X, seed):
    perm = np.random.default_rng(seed).permutation(len(X))
    for kernel in PSD_KERNELS:
        assert_allclose(kernel(X[perm]), kernel(X)[np.ix_(perm, perm)], rtol=1e-12, atol=1e-12)


# --- bad input: every public function, a ValueError that names the problem ----------------

DATA_FUNCTIONS = {
    "linear_kernel": K.linear_kernel,
    "polynomial_kernel": K.polynomial_kernel,
    "rbf_kernel": K.rbf_kernel,
    "exponential_kernel": K.exponential_kernel,
    "sigmoid_kernel": K.sigmoid_kernel,
    "squared_distances": K.squared_distances,
    "polynomial_feature_map": lambda X: PM.polynomial_feature_map(X, 2),
    "sum_kernel": R.sum_kernel(K.linear_kernel, K.rbf_kernel),
    "normalized_kernel": R.normalized_kernel(K.rbf_kernel),
    "make_kernel('rbf')": K.make_kernel("rbf", gamma=0.5),
    "make_kernel('poly')": K.make_kernel("poly", degree=2),
}
BAD_DATA = [
    ([1.0, 2.0], "Expected 2D array"),
    (np.ones((2, 2, 2)), "Found array with dim 3"),
    ([[1.0, np.nan]], "NaN"),
    ([[1.0, np.inf]], "infinity"),
    (np.empty((0, 3)), "0 sample"),
    (np.empty((3, 0)), "0 feature"),
    ([["a", "b"]], "could not convert|numeric"),
    ([[1 + 2j, 0]], "(?i)complex"),
    (np.array([[1 + 2j, 0]]), "(?i)complex"),
    ({"a": 1}, "2-D|2D|array"),
]


@pytest.mark.parametrize("name", DATA_FUNCTIONS)
@pytest.mark.parametrize("bad, message", BAD_DATA)
def test_bad_data_is_rejected(name, bad, message):
    with pytest.raises(ValueError, match=message):
        DATA_FUNCTIONS[name](bad)


@pytest.mark.parametrize("name", [n for n in DATA_FUNCTIONS if n != "polynomial_feature_map"])
def test_feature_mismatch_is_rejected(name):
    with pytest.raises(ValueError, match="3 features per row but Y has 2"):
        DATA_FUNCTIONS[name](np.ones((2, 3)), np.ones((2, 2)))


BAD_PARAMS = [
    (K.rbf_kernel, {"gamma": 0.0}, "gamma must be > 0"),
    (K.rbf_kernel, {"gamma": -1.0}, "gamma must be > 0"),
    (K.exponential_kernel, {"gamma": np.nan}, "gamma must be finite"),
    (K.sigmoid_kernel, {"gamma": "big"}, "gamma must be a real number"),
    (K.sigmoid_kernel, {"coef0": np.inf}, "coef0 must be finite"),
    (K.polynomial_kernel, {"degree": 0}, "degree must be an integer >= 1"),
    (K.polynomial_kernel, {"degree": 2.5}, "degree must be an integer >= 1"),
    (K.polynomial_kernel, {"degree": True}, "degree must be an integer >= 1"),
    (K.polynomial_kernel, {"gamma": -2.0}, "gamma must be > 0"),
    (PM.polynomial_feature_map, {"degree": 0}, "degree must be an integer >= 1"),
    (PM.polynomial_feature_map, {"degree": 2, "coef0": -1.0}, "coef0 must be >= 0"),
]


@pytest.mark.parametrize("function, params, message", BAD_PARAMS)
def test_bad_parameters_are_rejected(function, params, message):
    with pytest.raises(ValueError, match=message):
        function(np.ones((2, 2)), **params)


def test_n_polynomial_features_rejects_bad_sizes():
    with pytest.raises(ValueError, match="n_features must be a positive integer"):
        PM.n_polynomial_features(0, 2)
    with pytest.raises(ValueError, match="degree"):
        PM.n_polynomial_features(3, 0)


@pytest.mark.parametrize("name", DATA_FUNCTIONS)
def test_inputs_are_never_modified(name, rng):
    X = rng.standard_normal((6, 3))
    Y = rng.standard_normal((4, 3))
    X_ro, Y_ro = frozen(X), frozen(Y)
    DATA_FUNCTIONS[name](X_ro)  # a write into a read-only array would raise
    if name != "polynomial_feature_map":
        DATA_FUNCTIONS[name](X_ro, Y_ro)
    assert_array_equal(X_ro, X)
    assert_array_equal(Y_ro, Y)


def test_integer_and_list_inputs_are_accepted():
    assert_allclose(K.linear_kernel([[1, 2]], [[3, 4]]), [[11.0]])
    assert K.rbf_kernel(np.ones((2, 2), dtype=np.float32)).dtype == np.float64


# --- the protocol: k(A, B=None, out=None) for every kernel make_kernel returns ---------------


def _user_kernel(X, Y):  # a user's function: no out, returns a new array
    return (X @ Y.T + 1.0) ** 2


def _user_kernel_with_out(X, Y, out=None):  # a user's function that writes into out
    return np.matmul(X, Y.T, out=out)


PROTOCOL_KERNELS = {
    **{name: K.make_kernel(name, gamma=0.3, degree=2, coef0=0.5) for name in K.KERNELS},
    "callable": K.make_kernel(_user_kernel),
    "callable with out": K.make_kernel(_user_kernel_with_out),
    "sum": K.make_kernel(R.sum_kernel(K.linear_kernel, K.rbf_kernel)),
    "scaled": R.scaled_kernel(K.make_kernel("rbf", gamma=0.3), 2.0),
    "product": R.product_kernel(K.linear_kernel, K.make_kernel("poly")),
    "normalized": R.normalized_kernel(K.make_kernel("poly", degree=2)),
}


@pytest.mark.parametrize("name", PROTOCOL_KERNELS)
def test_every_kernel_honours_out(name, rng):
    k = PROTOCOL_KERNELS[name]
    assert isinstance(k, K.Kernel)
    A, B = rng.normal(size=(7, 3)), rng.normal(size=(11, 3))
    for args, shape in [((A, B), (7, 11)), ((A,), (7, 7)), ((A, A), (7, 7))]:
        expected = k(*args)
        out = np.full(shape, np.nan)
        assert k(*args, out=out) is out
        assert_array_equal(out, expected)
    with pytest.raises(ValueError, match="shape"):
        k(A, B, out=np.empty((7, 10)))


def test_a_user_function_is_wrapped_and_checked(rng):
    A, B = rng.normal(size=(4, 2)), rng.normal(size=(5, 2))
    k = K.make_kernel(_user_kernel)
    assert_array_equal(k(A, B), _user_kernel(A, B))
    assert K.make_kernel(k) is k  # a Kernel is returned as it is
    with pytest.raises(ValueError, match="shape"):
        K.make_kernel(lambda X, Y: X @ X.T)(A, B)
    with pytest.raises(ValueError, match="NaN"):
        K.make_kernel(lambda X, Y: np.full((len(X), len(Y)), np.nan))(A, B)


def _rbf_bound(A, B, gamma):
    """Rounding of rbf_kernel and of the block: a few eps relative to each distance
    (the guard recomputes the cancelling ones) times gamma ||a - b||^2, plus exp's."""
    d2 = K.squared_distances(A, B)
    return np.finfo(float).eps * (8 * gamma * d2 / K._CANCELLATION + 4)


@pytest.mark.parametrize("gamma", [0.01, 1.0, 100.0])
@pytest.mark.parametrize("shift", [0.0, 5.0, 1e4])
def test_rbf_block_is_the_rbf_kernel_to_rounding(gamma, shift):
    X = np.random.default_rng(3).normal(size=(60, 4)) * 0.3 + shift
    X[7] = X[3] + 1e-9  # nearly equal points: the subtraction cancels
    exact = K.rbf_kernel(X, gamma=gamma)
    k = K.RBFBlock(gamma, X)
    rows = np.array([3, 7, 0, 59])
    assert np.all(np.abs(k(X[rows], X) - exact[rows]) <= _rbf_bound(X[rows], X, gamma))
    assert np.abs(k(X[rows], X) - exact[rows]).max() <= 1e-12
    Y = X[10:25]  # other points than X: their extended form is made at the call
    assert np.abs(k(X[:5], Y) - exact[:5, 10:25]).max() <= 1e-12
    assert_array_equal(k(X), exact)  # the square Gram matrix is rbf_kernel's, symmetric
    assert K.make_kernel("rbf", gamma=gamma).__class__ is K.RBFBlock


@pytest.mark.parametrize("shift", [0.0, 1e3, 1e6])
def test_rbf_block_is_exact_on_duplicate_points(shift):
    X = np.random.default_rng(5).normal(size=(30, 3)) + shift
    A = X[[4, 4, 17, 0]]  # copies, not X itself: the rectangular formula
    K_block = K.make_kernel("rbf", gamma=0.7)(A, X)
    assert K_block[0, 4] == K_block[1, 4] == K_block[2, 17] == K_block[3, 0] == 1.0
    assert np.all(K_block <= 1.0) and np.all(K_block >= 0.0)


def test_rbf_block_hand_checkable_and_bad_input():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    Kb = K.RBFBlock(0.5)(X[:2], X)
    assert_allclose(Kb[0], [1.0, np.exp(-0.5), np.exp(-2.0)], rtol=1e-15)
    assert_allclose(Kb[1, 2], np.exp(-2.5), rtol=1e-15)
    assert repr(K.RBFBlock(0.5)) == "rbf_kernel(gamma=0.5)"
    with pytest.raises(ValueError, match="gamma"):
        K.RBFBlock(0.0)
    with pytest.raises(ValueError, match="3 features per row but Y has 2"):
        K.RBFBlock(0.5, X)(np.ones((1, 3)), X)
    k = K.RBFBlock(0.5, X)  # X kept: A is still checked, NaN and infinity refused
    for bad, message in [([[np.nan, 0.0]], "NaN"), (np.array([[np.inf, 0.0]]), "infinity")]:
        with pytest.raises(ValueError, match=message):
            k(np.asarray(bad, dtype=float), X)


@pytest.mark.parametrize("n_columns", [0, 1, 7, 1000, 2**21, 10**9])
@pytest.mark.parametrize("itemsize", [1, 8])
def test_block_rows_is_at_least_one_and_within_the_budget(n_columns, itemsize):
    rows = K.block_rows(n_columns, itemsize)
    assert rows >= 1
    one_row = itemsize * max(n_columns, 1)
    if one_row <= K._BLOCK_BYTES:
        assert rows * one_row <= K._BLOCK_BYTES < (rows + 1) * one_row
    else:
        assert rows == 1


@pytest.mark.parametrize("bad", [-1, 2.5, True, "8"])
def test_block_rows_rejects_bad_sizes(bad):
    with pytest.raises(ValueError, match="n_columns"):
        K.block_rows(bad)
    with pytest.raises(ValueError, match="itemsize"):
        K.block_rows(10, itemsize=0 if bad == -1 else bad)
