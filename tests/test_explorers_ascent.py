"""The weighted-ascent explorer: rho and the step button redraw, and Q and its gap are right."""

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pytest
from sklearn.svm import SVC

from ksvm.book.explorers.ascent import make_ascent_explorer
from ksvm.datasets import make_cocianu_state
from ksvm.kernels import rbf_kernel
from ksvm.primal import is_linearly_separable
from ksvm.smo import dual_objective

RHOS, ITERATIONS = (0.1, 0.5, 2.0), (5, 50, 5000)


@pytest.fixture(scope="module")
def data():
    X, y = make_cocianu_state(15, 15, accept=is_linearly_separable, seed=0)
    return X, y, rbf_kernel(X, gamma=1.0)


@pytest.fixture(scope="module")
def explorer(data):
    X, y, _ = data
    return make_ascent_explorer(X, y, rhos=RHOS, iterations=ITERATIONS)


def ascent_from_scratch(K, y, rho, w1, k):
    """k steps (13)-(15) of the weighted ascent, written out again: Q after each of them
    (the list ends early where no pair ascends)."""
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == -1)
    alpha = np.zeros(len(y))
    trace = [dual_objective(alpha, K, y)]
    for _ in range(k):
        G = 1.0 - y * (K @ (alpha * y))
        best, pair = 0.0, None
        for p in pos:
            for n in neg:
                delta = max(rho * (w1 * G[p] + (1 - w1) * G[n]), -min(alpha[p], alpha[n]))
                if delta * (G[p] + G[n]) <= 0:
                    continue
                trial = alpha.copy()
                trial[[p, n]] += delta
                gain = dual_objective(trial, K, y) - trace[-1]
                if gain > best:
                    best, pair = gain, (p, n, delta)
        if pair is None:
            break
        alpha[[pair[0], pair[1]]] += pair[2]
        trace.append(dual_objective(alpha, K, y))
    return trace


def optimum_by_libsvm(K, y):
    svc = SVC(kernel="precomputed", C=1e8, tol=1e-10).fit(K, y)
    a = np.zeros(len(y))
    a[svc.support_] = np.abs(svc.dual_coef_[0])
    return dual_objective(a, K, y)


@pytest.fixture(scope="module")
def q_star(data):
    _X, y, K = data
    return optimum_by_libsvm(K, y)


@pytest.mark.slow
def test_rho_and_the_step_button_redraw_with_the_right_numbers(explorer, data, q_star):
    _X, y, K = data
    box = explorer.widget()
    slow = {}  # rho -> Q after each step of the slow loop, up to the 50 steps checked with it
    assert box.sliders["rho"].value == RHOS[0] and box.sliders["k"].value == ITERATIONS[0]
    pictures = {}  # (rho, iterations drawn) -> the PNG shown
    for rho in RHOS:
        box.sliders["rho"].value = rho
        box.sliders["k"].value = ITERATIONS[0]
        for step in range(len(ITERATIONS)):
            if step:
                box.button.click()
            assert box.sliders["k"].value == ITERATIONS[step]
            shown = explorer.shown
            pictures.setdefault((rho, shown["iterations"]), set()).add(bytes(box.picture.value))
            run = explorer.runs[rho]
            assert shown["rho"] == rho and shown["run ends at"] == run.n_iter
            assert shown["iterations"] == min(ITERATIONS[step], run.n_iter)
            if shown["iterations"] <= 50:  # the slow loop, only where it is cheap
                if rho not in slow:
                    slow[rho] = ascent_from_scratch(K, y, rho, run.rho1, 50)
                q = slow[rho][min(shown["iterations"], len(slow[rho]) - 1)]
                assert shown["Q"] == pytest.approx(q, abs=1e-4)
            q = dual_objective(explorer.alphas[rho, ITERATIONS[step]], K, y)
            assert shown["Q"] == pytest.approx(q, abs=1e-4)
            assert shown["gap to Q*"] == pytest.approx(q_star - q, rel=0.05, abs=1e-6)
            assert f"rho = {rho:g}" in box.numbers.value
    # one picture per state drawn, and a different one for every different state
    assert all(len(p) == 1 for p in pictures.values())
    assert len({next(iter(p)) for p in pictures.values()}) == len(pictures) >= 2 * len(RHOS)


def test_the_lesson_a_larger_rho_ends_sooner(explorer, q_star):
    ends = [explorer.runs[rho].n_iter for rho in RHOS]
    assert ends == sorted(ends, reverse=True) and ends[0] > 5 * ends[-1]
    assert explorer.q_star == pytest.approx(q_star, rel=1e-6)


def test_bad_arguments_are_refused(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="both X and y"):
        make_ascent_explorer(X)
    with pytest.raises(ValueError, match=r"\(0, 2\]"):
        make_ascent_explorer(X, y, rhos=(0.1, 3.0))


@pytest.mark.slow
def test_the_chapter_explorer_fits_the_page():
    page = make_ascent_explorer().frames_html()
    assert page.n_frames == 30 and page.n_bytes < 1_500_000
