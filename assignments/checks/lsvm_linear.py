"""The checks of assignment 2, the linear Lagrangian SVM (Code 2)."""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from assignments.checks import call, check, parts, vector_and_number
from ksvm.lsvm import lsvm_linear as reference_lsvm

ASSIGNMENT = "02_lsvm_linear"


def two_classes(rng, m, n):
    """m points in R^n, labels +-1 (both present, shuffled), the plane away from the origin."""
    v = rng.normal(size=n)
    v /= np.linalg.norm(v)
    d = rng.permutation(np.r_[np.ones(m - m // 2), -np.ones(m // 2)])
    A = rng.normal(scale=0.6, size=(m, n)) + (2.0 + d)[:, None] * v
    return A, d


def run(A, d, nu, itmax, tol):
    """The student's (w, gamma, it) and ksvm's result, after checking the form of the answer."""
    out = (yield call(A, d, nu, itmax=itmax, tol=tol)).result
    w, gamma, it = parts(out, 3, "lsvm_linear must return the tuple (w, gamma, it)")
    n = A.shape[1]
    w, gamma = vector_and_number(
        w, gamma, n, ("w", "gamma"),
        f"w must have n = {n} entries, one per feature, got {n + 1}: H'u stacks w = A'Du and "
        "gamma = -e'Du; return them separately")
    if not float(it).is_integer():
        raise AssertionError(f"it must be the number of iterations (an integer), got {it!r}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the reference warns when it stops at itmax
        ref = reference_lsvm(A, d, nu=nu, itmax=itmax, tol=tol)
    return w, float(gamma), int(it), ref


@check(1, "the solution, against ksvm.lsvm.lsvm_linear and against the optimality of the primal (7)", "lsvm_linear")
def check_1(rng):
    for m, n, nu in [(30, 2, 1.0), (200, 5, 0.1), (200, 5, 1.0), (12, 40, 1.0), (7, 1, 10.0), (2, 1, 1.0)]:
        A, d = two_classes(rng, m, n)
        w, gamma, it, ref = yield from run(A, d, nu, itmax=5000, tol=1e-10)
        where = f"(m={m}, n={n}, nu={nu:g})"
        scale = max(1.0, float(np.abs(ref.w).max()), abs(ref.gamma))
        w_ok = np.abs(w - ref.w).max() <= 1e-6 * scale
        gamma_ok = abs(gamma - ref.gamma) <= 1e-6 * scale
        if w_ok and not gamma_ok and abs(gamma + ref.gamma) <= 1e-6 * scale:
            raise AssertionError(
                f"gamma has the wrong sign {where}: gamma = -e'Du, since H = D[A  -e]; the plane is x'w = gamma")
        if not w_ok and np.abs(w + ref.w).max() <= 1e-6 * scale:
            raise AssertionError(f"w has the wrong sign {where}: w = A'Du")
        if not w_ok:
            raise AssertionError(
                f"w differs from ksvm.lsvm.lsvm_linear by {np.abs(w - ref.w).max() / scale:.2e} (relative) {where}: "
                "check H = D[A  -e], Q^{-1} by Sherman-Morrison-Woodbury, nu (I - H (I/nu + H'H)^{-1} H'), "
                "and the iteration u = Q^{-1}(e + ((Qu - e) - alpha u)_+)")
        if not gamma_ok:
            raise AssertionError(
                f"gamma differs from ksvm.lsvm.lsvm_linear: {gamma:.6g} instead of {ref.gamma:.6g} {where}: gamma = -e'Du")
        # Independent of ksvm: (w, gamma) minimises nu/2 ||(e - D(Aw - e gamma))_+||^2 + (w'w + gamma^2)/2.
        r = d * np.maximum(1.0 - d * (A @ w - gamma), 0.0)
        gradient = np.r_[w - nu * (A.T @ r), gamma + nu * r.sum()]
        if np.linalg.norm(gradient) > 1e-6 * scale:
            raise AssertionError(
                f"(w, gamma) does not minimise the LSVM problem (7) {where}: the gradient of "
                f"nu/2 ||(e - D(Aw - e gamma))_+||^2 + (w'w + gamma^2)/2 has norm {np.linalg.norm(gradient):.2e}")


@check(2, "the iterates and the iteration count", "lsvm_linear")
def check_2(rng):
    for m, n, nu in [(30, 2, 1.0), (200, 5, 1.0)]:
        A, d = two_classes(rng, m, n)
        where = f"(m={m}, n={n}, nu={nu:g})"
        for k in (1, 2, 5):
            w, gamma, it, ref = yield from run(A, d, nu, itmax=k, tol=1e-14)
            if it != ref.n_iter:
                raise AssertionError(
                    f"with itmax={k} you report it={it}, ksvm.lsvm.lsvm_linear made {ref.n_iter} iterations {where}: "
                    "stop after itmax iterations, and count every computed u^(i+1)")
            if np.abs(w - ref.w).max() > 1e-8 * max(1.0, float(np.abs(ref.w).max())):
                raise AssertionError(
                    f"after {k} iteration(s) w differs from that of ksvm.lsvm.lsvm_linear {where}, although "
                    "the fixed point can be right (check 1): check the start u^0 = Q^{-1} e, the step "
                    "alpha = 1.9 / nu and the update u^(i+1) = Q^{-1}(e + ((Qu^i - e) - alpha u^i)_+)")
        w, gamma, it, ref = yield from run(A, d, nu, itmax=5000, tol=1e-8)
        if abs(it - ref.n_iter) > 1:
            raise AssertionError(
                f"you made {it} iterations, ksvm.lsvm.lsvm_linear {ref.n_iter} with the same tol=1e-8 {where}: "
                "stop as soon as ||u^(i+1) - u^i|| <= tol")


@check(3, "memory (no m x m matrix), labels as integers, more features than points", "lsvm_linear")
def check_3(rng):
    m, n = 3000, 4
    A, d = two_classes(rng, m, n)
    budget = m * m * 8 // 4  # a quarter of one m x m matrix
    outcome = yield call(A, d, 1.0, itmax=3, tol=1e-8, memory=budget)
    if outcome.raised_a("MemoryError") or (outcome.peak is not None and outcome.peak > budget):
        used = f"{outcome.peak / 1e6:.0f} MB" if outcome.peak is not None else f"more than {budget / 1e6:.0f} MB"
        raise AssertionError(
            f"lsvm_linear allocated {used} for m = {m} points in {n} dimensions: it forms an "
            f"m x m matrix ({m * m * 8 / 1e6:.0f} MB each), such as D = np.diag(d), HH' or Q. Multiply by d "
            "entry by entry and apply Q^{-1} by Sherman-Morrison-Woodbury")
    outcome.result  # raises what the call raised, if it did

    A, d = two_classes(rng, 40, 3)
    w, gamma, it, ref = yield from run(A, d.astype(int), 0.5, itmax=5000, tol=1e-10)
    if np.abs(w - ref.w).max() > 1e-6 * max(1.0, float(np.abs(ref.w).max())):
        raise AssertionError("with integer labels d (an int array of -1 and 1) w differs from ksvm.lsvm.lsvm_linear")

    A, d = two_classes(rng, 5, 50)
    w, gamma, it, ref = yield from run(A, d, 1.0, itmax=5000, tol=1e-10)
    if np.abs(w - ref.w).max() > 1e-6 * max(1.0, float(np.abs(ref.w).max())):
        raise AssertionError("with more features than points (m=5, n=50) w differs from ksvm.lsvm.lsvm_linear")


CHECKS = [check_1, check_2, check_3]
