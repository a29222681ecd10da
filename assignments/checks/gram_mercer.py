"""The checks of assignment 1, Gram matrices and Mercer's condition."""

import numpy as np

from assignments.checks import call, check, close, relative_error, typename
from ksvm.kernels import linear_kernel, polynomial_kernel, rbf_kernel, squared_distances
from ksvm.mercer import check_mercer

ASSIGNMENT = "01_gram_mercer"


def check_block(G, n_x, n_y, what):
    """G must be a 2-D array of shape (n_x, n_y), not its transpose."""
    G = np.asarray(G, dtype=float)
    if G.shape == (n_y, n_x) and n_x != n_y:
        raise AssertionError(
            f"{what}: wrong shape {G.shape}, expected {(n_x, n_y)}: G[i, j] must be "
            "k(X[i], Y[j]), one row per row of X; you returned the transpose")
    if G.shape != (n_x, n_y):
        raise AssertionError(f"{what}: wrong shape {G.shape}, expected {(n_x, n_y)}")
    return G


def diagnose(G, expected, hints, what, reference, where):
    """Fail with the hint of the first mistake in ``hints`` (pairs of wrong answer, hint) that G
    matches, else with how far G is from ``expected``."""
    for wrong, hint in hints:
        if close(G, wrong):
            raise AssertionError(f"{what}: {hint}")
    name = what.split(" ")[0]
    raise AssertionError(f"{name} differs from {reference} by {relative_error(G, expected):.2e} ({where})")


@check(1, "gaussian_gram against ksvm.kernels.rbf_kernel", "gaussian_gram")
def check_1(rng):
    for n_x, n_y, d in [(5, 3, 2), (1, 4, 3), (6, 1, 1), (7, 7, 5), (30, 20, 4)]:
        shift = rng.normal(scale=5.0, size=d)  # data away from the origin
        X = rng.normal(size=(n_x, d)) + shift
        Y = rng.normal(size=(n_y, d)) + shift
        gamma = float(rng.uniform(0.1, 2.0))
        G = check_block((yield call(X, Y, gamma)).result, n_x, n_y, "gaussian_gram(X, Y, gamma)")
        expected = rbf_kernel(X, Y, gamma=gamma)
        if close(G, expected):
            continue
        D2 = squared_distances(X, Y)
        hints = [
            (np.exp(-gamma * np.sqrt(D2)), "you used the distance ||x - y||; the Gaussian kernel uses its square"),
            (np.exp(-D2 / gamma), "gamma multiplies the squared distance: exp(-gamma ||x - y||^2), not exp(-||x - y||^2 / gamma)"),
            (np.exp(-D2 / (2 * gamma**2)), "this is the width form exp(-||x - y||^2 / (2 sigma^2)) with sigma = gamma; here gamma multiplies"),
            (np.exp(gamma * D2), "the exponent must be negative: exp(-gamma ||x - y||^2)"),
            (np.exp(-gamma * X @ Y.T), "the exponent needs the squared distance ||x||^2 + ||y||^2 - 2 x'y, not only x'y"),
        ]
        diagnose(G, expected, hints, "gaussian_gram", "ksvm.kernels.rbf_kernel",
                 f"n_X={n_x}, n_Y={n_y}, d={d}, gamma={gamma:.3f}")

    # The square Gram matrix of X with itself: symmetric with ones on the diagonal.
    X = rng.normal(size=(6, 3))
    G = check_block((yield call(X, X, 0.7)).result, 6, 6, "gaussian_gram(X, X, gamma)")
    if not np.allclose(np.diag(G), 1.0, rtol=0, atol=1e-12):
        raise AssertionError(f"gaussian_gram(X, X, gamma) must have k(x, x) = 1 on its diagonal, got {np.round(np.diag(G), 6)}")
    if not np.allclose(G, G.T, rtol=0, atol=1e-12):
        raise AssertionError("gaussian_gram(X, X, gamma) is not symmetric")


@check(2, "polynomial_gram against ksvm.kernels.polynomial_kernel", "polynomial_gram")
def check_2(rng):
    for n_x, n_y, d, degree, c in [(5, 3, 2, 2, 1.0), (4, 4, 3, 3, 0.5), (1, 6, 2, 1, 2.0),
                                   (6, 1, 1, 4, 0.0), (25, 20, 5, 3, float(rng.uniform(0.5, 2.0)))]:
        X = rng.normal(scale=0.7, size=(n_x, d))
        Y = rng.normal(scale=0.7, size=(n_y, d))
        G = check_block((yield call(X, Y, degree, c)).result, n_x, n_y,
                        f"polynomial_gram(X, Y, degree={degree}, c={c:g})")
        expected = polynomial_kernel(X, Y, degree=degree, gamma=1.0, coef0=c)
        if close(G, expected):
            continue
        P = X @ Y.T
        hints = [
            (P**degree, "c is missing: the kernel is (x'y + c)^degree"),
            (P**degree + c, "c goes inside the power: (x'y + c)^degree, not (x'y)^degree + c"),
            (P + c, "the power is missing: (x'y + c)^degree"),
            (c * P**degree, "c is added to x'y, not multiplied: (x'y + c)^degree"),
        ]
        if n_x == n_y:
            hints.append((np.linalg.matrix_power(P + c, degree),
                          "you took the matrix power; the kernel raises every entry to the power: use ** on the array"))
        diagnose(G, expected, hints, f"polynomial_gram (degree={degree}, c={c:g})", "ksvm.kernels.polynomial_kernel",
                 f"n_X={n_x}, n_Y={n_y}, d={d}, degree={degree}, c={c:g}")


def random_orthogonal(rng, n):
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return Q


def with_eigenvalues(rng, values):
    Q = random_orthogonal(rng, len(values))
    K = (Q * values) @ Q.T
    return (K + K.T) / 2.0


def expect(K, answer, why, tol=1e-8):
    """is_mercer(K, tol) must be ``answer``."""
    K = np.array(K, dtype=float)
    got = (yield call(K, tol)).result
    if not isinstance(got, (bool, np.bool_)):
        raise AssertionError(f"is_mercer must return True or False, got {got!r} of type {typename(got)}")
    scale = max(1.0, float(np.abs(K).max()))
    reference = check_mercer(K, tol=tol * scale).is_psd
    assert reference == answer, "the check itself is inconsistent with ksvm.check_mercer"
    if bool(got) != answer:
        raise AssertionError(f"is_mercer returned {bool(got)} for {why}")


@check(3, "is_mercer against ksvm.check_mercer", "is_mercer")
def check_3(rng):
    n = int(rng.integers(5, 12))
    X = rng.normal(size=(n, 3))
    yield from expect(rbf_kernel(X, gamma=0.5), True, "a Gaussian Gram matrix (symmetric PSD)")
    yield from expect(polynomial_kernel(X, degree=3, coef0=1.0), True,
                      "a polynomial Gram matrix (x'z + 1)^3 (symmetric PSD)")
    K = linear_kernel(rng.normal(size=(n, 2)))
    yield from expect(
        K, True,
        f"K = XX' with {n} points in 2 dimensions: it is PSD of rank 2, and its {n - 2} zero eigenvalues "
        f"come out of eigvalsh as tiny numbers such as {np.linalg.eigvalsh(K)[0]:.1e}, possibly negative: "
        "compare the smallest eigenvalue with -tol * scale, not with 0")
    E = rng.normal(size=(n, n))
    K_asym = rbf_kernel(X, gamma=0.5) + 1e-3 * (E - E.T)
    yield from expect(
        K_asym, False,
        "a matrix whose symmetric part is PSD but which is not symmetric (max |K_ij - K_ji| about 1e-3): "
        "test the symmetry first, eigvalsh reads only one triangle")
    yield from expect(
        rbf_kernel(X, gamma=0.5) + 1e-12 * (E - E.T), True,
        "a Gaussian Gram matrix with an asymmetry of 1e-12, below tol: compare |K_ij - K_ji| with tol * scale, not with 0")
    values = rng.uniform(0.5, 3.0, size=n)
    values[0] = -0.5
    yield from expect(with_eigenvalues(rng, values), False, "a symmetric matrix with the eigenvalue -0.5")
    yield from expect(np.array([[0.0, 1.0], [1.0, 0.0]]), False, "[[0, 1], [1, 0]], whose eigenvalues are -1 and 1")
    yield from expect(np.array([[-2.0]]), False, "the 1 x 1 matrix [[-2]]")
    yield from expect(np.array([[3.0]]), True, "the 1 x 1 matrix [[3]]")

    # The tolerance is relative to the size of the entries.
    values = 100.0 * rng.uniform(0.5, 1.0, size=n)
    values[0] = -2.5e-7  # within tol * scale, since scale >= 50: PSD up to rounding
    K = with_eigenvalues(rng, values)
    yield from expect(
        K, True,
        f"a matrix with max |K_ij| = {np.abs(K).max():.0f} and smallest eigenvalue -2.5e-7 "
        f"with tol = 1e-8: the bound is -tol * scale = {-1e-8 * np.abs(K).max():.1e}, "
        "where scale = max(1, max |K_ij|)")
    values[0] = -1e-3
    yield from expect(with_eigenvalues(rng, values), False, "a matrix with the eigenvalue -1e-3 and tol = 1e-8")

    for shape in [(3, 4), (5,)]:
        outcome = yield call(np.ones(shape), 1e-8)
        outcome.expect_raised("ValueError", f"is_mercer must raise ValueError for an array of shape {shape}: "
                                            "a Gram matrix is square")


CHECKS = [check_1, check_2, check_3]
