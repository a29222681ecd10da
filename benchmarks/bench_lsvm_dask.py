"""The linear LSVM on Dask (ksvm.lsvm_dask): out of core at 1e8 points, Nystroem at 1e7.

Part ``out-of-core``: ``ksvm.lsvm.dask_data.make_chunked('linear_large', m, n_features=10)`` (the
distribution of ``make_linear_large``, chunk k drawn from the seed sequence
(seed, k)) written once to a Zarr group under ``--data`` (8 GB at m = 1e8; the
write is skipped when a finished group with the same seed, size and chunking is
there), then solved from disk by a ``LocalCluster`` of 2 worker processes with 1
thread and a memory limit each (``--worker-memory``, default 3 GB, which the data
exceeds): the active-set Newton solver (``--large-solvers``; Code 2 needs about
a hundred passes at ``nu = 1000/m``, which at 1e8 takes most of an hour here).
At ``--in-memory-m`` both solvers (``--solvers``) run out of core as well.  The same
solvers of ``ksvm.lsvm`` then run in memory on numpy arrays at
``--in-memory-m`` (1e7) in a fresh process, and the Dask code on the Zarr data
at that size too, so a row compares in-memory and out-of-core at one size and
the out-of-core code at two.  Accuracy is measured on a held-out chunk (the
chunk after the last training chunk: 1e6 points never trained on).  The peak
worker memory is each worker process's ``ru_maxrss`` (read with ``client.run``;
the workers are restarted before each solve, so it is that solve's peak).

Part ``nystroem``: the 4 x 4 checkerboard at m = 1e7 drawn chunk by chunk on the
workers, Nystroem features of the Gaussian kernel (gamma = 100, ``--components``
landmarks) computed per chunk with ``map_blocks`` and never stored, then the
Newton solver on them (``--solvers`` as above); against the exact-kernel LSVM
(``lsvm_kernel_newton`` on the full Gram matrix) and SVC on a ``--subsample``
of the training points, and Nystroem + LSVM on that subsample, all on the same
held-out test points.

Every time is the wall time of one run (these runs take minutes; repeating
them would not make them steadier on a shared machine).  Each line prints the
BLAS setting of the workers, passes over the data, iterations, accuracy and
peak memory next to the time.  Results go to benchmarks/results/lsvm_dask.json
(``{"out_of_core": {...}, "nystroem": {...}}``; a part run alone replaces only
its own entry).  Not a test: nothing is asserted.

    python benchmarks/bench_lsvm_dask.py out-of-core [--m 100000000] [--in-memory-m 10000000]
        [--chunk 1000000] [--nu-times-m 1000] [--solvers newton fixed-point]
        [--data benchmarks/data]
    python benchmarks/bench_lsvm_dask.py nystroem [--m 10000000] [--components 100]
        [--subsample 5000]
    python benchmarks/bench_lsvm_dask.py out-of-core --m 1000000 --in-memory-m 1000000 \\
        --output /tmp/lsvm_dask_small.json        # a check in a minute

The same script runs on a real cluster by passing ``--scheduler ADDRESS`` (the
client then connects there instead of starting a LocalCluster; the data path
must be readable by every worker).
"""

import argparse
import json
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np
from _timing import blas_setting, in_fresh_process, peak_rss_bytes

RESULTS = Path(__file__).resolve().parent / "results" / "lsvm_dask.json"
GB = 1e9


def worker_peak_bytes():
    """This process's peak resident memory (run on each worker)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class Progress:
    """One line redrawn after every pass: passes, iteration, ||u^{i+1} - u^i||, time per pass."""

    def __init__(self, label, max_iter):
        self.label, self.max_iter = label, max_iter
        self.start = self.last = time.perf_counter()
        self.times = []

    def __call__(self, info):
        now = time.perf_counter()
        self.times.append(now - self.last)
        self.last = now
        done = min(1.0, info["iteration"] / self.max_iter)
        bar = "#" * int(30 * done) + "-" * (30 - int(30 * done))
        print(
            f"\r  {self.label:<24} [{bar}] pass {info['pass']:>4}  iteration {info['iteration']:>4}"
            f"  ||du|| {info['opt']:9.2e}  {self.times[-1]:6.2f} s/pass  {now - self.start:7.1f} s",
            end="",
            file=sys.stderr,
            flush=True,
        )

    def close(self):
        print(file=sys.stderr)


def start_client(args):
    import distributed

    if args.scheduler:
        return distributed.Client(args.scheduler), None
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit=args.worker_memory,
        dashboard_address=":0",
        local_directory=str(Path(args.data) / "dask-worker-space"),
    )
    return distributed.Client(cluster), cluster


def held_out_chunk(kind, m, chunk, seed, **options):
    """The chunk after the last training chunk: same distribution, never trained on."""
    from ksvm.datasets import checkerboard_chunk, linear_large_chunk

    k = -(-m // chunk)
    if kind == "linear_large":
        return linear_large_chunk(k, chunk, (k + 1) * chunk, seed=seed, **options)
    return checkerboard_chunk(k, chunk, (k + 1) * chunk, seed=seed)


def ensure_zarr(client, m, n, chunk, seed, data_dir):
    from ksvm.lsvm.dask_data import make_chunked, read_zarr, write_zarr

    path = Path(data_dir) / f"linear_large_m{m}_n{n}_seed{seed}.zarr"
    expect = {
        "kind": "linear_large",
        "n_samples": m,
        "n_features": n,
        "chunk_size": chunk,
        "seed": seed,
        "noise": 0.2,
    }
    try:
        read_zarr(path, expect=expect)
        print(f"  {path}: already written with seed {seed}; not written again")
        return path, 0.0
    except ValueError:
        pass
    print(f"  writing {m:,} x {n} ({8 * m * n / GB:.1f} GB) to {path}")
    X, y = make_chunked("linear_large", m, chunk_size=chunk, seed=seed, n_features=n, noise=0.2)
    start = time.perf_counter()
    write_zarr(path, X, y, attributes=expect, progress=True)
    seconds = time.perf_counter() - start
    print(f"\n  written in {seconds:.1f} s")
    return path, seconds


def solve_dask(client, A, y, solver, nu, max_iter, X_test, y_test, label, transform=lambda x: x):
    from ksvm import lsvm_dask

    client.restart()  # fresh worker processes: their ru_maxrss is this solve's peak
    progress = Progress(label, max_iter)
    start = time.perf_counter()
    if solver == "newton":
        r = lsvm_dask.lsvm_linear_newton(A, y, nu, max_iter=max_iter, callback=progress)
    else:
        r = lsvm_dask.lsvm_linear(A, y, nu, max_iter=max_iter, tol=1e-5, callback=progress)
    seconds = time.perf_counter() - start
    progress.close()
    peaks = client.run(worker_peak_bytes)
    scores = transform(X_test) @ r.w + r.b
    accuracy = float(np.mean(np.where(scores >= 0, 1, -1) == y_test))
    record = {
        "seconds": seconds,
        "passes": r.passes,
        "seconds_per_pass": seconds / r.passes,
        "iterations": r.n_iter,
        "converged": bool(r.converged),
        "accuracy": accuracy,
        "peak_worker_bytes": max(peaks.values()),
        "peak_worker_bytes_each": sorted(peaks.values()),
        "w": r.w.tolist(),
        "b": r.b,
    }
    del r
    return record


def solve_in_memory(solver, m, n, chunk, nu, max_iter, seed):
    """Run in a fresh process: the numpy arrays, the ksvm.lsvm solver, its peak memory."""
    from ksvm.datasets import linear_large_chunk
    from ksvm.lsvm import lsvm_linear, lsvm_linear_newton

    before = peak_rss_bytes()
    X, y = np.empty((m, n)), np.empty(m, dtype=np.int64)  # the same chunks as on disk
    for k, start in enumerate(range(0, m, chunk)):
        X[start : start + chunk], y[start : start + chunk] = linear_large_chunk(
            k, chunk, m, n, noise=0.2, seed=seed
        )
    X_test, y_test = held_out_chunk("linear_large", m, chunk, seed, n_features=n)
    start = time.perf_counter()
    if solver == "newton":
        r = lsvm_linear_newton(X, y, nu, max_iter=max_iter)
    else:
        r = lsvm_linear(X, y, nu, max_iter=max_iter, tol=1e-5)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "iterations": r.n_iter,
        "converged": bool(r.converged),
        "accuracy": float(np.mean(np.where(X_test @ r.w + r.b >= 0, 1, -1) == y_test)),
        "peak_bytes": peak_rss_bytes() - before,
        "w": r.w.tolist(),
        "b": r.b,
        "blas": blas_setting(),
    }


def out_of_core(args):
    from ksvm.lsvm.dask_data import read_zarr

    n, chunk, seed = 10, args.chunk, args.seed
    client, cluster = start_client(args)
    try:
        blas = client.run(blas_setting)
        print(
            f"workers: {len(blas)} x 1 thread, memory limit {args.worker_memory}; BLAS: "
            f"{next(iter(blas.values()))}"
        )
        records, writes = [], {}
        sizes = sorted({args.in_memory_m, args.m})
        for m in sizes:
            path, writes[m] = ensure_zarr(client, m, n, chunk, seed, args.data)
            A, y, _ = read_zarr(path)
            Xt, yt = held_out_chunk("linear_large", m, chunk, seed, n_features=n)
            for solver in args.solvers if m == args.in_memory_m else args.large_solvers:
                nu = args.nu_times_m / m
                rec = solve_dask(
                    client, A, y, solver, nu, args.max_iter, Xt, yt, f"dask {solver} m={m:.0e}"
                )
                rec.update(
                    where="dask-zarr",
                    solver=solver,
                    m=m,
                    n=n,
                    nu=nu,
                    chunk_rows=chunk,
                    data_bytes=8 * m * n + m,
                    worker_memory_limit=args.worker_memory,
                    blas=next(iter(blas.values())),
                )
                records.append(rec)
                print_record(rec)
        for solver in args.solvers:
            m = args.in_memory_m
            nu = args.nu_times_m / m
            rec = in_fresh_process(
                "bench_lsvm_dask",
                "solve_in_memory",
                (solver, m, n, chunk, nu, args.max_iter, seed),
                threads=1,
            )
            rec.update(where="numpy", solver=solver, m=m, n=n, nu=nu, data_bytes=8 * m * n + 8 * m)
            records.append(rec)
            print_record(rec)
        ratios = compare(records)
        return {
            "settings": {
                "n_features": n,
                "m": args.m,
                "in_memory_m": args.in_memory_m,
                "chunk_rows": chunk,
                "seed": seed,
                "large_solvers": args.large_solvers,
                "nu_times_m": args.nu_times_m,
                "itmax": args.max_iter,
                "workers": 2,
                "threads_per_worker": 1,
                "worker_memory_limit": args.worker_memory,
                "test_points": chunk,
                "zarr_write_seconds": {str(k): v for k, v in writes.items()},
                "python": platform.python_version(),
            },
            "records": records,
            "ratios": ratios,
        }
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def print_record(rec):
    peak = rec.get("peak_worker_bytes", rec.get("peak_bytes"))
    per_pass = rec.get("seconds_per_pass")
    print(
        f"  {rec['where']:<10} {rec['solver']:<12} m={rec['m']:>11,}  {rec['seconds']:8.1f} s"
        + (f"  {rec['passes']:>4} passes  {per_pass:6.2f} s/pass" if per_pass else "")
        + f"  {rec['iterations']} iterations  accuracy {rec['accuracy']:.5f}"
        f"  peak {peak / GB:.2f} GB" + (" per worker" if "peak_worker_bytes" in rec else "")
    )


def compare(records):
    """Ratios measured in this run: per-pass time per point, and against numpy."""
    out = []
    for solver in {r["solver"] for r in records}:
        dask_rows = sorted(
            (r for r in records if r["solver"] == solver and r["where"] == "dask-zarr"),
            key=lambda r: r["m"],
        )
        mem = [r for r in records if r["solver"] == solver and r["where"] == "numpy"]
        if len(dask_rows) == 2:
            small, big = dask_rows
            out.append(
                {
                    "solver": solver,
                    "what": "dask time per pass, large m / small m",
                    "m": [small["m"], big["m"]],
                    "ratio": big["seconds_per_pass"] / small["seconds_per_pass"],
                }
            )
        if mem:
            same = [r for r in dask_rows if r["m"] == mem[0]["m"]]
            if same:
                out.append(
                    {
                        "solver": solver,
                        "what": "dask from Zarr / numpy in memory, same m",
                        "m": mem[0]["m"],
                        "ratio": same[0]["seconds"] / mem[0]["seconds"],
                        "max_abs_w_difference": float(
                            np.max(np.abs(np.subtract(same[0]["w"], mem[0]["w"])))
                        ),
                        "b_difference": abs(same[0]["b"] - mem[0]["b"]),
                    }
                )
    for r in out:
        extra = (
            f" (max |w_dask - w_numpy| = {r['max_abs_w_difference']:.1e})"
            if "max_abs_w_difference" in r
            else ""
        )
        print(f"  ratio {r['solver']}: {r['what']} = {r['ratio']:.2f}{extra}")
    return out


def exact_and_subsample(X, y, X_test, y_test, nu_times_m, gamma, components, seed):
    """On the subsample: the exact-kernel LSVM, SVC, and Nystroem + LSVM, in memory."""
    from sklearn.svm import SVC

    from ksvm.features import NystroemFeatures
    from ksvm.lsvm import LagrangianSVC, lsvm_linear_newton

    s = len(y)
    nu = nu_times_m / s
    out = []

    def batched(f):
        return np.concatenate([f(X_test[i : i + 5000]) for i in range(0, len(X_test), 5000)])

    start = time.perf_counter()
    lsvm = LagrangianSVC(kernel="rbf", gamma=gamma, nu=nu, solver="newton").fit(X, y)
    seconds = time.perf_counter() - start
    out.append(
        {
            "method": "exact-kernel LSVM (Newton)",
            "m": s,
            "nu": nu,
            "seconds": seconds,
            "iterations": lsvm.n_iter_,
            "accuracy": float(np.mean(batched(lsvm.predict) == y_test)),
        }
    )
    start = time.perf_counter()
    svc = SVC(C=nu / 2, kernel="rbf", gamma=gamma).fit(X, y)
    seconds = time.perf_counter() - start
    out.append(
        {
            "method": "SVC (hinge, C = nu/2)",
            "m": s,
            "nu": nu,
            "seconds": seconds,
            "iterations": int(svc.n_iter_[0]),
            "accuracy": float(np.mean(batched(svc.predict) == y_test)),
        }
    )
    start = time.perf_counter()
    nys = NystroemFeatures(n_components=components, gamma=gamma, random_state=seed).fit(X)
    r = lsvm_linear_newton(nys.transform(X), y, nu)
    seconds = time.perf_counter() - start
    scores = batched(nys.transform) @ r.w + r.b
    out.append(
        {
            "method": "Nystroem + LSVM (Newton)",
            "m": s,
            "nu": nu,
            "seconds": seconds,
            "iterations": r.n_iter,
            "accuracy": float(np.mean(np.where(scores >= 0, 1, -1) == y_test)),
        }
    )
    for rec in out:
        print(
            f"  subsample  {rec['method']:<28} m={s:>7,}  {rec['seconds']:7.2f} s  "
            f"{rec['iterations']} iterations  accuracy {rec['accuracy']:.5f}"
        )
    return out


def nystroem(args):
    import dask

    from ksvm.lsvm.dask_data import make_chunked
    from ksvm.lsvm_dask import nystroem_features

    m, chunk, seed = args.m, args.chunk, args.seed
    client, cluster = start_client(args)
    try:
        blas = next(iter(client.run(blas_setting).values()))
        print(f"workers: 2 x 1 thread, memory limit {args.worker_memory}; BLAS: {blas}")
        X, y = make_chunked("checkerboard", m, chunk_size=chunk, seed=seed)
        X_test, y_test = held_out_chunk("checkerboard", m, chunk, seed)
        X_test, y_test = X_test[:200_000], y_test[:200_000]
        start = time.perf_counter()
        Phi, nys = nystroem_features(X, args.components, gamma=args.gamma, random_state=seed)
        landmark_seconds = time.perf_counter() - start
        records = []
        for solver in args.solvers:
            nu = args.nu_times_m / m
            rec = solve_dask(
                client,
                Phi,
                y,
                solver,
                nu,
                args.max_iter,
                X_test,
                y_test,
                f"nystroem {solver} m={m:.0e}",
                transform=nys.transform,
            )
            rec.update(
                where="dask-generated",
                method=f"Nystroem per chunk + LSVM ({solver})",
                solver=solver,
                m=m,
                D=args.components,
                nu=nu,
                chunk_rows=chunk,
                rank=int(nys.rank_),
                blas=blas,
            )
            records.append(rec)
            print_record(rec)
        Xs, ys = dask.compute(X[: args.subsample], y[: args.subsample])
        records += exact_and_subsample(
            Xs, ys, X_test, y_test, args.nu_times_m, args.gamma, args.components, seed
        )
        return {
            "settings": {
                "gamma": args.gamma,
                "components": args.components,
                "chunk_rows": chunk,
                "seed": seed,
                "nu_times_m": args.nu_times_m,
                "test_points": len(y_test),
                "subsample": args.subsample,
                "workers": 2,
                "threads_per_worker": 1,
                "worker_memory_limit": args.worker_memory,
                "landmark_seconds": landmark_seconds,
                "python": platform.python_version(),
            },
            "records": records,
        }
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=["out-of-core", "nystroem"])
    parser.add_argument("--m", type=int, default=None)
    parser.add_argument("--in-memory-m", type=int, default=10_000_000)
    parser.add_argument("--chunk", type=int, default=1_000_000)
    parser.add_argument("--nu-times-m", type=float, default=1000.0)
    parser.add_argument("--max-iter", type=int, default=1000)
    parser.add_argument(
        "--solvers", nargs="+", default=["newton", "fixed-point"], choices=["newton", "fixed-point"]
    )
    parser.add_argument(
        "--large-solvers",
        nargs="+",
        default=["newton"],
        choices=["newton", "fixed-point"],
        help="the solvers run out of core at --m (Code 2 makes about a hundred "
        "passes at nu = 1000/m: most of an hour at 1e8 on this machine)",
    )
    parser.add_argument("--components", type=int, default=100)
    parser.add_argument("--gamma", type=float, default=100.0)
    parser.add_argument("--subsample", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worker-memory", default="3GB")
    parser.add_argument(
        "--data",
        default=str(Path(__file__).resolve().parent / "data"),
        help="where the Zarr arrays are written once (about 8 GB at 1e8; not in git)",
    )
    parser.add_argument("--scheduler", default=None)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    Path(args.data).mkdir(parents=True, exist_ok=True)
    if args.part == "out-of-core":
        args.m = args.m or 100_000_000
        key, result = "out_of_core", out_of_core(args)
    else:
        args.m = args.m or 10_000_000
        key, result = "nystroem", nystroem(args)
    previous = json.loads(args.output.read_text()) if args.output.exists() else {}
    previous[key] = result
    args.output.write_text(json.dumps(previous, indent=1) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
