"""The checks of assignment 1, Gram matrices and Mercer's condition."""

import numpy as np

from assignments.checks import boolean, call, check, close, finite, in_random_order, relative_error
from ksvm.kernels import linear_kernel, polynomial_kernel, rbf_kernel, squared_distances
from ksvm.mercer import check_mercer

ASSIGNMENT = "01_gram_mercer"


def check_block(G, n_x, n_y, what, function, where):
    """G must be a 2-D array of finite numbers of shape (n_x, n_y), not its transpose."""
    G = finite(G, function, "G", where)
    if G.shape == (n_y, n_x) and n_x != n_y:
        raise AssertionError(
            f"{what}: wrong shape {G.shape}, expected {(n_x, n_y)}: G[i, j] must be "
            "k(X[i], Y[j]), one row per row of X; you returned the transpose"
        )
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
    raise AssertionError(
        f"{name} differs from {reference} by {relative_error(G, expected):.2e} ({where})"
    )


def distinct(rng, low, high, other):
    """An integer in [low, high) other than ``other``."""
    value = int(rng.integers(low, high - 1))
    return value + 1 if value >= other else value


def gaussian_case(X, Y, gamma, itself=False):
    """gaussian_gram(X, Y, gamma) against rbf_kernel, with the hints of the common mistakes."""
    n_x, n_y, d = X.shape[0], Y.shape[0], X.shape[1]
    where = f"n_X={n_x}, n_Y={n_y}, d={d}, gamma={gamma:.3f}" + (", Y = X" if itself else "")
    what = "gaussian_gram(X, X, gamma)" if itself else "gaussian_gram(X, Y, gamma)"

    def judge(outcome):
        G = check_block(outcome.result, n_x, n_y, what, "gaussian_gram", f"({where})")
        expected = rbf_kernel(X, Y, gamma=gamma)
        if close(G, expected):
            return
        if itself:
            # The square Gram matrix of X with itself: symmetric with ones on the diagonal.
            if not np.allclose(np.diag(G), 1.0, rtol=0, atol=1e-12):
                raise AssertionError(
                    f"{what} must have k(x, x) = 1 on its diagonal, got {np.round(np.diag(G), 6)} "
                    f"({where})"
                )
            if not np.allclose(G, G.T, rtol=0, atol=1e-12):
                raise AssertionError(f"{what} is not symmetric ({where})")
        D2 = squared_distances(X, Y)
        hints = [
            (
                np.exp(-gamma * np.sqrt(D2)),
                "you used the distance ||x - y||; the Gaussian kernel uses its square",
            ),
            (
                np.exp(-D2 / gamma),
                "gamma multiplies the squared distance: exp(-gamma ||x - y||^2), "
                "not exp(-||x - y||^2 / gamma)",
            ),
            (
                np.exp(-D2 / (2 * gamma**2)),
                "this is the width form exp(-||x - y||^2 / (2 sigma^2)) with sigma = gamma; here "
                "gamma multiplies",
            ),
            (np.exp(gamma * D2), "the exponent must be negative: exp(-gamma ||x - y||^2)"),
            (
                np.exp(-gamma * X @ Y.T),
                "the exponent needs the squared distance ||x||^2 + ||y||^2 - 2 x'y, not only x'y",
            ),
        ]
        if n_x == n_y and not itself:
            hints.append(
                (
                    expected.T,
                    "G[i, j] must be k(X[i], Y[j]), one row per row of X; you returned the "
                    "transpose",
                )
            )
        diagnose(G, expected, hints, "gaussian_gram", "ksvm.kernels.rbf_kernel", where)

    return call(X, Y, gamma), judge


@check(1, "gaussian_gram against ksvm.kernels.rbf_kernel", "gaussian_gram")
def check_1(rng):
    n_x = int(rng.integers(3, 9))
    n_big = int(rng.integers(20, 41))
    shapes = [
        (n_x, distinct(rng, 2, 9, n_x), int(rng.integers(1, 5))),  # a few points of each
        (1, int(rng.integers(2, 7)), int(rng.integers(1, 5))),  # one row of X
        (int(rng.integers(2, 8)), 1, int(rng.integers(1, 4))),  # one row of Y
        (n_x, n_x, int(rng.integers(2, 6))),  # square, X != Y
        (n_big, distinct(rng, 15, 31, n_big), int(rng.integers(3, 7))),
    ]
    cases = []
    for n_x, n_y, d in shapes:
        shift = rng.normal(scale=5.0, size=d)  # data away from the origin
        X = rng.normal(size=(n_x, d)) + shift
        Y = rng.normal(size=(n_y, d)) + shift
        cases.append(gaussian_case(X, Y, float(rng.uniform(0.1, 2.0))))
    X = rng.normal(size=(int(rng.integers(3, 9)), int(rng.integers(1, 5))))
    cases.append(gaussian_case(X, X, float(rng.uniform(0.1, 2.0)), itself=True))
    yield from in_random_order(rng, cases)


def polynomial_case(X, Y, degree, c):
    """polynomial_gram(X, Y, degree, c) against polynomial_kernel, with the hints of the
    common mistakes."""
    n_x, n_y, d = X.shape[0], Y.shape[0], X.shape[1]
    where = f"n_X={n_x}, n_Y={n_y}, d={d}, degree={degree}, c={c:.3g}"

    def judge(outcome):
        G = check_block(
            outcome.result,
            n_x,
            n_y,
            f"polynomial_gram(X, Y, degree={degree}, c={c:.3g})",
            "polynomial_gram",
            f"({where})",
        )
        expected = polynomial_kernel(X, Y, degree=degree, gamma=1.0, coef0=c)
        if close(G, expected):
            return
        P = X @ Y.T
        hints = [
            (P**degree, "c is missing: the kernel is (x'y + c)^degree"),
            (P**degree + c, "c goes inside the power: (x'y + c)^degree, not (x'y)^degree + c"),
            (P + c, "the power is missing: (x'y + c)^degree"),
            (c * P**degree, "c is added to x'y, not multiplied: (x'y + c)^degree"),
        ]
        if n_x == n_y:
            hints.append(
                (
                    np.linalg.matrix_power(P + c, degree),
                    "you took the matrix power; the kernel raises every entry to the power: use "
                    "** on the array",
                )
            )
            hints.append(
                (
                    expected.T,
                    "G[i, j] must be k(X[i], Y[j]), one row per row of X; you returned the "
                    "transpose",
                )
            )
        diagnose(
            G,
            expected,
            hints,
            f"polynomial_gram (degree={degree}, c={c:.3g})",
            "ksvm.kernels.polynomial_kernel",
            where,
        )

    return call(X, Y, degree, c), judge


@check(2, "polynomial_gram against ksvm.kernels.polynomial_kernel", "polynomial_gram")
def check_2(rng):
    n_x, n_big = int(rng.integers(3, 9)), int(rng.integers(20, 31))
    square = int(rng.integers(3, 8))
    shapes = [
        (
            n_x,
            distinct(rng, 2, 9, n_x),
            int(rng.integers(1, 4)),
            int(rng.integers(2, 4)),
            rng.uniform(0.5, 2.0),
        ),
        (square, square, int(rng.integers(2, 4)), int(rng.integers(2, 5)), rng.uniform(0.3, 1.5)),
        (1, int(rng.integers(3, 8)), int(rng.integers(1, 4)), 1, rng.uniform(0.5, 3.0)),  # degree 1
        (int(rng.integers(3, 8)), 1, int(rng.integers(1, 3)), 4, 0.0),  # c = 0: homogeneous
        (n_big, distinct(rng, 15, 26, n_big), int(rng.integers(4, 7)), 3, rng.uniform(0.5, 2.0)),
    ]
    cases = []
    for n_x, n_y, d, degree, c in shapes:
        X = rng.normal(scale=0.7, size=(n_x, d))
        Y = rng.normal(scale=0.7, size=(n_y, d))
        cases.append(polynomial_case(X, Y, degree, float(c)))
    yield from in_random_order(rng, cases)


def random_orthogonal(rng, n):
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return Q


def with_eigenvalues(rng, values):
    Q = random_orthogonal(rng, len(values))
    K = (Q * values) @ Q.T
    return (K + K.T) / 2.0


def expect(K, tol, answer, why):
    """The case: is_mercer(K, tol) must be ``answer``."""
    K = np.array(K, dtype=float)
    scale = max(1.0, float(np.abs(K).max()))
    if check_mercer(K, tol=tol * scale).is_psd != answer:
        raise RuntimeError(f"the check itself is inconsistent with ksvm.check_mercer for {why}")

    def judge(outcome):
        got = boolean(outcome.result, "is_mercer")
        if got != answer:
            raise AssertionError(f"is_mercer returned {got} for {why} (tol = {tol:.1e})")

    return call(K, tol), judge


def expect_value_error(K, tol):
    """The case: is_mercer must refuse K, which is not a square matrix."""

    def judge(outcome):
        outcome.expect_raised(
            "ValueError",
            f"is_mercer must raise ValueError for an array of shape {K.shape}: "
            "a Gram matrix is square",
        )

    return call(K, tol), judge


def tolerance(rng):
    return float(10 ** rng.uniform(-9, -7))


@check(3, "is_mercer against ksvm.check_mercer", "is_mercer")
def check_3(rng):
    cases = []

    n = int(rng.integers(5, 12))
    X = rng.normal(size=(n, int(rng.integers(1, 5))))
    cases.append(
        expect(
            rbf_kernel(X, gamma=float(rng.uniform(0.1, 2.0))),
            tolerance(rng),
            True,
            f"a Gaussian Gram matrix of {n} points (symmetric PSD)",
        )
    )

    n, degree, coef0 = (
        int(rng.integers(5, 12)),
        int(rng.integers(2, 5)),
        float(rng.uniform(0.5, 2.0)),
    )
    X = rng.normal(scale=0.7, size=(n, int(rng.integers(2, 5))))
    cases.append(
        expect(
            polynomial_kernel(X, degree=degree, coef0=coef0),
            tolerance(rng),
            True,
            f"a polynomial Gram matrix (x'z + {coef0:.2f})^{degree} of {n} points (symmetric PSD)",
        )
    )

    n, rank = int(rng.integers(6, 13)), int(rng.integers(1, 4))
    K = linear_kernel(rng.normal(scale=float(rng.uniform(0.5, 3.0)), size=(n, rank)))
    cases.append(
        expect(
            K,
            tolerance(rng),
            True,
            f"K = XX' with {n} points in {rank} dimension(s): it is PSD of rank {rank}, and its "
            f"{n - rank} zero eigenvalues come out of eigvalsh as tiny numbers such as "
            f"{np.linalg.eigvalsh(K)[0]:.1e}, possibly negative: compare the smallest eigenvalue "
            "with -tol * scale, not with 0",
        )
    )

    n = int(rng.integers(5, 12))
    E = rng.normal(size=(n, n))
    E = (E - E.T) / np.abs(E - E.T).max()  # antisymmetric, max |E_ij| = 1
    size = float(10 ** rng.uniform(-4, -2))
    cases.append(
        expect(
            rbf_kernel(rng.normal(size=(n, 3)), gamma=0.5) + size * E,
            tolerance(rng),
            False,
            "a matrix whose symmetric part is PSD but which is not symmetric (max |K_ij - K_ji| = "
            f"{2 * size:.1e}): test the symmetry first, eigvalsh reads only one triangle",
        )
    )

    n, tol = int(rng.integers(5, 12)), tolerance(rng)
    E = rng.normal(size=(n, n))
    E = (E - E.T) / np.abs(E - E.T).max()
    size = float(rng.uniform(0.01, 0.3)) * tol / 2
    cases.append(
        expect(
            rbf_kernel(rng.normal(size=(n, 3)), gamma=0.5) + size * E,
            tol,
            True,
            f"a Gaussian Gram matrix with an asymmetry max |K_ij - K_ji| = {2 * size:.1e}, below "
            "tol: compare |K_ij - K_ji| with tol * scale, not with 0",
        )
    )

    n, s = int(rng.integers(4, 12)), float(10 ** rng.uniform(-1, 2))
    values = s * rng.uniform(0.5, 3.0, size=n)
    values[rng.integers(n)] = negative = -s * float(rng.uniform(0.05, 1.0))
    cases.append(
        expect(
            with_eigenvalues(rng, values),
            tolerance(rng),
            False,
            f"a symmetric {n} x {n} matrix with the eigenvalue {negative:.3g}",
        )
    )

    a = float(rng.uniform(0.0, 2.0))
    b = float((a + rng.uniform(0.5, 2.0)) * rng.choice([-1.0, 1.0]))
    cases.append(
        expect(
            np.array([[a, b], [b, a]]),
            tolerance(rng),
            False,
            f"[[{a:.3g}, {b:.3g}], [{b:.3g}, {a:.3g}]], whose eigenvalues are {a - abs(b):.3g} and "
            f"{a + abs(b):.3g}: a non-negative diagonal is not enough",
        )
    )

    v = float(rng.uniform(0.1, 5.0))
    cases.append(expect(np.array([[-v]]), tolerance(rng), False, f"the 1 x 1 matrix [[{-v:.3g}]]"))
    v = float(rng.uniform(0.1, 5.0))
    cases.append(expect(np.array([[v]]), tolerance(rng), True, f"the 1 x 1 matrix [[{v:.3g}]]"))

    # The tolerance is relative to the size of the entries: max |K_ij| >= the mean of the
    # eigenvalues (the largest diagonal entry is at least the trace / n), so this eigenvalue is
    # within tol * scale, and larger than tol.
    n, tol = int(rng.integers(5, 12)), tolerance(rng)
    values = float(10 ** rng.uniform(1.5, 3.0)) * rng.uniform(0.5, 1.0, size=n)
    values[rng.integers(n)] = negative = -float(rng.uniform(0.1, 0.8)) * tol * values.mean()
    K = with_eigenvalues(rng, values)
    cases.append(
        expect(
            K,
            tol,
            True,
            f"a matrix with max |K_ij| = {np.abs(K).max():.3g} and smallest eigenvalue "
            f"{negative:.2e}: the bound is -tol * scale = {-tol * np.abs(K).max():.1e}, where "
            "scale = max(1, max |K_ij|)",
        )
    )
    n, tol = int(rng.integers(5, 12)), tolerance(rng)
    s = float(10 ** rng.uniform(0.0, 3.0))
    values = s * rng.uniform(0.5, 1.0, size=n)
    values[rng.integers(n)] = negative = (
        -float(rng.uniform(20.0, 200.0)) * tol * s
    )  # below -tol * scale
    cases.append(
        expect(
            with_eigenvalues(rng, values),
            tol,
            False,
            f"a {n} x {n} matrix with max eigenvalue {values.max():.3g} and the eigenvalue "
            f"{negative:.2e}",
        )
    )

    rows = int(rng.integers(1, 7))
    cases.append(
        expect_value_error(rng.normal(size=(rows, distinct(rng, 1, 8, rows))), tolerance(rng))
    )
    cases.append(expect_value_error(rng.normal(size=int(rng.integers(1, 7))), tolerance(rng)))

    yield from in_random_order(rng, cases)


CHECKS = [check_1, check_2, check_3]
