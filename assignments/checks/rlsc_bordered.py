"""The checks of assignment 3, the bordered system of regularized least squares."""

import numpy as np

from assignments.checks import call, check, close, parts, relative_error, vector_and_number
from ksvm.kernels import linear_kernel, polynomial_kernel, rbf_kernel
from ksvm.rlsc import bordered_system as reference_system
from ksvm.rlsc import rlsc_direct

ASSIGNMENT = "03_rlsc_bordered"


def labels(rng, n):
    """n labels in {-1, +1}, both classes present (n >= 2), in random order."""
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[:2] = [-1.0, 1.0]
    return rng.permutation(y)


def problems(rng):
    """Gram matrices of several kernels and sizes, with labels and a lam."""
    for n, d, kernel in [(2, 1, "rbf"), (5, 2, "linear"), (12, 3, "rbf"), (30, 4, "poly"), (60, 2, "linear")]:
        X = rng.normal(size=(n, d))
        K = {"rbf": lambda: rbf_kernel(X, gamma=float(rng.uniform(0.2, 2.0))),
             "linear": lambda: linear_kernel(X),
             "poly": lambda: polynomial_kernel(X, degree=2, coef0=1.0)}[kernel]()
        yield K, labels(rng, n), float(10 ** rng.uniform(-2, 1)), f"(n={n}, {kernel} kernel)"


@check(1, "bordered_system against ksvm.rlsc.bordered_system", "bordered_system")
def check_1(rng):
    for K, y, lam, where in problems(rng):
        n = K.shape[0]
        A, rhs = parts((yield call(K, y, lam)).result, 2, "bordered_system must return the pair (A, rhs)")
        A, rhs = np.asarray(A, dtype=float), np.asarray(rhs, dtype=float)
        A_ref, rhs_ref = reference_system(K, y, lam)
        if A.shape == (n, n):
            if close(A, K + lam * np.eye(n)):
                raise AssertionError(
                    f"you returned K + lam*I without the border row and column {where}: A must be "
                    f"(n+1) x (n+1) = {A_ref.shape}, with ones in the last row and column and 0 in the corner")
            raise AssertionError(f"A has the shape {A.shape}, expected {A_ref.shape}: the border is missing {where}")
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
                hint = f"it differs from K + lam I by {relative_error(block, K + lam * np.eye(n)):.2e}"
            raise AssertionError(f"the top-left n x n block of A is wrong {where}: {hint}")
        if not (np.all(A[:n, n] == 1.0) and np.all(A[n, :n] == 1.0)):
            raise AssertionError(
                f"the last column and the last row of A must be ones {where}: the column carries b in "
                "(K + lam I) c + b 1 = y, the row is the equation 1'c = 0")
        if A[n, n] != 0.0:
            extra = " (you added lam*I to the whole matrix, corner included)" if np.isclose(A[n, n], lam) else ""
            raise AssertionError(
                f"the corner entry A[n, n] must be 0, got {A[n, n]:.6g}{extra} {where}: "
                "b does not appear in the equation 1'c = 0")
        if rhs.shape != rhs_ref.shape:
            raise AssertionError(f"rhs has the shape {rhs.shape}, expected {rhs_ref.shape}: [y; 0] {where}")
        if not np.array_equal(rhs, rhs_ref):
            raise AssertionError(f"rhs must be [y; 0]: the labels, then a 0 for the equation 1'c = 0 {where}")
        assert close(A, A_ref, tol=1e-15)

    # n = 1: the system is [[K_11 + lam, 1], [1, 0]], [y_1, 0]
    out = (yield call(np.array([[2.0]]), np.array([1.0]), 0.5)).result
    A, rhs = out
    if not (np.array_equal(np.asarray(A, dtype=float), [[2.5, 1.0], [1.0, 0.0]]) and np.array_equal(rhs, [1.0, 0.0])):
        raise AssertionError(f"for K = [[2]], y = [1], lam = 0.5 expected A = [[2.5, 1], [1, 0]] and rhs = [1, 0], "
                             f"got A = {np.asarray(A).tolist()} and rhs = {np.asarray(rhs).tolist()}")


@check(2, "rlsc_solve against ksvm.rlsc.rlsc_direct and against the optimality conditions", "rlsc_solve")
def check_2(rng):
    for K, y, lam, where in problems(rng):
        n = K.shape[0]
        c, b = parts((yield call(K, y, lam)).result, 2, "rlsc_solve must return the pair (c, b)")
        c, b = vector_and_number(
            c, b, n, ("c", "b"),
            f"c has n + 1 = {n + 1} entries {where}: the solution of the bordered system stacks c and b; "
            "return c = solution[:n] and b = solution[n] separately", where=f" {where}")
        b = float(b)
        ref = rlsc_direct(K, y, lam)
        scale = max(1.0, float(np.abs(ref.c).max()), abs(ref.b))
        if abs(c.sum()) > 1e-8 * scale * n and np.abs(c - ref.c).max() > 1e-8 * scale:
            raise AssertionError(
                f"1'c = {c.sum():.3g}, not 0 {where}: the system you solved lacks the border row 1'c = 0")
        if np.abs(c - ref.c).max() <= 1e-8 * scale and abs(b + ref.b) <= 1e-8 * scale and abs(ref.b) > 1e-6 * scale:
            raise AssertionError(f"b has the wrong sign {where}")
        if np.abs(c - ref.c).max() > 1e-8 * scale or abs(b - ref.b) > 1e-8 * scale:
            raise AssertionError(
                f"(c, b) differs from ksvm.rlsc.rlsc_direct by {max(np.abs(c - ref.c).max(), abs(b - ref.b)) / scale:.2e} "
                f"(relative) {where}")
        # Independent of ksvm: (K + lam I) c + b 1 = y and 1'c = 0.
        residual = K @ c + lam * c + b - y
        if np.abs(residual).max() > 1e-8 * scale * max(1.0, float(np.abs(K).max())) or abs(c.sum()) > 1e-8 * scale * n:
            raise AssertionError(f"(c, b) does not satisfy (K + lam I) c + b 1 = y and 1'c = 0 {where}")


@check(3, "edge cases and a property", "rlsc_solve")
def check_3(rng):
    # One example: c = 0 and b = y_1 (the bias alone fits the label).
    c, b = (yield call(np.array([[float(rng.uniform(0.5, 2.0))]]), np.array([-1.0]), 0.3)).result
    if not (np.allclose(c, [0.0], atol=1e-12) and np.isclose(b, -1.0, atol=1e-12)):
        raise AssertionError(f"with one example (y = [-1]) the solution is c = [0], b = -1; got c = {np.asarray(c)}, b = {b}")

    # All labels equal: c = 0 and b = that label.
    n = int(rng.integers(3, 10))
    K = rbf_kernel(rng.normal(size=(n, 2)), gamma=1.0)
    c, b = (yield call(K, np.ones(n), 0.1)).result
    if not (np.allclose(c, 0.0, atol=1e-9) and np.isclose(b, 1.0, atol=1e-9)):
        raise AssertionError(f"with all labels +1 the solution is c = 0, b = 1; got max |c| = {np.abs(c).max():.2e}, b = {float(b):.6g}")

    # A singular K (linear kernel, more points than features) and a small lam: K + lam I is still invertible.
    n = int(rng.integers(20, 40))
    K = linear_kernel(rng.normal(size=(n, 2)))
    y = labels(rng, n)
    c, b = (yield call(K, y, 1e-3)).result
    ref = rlsc_direct(K, y, 1e-3)
    scale = max(1.0, float(np.abs(ref.c).max()), abs(ref.b))
    if np.abs(np.asarray(c) - ref.c).max() > 1e-6 * scale or abs(float(b) - ref.b) > 1e-6 * scale:
        raise AssertionError(f"with a singular K (rank 2, n = {n}) and lam = 1e-3 (c, b) differs from ksvm.rlsc.rlsc_direct")

    # The order of the examples does not matter: permuting them permutes c and keeps b.
    n = 15
    X = rng.normal(size=(n, 3))
    y = labels(rng, n)
    p = rng.permutation(n)
    c1, b1 = (yield call(rbf_kernel(X, gamma=0.5), y, 0.5)).result
    c2, b2 = (yield call(rbf_kernel(X[p], gamma=0.5), y[p], 0.5)).result
    if not (np.allclose(np.asarray(c1)[p], c2, rtol=0, atol=1e-9) and np.isclose(b1, b2, rtol=0, atol=1e-9)):
        raise AssertionError("permuting the examples (rows and columns of K, entries of y) must permute c and keep b")


CHECKS = [check_1, check_2, check_3]
