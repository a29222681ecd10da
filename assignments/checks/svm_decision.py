"""The checks of assignment 6, the decision function and the bias of the kernel SVM.

In the book's notation (chapters kernel_svm and soft_margin): n training points, labels y in
{-1, +1}, the Gram matrix K, the multipliers alpha in [0, C] with y'alpha = 0, the numbers
F_i = -y_i g_i = y_i - sum_j alpha_j y_j K_ij, the free set (0 < alpha_i < C), the index sets
I_up and I_low, the bias b and the decision function f(x) = sum_i alpha_i y_i k(x_i, x) + b.

Every case fits scikit-learn's SVC (libsvm) in this process on fresh data and hands the student
its multipliers; the right answers are SVC's intercept_, decision_function, support_,
dual_coef_ and predict, computed again in double precision with ksvm where libsvm rounds (its
kernel cache holds single-precision values, so its intercept_ is right to about 1e-7 only).
"""

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from assignments.checks import call, check, finite, in_random_order, number, parts, quietly, vector
from ksvm.kernels import linear_kernel, polynomial_kernel, rbf_kernel, squared_distances
from ksvm.smo import kkt_bias

ASSIGNMENT = "06_svm_decision"
FORBIDDEN = ("sklearn.svm",)

MAX_ITER = 20_000  # of SVC: a fit here takes a few hundred iterations
TOL = 1e-9  # the tolerance handed to the student's functions: |alpha_i - bound| <= TOL is at it


# ----------------------------------------------------------------------------- the data


def two_classes(rng, n, d, shift=1.2):
    """n points in R^d with labels +-1 (each class 30 % to 70 % of them, at least 3 points),
    shuffled and overlapping, so that a fit has free and bounded multipliers."""
    n_pos = int(rng.integers(max(3, int(0.3 * n)), n - max(3, int(0.3 * n)) + 1))
    y = rng.permutation(np.r_[np.ones(n_pos), -np.ones(n - n_pos)])
    X = rng.normal(size=(n, d))
    X[:, 0] += shift * y
    return X, y


def multipliers(svc, n):
    """The full vector alpha (n entries, alpha_i in [0, C]) from libsvm's form: dual_coef_
    holds alpha_i y_i for the indices support_."""
    alpha = np.zeros(n)
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return alpha


def index_sets(y, alpha, C):
    """The masks of I_up and I_low."""
    up = np.where(y > 0, alpha < C, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < C)
    return up, low


def reference_bias(K, y, alpha, C):
    """b from the KKT conditions, in double precision: ksvm.smo.kkt_bias (the mean of F over the
    free set, or the midpoint of the interval [max_{I_up} F, min_{I_low} F])."""
    F = y - K @ (alpha * y)
    up, low = index_sets(y, alpha, C)
    return kkt_bias(alpha, F, C, up, low), F


def fit(K, y, C, **kernel):
    """SVC on the Gram matrix K (libsvm), or on the points K with ``kernel``.

    Its tolerance hardly matters: every right answer is computed from the multipliers it
    returns.  The iteration limit keeps a degenerate draw from taking seconds; such a draw has
    ``fit_status_`` 1, and the callers that need the KKT conditions draw again."""
    svc = SVC(C=C, tol=1e-6, max_iter=MAX_ITER, **(kernel or {"kernel": "precomputed"}))
    return quietly(ConvergenceWarning, svc.fit, K, y)


def agrees_with_libsvm(b, svc, what):
    """The check's own b must be libsvm's intercept_ up to libsvm's single-precision rounding;
    if not, the check is wrong, not the student."""
    if not abs(b - svc.intercept_[0]) <= 1e-5 * max(1.0, abs(b)):
        raise RuntimeError(f"the check's bias disagrees with SVC.intercept_ ({what})")


def near_bounds(rng, alpha, C):
    """alpha as a numerical solver returns it: the multipliers at 0 or C moved inside the box by
    at most 1e-12 (so within TOL of their bound), the free ones kept."""
    noisy = alpha.copy()
    at_zero, at_C = alpha == 0, alpha == C
    noisy[at_zero] += rng.uniform(0.1e-12, 1e-12, size=int(at_zero.sum()))
    noisy[at_C] -= rng.uniform(0.1e-12, 1e-12, size=int(at_C.sum()))
    return noisy


def kinds(alpha, C):
    free = int(np.sum((alpha > 0) & (alpha < C)))
    return f"{free} free, {int(np.sum(alpha == C))} at C, {int(np.sum(alpha == 0))} at 0"


# ----------------------------------------------------------------------------- bias


def read_bias(outcome, where, hint=""):
    return number(outcome.result, "bias", "b", where, hint)


def bias_from_free(rng, kernel, zeros=False, attempts=200):
    """A fitted problem whose multipliers have free and bounded entries and whose b is clearly
    non-zero (so that a wrong sign, or the bounded ones in the mean, show); with ``zeros``, some
    multipliers are 0 too."""
    for _ in range(attempts):
        n, d = int(rng.integers(20, 41)), int(rng.integers(2, 4))
        X, y = two_classes(rng, n, d)
        C = float(np.exp(rng.uniform(np.log(0.5), np.log(5.0))))
        if kernel == "Gaussian":
            gamma = float(rng.uniform(0.2, 1.5))
            K, name = rbf_kernel(X, gamma=gamma), f"Gaussian kernel, gamma={gamma:.3g}"
        else:
            K, name = polynomial_kernel(X, degree=2, gamma=1.0, coef0=1.0), "kernel (x'z + 1)^2"
        svc = fit(K, y, C)
        if svc.fit_status_ != 0:
            continue
        alpha = multipliers(svc, n)
        b, F = reference_bias(K, y, alpha, C)
        free, bounded = (alpha > 0) & (alpha < C), alpha == C
        if zeros and np.sum(alpha == 0) < 2:
            continue
        if free.sum() >= 2 and bounded.sum() >= 2 and abs(b) >= 0.1:
            mean_all = float(F[alpha > 0].mean())
            if abs(mean_all - b) >= 1e-3 and abs(b) >= 0.1:
                agrees_with_libsvm(b, svc, name)
                return K, y, alpha, C, b, F, f"({name}, n={n}, C={C:.3g}, {kinds(alpha, C)})"
    raise RuntimeError("no problem with free and bounded multipliers was drawn")


def free_case(K, y, alpha, C, b, F, where, given=None):
    """A case of check 1: bias(K, y, alpha, C, TOL) must be b (the mean over the free set).
    ``given`` is the alpha handed to the student, if not ``alpha`` (one near its bounds)."""
    given = alpha if given is None else given
    support = alpha > 0

    def judge(outcome):
        got = read_bias(outcome, where)
        scale = max(1.0, abs(b))
        if abs(got - b) <= 1e-8 * scale:
            return
        if abs(got + b) <= 1e-8 * scale:
            raise AssertionError(
                f"b has the wrong sign {where}: you returned {got:.6g}, the bias is {b:.6g}. "
                "b = y_j - sum_i alpha_i y_i K_ij at a free j (that is -y_j g_j); libsvm stores "
                "rho = -b, and intercept_ = -rho"
            )
        if abs(got - float(F[support].mean())) <= 1e-8 * scale:
            raise AssertionError(
                f"you averaged y_j - sum_i alpha_i y_i K_ij over every support vector {where}: "
                "only the free ones (0 < alpha_j < C) lie on their margin line; at a bounded one "
                "(alpha_j = C) the value is off by its slack. Average over the free set only"
            )
        loose = (given > 0) & (given < C)
        if given is not alpha and abs(got - float(F[loose].mean())) <= 1e-6 * scale:
            raise AssertionError(
                f"the multipliers here are within tol={TOL:g} of their bounds, as a numerical "
                f"solver returns them {where}, and you counted those within tol of 0 or C as "
                "free: take alpha_i <= tol as 0 and alpha_i >= C - tol as C"
            )
        wrong_sum = y - K @ alpha
        if abs(got - float(wrong_sum[(alpha > 0) & (alpha < C)].mean())) <= 1e-8 * scale:
            raise AssertionError(
                f"each term of the sum carries its label {where}: b = y_j - sum_i alpha_i y_i "
                "K_ij, not y_j - sum_i alpha_i K_ij"
            )
        raise AssertionError(
            f"b = {got:.6g}, expected {b:.6g} (SVC's intercept_, recomputed in double precision) "
            f"{where}"
        )

    return call(K, y, given, C, TOL), judge


def box_case(K, y, alpha, C, where):
    """A case of check 1: alpha given as libsvm's dual_coef_ (y_i alpha_i, negative entries)
    must raise ValueError."""
    coef = alpha * y

    def judge(outcome):
        outcome.expect_raised(
            "ValueError",
            f"bias(K, y, alpha, C, tol) with the coefficients alpha_i y_i in place of alpha (what "
            f"libsvm's dual_coef_ holds), negative where y_i = -1 {where}, must raise ValueError: "
            "a multiplier lies in [0, C] (from dual_coef_, alpha_i = |dual_coef_i|)",
        )

    return call(K, y, coef, C, TOL), judge


@check(1, "the bias from the free support vectors, against SVC's intercept_", "bias")
def check_1(rng):
    cases = []
    K, y, alpha, C, b, F, where = bias_from_free(rng, "Gaussian")
    cases.append(free_case(K, y, alpha, C, b, F, where))
    cases.append(box_case(K, y, alpha, C, where))
    K, y, alpha, C, b, F, where = bias_from_free(rng, "polynomial")
    cases.append(free_case(K, y, alpha, C, b, F, where))
    K, y, alpha, C, b, F, where = bias_from_free(rng, "Gaussian", zeros=True)
    noisy = near_bounds(rng, alpha, C)
    cases.append(
        free_case(K, y, alpha, C, b, F, where[:-1] + ", given within 1e-12 of the bounds)", noisy)
    )
    K, y, alpha, C, b, F, where = bias_from_free(rng, "Gaussian")
    cases.append(free_case(K, y.astype(int), alpha, C, b, F, where[:-1] + ", integer labels)"))
    yield from in_random_order(rng, cases)


def none_free(rng, kernel, attempts=300):
    """A fitted problem in which every multiplier is at 0 or C, with a KKT interval of b wide
    enough for the mistakes to show, and a b clearly away from 0.  With the linear kernel some
    multipliers are 0; with the Gaussian kernel the classes have equal sizes (y'alpha = 0 with
    every alpha_i at C needs that), and the multipliers are mostly at C."""
    for _ in range(attempts):
        n, d = int(rng.integers(8, 18)), int(rng.integers(2, 4))
        if kernel == "linear":
            X, y = two_classes(rng, 2 * n, d, shift=float(rng.uniform(0.3, 1.0)))
            C = float(rng.uniform(0.005, 0.02))
            K, name = linear_kernel(X), "linear kernel"
        else:
            y = rng.permutation(np.r_[np.ones(n), -np.ones(n)])
            X = rng.normal(size=(2 * n, d))
            X[:, 0] += float(rng.uniform(0.3, 1.5)) * y
            gamma = float(rng.uniform(0.2, 1.0))
            C = float(np.exp(rng.uniform(np.log(0.01), np.log(1.0))))
            K, name = rbf_kernel(X, gamma=gamma), f"Gaussian kernel, gamma={gamma:.3g}"
        svc = fit(K, y, C)
        if svc.fit_status_ != 0:
            continue
        alpha = multipliers(svc, len(y))
        if np.any((alpha > 0) & (alpha < C)):
            continue
        b, F = reference_bias(K, y, alpha, C)
        up, low = index_sets(y, alpha, C)
        if not (float(F[low].min()) - float(F[up].max()) >= 0.02 and abs(b) >= 0.05):
            continue
        if kernel == "linear":
            support = alpha > 0
            upS, lowS = up & support, low & support
            if not (
                np.any(alpha == 0)
                and upS.any()
                and lowS.any()
                and abs(midpoint(F, upS, lowS) - b) >= 1e-3
            ):
                continue
        agrees_with_libsvm(b, svc, name)
        where = f"({name}, n={len(y)}, C={C:.3g}, {kinds(alpha, C)}: no multiplier is free)"
        return K, y, alpha, C, b, F, where
    raise RuntimeError("no problem without a free multiplier was drawn")


def midpoint(F, up, low):
    return float((F[up].max() + F[low].min()) / 2)


def none_free_case(K, y, alpha, C, b, F, where, given=None):
    """A case of check 2: no free multiplier, b is the midpoint of the KKT interval."""
    given = alpha if given is None else given
    up, low = index_sets(y, alpha, C)
    support = alpha > 0
    hint = (
        "with no free multiplier there is no j to average over: take the midpoint of the "
        "interval of optimal b, [max over I_up of -y_i g_i, min over I_low of -y_i g_i], as "
        "libsvm does"
    )

    def judge(outcome):
        if outcome.raised and not (
            outcome.raised_a("AssertionError")
            or outcome.raised_a("NotImplementedError")
            or "read-only" in outcome.message
        ):
            raise AssertionError(
                f"bias raised {outcome.raised[0]} ({outcome.message}) {where}: {hint}"
            )
        got = read_bias(outcome, where, hint)
        scale = max(1.0, abs(b))
        if abs(got - b) <= 1e-8 * scale:
            return
        if abs(got + b) <= 1e-8 * scale:
            raise AssertionError(
                f"b has the wrong sign {where}: you returned {got:.6g}, the midpoint of the "
                f"interval is {b:.6g}; libsvm's rho is -b"
            )
        if abs(got - float(F[support].mean())) <= 1e-8 * scale:
            raise AssertionError(
                f"you averaged y_j - sum_i alpha_i y_i K_ij over the bounded support vectors "
                f"{where}: {hint}"
            )
        upS, lowS = up & support, low & support
        if upS.any() and lowS.any() and abs(got - midpoint(F, upS, lowS)) <= 1e-8 * scale:
            raise AssertionError(
                f"your interval of b uses the support vectors only {where}: a point with "
                "alpha_i = 0 bounds b too (y_i f(x_i) >= 1), so I_up and I_low take every "
                "index, the alpha_i = 0 ones included"
            )
        if abs(got - midpoint(F, low, up)) <= 1e-8 * scale:
            raise AssertionError(
                f"you swapped I_up and I_low {where}: b >= -y_i g_i for i in I_up = "
                "{alpha_i < C, y_i = +1} or {alpha_i > 0, y_i = -1}, b <= -y_i g_i for i in I_low"
            )
        raise AssertionError(
            f"b = {got:.6g}, expected the midpoint {b:.6g} of the interval "
            f"[{float(F[up].max()):.6g}, {float(F[low].min()):.6g}] of the -y_i g_i "
            f"(SVC's intercept_, recomputed in double precision) {where}"
        )

    return call(K, y, given, C, TOL), judge


@check(2, "the bias when no multiplier is free, against SVC's intercept_", "bias")
def check_2(rng):
    cases = []
    K, y, alpha, C, b, F, where = none_free(rng, "linear")
    cases.append(none_free_case(K, y, alpha, C, b, F, where))
    K, y, alpha, C, b, F, where = none_free(rng, "Gaussian")
    cases.append(none_free_case(K, y, alpha, C, b, F, where))
    K, y, alpha, C, b, F, where = none_free(rng, "linear")
    noisy = near_bounds(rng, alpha, C)
    cases.append(
        none_free_case(
            K, y, alpha, C, b, F, where[:-1] + ", given within 1e-12 of the bounds)", noisy
        )
    )
    yield from in_random_order(rng, cases)


# ----------------------------------------------------------------------------- decision_function


def decision_case(rng, n_test, what):
    """A case of check 3: decision_function(K_test_train, y, alpha, b) against SVC's
    decision_function on fresh test points; ``n_test`` of them (None: as many as training
    points, so that the transposed matrix has the right shape)."""
    n, d = int(rng.integers(20, 41)), int(rng.integers(2, 4))
    X, y = two_classes(rng, n, d)
    m = n if n_test is None else n_test
    X_test = rng.normal(scale=1.5, size=(m, d))
    gamma, C = float(rng.uniform(0.2, 1.5)), float(np.exp(rng.uniform(np.log(0.5), np.log(5.0))))
    K, K_test = rbf_kernel(X, gamma=gamma), rbf_kernel(X_test, X, gamma=gamma)
    svc = fit(K, y, C)
    alpha, b = multipliers(svc, n), float(svc.intercept_[0])
    expected = K_test @ (alpha * y) + b
    if not np.max(np.abs(expected - svc.decision_function(K_test))) <= 1e-9 * max(
        1.0, float(np.max(np.abs(expected)))
    ):
        raise RuntimeError("the check's decision values disagree with SVC.decision_function")
    where = f"({what}: K_test_train of shape ({m}, {n}), Gaussian kernel, C={C:.3g})"

    def judge(outcome):
        if outcome.raised_a("ValueError") and m != n:
            raise AssertionError(
                f"decision_function raised ValueError ({outcome.message}) {where}: K_test_train "
                "has one row per new point and one column per training point, "
                "K_test_train[i, j] = k(x_i_new, x_j), so f = K_test_train (alpha * y) + b, "
                "a vector of one value per row"
            )
        f = vector(
            outcome.result,
            "decision_function",
            "f",
            m,
            where,
            ", one value per row of K_test_train",
        )
        scale = max(1.0, float(np.max(np.abs(expected))))
        if np.max(np.abs(f - expected)) <= 1e-9 * scale:
            return
        hints = [
            (
                K_test.T @ (alpha * y) + b if m == n else None,
                "you used the transpose of K_test_train: its rows are the new points and its "
                "columns the training points, so f = K_test_train (alpha * y) + b",
            ),
            (
                K_test @ alpha + b,
                "each term carries its label: f(x) = sum_i alpha_i y_i k(x_i, x) + b",
            ),
            (K_test @ (alpha * y), "you left out the bias: f(x) = sum_i alpha_i y_i k(x_i, x) + b"),
            (
                K_test @ (alpha * y) - b,
                "b is added, f(x) = sum_i alpha_i y_i k(x_i, x) + b (libsvm subtracts its rho, "
                "which is -b)",
            ),
        ]
        for wrong, hint in hints:
            if wrong is not None and np.max(np.abs(f - wrong)) <= 1e-9 * scale:
                raise AssertionError(f"{hint} {where}")
        raise AssertionError(
            f"f differs from SVC's decision_function by {np.max(np.abs(f - expected)):.2e} {where}"
        )

    return call(K_test, y, alpha, b), judge


@check(
    3, "the decision function on new points, against SVC's decision_function", "decision_function"
)
def check_3(rng):
    cases = [
        decision_case(rng, None, "as many new points as training points"),
        decision_case(rng, int(rng.integers(5, 15)), "fewer new points than training points"),
        decision_case(rng, int(rng.integers(50, 80)), "more new points than training points"),
        decision_case(rng, 1, "one new point"),
    ]
    yield from in_random_order(rng, cases)


# ----------------------------------------------------------------------------- support_vectors


def support_case(rng, noisy, what):
    """A case of check 4: support_vectors(alpha, y, tol) against SVC's support_ and dual_coef_
    (sorted by index: libsvm groups them by class)."""
    for _ in range(200):  # a fit with some multipliers at 0, some at C, some free
        n, d = int(rng.integers(20, 41)), int(rng.integers(2, 4))
        X, y = two_classes(rng, n, d, shift=2.0)
        gamma = float(rng.uniform(0.2, 1.5))
        C = float(np.exp(rng.uniform(np.log(0.5), np.log(5.0))))
        svc = fit(rbf_kernel(X, gamma=gamma), y, C)
        alpha = multipliers(svc, n)
        if np.sum(alpha == 0) >= 3 and np.sum(alpha == C) >= 1:
            break
    else:
        raise RuntimeError("no fit with multipliers at 0 and at C was drawn")
    order = np.argsort(svc.support_)
    support, coef = svc.support_[order], svc.dual_coef_[0][order]
    given = near_bounds(rng, alpha, C) if noisy else alpha
    where = f"({what}: n={n}, C={C:.3g}, {kinds(alpha, C)})"

    def judge(outcome):
        got_support, got_coef = parts(
            outcome.result, 2, "support_vectors must return the tuple (support, coef)"
        )
        if np.asarray(got_support).dtype.kind == "b":
            raise AssertionError(
                f"support must be the indices of the support vectors, in increasing order (as "
                f"np.flatnonzero gives them), not a mask of booleans {where}"
            )
        got_support = finite(got_support, "support_vectors", "support", where)
        got_coef = finite(got_coef, "support_vectors", "coef", where)
        if noisy and got_support.shape == (n,):
            raise AssertionError(
                f"every alpha_i here is within 1e-12 of 0 or C or free, as a numerical solver "
                f"returns them, and you kept all {n} points {where}: a support vector has "
                "alpha_i > tol"
            )
        if not np.array_equal(got_support, support):
            raise AssertionError(
                f"support = {got_support.astype(int).tolist()[:8]}..., expected the "
                f"{support.size} indices {support.tolist()[:8]}... of the alpha_i > tol, in "
                f"increasing order {where}"
            )
        if got_coef.shape != coef.shape:
            raise AssertionError(
                f"coef must have one entry per support vector, shape {coef.shape}, got "
                f"{got_coef.shape} {where}"
            )
        if np.max(np.abs(got_coef - coef)) <= 1e-10 * C:
            return
        if np.max(np.abs(got_coef - np.abs(coef))) <= 1e-10 * C:
            raise AssertionError(
                f"coef holds alpha_i y_i, the coefficient c_i of k(x_i, x) in f, as libsvm's "
                f"dual_coef_ does, not alpha_i {where}: multiply by the labels"
            )
        raise AssertionError(
            f"coef differs from SVC's dual_coef_ (sorted by index) by "
            f"{np.max(np.abs(got_coef - coef)):.2e} {where}"
        )

    return call(given, y, TOL), judge


@check(
    4,
    "the support vectors in libsvm's form, against SVC's support_ and dual_coef_",
    "support_vectors",
)
def check_4(rng):
    cases = [
        support_case(rng, False, "multipliers from SVC"),
        support_case(rng, True, "multipliers within 1e-12 of their bounds"),
        support_case(rng, False, "multipliers from SVC"),
    ]
    yield from in_random_order(rng, cases)


# ----------------------------------------------------------------------------- predict_sv


def predict_case(rng, what, far=False):
    """A case of check 5: predict_sv(X_sv, coef_sv, b, X_new, gamma) against SVC(kernel="rbf")'s
    decision_function and predict, and against the sum over all training points.  ``far``: b is
    0 and some new points are so far from every support vector that f(x) = 0 exactly there."""
    n, d = int(rng.integers(30, 61)), int(rng.integers(2, 4))
    X, y = two_classes(rng, n, d, shift=2.0)
    gamma, C = float(rng.uniform(0.2, 1.5)), float(np.exp(rng.uniform(np.log(0.5), np.log(5.0))))
    svc = fit(X, y, C, kernel="rbf", gamma=gamma)
    X_sv, coef, b = svc.support_vectors_, svc.dual_coef_[0].copy(), float(svc.intercept_[0])
    m = int(rng.integers(20, 60))
    X_new = rng.normal(scale=1.5, size=(m, d))
    if far:
        b = 0.0
        k = int(rng.integers(2, 5))
        X_new[:k] = 100.0 * rng.choice([-1.0, 1.0], size=(k, d))  # every k(x_i, x) underflows to 0
    expected = rbf_kernel(X_new, X_sv, gamma=gamma) @ coef + b
    full = rbf_kernel(X_new, X, gamma=gamma) @ (multipliers(svc, n) * y) + b
    scale = max(1.0, float(np.max(np.abs(expected))))
    if not far and not (
        np.max(np.abs(expected - svc.decision_function(X_new))) <= 1e-9 * scale
        and np.array_equal(np.where(expected > 0, 1.0, -1.0), svc.predict(X_new))
    ):
        raise RuntimeError("the check's decision values disagree with SVC")
    if not np.max(np.abs(expected - full)) <= 1e-9 * scale:
        raise RuntimeError("the sum over the support vectors disagrees with the full sum")
    labels = np.where(expected > 0, 1.0, -1.0)
    where = (
        f"({what}: {X_sv.shape[0]} support vectors of n={n} training points, {m} new points, "
        f"d={d}, gamma={gamma:.3g})"
    )

    def judge(outcome):
        f, got = parts(outcome.result, 2, "predict_sv must return the tuple (f, labels)")
        f = finite(f, "predict_sv", "f", where)
        if f.shape != (m,):
            raise AssertionError(
                f"f must be a vector of shape ({m},), one value per row of X_new, got {f.shape} "
                f"{where}"
            )
        if not np.max(np.abs(f - expected)) <= 1e-9 * scale:
            D2 = squared_distances(X_new, X_sv)
            for wrong, hint in [
                (
                    np.exp(-gamma * np.sqrt(D2)) @ coef + b,
                    "the Gaussian kernel uses the squared distance, exp(-gamma ||x - z||^2)",
                ),
                (
                    np.exp(-D2 / gamma) @ coef + b,
                    "gamma multiplies the squared distance: exp(-gamma ||x - z||^2)",
                ),
                (
                    np.exp(-gamma * D2) @ (coef * np.sign(coef)) + b,
                    "coef_sv already holds alpha_i y_i (libsvm's dual_coef_): f(x) = sum over the "
                    "support vectors of coef_i k(x_i, x) + b",
                ),
            ]:
                if np.max(np.abs(f - wrong)) <= 1e-9 * scale:
                    raise AssertionError(f"{hint} {where}")
            raise AssertionError(
                f"f differs from SVC's decision_function (and from the sum over all n training "
                f"points) by {np.max(np.abs(f - expected)):.2e} {where}"
            )
        if np.asarray(got).dtype.kind == "b":
            raise AssertionError(
                f"labels must be the classes -1 and +1, not the booleans f > 0 {where}: "
                "np.where(f > 0, 1, -1)"
            )
        got = finite(got, "predict_sv", "labels", where)
        if got.shape != (m,):
            raise AssertionError(
                f"labels must be a vector of shape ({m},), got {got.shape} {where}"
            )
        if np.array_equal(got, labels):
            return
        zero = expected == 0
        if zero.any() and np.array_equal(got[~zero], labels[~zero]):
            raise AssertionError(
                f"at a point with f(x) = 0 exactly you predicted {got[zero][0]:g} {where}: a "
                "label is -1 or +1; predict +1 where f(x) > 0 and -1 where f(x) <= 0, as SVC "
                "does (np.sign gives 0 at 0)"
            )
        if np.array_equal(got, -labels):
            raise AssertionError(f"the labels are the opposite of the signs of f {where}")
        if set(np.unique(got)) <= {0.0, 1.0}:
            raise AssertionError(
                f"labels must be -1 and +1, got 0 and 1 {where}: np.where(f > 0, 1, -1)"
            )
        raise AssertionError(
            f"labels differ from SVC's predict at {int(np.sum(got != labels))} of {m} points "
            f"{where}: predict +1 where f(x) > 0 and -1 where f(x) <= 0"
        )

    return call(X_sv, coef, b, X_new, gamma), judge


@check(5, "prediction from the support vectors alone, against SVC(kernel='rbf')", "predict_sv")
def check_5(rng):
    cases = [
        predict_case(rng, "b = 0, some new points far from every support vector", far=True),
        predict_case(rng, "a fit of SVC(kernel='rbf')"),
        predict_case(rng, "a fit of SVC(kernel='rbf')"),
    ]
    yield from in_random_order(rng, cases)


CHECKS = [check_1, check_2, check_3, check_4, check_5]
