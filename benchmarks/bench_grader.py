"""Time the course grader on a class's worth of submissions: ``grade.py --jobs 2`` on 40 notebooks.

The 40 submissions are the four reference solutions, ten copies of each, so that every check runs
to the end (a stub fails early and would time less).  The grader runs in a fresh Python process,
as an instructor starts it, ``--repeat`` times; printed: the best wall time of the whole run,
the time per submission, and each tree's time as a ratio of the first tree's.  (CPU time is not
printed: the workers run under bubblewrap's own processes, whose children's times do not all
reach this process.)  Not a test: nothing is asserted.

    python benchmarks/bench_grader.py [--trees PATH ...] [--copies 10] [--jobs 2] [--repeat 3]
        [--json PATH]

``--trees`` grades with the graders of several checkouts of the repository (a worktree of an
earlier commit first, for a before-and-after ratio measured in one run); it defaults to this one.
The stored ``benchmarks/results/grader.json`` was written by

    python benchmarks/bench_grader.py --trees <worktree of 08ec03b> . \\
        --json benchmarks/results/grader.json
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("01_gram_mercer", "02_lsvm_linear", "03_rlsc_bordered", "04_rho1")


def run(tree, folder, jobs):
    """Wall seconds of one grading of every notebook in ``folder``."""
    files = sorted(str(p) for p in folder.glob("*.ipynb"))
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "assignments/grade.py",
            *files,
            "--jobs",
            str(jobs),
            "--json",
            str(folder / "grades.json"),
        ],
        cwd=tree,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": str(tree),
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        },
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stdout + done.stderr)
    grades = json.loads((folder / "grades.json").read_text())
    if any(g["score"] != g["total"] for g in grades):
        raise SystemExit("a reference solution did not get full marks:\n" + done.stdout)
    return wall


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--trees", type=Path, nargs="+", default=[ROOT], help="the checkouts whose graders run"
    )
    parser.add_argument(
        "--copies", type=int, default=10, help="copies of each solution (default: 10)"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    results = []
    for tree in (t.resolve() for t in args.trees):
        with tempfile.TemporaryDirectory(prefix="ksvm-bench-grader-") as folder:
            folder = Path(folder)
            for name in NAMES:
                for copy in range(args.copies):
                    shutil.copy(
                        tree / "assignments" / "solutions" / f"{name}.ipynb",
                        folder / f"{name}-{copy:02d}.ipynb",
                    )
            wall = min(run(tree, folder, args.jobs) for _ in range(args.repeat))
        count = args.copies * len(NAMES)
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True
        )
        results.append(
            dict(
                tree=str(tree),
                commit=commit.stdout.strip() or None,
                submissions=count,
                jobs=args.jobs,
                repeat=args.repeat,
                wall_s=round(wall, 2),
                wall_per_submission_s=round(wall / count, 3),
                ratio_to_first=round(wall / results[0]["wall_s"], 2) if results else 1.0,
                blas_threads=1,
            )
        )
        print(json.dumps(results[-1]))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return results


if __name__ == "__main__":
    main()
