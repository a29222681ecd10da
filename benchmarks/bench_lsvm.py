"""LSVM against scikit-learn at scale: Code 2 vs LinearSVC, Code 3 vs SVC.

Part 1 (linear): ``make_linear_large(m, 10)`` for m from 1e4 to 2e6.  LSVM
(``lsvm_linear``) and LinearSVC solve the *same* problem, formulation (7) of
Mangasarian & Musicant, which is liblinear's squared hinge with
``C = nu / 2`` and the intercept penalised (``intercept_scaling=1``); both
liblinear solvers are timed (``dual=True``: coordinate descent on the dual;
``dual=False``: trust-region Newton on the primal).  Each run happens in a
fresh subprocess, so that its peak resident memory (``ru_maxrss``) can be
read; the table prints the peak divided by the size of the data ``X``.

Part 2 (kernel): the 4 x 4 checkerboard, Gaussian kernel, ``lsvm_kernel``
(Code 3, ``m x m``) against SVC at m = 1000 to 5000.

Prints one table per part and the ratio LSVM / the faster competitor, all
measured in this run, and writes them to benchmarks/results/lsvm.json.  Not
a test: nothing is asserted.

    python benchmarks/bench_lsvm.py [--sizes 10000 100000 1000000 2000000] [--nu-times-m 1]
    python benchmarks/bench_lsvm.py --nu-times-m 1000 --kernel-sizes 1000 \\
        --output benchmarks/results/lsvm_nu1000.json
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np
from _timing import in_fresh_process, peak_rss_bytes

RESULTS = Path(__file__).resolve().parent / "results" / "lsvm.json"


def run_linear(solver, m, nu_times_m, seed):
    """Run in a subprocess: generate the data, solve, report time/accuracy/memory."""
    from sklearn.svm import LinearSVC

    from ksvm.datasets import make_linear_large
    from ksvm.lsvm import lsvm_linear

    before = peak_rss_bytes()
    X, y, w_true, b_true = make_linear_large(m, 10, return_coef=True, seed=seed)
    # test points from the same hyperplane and noise level as the training set
    rng = np.random.default_rng(seed + 1)
    X_test = rng.uniform(-1.0, 1.0, size=(200_000, 10))
    y_test = np.where(X_test @ w_true - b_true + 0.2 * rng.standard_normal(200_000) >= 0, 1, -1)
    nu = nu_times_m / m
    start = time.perf_counter()
    if solver == "lsvm":
        r = lsvm_linear(X, y, nu, itmax=1000, tol=1e-5)
        w, b, it = r.w, -r.gamma, r.n_iter
    else:
        clf = LinearSVC(
            C=nu / 2, loss="squared_hinge", dual=(solver == "liblinear-dual"), tol=1e-5,
            max_iter=10000,
        ).fit(X, y)
        w, b, it = clf.coef_[0], clf.intercept_[0], int(clf.n_iter_)
    seconds = time.perf_counter() - start
    peak = peak_rss_bytes()
    accuracy = float(np.mean(np.where(X_test @ w + b >= 0, 1, -1) == y_test))
    return {
        "solver": solver, "m": m, "seconds": seconds, "iterations": it, "accuracy": accuracy,
        "data_bytes": X.nbytes + y.nbytes, "peak_bytes": peak - before,
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
        r = lsvm_kernel(kernels.rbf_kernel(X, gamma=gamma), y, nu, itmax=100_000, tol=1e-5)
        f = kernels.rbf_kernel(X_test, X, gamma=gamma) @ (y * r.u)
        it = r.n_iter
    else:
        clf = SVC(C=nu / 2, kernel="rbf", gamma=gamma, tol=1e-3).fit(X, y)
        f = clf.decision_function(X_test)
        it = int(clf.n_iter_[0])
    seconds = time.perf_counter() - start
    return {"solver": solver, "m": m, "seconds": seconds, "iterations": it,
            "accuracy": float(np.mean(np.where(f >= 0, 1, -1) == y_test))}


def in_subprocess(kind, *args):
    result = in_fresh_process("bench_lsvm", f"run_{kind}", args)
    if "failed" in result:
        raise RuntimeError(result["failed"])
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000, 2_000_000])
    parser.add_argument("--kernel-sizes", type=int, nargs="+", default=[1000, 2000, 5000])
    parser.add_argument("--nu-times-m", type=float, default=1.0,
                        help="nu * m; 1 is the authors' default nu = 1/m")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=RESULTS,
                        help="where to write the JSON results (default: results/lsvm.json)")
    args = parser.parse_args()
    results = {"linear": [], "kernel": [], "nu_times_m": args.nu_times_m}

    print(f"Part 1: make_linear_large(m, 10), nu = {args.nu_times_m:g}/m, tol 1e-5; "
          "LinearSVC(squared hinge, C = nu/2) solves the same problem")
    print("peak / data: the process's peak resident memory above what it used before the data")
    print("existed, divided by the size of X and y (so data alone is 1)")
    print(f"{'m':>9} {'solver':>15} {'seconds':>8} {'iter':>6} {'accuracy':>9} {'peak / data':>12}")
    for m in args.sizes:
        rows = [in_subprocess("linear", s, m, args.nu_times_m, args.seed)
                for s in ("lsvm", "liblinear-dual", "liblinear-primal")]
        for r in rows:
            print(f"{m:9d} {r['solver']:>15} {r['seconds']:8.2f} {r['iterations']:6d} "
                  f"{100 * r['accuracy']:8.2f}% {r['peak_bytes'] / r['data_bytes']:12.2f}")
        best_other = min(r["seconds"] for r in rows[1:])
        print(f"{'':9} {'LSVM / faster liblinear':>30}: {rows[0]['seconds'] / best_other:.3f}")
        results["linear"].extend(rows)

    print("\nPart 2: checkerboard, Gaussian kernel gamma = 100; Code 3 (nu = 10) vs SVC (C = 5)")
    print(f"{'m':>6} {'solver':>6} {'seconds':>8} {'iter':>7} {'accuracy':>9}")
    for m in args.kernel_sizes:
        rows = [in_subprocess("kernel", s, m, args.seed) for s in ("lsvm", "svc")]
        for r in rows:
            print(f"{m:6d} {r['solver']:>6} {r['seconds']:8.2f} {r['iterations']:7d} {100 * r['accuracy']:8.2f}%")
        print(f"{'':6} LSVM / SVC: {rows[0]['seconds'] / rows[1]['seconds']:.2f}")
        results["kernel"].extend(rows)

    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nwritten to {args.output}")


if __name__ == "__main__":
    main()
