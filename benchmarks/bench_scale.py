"""The exact kernel solvers at scale: 200,000 checkerboard points, against SVC.

``SVC`` (libsvm, ``C = nu / 2``), ``SoftMarginSVC`` (SMO, the same ``C``) and
``LagrangianSVC`` (the Newton solver of the kernel LSVM, ``nu``) fit the same RBF
problem (``gamma = 100``, as ``bench_lsvm_newton.py``) on ``--size`` points of the
Ho & Kleinberg checkerboard, each with a kernel cache of ``--cache-size`` MB.  Every fit
runs in a fresh Python process, with the BLAS threads pinned (``--threads``, default
1, as libsvm), ``--repeat`` times (default 3, the methods taking turns), and the
fastest fit of each is kept.  Printed and stored per method: wall and CPU time of
``fit``, the peak resident memory of its process (``ru_maxrss``, measured before
predicting), iterations, support vectors, the time of ``predict`` on the held-out
grid and the accuracy there.  The grid is ``--grid`` x ``--grid`` cell centres of
the unit square, labelled by the board: points that no fit has seen.  Not a test:
nothing is asserted.

    python benchmarks/bench_scale.py [--size 200000] [--repeat 3] [--json PATH]

The stored ``benchmarks/results/scale.json`` was written, from the repository's root,
by ``python benchmarks/bench_scale.py --json benchmarks/results/scale.json``;
``scale_before.json`` the same way, just before the Newton solver's Gaussian rows
from 100,000 points on were computed by the compiled kernel.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from _timing import blas_setting, blas_threads, in_fresh_process, peak_rss_bytes

GAMMA = 100.0
METHODS = ("svc", "smo", "lsvm")


def make_model(method, nu, cache_size):
    if method == "svc":
        from sklearn.svm import SVC

        return SVC(C=nu / 2, kernel="rbf", gamma=GAMMA, tol=1e-3, cache_size=cache_size)
    if method == "smo":
        from ksvm import SoftMarginSVC

        return SoftMarginSVC(C=nu / 2, kernel="rbf", gamma=GAMMA, tol=1e-3, cache_size=cache_size)
    from ksvm.lsvm import LagrangianSVC

    return LagrangianSVC(kernel="rbf", gamma=GAMMA, nu=nu, cache_size=cache_size)


def grid(size):
    """The ``size x size`` cell centres of the unit square and their labels."""
    from ksvm.datasets import checkerboard_labels

    ticks = (np.arange(size) + 0.5) / size
    X = np.stack(np.meshgrid(ticks, ticks), axis=-1).reshape(-1, 2)
    return X, checkerboard_labels(X)


def one_fit(method, n, nu, cache_size, grid_size, threads):
    """One fit in this (fresh) process; JSON-ready figures."""
    from ksvm.datasets import make_checkerboard

    X, y = make_checkerboard(n, seed=0)
    X_grid, y_grid = grid(grid_size)
    model = make_model(method, nu, cache_size)
    with blas_threads(threads):
        w0, c0 = time.perf_counter(), time.process_time()
        model.fit(X, y)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        peak = peak_rss_bytes()
        w0 = time.perf_counter()
        predicted = model.predict(X_grid)
        predict_wall = time.perf_counter() - w0
        setting = blas_setting()
    if method == "lsvm":
        n_iter, n_sv = int(model.n_iter_), int(np.sum(model.u_ > 0))
    else:
        n_iter = int(np.ravel(model.n_iter_)[0])
        n_sv = int(model.support_.size)
    return dict(
        method=method,
        n=n,
        nu=nu,
        C=nu / 2,
        wall=wall,
        cpu=cpu,
        peak_rss_mb=peak / 2**20,
        n_iter=n_iter,
        n_sv=n_sv,
        predict_wall=predict_wall,
        grid_points=len(y_grid),
        grid_accuracy=float(np.mean(predicted == y_grid)),
        solver=getattr(model, "solver_", None),
        blas=setting,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=200_000)
    parser.add_argument("--nu", type=float, default=10.0)
    parser.add_argument("--cache-size", type=float, default=200.0)
    parser.add_argument("--grid", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--json", type=Path, default=None, help="store the runs here")
    args = parser.parse_args()
    print(
        f"{args.size} checkerboard points, RBF gamma={GAMMA:g}, "
        f"nu={args.nu:g} (C={args.nu / 2:g}), "
        f"cache_size={args.cache_size:g} MB, BLAS threads pinned to {args.threads}; "
        f"best of {args.repeat} fresh processes each",
        flush=True,
    )
    runs = {method: [] for method in args.methods}
    for _ in range(args.repeat):
        for method in args.methods:
            run = in_fresh_process(
                "bench_scale",
                "one_fit",
                (method, args.size, args.nu, args.cache_size, args.grid, args.threads),
                threads=args.threads,
            )
            if "failed" in run:
                print(f"{method} failed: {run['failed']}", file=sys.stderr)
                continue
            runs[method].append(run)
            print(
                f"  {method:5s} fit {run['wall']:8.2f} s (cpu {run['cpu']:8.2f}), "
                f"peak {run['peak_rss_mb']:7.0f} MB, predict {run['predict_wall']:6.2f} s",
                flush=True,
            )
    best = {m: min(r, key=lambda run: run["wall"]) for m, r in runs.items() if r}
    print(f"BLAS: {next(iter(best.values()))['blas']}")
    print(
        f"{'method':>6} {'fit [s]':>8} {'cpu [s]':>8} {'/ SVC':>6} {'peak MB':>8} {'iter':>8} "
        f"{'SV':>7} {'predict [s]':>11} {'/ SVC':>6} {'grid accuracy':>13}"
    )
    ref = best.get("svc")
    for method, r in best.items():
        ratio = r["wall"] / ref["wall"] if ref else np.nan
        p_ratio = r["predict_wall"] / ref["predict_wall"] if ref else np.nan
        r["ratio"], r["predict_ratio"] = ratio, p_ratio
        print(
            f"{method:>6} {r['wall']:8.2f} {r['cpu']:8.2f} {ratio:6.2f} {r['peak_rss_mb']:8.0f} "
            f"{r['n_iter']:8d} {r['n_sv']:7d} {r['predict_wall']:11.2f} {p_ratio:6.2f} "
            f"{r['grid_accuracy']:13.4f}"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        stored = {"best": list(best.values()), "runs": runs, "repeat": args.repeat}
        args.json.write_text(json.dumps(stored, indent=1) + "\n")


if __name__ == "__main__":
    main()
