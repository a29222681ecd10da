"""The checks of assignment 2, the linear Lagrangian SVM (Code 2)."""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from assignments.checks import call, check, in_random_order, parts, vector_and_number, whole_number
from ksvm.lsvm import lsvm_linear as reference_lsvm

ASSIGNMENT = "02_lsvm_linear"


def two_classes(rng, m, n):
    """m points in R^n, labels +-1 (both present, shuffled), the plane away from the origin."""
    v = rng.normal(size=n)
    v /= np.linalg.norm(v)
    d = rng.permutation(np.r_[np.ones(m - m // 2), -np.ones(m // 2)])
    A = rng.normal(scale=0.6, size=(m, n)) + (2.0 + d)[:, None] * v
    return A, d


def some_nu(rng, low=0.5, high=2.0):
    """A weight nu drawn log-uniformly in [low, high]."""
    return float(np.exp(rng.uniform(np.log(low), np.log(high))))


def answer(outcome, n, where):
    """The student's (w, gamma, it) from ``outcome``, after checking the form of the answer:
    w a vector of n finite floats, gamma a finite number, it an integer."""
    w, gamma, it = parts(outcome.result, 3, "lsvm_linear must return the tuple (w, gamma, it)")
    w, gamma = vector_and_number(
        w,
        gamma,
        n,
        ("w", "gamma"),
        f"w must have n = {n} entries, one per feature, got {n + 1}: H'u stacks w = A'Du and "
        "gamma = -e'Du; return them separately",
        where=where,
        function="lsvm_linear",
    )
    return w, gamma, whole_number(it, "lsvm_linear", "it (the number of iterations)", where)


def counted(it, max_iter, where):
    """An iteration count must be between 1 and max_iter (checks 1 and 3 leave its exact
    value to check 2)."""
    if not (1 <= it <= max_iter):
        raise AssertionError(
            f"you report it={it} iterations with max_iter={max_iter} {where}: count every computed "
            "u^(i+1), and stop after max_iter iterations"
        )


def reference(A, d, nu, max_iter, tol):
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", ConvergenceWarning
        )  # the reference warns when it stops at max_iter
        return reference_lsvm(A, d, nu=nu, max_iter=max_iter, tol=tol)


def errors(w, gamma, ref):
    """The errors of w and gamma relative to max(1, max |w_ref|, |gamma_ref|), and that scale
    (ksvm returns the book's offset b, and Code 2's gamma is -b)."""
    scale = max(1.0, float(np.abs(ref.w).max()), abs(ref.b))
    return float(np.abs(w - ref.w).max()) / scale, abs(gamma + ref.b) / scale, scale


def agree(w, gamma, ref, tol, says):
    """Pass if w and gamma are within ``tol`` of ``ref`` (relative); else fail with
    ``says(error)``."""
    w_error, gamma_error, _ = errors(w, gamma, ref)
    if not (w_error <= tol and gamma_error <= tol):
        raise AssertionError(says(w_error, gamma_error))


def place(m, n, nu):
    return f"(m={m}, n={n}, nu={nu:.3g})"


def solution_case(A, d, nu):
    """The case of check 1: lsvm_linear run to convergence, against ksvm and against the
    primal (7)."""
    (m, n), max_iter, tol = A.shape, 5000, 1e-10
    where = place(m, n, nu)

    def judge(outcome):
        w, gamma, it = answer(outcome, n, where)
        counted(it, max_iter, where)
        ref = reference(A, d, nu, max_iter, tol)
        w_error, gamma_error, scale = errors(w, gamma, ref)
        w_ok, gamma_ok = w_error <= 1e-6, gamma_error <= 1e-6
        if w_ok and not gamma_ok and abs(gamma - ref.b) <= 1e-6 * scale:
            raise AssertionError(
                f"gamma has the wrong sign {where}: gamma = -e'Du, since H = D[A  -e]; the plane "
                "is x'w = gamma"
            )
        if not w_ok and np.abs(w + ref.w).max() <= 1e-6 * scale:
            raise AssertionError(f"w has the wrong sign {where}: w = A'Du")
        if not w_ok:
            raise AssertionError(
                f"w differs from ksvm.lsvm.lsvm_linear by {w_error:.2e} (relative) {where}: "
                "check H = D[A  -e], Q^{-1} by Sherman-Morrison-Woodbury, "
                "nu (I - H (I/nu + H'H)^{-1} H'), "
                "and the iteration u = Q^{-1}(e + ((Qu - e) - alpha u)_+)"
            )
        if not gamma_ok:
            raise AssertionError(
                f"gamma differs from ksvm.lsvm.lsvm_linear: {gamma:.6g} instead of {-ref.b:.6g} "
                f"{where}: gamma = -e'Du"
            )
        # Independent of ksvm: (w, gamma) minimises
        # nu/2 ||(e - D(Aw - e gamma))_+||^2 + (w'w + gamma^2)/2.
        r = d * np.maximum(1.0 - d * (A @ w - gamma), 0.0)
        gradient = np.linalg.norm(np.r_[w - nu * (A.T @ r), gamma + nu * r.sum()])
        if not (gradient <= 1e-6 * scale):
            raise AssertionError(
                f"(w, gamma) does not minimise the LSVM problem (7) {where}: the gradient of "
                f"nu/2 ||(e - D(Aw - e gamma))_+||^2 + (w'w + gamma^2)/2 has norm {gradient:.2e}"
            )

    return call(A, d, nu, max_iter=max_iter, tol=tol), judge


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
    for m, n, nu in shapes:
        A, d = two_classes(rng, m, n)
        cases.append(solution_case(A, d, nu))
    yield from in_random_order(rng, cases)


def iterates_case(A, d, nu, k):
    """The case of check 2: lsvm_linear stopped after k iterations
    (tol too small to stop it before)."""
    (m, n), tol = A.shape, 1e-14
    where = place(m, n, nu)

    def judge(outcome):
        w, gamma, it = answer(outcome, n, where)
        ref = reference(A, d, nu, k, tol)
        if it != ref.n_iter:
            raise AssertionError(
                f"with max_iter={k} you report it={it}, ksvm.lsvm.lsvm_linear made {ref.n_iter} "
                f"iterations {where}: stop after max_iter iterations, and count every computed "
                "u^(i+1)"
            )
        w_error, gamma_error, _ = errors(w, gamma, ref)
        if not (w_error <= 1e-8 and gamma_error <= 1e-8):
            part = "w" if not (w_error <= 1e-8) else "gamma"
            raise AssertionError(
                f"after {k} iteration(s) {part} differs from that of ksvm.lsvm.lsvm_linear by "
                f"{max(w_error, gamma_error):.2e} (relative) {where}, although the fixed point can "
                "be right (check 1): check the start u^0 = Q^{-1} e, the step alpha = 1.9 / nu "
                "and the update u^(i+1) = Q^{-1}(e + ((Qu^i - e) - alpha u^i)_+)"
            )

    return call(A, d, nu, max_iter=k, tol=tol), judge


def stopping_case(A, d, nu, tol):
    """The case of check 2: lsvm_linear stopped by tol, with the iteration count of ksvm
    (one more or less)."""
    (m, n), max_iter = A.shape, 5000
    where = place(m, n, nu)

    def judge(outcome):
        w, gamma, it = answer(outcome, n, where)
        ref = reference(A, d, nu, max_iter, tol)
        if not (abs(it - ref.n_iter) <= 1):
            raise AssertionError(
                f"you made {it} iterations, ksvm.lsvm.lsvm_linear {ref.n_iter} with the same "
                f"tol={tol:.0e} {where}: stop as soon as ||u^(i+1) - u^i|| <= tol"
            )
        agree(
            w,
            gamma,
            ref,
            1e-5,
            lambda *error: (
                f"stopped by tol={tol:.0e} after {it} iterations, (w, gamma) differs from that of "
                f"ksvm.lsvm.lsvm_linear by {max(error):.2e} (relative) {where}"
            ),
        )

    return call(A, d, nu, max_iter=max_iter, tol=tol), judge


@check(2, "the iterates and the iteration count", "lsvm_linear")
def check_2(rng):
    cases = []
    for m, n in [
        (int(rng.integers(20, 41)), int(rng.integers(2, 4))),
        (int(rng.integers(150, 251)), int(rng.integers(4, 7))),
    ]:
        A, d, nu = *two_classes(rng, m, n), some_nu(rng)
        for k in (1, int(rng.integers(2, 4)), int(rng.integers(4, 9))):
            cases.append(iterates_case(A, d, nu, k))
        cases.append(stopping_case(A, d, nu, float(10 ** rng.uniform(-9, -7))))
    yield from in_random_order(rng, cases)


def memory_case(rng):
    """The case of check 3: a large problem, with a memory budget of a quarter of one
    m x m matrix."""
    m, n, nu, max_iter, tol = 3000, 4, some_nu(rng), int(rng.integers(2, 6)), 1e-8
    A, d = two_classes(rng, m, n)
    budget = m * m * 8 // 4
    where = f"(m={m}, n={n}, nu={nu:.3g}, max_iter={max_iter}, in the call under a memory limit)"

    def judge(outcome):
        if outcome.raised_a("MemoryError") or not (outcome.peak is None or outcome.peak <= budget):
            used = (
                f"{outcome.peak / 1e6:.0f} MB"
                if outcome.peak is not None
                else f"more than {budget / 1e6:.0f} MB"
            )
            raise AssertionError(
                f"lsvm_linear allocated {used} for m = {m} points in {n} dimensions: it forms an "
                f"m x m matrix ({m * m * 8 / 1e6:.0f} MB each), such as D = np.diag(d), HH' or Q. "
                "Multiply by d entry by entry and apply Q^{-1} by Sherman-Morrison-Woodbury"
            )
        w, gamma, it = answer(outcome, n, where)  # raises what the call raised, if it did
        ref = reference(A, d, nu, max_iter, tol)
        if it != ref.n_iter:
            raise AssertionError(
                f"with max_iter={max_iter} you report it={it}, ksvm.lsvm.lsvm_linear made "
                f"{ref.n_iter} iterations {where}"
            )
        agree(
            w,
            gamma,
            ref,
            1e-8,
            lambda w_error, gamma_error: (
                f"(w, gamma) differs from that of ksvm.lsvm.lsvm_linear by {w_error:.1e} in w and "
                f"{gamma_error:.1e} in gamma (relative) {where}"
            ),
        )

    return call(A, d, nu, max_iter=max_iter, tol=tol, memory=budget), judge


def agrees_case(A, d, nu, what):
    """The case of check 3: (w, gamma) against ksvm, with ``what`` said of the data if they
    differ."""
    (m, n), max_iter, tol = A.shape, 5000, 1e-10
    where = place(m, n, nu)

    def judge(outcome):
        w, gamma, it = answer(outcome, n, where)
        counted(it, max_iter, where)
        agree(
            w,
            gamma,
            reference(A, d, nu, max_iter, tol),
            1e-6,
            lambda *error: (
                f"with {what} (w, gamma) differs from ksvm.lsvm.lsvm_linear by {max(error):.2e} "
                f"(relative) {where}"
            ),
        )

    return call(A, d, nu, max_iter=max_iter, tol=tol), judge


@check(3, "memory (no m x m matrix), labels as integers, more features than points", "lsvm_linear")
def check_3(rng):
    cases = [memory_case(rng)]
    A, d = two_classes(rng, int(rng.integers(20, 61)), int(rng.integers(2, 5)))
    cases.append(
        agrees_case(
            A, d.astype(int), some_nu(rng, 0.3, 3.0), "integer labels d (an int array of -1 and 1)"
        )
    )
    m, n = int(rng.integers(3, 8)), int(rng.integers(30, 61))
    A, d = two_classes(rng, m, n)
    cases.append(agrees_case(A, d, some_nu(rng), f"more features than points (m={m}, n={n})"))
    yield from in_random_order(rng, cases)


CHECKS = [check_1, check_2, check_3]
