"""The checks of assignment 9, the weighted ascent of Cocianu & State: its pair step and its loop.

In the book's notation (chapter ``weighted_ascent``): the dual is minimised,
Psi(alpha) = alpha'Q alpha / 2 - 1'alpha with Q = YKY, its gradient is g = Q alpha - 1, that is
g_i = y_i <w, phi_i> - 1.  One step takes a positive example i and a negative one j and adds

    delta = -eta [rho_1 g_i + (1 - rho_1) g_j],  shortened to delta >= -min(alpha_i, alpha_j),

to alpha_i and alpha_j.  Psi then falls by exactly -(delta (g_i + g_j) + delta^2 / 2 d2_ij),
d2_ij = K_ii + K_jj - 2 K_ij.  The loop starts at alpha = 0, takes among the pairs with
delta (g_i + g_j) < 0 the one whose decrease is largest, stops when there is none or after the
step whose decrease is below tol, or after max_iter steps.  ``ksvm.ascent.weighted_ascent`` is
the reference (its ``rho`` is eta, its ``weight`` rho_1, its Q the maximised form -Psi).
"""

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from assignments.checks import (
    call,
    check,
    in_random_order,
    parts,
    quietly,
    relative_error,
    vector,
    whole_number,
)
from ksvm.ascent import weighted_ascent as reference_ascent
from ksvm.class_statistics import rho1 as lemma_rho1
from ksvm.kernels import linear_kernel, rbf_kernel

ASSIGNMENT = "09_weighted_ascent"

TIGHT = 1e-9  # relative agreement of alpha with ksvm: the same steps, up to rounding


# ---------------------------------------------------------------- data


def problem(rng, m1, m2):
    """A Gram matrix of the Gaussian kernel on m1 positive and m2 negative points of the plane,
    shuffled: separable in the feature space, so the hard-margin dual has an optimum."""
    shift = rng.normal(size=2)
    shift *= rng.uniform(0.8, 1.6) / np.linalg.norm(shift)
    X = np.vstack([rng.normal(size=(m1, 2)) + shift, rng.normal(size=(m2, 2)) - shift])
    y = np.r_[np.ones(m1), -np.ones(m2)]
    p = rng.permutation(m1 + m2)
    gamma = float(rng.uniform(0.3, 1.5))
    return rbf_kernel(X[p], gamma=gamma), y[p], gamma


def place(y, eta, rho1, gamma=None, extra=""):
    kernel = "linear kernel" if gamma is None else f"Gaussian kernel, gamma={gamma:.3g}"
    return (
        f"({int((y > 0).sum())} positive and {int((y < 0).sum())} negative examples, {kernel}, "
        f"eta={eta:.3g}, rho1={rho1:.4g}{extra})"
    )


# ---------------------------------------------------------------- references


def reference(K, y, eta, rho1, tol, max_iter):
    """ksvm's weighted ascent (clipped, from alpha = 0), its warning of max_iter silenced."""
    return quietly(
        ConvergenceWarning,
        reference_ascent,
        K,
        y,
        rho=eta,
        weight=rho1,
        tol=tol,
        max_iter=max_iter,
        check_separable=False,
        return_history=True,
    )


def gradient(K, y, alpha, sign=1.0):
    """g = Q alpha - 1 (sign=-1: the gradient of the maximised form, 1 - Q alpha)."""
    return sign * (y * (K @ (alpha * y)) - 1.0)


def step(K, y, alpha, i, j, eta, rho1, weights="right", clip="pair", sign=1.0):
    """alpha after one pair step, as the book writes it, or with a common mistake:
    weights='swapped' (rho_1 on g_j), clip='none' or 'each' (each multiplier at 0 on its own),
    sign=-1 (the gradient with the wrong sign)."""
    g = gradient(K, y, alpha, sign)
    w1 = 1.0 - rho1 if weights == "swapped" else rho1
    delta = -eta * (w1 * g[i] + (1.0 - w1) * g[j])
    if clip == "pair":
        delta = max(delta, -min(alpha[i], alpha[j]))
    new = np.array(alpha, dtype=float)
    new[i] += delta
    new[j] += delta
    return np.maximum(new, 0.0) if clip == "each" else new


def ascent(K, y, eta, rho1, tol, max_iter, **mistake):
    """The loop as the book writes it, or with a common mistake, for the diagnoses:
    weights='swapped', clip='none'/'each', sign=-1 (see `step`); clip='score' (the pairs scored
    with the unclipped delta, the step clipped); select='first' (the pair of the
    largest first-order decrease -delta (g_i + g_j)); index='wrong' (alpha[p], alpha[q] moved by
    the pair's delta, p and q the row and column of the pair matrix, not the examples) or
    'wrong-step' (the pair step made on p and q; None where it would raise, p not positive or q
    not negative); stop='before' (a step
    whose decrease is below tol is not made), 'delta' (stop on |delta| < tol), 'change'
    (stop on ||alpha - alpha_old|| < tol) or 'never' (no stop on a small change).

    Returns (alpha, n_iter, steps), steps[t] = (decrease, margin): the decrease of Psi at step
    t + 1, and how far (relative) the best pair's decrease was above the second best's.
    """
    weights, clip = mistake.get("weights", "right"), mistake.get("clip", "pair")
    sign, select = mistake.get("sign", 1.0), mistake.get("select", "exact")
    index, stop = mistake.get("index", "right"), mistake.get("stop", "drop")
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    dK = np.diag(K)
    d2 = dK[pos][:, None] + dK[neg][None, :] - 2.0 * K[np.ix_(pos, neg)]
    w1 = 1.0 - rho1 if weights == "swapped" else rho1
    alpha, n_iter, steps = np.zeros(len(y)), 0, []
    while n_iter < max_iter:
        g = gradient(K, y, alpha, sign)
        gi, gj = g[pos][:, None], g[neg][None, :]
        s = gi + gj
        delta = -eta * (w1 * gi + (1.0 - w1) * gj)
        clipped = np.maximum(delta, -np.minimum.outer(alpha[pos], alpha[neg]))
        if clip == "pair":
            delta = clipped
        drop = -(delta * s + 0.5 * delta**2 * d2)
        score = -(delta * s) if select == "first" else drop.copy()
        score[delta * s >= 0] = -np.inf
        k = int(np.argmax(score))
        p, q = divmod(k, len(neg))
        if not score.flat[k] > 0:  # no pair decreases Psi (to first order)
            break
        top = np.sort(score.ravel())[::-1]
        margin = (top[0] - top[1]) / top[0] if len(top) > 1 else np.inf
        if stop == "before" and drop[p, q] < tol:
            break
        i, j = (pos[p], neg[q]) if index == "right" else (p, q)
        d = float(clipped[p, q] if clip == "score" else delta[p, q])
        if index == "wrong-step":
            if not (y[i] > 0 and y[j] < 0):
                return None, n_iter, steps
            alpha = step(K, y, alpha, i, j, eta, rho1)
        else:
            alpha[i] += d
            alpha[j] += d
        if clip == "each":
            alpha = np.maximum(alpha, 0.0)
        n_iter += 1
        steps.append((float(drop[p, q]), float(margin)))
        size = {"drop": drop[p, q], "delta": abs(d), "change": np.sqrt(2.0) * abs(d)}
        if stop in size and size[stop] < tol:
            break
    return alpha, n_iter, steps


def agrees_with_ksvm(K, y, eta, rho1, tol, max_iter):
    """ksvm's run, after checking that the check's own loop makes the same steps (else the
    check is wrong, not the student), and the margins of that loop's choices."""
    ref = reference(K, y, eta, rho1, tol, max_iter)
    alpha, n_iter, steps = ascent(K, y, eta, rho1, tol, max_iter)
    if not (n_iter == ref.n_iter and relative_error(alpha, ref.alpha) <= 1e-10):
        raise RuntimeError("the check's own weighted ascent disagrees with ksvm.ascent")
    return ref, steps


def well_separated(steps, upto, least=1e-6):
    """Whether at each of the first ``upto`` steps the best pair was ahead of the second best by
    a relative ``least``, so that rounding cannot change the choice."""
    return all(margin > least for _, margin in steps[:upto])


# ---------------------------------------------------------------- answers


def new_alpha(outcome, n, where):
    """pair_step's answer: a vector of n finite floats."""
    return vector(outcome.result, "pair_step", "the new alpha", n, where)


def answer(outcome, n, where):
    """weighted_ascent's answer (alpha, n_iter): n finite floats and an integer.  A ValueError
    is most likely the student's pair_step refusing a pair of the wrong classes."""
    if outcome.raised_a("ValueError") and "read-only" not in outcome.message:
        raise AssertionError(
            f"weighted_ascent raised ValueError ({outcome.message}) {where}. If your pair_step "
            f"raised it, the loop gave it a pair of the wrong classes: {WRONG_CLASS}"
        )
    alpha, n_iter = parts(
        outcome.result, 2, "weighted_ascent must return the tuple (alpha, n_iter)"
    )
    alpha = vector(alpha, "weighted_ascent", "alpha", n, where, ", one multiplier per example")
    return alpha, whole_number(n_iter, "weighted_ascent", "n_iter (the number of steps)", where)


def same(a, b, tol=TIGHT):
    return relative_error(a, b) <= tol


SWAPPED = (
    "rho_1 and 1 - rho_1 are swapped: rho_1 weighs the gradient g_i of the positive example, "
    "1 - rho_1 that of the negative one, delta = -eta [rho_1 g_i + (1 - rho_1) g_j]"
)
NOT_CLIPPED = (
    "a multiplier went negative: the step is not clipped. Shorten it so that the smaller of the "
    "two stops at 0, delta = max(delta, -min(alpha_i, alpha_j)), before adding it to both"
)
EACH_CLIPPED = (
    "you clipped each multiplier at 0 on its own after the step, which adds different amounts "
    "to alpha_i and alpha_j and breaks y'alpha = 0: clip the common step instead, "
    "delta = max(delta, -min(alpha_i, alpha_j))"
)
WRONG_SIGN = (
    "the gradient has the wrong sign: the book minimises Psi, whose gradient is "
    "g = Q alpha - 1, g_i = y_i <w, phi_i> - 1 (-1 at alpha = 0), and steps by "
    "delta = -eta [rho_1 g_i + (1 - rho_1) g_j]; the paper's 1 - y_i <w, phi_i> is the gradient "
    "of the maximised form -Psi, which goes with +eta"
)
SCORED_UNCLIPPED = (
    "the pairs are scored with the unclipped delta: clip it for every pair, "
    "delta = max(delta, -min(alpha_i, alpha_j)), before computing its decrease of Psi, so that "
    "each pair is scored by the step it would really make"
)
WRONG_CLASS = (
    "the two multipliers moved are not a positive and a negative example. Take i among the "
    "positive examples and j among the negative ones; if you score the pairs in a matrix of "
    "shape (n_+, n_-), map its row p and column q back to the examples, i = pos[p], j = neg[q]"
)


# ---------------------------------------------------------------- check 1: the pair step


def feasible_alpha(rng, y):
    """A random alpha >= 0 with y'alpha = 0, about a third of its entries exactly 0."""
    alpha = rng.uniform(0.05, 1.0, size=len(y)) * (rng.random(len(y)) > 0.35)
    pos, neg = y > 0, y < 0
    for group in (pos, neg):
        if not alpha[group].any():
            alpha[np.flatnonzero(group)[0]] = 0.5
    alpha[neg] *= alpha[pos].sum() / alpha[neg].sum()
    return alpha


def diagnose_step(got, K, y, alpha, i, j, eta, rho1, where):
    """Name the mistake of a pair step that returned ``got``, if it is a common one."""
    if same(got, step(K, y, alpha, i, j, eta, rho1, weights="swapped")):
        raise AssertionError(f"{SWAPPED} {where}")
    if same(got, step(K, y, alpha, i, j, eta, rho1, clip="each")):
        raise AssertionError(f"{EACH_CLIPPED} {where}")
    if got.min() < -1e-12:
        raise AssertionError(f"{NOT_CLIPPED} (alpha_min = {got.min():.3g}) {where}")
    if same(got, step(K, y, alpha, i, j, eta, rho1, sign=-1.0)):
        if same(got, alpha):
            raise AssertionError(
                f"pair_step returned alpha unchanged {where}, where the step is not 0. Either "
                f"{WRONG_SIGN} (the clip then stops this step at 0); or the step is not added "
                "to the array you return"
            )
        raise AssertionError(f"{WRONG_SIGN} {where}")
    others = np.ones(len(y), dtype=bool)
    others[[i, j]] = False
    if not same(got[others], alpha[others], 1e-12):
        raise AssertionError(
            f"pair_step changed multipliers other than alpha_i and alpha_j {where}: a step moves "
            "only the two of its pair"
        )
    if not abs(got[i] - alpha[i] - (got[j] - alpha[j])) <= 1e-9 * max(1.0, abs(got).max()):
        raise AssertionError(
            f"pair_step added {got[i] - alpha[i]:.6g} to alpha_i and {got[j] - alpha[j]:.6g} "
            f"to alpha_j {where}: add the same delta to both, which keeps y'alpha = 0"
        )


def step_case(K, y, alpha, i, j, eta, rho1, expected, where):
    """A case of check 1: pair_step from ``alpha`` on the pair (i, j) must give ``expected``."""
    alpha = np.array(alpha)
    if not same(step(K, y, alpha, i, j, eta, rho1), expected, 1e-12):
        raise RuntimeError("the check's own pair step disagrees with ksvm.ascent")

    def judge(outcome):
        got = new_alpha(outcome, len(y), where)
        if same(got, expected):
            return
        diagnose_step(got, K, y, alpha, i, j, eta, rho1, where)
        raise AssertionError(
            f"pair_step gives alpha_i = {got[i]:.6g}, alpha_j = {got[j]:.6g}, expected "
            f"{expected[i]:.6g} and {expected[j]:.6g} {where}: delta = -eta [rho_1 g_i + "
            "(1 - rho_1) g_j] with g = y * (K @ (alpha * y)) - 1, then "
            "delta = max(delta, -min(alpha_i, alpha_j))"
        )

    return call(K, y, alpha, int(i), int(j), eta=eta, rho1=rho1), judge


def trajectory_cases(rng):
    """Cases of check 1: steps that ksvm's ascent makes, each from its iterate alpha^(t)."""
    while True:
        K, y, gamma = problem(rng, int(rng.integers(4, 8)), int(rng.integers(4, 8)))
        eta, rho1 = float(rng.uniform(0.3, 1.5)), lemma_rho1(K, y)
        ref, steps = agrees_with_ksvm(K, y, eta, rho1, 1e-12, 40)
        if ref.n_iter >= 12 and well_separated(steps, 12):
            break
    cases = []
    for t in (0, int(rng.integers(2, 6)), int(rng.integers(6, 12))):
        before = reference(K, y, eta, rho1, 1e-12, t).alpha
        after = reference(K, y, eta, rho1, 1e-12, t + 1).alpha
        i, j = sorted(np.flatnonzero(after != before), key=lambda k: -y[k])
        where = place(y, eta, rho1, gamma, f", from ksvm's alpha after {t} steps")
        cases.append(step_case(K, y, before, i, j, eta, rho1, after, where))
    return cases


def constructed_cases(rng):
    """Cases of check 1 from a random feasible alpha: a step that the clip shortens, a negative
    step on a pair with a multiplier at 0 (no move), and a positive step; rho_1 away from 1/2."""
    while True:
        K, y, gamma = problem(rng, int(rng.integers(4, 8)), int(rng.integers(4, 8)))
        alpha = feasible_alpha(rng, y)
        eta = float(rng.uniform(0.8, 2.0))
        rho1 = float(rng.choice([rng.uniform(0.1, 0.35), rng.uniform(0.65, 0.9), 0.0, 1.0]))
        g = gradient(K, y, alpha)
        pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
        raw = -eta * (rho1 * g[pos][:, None] + (1 - rho1) * g[neg][None, :])
        floor = np.minimum.outer(alpha[pos], alpha[neg])
        kinds = {
            "shortened by the clip": (raw < -1.5 * floor) & (floor > 0.05),
            "a negative step on a pair with a multiplier at 0": (raw < -0.05) & (floor == 0),
            "a positive step": raw > 0.05,
        }
        if all(mask.any() for mask in kinds.values()):
            break
    cases = []
    for kind, mask in kinds.items():
        p, q = np.argwhere(mask)[rng.integers(mask.sum())]
        i, j = pos[p], neg[q]
        where = place(y, eta, rho1, gamma, f", {kind}, i={i}, j={j}")
        cases.append(
            step_case(K, y, alpha, i, j, eta, rho1, step(K, y, alpha, i, j, eta, rho1), where)
        )
    return cases, (K, y, alpha, eta, rho1)


def wrong_class_case(rng, K, y, alpha, eta, rho1):
    """A case of check 1: pair_step on a pair that is not (positive, negative) raises ValueError."""
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    i, j = [(rng.choice(neg), rng.choice(pos)), tuple(rng.choice(pos, 2, replace=False))][
        int(rng.integers(2))
    ]

    def judge(outcome):
        outcome.expect_raised(
            "ValueError",
            f"pair_step must raise ValueError when i is not a positive example or j not a "
            f"negative one (here y_i = {y[i]:+.0f}, y_j = {y[j]:+.0f}): the step adds the same "
            "delta to a positive and a negative multiplier, which is what keeps y'alpha = 0",
        )

    return call(K, y, alpha, int(i), int(j), eta=eta, rho1=rho1), judge


@check(
    1, "one pair step, against the steps of ksvm.ascent.weighted_ascent, with the clip", "pair_step"
)
def check_1(rng):
    cases = trajectory_cases(rng)
    constructed, data = constructed_cases(rng)
    cases += constructed
    cases.append(wrong_class_case(rng, *data))
    yield from in_random_order(rng, cases)


# ---------------------------------------------------------------- check 2: the iterates


def diagnose_loop(alpha, n_iter, K, y, eta, rho1, tol, max_iter, where):
    """Name the mistake of a weighted_ascent that returned (alpha, n_iter), if a common one."""
    scale = max(1.0, float(np.abs(alpha).max()))
    if not abs(float(y @ alpha)) <= 1e-9 * scale:
        raise AssertionError(f"y'alpha = {float(y @ alpha):.3g}, not 0, {where}: {WRONG_CLASS}")
    if alpha.min() < -1e-12:
        raise AssertionError(f"{NOT_CLIPPED} (alpha_min = {alpha.min():.3g}) {where}")
    found = []
    for mistake, says in (
        ({"sign": -1.0}, WRONG_SIGN),
        ({"weights": "swapped"}, SWAPPED),
        ({"index": "wrong"}, WRONG_CLASS),
        ({"index": "wrong-step"}, WRONG_CLASS),
        ({"clip": "score"}, SCORED_UNCLIPPED),
        ({"clip": "each"}, EACH_CLIPPED),
        (
            {"select": "first"},
            "you chose the pair by the first-order term -delta (g_i + g_j) alone: Psi is "
            "quadratic, so take the pair whose exact decrease "
            "-(delta (g_i + g_j) + delta^2 / 2 ||phi_i - phi_j||^2) is largest, among those "
            "with delta (g_i + g_j) < 0",
        ),
    ):
        wrong, wrong_n, _ = ascent(K, y, eta, rho1, tol, max_iter, **mistake)
        if wrong is not None and n_iter == wrong_n and same(alpha, wrong) and says not in found:
            found.append(says)
    if found == [WRONG_SIGN] and n_iter == 0:
        raise AssertionError(
            f"your loop made no step {where}, where at alpha = 0 every pair decreases Psi (its "
            f"step is delta = eta > 0). Either {WRONG_SIGN} (the clip then stops every step at "
            "0); or the loop stops before its first step"
        )
    if SCORED_UNCLIPPED in found and EACH_CLIPPED in found:
        found.remove(EACH_CLIPPED)  # no step was clipped: what shows is the scoring
    if len(found) == 1:
        raise AssertionError(f"{found[0]} {where}")
    if found:
        raise AssertionError(
            f"alpha is what each of these {len(found)} mistakes gives {where}; look for them: "
            + "; ".join(f"({k}) {says}" for k, says in enumerate(found, 1))
        )


def iterate_case(K, y, eta, rho1, k, where):
    """A case of check 2: weighted_ascent stopped by max_iter = k, against ksvm."""
    tol = 1e-12
    ref = reference(K, y, eta, rho1, tol, k)
    where = f"after max_iter={k} step(s) {where}"

    def judge(outcome):
        alpha, n_iter = answer(outcome, len(y), where)
        if n_iter == ref.n_iter and same(alpha, ref.alpha):
            return
        count = (
            f"you report n_iter={n_iter}, ksvm.ascent.weighted_ascent made {ref.n_iter} "
            f"step(s) {where}: make at most max_iter steps, and count each step made"
        )
        if same(alpha, ref.alpha):
            raise AssertionError(count)
        diagnose_loop(alpha, n_iter, K, y, eta, rho1, tol, k, where)
        if n_iter != ref.n_iter:
            raise AssertionError(count)
        raise AssertionError(
            f"alpha differs from that of ksvm.ascent.weighted_ascent by "
            f"{relative_error(alpha, ref.alpha):.2e} (relative) {where}: start at alpha = 0; at "
            "each step score every pair (i positive, j negative) by its exact decrease of Psi, "
            "-(delta (g_i + g_j) + delta^2 / 2 ||phi_i - phi_j||^2), with the clipped delta, and "
            "move the best pair among those with delta (g_i + g_j) < 0"
        )

    return call(K, y, eta=eta, rho1=rho1, tol=tol, max_iter=k), judge


@check(2, "the first steps of the loop, against ksvm.ascent.weighted_ascent", "weighted_ascent")
def check_2(rng):
    cases = []
    for weight in ("lemma", "drawn"):
        while True:
            K, y, gamma = problem(rng, int(rng.integers(4, 9)), int(rng.integers(4, 9)))
            eta = float(rng.uniform(0.3, 1.5))
            if weight == "lemma":
                rho1 = lemma_rho1(K, y)
            else:
                rho1 = float(rng.choice([rng.uniform(0.1, 0.35), rng.uniform(0.65, 0.9)]))
            ref, steps = agrees_with_ksvm(K, y, eta, rho1, 1e-12, 40)
            if ref.n_iter >= 25 and well_separated(steps, 25):
                break
        where = place(y, eta, rho1, gamma)
        for k in (1, 2, int(rng.integers(3, 10)), int(rng.integers(10, 26))):
            cases.append(iterate_case(K, y, eta, rho1, k, where))
    yield from in_random_order(rng, cases)


# ---------------------------------------------------------------- check 3: the stopping rule


NEVER = (
    "the stopping rule is never met: after each step, stop if the decrease of Psi it made, "
    "-(delta (g_i + g_j) + delta^2 / 2 ||phi_i - phi_j||^2), is below tol"
)


def tol_case(rng):
    """A case of check 3: a run that the rule 'decrease < tol' ends at a step T drawn among those
    whose decrease is well below every earlier one, so that rounding cannot move the stop; and
    where the common wrong rules (on |delta|, on ||alpha - alpha_old||, one step early, none)
    stop elsewhere, so that each can be named."""
    max_iter, horizon = 3000, 600
    while True:
        K, y, gamma = problem(rng, int(rng.integers(4, 9)), int(rng.integers(4, 9)))
        eta = float(rng.uniform(0.3, 1.5))
        rho1 = float(rng.choice([0.5, lemma_rho1(K, y)]))
        _, ends, steps = ascent(K, y, eta, rho1, 0.0, horizon)
        drops = np.array([drop for drop, _ in steps])
        lows = [
            t
            for t in range(8, len(drops))
            if 1e-7 < drops[t] < 0.3 * drops[:t].min() and well_separated(steps, t + 1)
        ]
        if not lows:
            continue
        t = int(rng.choice(lows))
        tol = float(np.sqrt(drops[t] * drops[:t].min()))
        wrong = {
            stop: ascent(K, y, eta, rho1, tol, horizon, stop=stop)[1]
            for stop in ("delta", "change")
        }
        # Each wrong rule must stop by itself, before the run ends, and not at the right step.
        if all(n < ends and n not in (t, t + 1) for n in wrong.values()):
            break
    ref, _ = agrees_with_ksvm(K, y, eta, rho1, tol, max_iter)
    if not (ref.n_iter == t + 1 and ref.stop == "small change"):
        raise RuntimeError("the check's choice of tol does not stop ksvm where it should")
    where = place(y, eta, rho1, gamma, f", tol={tol:.3g}, max_iter={max_iter}")

    def judge(outcome):
        alpha, n_iter = answer(outcome, len(y), where)
        T = ref.n_iter
        if n_iter != T:
            for stop, says in (
                ("delta", "the size of the step |delta|"),
                ("change", "||alpha - alpha_old||"),
            ):
                if n_iter == wrong[stop]:
                    raise AssertionError(
                        f"the stopping rule is tested on the wrong quantity: you stop after "
                        f"{n_iter} steps, when {says} falls below tol, where "
                        f"ksvm.ascent.weighted_ascent stops after {T} {where}. The rule is on "
                        "the decrease of Psi, -(delta (g_i + g_j) + delta^2 / 2 "
                        "||phi_i - phi_j||^2), below tol"
                    )
            if n_iter == T - 1:
                raise AssertionError(
                    f"you stop after {n_iter} steps, one before ksvm.ascent.weighted_ascent "
                    f"({T}) {where}: make the step whose decrease is below tol and count it, "
                    "then stop"
                )
            if n_iter == max_iter or n_iter == ascent(K, y, eta, rho1, 0.0, max_iter)[1]:
                raise AssertionError(
                    f"you made {n_iter} steps, where ksvm.ascent.weighted_ascent stopped after "
                    f"{T} {where}: {NEVER}"
                )
            raise AssertionError(
                f"you stop after {n_iter} steps, ksvm.ascent.weighted_ascent after {T} {where}: "
                "after each step, stop if the decrease of Psi it made is below tol"
            )
        if not same(alpha, ref.alpha):
            diagnose_loop(alpha, n_iter, K, y, eta, rho1, tol, max_iter, where)
            raise AssertionError(
                f"stopped after the right {n_iter} steps, alpha differs from ksvm's by "
                f"{relative_error(alpha, ref.alpha):.2e} (relative) {where}"
            )

    return call(K, y, eta=eta, rho1=rho1, tol=tol, max_iter=max_iter), judge


def no_pair_case(rng):
    """A case of check 3: integer points on a line, linear kernel, eta = 2 / d2 of the closest
    pair of opposite labels: one step reaches the optimum exactly, and then no pair decreases Psi
    to first order, so the loop must stop with n_iter = 1."""
    gap = int(rng.choice([1, 2]))
    b = int(rng.integers(-3, 4))
    neg = b - np.r_[0, np.sort(rng.choice(np.arange(1, 6), int(rng.integers(1, 4)), False))]
    pos = b + gap + np.r_[0, np.sort(rng.choice(np.arange(1, 6), int(rng.integers(1, 4)), False))]
    x = np.r_[pos, neg].astype(float)
    y = np.r_[np.ones(len(pos)), -np.ones(len(neg))]
    p = rng.permutation(len(y))
    x, y = x[p], y[p]
    K = linear_kernel(x[:, None])
    eta, rho1 = 2.0 / gap**2, int(rng.integers(1, 8)) / 8
    tol, max_iter = 1e-12, 1000
    ref, _ = agrees_with_ksvm(K, y, eta, rho1, tol, max_iter)
    if not (ref.n_iter == 1 and ref.stop == "no ascent pair"):
        raise RuntimeError("the check's exact case does not stop ksvm after one step")
    where = place(y, eta, rho1, None, f", the points x = {x.astype(int).tolist()} on a line")

    def judge(outcome):
        alpha, n_iter = answer(outcome, len(y), where)
        if n_iter == 1 and same(alpha, ref.alpha, 1e-12):
            return
        if n_iter > 1:
            raise AssertionError(
                f"you made {n_iter} steps, ksvm.ascent.weighted_ascent 1 {where}: after the first "
                "step no pair has delta (g_i + g_j) < 0 (no first-order decrease of Psi); stop "
                "when there is no such pair, without making a step"
            )
        diagnose_loop(alpha, n_iter, K, y, eta, rho1, tol, max_iter, where)
        raise AssertionError(
            f"you return n_iter={n_iter} and alpha={np.round(alpha, 6).tolist()}, expected 1 and "
            f"{ref.alpha.tolist()} {where}"
        )

    return call(K, y, eta=eta, rho1=rho1, tol=tol, max_iter=max_iter), judge


@check(3, "the stopping rule: the decrease of Psi below tol, or no pair left", "weighted_ascent")
def check_3(rng):
    cases = [tol_case(rng), tol_case(rng), no_pair_case(rng)]
    yield from in_random_order(rng, cases)


CHECKS = [check_1, check_2, check_3]
