"""The checks of assignment 2, the linear Lagrangian SVM (Code 2 of Mangasarian & Musicant).

In the book's notation: n points in d dimensions, the rows of X, labels y in {-1, +1},
Y = diag(y), 1 the vector of ones, H = Y[X 1], M = I/nu + HH', multipliers alpha, step eta,
the plane w'x + b = 0.  The numbers (7), (11), (15) are the paper's.
"""

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from assignments.checks import (
    call,
    check,
    in_random_order,
    quietly,
    vector_number_and_count,
)
from ksvm.lsvm import lsvm_linear as reference_lsvm

ASSIGNMENT = "02_lsvm_linear"


def two_classes(rng, n, d):
    """n points in R^d, labels +-1 (both present, shuffled), the plane away from the origin."""
    v = rng.normal(size=d)
    v /= np.linalg.norm(v)
    y = rng.permutation(np.r_[np.ones(n - n // 2), -np.ones(n // 2)])
    X = rng.normal(scale=0.6, size=(n, d)) + (2.0 + y)[:, None] * v
    return X, y


def some_nu(rng, low=0.5, high=2.0):
    """A weight nu drawn log-uniformly in [low, high]."""
    return float(np.exp(rng.uniform(np.log(low), np.log(high))))


def answer(outcome, d, where):
    """The student's (w, b, n_iter) from ``outcome``, after checking the form of the answer:
    w a vector of d finite floats, b a finite number, n_iter an integer."""
    return vector_number_and_count(
        outcome,
        "lsvm_linear",
        ("w", "b", "n_iter (the number of iterations)"),
        d,
        f"w must have d = {d} entries, one per feature, got {d + 1}: H'alpha stacks "
        "w = X'Y alpha and b = 1'Y alpha; return them separately",
        where,
    )


def counted(n_iter, max_iter, where):
    """An iteration count must be between 1 and max_iter (checks 1 and 3 leave its exact
    value to check 2; assignment 8's check 2 leaves it to its check 3)."""
    if not (1 <= n_iter <= max_iter):
        raise AssertionError(
            f"you report n_iter={n_iter} iterations with max_iter={max_iter} {where}: count every "
            "computed alpha^(t+1), and stop after max_iter iterations"
        )


def reference(X, y, nu, max_iter, tol):
    # the reference warns when it stops at max_iter
    return quietly(ConvergenceWarning, reference_lsvm, X, y, nu=nu, max_iter=max_iter, tol=tol)


def errors(w, b, ref):
    """The errors of w and b relative to max(1, max |w_ref|, |b_ref|), and that scale."""
    scale = max(1.0, float(np.abs(ref.w).max()), abs(ref.b))
    return float(np.abs(w - ref.w).max()) / scale, abs(b - ref.b) / scale, scale


def agree(w, b, ref, tol, says):
    """Pass if w and b are within ``tol`` of ``ref`` (relative); else fail with
    ``says(w_error, b_error)``."""
    w_error, b_error, _ = errors(w, b, ref)
    if not (w_error <= tol and b_error <= tol):
        raise AssertionError(says(w_error, b_error))


def place(n, d, nu):
    return f"(n={n}, d={d}, nu={nu:.3g})"


def solution_case(X, y, nu):
    """The case of check 1: lsvm_linear run to convergence, against ksvm and against the
    primal (7)."""
    (n, d), max_iter, tol = X.shape, 5000, 1e-10
    where = place(n, d, nu)

    def judge(outcome):
        w, b, n_iter = answer(outcome, d, where)
        counted(n_iter, max_iter, where)
        ref = reference(X, y, nu, max_iter, tol)
        w_error, b_error, scale = errors(w, b, ref)
        w_ok, b_ok = w_error <= 1e-6, b_error <= 1e-6
        if w_ok and not b_ok and abs(b + ref.b) <= 1e-6 * scale:
            raise AssertionError(
                f"b has the wrong sign {where}: b = 1'Y alpha, since H = Y[X  1]; the plane is "
                "w'x + b = 0, so b is minus the paper's gamma"
            )
        if not w_ok and np.abs(w + ref.w).max() <= 1e-6 * scale:
            raise AssertionError(f"w has the wrong sign {where}: w = X'Y alpha")
        if not w_ok:
            raise AssertionError(
                f"w differs from ksvm.lsvm.lsvm_linear by {w_error:.2e} (relative) {where}: "
                "check H = Y[X  1], M^{-1} by Sherman-Morrison-Woodbury, "
                "nu (I - H (I/nu + H'H)^{-1} H'), "
                "and the iteration alpha = M^{-1}(1 + ((M alpha - 1) - eta alpha)_+)"
            )
        if not b_ok:
            raise AssertionError(
                f"b differs from ksvm.lsvm.lsvm_linear: {b:.6g} instead of {ref.b:.6g} "
                f"{where}: b = 1'Y alpha"
            )
        # Independent of ksvm: (w, b) minimises
        # nu/2 ||(1 - Y(Xw + b 1))_+||^2 + (w'w + b^2)/2.
        r = y * np.maximum(1.0 - y * (X @ w + b), 0.0)
        gradient = np.linalg.norm(np.r_[w - nu * (X.T @ r), b - nu * r.sum()])
        if not (gradient <= 1e-6 * scale):
            raise AssertionError(
                f"(w, b) does not minimise the LSVM problem (7) {where}: the gradient of "
                f"nu/2 ||(1 - Y(Xw + b 1))_+||^2 + (w'w + b^2)/2 has norm {gradient:.2e}"
            )

    return call(X, y, nu, max_iter=max_iter, tol=tol), judge


@check(
    1,
    "the solution, against ksvm.lsvm.lsvm_linear and against the optimality of the primal (7)",
    "lsvm_linear",
)
def check_1(rng):
    shapes = [
        (int(rng.integers(20, 51)), int(rng.integers(2, 4)), some_nu(rng)),
        (
            int(rng.integers(150, 251)),
            int(rng.integers(4, 7)),
            some_nu(rng, 0.07, 0.15),
        ),  # a small nu
        (int(rng.integers(150, 251)), int(rng.integers(4, 7)), some_nu(rng)),
        (
            int(rng.integers(8, 16)),
            int(rng.integers(30, 51)),
            some_nu(rng),
        ),  # more features than points
        (int(rng.integers(5, 10)), 1, some_nu(rng, 7.0, 14.0)),  # one feature, a large nu
        (2, 1, some_nu(rng)),
    ]  # two points
    cases = []
    for n, d, nu in shapes:
        X, y = two_classes(rng, n, d)
        cases.append(solution_case(X, y, nu))
    yield from in_random_order(rng, cases)


def iterates_case(X, y, nu, k):
    """The case of check 2: lsvm_linear stopped after k iterations
    (tol too small to stop it before)."""
    (n, d), tol = X.shape, 1e-14
    where = place(n, d, nu)

    def judge(outcome):
        w, b, n_iter = answer(outcome, d, where)
        ref = reference(X, y, nu, k, tol)
        if n_iter != ref.n_iter:
            raise AssertionError(
                f"with max_iter={k} you report n_iter={n_iter}, ksvm.lsvm.lsvm_linear made "
                f"{ref.n_iter} iterations {where}: stop after max_iter iterations, and count "
                "every computed alpha^(t+1)"
            )
        w_error, b_error, _ = errors(w, b, ref)
        if not (w_error <= 1e-8 and b_error <= 1e-8):
            part = "w" if not (w_error <= 1e-8) else "b"
            raise AssertionError(
                f"after {k} iteration(s) {part} differs from that of ksvm.lsvm.lsvm_linear by "
                f"{max(w_error, b_error):.2e} (relative) {where}, although the fixed point can "
                "be right (check 1): check the start alpha^0 = M^{-1} 1, the step eta = 1.9 / nu "
                "and the update alpha^(t+1) = M^{-1}(1 + ((M alpha^t - 1) - eta alpha^t)_+)"
            )

    return call(X, y, nu, max_iter=k, tol=tol), judge


def stopping_case(X, y, nu, tol):
    """The case of check 2: lsvm_linear stopped by tol, with the iteration count of ksvm
    (one more or less)."""
    (n, d), max_iter = X.shape, 5000
    where = place(n, d, nu)

    def judge(outcome):
        w, b, n_iter = answer(outcome, d, where)
        ref = reference(X, y, nu, max_iter, tol)
        if not (abs(n_iter - ref.n_iter) <= 1):
            raise AssertionError(
                f"you made {n_iter} iterations, ksvm.lsvm.lsvm_linear {ref.n_iter} with the same "
                f"tol={tol:.0e} {where}: stop as soon as ||alpha^(t+1) - alpha^t|| <= tol"
            )
        agree(
            w,
            b,
            ref,
            1e-5,
            lambda *error: (
                f"stopped by tol={tol:.0e} after {n_iter} iterations, (w, b) differs from that of "
                f"ksvm.lsvm.lsvm_linear by {max(error):.2e} (relative) {where}"
            ),
        )

    return call(X, y, nu, max_iter=max_iter, tol=tol), judge


@check(2, "the iterates and the iteration count", "lsvm_linear")
def check_2(rng):
    cases = []
    for n, d in [
        (int(rng.integers(20, 41)), int(rng.integers(2, 4))),
        (int(rng.integers(150, 251)), int(rng.integers(4, 7))),
    ]:
        X, y, nu = *two_classes(rng, n, d), some_nu(rng)
        for k in (1, int(rng.integers(2, 4)), int(rng.integers(4, 9))):
            cases.append(iterates_case(X, y, nu, k))
        cases.append(stopping_case(X, y, nu, float(10 ** rng.uniform(-9, -7))))
    yield from in_random_order(rng, cases)


def memory_case(rng):
    """The case of check 3: a large problem, with a memory budget of a quarter of one
    n x n matrix."""
    n, d, nu, max_iter, tol = 3000, 4, some_nu(rng), int(rng.integers(2, 6)), 1e-8
    X, y = two_classes(rng, n, d)
    budget = n * n * 8 // 4
    where = f"(n={n}, d={d}, nu={nu:.3g}, max_iter={max_iter}, in the call under a memory limit)"

    def judge(outcome):
        if outcome.raised_a("MemoryError") or not (outcome.peak is None or outcome.peak <= budget):
            used = (
                f"{outcome.peak / 1e6:.0f} MB"
                if outcome.peak is not None
                else f"more than {budget / 1e6:.0f} MB"
            )
            raise AssertionError(
                f"lsvm_linear allocated {used} for n = {n} points in {d} dimensions: it forms an "
                f"n x n matrix ({n * n * 8 / 1e6:.0f} MB each), such as Y = np.diag(y), HH' or M. "
                "Multiply by y entry by entry and apply M^{-1} by Sherman-Morrison-Woodbury"
            )
        w, b, n_iter = answer(outcome, d, where)  # raises what the call raised, if it did
        ref = reference(X, y, nu, max_iter, tol)
        if n_iter != ref.n_iter:
            raise AssertionError(
                f"with max_iter={max_iter} you report n_iter={n_iter}, ksvm.lsvm.lsvm_linear made "
                f"{ref.n_iter} iterations {where}"
            )
        agree(
            w,
            b,
            ref,
            1e-8,
            lambda w_error, b_error: (
                f"(w, b) differs from that of ksvm.lsvm.lsvm_linear by {w_error:.1e} in w and "
                f"{b_error:.1e} in b (relative) {where}"
            ),
        )

    return call(X, y, nu, max_iter=max_iter, tol=tol, memory=budget), judge


def agrees_case(X, y, nu, what):
    """The case of check 3: (w, b) against ksvm, with ``what`` said of the data if they
    differ."""
    (n, d), max_iter, tol = X.shape, 5000, 1e-10
    where = place(n, d, nu)

    def judge(outcome):
        w, b, n_iter = answer(outcome, d, where)
        counted(n_iter, max_iter, where)
        agree(
            w,
            b,
            reference(X, y, nu, max_iter, tol),
            1e-6,
            lambda *error: (
                f"with {what} (w, b) differs from ksvm.lsvm.lsvm_linear by {max(error):.2e} "
                f"(relative) {where}"
            ),
        )

    return call(X, y, nu, max_iter=max_iter, tol=tol), judge


@check(3, "memory (no n x n matrix), labels as integers, more features than points", "lsvm_linear")
def check_3(rng):
    cases = [memory_case(rng)]
    X, y = two_classes(rng, int(rng.integers(20, 61)), int(rng.integers(2, 5)))
    cases.append(
        agrees_case(
            X, y.astype(int), some_nu(rng, 0.3, 3.0), "integer labels y (an int array of -1 and 1)"
        )
    )
    n, d = int(rng.integers(3, 8)), int(rng.integers(30, 61))
    X, y = two_classes(rng, n, d)
    cases.append(agrees_case(X, y, some_nu(rng), f"more features than points (n={n}, d={d})"))
    yield from in_random_order(rng, cases)


CHECKS = [check_1, check_2, check_3]
