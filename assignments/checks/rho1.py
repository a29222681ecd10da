"""The checks of assignment 4, the weight rho_1 of Cocianu & State."""

import numpy as np

from assignments.checks import call, check
from ksvm.ascent import rho1 as reference_rho1
from ksvm.ascent import rho1_explicit
from ksvm.kernels import linear_kernel, polynomial_feature_map, polynomial_kernel, rbf_kernel

ASSIGNMENT = "04_rho1"


def number(value, what):
    """The answer as a float, after checking that it is one number."""
    if np.ndim(value) != 0:
        raise AssertionError(f"rho1 must return one number, got an array of shape {np.shape(value)} ({what})")
    value = float(value)
    if not np.isfinite(value):
        raise AssertionError(
            f"rho1 returned {value} ({what}): evaluate a2 v1 / (a1 v2 + a2 v1), which divides by no "
            "variance, and handle a zero denominator as the task says")
    return value


def two_classes(rng, m1, m2, d):
    """m1 positive and m2 negative points in R^d, shuffled; class means away from the origin."""
    X = np.vstack([rng.normal(size=(m1, d)) + rng.normal(scale=2.0, size=d),
                   rng.normal(scale=float(rng.uniform(0.3, 1.5)), size=(m2, d)) + rng.normal(scale=2.0, size=d)])
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


@check(1, "rho1 against ksvm.ascent.rho1 and against explicit feature vectors", "rho1")
def check_1(rng):
    cases = [(int(rng.integers(2, 6)), int(rng.integers(8, 20)), 2, 1),
             (int(rng.integers(10, 30)), int(rng.integers(3, 8)), 3, 2),
             (int(rng.integers(5, 15)), int(rng.integers(16, 25)), 2, 3)]
    for m1, m2, d, degree in cases:
        X, y = two_classes(rng, m1, m2, d)
        K = polynomial_kernel(X, degree=degree, gamma=1.0, coef0=1.0)
        Phi = polynomial_feature_map(X, degree=degree, coef0=1.0)
        where = f"(kernel (x'z + 1)^{degree}, {m1} positive and {m2} negative examples)"
        got = number((yield call(K, y)).result, where)
        expected = rho1_explicit(Phi, y)
        assert abs(reference_rho1(K, y) - expected) < 1e-9, "ksvm.ascent.rho1 disagrees with the explicit features"
        if abs(got - expected) <= 1e-9:
            continue
        if abs(got - (1.0 - expected)) <= 1e-9:
            raise AssertionError(
                f"you returned theta_1 / (theta_1 + theta_2) = 1 - rho_1 {where}: (17) puts theta_2, the "
                "negative class's ratio, in the numerator (class 1 is the positive class, label +1)")
        if abs(got - rho1_variant(Phi, y, ddof=0)) <= 1e-9:
            raise AssertionError(
                f"you divided the covariance by m instead of m - 1 {where}: the lemma has m^2 (m - 1) "
                "in the denominator of mu' Sigma mu")
        if abs(got - rho1_variant(Phi, y, power=1)) <= 1e-9:
            raise AssertionError(f"theta has ||mu||^4 = (||mu||^2)^2 in the numerator, not ||mu||^2 {where}")
        order = np.argsort(-y, kind="stable")  # the positive examples first, as the paper numbers them
        if abs(number((yield call(K[np.ix_(order, order)], y[order])).result, where) - expected) <= 1e-9:
            raise AssertionError(
                f"your rho1 is right when the positive examples come first, and wrong when the examples are "
                f"shuffled {where}: select the block of each class with y, K[np.ix_(y == s, y == s)]")
        raise AssertionError(f"rho1 = {got:.6f}, expected {expected:.6f} {where}")

    # A kernel without explicit features: the Gaussian, against ksvm.ascent.rho1 only.
    X, y = two_classes(rng, int(rng.integers(5, 20)), int(rng.integers(5, 20)), 3)
    K = rbf_kernel(X, gamma=float(rng.uniform(0.1, 1.0)))
    got, expected = number((yield call(K, y)).result, "Gaussian kernel"), reference_rho1(K, y)
    if abs(got - expected) > 1e-9:
        raise AssertionError(f"with a Gaussian kernel rho1 = {got:.6f}, ksvm.ascent.rho1 gives {expected:.6f}")


@check(2, "the order of the examples and the type of the labels do not matter", "rho1")
def check_2(rng):
    X, y = two_classes(rng, int(rng.integers(4, 15)), int(rng.integers(4, 15)), 2)
    K = polynomial_kernel(X, degree=2, gamma=1.0, coef0=1.0)
    expected = reference_rho1(K, y)
    orders = {"positive examples first": np.argsort(-y, kind="stable"),
              "negative examples first": np.argsort(y, kind="stable"),
              "shuffled": rng.permutation(len(y))}
    for name, p in orders.items():
        got = number((yield call(K[np.ix_(p, p)], y[p])).result, name)
        if abs(got - expected) > 1e-9:
            raise AssertionError(
                f"with the examples ordered '{name}' rho1 = {got:.6f}, expected {expected:.6f}: select the block "
                "of each class with y, K[np.ix_(y == s, y == s)], and take class 1 to be the label +1")
    got = number((yield call(K, y.astype(int))).result, "integer labels")
    if abs(got - expected) > 1e-9:
        raise AssertionError(f"with integer labels (an int array of -1 and 1) rho1 = {got:.6f}, expected {expected:.6f}")
    if not isinstance((yield call(K, y)).result, float):
        raise AssertionError("rho1 must return a Python float (use float(...))")


def line(rng, m, r):
    """m distinct positive multiples of the integer direction r: mean != 0, spread along the mean."""
    return rng.choice(np.arange(1, 9), size=m, replace=False)[:, None] * r


def expect(rng, P, N, answer, why):
    """rho1 on the classes P (positive) and N (negative), shuffled, must be ``answer``."""
    X = np.vstack([P, N]).astype(float)
    y = np.r_[np.ones(len(P)), -np.ones(len(N))]
    p = rng.permutation(len(y))
    K, y = linear_kernel(X[p]), y[p]
    assert abs(reference_rho1(K, y) - answer) <= 1e-12, "the check itself disagrees with ksvm.ascent.rho1"
    got = number((yield call(K, y)).result, why)
    if abs(got - answer) > 1e-12:
        raise AssertionError(f"rho1 returned {got:.6g} when {why}; expected {answer}")


@check(3, "the edge cases, on integer points so that the zeros are exact", "rho1")
def check_3(rng):
    r = rng.integers(1, 4, size=2)
    point = rng.integers(1, 6, size=2)
    symmetric = np.vstack([r, -r, [r[1], -r[0]], [-r[1], r[0]]])  # mean 0
    yield from expect(rng, np.tile(point, (3, 1)), line(rng, 4, r), 0.0,
                      "the positive class is one point repeated (mu_1' Sigma_1 mu_1 = 0, so theta_1 is infinite)")
    yield from expect(rng, line(rng, 4, r), np.tile(point, (3, 1)), 1.0,
                      "the negative class is one point repeated (theta_2 is infinite)")
    yield from expect(rng, np.tile(point, (2, 1)), np.tile(point + 1, (3, 1)), 0.5,
                      "both classes are one point repeated (both theta infinite)")
    yield from expect(rng, symmetric, line(rng, 3, r), 1.0,
                      "the positive class has mean 0 (a_1 = v_1 = 0, the denominator a_1 v_2 + a_2 v_1 is 0; "
                      "the limit as mu_1 -> 0 is 1)")
    yield from expect(rng, line(rng, 3, r), symmetric, 0.0, "the negative class has mean 0 (the limit is 0)")
    yield from expect(rng, symmetric, -symmetric[::-1], 0.5, "both classes have mean 0")

    for m1, m2 in [(1, 5), (5, 1)]:
        K = linear_kernel(rng.normal(size=(m1 + m2, 2)))
        y = np.r_[np.ones(m1), -np.ones(m2)]
        outcome = yield call(K, y)
        outcome.expect_raised("ValueError", f"with {m1} positive and {m2} negative examples rho1 must raise "
                                            "ValueError (a class needs two examples for its covariance)")


CHECKS = [check_1, check_2, check_3]
