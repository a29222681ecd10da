"""Nonlinear LSVM on explicit features (ksvm.features) against Nystroem + LinearSVC.

The 4 x 4 checkerboard (``make_checkerboard``, points uniform on [0, 1)^2) with
m = 1,000,000 training points and 200,000 test points (another seed); the
Gaussian kernel ``exp(-gamma ||x - z||^2)`` with gamma = 100, the width of the
repository's other checkerboard runs (there on the augmented points
``[x -1]``, whose ``-1`` cancels in ``||x - z||``: the same kernel).  For each
number of features D (default 100 200 400):

=============================  =============================================================
method                         what runs
=============================  =============================================================
rff+lsvm                       RandomFourierFeatures, then lsvm_linear (Code 2, SMW fixed point)
nystroem+lsvm                  NystroemFeatures, then lsvm_linear
nystroem+lsvm-newton           NystroemFeatures, then lsvm_linear_newton (active set)
rsvm+lsvm                      NystroemFeatures(whiten=False): RSVM's reduced kernel K(A, Abar')
sklearn-nystroem+linearsvc     sklearn Nystroem, then LinearSVC(C = nu/2, squared hinge)
sklearn-rbfsampler+linearsvc   sklearn RBFSampler, then LinearSVC(C = nu/2, squared hinge)
=============================  =============================================================

The scikit-learn rows are the two steps of ``make_pipeline(Nystroem(...), LinearSVC(...))``
timed one by one.  LinearSVC with ``C = nu / 2`` and ``intercept_scaling = 1`` solves
the same problem as LSVM, formulation (7) with the features as ``A``; ours and
scikit-learn's transformers draw the same landmarks and the same random
frequencies for the same seed, so each pair of rows solves the *same* problem
on the same features, and ``objective`` (the value of (7)) tells how exactly.
``nu = --nu-times-m / m``; LSVM stops at ``||u^{i+1} - u^i|| <= 1e-5`` (the
paper's tol), LinearSVC at its default ``tol=1e-4``.

An exact-kernel reference on a subsample (``--subsample``, default 10,000
points): ``lsvm_kernel_newton`` on the full ``m x m`` Gaussian Gram matrix, and
SVC(C = nu/2) (the hinge loss: a related, not the same, problem), with the
approximate methods trained on the same subsample, so "approximate vs exact"
compares like with like.

Every run happens in a fresh subprocess so that its peak resident memory
(``ru_maxrss``) can be read: ``peak_rss_bytes`` is the peak minus what the
process held before the data existed (after the imports), and the table
divides it by ``8 m D``, the size of the feature matrix.  Test points are
predicted 10,000 at a time, so prediction adds little to the peak.  BLAS runs on
``--threads`` threads (default 1: liblinear and libsvm use one core, and on a
shared machine one thread per run times more steadily).

Writes benchmarks/results/lsvm_features.json: ``{"settings": {...}, "records": [...]}``
with one record per run: ``method``, ``m``, ``D`` (None for the exact kernel),
``nu``, ``time_features`` (fit + transform of the training set), ``time_solve``,
``time_fit`` (their sum), ``time_predict`` (features and scores of the test
set), ``accuracy`` (on the test set), ``iterations``, ``converged``,
``peak_rss_bytes``, ``peak_fit_rss_bytes`` (the peak before prediction),
``objective`` (the value of (7), approximate methods only) and ``rank`` (of
``K_DD``, Nystroem only).  Not a test: nothing is asserted.

    python benchmarks/bench_lsvm_features.py [--sizes 1000000] [--components 100 200 400]
        [--nu-times-m 1000] [--subsample 10000] [--threads 1]
    python benchmarks/bench_lsvm_features.py --sizes 100000 --subsample 2000 \\
        --output /tmp/lsvm_features_small.json
"""

import argparse
import json
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np
from _timing import in_fresh_process, peak_rss_bytes

RESULTS = Path(__file__).resolve().parent / "results" / "lsvm_features.json"
GAMMA = 100.0
APPROXIMATE = [
    "rff+lsvm",
    "nystroem+lsvm",
    "nystroem+lsvm-newton",
    "rsvm+lsvm",
    "sklearn-nystroem+linearsvc",
    "sklearn-rbfsampler+linearsvc",
]
EXACT = ["exact-lsvm-newton", "exact-svc"]
#: which runs share their features exactly (same seed, same draws): compared by objective
FAMILIES = {
    "nystroem": ["nystroem+lsvm", "nystroem+lsvm-newton", "sklearn-nystroem+linearsvc"],
    "rff": ["rff+lsvm", "sklearn-rbfsampler+linearsvc"],
}
#: ours / scikit-learn's, on the same features
PAIRS = [
    ("nystroem+lsvm", "sklearn-nystroem+linearsvc"),
    ("rff+lsvm", "sklearn-rbfsampler+linearsvc"),
]
PREDICT_BLOCK = 10_000


def _transformer(method, D, seed):
    from sklearn.kernel_approximation import Nystroem, RBFSampler

    from ksvm.features import NystroemFeatures, RandomFourierFeatures

    family = method.split("+")[0]
    return {
        "rff": lambda: RandomFourierFeatures(n_components=D, gamma=GAMMA, random_state=seed),
        "nystroem": lambda: NystroemFeatures(n_components=D, gamma=GAMMA, random_state=seed),
        "rsvm": lambda: NystroemFeatures(
            n_components=D, gamma=GAMMA, whiten=False, random_state=seed
        ),
        "sklearn-nystroem": lambda: Nystroem(
            kernel="rbf", gamma=GAMMA, n_components=D, random_state=seed
        ),
        "sklearn-rbfsampler": lambda: RBFSampler(gamma=GAMMA, n_components=D, random_state=seed),
    }[family]()


def run(method, m, D, nu_times_m, seed, n_test):
    """In a fresh subprocess: data, features, solve, predict; time, accuracy, memory."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import SVC, LinearSVC

    from ksvm.datasets import make_checkerboard
    from ksvm.kernels import rbf_kernel
    from ksvm.lsvm import lsvm_kernel_newton, lsvm_linear, lsvm_linear_newton

    warnings.simplefilter("ignore", ConvergenceWarning)  # reported as "converged" instead
    before = peak_rss_bytes()
    X, y = make_checkerboard(m, seed=seed)
    X_test, y_test = make_checkerboard(n_test, seed=seed + 1)
    nu = nu_times_m / m
    record = {"method": method, "m": m, "D": D, "nu": nu, "objective": None, "rank": None}

    start = time.perf_counter()
    if method in EXACT:
        scores = np.empty(n_test)
        if method == "exact-lsvm-newton":
            K = rbf_kernel(X, gamma=GAMMA)
            record["time_features"] = time.perf_counter() - start
            r = lsvm_kernel_newton(K, y, nu)
            del K
            record["time_solve"] = time.perf_counter() - start - record["time_features"]
            record["iterations"], record["converged"] = r.n_iter, bool(r.converged)
            peak_fit = peak_rss_bytes()
            t0 = time.perf_counter()
            sv = r.u > 0
            for s in range(0, n_test, PREDICT_BLOCK):
                scores[s : s + PREDICT_BLOCK] = rbf_kernel(
                    X_test[s : s + PREDICT_BLOCK], X[sv], gamma=GAMMA
                ) @ (y[sv] * r.u[sv])
        else:
            record["time_features"] = 0.0
            clf = SVC(C=nu / 2, kernel="rbf", gamma=GAMMA).fit(X, y)
            record["time_solve"] = time.perf_counter() - start
            record["iterations"], record["converged"] = int(clf.n_iter_[0]), True
            peak_fit = peak_rss_bytes()
            t0 = time.perf_counter()
            for s in range(0, n_test, PREDICT_BLOCK):
                scores[s : s + PREDICT_BLOCK] = clf.decision_function(X_test[s : s + PREDICT_BLOCK])
    else:
        transformer = _transformer(method, D, seed)
        Phi = transformer.fit_transform(X)
        record["time_features"] = time.perf_counter() - start
        if hasattr(transformer, "rank_"):
            record["rank"] = transformer.rank_
        if method.endswith("linearsvc"):
            clf = LinearSVC(C=nu / 2, loss="squared_hinge", intercept_scaling=1, max_iter=10_000)
            clf.fit(Phi, y)
            w, b = clf.coef_[0], clf.intercept_[0]
            record["iterations"] = int(clf.n_iter_)
            record["converged"] = record["iterations"] < clf.max_iter
        else:
            if method.endswith("newton"):
                r = lsvm_linear_newton(Phi, y, nu, max_iter=200)
            else:
                r = lsvm_linear(Phi, y, nu, max_iter=10_000, tol=1e-5)
            w, b = r.w, r.b
            record["iterations"], record["converged"] = r.n_iter, bool(r.converged)
        record["time_solve"] = time.perf_counter() - start - record["time_features"]
        peak_fit = peak_rss_bytes()
        slack = np.maximum(0.0, 1.0 - y * (Phi @ w + b))  # (7), outside the timings
        record["objective"] = float(nu / 2 * (slack @ slack) + (w @ w + b * b) / 2)
        del Phi, slack
        t0 = time.perf_counter()
        scores = np.concatenate(
            [
                transformer.transform(X_test[s : s + PREDICT_BLOCK]) @ w + b
                for s in range(0, n_test, PREDICT_BLOCK)
            ]
        )
    record["time_predict"] = time.perf_counter() - t0
    record["time_fit"] = record["time_features"] + record["time_solve"]
    record["accuracy"] = float(np.mean(np.where(scores >= 0, 1, -1) == y_test))
    record["peak_fit_rss_bytes"] = peak_fit - before
    record["peak_rss_bytes"] = peak_rss_bytes() - before
    return record


def in_subprocess(*args, threads=None):
    result = in_fresh_process("bench_lsvm_features", "run", args, threads=threads)
    if "failed" in result:
        return {"method": args[0], "m": args[1], "D": args[2], **result}
    return result


def print_row(r):
    if "failed" in r:
        print(f"{r['m']:>8} {r['D']!s:>5} {r['method']:>30}  FAILED")
        return
    per = "-" if r["D"] is None else f"{r['peak_rss_bytes'] / (8 * r['m'] * r['D']):.2f}"
    print(
        f"{r['m']:>8} {r['D']!s:>5} {r['method']:>30} {r['time_features']:8.2f} "
        f"{r['time_solve']:8.2f} {r['time_fit']:8.2f} {r['time_predict']:8.2f} "
        f"{r['iterations']:>6}{'' if r['converged'] else '*'} {100 * r['accuracy']:7.2f}% "
        f"{r['peak_rss_bytes'] / 2**20:9.0f} {per:>7}",
        flush=True,
    )


def summarise(rows):
    """Objective gaps within a family of identical features, and ours / scikit-learn."""
    by = {r["method"]: r for r in rows if "failed" not in r}
    for family in FAMILIES.values():
        objs = {k: by[k]["objective"] for k in family if k in by}
        if len(objs) > 1:
            best = min(objs.values())
            print(
                "    (7) relative to the best: "
                + ", ".join(f"{k} {v / best - 1:.1e}" for k, v in objs.items())
            )
    for ours, theirs in PAIRS:
        if ours in by and theirs in by:
            a, b = by[ours], by[theirs]
            print(
                f"    {ours} / {theirs}: fit time {a['time_fit'] / b['time_fit']:.2f}, "
                f"predict time {a['time_predict'] / b['time_predict']:.2f}, peak memory "
                f"{a['peak_rss_bytes'] / b['peak_rss_bytes']:.2f}, accuracy "
                f"{100 * (a['accuracy'] - b['accuracy']):+.2f} points"
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--components", type=int, nargs="+", default=[100, 200, 400])
    parser.add_argument(
        "--nu-times-m",
        type=float,
        default=1000.0,
        help="nu * m (nu = this / m); the fixed point's iterations grow with it",
    )
    parser.add_argument(
        "--subsample",
        type=int,
        default=10_000,
        help="size of the exact-kernel comparison (0: skip it)",
    )
    parser.add_argument("--n-test", type=int, default=200_000)
    parser.add_argument("--methods", nargs="+", default=APPROXIMATE, choices=APPROXIMATE)
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="BLAS threads per run (default 1, as liblinear and libsvm; 0: the "
        "libraries' default, all cores)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()

    print(
        f"4 x 4 checkerboard, Gaussian kernel gamma = {GAMMA:g}, nu = {args.nu_times_m:g} / m, "
        f"{args.n_test} test points; LSVM tol 1e-5, LinearSVC tol 1e-4 (C = nu / 2); "
        f"{args.threads or 'default'} BLAS thread(s)"
    )
    print(
        "times in seconds (fit = features + solve); * = not converged; peak = peak RSS of the "
        "run in MiB; /8mD = peak / size of the m x D feature matrix"
    )
    header = (
        f"{'m':>8} {'D':>5} {'method':>30} {'features':>8} {'solve':>8} {'fit':>8} "
        f"{'predict':>8} {'iter':>7} {'accuracy':>8} {'peak':>9} {'/8mD':>7}"
    )
    records = []

    if args.subsample:
        print(f"\nExact kernel against the approximations, all on the same {args.subsample} points")
        print(header)
        rows = []
        for method in EXACT:
            rows.append(
                in_subprocess(
                    method,
                    args.subsample,
                    None,
                    args.nu_times_m,
                    args.seed,
                    args.n_test,
                    threads=args.threads,
                )
            )
            print_row(rows[-1])
        for D in args.components:
            for method in args.methods:
                if args.subsample >= D:
                    rows.append(
                        in_subprocess(
                            method,
                            args.subsample,
                            D,
                            args.nu_times_m,
                            args.seed,
                            args.n_test,
                            threads=args.threads,
                        )
                    )
                    print_row(rows[-1])
        records.extend(rows)

    for m in args.sizes:
        print(f"\nm = {m}")
        print(header)
        for D in args.components:
            rows = []
            for method in args.methods:
                rows.append(
                    in_subprocess(
                        method, m, D, args.nu_times_m, args.seed, args.n_test, threads=args.threads
                    )
                )
                print_row(rows[-1])
            summarise(rows)
            records.extend(rows)

    settings = {
        "gamma": GAMMA,
        "nu_times_m": args.nu_times_m,
        "n_test": args.n_test,
        "seed": args.seed,
        "subsample": args.subsample,
        "lsvm_tol": 1e-5,
        "linearsvc_tol": 1e-4,
        "threads": args.threads or "library default",
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"settings": settings, "records": records}, indent=1) + "\n")
    print(f"\nwritten to {args.output}")


if __name__ == "__main__":
    main()
