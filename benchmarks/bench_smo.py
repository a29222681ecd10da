"""Time ksvm's SMO against scikit-learn's SVC (libsvm) on RBF problems, fit alone.

Both solve the same soft-margin dual to the same KKT tolerance with the same
kernel-cache budget (``cache_size`` megabytes).  Three problems:

* noisy 2-D data (``make_noisy_2d``, 10 % of the labels flipped), gamma = 1,
  C = 1 and C = 10;
* the 4 x 4 checkerboard on the unit square with 5 % of the labels flipped,
  gamma = 2, C = 10.

For each problem and size, each library's fits run in a fresh Python process (its
own peak memory), with the BLAS threads pinned (``--threads``, default 1: libsvm
uses one core). Printed per problem and size: the best wall time and CPU time of
``--repeat`` fits of each in one process up to 10 000 points (the first fit in a
process, which loads the compiled SMO loop, is one of them), and above it of one fit
in each of ``--large-repeat`` fresh processes (the libraries taking turns), their
ratios ksvm / libsvm measured in this run, the iterations (pair updates), the
support vectors, the relative difference of the two dual objectives (both computed
here, block by block, from the multipliers), the accuracy on 20 000 fresh test
points and the time of predicting them (best of as many), and each process's peak
resident memory. Not a test: nothing is asserted.

    python benchmarks/bench_smo.py [--sizes 10000 50000] [--repeat 3] [--json PATH]

The stored ``benchmarks/results/smo.json`` was written, from the repository's root, by
``python benchmarks/bench_smo.py --sizes 1000 2000 5000 10000 50000 --repeat 7 --json
benchmarks/results/smo.json``.

The CPU time is printed beside the wall time because on a shared machine a
process waiting for a core inflates its wall time but not its CPU time.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from _timing import blas_setting, blas_threads, in_fresh_process, peak_rss_bytes
from sklearn.base import clone

PROBLEMS = {
    "noisy 2-D, C=1": dict(data="noisy", C=1.0, gamma=1.0),
    "noisy 2-D, C=10": dict(data="noisy", C=10.0, gamma=1.0),
    "checkerboard 5%, C=10": dict(data="checkerboard", C=10.0, gamma=2.0),
}


def make_data(data, n, seed):
    """The training or test set of one problem (labels in {-1, +1})."""
    from ksvm.datasets import make_checkerboard, make_noisy_2d

    if data == "noisy":
        return make_noisy_2d(n, flip=0.1, seed=seed)
    X, y = make_checkerboard(n, seed=seed)
    flip = np.random.default_rng(seed + 1000).random(n) < 0.05
    return X, np.where(flip, -y, y)


def dual_objective_blocks(X, v, gamma, block=2000):
    """``sum |v| - 1/2 v'Kv`` for the RBF kernel, ``v = alpha * y`` on the
    support vectors ``X``, without forming the whole matrix."""
    from ksvm.kernels import rbf_kernel

    quad = 0.0
    for start in range(0, len(X), block):
        quad += v[start : start + block] @ (rbf_kernel(X[start : start + block], X, gamma) @ v)
    return float(np.abs(v).sum() - 0.5 * quad)


def fit_one(library, problem, n, cache_size, tol, repeat, threads):
    """One problem, fitted ``repeat`` times by ksvm or libsvm in this process;
    JSON-ready figures."""
    p = PROBLEMS[problem]
    X, y = make_data(p["data"], n, seed=0)
    X_test, y_test = make_data(p["data"], 20_000, seed=1)
    with blas_threads(threads):
        if library == "ksvm":
            from ksvm import SoftMarginSVC

            params = dict(C=p["C"], kernel="rbf", gamma=p["gamma"], tol=tol)
            if "cache_size" in SoftMarginSVC().get_params():  # absent before the rows solver
                params["cache_size"] = cache_size
            estimator = SoftMarginSVC(**params)
        else:
            from sklearn.svm import SVC

            estimator = SVC(
                C=p["C"], kernel="rbf", gamma=p["gamma"], tol=tol, cache_size=cache_size
            )
        wall, cpu = np.inf, np.inf
        for _ in range(repeat):
            model = clone(estimator)
            w0, c0 = time.perf_counter(), time.process_time()
            model.fit(X, y)
            wall = min(wall, time.perf_counter() - w0)
            cpu = min(cpu, time.process_time() - c0)
        setting = blas_setting()
        peak = peak_rss_bytes()
        support = model.support_
        v = model.dual_coef_[0]
        if library == "ksvm":
            n_iter, solver = model.n_iter_, getattr(model, "solver_", "gram")
        else:
            n_iter, solver = int(model.n_iter_[0]), "libsvm"
        predict = np.inf
        for _ in range(repeat):
            w0 = time.perf_counter()
            predicted = model.predict(X_test)
            predict = min(predict, time.perf_counter() - w0)
        accuracy = float(np.mean(predicted == y_test))
        objective = dual_objective_blocks(X[support], v, p["gamma"])
    return dict(
        library=library,
        solver=solver,
        problem=problem,
        n=n,
        wall=wall,
        cpu=cpu,
        n_iter=n_iter,
        n_sv=int(support.size),
        objective=objective,
        accuracy=accuracy,
        predict_wall=predict,
        peak_rss_mb=peak / 2**20,
        blas=setting,
        cache_size=cache_size,
        tol=tol,
        repeat=repeat,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS), choices=list(PROBLEMS))
    parser.add_argument("--cache-size", type=float, default=200.0)
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--large-repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--libraries", nargs="+", default=["ksvm", "libsvm"])
    parser.add_argument("--json", type=Path, default=None, help="store the rows here")
    args = parser.parse_args()
    print(
        f"RBF SMO, tol={args.tol}, cache_size={args.cache_size:g} MB, "
        f"BLAS threads pinned to {args.threads}; best of {args.repeat} fits each, "
        "each library in a fresh process"
    )
    head = (
        f"{'problem':>22} {'n':>6} {'library':>12} {'wall [s]':>9} {'cpu [s]':>8} "
        f"{'iter':>7} {'SV':>6} {'accuracy':>8} {'predict':>7} {'peak MB':>8} {'obj rel diff':>12}"
    )
    rows = []
    for n in args.sizes:
        for problem in args.problems:
            # small: the best of --repeat fits in one process; large: one fit in each of
            # --large-repeat fresh processes, the libraries taking turns, the fastest kept
            repeat, processes = (args.repeat, 1) if n <= 10_000 else (1, args.large_repeat)
            out = {}
            for _ in range(processes):
                for library in args.libraries:
                    run = in_fresh_process(
                        "bench_smo",
                        "fit_one",
                        (library, problem, n, args.cache_size, args.tol, repeat, args.threads),
                        threads=args.threads,
                    )
                    if "failed" in run or run["wall"] < out.get(library, {}).get("wall", np.inf):
                        out[library] = run
            if any("failed" in r for r in out.values()):
                print(f"{problem:>22} {n:6d} failed: {out}", file=sys.stderr)
                continue
            if not rows:
                print(f"BLAS: {out[args.libraries[0]]['blas']}")
                print(head)
            ref = out.get("libsvm")
            for library, r in out.items():
                rel = (
                    abs(r["objective"] - ref["objective"]) / abs(ref["objective"])
                    if ref
                    else np.nan
                )
                r["objective_rel_diff"] = rel
                name = r["solver"] if library == "ksvm" else "libsvm"
                print(
                    f"{problem:>22} {n:6d} {'ksvm ' + name if library == 'ksvm' else name:>12} "
                    f"{r['wall']:9.4f} {r['cpu']:8.4f} {r['n_iter']:7d} {r['n_sv']:6d} "
                    f"{r['accuracy']:8.4f} {r['predict_wall']:7.3f} {r['peak_rss_mb']:8.0f} "
                    f"{rel:12.1e}"
                )
                rows.append(r)
            if "ksvm" in out and ref:
                print(
                    f"{'':>22} {'':>6} {'ratio':>12} {out['ksvm']['wall'] / ref['wall']:9.2f} "
                    f"{out['ksvm']['cpu'] / ref['cpu']:8.2f}   predict "
                    f"{out['ksvm']['predict_wall'] / ref['predict_wall']:.2f}",
                    flush=True,
                )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
