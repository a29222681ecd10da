"""The checks of assignment 5, SMO for the soft-margin dual.

In the book's notation (chapter soft_margin): multipliers alpha in [0, C] with y'alpha = 0, the
dual objective Psi(alpha) = 1/2 alpha'Q alpha - 1'alpha with Q = YKY, its gradient
g = Q alpha - 1, the numbers F_k = -y_k g_k, the index sets I_up and I_low, the KKT gap
Delta(alpha) = max_{I_up} F - min_{I_low} F, and the step eta along alpha_i += y_i eta,
alpha_j -= y_j eta.  The right answers come from ksvm (its SMO step and solver) and from
libsvm through scikit-learn's SVC on the precomputed kernel.
"""

import numpy as np

from assignments.checks import (
    call,
    check,
    finite,
    in_random_order,
    number,
    parts,
    quietly,
    whole_number,
)
from ksvm._smo_loop import _ActiveSet
from ksvm.datasets import make_noisy_2d
from ksvm.kernels import linear_kernel, polynomial_kernel, rbf_kernel
from ksvm.smo import smo as reference_smo

ASSIGNMENT = "05_smo"
FORBIDDEN = ("sklearn.svm",)

TAU = 1e-12  # the book's floor for a curvature K_ii + K_jj - 2 K_ij <= 0


# -- the data --------------------------------------------------------------------------------
def noisy_points(rng, n, flip=0.15, d=2):
    """n points of [-1, 1]^d labelled by the side of a sine curve, a share ``flip`` of the
    labels flipped (both classes present): not separable, so many multipliers end at C."""
    while True:
        X = rng.uniform(-1.0, 1.0, size=(n, d))
        y = np.where(X[:, 1] > 0.5 * np.sin(np.pi * X[:, 0]), 1.0, -1.0)
        y = np.where(rng.random(n) < flip, -y, y)
        if 2 <= (y > 0).sum() <= n - 2:
            return X, y


def Q_times(K, y, alpha):
    return y * (K @ (alpha * y))


def gradient(K, y, alpha):
    """g = Q alpha - 1."""
    return Q_times(K, y, alpha) - 1.0


def Psi(K, y, alpha):
    """The dual objective, minimised: 1/2 alpha'Q alpha - 1'alpha."""
    return float(0.5 * alpha @ Q_times(K, y, alpha) - alpha.sum())


def index_sets(y, alpha, C):
    up = np.where(y > 0, alpha < C, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < C)
    return up, low


def on_bounds(alpha, C):
    """alpha with the entries within 1e-12 C of a bound put on it: the grader's reading of a
    returned alpha, so that a solver which tests its index sets with a tolerance is judged on
    the sets it meant."""
    alpha = alpha.copy()
    alpha[np.abs(alpha) <= 1e-12 * C] = 0.0
    alpha[np.abs(alpha - C) <= 1e-12 * C] = C
    return alpha


def kkt(K, y, alpha, C):
    """The KKT gap Delta(alpha) and the interval [max_{I_up} F, min_{I_low} F] of optimal b."""
    alpha = on_bounds(alpha, C)
    F = -y * gradient(K, y, alpha)
    up, low = index_sets(y, alpha, C)
    top, bottom = float(F[up].max()), float(F[low].min())
    return top - bottom, top, bottom


# -- check 1: the pair step ---------------------------------------------------------------------
def reference_step(K, y, alpha, g, i, j, C):
    """ksvm's SMO step on the pair (i, j): the new alpha and g."""
    act = _ActiveSet(alpha.copy(), -y * g, y > 0, np.diag(K).copy(), C)
    act.pair_step(i, j, K[i], K[j])
    return act.alpha, -y * act.F


def textbook_step(K, y, alpha, g, i, j, C, swap=False, guard=True):
    """Platt's form of the step, as it is usually written: alpha_j moved to the vertex and
    clipped to [L, H], alpha_i from y'alpha unchanged, neither put on its bound.  ``swap``
    takes the L, H of the other case (y_i == y_j for y_i != y_j, and back); ``guard=False``
    divides by a curvature <= 0.  The mistakes of check 1 are recognised by it."""
    alpha = alpha.copy()
    a_i, a_j = alpha[i], alpha[j]
    curvature = K[i, i] + K[j, j] - 2.0 * K[i, j]
    if guard and curvature <= 0:
        curvature = TAU
    with np.errstate(divide="ignore", invalid="ignore"):
        eta_star = ((-y[i] * g[i]) - (-y[j] * g[j])) / curvature
    if (y[i] != y[j]) != swap:
        L, H = max(0.0, a_j - a_i), min(C, C + a_j - a_i)
    else:
        L, H = max(0.0, a_i + a_j - C), min(C, a_i + a_j)
    new_j = min(max(a_j - y[j] * eta_star, L), H)
    alpha[i] = a_i + y[i] * y[j] * (a_j - new_j)
    alpha[j] = new_j
    return alpha


def misses_bound(alpha, C, k):
    return 0 < abs(alpha[k]) <= 1e-12 * C or 0 < abs(alpha[k] - C) <= 1e-12 * C


def step_problem(rng, n):
    """A Gram matrix of n points, labels with both classes, C, and alpha in the box with some
    entries at 0, some at C (y'alpha need not be 0: a step keeps it, whatever it is)."""
    X, y = noisy_points(rng, n, d=int(rng.integers(2, 4)))
    if rng.random() < 0.5:
        K = rbf_kernel(X, gamma=float(rng.uniform(0.5, 2.0)))
    else:
        K = linear_kernel(X) + 1.0
    C = float(np.exp(rng.uniform(np.log(0.5), np.log(5.0))))
    alpha = rng.uniform(0.05, 0.95, size=n) * C
    kind = rng.random(n)
    alpha[kind < 0.25] = 0.0
    alpha[kind > 0.75] = C
    return K, y, alpha, C


def pair_of(rng, y, alpha, F, C, y_i, y_j):
    """A violating pair (i, j) with labels (y_i, y_j): i in I_up, j in I_low, F_i > F_j;
    None if there is none."""
    up, low = index_sets(y, alpha, C)
    pairs = [
        (i, j)
        for i in np.flatnonzero(up & (y == y_i))
        for j in np.flatnonzero(low & (y == y_j))
        if i != j and F[i] > F[j] + 1e-3
    ]
    if not pairs:
        return None
    i, j = pairs[int(rng.integers(len(pairs)))]
    return int(i), int(j)


def where_step(y, i, j, C, what):
    labels = f"y_i = {int(y[i]):+d}, y_j = {int(y[j]):+d}"
    return f"(pair (i, j) = ({i}, {j}), {labels}, C = {C:.4g}, {what})"


def step_answer(outcome, n, where):
    alpha, g = parts(
        outcome.result, 2, "pair_step must return the tuple (alpha, g): multipliers, gradient"
    )
    alpha = finite(alpha, "pair_step", "alpha", where)
    g = finite(g, "pair_step", "g", where)
    for name, v in (("alpha", alpha), ("g", g)):
        if v.shape != (n,):
            raise AssertionError(
                f"pair_step must return {name} of shape ({n},), got {v.shape} {where}"
            )
    return alpha, g


def step_case(K, y, alpha, C, i, j, what):
    """A case of check 1: pair_step on (i, j), against ksvm's step."""
    n = len(y)
    g = gradient(K, y, alpha)
    ref_alpha, _ = reference_step(K, y, alpha, g, i, j, C)
    where = where_step(y, i, j, C, what)
    curvature = K[i, i] + K[j, j] - 2.0 * K[i, j]

    def judge(outcome):
        new, new_g = step_answer(outcome, n, where)
        others = np.ones(n, dtype=bool)
        others[[i, j]] = False
        if not np.array_equal(new[others], alpha[others]):
            raise AssertionError(
                f"pair_step changed multipliers other than alpha_i and alpha_j {where}: a step "
                "moves the pair only"
            )
        scale = max(1.0, C)
        if not (np.abs(new - ref_alpha).max() <= 1e-9 * scale):
            unguarded = textbook_step(K, y, alpha, g, i, j, C, guard=False)
            swapped = textbook_step(K, y, alpha, g, i, j, C, swap=True)
            if curvature <= 0 and np.abs(new - unguarded).max() <= 1e-9 * scale:
                raise AssertionError(
                    f"the curvature K_ii + K_jj - 2K_ij = {curvature:.2g} is <= 0 {where}, and "
                    "your step divided by it: it went against the slope and Psi rose from "
                    f"{Psi(K, y, alpha):.6g} to {Psi(K, y, new):.6g}. Two equal points give a "
                    "curvature 0, and rounding can make it negative: replace a curvature <= 0 "
                    "by tau = 1e-12"
                )
            if np.abs(new - swapped).max() <= 1e-9 * scale:
                case, other = ("y_i != y_j", "y_i == y_j")
                if y[i] == y[j]:
                    case, other = other, case
                raise AssertionError(
                    f"your clipping uses the bounds L, H of the case {other} when {case} {where}. "
                    "alpha_i moves by +y_i eta: it can rise to C if y_i = +1, fall to 0 if "
                    "y_i = -1. For alpha_j that is L = max(0, alpha_j - alpha_i), "
                    "H = min(C, C + alpha_j - alpha_i) when y_i != y_j, and "
                    "L = max(0, alpha_i + alpha_j - C), H = min(C, alpha_i + alpha_j) when "
                    "y_i == y_j"
                )
            if np.any(new < 0) or np.any(new > C):
                k = int(np.argmax(np.maximum(-new, new - C)))
                raise AssertionError(
                    f"pair_step left alpha_{k} = {new[k]:.6g} outside the box [0, {C:.4g}] "
                    f"{where}: clip the step at the first bound that alpha_i or alpha_j meets"
                )
            if not (abs(y @ new - y @ alpha) <= 1e-9 * scale):
                raise AssertionError(
                    f"pair_step changed y'alpha from {y @ alpha:.6g} to {y @ new:.6g} {where}: "
                    "alpha_i moves by +y_i eta and alpha_j by -y_j eta, so y'alpha stays"
                )
            k = i if abs(new[i] - ref_alpha[i]) > abs(new[j] - ref_alpha[j]) else j
            raise AssertionError(
                f"pair_step gives alpha_{k} = {new[k]:.10g}, expected {ref_alpha[k]:.10g} {where}: "
                "the step is eta = min(eta*, room of alpha_i, room of alpha_j) with "
                "eta* = ((-y_i g_i) - (-y_j g_j)) / (K_ii + K_jj - 2K_ij)"
            )
        for k in (i, j):
            bound = ref_alpha[k]
            if bound in (0.0, C) and new[k] != bound:
                raise AssertionError(
                    f"the box stops alpha_{k} at {bound:.4g}, but pair_step returns "
                    f"alpha_{k} = {bound:.4g} {new[k] - bound:+.2g}, a rounding error off the "
                    f"bound {where}. alpha_{k} then still counts as free, sits in I_up or I_low "
                    "with no room to move, and the solver can pick it for ever (check 4): put a "
                    "multiplier that the clipping stops exactly on its bound, 0 or C"
                )
        expected_g = gradient(K, y, new)
        g_scale = max(1.0, float(np.abs(expected_g).max()))
        if not (np.abs(new_g - expected_g).max() <= 1e-9 * g_scale):
            change = expected_g - g
            if np.array_equal(new_g, g):
                raise AssertionError(
                    f"pair_step returns g unchanged {where}: the step changes g = Q alpha - 1 by "
                    "eta Y(K_:i - K_:j), and the next choice of the pair needs the new g"
                )
            if np.abs(new_g - (g - change)).max() <= 1e-9 * g_scale:
                raise AssertionError(
                    f"pair_step updates g with the wrong sign {where}: alpha_i += y_i eta and "
                    "alpha_j -= y_j eta change g = Q alpha - 1 by +eta Y(K_:i - K_:j)"
                )
            raise AssertionError(
                f"the g returned by pair_step differs from Q alpha - 1 at the new alpha by "
                f"{np.abs(new_g - expected_g).max():.2e} {where}: update it by eta Y(K_:i - K_:j)"
            )

    return call(K, y, alpha, g, i, j, C), judge


def clipped_on_i(rng, y_i, y_j):
    """A case where alpha_i's bound stops the step, with values for which the textbook form
    (alpha_i computed through alpha_j) misses the bound by a rounding error."""
    n = int(rng.integers(6, 11))
    for _ in range(200):
        K, y, alpha, C = step_problem(rng, n)
        i, j = (int(k) for k in rng.choice(n, size=2, replace=False))
        y[i], y[j] = y_i, y_j
        room = float(rng.uniform(1e-3, 0.05)) * C  # little room for alpha_i
        alpha[i] = C - room if y_i > 0 else room
        alpha[j] = float(rng.uniform(0.3, 0.7)) * C  # plenty for alpha_j
        g = gradient(K, y, alpha)
        F = -y * g
        if not F[i] > F[j] + 1e-3:
            continue
        ref, _ = reference_step(K, y, alpha, g, i, j, C)
        if ref[i] not in (0.0, C):
            continue
        if misses_bound(textbook_step(K, y, alpha, g, i, j, C), C, i):
            return step_case(K, y, alpha, C, i, j, "the bound of alpha_i stops the step")
    raise RuntimeError("no case of a step stopped by alpha_i's bound was found")


def random_case(rng, y_i, y_j, what, clipped=None):
    """A case with labels (y_i, y_j) on a random problem; ``clipped`` asks for a step that the
    box stops (True), or one that reaches the vertex (False)."""
    for _ in range(200):
        K, y, alpha, C = step_problem(rng, int(rng.integers(8, 16)))
        F = -y * gradient(K, y, alpha)
        pair = pair_of(rng, y, alpha, F, C, y_i, y_j)
        if pair is None:
            continue
        ref, _ = reference_step(K, y, alpha, gradient(K, y, alpha), *pair, C)
        at_bound = any(ref[k] in (0.0, C) for k in pair)
        if clipped is None or clipped == at_bound:
            return step_case(K, y, alpha, C, *pair, what)
    raise RuntimeError(f"no case '{what}' was found")


def equal_points_case(rng, negative):
    """Two equal points as the pair: curvature 0, or (``negative``) a rounding error below 0,
    as a Gram matrix computed in floating point can give."""
    n = int(rng.integers(6, 11))
    while True:
        X, y = noisy_points(rng, n)
        p, q = (int(k) for k in rng.choice(n, size=2, replace=False))
        X[q] = X[p]
        y[p], y[q] = (1.0, -1.0) if rng.random() < 0.5 else (-1.0, 1.0)
        K = linear_kernel(X) + 1.0
        if negative:
            K[p, q] = K[q, p] = np.nextafter(np.nextafter(K[p, p], np.inf), np.inf)
        C = float(rng.uniform(0.5, 5.0))
        alpha = rng.uniform(0.2, 0.8, size=n) * C
        F = -y * gradient(K, y, alpha)
        i, j = (p, q) if F[p] > F[q] else (q, p)
        if abs(F[p] - F[q]) > 1e-3:
            what = (
                "points i and j equal, K_ij a rounding error above K_ii = K_jj"
                if negative
                else "points i and j equal: curvature 0"
            )
            return step_case(K, y, alpha, C, i, j, what)


@check(1, "the pair step: clipping to the box, y'alpha kept, the gradient updated", "pair_step")
def check_1(rng):
    labels = [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)]
    cases = []
    for y_i, y_j in labels:
        cases.append(random_case(rng, y_i, y_j, "a step to the vertex", clipped=False))
        cases.append(random_case(rng, y_i, y_j, "a step stopped by the box", clipped=True))
        cases.append(clipped_on_i(rng, y_i, y_j))
    cases.append(equal_points_case(rng, negative=False))
    cases.append(equal_points_case(rng, negative=True))
    yield from in_random_order(rng, cases)


# -- check 2: the maximal violating pair -----------------------------------------------------------
def pair_case(y, alpha, g, C, what):
    """A case of check 2: violating_pair against the maximal violating pair."""
    n = len(y)
    F = -y * g
    up, low = index_sets(y, alpha, C)
    top, bottom = float(F[up].max()), float(F[low].min())
    scale = max(1.0, float(np.abs(F).max()))
    where = f"({what}, n = {n}, C = {C:.4g})"

    def judge(outcome):
        i, j, gap = parts(outcome.result, 3, "violating_pair must return the tuple (i, j, Delta)")
        i = whole_number(i, "violating_pair", "i", where)
        j = whole_number(j, "violating_pair", "j", where)
        gap = number(gap, "violating_pair", "Delta", where)
        for name, k in (("i", i), ("j", j)):
            if not 0 <= k < n:
                raise AssertionError(f"{name} = {k} is not an index of the {n} points {where}")
        if not up[i]:
            raise AssertionError(
                f"i = {i} is not in I_up {where}: alpha_i = {alpha[i]:.4g}, y_i = {int(y[i]):+d}. "
                "I_up holds the k whose alpha_k can move by +y_k: alpha_k < C with y_k = +1, "
                "alpha_k > 0 with y_k = -1 (I_low is the mirror set)"
            )
        if not low[j]:
            raise AssertionError(
                f"j = {j} is not in I_low {where}: alpha_j = {alpha[j]:.4g}, y_j = {int(y[j]):+d}. "
                "I_low holds the k whose alpha_k can move by -y_k: alpha_k > 0 with y_k = +1, "
                "alpha_k < C with y_k = -1"
            )
        if not (F[i] >= top - 1e-12 * scale and F[j] <= bottom + 1e-12 * scale):
            raise AssertionError(
                f"(i, j) = ({i}, {j}) is not the maximal violating pair {where}: i maximises "
                "-y_i g_i over I_up and j minimises -y_j g_j over I_low (the numbers -y_k g_k, "
                "not g_k)"
            )
        if not (abs(gap - (top - bottom)) <= 1e-12 * scale):
            raise AssertionError(
                f"Delta = {gap:.6g}, expected {top - bottom:.6g} {where}: "
                "Delta(alpha) = max_{I_up}(-y_i g_i) - min_{I_low}(-y_j g_j), with its sign"
            )

    return call(y, alpha, g, C), judge


@check(2, "the maximal violating pair and the KKT gap Delta", "violating_pair")
def check_2(rng):
    cases = []
    n = int(rng.integers(6, 20))
    _, y = noisy_points(rng, n)
    C = float(rng.uniform(0.5, 5.0))
    cases.append(pair_case(y, np.zeros(n), -np.ones(n), C, "the start, alpha = 0 and g = -1"))
    for what in ("alpha with entries at 0, at C and between", "integer labels"):
        K, y, alpha, C = step_problem(rng, int(rng.integers(8, 30)))
        if what == "integer labels":
            y = y.astype(int)
        cases.append(pair_case(y, alpha, gradient(K, y, alpha), C, what))
    # every positive multiplier at C, every negative one at 0 but one
    K, y, alpha, C = step_problem(rng, int(rng.integers(8, 30)))
    alpha = np.where(y > 0, C, 0.0)
    alpha[np.flatnonzero(y < 0)[0]] = 0.5 * C
    cases.append(pair_case(y, alpha, gradient(K, y, alpha), C, "most multipliers at a bound"))
    # an optimal alpha: Delta <= tol, and still a pair
    X, y = noisy_points(rng, int(rng.integers(15, 30)))
    K, C = rbf_kernel(X, gamma=1.0), float(rng.uniform(0.5, 5.0))
    alpha = reference_smo(K, y, C=C, tol=1e-9).alpha
    cases.append(pair_case(y, alpha, gradient(K, y, alpha), C, "an optimal alpha"))
    yield from in_random_order(rng, cases)


# -- check 3: the solver against libsvm and the KKT conditions -------------------------------------
def libsvm(K, y, C):
    """The optimum of Psi and the bias of libsvm (scikit-learn's SVC on the precomputed kernel),
    and who computed them.  On a kernel of low rank libsvm can take millions of steps; after
    10**5 the optimum is that of ksvm.smo.smo instead."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import SVC

    svc = SVC(kernel="precomputed", C=C, tol=1e-9, max_iter=100_000)
    quietly(ConvergenceWarning, svc.fit, K, y)
    if svc.fit_status_ != 0:  # libsvm stopped at max_iter
        ref = quietly(Warning, reference_smo, K, y, C=C, tol=1e-9, max_iter=100_000)
        return Psi(K, y, ref.alpha), ref.b, "ksvm.smo.smo"
    alpha = np.zeros(len(y))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return Psi(K, y, alpha), float(svc.intercept_[0]), "libsvm"


def smo_answer(outcome, n, max_iter, where):
    if outcome.raised_a("TimeoutError"):
        raise AssertionError(
            f"smo did not return within the time limit {where}: it must stop after max_iter "
            "pair steps, whatever the gap"
        )
    alpha, b, n_iter = parts(outcome.result, 3, "smo must return the tuple (alpha, b, n_iter)")
    alpha = finite(alpha, "smo", "alpha", where)
    if alpha.shape != (n,):
        raise AssertionError(f"smo must return alpha of shape ({n},), got {alpha.shape} {where}")
    b = number(b, "smo", "b", where)
    n_iter = whole_number(n_iter, "smo", "n_iter (the number of pair steps)", where)
    if not 0 <= n_iter <= max_iter:
        raise AssertionError(
            f"smo reports n_iter = {n_iter} with max_iter = {max_iter} {where}: count the pair "
            "steps, and stop after max_iter of them"
        )
    return alpha, b, n_iter


def feasible(alpha, y, C, where):
    if not (alpha.min() >= -1e-12 * C and alpha.max() <= C * (1 + 1e-12)):
        raise AssertionError(
            f"smo returned alpha outside the box [0, C]: from {alpha.min():.6g} to "
            f"{alpha.max():.6g} with C = {C:.4g} {where}"
        )
    if not (abs(y @ alpha) <= 1e-9 * C * len(y)):
        raise AssertionError(
            f"smo returned alpha with y'alpha = {y @ alpha:.3g} {where}: every step keeps "
            "y'alpha = 0, from alpha = 0"
        )


def stalled(alpha, C, n_iter, max_iter, gap, tol, where):
    """The diagnosis of a solver that ran to max_iter with the gap open."""
    near = [k for k in range(len(alpha)) if misses_bound(alpha, C, k)]
    said = (
        f" alpha_{near[0]} = {float(alpha[near[0]])!r} is a rounding error off a bound "
        f"(C = {C!r}):"
        " an index set that tests alpha < C or alpha > 0 exactly keeps it, it has no room, and "
        "the maximal violating pair picks it again and again."
        if near
        else ""
    )
    return AssertionError(
        f"smo stopped only at max_iter = {max_iter} (n_iter = {n_iter}) with the KKT gap "
        f"Delta = {gap:.3g} > tol = {tol:g} {where}, where the maximal violating pair stops "
        f"long before.{said} Put a multiplier that the clipping stops exactly on 0 or C "
        "(check 1), or test the index sets with a tolerance"
    )


def solver_case(K, y, C, tol, what, max_iter=20_000):
    """A case of check 3: smo against libsvm's objective and the KKT conditions."""
    n = len(y)
    ref_Psi, ref_b, who = libsvm(K, y, C)
    where = f"({what}, n = {n}, C = {C:.4g}, tol = {tol:g})"

    def judge(outcome):
        alpha, b, n_iter = smo_answer(outcome, n, max_iter, where)
        feasible(alpha, y, C, where)
        gap, top, bottom = kkt(K, y, alpha, C)
        if not (gap <= tol + 1e-9):
            if n_iter == max_iter:
                raise stalled(alpha, C, n_iter, max_iter, gap, tol, where)
            raise AssertionError(
                f"smo stopped after {n_iter} steps with the KKT gap Delta = {gap:.3g} > tol "
                f"{where}: stop when Delta(alpha) <= tol, with g = Q alpha - 1 kept up to date"
            )
        value = Psi(K, y, alpha)
        # the reference stopped at a KKT gap of 1e-9, so its Psi is within n C 1e-9 of the optimum
        low, high = ref_Psi - n * C * 1e-9 - 1e-9, ref_Psi + n * C * tol + 1e-9
        if not (low <= value <= high):
            raise AssertionError(
                f"Psi(alpha) = {value:.10g}, the optimum of {who} is {ref_Psi:.10g} {where}"
            )
        if not (top - tol - 1e-9 <= b <= bottom + tol + 1e-9):
            if top - tol - 1e-9 <= -b <= bottom + tol + 1e-9:
                raise AssertionError(
                    f"b has the wrong sign {where}: b = {b:.6g}, the bias of {who} is "
                    f"{ref_b:.6g}. A free multiplier gives b = y_j - sum_i alpha_i y_i K_ij "
                    "= -y_j g_j"
                )
            raise AssertionError(
                f"b = {b:.6g} lies outside the interval [{top:.6g}, {bottom:.6g}] of optimal "
                f"biases {where} ({who}: {ref_b:.6g}): take the mean of -y_j g_j over the free "
                "multipliers 0 < alpha_j < C, or the midpoint of the interval if none is free"
            )

    return call(K, y, C, tol=tol, max_iter=max_iter), judge


@check(3, "smo against libsvm's optimum and the KKT conditions", "smo")
def check_3(rng):
    cases = []
    X, y = noisy_points(rng, int(rng.integers(30, 61)))
    cases.append(
        solver_case(
            rbf_kernel(X, gamma=float(rng.uniform(0.5, 2.0))),
            y,
            float(np.exp(rng.uniform(np.log(0.3), np.log(10.0)))),
            1e-6,
            "Gaussian kernel",
        )
    )
    while True:  # a bias far from 0, so that its sign shows
        X, y = noisy_points(rng, int(rng.integers(30, 61)), flip=0.05)
        X += rng.uniform(1.5, 3.0, size=2) * rng.choice([-1.0, 1.0], size=2)
        C = float(np.exp(rng.uniform(np.log(0.05), np.log(1.0))))
        if abs(reference_smo(linear_kernel(X), y, C=C, tol=1e-6).b) > 0.2:
            break
    cases.append(
        solver_case(linear_kernel(X), y, C, 1e-6, "linear kernel, the points away from the origin")
    )
    X, y = noisy_points(rng, int(rng.integers(20, 41)), flip=0.0)
    cases.append(
        solver_case(
            polynomial_kernel(X, degree=2, gamma=1.0, coef0=1.0),
            y,
            float(rng.uniform(0.5, 3.0)),
            1e-5,
            "kernel (x'z + 1)^2",
        )
    )
    X, y = noisy_points(rng, int(rng.integers(20, 41)))
    cases.append(
        solver_case(
            rbf_kernel(X, gamma=1.0),
            y,
            float(rng.uniform(0.005, 0.02)),
            1e-6,
            "a small C, no free multiplier",
        )
    )
    yield from in_random_order(rng, cases)


# -- check 4: stopping -----------------------------------------------------------------------
def textbook_smo(K, y, C, tol, max_iter):
    """SMO with the textbook step (`textbook_step`: alpha_i through alpha_j, not put on its
    bound) and exact index sets; the number of steps it took."""
    n = len(y)
    alpha, g = np.zeros(n), -np.ones(n)
    for n_iter in range(max_iter):
        F = -y * g
        up, low = index_sets(y, alpha, C)
        i = int(np.argmax(np.where(up, F, -np.inf)))
        j = int(np.argmin(np.where(low, F, np.inf)))
        if F[i] - F[j] <= tol:
            return n_iter
        new = textbook_step(K, y, alpha, g, i, j, C)
        eta = y[j] * (alpha[j] - new[j])
        g = g + eta * y * (K[:, i] - K[:, j])
        alpha = new
    return max_iter


def stall_case(rng, max_iter=3000, tol=1e-6):
    """A case of check 4: a problem on which the textbook step never lets SMO stop."""
    while True:
        X, y = noisy_points(rng, int(rng.integers(50, 61)), flip=0.3)
        K, C = linear_kernel(X), float(np.exp(rng.uniform(0.0, np.log(10.0))))
        ref = quietly(
            Warning,
            reference_smo,
            K,
            y,
            C=C,
            tol=tol,
            selection="mvp",
            shrinking=False,
            max_iter=800,
        )
        if ref.converged and textbook_smo(K, y, C, tol, max_iter) == max_iter:
            return solver_case(
                K, y, C, tol, "linear kernel, many multipliers at C", max_iter=max_iter
            )


def chapter_case(rng):
    """A case of check 4: the 30 points of the chapter's SMO from scratch (soft_margin), linear
    kernel, C = 3, where its loop in Platt's form never stopped."""
    X, y = make_noisy_2d(30, flip=0.1, seed=7)
    tol = float(10 ** rng.uniform(-8, -6))
    return solver_case(
        linear_kernel(X),
        y.astype(float),
        3.0,
        tol,
        "the 30 points of the chapter's SMO from scratch, linear kernel",
        max_iter=int(rng.integers(2000, 3001)),
    )


def max_iter_case(rng):
    """A case of check 4: smo with max_iter = 1, 2 or 3 on a problem that needs more steps."""
    X, y = noisy_points(rng, int(rng.integers(20, 41)))
    K, C, k = rbf_kernel(X, gamma=1.0), 1.0, int(rng.integers(1, 4))
    where = f"(max_iter = {k}, n = {len(y)})"

    def judge(outcome):
        alpha, _, n_iter = smo_answer(outcome, len(y), k, where)
        if n_iter != k:
            raise AssertionError(
                f"smo reports n_iter = {n_iter} {where} on a problem that needs many steps: "
                "count each pair step, and stop after max_iter of them"
            )
        feasible(alpha, y, C, where)
        if not (np.count_nonzero(alpha) <= 2 * k):
            raise AssertionError(
                f"after {k} pair step(s) from alpha = 0, {np.count_nonzero(alpha)} multipliers "
                f"are nonzero {where}: start from alpha = 0, and move two per step"
            )

    return call(K, y, C, tol=1e-6, max_iter=k), judge


def labels_case(rng):
    """A case of check 4: labels 0 and 1 must raise ValueError."""
    X, y = noisy_points(rng, 10)
    y01 = (y > 0).astype(float)

    def judge(outcome):
        outcome.expect_raised(
            "ValueError",
            "smo must raise ValueError for labels 0 and 1 (the dual needs y_i = -1 or +1: with "
            "y_i = 0, y'alpha = 0 and Q = YKY lose point i)",
        )

    return call(linear_kernel(X), y01, 1.0, tol=1e-3, max_iter=100), judge


@check(4, "smo stops: multipliers on their bounds, max_iter, labels 0/1", "smo")
def check_4(rng):
    cases = [chapter_case(rng), stall_case(rng), stall_case(rng)]
    cases += [max_iter_case(rng), labels_case(rng)]
    yield from in_random_order(rng, cases)


CHECKS = [check_1, check_2, check_3, check_4]
