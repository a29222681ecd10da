"""The checks of assignment 7, kernel logistic regression by Newton's method (IRLS).

In the book's notation (chapter rlsc_rlr): a Gram matrix K, labels y in {-1, +1}, Y = diag(y),
lam > 0, the model f = Kc + b 1, the margin values s = Yf, the logistic function sigma, and the
objective (rr-eq-rlr)

    J(c, b) = sum_i log(1 + e^{-s_i}) + lam/2 c'Kc     (the bias b is not penalised),

which scikit-learn's LogisticRegression(C=1/lam) minimises on explicit features (w = Phi'c).
The student's solver takes damped Newton steps (c+ - c, b+ - b) from (0, 0) and stops when
half the Newton decrement, -(grad_c J'(c+ - c) + dJ/db (b+ - b))/2, is at most tol, or
after max_iter steps.

Where K is singular, c is not unique: c and c + v with Kv = 0 give the same function
f = sum_i c_i k(x_i, .) + b everywhere.  So the checks compare functions, not vectors: the
distance ||f - f_ref|| in the kernel's feature space, sqrt((c - c_ref)'K(c - c_ref)), the
weights w = Phi'c where Phi is explicit, and b.
"""

import inspect

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from assignments.checks import (
    call,
    check,
    in_random_order,
    quietly,
    vector_number_and_count,
)
from ksvm.kernels import linear_kernel, polynomial_kernel, rbf_kernel
from ksvm.polynomial_map import polynomial_feature_map
from ksvm.rlr import rlr_loss_and_gradient, rlr_newton

ASSIGNMENT = "07_klr_newton"
#: scikit-learn's logistic regression and SVMs are what the checks compare with.
FORBIDDEN = ("sklearn.linear_model", "sklearn.svm")

#: The stopping tolerance and the step limit of the convergence cases: decrement / 2 <= TOL.
TOL, MAX_ITER = 1e-12, 100


# ----------------------------------------------------------------------------- the data


def some_lam(rng, low, high):
    """A lam drawn log-uniformly in [low, high]."""
    return float(10 ** rng.uniform(np.log10(low), np.log10(high)))


def two_classes(rng, n, d, separation=1.0):
    """n points in R^d in two overlapping Gaussian clouds, labels +-1 (both present,
    shuffled); ``separation`` is the distance of the class means in units of the spread."""
    y = rng.permutation(np.r_[np.ones(n - n // 2), -np.ones(n // 2)])
    v = rng.normal(size=d)
    v *= separation / (2 * np.linalg.norm(v))
    X = rng.normal(size=(n, d)) + y[:, None] * v + rng.normal(scale=0.5, size=d)
    return X, y


def separable(rng, n, d):
    """n points in R^d that a plane separates with a wide margin, labels +-1, shuffled."""
    y = rng.permutation(np.r_[np.ones(n - n // 2), -np.ones(n // 2)])
    v = rng.normal(size=d)
    v /= np.linalg.norm(v)
    X = rng.normal(scale=0.5, size=(n, d))
    X -= np.outer(X @ v, v)  # every point on the plane v'x = 0 ...
    X += (y * rng.uniform(1.0, 2.0, size=n))[:, None] * v  # ... then moved to its side
    return X, y


# ----------------------------------------------------------------------------- references


def objective(K, y, lam, c, b):
    """J(c, b) of (rr-eq-rlr), by ksvm."""
    return rlr_loss_and_gradient(K, y, lam, np.asarray(c, dtype=float), float(b))[0]


def optimum(K, y, lam):
    """The minimiser of J by ksvm.rlr.rlr_newton (to rounding): (c, b, J*)."""
    result = quietly(ConvergenceWarning, rlr_newton, K, y, lam, tol=1e-13, max_iter=200)
    return result.c, result.b, result.objective


def sklearn_weights(Phi, y, lam):
    """w and b of scikit-learn's LogisticRegression(C=1/lam) on the explicit features Phi."""
    model = LogisticRegression(C=1.0 / lam, solver="newton-cholesky", tol=1e-12, max_iter=500)
    quietly(ConvergenceWarning, model.fit, Phi, y)
    return model.coef_[0], float(model.intercept_[0])


def newton(K, y, lam, tol, max_iter, weights="right", penalise_bias=False):
    """The prescribed damped Newton method, from (0, 0), with a variant for a diagnosis.

    ``weights`` is "right" (sigma(s) sigma(-s)), "p" (sigma(-s), the probability without the
    factor 1 - p) or "none" (1); ``penalise_bias`` adds lam/2 b^2 to J.  The Newton step solves
    (rr-eq-irls) in the symmetric form of ksvm.rlr.rlr_newton: with W = Lambda^{1/2} and
    c+ = W a, (WKW + lam I) a + b+ W1 = W f + W^{-1} Y sigma(-s), (W1)'a = 0 (with the bias
    penalised, (W1)'a - b+ = 0).  Returns (c, b, n_iter, margin): ``margin`` is the smallest
    relative distance of a decision of the loop (a line-search test, the stopping test) from its
    threshold, so that a case whose answer rounding could change is not asked.
    """
    n = len(y)
    ones = np.ones(n)

    def J(c, b):
        penalty = c @ K @ c + (b * b if penalise_bias else 0.0)
        return float(np.logaddexp(0.0, -y * (K @ c + b)).sum() + lam / 2 * penalty)

    c, b, n_iter, margin = np.zeros(n), 0.0, 0, np.inf
    while True:
        f = K @ c + b
        s = y * f
        sigma_minus = np.exp(-np.logaddexp(0.0, s))
        weight = {
            "right": sigma_minus * np.exp(-np.logaddexp(0.0, -s)),
            "p": sigma_minus,
            "none": ones,
        }[weights]
        residual = y * sigma_minus
        grad_c = K @ (lam * c - residual)
        grad_b = -residual.sum() + (lam * b if penalise_bias else 0.0)
        W = np.sqrt(weight)
        A = np.zeros((n + 1, n + 1))
        A[:n, :n] = W[:, None] * K * W[None, :] + lam * np.eye(n)
        A[:n, n] = A[n, :n] = W
        A[n, n] = -1.0 if penalise_bias else 0.0
        solution = np.linalg.solve(A, np.append(W * f + residual / W, 0.0))
        dc, db = W * solution[:n] - c, float(solution[n]) - b
        decrement = float(-(grad_c @ dc + grad_b * db))
        margin = min(margin, abs(decrement / 2 - tol) / tol)
        if decrement / 2 <= tol or n_iter == max_iter:
            return c, float(b), n_iter, margin
        eta, value = 1.0, J(c, b)
        while True:
            gap = J(c + eta * dc, b + eta * db) - (value - 1e-4 * eta * decrement)
            margin = min(margin, abs(gap) / max(1e-4 * eta * decrement, 1e-300))
            if not (gap > 0 and eta > 1e-10):
                break
            eta /= 2
        c, b = c + eta * dc, b + eta * db
        n_iter += 1


def minimiser(K, y, lam, **variant):
    """The minimiser (c, b) of J, or of J changed as ``variant`` says (see `newton`)."""
    c, b, *_ = newton(K, y, lam, 1e-14, 200, **variant)
    return c, b


# ----------------------------------------------------------------------------- the answers


def answer(outcome, n, where):
    """The student's (c, b, n_iter) after checking the form of the answer."""
    return vector_number_and_count(
        outcome,
        "klr_newton",
        ("c", "b", "n_iter (the number of Newton steps)"),
        n,
        f"c must have n = {n} entries, one per example, got {n + 1} {where}: return c and b "
        "separately",
        where,
    )


def distance(K, c, b, c_ref, b_ref):
    """max(||f - f_ref|| in the feature space, |b - b_ref|), relative to
    max(1, ||f_ref||, |b_ref|): the difference of two classifiers, whatever c represents them."""
    dc = c - c_ref
    norm = np.sqrt(max(float(c_ref @ K @ c_ref), 0.0))
    return max(np.sqrt(max(float(dc @ K @ dc), 0.0)), abs(b - b_ref)) / max(1.0, norm, abs(b_ref))


def place(n, kernel, lam):
    return f"(n={n}, {kernel} kernel, lam={lam:.3g})"


def variant_objective(K, y, lam, c, b, penalise_bias=False):
    """J with the weight ``lam``, and lam/2 b^2 added if ``penalise_bias``."""
    return objective(K, y, lam, c, b) + (lam / 2 * b * b if penalise_bias else 0.0)


def named_variant(K, y, lam, c, b, where):
    """An AssertionError if (c, b) minimises J with the penalty changed in a way students do:
    its value there is within rounding of the changed J's minimum."""
    n = len(y)
    for lam_v, bias, says in (
        (2 * lam, False, "you minimised J with lam c'Kc: (rr-eq-rlr) has lam/2 c'Kc"),
        (lam / 2, False, "you minimised J with lam/4 c'Kc: (rr-eq-rlr) has lam/2 c'Kc"),
        (
            lam / n,
            False,
            "you divided lam by n: (rr-eq-rlr) sums the losses, it does not "
            "average them, and has lam/2 c'Kc",
        ),
        (lam * n, False, "you multiplied lam by n: (rr-eq-rlr) has lam/2 c'Kc"),
        (
            lam,
            True,
            "you penalised the bias (lam/2 b^2 in J, or lam in the corner of the "
            "Hessian): the book's RLR leaves b free, as LogisticRegression does",
        ),
    ):
        c_v, b_v = minimiser(K, y, lam_v, penalise_bias=bias)
        best = variant_objective(K, y, lam_v, c_v, b_v, bias)
        if variant_objective(K, y, lam_v, c, b, bias) - best <= 1e-9 * max(1.0, best):
            raise AssertionError(f"{says} {where}")


def downhill(K, y, lam, c, b, n_iter, where):
    """An AssertionError if the answer is no better than the start (0, 0)."""
    start = objective(K, y, lam, np.zeros(len(y)), 0.0)
    value = objective(K, y, lam, c, b)
    if n_iter == 0 or not (value < start):
        raise AssertionError(
            f"klr_newton made {n_iter} step(s) and J = {value:.6g} at your answer, J = "
            f"{start:.6g} at the start (0, 0) {where}: your steps do not go downhill. The Newton "
            "step solves (Hessian) (c+ - c, b+ - b) = -(gradient), so the decrement "
            "-(gradient)'(c+ - c, b+ - b) is positive; check the sign of the gradient, "
            "grad_c J = K (lam c - Y sigma(-s)), d J / d b = -y' sigma(-s), and of the working "
            "responses f + Lambda^{-1} Y sigma(-s)"
        )


def flip_diagnosis(K, y, lam, c, b, where):
    """Ask the problem with the labels -y; an AssertionError if the answer is not (-c, -b),
    as it must be: J(c, b; y) = J(-c, -b; -y)."""
    outcome = yield call(K, -y, lam, tol=TOL, max_iter=MAX_ITER)
    c_f, b_f, _ = answer(outcome, len(y), where + " with the labels -y")
    if not (distance(K, c_f, b_f, -c, -b) <= 1e-4):
        raise AssertionError(
            f"with the labels -y your answer is not (-c, -b) {where}, yet flipping every label "
            "flips the minimiser: your formulas treat the two classes differently. Formulas "
            "written for labels t in {0, 1} (sigma(f) - t, t log p + (1 - t) log(1 - p)) do "
            "that when given y in {-1, +1}: here the gradient of the loss in f is "
            "-Y sigma(-s) = t - sigma(f) with t = (y + 1)/2"
        )


def first_step_wrong(K, y, lam, c, b, where):
    """After one step from (0, 0) by (c, b) is not the Newton step: an AssertionError naming
    the mistake when it is a known one (wrong weights or penalty)."""
    n = len(y)
    for weights, says in (
        ("p", "weights 1/2, the probabilities sigma(-s) = p, not p(1 - p) = 1/4"),
        ("none", "weights 1, as if Lambda were I"),
    ):
        c_w, b_w, _, _ = newton(K, y, lam, TOL, 1, weights=weights)
        if distance(K, c, b, c_w, b_w) <= 1e-8:
            raise AssertionError(
                f"your first Newton step from (0, 0) uses {says} {where}: at s = 0 the weight of "
                "every point is sigma'(0) = sigma(0) sigma(-0) = 1/4; "
                "Lambda = diag(sigma(s_i) sigma(-s_i)), p(1 - p) with p = sigma(f)"
            )
    for lam_v, says in (
        (2 * lam, "you used lam c'Kc: (rr-eq-rlr) has lam/2 c'Kc"),
        (lam / 2, "you used lam/4 c'Kc: (rr-eq-rlr) has lam/2 c'Kc"),
        (lam / n, "you divided lam by n: (rr-eq-rlr) sums the losses and has lam/2 c'Kc"),
        (lam * n, "you multiplied lam by n: (rr-eq-rlr) has lam/2 c'Kc"),
    ):
        c_v, b_v, _, _ = newton(K, y, lam_v, TOL, 1)
        if distance(K, c, b, c_v, b_v) <= 1e-8:
            raise AssertionError(f"your first Newton step from (0, 0) is wrong {where}: {says}")
    c_v, b_v, _, _ = newton(K, y, lam, TOL, 1, penalise_bias=True)
    if distance(K, c, b, c_v, b_v) <= 1e-8:
        raise AssertionError(
            f"your first Newton step from (0, 0) is wrong {where}: you penalised the bias; the "
            "book's RLR leaves b free, as LogisticRegression does"
        )


def singular_hint(K):
    """A hint for a wrong answer where K is singular (rank below n), else ''."""
    if np.linalg.matrix_rank(K) < K.shape[0]:
        return (
            ". K is singular here, and so is the Hessian in (c, b): do not solve with either "
            "(rounding makes np.linalg.solve return garbage); solve the weighted RLSC system "
            "(rr-eq-irls), which has one solution for every positive semi-definite K"
        )
    return ""


def converged(K, y, lam, c, b, n_iter, where):
    """Judge an answer of a convergence case (a generator: it may ask the problem with -y):
    J within about tol of its minimum, and the function f that of ksvm.rlr.rlr_newton."""
    if not (0 <= n_iter <= MAX_ITER):
        raise AssertionError(
            f"n_iter = {n_iter} with max_iter = {MAX_ITER} {where}: count the Newton steps taken, "
            "and stop after max_iter of them"
        )
    c_ref, b_ref, best = optimum(K, y, lam)
    value = objective(K, y, lam, c, b)
    gap_ok = value - best <= 100 * TOL + 1e-13 * abs(best)
    if not (gap_ok and distance(K, c, b, c_ref, b_ref) <= 1e-4):
        named_variant(K, y, lam, c, b, where)
        if np.isfinite(value):
            # The cause before its symptom: formulas that treat the classes differently can
            # also end where J is no lower than at the start.
            yield from flip_diagnosis(K, y, lam, c, b, where)
        downhill(K, y, lam, c, b, n_iter, where)
        raise AssertionError(
            f"J = {value:.12g} at your (c, b), its minimum is {best:.12g} (ksvm.rlr.rlr_newton) "
            f"{where}; with tol = {TOL:g} the decrement test leaves J within about tol of it"
            + singular_hint(K)
        )


def too_many_steps(K, y, lam, n_iter, expected, where):
    """The student reached the minimiser in more steps than Newton's method: ask one step from
    (0, 0) to tell wrong weights (a wrong step) from a stopping rule that is not met."""
    outcome = yield call(K, y, lam, tol=TOL, max_iter=1)
    c1, b1, _ = answer(outcome, len(y), where + " with max_iter=1")
    c_ref, b_ref, _, _ = newton(K, y, lam, TOL, 1)
    if distance(K, c1, b1, c_ref, b_ref) <= 1e-6:
        raise AssertionError(
            f"you made {n_iter} Newton steps where the decrement test stops after {expected} "
            f"{where}, and your first step is right: your stopping rule is not met although J is "
            "at its minimum. Stop when half the Newton decrement, "
            "-(grad_c J'(c+ - c) + dJ/db (b+ - b))/2, is at most tol, not on the size of the "
            "gradient (rounding keeps it from falling below a fixed level)"
        )
    first_step_wrong(K, y, lam, c1, b1, where)
    raise AssertionError(
        f"you reach the minimiser, in {n_iter} steps; Newton's method takes {expected} {where}, "
        "and your first step from (0, 0) is not the Newton step. Near the minimiser a Newton "
        "step squares the error; another step converges only linearly: solve (rr-eq-irls) with "
        "Lambda = diag(sigma(s_i) sigma(-s_i))" + singular_hint(K)
    )


def steps_case(K, y, lam, where, compare=None):
    """A convergence case: klr_newton(K, y, lam, TOL, MAX_ITER) against ksvm (and ``compare``),
    and its step count against the prescribed method's (quadratic convergence)."""
    c_n, b_n, expected, _ = newton(K, y, lam, TOL, MAX_ITER)
    c_ref, b_ref, _ = optimum(K, y, lam)
    if not (distance(K, c_n, b_n, c_ref, b_ref) <= 1e-5 and expected < MAX_ITER):
        raise RuntimeError("the check's Newton method disagrees with ksvm.rlr.rlr_newton")

    def judge(outcome):
        c, b, n_iter = answer(outcome, len(y), where)
        yield from converged(K, y, lam, c, b, n_iter, where)
        if compare is not None:
            compare(c, b)
        if not (n_iter <= expected + 1):
            yield from too_many_steps(K, y, lam, n_iter, expected, where)

    return call(K, y, lam, tol=TOL, max_iter=MAX_ITER), judge


def explicit_compare(Phi, y, lam, where):
    """``compare`` for a kernel with explicit features Phi: w = Phi'c and b against
    scikit-learn's LogisticRegression(C=1/lam) on Phi."""
    w_ref, b_ref = sklearn_weights(Phi, y, lam)
    c_k, b_k, _ = optimum(Phi @ Phi.T, y, lam)
    scale = max(1.0, float(np.abs(w_ref).max()), abs(b_ref))
    if not (max(float(np.abs(Phi.T @ c_k - w_ref).max()), abs(b_k - b_ref)) <= 1e-6 * scale):
        raise RuntimeError("scikit-learn's LogisticRegression disagrees with ksvm.rlr.rlr_newton")

    def compare(c, b):
        w = Phi.T @ c
        scale = max(1.0, float(np.abs(w_ref).max()), abs(b_ref))
        error = max(float(np.abs(w - w_ref).max()), abs(b - b_ref)) / scale
        if not (error <= 1e-4):
            raise AssertionError(
                f"w = Phi'c and b differ from those of scikit-learn's LogisticRegression(C=1/lam) "
                f"on the explicit features by {error:.2e} (relative) {where}"
            )

    return compare


@check(
    1,
    "the minimiser, against scikit-learn's LogisticRegression(C=1/lam) on explicit features "
    "and ksvm.rlr",
    "klr_newton",
)
def check_1(rng):
    cases = []
    # The linear kernel: Phi = X, against scikit-learn (K singular when n > d).
    n, d = int(rng.integers(20, 61)), int(rng.integers(2, 5))
    X, y = two_classes(rng, n, d)
    lam = some_lam(rng, 0.05, 5.0)
    where = place(n, "linear", lam)
    cases.append(steps_case(linear_kernel(X), y, lam, where, explicit_compare(X, y, lam, where)))
    # The polynomial kernel (x'z + 1)^p with its explicit features.
    n, degree = int(rng.integers(20, 41)), int(rng.integers(2, 4))
    X, y = two_classes(rng, n, 2)
    lam = some_lam(rng, 0.1, 5.0)
    where = place(n, f"(x'z + 1)^{degree}", lam)
    K = polynomial_kernel(X, degree=degree, gamma=1.0, coef0=1.0)
    Phi = polynomial_feature_map(X, degree=degree, coef0=1.0)
    cases.append(steps_case(K, y, lam, where, explicit_compare(Phi, y, lam, where)))
    # The Gaussian kernel, against ksvm.rlr.rlr_newton only.
    n = int(rng.integers(15, 41))
    X, y = two_classes(rng, n, int(rng.integers(2, 4)), separation=2.0)
    lam = some_lam(rng, 0.05, 2.0)
    K = rbf_kernel(X, gamma=float(rng.uniform(0.2, 1.0)))
    cases.append(steps_case(K, y, lam, place(n, "Gaussian", lam)))
    yield from in_random_order(rng, cases)


# ----------------------------------------------------------------------------- check 2


def first_step_case(K, y, lam, where):
    """The case of check 2: one Newton step from (0, 0) (max_iter=1), with the weights named if
    they are wrong.  From (0, 0) the full step is always taken: the Hessian there, with
    Lambda = I/4, bounds every other from above."""
    c_ref, b_ref, _, _ = newton(K, y, lam, TOL, 1)

    def judge(outcome):
        c, b, n_iter = answer(outcome, len(y), where)
        if n_iter == 0:
            downhill(K, y, lam, c, b, n_iter, where)
        if n_iter != 1:
            raise AssertionError(
                f"with max_iter=1 you report n_iter={n_iter} {where}: take one step and stop"
            )
        if distance(K, c, b, c_ref, b_ref) <= 1e-8:
            return
        first_step_wrong(K, y, lam, c, b, where)
        c_opt, b_opt, _ = optimum(K, y, lam)
        if distance(K, c, b, c_opt, b_opt) <= 1e-6:
            raise AssertionError(
                f"with max_iter=1 you return the minimiser itself {where}: stop after max_iter "
                "Newton steps"
            )
        downhill(K, y, lam, c, b, n_iter, where)
        raise AssertionError(
            f"after one Newton step from (0, 0) your (c, b) differs from the Newton step by "
            f"{distance(K, c, b, c_ref, b_ref):.2e} (relative, in the feature space) {where}: "
            "the step solves (K + lam Lambda^{-1}) c+ + b+ 1 = f + Lambda^{-1} Y sigma(-s), "
            "1'c+ = 0" + singular_hint(K)
        )

    return call(K, y, lam, tol=TOL, max_iter=1), judge


def iterates_case(rng, K, y, lam, where):
    """The case of check 2: k = 2 or 3 steps (max_iter=k), where the loop's decisions are far
    from their thresholds."""
    k = int(rng.integers(2, 4))
    c_ref, b_ref, ref_iter, margin = newton(K, y, lam, TOL, k)
    if ref_iter != k or margin < 1e-3:
        return None

    def judge(outcome):
        c, b, n_iter = answer(outcome, len(y), where)
        if n_iter != k:
            raise AssertionError(
                f"with max_iter={k} you report n_iter={n_iter} {where}: take max_iter steps "
                "(the decrement is still large) and count each one"
            )
        error = distance(K, c, b, c_ref, b_ref)
        if not (error <= 1e-7):
            raise AssertionError(
                f"after {k} Newton steps your (c, b) differs from the prescribed iterate by "
                f"{error:.2e} (relative, in the feature space) {where}: start from (0, 0), and "
                "halve eta from 1 while J(c + eta (c+ - c), b + eta (b+ - b)) > J(c, b) - 1e-4 "
                "eta decrement"
            )

    return call(K, y, lam, tol=TOL, max_iter=k), judge


def scaled_case(K, y, lam, scale, where):
    """The case of check 2: the same problem with K and lam multiplied by ``scale`` (c becomes
    c/scale, f does not change).  The Newton decrement does not change either; the gradient in c
    grows by ``scale``, so a test on its size is never met."""
    _, _, expected, _ = newton(K, y, lam, TOL, MAX_ITER)
    where = where[:-1] + f", K and lam multiplied by {scale:.1e})"

    def judge(outcome):
        c, b, n_iter = answer(outcome, len(y), where)
        if n_iter >= MAX_ITER or not (n_iter <= expected + 1):
            raise AssertionError(
                f"with tol={TOL:g} and max_iter={MAX_ITER} you made {n_iter} steps where Newton's "
                f"method stops after {expected} {where}: your stopping rule cannot be met in "
                "floating point. A test on the size of the gradient carries the scale of K "
                "(grad_c J = K(lam c - Y sigma(-s))) and rounding keeps it above tol; stop when "
                "half the Newton decrement, -(grad_c J'(c+ - c) + dJ/db (b+ - b))/2, is at most "
                "tol"
            )
        yield from converged(scale * K, y, scale * lam, c, b, n_iter, where)

    return call(scale * K, y, scale * lam, tol=TOL, max_iter=MAX_ITER), judge


def stopping_case(K, y, lam, tol, where):
    """The case of check 2: a larger tol stops the loop earlier, on the decrement."""
    _, _, expected, _ = newton(K, y, lam, tol, MAX_ITER)

    def judge(outcome):
        c, b, n_iter = answer(outcome, len(y), where)
        if not (abs(n_iter - expected) <= 1):
            raise AssertionError(
                f"with tol={tol:.0e} you made {n_iter} Newton steps, the decrement test stops "
                f"after {expected} {where}: stop as soon as half the Newton decrement, "
                "-(grad_c J'(c+ - c) + dJ/db (b+ - b))/2, is at most tol"
            )
        value, best = objective(K, y, lam, c, b), optimum(K, y, lam)[2]
        if not (value - best <= 100 * tol):
            raise AssertionError(
                f"stopped by tol={tol:.0e}, J at your (c, b) is {value - best:.2e} above its "
                f"minimum {where}: half the Newton decrement estimates that gap"
            )

    return call(K, y, lam, tol=tol, max_iter=MAX_ITER), judge


@check(2, "the Newton step, the iteration count and a stopping rule that can be met", "klr_newton")
def check_2(rng):
    cases = []
    n = int(rng.integers(15, 41))
    X, y = two_classes(rng, n, int(rng.integers(2, 4)))
    lam = some_lam(rng, 0.1, 3.0)
    K = rbf_kernel(X, gamma=float(rng.uniform(0.2, 1.0)))
    where = place(n, "Gaussian", lam)
    cases.append(first_step_case(K, y, lam, where))
    for _ in range(5):  # a draw whose loop decisions rounding could change is redrawn
        case = iterates_case(rng, K, y, lam, where)
        if case is not None:
            cases.append(case)
            break
    cases.append(stopping_case(K, y, lam, float(10 ** rng.uniform(-6, -3)), where))
    n = int(rng.integers(20, 41))
    X, y = two_classes(rng, n, int(rng.integers(2, 4)))
    lam = some_lam(rng, 0.1, 3.0)
    cases.append(
        scaled_case(
            linear_kernel(X), y, lam, float(10 ** rng.uniform(5, 7)), place(n, "linear", lam)
        )
    )
    yield from in_random_order(rng, cases)


# ----------------------------------------------------------------------------- check 3


def raises_case(K, y, lam, why):
    """A case of check 3 where klr_newton must raise ValueError, because ``why``."""

    def judge(outcome):
        outcome.expect_raised("ValueError", f"klr_newton must raise ValueError when {why}")

    return call(K, y, lam), judge


def bias_only_case(rng):
    """The case of check 3: K = 0 (singular), so f = b, and the minimiser is b = log(n+/n-)."""
    n_pos, n_neg = int(rng.integers(2, 9)), int(rng.integers(2, 9))
    while n_pos == n_neg:
        n_neg = int(rng.integers(2, 9))
    y = rng.permutation(np.r_[np.ones(n_pos), -np.ones(n_neg)])
    K, lam = np.zeros((len(y), len(y))), some_lam(rng, 0.1, 3.0)
    expected = float(np.log(n_pos / n_neg))
    where = f"(K = 0, the n x n zero matrix, {n_pos} positive and {n_neg} negative labels)"

    def judge(outcome):
        if outcome.raised_a("LinAlgError"):
            raise AssertionError(
                f"klr_newton raised LinAlgError ({outcome.message}) {where}: K is singular, and so "
                "is the Hessian in (c, b); solve the weighted RLSC system (rr-eq-irls), "
                "(K + lam Lambda^{-1}) c+ + b+ 1 = f + Lambda^{-1} Y sigma(-s), 1'c+ = 0, "
                "which has one solution for every positive semi-definite K, and never invert K"
            )
        _, b, n_iter = answer(outcome, len(y), where)
        if not (1 <= n_iter < MAX_ITER):
            raise AssertionError(
                f"n_iter = {n_iter} with tol = {TOL:g} and max_iter = {MAX_ITER} {where}: "
                "Newton's method in b alone needs a handful of steps"
            )
        if not (abs(b - expected) <= 1e-6):
            raise AssertionError(
                f"b = {b:.6g}, expected log(n+/n-) = {expected:.6g} {where}: with K = 0 the model "
                "is the constant b, and J(b) = n+ log(1 + e^{-b}) + n- log(1 + e^{b})"
            )

    return call(K, y, lam, tol=TOL, max_iter=MAX_ITER), judge


def separable_case(rng):
    """The case of check 3: separable data, where lam = 0 has no minimiser but lam > 0 has."""
    n, d = int(rng.integers(20, 41)), int(rng.integers(2, 4))
    X, y = separable(rng, n, d)
    lam = some_lam(rng, 0.01, 0.1)
    where = (
        f"(n={n} separable points, linear kernel, lam={lam:.3g}: without the penalty J has no "
        "minimiser)"
    )
    return steps_case(linear_kernel(X), y, lam, where, explicit_compare(X, y, lam, where))


def singular_case(rng):
    """The case of check 3: a singular K, the linear kernel of many points in few dimensions,
    with repeated points."""
    n, d = int(rng.integers(30, 61)), int(rng.integers(1, 3))
    X, y = two_classes(rng, n, d)
    X[: n // 3] = X[n // 3 : 2 * (n // 3)]  # a third of the points twice
    lam = some_lam(rng, 0.1, 3.0)
    where = f"(n={n} points in {d} dimension(s), some repeated: K = XX' is singular, lam={lam:.3g})"
    base_K = linear_kernel(X)
    base = steps_case(base_K, y, lam, where, explicit_compare(X, y, lam, where))

    def judge(outcome):
        if outcome.raised_a("LinAlgError"):
            raise AssertionError(
                f"klr_newton raised LinAlgError ({outcome.message}) {where}" + singular_hint(base_K)
            )
        try:  # any other wrong answer here comes with the hint about the singular K
            verdict = base[1](outcome)
            if inspect.isgenerator(verdict):
                yield from verdict
        except AssertionError as exc:
            if "do not solve with either" in str(exc):
                raise
            raise AssertionError(f"{exc}{singular_hint(base_K)}") from None

    return base[0], judge


def integer_labels_case(rng):
    """The case of check 3: labels as an int array."""
    n = int(rng.integers(15, 31))
    X, y = two_classes(rng, n, 2)
    lam = some_lam(rng, 0.1, 3.0)
    where = f"(n={n}, integer labels y, an int array of -1 and 1, Gaussian kernel)"
    return steps_case(rbf_kernel(X, gamma=0.5), y.astype(int), lam, where)


@check(3, "separable data, a singular K, and the inputs that have no minimiser", "klr_newton")
def check_3(rng):
    # The singular K first: a solver that inverts K or the Hessian is told so there, before the
    # separable case, where the same mistake may show only as a wrong J or a late stop.
    cases = [singular_case(rng), separable_case(rng), bias_only_case(rng)]
    cases.append(integer_labels_case(rng))
    n = int(rng.integers(4, 12))
    X = rng.normal(size=(n, 2))
    K = rbf_kernel(X, gamma=0.5)
    label = float(rng.choice([-1.0, 1.0]))
    cases.append(
        raises_case(
            K,
            np.full(n, label),
            some_lam(rng, 0.1, 3.0),
            f"all labels are {label:+g}: the bias is not penalised, so J falls without end as "
            f"{label:+g} b grows, and has no minimiser",
        )
    )
    y01 = rng.permutation(np.r_[np.ones(n - n // 2), np.zeros(n // 2)])
    cases.append(
        raises_case(
            K,
            y01,
            some_lam(rng, 0.1, 3.0),
            "the labels are 0 and 1: the formulas of the task hold for labels -1 and +1 only",
        )
    )
    y = rng.permutation(np.r_[np.ones(n - n // 2), -np.ones(n // 2)])
    lam = float(rng.choice([0.0, -some_lam(rng, 0.1, 3.0)]))
    cases.append(
        raises_case(
            K,
            y,
            lam,
            f"lam = {lam:g}: without a positive penalty J need not have a minimiser (separable "
            "data drive it to 0 as c grows)",
        )
    )
    yield from in_random_order(rng, cases)


CHECKS = [check_1, check_2, check_3]
