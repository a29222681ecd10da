"""The checks of assignment 4, the weight rho_1 of Cocianu & State."""

import numpy as np

from assignments.checks import call, check, in_random_order, typename
from assignments.checks import number as finite_number
from ksvm.class_statistics import rho1 as reference_rho1
from ksvm.class_statistics import rho1_explicit
from ksvm.kernels import linear_kernel, polynomial_kernel, rbf_kernel
from ksvm.polynomial_map import polynomial_feature_map

ASSIGNMENT = "04_rho1"


def number(value, what):
    """The answer as a float, after checking that it is one finite number."""
    return finite_number(
        value,
        "rho1",
        "rho_1",
        f"({what})",
        hint="evaluate a2 v1 / (a1 v2 + a2 v1), which divides by no variance, and handle a "
        "zero denominator as the task says",
    )


def two_classes(rng, m1, m2, d):
    """m1 positive and m2 negative points in R^d, shuffled; class means away from the origin."""
    X = np.vstack(
        [
            rng.normal(size=(m1, d)) + rng.normal(scale=2.0, size=d),
            rng.normal(scale=float(rng.uniform(0.3, 1.5)), size=(m2, d))
            + rng.normal(scale=2.0, size=d),
        ]
    )
    y = np.r_[np.ones(m1), -np.ones(m2)]
    p = rng.permutation(m1 + m2)
    return X[p], y[p]


def rho1_variant(Phi, y, ddof=1, power=2):
    """rho_1 from explicit features, optionally with a common mistake: the covariance divided by m
    (ddof=0), or ||mu||^2 in place of ||mu||^4 (power=1)."""
    parts = []
    for s in (1, -1):
        G = Phi[y == s]
        mu = G.mean(axis=0)
        Sigma = np.atleast_2d(np.cov(G, rowvar=False, ddof=ddof))
        parts.append((float(mu @ mu) ** power, float(mu @ Sigma @ mu)))
    (a1, v1), (a2, v2) = parts
    return a2 * v1 / (a1 * v2 + a2 * v1)


def explicit_case(X, y, degree):
    """The case of check 1: rho1 with the kernel (x'z + 1)^degree, against its explicit features."""
    K = polynomial_kernel(X, degree=degree, gamma=1.0, coef0=1.0)
    Phi = polynomial_feature_map(X, degree=degree, coef0=1.0)
    expected = rho1_explicit(Phi, y)
    if not abs(reference_rho1(K, y) - expected) < 1e-9:
        raise RuntimeError("ksvm.class_statistics.rho1 disagrees with the explicit features")
    where = (
        f"(kernel (x'z + 1)^{degree}, {int((y > 0).sum())} positive and {int((y < 0).sum())} "
        "negative examples)"
    )

    def judge(outcome):
        got = number(outcome.result, where)
        if abs(got - expected) <= 1e-9:
            return
        if abs(got - (1.0 - expected)) <= 1e-9:
            raise AssertionError(
                f"you returned theta_1 / (theta_1 + theta_2) = 1 - rho_1 {where}: (17) puts "
                "theta_2, the negative class's ratio, in the numerator (class 1 is the positive "
                "class, label +1)"
            )
        if abs(got - rho1_variant(Phi, y, ddof=0)) <= 1e-9:
            raise AssertionError(
                f"you divided the covariance by m instead of m - 1 {where}: the lemma has "
                "m^2 (m - 1) in the denominator of mu' Sigma mu"
            )
        if abs(got - rho1_variant(Phi, y, power=1)) <= 1e-9:
            raise AssertionError(
                f"theta has ||mu||^4 = (||mu||^2)^2 in the numerator, not ||mu||^2 {where}"
            )
        order = np.argsort(
            -y, kind="stable"
        )  # the positive examples first, as the paper numbers them
        if (
            abs(number((yield call(K[np.ix_(order, order)], y[order])).result, where) - expected)
            <= 1e-9
        ):
            raise AssertionError(
                "your rho1 is right when the positive examples come first, and wrong when the "
                f"examples are shuffled {where}: select the block of each class with y, "
                "K[np.ix_(y == s, y == s)]"
            )
        raise AssertionError(f"rho1 = {got:.6f}, expected {expected:.6f} {where}")

    return call(K, y), judge


def reference_case(K, y, where):
    """A case: rho1(K, y) against ksvm.class_statistics.rho1, with ``where`` said of it if
    they differ."""
    expected = reference_rho1(K, y)

    def judge(outcome):
        got = number(outcome.result, where)
        if not (abs(got - expected) <= 1e-9):
            raise AssertionError(
                f"rho1 = {got:.6f}, expected {expected:.6f} ({where}, against "
                "ksvm.class_statistics.rho1)"
            )

    return call(K, y), judge


@check(1, "rho1 against ksvm.class_statistics.rho1 and against explicit feature vectors", "rho1")
def check_1(rng):
    shapes = [
        (int(rng.integers(2, 6)), int(rng.integers(8, 20)), int(rng.integers(1, 4)), 1),
        (int(rng.integers(10, 30)), int(rng.integers(3, 8)), int(rng.integers(2, 4)), 2),
        (int(rng.integers(5, 15)), int(rng.integers(16, 25)), int(rng.integers(1, 3)), 3),
    ]
    cases = [explicit_case(*two_classes(rng, m1, m2, d), degree) for m1, m2, d, degree in shapes]
    # A kernel without explicit features: the Gaussian, against ksvm.class_statistics.rho1 only.
    m1, m2 = int(rng.integers(5, 20)), int(rng.integers(5, 20))
    X, y = two_classes(rng, m1, m2, int(rng.integers(2, 5)))
    cases.append(
        reference_case(
            rbf_kernel(X, gamma=float(rng.uniform(0.1, 1.0))),
            y,
            f"Gaussian kernel, {m1} positive and {m2} negative examples",
        )
    )
    yield from in_random_order(rng, cases)


@check(2, "the order of the examples and the type of the labels do not matter", "rho1")
def check_2(rng):
    degree = int(rng.integers(1, 4))
    X, y = two_classes(
        rng, int(rng.integers(4, 15)), int(rng.integers(4, 15)), int(rng.integers(2, 4))
    )
    K = polynomial_kernel(X, degree=degree, gamma=1.0, coef0=1.0)
    expected = reference_rho1(K, y)
    orders = {
        "positive examples first": np.argsort(-y, kind="stable"),
        "negative examples first": np.argsort(y, kind="stable"),
        "shuffled": rng.permutation(len(y)),
    }
    cases = []
    for name, p in orders.items():

        def judge(outcome, name=name):
            got = number(outcome.result, name)
            if not (abs(got - expected) <= 1e-9):
                raise AssertionError(
                    f"with the examples ordered '{name}' rho1 = {got:.6f}, expected "
                    f"{expected:.6f}: select the block of each class with y, "
                    "K[np.ix_(y == s, y == s)], and take class 1 to be the label +1"
                )

        cases.append((call(K[np.ix_(p, p)], y[p]), judge))

    def integer_labels(outcome):
        got = number(outcome.result, "integer labels")
        if not (abs(got - expected) <= 1e-9):
            raise AssertionError(
                f"with integer labels (an int array of -1 and 1) rho1 = {got:.6f}, expected "
                f"{expected:.6f}"
            )

    cases.append((call(K, y.astype(int)), integer_labels))

    def python_float(outcome):
        got = outcome.result
        if not isinstance(got, float):
            raise AssertionError(
                f"rho1 must return a Python float (use float(...)), got {typename(got)}"
            )
        if not (abs(number(got, "the examples as given") - expected) <= 1e-9):
            raise AssertionError(
                f"rho1 = {got:.6f}, expected {expected:.6f} (the examples as given)"
            )

    cases.append((call(K, y), python_float))
    yield from in_random_order(rng, cases)


def line(rng, m, r):
    """m distinct positive multiples of the integer direction r: mean != 0,
    spread along the mean."""
    return rng.choice(np.arange(1, 9), size=m, replace=False)[:, None] * r


def centred(rng, r):
    """Integer points with mean 0, spread along r (and across it, or not)."""
    k = int(rng.integers(1, 4))
    points = [r, -r, [r[1], -r[0]], [-r[1], r[0]]] if rng.random() < 0.5 else [r, -r]
    return k * np.array(points)


def expect(rng, P, N, answer, why):
    """The case of check 3: rho1 on the classes P (positive) and N (negative), shuffled, must be
    ``answer`` (None: that of ksvm.class_statistics.rho1)."""
    X = np.vstack([P, N]).astype(float)
    y = np.r_[np.ones(len(P)), -np.ones(len(N))]
    p = rng.permutation(len(y))
    K, y = linear_kernel(X[p]), y[p]
    if answer is None:
        answer = reference_rho1(K, y)
    elif not abs(reference_rho1(K, y) - answer) <= 1e-12:
        raise RuntimeError(f"the check itself disagrees with ksvm.class_statistics.rho1 when {why}")

    def judge(outcome):
        got = number(outcome.result, why)
        if not (abs(got - answer) <= 1e-12):
            raise AssertionError(f"rho1 returned {got:.6g} when {why}; expected {answer:.6g}")

    return call(K, y), judge


def expect_value_error(rng, m1, m2):
    """The case of check 3: with a class of one example, rho1 must raise ValueError."""
    K = linear_kernel(rng.normal(size=(m1 + m2, 2)))
    y = rng.permutation(np.r_[np.ones(m1), -np.ones(m2)])

    def judge(outcome):
        outcome.expect_raised(
            "ValueError",
            f"with {m1} positive and {m2} negative examples rho1 must raise "
            "ValueError (a class needs two examples for its covariance)",
        )

    return call(K, y), judge


def general_position(rng):
    """Two classes of integer points whose rho_1 is none of 0, 1/2 and 1."""
    while True:
        P = rng.integers(-2, 5, size=(int(rng.integers(3, 7)), 2))
        N = rng.integers(-4, 3, size=(int(rng.integers(3, 7)), 2))
        X = np.vstack([P, N]).astype(float)
        value = reference_rho1(linear_kernel(X), np.r_[np.ones(len(P)), -np.ones(len(N))])
        if 0.01 < value < 0.99 and abs(value - 0.5) > 0.01:
            return P, N


@check(3, "the edge cases, on integer points so that the zeros are exact", "rho1")
def check_3(rng):
    r = rng.integers(1, 4, size=2)
    point = rng.integers(1, 6, size=2)
    other = point + rng.integers(1, 4, size=2)
    across = np.array([-r[1], r[0]])  # another direction for the second class of mean 0
    repeated = lambda p: np.tile(p, (int(rng.integers(2, 6)), 1))  # noqa: E731
    spread = lambda: line(rng, int(rng.integers(2, 7)), r)  # noqa: E731
    cases = [
        expect(
            rng,
            repeated(point),
            spread(),
            0.0,
            "the positive class is one point repeated (mu_1' Sigma_1 mu_1 = 0, so theta_1 is "
            "infinite)",
        ),
        expect(
            rng,
            spread(),
            repeated(point),
            1.0,
            "the negative class is one point repeated (theta_2 is infinite)",
        ),
        expect(
            rng,
            repeated(point),
            repeated(other),
            0.5,
            "both classes are one point repeated (both theta infinite)",
        ),
        expect(
            rng,
            centred(rng, r),
            spread(),
            1.0,
            "the positive class has mean 0 (a_1 = v_1 = 0, the denominator a_1 v_2 + a_2 v_1 is 0; "
            "the limit as mu_1 -> 0 is 1)",
        ),
        expect(
            rng, spread(), centred(rng, r), 0.0, "the negative class has mean 0 (the limit is 0)"
        ),
        expect(rng, centred(rng, r), centred(rng, across), 0.5, "both classes have mean 0"),
        # Among the edge cases, an ordinary one: its answer is none of 0, 1/2 and 1.
        expect(
            rng, *general_position(rng), None, "the classes are integer points in general position"
        ),
    ]
    m = int(rng.integers(2, 7))
    cases += [expect_value_error(rng, 1, m), expect_value_error(rng, m, 1)]
    yield from in_random_order(rng, cases)


CHECKS = [check_1, check_2, check_3]
