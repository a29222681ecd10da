"""ksvm.book.explorers.margin: the soft-margin explorer and the SMO stepper show the right numbers.

The widgets are driven as a reader would (sliders moved, the step button clicked);
the numbers they show are checked against scikit-learn's libsvm (support vectors,
slacks, training error) and against ``ksvm.smo`` (objective, optimum), and the
KKT gap against a plain loop over the indices.
"""

import base64
import io
import json
import re

import matplotlib

matplotlib.use("Agg")
import itertools

import matplotlib.pyplot as plt
import numpy as np
import pytest
from PIL import Image
from sklearn.svm import SVC

from ksvm.book.explorers.margin import (
    SLACK_TOL,
    SOFT_MARGIN_C,
    SOFT_MARGIN_GAMMA,
    fit_soft_margin,
    make_smo_stepper_explorer,
    make_soft_margin_explorer,
    smo_path,
)
from ksvm.datasets import make_noisy_2d
from ksvm.smo import dual_objective, smo


@pytest.fixture(scope="module")
def noisy():
    return make_noisy_2d(200, flip=0.1, seed=0)  # the data of the chapter kernel_svm


@pytest.fixture(scope="module")
def small():
    return make_noisy_2d(30, flip=0.1, seed=7)  # the small example of the chapter soft_margin


def shown(box):
    """The numbers line of a widget as a dict of strings."""
    return dict(part.split(" = ", 1) for part in box.numbers.value.split(",  "))


def libsvm_numbers(X, y, C, gamma):
    svc = SVC(kernel="rbf", C=C, gamma=gamma, tol=1e-6).fit(X, y)
    slack = np.maximum(0.0, 1.0 - y * svc.decision_function(X))
    return {
        "support vectors": str(svc.support_.size),
        "margin violators": str(int(np.sum(slack > SLACK_TOL))),
        "training error": f"{100 * np.mean(svc.predict(X) != y):.1f} %",
    }


# -- the soft margin ------------------------------------------------------------------------
def test_the_default_grid_is_seven_C_by_five_gamma():
    assert len(SOFT_MARGIN_C) == 7 and SOFT_MARGIN_C[0] == 0.01 and SOFT_MARGIN_C[-1] == 100.0
    assert np.all(np.diff(np.log10(SOFT_MARGIN_C)) > 0.5) and np.all(
        np.diff(np.log10(SOFT_MARGIN_C)) < 0.75
    )
    assert len(SOFT_MARGIN_GAMMA) == 5


def test_moving_the_sliders_redraws_and_shows_libsvm_s_counts(noisy):
    X, y = noisy
    explorer = make_soft_margin_explorer(X, y, Cs=[0.05, 1.0, 100.0], gammas=[1.0, 10.0, 100.0])
    box = explorer.widget()
    assert shown(box) == libsvm_numbers(X, y, 1.0, 10.0)  # the start: C = 1, gamma = 10
    pictures = {box.picture.value}
    for C, gamma in [(100.0, 10.0), (100.0, 100.0), (0.05, 1.0)]:
        box.sliders["C"].value = C
        box.sliders["gamma"].value = gamma
        assert box.picture.value not in pictures, "the picture changed"
        pictures.add(box.picture.value)
        assert shown(box) == libsvm_numbers(X, y, C, gamma), (C, gamma)
    assert set(explorer.fits) >= {(100.0, 10.0), (100.0, 100.0), (0.05, 1.0)}


def test_the_figure_marks_the_support_vectors_and_the_positive_slacks(noisy):
    X, y = noisy
    explorer = make_soft_margin_explorer(X, y, Cs=[1.0], gammas=[10.0])
    fig, numbers = explorer.render()
    fit = explorer.fits[1.0, 10.0]
    ax = fig.axes[0]
    by_label = {c.get_label(): c for c in ax.collections if not c.get_label().startswith("_")}
    rings = by_label["support vectors"].get_offsets()
    crosses = by_label["slack $\\xi > 0$"].get_offsets()
    np.testing.assert_array_equal(rings, X[fit.model.support_])
    assert len(crosses) == numbers["margin violators"] == fit.n_violators > 0
    # every point with positive slack is a support vector at the bound C (KKT)
    lam = np.zeros(len(y))
    lam[fit.model.support_] = np.abs(fit.model.dual_coef_[0])
    np.testing.assert_allclose(lam[fit.slack > SLACK_TOL], 1.0)
    plt.close(fig)


def test_violators_and_training_error_by_hand():
    # four points on a line, C small: every point is inside the margin
    X = np.array([[0.0, 0.0], [0.1, 0.0], [0.9, 0.0], [1.0, 0.0]])
    y = np.array([-1, 1, -1, 1])
    fit = fit_soft_margin(X, y, C=0.01, gamma=1.0)
    assert fit.n_support == 4 and fit.n_violators == 4
    assert fit.train_error == np.mean(np.where(fit.decision >= 0, 1, -1) != y)


def test_bad_input_is_refused(noisy):
    X, y = noisy
    with pytest.raises(ValueError, match="shape"):
        make_soft_margin_explorer(X[:, :1], y)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        make_soft_margin_explorer(X, (y + 1) // 2)


@pytest.mark.slow
def test_the_html_slider_holds_every_frame_of_the_default_grid(noisy):
    X, y = noisy
    explorer = make_soft_margin_explorer(X, y)
    page = explorer.frames_html()
    assert page.n_frames == 35 and page.n_bytes < 1.5e6
    data = json.loads(re.search(r'class="ksvm-explorer-data">(.*?)</script>', page.page).group(1))
    assert len(set(data["images"])) == 35
    # the frame the sliders select is the drawing of its (C, gamma), palette-compressed
    k = 3 * len(SOFT_MARGIN_GAMMA) + 2  # C = SOFT_MARGIN_C[3], gamma = SOFT_MARGIN_GAMMA[2]
    png = base64.b64decode(data["images"][k].split(",", 1)[1])
    fig, numbers = explorer.render(C=SOFT_MARGIN_C[3], gamma=SOFT_MARGIN_GAMMA[2])
    assert data["texts"][k] == explorer.describe(numbers)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=72)
    plt.close(fig)
    full = np.asarray(Image.open(buffer).convert("RGB"), dtype=float)
    small = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float)
    assert full.shape == small.shape and np.mean(np.abs(full - small)) < 2.0


# -- SMO, one step at a time --------------------------------------------------------------------
def kkt_gap_by_loop(alpha, K, y, C):
    F = [y[t] - sum(alpha[s] * y[s] * K[t, s] for s in range(len(y))) for t in range(len(y))]
    up = [F[t] for t in range(len(y)) if (alpha[t] < C if y[t] > 0 else alpha[t] > 0)]
    low = [F[t] for t in range(len(y)) if (alpha[t] > 0 if y[t] > 0 else alpha[t] < C)]
    return max(up) - min(low)


@pytest.mark.parametrize("C", [0.1, 1.0, 3.0])
def test_the_path_ends_at_ksvm_s_optimum_and_climbs_all_the_way(small, C):
    X, y = small
    K = X @ X.T
    path = smo_path(K, y, C, max_steps=5000)  # C = 0.1 zigzags: 370 to 686 steps by machine
    ref = smo(K, y, C=C, tol=1e-10)
    last = path[-1]
    assert last.gap <= 1e-10
    np.testing.assert_allclose(last.alpha, ref.alpha, atol=1e-8)
    assert abs(last.objective - ref.objective) < 1e-10 and abs(last.b - ref.b) < 1e-8
    objective = [s.objective for s in path]
    assert np.all(np.diff(objective) > -1e-12), "no step lowers the dual objective"
    assert np.all(np.diff(objective)[:10] > 1e-3), "the early steps raise it"
    for state in path:
        assert state.k == path.index(state)
        assert abs(state.objective - dual_objective(state.alpha, K, y)) < 1e-12
        assert abs(state.gap - kkt_gap_by_loop(state.alpha, K, y, C)) < 1e-12
        assert np.all((state.alpha >= 0) & (state.alpha <= C)) and abs(state.alpha @ y) < 1e-12
    for before, after in itertools.pairwise(path):
        i, j = after.pair
        moved = np.flatnonzero(before.alpha != after.alpha)
        assert set(moved) <= {i, j} and len(moved) >= 1
        L, H = after.box
        assert L - 1e-15 <= after.alpha[j] <= H + 1e-15


def test_the_path_takes_the_maximal_violating_pair():
    # at alpha = 0, F = y: i is the first +1, j the first -1; by hand for a tiny problem
    X = np.array([[0.0], [1.0], [3.0], [4.0]])
    path = smo_path(X @ X.T + 1.0, [-1, -1, 1, 1], C=10.0)
    assert path[0].pair is None and path[0].gap == 2.0
    assert path[1].pair == (2, 0)
    np.testing.assert_allclose(path[-1].alpha, [0.0, 0.5, 0.5, 0.0], atol=1e-12)


def test_smo_path_refuses_bad_input():
    K = np.eye(2)
    with pytest.raises(ValueError, match="n x n"):
        smo_path(np.eye(3), [1, -1], 1.0)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        smo_path(K, [0, 1], 1.0)
    with pytest.raises(ValueError, match="positive"):
        smo_path(K, [1, -1], 0.0)
    with pytest.raises(ValueError, match="max_steps"):
        smo_path(K, [1, -1], 1.0, max_steps=-1)


def test_the_step_button_moves_one_pair_and_shows_its_numbers(small):
    X, y = small
    explorer = make_smo_stepper_explorer(X, y, C=1.0)
    path = explorer.path
    K = X @ X.T
    assert 15 <= len(path) - 1 <= 40 and path[-1].gap <= 1e-10
    box = explorer.widget()
    assert shown(box) == {"k": "0", "i": "-", "j": "-", "objective": "0", "gap": "2"}
    picture = box.picture.value
    for k in (1, 2, 3):
        box.button.click()
        assert box.picture.value != picture
        picture = box.picture.value
        numbers = shown(box)
        assert numbers["k"] == str(k)
        assert (int(numbers["i"]), int(numbers["j"])) == path[k].pair
        assert float(numbers["objective"]) == pytest.approx(
            dual_objective(path[k].alpha, K, y), rel=1e-3
        )
        assert float(numbers["gap"]) == pytest.approx(
            kkt_gap_by_loop(path[k].alpha, K, y, 1.0), rel=1e-3
        )
    box.sliders["k"].value = len(path) - 1
    assert float(shown(box)["objective"]) == pytest.approx(
        smo(K, y, C=1.0, tol=1e-10).objective, rel=1e-3
    )
    assert float(shown(box)["gap"]) <= 1e-10


def test_the_stepper_highlights_the_pair_that_moved(small):
    X, y = small
    explorer = make_smo_stepper_explorer(X, y, C=1.0)
    fig, _numbers = explorer.render(k=5)
    ax = fig.axes[0]
    i, j = explorer.path[5].pair
    gold = [
        c for c in ax.collections if c.get_label().startswith("_") and len(c.get_offsets()) == 2
    ]
    np.testing.assert_array_equal(gold[-1].get_offsets(), X[[i, j]])
    assert [t.get_text() for t in ax.texts] == ["i", "j"]
    plt.close(fig)


@pytest.mark.parametrize("C", [0.1, 1.0])
def test_the_path_takes_ksvm_s_own_steps(small, C):
    """The stepper shows the steps of ksvm's loop (maximal violating pair, no
    shrinking): its multipliers are smo's, bit for bit, after as many steps."""
    X, y = small
    K = X @ X.T
    path = smo_path(K, y, C, max_steps=5000)  # C = 0.1 zigzags: 370 to 686 steps by machine
    ref = smo(K, y, C=C, tol=1e-10, selection="mvp", shrinking=False)
    assert len(path) - 1 == ref.n_iter
    np.testing.assert_array_equal(path[-1].alpha, ref.alpha)
