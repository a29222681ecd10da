"""The random-features explorer: the widget redraws, and its numbers are those of an
independent computation."""

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pytest
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

from ksvm.book.explorers.features import make_features_explorer
from ksvm.datasets import make_checkerboard
from ksvm.lsvm import lsvm_kernel_newton

GAMMA, DS = 100.0, (10, 60, 200)


@pytest.fixture(scope="module")
def data():
    return make_checkerboard(200, seed=0)


@pytest.fixture(scope="module")
def explorer(data):
    return make_features_explorer(*data, gamma=GAMMA, Ds=DS, resolution=40)


def sklearn_features(method, D, X):
    # scikit-learn draws the same W, b and landmarks for the same seed (ksvm.features says so)
    if method == "random Fourier":
        return RBFSampler(gamma=GAMMA, n_components=D, random_state=0).fit_transform(X)
    return Nystroem(gamma=GAMMA, n_components=D, random_state=0).fit_transform(X)


@pytest.mark.slow
def test_the_widget_redraws_and_shows_the_gram_error_and_accuracy(explorer, data):
    X, d = data
    K = sk_rbf(X, gamma=GAMMA)
    box = explorer.widget()
    seen = {(explorer.shown["method"], explorer.shown["D"]): bytes(box.picture.value)}
    # Nystroem's D from where random Fourier's left it: the switch draws a state checked
    for method, Ds in (("random Fourier", DS), ("Nystroem", DS[::-1])):
        box.sliders["method"].value = method
        for D in Ds:
            box.sliders["D"].value = D
            picture = bytes(box.picture.value)
            assert picture[:4] == b"\x89PNG"
            assert seen.setdefault((method, D), picture) == picture
            assert list(seen.values()).count(picture) == 1, "every (D, method) is a new picture"
            shown = explorer.shown
            assert shown["D"] == D and shown["method"] == method
            assert f"D = {D}" in box.numbers.value and method in box.numbers.value
            Phi = sklearn_features(method, D, X)
            error = np.linalg.norm(Phi @ Phi.T - K) / np.linalg.norm(K)
            assert shown["Gram error"] == pytest.approx(error, abs=1e-4)
            # the same problem solved exactly (Newton on the kernel Phi Phi' + 1), not by Code 2
            u = lsvm_kernel_newton(Phi @ Phi.T + 1.0, d, nu=1.0).u
            f = (Phi @ Phi.T + 1.0) @ (d * u)
            accuracy = np.mean(np.where(f >= 0, 1, -1) == d)
            assert abs(shown["training accuracy"] - accuracy) <= 1.5 / len(d)
    assert len(seen) == 2 * len(DS)


def test_the_numbers_tell_the_lesson(explorer):
    errs = {m: [explorer.gram_error(m, D) for D in DS] for m in ("random Fourier", "Nystroem")}
    assert all(np.diff(errs["random Fourier"]) < 0) and all(np.diff(errs["Nystroem"]) < 0)
    assert errs["Nystroem"][-1] < 1e-8  # D = m: every point a landmark, the Gram exact
    assert all(n < r for n, r in zip(errs["Nystroem"], errs["random Fourier"], strict=True))


def test_bad_arguments_are_refused(data):
    X, d = data
    with pytest.raises(ValueError, match="both X and y"):
        make_features_explorer(X)
    with pytest.raises(ValueError, match="exceeds"):
        make_features_explorer(X, d, Ds=(10, 300))


@pytest.mark.slow
def test_the_chapter_explorer_fits_the_page():
    page = make_features_explorer().frames_html()
    assert page.n_frames == 16 and page.n_bytes < 1_500_000
