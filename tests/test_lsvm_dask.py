"""The LSVM on Dask arrays (ksvm.lsvm_dask) against the in-memory solvers of ksvm.lsvm.

Every test runs on a 2-worker ``LocalCluster`` that the module starts and stops
(threads, one per worker, memory-capped), under a time limit per test.
"""

import signal
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from ksvm import LagrangianSVC, lsvm_dask  # noqa: E402
from ksvm.datasets import (  # noqa: E402
    checkerboard_chunk,
    checkerboard_labels,
    linear_hyperplane,
    linear_large_chunk,
    make_checkerboard,
    make_linear_large,
)
from ksvm.features import NystroemFeatures  # noqa: E402
from ksvm.kernels import rbf_kernel  # noqa: E402
from ksvm.lsvm import lsvm_linear, lsvm_linear_newton  # noqa: E402
from ksvm.lsvm.dask_data import make_chunked, read_zarr, write_zarr  # noqa: E402
from ksvm.lsvm_dask import check_row_chunked, gram_sums, nystroem_features  # noqa: E402

#: Seconds any one test may take before it fails (the cluster is small and local).
TIME_LIMIT = 60


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            memory_limit="1GiB",
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.fixture(autouse=True)
def time_limit(client):
    def expire(signum, frame):
        raise TimeoutError(f"test took more than {TIME_LIMIT} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(TIME_LIMIT)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def data():
    return make_linear_large(2000, 4, noise=0.3, seed=7)


#: Row chunks: even, uneven with a short last chunk, one chunk, very uneven with a one-row chunk.
CHUNKINGS = [500, 700, 2000, (1, 1599, 400)]


def to_dask(X, y, rows):
    """X and y cut into row chunks, kept on the workers (not shipped with every graph)."""
    return distributed.get_client().persist(
        [da.from_array(X, chunks=(rows, -1)), da.from_array(y, chunks=(rows,))]
    )


# --- the solvers give the in-memory answer -------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("rows", CHUNKINGS)
@pytest.mark.parametrize("nu", [1e-3, 1.0])
def test_code2_iterates_equal_in_memory(data, rows, nu, client):
    # The same iterates, iteration by iteration: stopped after 20 of them (far from
    # convergence at nu = 1, which takes 127), u, w and gamma agree to rounding.
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        expected = lsvm_linear(X, y, nu, max_iter=20, tol=1e-12, return_history=True)
        A, d = to_dask(X, y, rows)
        got = lsvm_linear(A, d, nu, max_iter=20, tol=1e-12, return_history=True)
    assert isinstance(got.u, da.Array) and got.u.chunks == A.chunks[:1]
    assert got.n_iter == expected.n_iter and got.converged == expected.converged
    assert got.passes == got.n_iter + 2
    assert_allclose(got.history, expected.history, rtol=1e-6, atol=1e-14)
    assert_allclose(got.w, expected.w, rtol=0, atol=1e-8)
    assert got.b == pytest.approx(expected.b, abs=1e-8)
    assert_allclose(got.u.compute(), expected.u, rtol=0, atol=1e-8)


def test_callbacks_see_every_pass(data, client):
    # one report per pass over the data, with the iteration it belongs to
    A, d = to_dask(*data, (1, 1599, 400))
    seen = []
    with pytest.warns(ConvergenceWarning):
        lsvm_dask.lsvm_linear(A, d, 1.0, max_iter=3, tol=1e-12, callback=seen.append)
    assert [s["pass"] for s in seen] == [1, 2, 3, 4, 5]
    assert [s["iteration"] for s in seen] == [0, 0, 1, 2, 3]
    seen = []
    r = lsvm_dask.lsvm_linear_newton(A, d, 100.0, callback=seen.append)
    assert r.n_iter > 1 and r.converged
    assert [s["pass"] for s in seen] == list(range(1, r.passes + 1))
    assert seen[-1]["iteration"] == r.n_iter


@pytest.mark.slow
def test_code2_converges_to_the_in_memory_answer(data, client):
    X, y = data
    nu = 5.0 / len(y)  # 34 iterations on these data
    expected = lsvm_linear(X, y, nu, max_iter=1000, tol=1e-5)
    got = lsvm_linear(*to_dask(X, y, 700), nu, max_iter=1000, tol=1e-5)
    assert got.converged and got.n_iter == expected.n_iter
    assert_allclose(got.w, expected.w, rtol=0, atol=1e-8)
    assert_allclose(got.u.compute(), expected.u, rtol=0, atol=1e-8)


def test_code2_eta_and_max_iter_as_in_memory(data, client):
    X, y = data
    A, d = to_dask(X, y, 700)
    with pytest.warns(ConvergenceWarning, match="max_iter=5"):
        got = lsvm_linear(A, d, 1.0, max_iter=5, eta=1.0)
    assert not got.converged and got.n_iter == 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = lsvm_linear(X, y, 1.0, max_iter=5, eta=1.0)
    assert got.opt == pytest.approx(expected.opt, rel=1e-9)
    assert_allclose(got.w, expected.w, atol=1e-10)


def test_newton_max_iter_zero_as_in_memory(data, client):
    X, y = data
    A, d = to_dask(X, y, 700)
    with pytest.warns(ConvergenceWarning, match="max_iter=0"):
        got = lsvm_linear_newton(A, d, 1.0, max_iter=0)
    with pytest.warns(ConvergenceWarning, match="max_iter=0"):
        expected = lsvm_linear_newton(X, y, 1.0, max_iter=0)
    assert got.n_iter == expected.n_iter == 0 and not got.converged
    assert_array_equal(got.u.compute(), expected.u)
    assert_array_equal(got.w, expected.w) and got.b == expected.b


@pytest.mark.slow
@pytest.mark.parametrize("rows", CHUNKINGS)
@pytest.mark.parametrize("nu", [1e-3, 100.0])
def test_newton_equals_in_memory(data, rows, nu, client):
    X, y = data
    expected = lsvm_linear_newton(X, y, nu, return_history=True)
    A, d = to_dask(X, y, rows)
    got = lsvm_linear_newton(A, d, nu, return_history=True)
    assert got.n_iter == expected.n_iter and got.converged
    assert_allclose(got.history, expected.history, rtol=1e-7, atol=1e-10)
    assert_allclose(got.w, expected.w, rtol=0, atol=1e-8)
    assert got.b == pytest.approx(expected.b, abs=1e-8)
    u = got.u.compute()
    assert u.min() >= 0.0
    assert_allclose(u, expected.u, rtol=0, atol=1e-8)


@pytest.mark.slow
def test_newton_with_murty_steps_equals_in_memory(client):
    # Features whose Gram matrix is a Gaussian kernel on the checkerboard, where the
    # block steps stop improving: Murty's single pivots (a pass more each) are used.
    X, y = make_checkerboard(100, seed=0)
    s, V = np.linalg.eigh(rbf_kernel(X, gamma=10.0))
    A = V * np.sqrt(np.maximum(s, 0.0))
    expected = lsvm_linear_newton(A, y, 1000.0, max_iter=500)
    got = lsvm_linear_newton(*to_dask(A, y, 40), 1000.0, max_iter=500)
    assert got.converged and got.n_iter == expected.n_iter
    assert got.passes > 1 + 2 * got.n_iter  # a Murty step was taken
    assert_allclose(got.w, expected.w, rtol=0, atol=1e-8)
    assert_allclose(got.u.compute(), expected.u, rtol=0, atol=1e-8)


def test_u_stays_on_the_workers(data, client):
    X, y = data
    A, d = to_dask(X, y, 500)
    r = lsvm_linear_newton(A, d, 0.0025)
    distributed.wait(r.u)
    held = client.who_has(r.u)
    assert len(held) == len(A.chunks[0]) and all(held.values())


def test_the_small_system_is_summed_over_blocks(client):
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((301, 3)), rng.choice([-1.0, 1.0], 301)
    H = y[:, None] * np.column_stack([X, np.ones(301)])
    HtH, Hte = gram_sums(*to_dask(X, y, (100, 100, 101)))
    assert_allclose(HtH, H.T @ H, atol=1e-10)
    assert_allclose(Hte, H.T @ np.ones(301), atol=1e-10)


# --- the estimator --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["newton", "fixed-point"])
def test_estimator_equals_in_memory(data, solver, client):
    X, y = data
    labels = np.where(y > 0, "yes", "no")
    params = dict(
        nu=0.0025, solver=solver, tol=1e-5 if solver == "fixed-point" else None, max_iter=1000
    )
    expected = LagrangianSVC(**params).fit(X, labels)
    A, d = to_dask(X, labels, 700)
    got = LagrangianSVC(**params).fit(A, d)
    assert set(vars(got)) == set(vars(expected))  # one method sets the attributes of both fits
    assert_array_equal(got.classes_, ["no", "yes"])
    assert got.n_iter_ == expected.n_iter_ and got.converged_ and got.solver_ == solver
    assert_allclose(got.coef_, expected.coef_, rtol=0, atol=1e-8)
    assert_allclose(got.intercept_, expected.intercept_, rtol=0, atol=1e-8)
    assert_allclose(got.u_.compute(), expected.u_, rtol=0, atol=1e-8)
    assert_array_equal(got.support_.compute(), expected.support_)
    assert_allclose(got.dual_coef_.compute(), expected.dual_coef_, atol=1e-8)
    X_test = make_linear_large(1500, 4, noise=0.3, seed=8)[0]
    T = da.from_array(X_test, chunks=(400, -1))
    scores, labels_out = got.decision_function(T), got.predict(T)
    assert isinstance(scores, da.Array) and scores.chunks == T.chunks[:1]
    assert isinstance(labels_out, da.Array) and labels_out.chunks == T.chunks[:1]
    assert_allclose(scores.compute(), expected.decision_function(X_test), atol=1e-8)
    assert_array_equal(labels_out.compute(), expected.predict(X_test))


def test_estimator_rejects_a_kernel_on_dask(data, client):
    A, d = to_dask(*data, 500)
    with pytest.raises(ValueError, match="kernel='linear' only"):
        LagrangianSVC(kernel="rbf").fit(A, d)
    fitted = LagrangianSVC(kernel="rbf", nu=1.0).fit(*[a[:200] for a in data])
    with pytest.raises(ValueError, match="kernel='linear' only"):
        fitted.predict(A)


def test_estimator_checks_features_on_dask(data, client):
    X, y = data
    clf = LagrangianSVC(nu=1.0).fit(X, y)
    with pytest.raises(ValueError, match="4 features"):
        clf.predict(da.ones((10, 3), chunks=(5, 3)))


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("solve", [lsvm_linear, lsvm_linear_newton])
def test_bad_input(data, solve, client):
    X, y = data
    A, d = to_dask(X, y, 500)
    with pytest.raises(ValueError, match="chunked along its columns"):
        solve(A.rechunk((500, 2)), d, 1.0)
    with pytest.raises(ValueError, match="not aligned"):
        solve(A, d.rechunk(300), 1.0)
    with pytest.raises(ValueError, match="rows but y has"):
        solve(A, d[:-1], 1.0)
    with pytest.raises(ValueError, match="exactly two classes"):
        solve(A, da.from_array(np.arange(2000) % 3, chunks=500), 1.0)
    with pytest.raises(ValueError, match="NaN or infinite"):
        solve(da.where(A > 0.99, np.nan, A), d, 1.0)
    with pytest.raises(ValueError, match="two-dimensional"):
        solve(d, d, 1.0)
    with pytest.raises(ValueError, match="nu"):
        solve(A, d, -1.0)


def test_eta_out_of_range_on_dask(data, client):
    A, d = to_dask(*data, 500)
    with pytest.raises(ValueError, match="eta"):
        lsvm_linear(A, d, 1.0, eta=2.5)


def test_inputs_are_not_modified(data, client):
    X, y = data
    X0, y0 = X.copy(), y.copy()
    lsvm_linear_newton(*to_dask(X, y, 500), 0.0025)
    assert_array_equal(X, X0) and assert_array_equal(y, y0)


def test_check_row_chunked_cuts_in_memory_labels():
    A, d = check_row_chunked(da.ones((7, 2), chunks=(3, 2)), [1, -1, 1, -1, 1, -1, 1])
    assert d.chunks == ((3, 3, 1),) and A.dtype == np.float64


# --- Nystroem features per block ---------------------------------------------------------


@pytest.mark.slow
def test_nystroem_per_block_equals_in_memory(client):
    X, y = make_chunked("checkerboard", 1500, chunk_size=400, seed=2)
    Phi, nys = nystroem_features(X, 60, gamma=20.0, random_state=1)
    assert isinstance(nys, NystroemFeatures) and Phi.chunks == (X.chunks[0], (60,))
    X_mem, y_mem = X.compute(), y.compute()
    Phi_mem = nys.transform(X_mem)
    assert_allclose(Phi.compute(), Phi_mem, atol=1e-12)
    # the landmarks are rows of X
    assert all(np.any(np.all(X_mem == c, axis=1)) for c in nys.components_)
    expected = lsvm_linear_newton(Phi_mem, y_mem, 10.0)
    got = lsvm_linear_newton(Phi, y, 10.0)
    assert_allclose(got.w, expected.w, rtol=0, atol=1e-8)
    accuracy = np.mean(np.sign(Phi_mem @ got.w + got.b) == y_mem)
    assert accuracy > 0.85  # a linear classifier gets about 0.5 on the checkerboard


def test_nystroem_rejects_too_many_components():
    with pytest.raises(ValueError, match="n_components"):
        nystroem_features(da.ones((10, 2), chunks=(5, 2)), 11)


# --- seeded chunked data and Zarr -------------------------------------------------------------


def test_chunks_are_reproducible_alone_and_follow_make_linear_large():
    X, y = make_chunked("linear_large", 25_000, chunk_size=10_000, seed=4, n_features=6)
    assert X.chunks == ((10_000, 10_000, 5000), (6,))
    X2, y2 = linear_large_chunk(2, 10_000, 25_000, 6, seed=4)
    assert_array_equal(X.blocks[2].compute(), X2)
    assert_array_equal(y.blocks[2].compute(), y2)
    assert not np.array_equal(X.blocks[0].compute(), X.blocks[1].compute()[:10_000])
    # the same distribution as make_linear_large: the same plane, the same share of labels
    X_ref, y_ref, w, b = make_linear_large(25_000, 6, return_coef=True, seed=4)
    w2, b2 = linear_hyperplane(6, seed=4)
    assert_array_equal(w, w2) and b == b2
    assert abs(np.mean(y.compute() > 0) - np.mean(y_ref > 0)) < 0.02
    assert abs(X.compute().mean() - X_ref.mean()) < 0.01


def test_checkerboard_chunks():
    X, y = checkerboard_chunk(1, 400, 1000, seed=5)
    assert X.shape == (400, 2) and (X >= 0).all() and (X < 1).all()
    assert_array_equal(y, checkerboard_labels(X))
    with pytest.raises(ValueError, match="past"):
        checkerboard_chunk(3, 400, 1000)
    with pytest.raises(ValueError, match="seed"):
        checkerboard_chunk(0, 400, 1000, seed=np.random.default_rng(0))
    with pytest.raises(ValueError, match="kind"):
        make_chunked("spiral", 10)


@pytest.mark.slow
def test_zarr_round_trip(tmp_path, client):
    X, y = make_chunked("linear_large", 2500, chunk_size=1000, seed=1, n_features=3)
    path = write_zarr(
        tmp_path / "d.zarr", X, y, attributes={"seed": 1, "n_samples": 2500}, progress=True
    )
    X2, y2, attrs = read_zarr(path, expect={"seed": 1, "n_samples": 2500})
    assert X2.chunks == X.chunks and y2.dtype == np.int8 and attrs["complete"]
    assert_array_equal(X2.compute(), X.compute())
    assert_array_equal(y2.compute(), y.compute())
    with pytest.raises(ValueError, match="differs"):
        read_zarr(path, expect={"seed": 2})
    with pytest.raises(ValueError, match="No Zarr group"):
        read_zarr(tmp_path / "missing.zarr")
    with pytest.raises(ValueError, match="equal chunks"):
        write_zarr(tmp_path / "e.zarr", X.rechunk(((500, 2000), (3,))), y.rechunk(((500, 2000),)))
    # the solver reads the data from disk as it goes
    r = lsvm_linear_newton(X2, y2, 1.0)
    expected = lsvm_linear_newton(X.compute(), y.compute(), 1.0)
    assert_allclose(r.w, expected.w, atol=1e-8)
