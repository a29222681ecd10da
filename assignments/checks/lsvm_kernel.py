"""The checks of assignment 8, the kernel Lagrangian SVM (Code 3 of Mangasarian & Musicant).

In the book's notation: n points x_i with labels y in {-1, +1}, Y = diag(y), 1 the vector of
ones, the Gram matrix K of a kernel, K~ = K + 11' (the kernel k + 1, whose feature map appends a
coordinate 1), M = I/nu + Y K~ Y, multipliers alpha, step eta, the offset b = y'alpha.  The
numbers (15) and (29) are the paper's.  ``ksvm.lsvm.lsvm_kernel`` takes K~ itself.
"""

import numpy as np

from assignments.checks import (
    call,
    check,
    in_random_order,
    vector,
    vector_number_and_count,
)
from assignments.checks.lsvm_linear import counted
from ksvm.kernels import polynomial_kernel, rbf_kernel
from ksvm.lsvm import dual_matrix
from ksvm.lsvm import lsvm_kernel as reference_lsvm
from ksvm.lsvm import lsvm_kernel_newton as reference_newton
from ksvm.lsvm import lsvm_linear as reference_linear

ASSIGNMENT = "08_lsvm_kernel"


# The data -------------------------------------------------------------------------------------


def two_classes(rng, n, d):
    """n points in R^d, labels +-1 (both present, shuffled); the classes overlap, so that some
    multipliers vanish at the solution and others do not."""
    v = rng.normal(size=d)
    v /= np.linalg.norm(v)
    y = rng.permutation(np.r_[np.ones(n - n // 2), -np.ones(n // 2)])
    X = rng.normal(scale=0.8, size=(n, d)) + (0.5 + 0.8 * y)[:, None] * v
    return X, y


def some_nu(rng, low, high):
    """A weight nu drawn log-uniformly in [low, high]."""
    return float(np.exp(rng.uniform(np.log(low), np.log(high))))


def gaussian(rng, X):
    """The Gaussian Gram matrix of X, with gamma drawn so that the kernel is neither flat nor
    diagonal on these data; and the kernel's name, for the messages."""
    gamma = float(rng.uniform(0.2, 1.0)) / X.shape[1]
    return rbf_kernel(X, gamma=gamma), f"the Gaussian kernel, gamma={gamma:.3g}"


#: Enough iterations for every run of these checks to meet its tolerance (thousands at most).
MAX_ITER = 50_000


def reference(K_tilde, y, nu, tol, eta=None):
    """ksvm's Code 3 on K~, run until ||alpha^(t+1) - alpha^t|| <= tol."""
    result = reference_lsvm(K_tilde, y, nu=nu, max_iter=MAX_ITER, tol=tol, eta=eta)
    if not result.converged:
        raise RuntimeError("ksvm.lsvm.lsvm_kernel did not converge")
    return result


class Run:
    """ksvm's Code 3 on K~ = K + 11' with the step eta (None: 1.9/nu), whose iterates
    alpha^(t) the checks ask of ksvm.

    A run stopped at max_iter = t would warn; so the run is made once to convergence, keeping
    the steps s_t = ||alpha^(t) - alpha^(t-1)||, and alpha^(t) is the answer of the run with
    tol = s_t, for a t whose step is smaller than every step before it (a record): that run
    stops at t, converged.
    """

    def __init__(self, K, y, nu, eta=None):
        self.K, self.K_tilde, self.y, self.nu, self.eta = K, K + 1.0, y, nu, eta
        self.M = dual_matrix(self.K_tilde, y, nu)
        full = reference_lsvm(
            self.K_tilde, y, nu=nu, max_iter=MAX_ITER, tol=1e-13, eta=eta, return_history=True
        )
        if not full.converged:
            raise RuntimeError("ksvm.lsvm.lsvm_kernel did not converge")
        steps = full.history
        self.records = [
            t for t in range(1, len(steps)) if steps[t - 1] < steps[: t - 1].min(initial=np.inf)
        ]
        self.steps = steps

    def moves(self):
        """Whether the iteration makes more than 12 steps, the first not 0, with two records t
        <= 12 followed by a record t + 1 (alpha^(0) = M^{-1} 1 is the solution, and the first
        step exactly 0, when every point lies inside its margin)."""
        followed = [t for t in self.records if t + 1 in self.records and t <= 12]
        return len(self.steps) > 12 and self.steps[0] > 0 and len(followed) >= 2

    def iterate(self, t):
        """alpha^(t) of ksvm's run (t = 0, or a record)."""
        if t == 0:
            return np.linalg.solve(self.M, np.ones(len(self.y)))  # alpha^(0) = M^{-1} 1
        result = reference_lsvm(
            self.K_tilde, self.y, nu=self.nu, max_iter=t, tol=self.steps[t - 1], eta=self.eta
        )
        if not (result.n_iter == t and result.converged):
            raise RuntimeError(f"ksvm's run did not stop at t = {t}")
        return result.u


def numpy_iterate(M, eta, k):
    """alpha^(k) of the iteration (15) with the step eta, in numpy (for the diagnoses)."""
    alpha = np.linalg.solve(M, np.ones(len(M)))
    for _ in range(k):
        alpha = np.linalg.solve(M, 1.0 + np.maximum((M @ alpha - 1.0) - eta * alpha, 0.0))
    return alpha


def moving(rng, n_range, d_range, nu_range, kernel=None, eta=None):
    """Data (y, K, its kernel's name, nu) and the `Run` of ksvm on them, drawn until the
    iteration moves (see `Run.moves`)."""
    while True:
        X, y = two_classes(rng, int(rng.integers(*n_range)), int(rng.integers(*d_range)))
        K, name = gaussian(rng, X) if kernel is None else (X @ X.T, kernel)
        nu = some_nu(rng, *nu_range)
        run = Run(K, y, nu, None if eta is None else eta / nu)
        if run.moves():
            return y, K, name, nu, run


def place(n, nu, kernel, more=""):
    return f"(n={n}, nu={nu:.3g}, {kernel}{more})"


def scaled_error(a, b):
    """max |a - b| / max(1, max |b|)."""
    return float(np.max(np.abs(a - b))) / max(1.0, float(np.max(np.abs(b))))


# Check 1: one step ----------------------------------------------------------------------------


def plus(v):
    return np.maximum(v, 0.0)


def wrong_steps(M, alpha, eta):
    """The common wrong versions of the step (15), each with what to say about it."""
    g = M @ alpha - 1.0
    solve = np.linalg.solve
    return [
        (
            solve(M, 1.0 + plus(g) - eta * alpha),
            "you apply the plus function to M alpha - 1 alone: it applies to the whole "
            "(M alpha - 1) - eta alpha, then 1 is added and M^{-1} applied",
        ),
        (
            solve(M, 1.0 + g - eta * alpha),
            "you left out the plus function: the step is "
            "M^{-1}(1 + ((M alpha - 1) - eta alpha)_+), with (v)_+ = max(v, 0) entry by entry",
        ),
        (
            solve(M, plus(1.0 + g - eta * alpha)),
            "you apply the plus function to 1 + (M alpha - 1) - eta alpha: add the 1 after "
            "taking the plus part of (M alpha - 1) - eta alpha",
        ),
        (
            solve(M, 1.0 + plus(g + eta * alpha)),
            "eta alpha has the wrong sign: the plus part is of (M alpha - 1) - eta alpha",
        ),
        (
            1.0 + plus(g - eta * alpha),
            "you did not apply M^{-1}: alpha^(t+1) = M^{-1}(1 + ((M alpha - 1) - eta alpha)_+)",
        ),
        (
            solve(M, np.ones(len(alpha))) + plus(g - eta * alpha),
            "you applied M^{-1} to 1 alone: it applies to 1 + ((M alpha - 1) - eta alpha)_+",
        ),
        (
            M @ (1.0 + plus(g - eta * alpha)),
            "you multiplied by M instead of solving with it: alpha^(t+1) = M^{-1}(...), "
            "np.linalg.solve(M, ...)",
        ),
    ]


def step_case(M, alpha, eta, expected, where):
    """A case of check 1: lsvm_kernel_step(M, alpha, eta) against ``expected``."""
    n = len(alpha)

    def judge(outcome):
        got = vector(outcome.result, "lsvm_kernel_step", "alpha^(t+1)", n, where)
        error = scaled_error(got, expected)
        if error <= 1e-8:
            return
        for wrong, says in wrong_steps(M, alpha, eta):
            if scaled_error(got, wrong) <= 1e-8:
                raise AssertionError(f"{says} {where}")
        raise AssertionError(
            f"alpha^(t+1) differs from the next iterate of ksvm.lsvm.lsvm_kernel by {error:.2e} "
            f"(relative) {where}: alpha^(t+1) = M^{{-1}}(1 + ((M alpha^t - 1) - eta alpha^t)_+)"
        )

    return call(M, alpha, eta), judge


def pick(rng, among, low, high):
    """One of the numbers ``among`` in [low, high], drawn with rng; any of them, if none is."""
    inside = [t for t in among if low <= t <= high]
    return int(rng.choice(inside if inside else among))


def iterate_cases(rng, run, kernel):
    """Cases of check 1: a step from alpha^(0) and from two later iterates alpha^(t) of ksvm's
    run, each against ksvm's alpha^(t+1)."""
    following = [t for t in run.records if t + 1 in run.records]
    cases = []
    for t in sorted({0, pick(rng, following, 1, 3), pick(rng, following, 4, 10)}):
        eta = 1.9 / run.nu if run.eta is None else run.eta
        where = place(
            len(run.y),
            run.nu,
            kernel,
            f", eta={eta * run.nu:.3g}/nu, from alpha^({t}) of ksvm's run",
        )
        cases.append(step_case(run.M, run.iterate(t), eta, run.iterate(t + 1), where))
    return cases


@check(1, "one step, iterate by iterate against ksvm.lsvm.lsvm_kernel", "lsvm_kernel_step")
def check_1(rng):
    *_, kernel, _, run = moving(rng, (15, 41), (2, 5), (1.0, 5.0))
    cases = iterate_cases(rng, run, kernel)
    # the linear kernel (the matrix of assignment 2) and a step other than 1.9/nu
    eta_nu = float(rng.uniform(0.5, 1.95))
    *_, kernel, _, run = moving(rng, (10, 31), (2, 4), (0.5, 3.0), "the linear kernel", eta_nu)
    cases += iterate_cases(rng, run, kernel)
    # any vector alpha, with entries of both signs, and a polynomial kernel
    n = int(rng.integers(8, 25))
    X, y = two_classes(rng, n, 3)
    nu = some_nu(rng, 0.3, 3.0)
    M = dual_matrix(polynomial_kernel(X, degree=2, gamma=0.5, coef0=1.0) + 1.0, y, nu)
    alpha = rng.normal(scale=0.5, size=n)
    eta = float(rng.uniform(0.3, 1.95)) / nu
    expected = np.linalg.solve(M, 1.0 + plus((M @ alpha - 1.0) - eta * alpha))
    where = place(n, nu, "the kernel (x'z/2 + 1)^2", f", eta={eta * nu:.3g}/nu, alpha random")
    cases.append(step_case(M, alpha, eta, expected, where))
    yield from in_random_order(rng, cases)


# Check 2: the solution ------------------------------------------------------------------------


def answer(outcome, n, where):
    """The student's (alpha, b, n_iter) from ``outcome``, after checking the form of the answer:
    alpha a vector of n finite floats, b a finite number, n_iter an integer."""
    return vector_number_and_count(
        outcome,
        "lsvm_kernel",
        ("alpha", "b", "n_iter (the number of iterations)"),
        n,
        f"alpha must have n = {n} entries, one per point, got {n + 1}: return alpha and "
        "b = y'alpha separately",
        where,
    )


def solution_case(K, y, nu, kernel, X=None):
    """A case of check 2: lsvm_kernel run to convergence, against ksvm on K~ = K + 11', against
    the optimality conditions, and, for the linear kernel K = XX', against ksvm's linear LSVM
    (Code 2, assignment 2)."""
    n, max_iter, tol = len(y), MAX_ITER, 1e-10
    where = place(n, nu, kernel)
    y_float = np.asarray(y, dtype=float)

    def judge(outcome):
        alpha, b, n_iter = answer(outcome, n, where)
        counted(n_iter, max_iter, where)
        ref = reference(K + 1.0, y_float, nu, tol).u
        scale = max(1.0, float(np.abs(ref).max()))
        if not (scaled_error(alpha, ref) <= 1e-6):
            without = reference(K, y_float, nu, tol).u
            if scaled_error(alpha, without) <= 1e-6:
                raise AssertionError(
                    f"your alpha is that of M = I/nu + YKY, without the 11' {where}: "
                    "M = I/nu + Y(K + 11')Y: K + 11' is the Gram matrix of the kernel k + 1, which "
                    "gives the classifier its offset b"
                )
            raise AssertionError(
                f"alpha differs from that of ksvm.lsvm.lsvm_kernel on K + 11' by "
                f"{scaled_error(alpha, ref):.2e} (relative) {where}: check M = I/nu + Y(K + 11')Y, "
                "the start alpha^0 = M^{-1} 1 and the step (15)"
            )
        expected_b = float(y_float @ ref)
        if not (abs(b - expected_b) <= 1e-6 * scale):
            if abs(b + expected_b) <= 1e-6 * scale:
                raise AssertionError(
                    f"b has the wrong sign {where}: b = y'alpha (the added 1 of K + 11' "
                    "contributes sum_i y_i alpha_i to f(x)); the paper's gamma is -b"
                )
            raise AssertionError(
                f"b = {b:.6g}, expected y'alpha = {expected_b:.6g} {where}: b = sum_i y_i alpha_i"
            )
        # Independent of ksvm: the optimality conditions min(alpha, M alpha - 1) = 0.
        M = np.eye(n) / nu + y_float[:, None] * (K + 1.0) * y_float[None, :]
        residual = float(np.abs(np.minimum(alpha, M @ alpha - 1.0)).max())
        if not (residual <= 1e-6 * scale):
            raise AssertionError(
                f"alpha does not satisfy the optimality conditions: max |min(alpha, M alpha - 1)| "
                f"= {residual:.2e} {where}"
            )
        if X is not None:  # the linear kernel: the plane of Code 2
            plane = reference_linear(X, y_float, nu=nu, max_iter=max_iter, tol=tol)
            w = X.T @ (y_float * alpha)
            size = max(1.0, float(np.abs(plane.w).max()), abs(plane.b))
            error = max(float(np.abs(w - plane.w).max()), abs(b - plane.b)) / size
            if not (error <= 1e-6):
                raise AssertionError(
                    f"with the linear kernel K = XX', w = X'Y alpha and b differ from the plane "
                    f"of ksvm.lsvm.lsvm_linear by {error:.2e} (relative) {where}"
                )

    return call(K, y, nu, max_iter=max_iter, tol=tol), judge


@check(
    2,
    "the solution against ksvm.lsvm.lsvm_kernel, lsvm_linear and the optimality conditions",
    "lsvm_kernel",
)
def check_2(rng):
    cases = []
    for n, nu in [
        (int(rng.integers(20, 51)), some_nu(rng, 0.5, 2.0)),
        (int(rng.integers(20, 51)), some_nu(rng, 0.05, 0.2)),  # a small nu
    ]:
        X, y = two_classes(rng, n, int(rng.integers(2, 5)))
        K, kernel = gaussian(rng, X)
        cases.append(solution_case(K, y, nu, kernel))
    X, y = two_classes(rng, int(rng.integers(15, 41)), int(rng.integers(2, 4)))
    cases.append(solution_case(X @ X.T, y, some_nu(rng, 0.3, 2.0), "the linear kernel", X))
    X, y = two_classes(rng, int(rng.integers(10, 31)), 3)
    K = polynomial_kernel(X, degree=2, gamma=0.5, coef0=1.0)
    cases.append(
        solution_case(
            K, y.astype(int), some_nu(rng, 0.3, 2.0), "the kernel (x'z/2 + 1)^2, integer labels"
        )
    )
    X, y = two_classes(rng, 2, 2)
    K, kernel = gaussian(rng, X)
    cases.append(solution_case(K, y, some_nu(rng, 0.5, 2.0), f"two points, {kernel}"))
    yield from in_random_order(rng, cases)


# Check 3: the iterates, the count, the step ---------------------------------------------------


def iterates_case(run, k, kernel):
    """A case of check 3: lsvm_kernel stopped after k iterations (tol too small to stop it
    before), with the step of ``run`` (None: the default 1.9/nu), against ksvm's alpha^(k)."""
    n, nu, eta, tol = len(run.y), run.nu, run.eta, 1e-14
    shown = "eta=None (1.9/nu)" if eta is None else f"eta={eta * nu:.3g}/nu"
    where = place(n, nu, kernel, f", max_iter={k}, {shown}")

    def judge(outcome):
        alpha, _, n_iter = answer(outcome, n, where)
        if n_iter != k:
            raise AssertionError(
                f"you report n_iter={n_iter}, ksvm.lsvm.lsvm_kernel made {k} iteration(s) {where}: "
                "stop after max_iter iterations, and count every computed alpha^(t+1)"
            )
        error = scaled_error(alpha, run.iterate(k))
        if error <= 1e-8:
            return
        if eta is None and scaled_error(alpha, numpy_iterate(run.M, 1.0 / nu, k)) <= 1e-8:
            raise AssertionError(
                f"your iterates are those of the step eta = 1/nu {where}: the default step is "
                "eta = 1.9/nu, the authors' choice (any 0 < eta < 2/nu converges)"
            )
        if eta is not None and scaled_error(alpha, numpy_iterate(run.M, 1.9 / nu, k)) <= 1e-8:
            raise AssertionError(
                f"your iterates are those of eta = 1.9/nu although the call gives {shown} {where}: "
                "use the argument eta when it is not None"
            )
        raise AssertionError(
            f"after {k} iteration(s) alpha differs from that of ksvm.lsvm.lsvm_kernel by "
            f"{error:.2e} (relative) {where}, although the fixed point can be right (check 2): "
            "check the start alpha^0 = M^{-1} 1, the step eta and the update (15)"
        )

    kwargs = {} if eta is None else {"eta": eta}
    return call(run.K, run.y, nu, max_iter=k, tol=tol, **kwargs), judge


def stopping_case(K, y, nu, tol, kernel):
    """A case of check 3: lsvm_kernel stopped by tol, with the iteration count of ksvm (one more
    or less: rounding decides the last step)."""
    n, max_iter = len(y), MAX_ITER
    where = place(n, nu, kernel, f", tol={tol:.0e}")

    def judge(outcome):
        alpha, _, n_iter = answer(outcome, n, where)
        ref = reference(K + 1.0, y, nu, tol)
        if not (abs(n_iter - ref.n_iter) <= 1):
            raise AssertionError(
                f"you made {n_iter} iterations, ksvm.lsvm.lsvm_kernel {ref.n_iter} {where}: "
                "stop as soon as ||alpha^(t+1) - alpha^t|| <= tol"
            )
        error = scaled_error(alpha, ref.u)
        if not (error <= 1e-5):
            raise AssertionError(
                f"stopped by tol after {n_iter} iterations, alpha differs from that of "
                f"ksvm.lsvm.lsvm_kernel by {error:.2e} (relative) {where}"
            )

    return call(K, y, nu, max_iter=max_iter, tol=tol), judge


def refused_case(K, y, nu, c):
    """A case of check 3: the step eta = c/nu, outside (0, 2/nu), must raise ValueError."""
    eta = c / nu
    where = f"(n={len(y)}, nu={nu:g}, eta={c:g}/nu = {eta:g})"
    if c == 2.0:
        why = (
            f"lsvm_kernel accepted eta = 2/nu {where}: the interval is open, 0 < eta < 2/nu "
            "(at 2/nu the iteration need not converge); raise ValueError"
        )
    else:
        why = (
            f"lsvm_kernel accepted eta = {c:g}/nu, outside (0, 2/nu) {where}: the iteration "
            "converges only for 0 < eta < 2/nu; check eta and raise ValueError"
        )

    def judge(outcome):
        outcome.expect_raised("ValueError", why)

    return call(K, y, nu, max_iter=20, tol=1e-5, eta=eta), judge


@check(3, "the iterates, the iteration count and the step eta", "lsvm_kernel")
def check_3(rng):
    y, K, kernel, nu, run = moving(rng, (15, 41), (2, 5), (1.0, 4.0))
    ks = {1, pick(rng, run.records, 2, 3), pick(rng, run.records, 4, 8)}
    cases = [iterates_case(run, k, kernel) for k in sorted(ks)]
    # a step other than 1.9/nu, given as the argument eta
    stepped = Run(K, y, nu, float(rng.uniform(0.5, 1.5)) / nu)
    cases.append(iterates_case(stepped, pick(rng, stepped.records, 2, 5), kernel))
    cases.append(stopping_case(K, y, nu, float(10 ** rng.uniform(-9, -7)), kernel))
    # a power of 2 for nu, so that eta = 2/nu is 2/nu however it is computed
    nu = float(2.0 ** rng.integers(-1, 3))
    for c in (float(rng.uniform(2.5, 4.0)), -float(rng.uniform(0.1, 1.0)), 0.0, 2.0):
        cases.append(refused_case(K, y, nu, c))
    yield from in_random_order(rng, cases)


# Check 4: the active-set step -----------------------------------------------------------------


def newton_step(M, alpha, free=None, zero=True, coupled=False):
    """The active-set step from alpha: alpha_A = 0, M_FF alpha_F = 1 on F = {g < alpha}; or, for
    the diagnoses, on another ``free`` set, without setting alpha_A = 0 (``zero=False``), or with
    alpha_A kept in the equations of F (``coupled=True``)."""
    if free is None:
        free = (M @ alpha - 1.0) < alpha
    new = np.zeros(len(alpha)) if zero else alpha.copy()
    right = np.ones(int(free.sum()))
    if coupled:
        right = right - M[np.ix_(free, ~free)] @ alpha[~free]
    new[free] = np.linalg.solve(M[np.ix_(free, free)], right)
    return new


def wrong_newton_steps(M, alpha):
    """The common wrong versions of the active-set step, each with what to say about it."""
    g = M @ alpha - 1.0
    return [
        (
            newton_step(M, alpha, alpha > 0),
            "your free set is {i : alpha_i > 0}: it is F = {i : g_i < alpha_i}, g = M alpha - 1, "
            "the indices where min(alpha, g) picks g",
        ),
        (
            newton_step(M, alpha, alpha < g),
            "your free set is {i : alpha_i < g_i}, the active set: F = {i : g_i < alpha_i}, "
            "where min(alpha, g) picks g",
        ),
        (
            newton_step(M, alpha, g < 0),
            "your free set is {i : g_i < 0}: it is F = {i : g_i < alpha_i}, g = M alpha - 1",
        ),
        (
            newton_step(M, alpha, zero=False),
            "you left alpha_i as it was on the active set A: the step sets alpha_A = 0",
        ),
        (
            newton_step(M, alpha, zero=False, coupled=True),
            "you kept alpha_A in the equations of F and left it as it was: the step sets "
            "alpha_A = 0, so that they read M_FF alpha_F = 1",
        ),
    ]


def newton_case(M, alpha, expected, where, solution=False):
    """A case of check 4: active_set_step(M, alpha) against ``expected``."""
    n = len(alpha)

    def judge(outcome):
        got = vector(outcome.result, "active_set_step", "alpha^+", n, where)
        error = scaled_error(got, expected)
        if error <= 1e-8:
            return
        if solution:
            raise AssertionError(
                f"a step from the solution of ksvm.lsvm.lsvm_kernel_newton moved it by "
                f"{error:.2e} (relative) {where}: there the guess F = {{i : g_i < alpha_i}} is "
                "consistent, and alpha_A = 0, M_FF alpha_F = 1 gives alpha back"
            )
        for wrong, says in wrong_newton_steps(M, alpha):
            if scaled_error(got, wrong) <= 1e-8:
                raise AssertionError(f"{says} {where}")
        raise AssertionError(
            f"alpha^+ differs from the active-set step by {error:.2e} (relative) {where}: "
            "F = {i : g_i < alpha_i} with g = M alpha - 1, alpha_A = 0, M_FF alpha_F = 1"
        )

    return call(M, alpha), judge


@check(4, "the active-set step, against numpy and ksvm.lsvm.lsvm_kernel_newton", "active_set_step")
def check_4(rng):
    X, y = two_classes(rng, int(rng.integers(15, 41)), int(rng.integers(2, 5)))
    K, kernel = gaussian(rng, X)
    nu = some_nu(rng, 1.0, 30.0)
    M = dual_matrix(K + 1.0, y, nu)
    # Newton's steps from alpha = 0 (F = every index, the first step of ksvm's solver) until
    # the free set repeats
    cases, alpha, seen = [], np.zeros(len(y)), set()
    for step in range(8):
        free = ((M @ alpha - 1.0) < alpha).tobytes()
        if free in seen:
            break
        seen.add(free)
        after = newton_step(M, alpha)
        where = place(len(y), nu, kernel, f", from step {step} of Newton's method")
        cases.append(newton_case(M, alpha, after, where))
        alpha = after
    # the solution of ksvm's active-set solver, a fixed point of the step
    solution = reference_newton(K + 1.0, y, nu=nu, tol=1e-12).u
    where = place(len(y), nu, kernel, ", from ksvm.lsvm.lsvm_kernel_newton's solution")
    cases.append(newton_case(M, solution, solution, where, solution=True))
    # any alpha, with entries of both signs, and a polynomial kernel
    n = int(rng.integers(8, 25))
    X, y = two_classes(rng, n, 3)
    nu = some_nu(rng, 0.3, 10.0)
    M = dual_matrix(polynomial_kernel(X, degree=2, gamma=0.5, coef0=1.0) + 1.0, y, nu)
    alpha = rng.normal(scale=0.5, size=n)
    where = place(n, nu, "the kernel (x'z/2 + 1)^2", ", alpha random")
    cases.append(newton_case(M, alpha, newton_step(M, alpha), where))
    yield from in_random_order(rng, cases)


CHECKS = [check_1, check_2, check_3, check_4]
