"""LSVM against scikit-learn at scale: the linear LSVM vs LinearSVC, Code 3 vs SVC.

Part 1 (linear): ``make_linear_large(m, 10)`` for m from 1e4 to 2e6.  LSVM
and LinearSVC solve the *same* problem, formulation (7) of Mangasarian &
Musicant, which is liblinear's squared hinge with ``C = nu / 2`` and the
intercept penalised (``intercept_scaling=1``).  Five solvers are timed:
``lsvm`` (the fixed point, ``lsvm_linear``, Code 2), ``lsvm-newton``
(``lsvm_linear_newton``), ``lsvm-auto`` (``LagrangianSVC(kernel='linear')``
with its default ``solver='auto'``, the whole ``fit``), and both liblinear
solvers (``dual=True``: coordinate descent on the dual; ``dual=False``:
trust-region Newton on the primal, each ``LinearSVC.fit``).  Each solver runs
in a fresh subprocess with its BLAS pinned to ``--threads`` threads (the
OMP/OPENBLAS/MKL_NUM_THREADS variables, set before numpy loads, and
threadpoolctl around the fits; liblinear is single-threaded), so that its peak
resident memory (``ru_maxrss``) can be read; the time is the best of ``--repeat`` fits
of the solver alone (data generation and the test set not included), and the
table prints the peak divided by the size of the data ``X`` and ``y``, and
the ratio of each LSVM time to the faster LinearSVC time.

Part 2 (kernel): the 4 x 4 checkerboard, Gaussian kernel, ``lsvm_kernel``
(Code 3, ``m x m``) against SVC at m = 1000 to 5000 (``--kernel-sizes``; with
no sizes given the part is skipped and the kernel rows already stored in the
output file are kept), each in a fresh subprocess whose BLAS the same variables
pin to ``--threads`` threads.

Prints one table per part, all measured in this run, and writes them to
benchmarks/results/lsvm.json.  Not a test: nothing is asserted.

    python benchmarks/bench_lsvm.py [--sizes 10000 100000 1000000 2000000] [--nu-times-m 1]
    python benchmarks/bench_lsvm.py --nu-times-m 1000 --kernel-sizes 1000 \\
        --output benchmarks/results/lsvm_nu1000.json
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np
from _timing import best_of, blas_setting, blas_threads, in_fresh_process, peak_rss_bytes

RESULTS = Path(__file__).resolve().parent / "results" / "lsvm.json"


#: The linear solvers, in the order of the table: the three LSVM solvers, then liblinear's two.
LINEAR_SOLVERS = ("lsvm", "lsvm-newton", "lsvm-auto", "liblinear-dual", "liblinear-primal")


def run_linear(solver, m, nu_times_m, seed, threads=1, repeat=3):
    """Run in a subprocess: generate the data, fit ``repeat`` times, report the best time,
    iterations, accuracy, peak memory and the BLAS setting."""
    from sklearn.svm import LinearSVC

    from ksvm.datasets import make_linear_large
    from ksvm.lsvm import LagrangianSVC, lsvm_linear, lsvm_linear_newton

    before = peak_rss_bytes()
    X, y, w_true, b_true = make_linear_large(m, 10, return_coef=True, seed=seed)
    # test points from the same hyperplane and noise level as the training set
    rng = np.random.default_rng(seed + 1)
    X_test = rng.uniform(-1.0, 1.0, size=(200_000, 10))
    y_test = np.where(X_test @ w_true - b_true + 0.2 * rng.standard_normal(200_000) >= 0, 1, -1)
    nu = nu_times_m / m

    def fit():
        if solver == "lsvm":
            r = lsvm_linear(X, y, nu, max_iter=1000, tol=1e-5)
            return r.w, r.b, r.n_iter
        if solver == "lsvm-newton":
            r = lsvm_linear_newton(X, y, nu)
            return r.w, r.b, r.n_iter
        if solver == "lsvm-auto":  # the estimator with its defaults: what a user gets
            clf = LagrangianSVC(nu=nu).fit(X, y)
            return clf.coef_[0], clf.intercept_[0], int(clf.n_iter_)
        clf = LinearSVC(
            C=nu / 2,
            loss="squared_hinge",
            dual=(solver == "liblinear-dual"),
            tol=1e-5,
            max_iter=10000,
        ).fit(X, y)
        return clf.coef_[0], clf.intercept_[0], int(clf.n_iter_)

    with blas_threads(threads):
        seconds, (w, b, it) = best_of(repeat, fit)
        blas = blas_setting()
    peak = peak_rss_bytes()
    accuracy = float(np.mean(np.where(X_test @ w + b >= 0, 1, -1) == y_test))
    return {
        "solver": solver,
        "m": m,
        "seconds": seconds,
        "iterations": it,
        "accuracy": accuracy,
        "data_bytes": X.nbytes + y.nbytes,
        "peak_bytes": peak - before,
        "repeat": repeat,
        "blas": blas,
        "plane": [float(v) for v in np.append(w, b)],
    }


def run_kernel(solver, m, seed):
    from sklearn.svm import SVC

    from ksvm import kernels
    from ksvm.datasets import make_checkerboard
    from ksvm.lsvm import lsvm_kernel

    X, y = make_checkerboard(m, seed=seed)
    X_test, y_test = make_checkerboard(20_000, seed=seed + 1)
    gamma, nu = 100.0, 10.0  # SVC's C = nu / 2 weighs the (unsquared) slacks comparably
    start = time.perf_counter()
    if solver == "lsvm":
        r = lsvm_kernel(kernels.rbf_kernel(X, gamma=gamma), y, nu, max_iter=100_000, tol=1e-5)
        f = kernels.rbf_kernel(X_test, X, gamma=gamma) @ (y * r.u)
        it = r.n_iter
    else:
        clf = SVC(C=nu / 2, kernel="rbf", gamma=gamma, tol=1e-3).fit(X, y)
        f = clf.decision_function(X_test)
        it = int(clf.n_iter_[0])
    seconds = time.perf_counter() - start
    return {
        "solver": solver,
        "m": m,
        "seconds": seconds,
        "iterations": it,
        "accuracy": float(np.mean(np.where(f >= 0, 1, -1) == y_test)),
    }


def in_subprocess(kind, *args, threads=None):
    # threads: the BLAS threads of the new process, set in its environment before numpy loads
    result = in_fresh_process("bench_lsvm", f"run_{kind}", args, threads=threads)
    if "failed" in result:
        raise RuntimeError(result["failed"])
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000, 2_000_000]
    )
    parser.add_argument(
        "--kernel-sizes",
        type=int,
        nargs="*",
        default=[1000, 2000, 5000],
        help="none: skip part 2 and keep the kernel rows stored in --output",
    )
    parser.add_argument(
        "--nu-times-m", type=float, default=1.0, help="nu * m; 1 is the authors' default nu = 1/m"
    )
    parser.add_argument(
        "--solvers", nargs="+", default=list(LINEAR_SOLVERS), choices=LINEAR_SOLVERS
    )
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads of every run")
    parser.add_argument(
        "--repeat", type=int, default=3, help="fits per linear run; the best counts"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--output",
        type=Path,
        default=RESULTS,
        help="where to write the JSON results (default: results/lsvm.json)",
    )
    args = parser.parse_args()
    results = {
        "linear": [],
        "kernel": [],
        "nu_times_m": args.nu_times_m,
        "threads": args.threads,
        "repeat": args.repeat,
    }

    print(
        f"Part 1: make_linear_large(m, 10), nu = {args.nu_times_m:g}/m; LinearSVC(squared hinge, "
        "C = nu/2, tol 1e-5) solves the same problem; lsvm (fixed point) tol 1e-5, "
        "lsvm-newton and lsvm-auto (LagrangianSVC default) their defaults"
    )
    print(
        f"seconds: best of {args.repeat} fits, BLAS pinned to {args.threads} thread(s); "
        "peak / data: the process's peak resident memory above what it used before the data"
    )
    print(
        "existed, divided by the size of X and y (so data alone is 1); ratio: seconds / the "
        "faster LinearSVC's"
    )
    print(
        f"{'m':>9} {'solver':>16} {'seconds':>8} {'iter':>6} {'accuracy':>9} {'peak / data':>12} "
        f"{'ratio':>6}"
    )
    for m in args.sizes:
        rows = [
            in_subprocess(
                "linear",
                s,
                m,
                args.nu_times_m,
                args.seed,
                args.threads,
                args.repeat,
                threads=args.threads,
            )
            for s in args.solvers
        ]
        liblinear = [r["seconds"] for r in rows if r["solver"].startswith("liblinear")]
        best_other = min(liblinear) if liblinear else float("nan")
        for r in rows:
            r["ratio"] = r["seconds"] / best_other
            print(
                f"{m:9d} {r['solver']:>16} {r['seconds']:8.3f} {r['iterations']:6d} "
                f"{100 * r['accuracy']:8.3f}% {r['peak_bytes'] / r['data_bytes']:12.2f} "
                f"{r['ratio']:6.3f}"
            )
        print(f"{'':9} BLAS: {rows[0]['blas']}")
        results["linear"].extend(rows)

    if args.kernel_sizes:
        print(
            "\nPart 2: checkerboard, Gaussian kernel gamma = 100; Code 3 (nu = 10) vs SVC (C = 5)"
        )
        print(f"{'m':>6} {'solver':>6} {'seconds':>8} {'iter':>7} {'accuracy':>9}")
    elif args.output.exists():
        results["kernel"] = json.loads(args.output.read_text()).get("kernel", [])
        print(
            f"\nPart 2 skipped; the {len(results['kernel'])} kernel rows of {args.output} are kept"
        )
    for m in args.kernel_sizes:
        rows = [
            in_subprocess("kernel", s, m, args.seed, threads=args.threads) for s in ("lsvm", "svc")
        ]
        for r in rows:
            print(
                f"{m:6d} {r['solver']:>6} {r['seconds']:8.2f} {r['iterations']:7d} "
                f"{100 * r['accuracy']:8.2f}%"
            )
        print(f"{'':6} LSVM / SVC: {rows[0]['seconds'] / rows[1]['seconds']:.2f}")
        results["kernel"].extend(rows)

    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nwritten to {args.output}")


if __name__ == "__main__":
    main()
