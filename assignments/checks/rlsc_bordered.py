"""The checks of assignment 3, the bordered system of regularized least squares."""

import numpy as np

from assignments.checks import (
    call,
    check,
    close,
    finite,
    in_random_order,
    parts,
    relative_error,
    vector_and_number,
)
from ksvm.kernels import linear_kernel, polynomial_kernel, rbf_kernel
from ksvm.rlsc import bordered_system as reference_system
from ksvm.rlsc import rlsc_direct

ASSIGNMENT = "03_rlsc_bordered"


def labels(rng, n):
    """n labels in {-1, +1}, both classes present (n >= 2), in random order."""
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[:2] = [-1.0, 1.0]
    return rng.permutation(y)


def some_lam(rng, low, high):
    """A lam drawn log-uniformly in [low, high]."""
    return float(10 ** rng.uniform(np.log10(low), np.log10(high)))


def problems(rng):
    """Gram matrices of several kernels and sizes, with labels and a lam: (K, y, lam, where)."""
    sizes = [
        (2, int(rng.integers(1, 4)), "rbf"),
        (int(rng.integers(4, 9)), int(rng.integers(1, 4)), "linear"),
        (int(rng.integers(10, 17)), int(rng.integers(2, 5)), "rbf"),
        (int(rng.integers(25, 36)), int(rng.integers(3, 6)), "poly"),
        (int(rng.integers(50, 71)), int(rng.integers(2, 4)), "linear"),
    ]
    for n, d, kernel in sizes:
        X = rng.normal(size=(n, d))
        if kernel == "rbf":
            K = rbf_kernel(X, gamma=float(rng.uniform(0.2, 2.0)))
        elif kernel == "linear":
            K = linear_kernel(X)
        else:
            K = polynomial_kernel(X, degree=2, coef0=float(rng.uniform(0.5, 1.5)))
        yield K, labels(rng, n), some_lam(rng, 0.01, 10.0), f"(n={n}, {kernel} kernel)"


def system_case(K, y, lam, where):
    """The case of check 1: bordered_system(K, y, lam) against ksvm, with the common
    mistakes named."""
    n = K.shape[0]
    if n == 1:  # ksvm refuses a single class; the system is [[K_11 + lam, 1], [1, 0]], [y_1, 0]
        A_ref, rhs_ref = np.array([[K[0, 0] + lam, 1.0], [1.0, 0.0]]), np.array([y[0], 0.0])
    else:
        A_ref, rhs_ref = reference_system(K, y, lam)

    def judge(outcome):
        A, rhs = parts(outcome.result, 2, "bordered_system must return the pair (A, rhs)")
        A, rhs = (
            finite(A, "bordered_system", "A", where),
            finite(rhs, "bordered_system", "rhs", where),
        )
        if A.shape == (n, n):
            if close(A, K + lam * np.eye(n)):
                raise AssertionError(
                    f"you returned K + lam*I without the border row and column {where}: A must be "
                    f"(n+1) x (n+1) = {A_ref.shape}, with ones in the last row and column and 0 in "
                    "the corner"
                )
            raise AssertionError(
                f"A has the shape {A.shape}, expected {A_ref.shape}: the border is missing {where}"
            )
        if A.shape != A_ref.shape:
            raise AssertionError(f"A has the shape {A.shape}, expected {A_ref.shape} {where}")
        block = A[:n, :n]
        if not close(block, K + lam * np.eye(n)):
            if close(block, K):
                hint = "lam*I is missing: the top-left block is K + lam I"
            elif close(block, K + lam):
                hint = "you added lam to every entry of K; only the diagonal gets lam: K + lam I"
            elif close(block, K + np.eye(n)):
                hint = "you added I, not lam*I"
            else:
                hint = (
                    f"it differs from K + lam I by {relative_error(block, K + lam * np.eye(n)):.2e}"
                )
            raise AssertionError(f"the top-left n x n block of A is wrong {where}: {hint}")
        if not (np.all(A[:n, n] == 1.0) and np.all(A[n, :n] == 1.0)):
            raise AssertionError(
                f"the last column and the last row of A must be ones {where}: the column carries b "
                "in (K + lam I) c + b 1 = y, the row is the equation 1'c = 0"
            )
        if A[n, n] != 0.0:
            extra = (
                " (you added lam*I to the whole matrix, corner included)"
                if np.isclose(A[n, n], lam)
                else ""
            )
            raise AssertionError(
                f"the corner entry A[n, n] must be 0, got {A[n, n]:.6g}{extra} {where}: "
                "b does not appear in the equation 1'c = 0"
            )
        if rhs.shape != rhs_ref.shape:
            raise AssertionError(
                f"rhs has the shape {rhs.shape}, expected {rhs_ref.shape}: [y; 0] {where}"
            )
        if not np.array_equal(rhs, rhs_ref):
            raise AssertionError(
                f"rhs must be [y; 0]: the labels, then a 0 for the equation 1'c = 0 {where}"
            )
        if not close(A, A_ref, tol=1e-15):
            raise AssertionError(
                f"A differs from ksvm.rlsc.bordered_system by {relative_error(A, A_ref):.2e} "
                f"{where}"
            )

    return call(K, y, lam), judge


@check(1, "bordered_system against ksvm.rlsc.bordered_system", "bordered_system")
def check_1(rng):
    cases = [system_case(*problem) for problem in problems(rng)]
    # n = 1: the system is [[K_11 + lam, 1], [1, 0]], [y_1, 0]
    cases.append(
        system_case(
            np.array([[float(rng.uniform(0.1, 3.0))]]),
            np.array([rng.choice([-1.0, 1.0])]),
            some_lam(rng, 0.01, 10.0),
            "(n=1, one example)",
        )
    )
    yield from in_random_order(rng, cases)


def solution(outcome, n, where):
    """The student's (c, b) from ``outcome``: c a vector of n finite floats, b a finite number."""
    c, b = parts(outcome.result, 2, "rlsc_solve must return the pair (c, b)")
    return vector_and_number(
        c,
        b,
        n,
        ("c", "b"),
        f"c has n + 1 = {n + 1} entries {where}: the solution of the bordered system stacks c and "
        "b; return c = solution[:n] and b = solution[n] separately",
        where=where,
        function="rlsc_solve",
    )


def agrees(c, b, c_ref, b_ref, tol):
    """Whether (c, b) is within ``tol`` of (c_ref, b_ref), relative to
    max(1, max |c_ref|, |b_ref|); and that scale."""
    scale = max(1.0, float(np.abs(c_ref).max()), abs(b_ref))
    return bool(np.abs(c - c_ref).max() <= tol * scale and abs(b - b_ref) <= tol * scale), scale


def solve_case(K, y, lam, where):
    """The case of check 2: rlsc_solve(K, y, lam) against ksvm and against the optimality
    conditions."""
    n = K.shape[0]

    def judge(outcome):
        c, b = solution(outcome, n, where)
        ref = rlsc_direct(K, y, lam)
        ok, scale = agrees(c, b, ref.c, ref.b, 1e-8)
        c_ok = np.abs(c - ref.c).max() <= 1e-8 * scale
        if not c_ok and not (abs(c.sum()) <= 1e-8 * scale * n):
            raise AssertionError(
                f"1'c = {c.sum():.3g}, not 0 {where}: the system you solved lacks the border row "
                "1'c = 0"
            )
        if c_ok and abs(b + ref.b) <= 1e-8 * scale and abs(ref.b) > 1e-6 * scale:
            raise AssertionError(f"b has the wrong sign {where}")
        if not ok:
            raise AssertionError(
                f"(c, b) differs from ksvm.rlsc.rlsc_direct by "
                f"{max(np.abs(c - ref.c).max(), abs(b - ref.b)) / scale:.2e} (relative) {where}"
            )
        # Independent of ksvm: (K + lam I) c + b 1 = y and 1'c = 0.
        residual = np.abs(K @ c + lam * c + b - y).max()
        if not (
            residual <= 1e-8 * scale * max(1.0, float(np.abs(K).max()))
            and abs(c.sum()) <= 1e-8 * scale * n
        ):
            raise AssertionError(
                f"(c, b) does not satisfy (K + lam I) c + b 1 = y and 1'c = 0 {where}"
            )

    return call(K, y, lam), judge


@check(
    2,
    "rlsc_solve against ksvm.rlsc.rlsc_direct and against the optimality conditions",
    "rlsc_solve",
)
def check_2(rng):
    yield from in_random_order(rng, [solve_case(*problem) for problem in problems(rng)])


def known_case(K, y, lam, c_expected, b_expected, tol, what):
    """A case of check 3 whose answer is known exactly: c = ``c_expected``, b = ``b_expected``."""
    n = K.shape[0]
    where = f"(n={n}, lam={lam:.3g})"

    def judge(outcome):
        c, b = solution(outcome, n, where)
        if not (np.abs(c - c_expected).max() <= tol and abs(b - b_expected) <= tol):
            raise AssertionError(
                f"with {what} {where} the solution is c = 0, b = {b_expected:g}; "
                f"got max |c| = {np.abs(c).max():.2e}, b = {b:.6g}"
            )

    return call(K, y, lam), judge


def direct_case(K, y, lam, what, where):
    """A case of check 3: rlsc_solve(K, y, lam) against ksvm.rlsc.rlsc_direct."""
    n = K.shape[0]

    def judge(outcome):
        c, b = solution(outcome, n, where)
        ref = rlsc_direct(K, y, lam)
        if not agrees(c, b, ref.c, ref.b, 1e-6)[0]:
            raise AssertionError(
                f"with {what} {where} (c, b) differs from ksvm.rlsc.rlsc_direct: b = {b:.6g} "
                f"instead of {ref.b:.6g}, max |c - c_ref| = {np.abs(c - ref.c).max():.2e}"
            )

    return call(K, y, lam), judge


def permuted_case(K, y, lam, p, where):
    """A case of check 3, asked after the same problem unpermuted: permuting the examples (rows and
    columns of K, entries of y) must permute c and keep b."""
    n = K.shape[0]
    Kp, yp = K[np.ix_(p, p)], y[p]

    def judge(outcome):
        c, b = solution(outcome, n, where)
        ref = rlsc_direct(K, y, lam)  # of the problem before the permutation
        if not agrees(c, b, ref.c[p], ref.b, 1e-8)[0]:
            raise AssertionError(
                "permuting the examples (rows and columns of K, entries of y) must permute c and "
                f"keep b {where}: your answer for the permuted problem is not the permuted answer"
            )

    return call(Kp, yp, lam), judge


@check(3, "edge cases and a property", "rlsc_solve")
def check_3(rng):
    cases = []
    # One example: c = 0 and b = y_1 (the bias alone fits the label).
    label = float(rng.choice([-1.0, 1.0]))
    cases.append(
        known_case(
            np.array([[float(rng.uniform(0.1, 3.0))]]),
            np.array([label]),
            some_lam(rng, 0.01, 10.0),
            [0.0],
            label,
            1e-12,
            f"one example, y = [{label:g}]",
        )
    )

    # All labels equal: c = 0 and b = that label.
    n, label = int(rng.integers(3, 10)), float(rng.choice([-1.0, 1.0]))
    K = rbf_kernel(
        rng.normal(size=(n, int(rng.integers(1, 4)))), gamma=float(rng.uniform(0.3, 2.0))
    )
    cases.append(
        known_case(
            K,
            np.full(n, label),
            some_lam(rng, 0.03, 3.0),
            np.zeros(n),
            label,
            1e-9,
            f"all labels {label:+g}",
        )
    )

    # A singular K (linear kernel, more points than features) and a small lam: K + lam I is
    # still invertible.
    n, rank = int(rng.integers(20, 40)), int(rng.integers(1, 4))
    K = linear_kernel(rng.normal(size=(n, rank)))
    lam = some_lam(rng, 3e-4, 3e-3)
    cases.append(
        direct_case(
            K, labels(rng, n), lam, f"a singular K of rank {rank}", f"(n={n}, lam={lam:.2g})"
        )
    )

    # The order of the examples does not matter: permuting them permutes c and keeps b.
    n = int(rng.integers(10, 20))
    K = rbf_kernel(
        rng.normal(size=(n, int(rng.integers(2, 5)))), gamma=float(rng.uniform(0.2, 1.0))
    )
    y, lam, where = labels(rng, n), some_lam(rng, 0.1, 3.0), f"(n={n}, rbf kernel)"
    cases.append(direct_case(K, y, lam, "a Gaussian Gram matrix", where))
    cases.append(permuted_case(K, y, lam, rng.permutation(n), where))
    yield from in_random_order(rng, cases)


CHECKS = [check_1, check_2, check_3]
