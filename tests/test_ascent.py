"""Cocianu & State (2013): the rho_1 lemma, var(C), the biases and the weighted ascent."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from ksvm import GradientAscentSVC, kernels, polynomial_map
from ksvm.ascent import weighted_ascent
from ksvm.class_statistics import (
    class_biases,
    class_variability,
    class_variability_explicit,
    rho1,
    rho1_explicit,
    separable_in_feature_space,
    standard_bias,
    variability_bias,
    variability_index,
)
from ksvm.datasets import load_breast_cancer_pm, make_cocianu_state
from ksvm.primal import is_linearly_separable
from ksvm.smo import smo

from .conftest import frozen


@parametrize_with_checks(
    [
        # With gamma = 'scale' the checks' two blobs are barely separable in the RBF
        # feature space: the hard-margin optimum has max alpha ~ 2.6e5, which SMO (the
        # default solver) reaches in seconds per fit and a constant-step ascent in ~1e6
        # iterations.  A narrower kernel keeps the checks fast; the capped ascent
        # exercises the warning path, with the standard bias (8), since a run stopped far
        # from the optimum leaves (22)'s b_+ and b_- far apart.
        # (A precomputed kernel is tested below: the checks' precomputed matrix is the
        # linear kernel of inseparable data, which a hard margin must refuse.)
        GradientAscentSVC(gamma=5.0),
        GradientAscentSVC(gamma=5.0, bias="variability", reading="boundary"),
        GradientAscentSVC(solver="ascent", rho=0.5, max_iter=2000),
    ],
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _two_classes(rng, n_pos=12, n_neg=15, d=3):
    X = np.vstack([rng.normal(1.0, 1.0, size=(n_pos, d)), rng.normal(-0.5, 0.7, size=(n_neg, d))])
    y = np.r_[np.ones(n_pos), -np.ones(n_neg)]
    perm = rng.permutation(len(y))  # the lemma must not need the paper's ordering
    return X[perm], y[perm]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("degree", [1, 2, 3])
def test_rho1_lemma_against_explicit_features(seed, degree):
    """(18) through the kernel equals (16)-(17) through the explicit polynomial map."""
    rng = np.random.default_rng(seed)
    X, y = _two_classes(rng)
    K = kernels.polynomial_kernel(X, degree=degree, gamma=1.0, coef0=1.0)
    Phi = polynomial_map.polynomial_feature_map(X, degree, coef0=1.0)
    assert rho1(frozen(K), frozen(y)) == pytest.approx(rho1_explicit(Phi, y), rel=1e-9)
    v_kernel = class_variability(K, y)
    v_explicit = class_variability_explicit(Phi, y)
    np.testing.assert_allclose(v_kernel, v_explicit, rtol=1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_lemma_for_any_gram_matrix(seed):
    """Any PSD K is Phi Phi' for some Phi (here random, 40 features)."""
    rng = np.random.default_rng(100 + seed)
    Phi = rng.normal(size=(25, 40)) + rng.normal(size=40)
    y = np.where(rng.random(25) < 0.4, 1, -1)
    y[:2], y[2:4] = 1, -1
    K = Phi @ Phi.T
    assert rho1(K, y) == pytest.approx(rho1_explicit(Phi, y), rel=1e-9)
    np.testing.assert_allclose(
        class_variability(K, y), class_variability_explicit(Phi, y), rtol=1e-9
    )


def test_rho1_in_one_dimension_is_fishers_ratio():
    rng = np.random.default_rng(7)
    x = np.r_[rng.normal(2.0, 0.5, 20), rng.normal(-1.0, 0.8, 30)]
    y = np.r_[np.ones(20), -np.ones(30)]
    fisher = [x[y == s].mean() ** 2 / x[y == s].var(ddof=1) for s in (1, -1)]
    expected = fisher[1] / (fisher[0] + fisher[1])
    assert rho1(np.outer(x, x), y) == pytest.approx(expected, rel=1e-12)


def test_rho1_where_theta_is_undefined():
    """The value at a zero class mean is the limit of nearby problems."""
    x = np.array([-2.0, -1.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    y = [1, 1, 1, 1, -1, -1, -1]
    assert rho1(np.outer(x, x), y) == 1.0
    shifted = x + np.r_[np.full(4, 1e-4), np.zeros(3)]
    assert rho1(np.outer(shifted, shifted), y) == pytest.approx(1.0, abs=1e-6)
    assert rho1(np.outer(-x[::-1], -x[::-1]), [-1, -1, -1, 1, 1, 1, 1]) == 1.0  # order-free
    collapsed = np.array([2.0, 2.0, 3.0, 4.0])
    assert rho1(np.outer(collapsed, collapsed), [1, 1, -1, -1]) == 0.0  # theta_1 infinite
    both = np.array([2.0, 2.0, 5.0, 5.0])
    assert rho1(np.outer(both, both), [1, 1, -1, -1]) == 0.5


@pytest.mark.parametrize("seed", range(5))
def test_rho1_collapsed_classes_are_not_decided_by_rounding(seed):
    # Points in general position (not exact in binary): a collapsed class gives
    # a variance of rounding size, never exactly 0, and the limits must still hold.
    rng = np.random.default_rng(seed)
    p, q, r = rng.normal(size=(3, 2))
    both = np.vstack([np.tile(p, (3, 1)), np.tile(q, (4, 1))])
    y = [1, 1, 1, -1, -1, -1, -1]
    assert rho1(both @ both.T, y) == 0.5
    one = np.vstack([np.tile(p, (3, 1)), q, r, q + r, q - r])  # only class +1 collapsed
    assert rho1(one @ one.T, y) == 0.0
    assert rho1_explicit(one, y) == 0.0


def test_variability_by_hand():
    # class +1 at 0, 2 (distance 2), class -1 at 5, 6, 8 (distances 1, 3, 2)
    x = np.array([0.0, 2.0, 5.0, 6.0, 8.0])
    y = [1, 1, -1, -1, -1]
    v_neg, v_pos = class_variability(np.outer(x, x), y)
    assert v_pos == pytest.approx(2 * 2 / (2 * 4))
    assert v_neg == pytest.approx(2 * 6 / (2 * 9))
    assert variability_index(np.outer(x, x), y) == pytest.approx(0.5 / (2 / 3))


def _paper_problem(gamma=0.5, seed=0):
    X, y = make_cocianu_state(accept=is_linearly_separable, seed=seed)
    return kernels.rbf_kernel(X, gamma=gamma), y.astype(float)


def test_each_step_keeps_the_constraints():
    """sum alpha_i y_i = 0 and alpha >= 0 after every step (replayed run by run)."""
    K, y = _paper_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for k in [1, 2, 3, 5, 10, 30, 100, 300, 1000]:
            r = weighted_ascent(K, y, rho=0.05, max_iter=k, check_separable=False)
            assert abs(r.alpha @ y) <= 1e-12 * max(1.0, r.alpha.sum())
            assert r.alpha.min() >= 0.0


def _plain_ascent(K, y, rho, w1, max_iter, clip, tol=1e-8):
    """(13)-(15) as printed, every pair array built anew at each step: alpha and Q's trace."""
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    eta = np.diag(K)[pos][:, None] + np.diag(K)[neg][None, :] - 2.0 * K[np.ix_(pos, neg)]
    alpha, F, trace = np.zeros(len(y)), np.zeros(len(y)), [0.0]
    for _ in range(max_iter):
        G = 1.0 - y * F
        Gp, Gn = G[pos], G[neg]
        delta = rho * (w1 * Gp[:, None] + (1.0 - w1) * Gn[None, :])
        if clip:
            delta = np.maximum(delta, -np.minimum(alpha[pos][:, None], alpha[neg][None, :]))
        s = Gp[:, None] + Gn[None, :]
        gain = delta * s - 0.5 * delta**2 * eta
        gain[delta * s <= 0] = -np.inf
        i, j = np.unravel_index(np.argmax(gain), gain.shape)
        if not gain[i, j] > 0:
            return alpha, np.array(trace), "no ascent pair"
        alpha[[pos[i], neg[j]]] += delta[i, j]
        F += delta[i, j] * (K[:, pos[i]] - K[:, neg[j]])
        trace.append(trace[-1] + gain[i, j])
        if abs(gain[i, j]) < tol:
            return alpha, np.array(trace), "small change"
    return alpha, np.array(trace), "max_iter"


def _shuffled_paper_problem(gamma):
    K, y = _paper_problem(gamma)
    perm = np.random.default_rng(3).permutation(len(y))  # the classes interleaved
    return K[np.ix_(perm, perm)], y[perm]


@pytest.mark.parametrize(
    ("problem", "rho", "weight", "nonnegative", "max_iter", "tol"),
    [
        ("paper", 1e-2, "rho1", "clip", 400, 1e-8),
        ("paper", 1e-2, "equal", "clip", 400, 1e-8),
        ("paper", 0.5, 0.3, "none", 400, 1e-8),
        ("small", 0.05, "rho1", "clip", 100000, 1e-8),  # to 'no ascent pair'
        ("small", 0.05, 1.0, "clip", 100000, 1e-8),
        ("small", 0.05, "rho1", "clip", 100000, 1e-5),  # to 'small change'
        # indefinite: pairs with delta s <= 0 and a gain above every allowed one
        ("indefinite", 0.7, 1.0, "none", 30, 1e-8),
    ],
)
def test_the_run_is_that_of_the_formulas_to_the_last_bit(
    problem, rho, weight, nonnegative, max_iter, tol
):
    """The loop of weighted_ascent, written for speed, takes the same steps and the same
    trace, bit for bit, as the formulas written out plainly."""
    if problem == "paper":
        K, y = _shuffled_paper_problem(1.0)
    elif problem == "small":
        X, y = make_cocianu_state(8, 8, accept=is_linearly_separable, seed=0)
        K, y = kernels.rbf_kernel(X, gamma=1.0), y.astype(float)
    else:
        B = np.random.default_rng(125).normal(size=(6, 6)) * 3
        K, y = (B + B.T) / 2, np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    clip = nonnegative == "clip"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the capped and the indefinite runs warn
        r = weighted_ascent(
            K,
            y,
            rho,
            weight,
            tol=tol,
            nonnegative=nonnegative,
            max_iter=max_iter,
            check_separable=False,
            return_history=True,
        )
    w1 = {"rho1": rho1(K, y), "equal": 0.5}.get(weight, weight)
    alpha, trace, stop = _plain_ascent(K, y, rho, w1, max_iter, clip, tol)
    assert r.stop == stop and r.n_iter == len(trace) - 1
    np.testing.assert_array_equal(r.history, trace)
    np.testing.assert_array_equal(r.alpha, np.maximum(alpha, 0.0) if clip else alpha)


def test_the_objective_increases_and_the_trace_is_exact():
    K, y = _paper_problem()
    r = weighted_ascent(frozen(K), frozen(y), rho=0.05, return_history=True)
    assert np.all(np.diff(r.history) > 0)
    assert r.history[-1] == pytest.approx(r.objective, rel=1e-10)
    assert len(r.history) == r.n_iter + 1


@pytest.mark.parametrize("gamma", [0.15, 0.5, 1.4])
@pytest.mark.parametrize("weight", ["rho1", "equal"])
def test_ascent_reaches_the_smo_optimum(gamma, weight):
    K, y = _paper_problem(gamma)
    reference = smo(K, y, np.inf, tol=1e-9)
    r = weighted_ascent(K, y, rho=0.05, weight=weight, tol=1e-10)
    assert r.converged
    assert r.objective == pytest.approx(reference.objective, rel=1e-6)
    assert r.objective <= reference.objective * (1 + 1e-9)  # no feasible point beats the optimum


def test_the_pair_chosen_maximises_the_exact_gain():
    K, y = _paper_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = weighted_ascent(K, y, rho=0.05, max_iter=40, check_separable=False)
        one = weighted_ascent(K, y, rho=0.05, max_iter=41, check_separable=False)

    def Q(a):
        v = a * y
        return a.sum() - 0.5 * v @ K @ v

    w1 = rho1(K, y)
    G = 1 - y * (K @ (start.alpha * y))
    best = -np.inf
    for p in np.flatnonzero(y > 0):  # brute force over all pairs
        for q in np.flatnonzero(y < 0):
            d = 0.05 * (w1 * G[p] + (1 - w1) * G[q])
            d = max(d, -min(start.alpha[p], start.alpha[q]))
            if d * (G[p] + G[q]) > 0:
                a = start.alpha.copy()
                a[[p, q]] += d
                best = max(best, Q(a) - Q(start.alpha))
    assert one.objective - start.objective == pytest.approx(best, rel=1e-9)


def test_without_clipping_alpha_goes_negative():
    K, y = _paper_problem(1.4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        r = weighted_ascent(K, y, rho=0.5, nonnegative="none", max_iter=3000, check_separable=False)
    assert r.alpha.min() < 0
    assert (
        r.objective > smo(K, y, np.inf, tol=1e-9).objective
    )  # "better" than the optimum: infeasible


def test_biases():
    K, y = _paper_problem(0.5)
    opt = smo(K, y, np.inf, tol=1e-10)
    b_pos, b_neg = class_biases(K, y, opt.alpha)
    assert (b_pos + b_neg) / 2 == pytest.approx(standard_bias(K, y, opt.alpha))
    # at the optimum both innermost examples sit on their margins: the margin reading
    # gives b_+ = b_- = SMO's b, and (22) equals (8)
    assert b_pos == pytest.approx(opt.b, abs=1e-6) and b_neg == pytest.approx(opt.b, abs=1e-6)
    assert variability_bias(K, y, opt.alpha) == pytest.approx(
        standard_bias(K, y, opt.alpha), abs=1e-6
    )
    # the boundary reading puts them one unit either side
    bb_pos, bb_neg = class_biases(K, y, opt.alpha, reading="boundary")
    assert bb_pos == pytest.approx(opt.b - 1, abs=1e-6) and bb_neg == pytest.approx(
        opt.b + 1, abs=1e-6
    )
    ind = variability_index(K, y)
    v_neg, v_pos = class_variability(K, y)
    b_max, b_min = (bb_pos, bb_neg) if v_pos >= v_neg else (bb_neg, bb_pos)
    expected = ind * b_max + (1 - ind) * b_min if ind <= 0.5 else (1 - ind) * b_max + ind * b_min
    assert variability_bias(K, y, opt.alpha, reading="boundary") == pytest.approx(expected)


def test_separability_in_feature_space():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])  # XOR
    y = [1, 1, -1, -1]
    assert not separable_in_feature_space(kernels.linear_kernel(X), y)
    assert separable_in_feature_space(kernels.rbf_kernel(X, gamma=1.0), y)
    with pytest.raises(ValueError, match="not separable in the feature space"):
        weighted_ascent(kernels.linear_kernel(X), y)
    with pytest.raises(ValueError, match="not separable in the feature space"):
        GradientAscentSVC(kernel="linear").fit(X, y)


def test_bad_input():
    K, y = _paper_problem()
    for rho in (0.0, -1e-3, np.nan):
        with pytest.raises(ValueError, match="rho"):
            weighted_ascent(K, y, rho=rho)
    with pytest.raises(ValueError, match="weight"):
        weighted_ascent(K, y, weight=1.5)
    with pytest.raises(ValueError, match="weight"):
        weighted_ascent(K, y, weight="fisher")
    with pytest.raises(ValueError, match="exactly two classes"):
        GradientAscentSVC().fit([[0.0], [1.0]], [1, 1])
    with pytest.raises(ValueError, match="at least two examples"):
        rho1(np.eye(3), [1, -1, -1])
    with pytest.raises(ValueError, match="bias"):
        GradientAscentSVC(bias="fisher").fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(ValueError, match="Mercer"):
        GradientAscentSVC(kernel="precomputed").fit(-np.eye(4), [0, 0, 1, 1])


@pytest.mark.slow
def test_a_stall_short_of_the_optimum_warns():
    """With rho_1 != 1/2 the step does not vanish at the optimum: on this sample the
    paper's 'small change' rule fires at 85% of the optimum, and the run says so."""
    X, y = make_cocianu_state(accept=is_linearly_separable, seed=1)
    K = kernels.rbf_kernel(X, gamma=0.15)
    optimum = smo(K, y, np.inf, tol=1e-9).objective
    with pytest.warns(ConvergenceWarning, match="stalled short of the optimum"):
        stalled = weighted_ascent(K, y, rho=1e-2)
    assert stalled.stop == "small change" and stalled.objective < 0.9 * optimum
    assert stalled.remaining_gain > 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        equal = weighted_ascent(K, y, rho=1e-2, weight="equal")
    assert equal.objective == pytest.approx(optimum, rel=1e-4)
    assert equal.remaining_gain < 1e-3


def test_non_convergence_warns():
    K, y = _paper_problem()
    with pytest.warns(ConvergenceWarning, match="max_iter=10"):
        r = weighted_ascent(K, y, max_iter=10)
    assert not r.converged and r.stop == "max_iter"


def test_estimator_any_labels_biases_and_precomputed():
    X, y = make_cocianu_state(accept=is_linearly_separable, seed=1)
    labels = np.where(y > 0, "h1", "h2")  # h1 sorts first: it becomes classes_[0]
    options = dict(solver="ascent", rho=0.05, bias="variability", reading="boundary")
    a = GradientAscentSVC(gamma=0.5, **options).fit(X, labels)
    assert a.classes_.tolist() == ["h1", "h2"]
    K = kernels.rbf_kernel(X, gamma=0.5)
    b = GradientAscentSVC(kernel="precomputed", **options).fit(K, labels)
    np.testing.assert_allclose(a.alpha_, b.alpha_, atol=1e-12)
    assert a.intercept_[0] == pytest.approx(a.variability_bias_)
    np.testing.assert_array_equal(a.predict(X), b.predict(K))
    assert np.mean(a.predict(X) == labels) == 1.0  # separable training data
    assert a.class_variability_.shape == (2,) and 0 <= a.variability_index_ <= 1
    # the default solver reaches the optimum of (7) that the ascent approaches
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = GradientAscentSVC(gamma=0.5, bias="variability", reading="boundary").fit(X, labels)
    optimum = smo(K, np.where(labels == "h2", 1, -1), np.inf, tol=1e-3).objective
    assert c.converged_ and c.dual_objective_ == pytest.approx(optimum, rel=1e-12)
    assert c.dual_objective_ >= a.dual_objective_ - 1e-9 and c.rho1_ is None


@pytest.mark.slow
def test_breast_cancer_runs_and_matches_smo():
    X, y = load_breast_cancer_pm()
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    K = kernels.rbf_kernel(X, gamma=0.05)
    ref = smo(K, y, np.inf, tol=1e-8)
    r = weighted_ascent(K, y, rho=0.5, tol=1e-10)
    assert r.objective == pytest.approx(ref.objective, rel=1e-4)


def test_no_warning_on_the_paper_data():
    K, y = _paper_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weighted_ascent(frozen(K), frozen(y))
