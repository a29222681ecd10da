"""The kernel LSVM's solvers against SVC on the checkerboard: fit times alone.

For each size and ``nu``, ``LagrangianSVC(kernel='rbf', gamma=100, nu=nu)`` (the
estimator's default: the active-set Newton solver, or coordinate steps at small
``nu``, as ``solver='auto'`` chooses; each record says which) and scikit-learn's ``SVC``
(libsvm, ``C = nu / 2``, the hinge-loss problem closest to the LSVM's, the
same ``cache_size``) are fitted back to back, and the best of ``--repeat``
fits of each is kept; the LSVM's repeats refit one estimator, which keeps the
memory of its solver's workspace from one fit to the next (``--fresh`` makes a
new estimator for every fit, whose first fit pays for that memory's pages).
Only ``fit`` is timed: the test accuracy on 20 000 points is computed
afterwards, untimed.  BLAS runs on ``--threads`` threads
(default 1, as libsvm), pinned with threadpoolctl and printed.  Where
``m * nu`` is at most ``--fixed-point-limit``, the authors' fixed point
(``lsvm_kernel``, Code 3, tol 1e-5)
runs once as a check of the answer (its time leaves out the Gram matrix): the
largest difference between its ``u`` and Newton's, relative to the largest ``u``.

``--large`` sizes (e.g. 20000 50000) run each fit in a fresh process, so that
its peak resident memory (ru_maxrss) is its own (run them with ``--sizes`` and
nothing after it, and ``--append``: Linux starts a child's ru_maxrss at its
parent's resident memory and keeps it across exec, so a parent that has just
fitted 5000 points lends its children its peak), ``--large-repeat`` times each
(default 3, alternating, the fastest kept with its peak); at those sizes
the m x m matrix is never formed by the LSVM (rows of the kernel matrix are
computed on demand for the points that can be free, in a cache of
``--cache-size`` MB).  Prints steps, kernel values computed (in rows of m
values: "rows"), accuracy, peak
memory and the ratio LSVM / SVC measured in the same run, of wall times and of
the CPU times of the fitting process (best of the repeats; on a shared machine
the CPU ratio is the less distorted of the two) and, up to --sizes, the page
faults of a fit (the fewest over the repeats: pages the operating system maps
for memory the fit takes anew), and writes everything to
benchmarks/results/lsvm_newton.json (read by the book's chapter on the Newton
solver).  ``--keep-memory`` runs the same with glibc told to keep the memory
that fits free, so that no fit pays for the pages of the one before (an
experiment on the allocator, written with ``--output`` elsewhere).  Not a
test: nothing is asserted.

    python benchmarks/bench_lsvm_newton.py [--sizes 1000 2000 5000] [--nu 1 10 100 1000]
    python benchmarks/bench_lsvm_newton.py --sizes --large 20000 --large-nu 1 10 100 1000
    python benchmarks/bench_lsvm_newton.py --keep-memory --sizes 1000 2000 --nu 1 \\
        --output benchmarks/results/lsvm_newton_kept_memory.json
"""

import argparse
import json
import os
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from _timing import blas_setting, blas_threads, in_fresh_process, peak_rss_bytes
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from ksvm import kernels
from ksvm.datasets import make_checkerboard
from ksvm.lsvm import LagrangianSVC, augment, lsvm_kernel

GAMMA = 100.0
TEST_POINTS = 20_000
RESULTS = Path(__file__).resolve().parent / "results" / "lsvm_newton.json"


#: The C library's settings under which freed memory stays with the process (--keep-memory).
KEEP_MEMORY = {"MALLOC_TRIM_THRESHOLD_": "2000000000", "MALLOC_MMAP_THRESHOLD_": "2000000000"}


def _minor_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def best_of_both(repeat, run):
    """Call ``run()`` ``repeat`` times: the shortest wall time, the shortest CPU time of
    this process (what a fit costs, less distorted than wall time when others share the
    cores), the fewest page faults of a fit (pages the operating system mapped for it) and
    the first result."""
    wall, cpu, faults, first = float("inf"), float("inf"), None, None
    for k in range(repeat):
        start, start_cpu, start_faults = time.perf_counter(), time.process_time(), _minor_faults()
        result = run()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
        n = _minor_faults() - start_faults
        faults = n if faults is None else min(faults, n)
        if k == 0:
            first = result
    return wall, cpu, faults, first


def _accuracy(model, X_test, y_test):
    return float(np.mean(model.predict(X_test) == y_test))


def make_lsvm(nu, cache_size):
    model = LagrangianSVC(kernel="rbf", gamma=GAMMA, nu=nu)
    if "cache_size" in model.get_params():
        model.set_params(cache_size=cache_size)
    return model


def fit_lsvm(X, y, nu, cache_size, model=None):
    """Fit ``model`` (a new estimator if None) to ``X, y``."""
    return (make_lsvm(nu, cache_size) if model is None else model).fit(X, y)


def fit_svc(X, y, nu, cache_size):
    return SVC(C=nu / 2, kernel="rbf", gamma=GAMMA, tol=1e-3, cache_size=cache_size).fit(X, y)


def lsvm_record(model, seconds, X_test, y_test):
    return {
        "seconds": seconds,
        "iterations": int(model.n_iter_),
        "accuracy": _accuracy(model, X_test, y_test),
        "support_vectors": int(np.sum(model.u_ > 0)),
        "kernel_rows": int(getattr(model, "n_kernel_rows_", len(model.u_))),
        "solver": getattr(model, "solver_", "newton"),
    }


def svc_record(model, seconds, X_test, y_test):
    return {
        "seconds": seconds,
        "iterations": int(model.n_iter_[0]),
        "accuracy": _accuracy(model, X_test, y_test),
        "support_vectors": int(model.support_.size),
    }


def one_fit(method, m, nu, cache_size, threads):
    """One fit, for a fresh process: its time, its record and the process's peak memory."""
    X, y = make_checkerboard(m, seed=0)
    X_test, y_test = make_checkerboard(TEST_POINTS, seed=1)
    fit, record = (fit_lsvm, lsvm_record) if method == "lsvm" else (fit_svc, svc_record)
    with blas_threads(threads):
        start, start_cpu = time.perf_counter(), time.process_time()
        model = fit(X, y, nu, cache_size)
        seconds, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        peak = peak_rss_bytes()  # before predicting, which is not part of fit
        result = record(model, seconds, X_test, y_test)
        result["cpu_seconds"] = cpu
        result["blas"] = blas_setting()
    result["peak_rss_mb"] = peak / 2**20
    return result


def fixed_point_check(X, y, nu, max_iter, newton_u):
    K = kernels.rbf_kernel(augment(X), gamma=GAMMA)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fp = lsvm_kernel(K, y, nu, max_iter=max_iter, tol=1e-5)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "iterations": fp.n_iter,
        "converged": fp.converged,
        "max_du_relative": float(np.abs(fp.u - newton_u).max() / newton_u.max()),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 2000, 5000])
    parser.add_argument("--nu", type=float, nargs="+", default=[1.0, 10.0, 100.0, 1000.0])
    parser.add_argument("--large", type=int, nargs="*", default=[])
    parser.add_argument("--large-nu", type=float, nargs="+", default=[1.0, 10.0, 100.0, 1000.0])
    parser.add_argument(
        "--large-repeat",
        type=int,
        default=3,
        help="fresh processes per solver at each --large size (the fastest kept)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="a new LSVM estimator for every fit (by default the repeats "
        "refit one, which keeps its workspace's memory between fits)",
    )
    parser.add_argument(
        "--cache-size",
        type=float,
        default=200.0,
        help="MB of kernel rows (LSVM) and columns (libsvm) kept",
    )
    parser.add_argument("--fixed-point-max-iter", type=int, default=100_000)
    parser.add_argument(
        "--fixed-point-limit",
        type=float,
        default=2e4,
        help="run the fixed point only where m * nu is at most this (its "
        "iterations grow like nu, each costs m^2)",
    )
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument(
        "--append",
        action="store_true",
        help="keep the records of --output and add (or replace) these",
    )
    parser.add_argument(
        "--keep-memory",
        action="store_true",
        help="run with glibc keeping the memory that fits free (no page "
        "faults from one fit to the next): " + " ".join(f"{k}={v}" for k, v in KEEP_MEMORY.items()),
    )
    args = parser.parse_args()
    if args.keep_memory and any(os.environ.get(k) != v for k, v in KEEP_MEMORY.items()):
        # glibc reads these when the process starts: start again with them
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **KEEP_MEMORY})
    X_test, y_test = make_checkerboard(TEST_POINTS, seed=1)
    records = []
    print(
        f"4 x 4 checkerboard, Gaussian kernel gamma = {GAMMA:g}; SVC with C = nu / 2; "
        f"cache {args.cache_size:g} MB each; fit times alone, best of {args.repeat}"
    )
    header = (
        f"{'m':>6} {'nu':>6} | {'LSVM [s]':>8} {'steps':>5} {'rows':>6} {'SVs':>5} {'acc':>6} "
        f"{'MB':>6} | {'SVC [s]':>8} {'iter':>6} {'SVs':>5} {'acc':>6} {'MB':>6} | "
        f"{'LSVM/SVC':>8} {'CPU':>5} | {'fixed pt [s]':>12} {'iter':>6} {'max|du|/u':>9} | "
        f"{'faults LSVM':>11} {'SVC':>5}"
    )
    print(header, flush=True)

    def show(m, nu, lsvm, svc, fp):
        mb = (
            (f"{lsvm['peak_rss_mb']:6.0f}", f"{svc['peak_rss_mb']:6.0f}")
            if "peak_rss_mb" in lsvm
            else (f"{'-':>6}", f"{'-':>6}")
        )
        fixed = (
            f"{fp['seconds']:12.2f} {fp['iterations']:6d} {fp['max_du_relative']:9.1e}"
            if fp
            else f"{'-':>12} {'-':>6} {'-':>9}"
        )
        print(
            f"{m:6d} {nu:6g} | {lsvm['seconds']:8.3f} {lsvm['iterations']:5d} "
            f"{lsvm['kernel_rows']:6d} {lsvm['support_vectors']:5d} {lsvm['accuracy']:6.4f} "
            f"{mb[0]} | {svc['seconds']:8.3f} {svc['iterations']:6d} {svc['support_vectors']:5d} "
            f"{svc['accuracy']:6.4f} {mb[1]} | {lsvm['seconds'] / svc['seconds']:8.2f} "
            f"{lsvm['cpu_seconds'] / svc['cpu_seconds']:5.2f} | {fixed} | "
            f"{lsvm.get('page_faults', '-'):>11} {svc.get('page_faults', '-'):>5}",
            flush=True,
        )

    with blas_threads(args.threads):
        blas = blas_setting()
        print(f"BLAS: {blas}")
        for m in args.sizes:
            X, y = make_checkerboard(m, seed=0)
            for nu in args.nu:
                model = None if args.fresh else make_lsvm(nu, args.cache_size)
                t_lsvm, c_lsvm, f_lsvm, lsvm = best_of_both(
                    args.repeat, lambda: fit_lsvm(X, y, nu, args.cache_size, model)
                )
                t_svc, c_svc, f_svc, svc = best_of_both(
                    args.repeat, lambda: fit_svc(X, y, nu, args.cache_size)
                )
                fp = None
                if m * nu <= args.fixed_point_limit:
                    fp = fixed_point_check(X, y, nu, args.fixed_point_max_iter, lsvm.u_)
                record = {
                    "m": m,
                    "nu": nu,
                    "newton": lsvm_record(lsvm, t_lsvm, X_test, y_test),
                    "svc": svc_record(svc, t_svc, X_test, y_test),
                    "fixed_point": fp,
                }
                record["newton"]["cpu_seconds"], record["svc"]["cpu_seconds"] = c_lsvm, c_svc
                record["newton"]["page_faults"], record["svc"]["page_faults"] = f_lsvm, f_svc
                records.append(record)
                show(m, nu, record["newton"], record["svc"], fp)
    for m in args.large:
        for nu in args.large_nu:
            # --large-repeat fresh processes for each, alternating, the fastest kept: one
            # fit in a fresh process moves by a fifth or more from run to run.
            runs = {"lsvm": [], "svc": []}
            for _ in range(args.large_repeat):
                for solver in runs:
                    runs[solver].append(
                        in_fresh_process(
                            "bench_lsvm_newton",
                            "one_fit",
                            (solver, m, nu, args.cache_size, args.threads),
                            args.threads,
                        )
                    )
            failed = [r["failed"] for rs in runs.values() for r in rs if "failed" in r]
            if failed:
                print(f"{m:6d} {nu:6g} | failed: {failed[0]}")
                continue
            lsvm, svc = (min(runs[s], key=lambda r: r["seconds"]) for s in ("lsvm", "svc"))
            record = {
                "m": m,
                "nu": nu,
                "newton": lsvm,
                "svc": svc,
                "fixed_point": None,
                "fresh_process": True,
                "fresh_processes": args.large_repeat,
            }
            records.append(record)
            show(m, nu, lsvm, svc, None)
    repeat = args.repeat
    if args.append and args.output.exists():
        old = json.loads(args.output.read_text())
        done = {(r["m"], r["nu"]) for r in records}
        records = [r for r in old["records"] if (r["m"], r["nu"]) not in done] + records
        records.sort(key=lambda r: (r["m"], r["nu"]))
        if not args.sizes:  # only --large: the repeats stated are those of the kept records
            repeat = old["repeat"]
    args.output.parent.mkdir(exist_ok=True)
    args.output.write_text(
        json.dumps(
            {
                "gamma": GAMMA,
                "threads": args.threads,
                "blas": blas,
                "repeat": repeat,
                "cache_size_mb": args.cache_size,
                "test_points": TEST_POINTS,
                "timed": "fit alone",
                "lsvm_estimator": "new for every fit" if args.fresh else "one, refitted",
                "fixed_point_tol": 1e-5,
                "fixed_point_itmax": args.fixed_point_max_iter,
                "malloc": "glibc keeps freed memory: "
                + ", ".join(f"{k}={v}" for k, v in KEEP_MEMORY.items())
                if args.keep_memory
                else "default",
                "records": records,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()
