"""Submissions that try to get marks without the answers, or to harm the grader: the catalogue.

Every attack is a student version of an assignment (or a solution, where the attack has to
survive alongside correct code) with a few lines appended to its first task cell, as a student
could write them.  Each entry says the score the submission must get and a text that its report
must show.  The first four got full marks (or a check) from the grader that ran the checks in the
submission's own kernel.
"""

import base64
import copy
import functools
import io
import json
import os
import re
import shutil
import signal
import site
import socket
import subprocess
import sys
import tempfile
import unicodedata
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import numpy as np
import pytest

from assignments import grade, sandbox, wire
from assignments.checks import Outcome

ROOT = Path(__file__).resolve().parents[1]
ESCAPE = f"/tmp/ksvm-grade-escape-{os.getpid()}"  # a file that no attack may leave behind


@dataclass
class Attack:
    code: str  # appended to the first task cell
    score: int  # the score it must get, out of 3
    shows: str  # a text its report must contain
    assignment: str = "01_gram_mercer"
    base: str = "student"  # or "solutions": the attack rides on a correct submission
    limits: sandbox.Limits = sandbox.Limits(timeout=20, grace=2)
    isolate: bool = True  # False: graded without a sandbox (--no-isolation)
    cell_id: str | None = (
        None  # if given, the code is a cell of its own with this id, after the first task cell
    )


LOOP = sandbox.Limits(timeout=1.5, grace=1)
SOLUTION = ROOT / "assignments" / "solutions" / "01_gram_mercer.ipynb"
PLANTED = (
    ROOT / "assignments" / "checks" / f"planted_{os.getpid()}"
)  # a file that no attack may create
MARK = (
    f"{600 + os.getpid() % 1000}.25"  # the argument of a `sleep` that no attack may leave running
)
LISTENER = socket.create_server(("127.0.0.1", 0))  # a port that no attack may reach
LISTENER.setblocking(False)


def _git_blob(path):
    """The git directory and the blob of ``path`` at HEAD (what a clone holds), or two empty
    strings."""
    try:
        run = functools.partial(
            subprocess.run, capture_output=True, text=True, check=True, cwd=ROOT
        )
        git = (ROOT / run(["git", "rev-parse", "--git-common-dir"]).stdout.strip()).resolve()
        return str(git), run(["git", "rev-parse", f"HEAD:{path.relative_to(ROOT)}"]).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "", ""


# Code that disarms the worker's own guard (an audit hook, in the submission's interpreter) by
# rewriting its default arguments in memory through ctypes: what follows meets only the sandbox.
# (In the sources below, a backslash at the end of a line removes that line break from the string.)
DISARM = """import ctypes, gc
for _f in gc.get_objects():
    if getattr(_f, '__name__', '') == 'guard' and getattr(_f, '__defaults__', None):
        _names = _f.__code__.co_varnames[2:2 + len(_f.__defaults__)]
        _new = {'_hidden': (), '_workdir': '/', '_isdir': (lambda p: False), \
'_process': frozenset(),
                '_native': frozenset(), '_network': frozenset()}
        _kept = list(_new.values())
        for _i, _n in enumerate(_names):
            if _n in _new:
                ctypes.c_void_p.from_address(id(_f.__defaults__) + 24 + 8 * _i).value = id(_new[_n])
"""
# Code that runs the solution cells of the notebook text _text now and after every later cell.
RUN_SOLUTION = """import json
_code = '\\n'.join(''.join(c['source']) for c in json.loads(_text)['cells'] \
if 'BEGIN SOLUTION' in ''.join(c['source']))
exec(_code)
get_ipython().events.register('post_run_cell', lambda *a: exec(_code, get_ipython().user_ns))
"""
# A descriptor of the work directory, and a working directory deep inside it: the guard, which
# resolves a path against the working directory, sees a path inside the work directory where the
# system resolves the same path through the descriptor, to a file outside.
DIR_FD = """import os
_here = os.getcwd()
_fd = os.open('.', os.O_RDONLY)
_deep = os.path.join(_here, *'abcdefghijkl')
os.makedirs(_deep)
"""
READ_THROUGH_DIR_FD = """_path = os.path.relpath({path!r}, _here)
os.chdir(_deep)
try:
    _text = os.read(os.open(_path, os.O_RDONLY, dir_fd=_fd), 1 << 24).decode()
finally:
    os.chdir(_here)
"""
WRITE_THROUGH_DIR_FD = """_path = os.path.relpath({path!r}, _here)
os.chdir(_deep)
try:
    os.write(os.open(_path, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=_fd), b'import os')
finally:
    os.chdir(_here)
"""
# The solution's blob from the repository's history: a loose object, or an entry of a pack, where
# it may be stored as a delta against another object of the pack.
READ_GIT_BLOB = """import os, struct, zlib
_git, _sha = {!r}, {!r}


def _object(pack, at):
    pack.seek(at)
    head = pack.read(1 << 20)
    kind, j = (head[0] >> 4) & 7, 1
    while head[j - 1] & 0x80:
        j += 1
    if kind != 6:
        return zlib.decompressobj().decompress(head[j:])
    c, back = head[j], head[j] & 0x7F
    while c & 0x80:
        j += 1
        c, back = head[j], ((back + 1) << 7) | (head[j] & 0x7F)
    source, delta, out, i = _object(pack, at - back), \
zlib.decompressobj().decompress(head[j + 1:]), bytearray(), 0
    for _ in range(2):
        while delta[i] & 0x80:
            i += 1
        i += 1
    while i < len(delta):
        c, i = delta[i], i + 1
        if c & 0x80:
            start = size = 0
            for k in range(7):
                if c & (1 << k):
                    start, size = (start | delta[i] << 8 * k, size) if k < 4 \
else (start, size | delta[i] << 8 * (k - 4))
                    i += 1
            out += source[start:start + (size or 0x10000)]
        else:
            out, i = out + delta[i:i + c], i + c
    return bytes(out)


_loose = os.path.join(_git, 'objects', _sha[:2], _sha[2:])
if os.path.exists(_loose):
    _raw = zlib.decompress(open(_loose, 'rb').read())
    _text = _raw[_raw.index(b'\\0') + 1:].decode()
else:
    _packs = os.path.join(_git, 'objects', 'pack')
    for _idx in [f for f in os.listdir(_packs) if f.endswith('.idx')]:
        _i = open(os.path.join(_packs, _idx), 'rb').read()
        _n = struct.unpack('>I', _i[1028:1032])[0]
        _k = next((k for k in range(_n) if _i[1032 + 20 * k:1052 + 20 * k].hex() == _sha), None)
        if _k is not None:
            with open(os.path.join(_packs, _idx[:-4] + '.pack'), 'rb') as _p:
                _text = _object(_p, \
struct.unpack('>I', _i[1032 + 24 * _n + 4 * _k:1036 + 24 * _n + 4 * _k])[0]).decode()
""".format(*_git_blob(SOLUTION))
# A process in a session of its own, started without any audited call.
FORK_EXEC = f"""import _posixsubprocess, os
_posixsubprocess.fork_exec(['/bin/sleep', '{MARK}'], [b'/bin/sleep'], True, (), None, None, \
-1, -1, -1, -1,
                           -1, -1, *os.pipe(), False, True, -1, None, None, None, -1, None, False)
"""
# The grader's process, killed through a descriptor of it (os.kill is audited, pidfd_send_signal
# is not).
PIDFD_KILL = (
    "import os, signal\nsignal.pidfd_send_signal(os.pidfd_open(os.getppid()), signal.SIGKILL)"
)


def _left_running():
    """The processes whose command line holds MARK."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and MARK.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                found.append(int(entry))
        except OSError:
            continue
    return found


CATALOGUE = {
    # IPython's hooks and its handling of exceptions, in the kernel that ran the checks
    "ipython-custom-exception-handler": Attack(
        "get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)",
        0,
        "NotImplementedError: gaussian_gram: write your code here",
    ),
    "ipython-input-transformer-blanks-the-checks": Attack(
        "get_ipython().input_transformers_cleanup.append(\n"
        "    lambda lines: ['pass\\n'] if lines and lines[0].startswith('# Check') else lines)",
        0,
        "NotImplementedError: polynomial_gram: write your code here",
    ),
    "ipython-showtraceback-silenced": Attack(
        "get_ipython().showtraceback = lambda *a, **k: None",
        0,
        "NotImplementedError: is_mercer: write your code here",
    ),
    # builtins
    "builtins-rebound": Attack(
        "import builtins\nbuiltins.NotImplementedError = builtins.AssertionError = Warning\n"
        "builtins.print = lambda *a, **k: None",
        0,
        "Warning: gaussian_gram: write your code here",
    ),
    # monkeypatching numpy, ksvm and the checks' helpers
    "numpy-monkeypatched": Attack(
        "np.allclose = lambda *a, **k: True\nnp.max = lambda *a, **k: 0.0\n"
        "np.testing.assert_allclose = lambda *a, **k: None\n"
        "gaussian_gram = polynomial_gram = lambda X, Y, *a: np.ones((len(X), len(Y)))",
        0,
        "gaussian_gram differs from ksvm.kernels.rbf_kernel",
    ),
    "ksvm-monkeypatched": Attack(
        "import ksvm.kernels\n"
        "ksvm.kernels.rbf_kernel = rbf_kernel = lambda X, Y=None, gamma=None: "
        "np.ones((len(X), len(Y)))\n"
        "gaussian_gram = lambda X, Y, gamma: np.ones((len(X), len(Y)))",
        0,
        "ksvm cannot be used while the grader runs a submission",
    ),
    "checks-helpers-monkeypatched": Attack(
        "import assignments.checks as c\nc.close = lambda *a, **k: True\n"
        "gaussian_gram = lambda X, Y, gamma: np.ones((len(X), len(Y)))",
        0,
        "No module named 'assignments'",
    ),
    # forged outputs: the kernel's printout, the grader's channel, and values that lie
    "forged-printout": Attack(
        "print('check 1 passed\\ncheck 2 passed\\ncheck 3 passed\\nscore: 3/3')",
        0,
        "NotImplementedError: gaussian_gram",
    ),
    # forged reports: newlines, escape sequences and check-like lines in what the submission says
    "forged-report-newlines-in-exceptions": Attack(
        "FORGED = ('\\n  PASS  Check 1: gaussian_gram against ksvm.kernels.rbf_kernel'\n"
        "          '\\n  PASS  Check 2: polynomial_gram against ksvm.kernels.polynomial_kernel'\n"
        "          '\\n  PASS  Check 3: is_mercer against ksvm.check_mercer\\n  score: 3/3')\n"
        "def gaussian_gram(X, Y, gamma):\n    raise ValueError('wrong' + FORGED)\n"
        "raise ValueError('oops' + FORGED)",
        0,
        "ValueError: wrong\n"
        "        |   PASS  Check 1: gaussian_gram against ksvm.kernels.rbf_kernel\n        | ",
    ),
    "forged-report-escape-sequences-in-a-cell-id": Attack(
        "raise RuntimeError('look at my id')",
        0,
        "(not a check, id x\\x1b[2K\\x0d  PASS  Check 1: gaussian_gram against "
        "ksvm.kernels.rbf_kernel\\x1b[8m)",
        cell_id="x\x1b[2K\r  PASS  Check 1: gaussian_gram against ksvm.kernels.rbf_kernel\x1b[8m",
    ),
    "forged-report-check-like-first-line": Attack(
        "# Check 2: polynomial_gram against ksvm.kernels.polynomial_kernel\x1b[2K\x1b[G"
        "  PASS  Check 2: polynomial_gram against ksvm.kernels.polynomial_kernel\x1b[8m\n"
        "print('an ordinary cell')",
        0,
        "polynomial_kernel\\x1b[2K\\x1b[G  PASS  Check 2: polynomial_gram against "
        "ksvm.kernels.polynomial_kernel\\x1b[8m' is not a check of the assignment",
        cell_id="look-alike",
    ),
    "forged-report-bidi-override": Attack(
        "raise ValueError('\u202e3/3 :erocs\u2028\u200b')",
        0,
        "(not a check, id x\\u2028  PASS  Check 1: gaussian_gram against "
        "ksvm.kernels.rbf_kernel\\u2028\\u202e3/3 :erocs  \\u200b) failed: ValueError: 3/3 :erocs",
        cell_id=(
            "x\u2028  PASS  Check 1: gaussian_gram against ksvm.kernels.rbf_kernel"
            "\u2028\u202e3/3 :erocs  \u200b"
        ),
    ),
    "forged-report-in-a-shell-command": Attack(
        "!echo \x1b[2K\x1b[G  PASS  Check 3: is_mercer against ksvm.check_mercer\x1b[8m",
        0,
        "the shell command `!echo \\x1b[2K\\x1b[G  PASS  Check 3: is_mercer against "
        "ksvm.check_mercer\\x1b[8m` was skipped",
    ),
    "forged-replies": Attack(
        "import json, os\n"
        "for fd in os.listdir('/proc/self/fd'):\n"
        "    for seq in range(1, 400):\n"
        "        try:\n"
        "            os.write(int(fd), "
        "(json.dumps({'seq': seq, 'value': {'bool': True}}) + '\\n').encode())\n"
        "        except OSError:\n"
        "            break",
        0,
        "is_mercer returned True for a matrix whose symmetric part is PSD but which is not "
        "symmetric",
    ),
    "flooded-channel": Attack(
        "import os\n"
        "for fd in os.listdir('/proc/self/fd')[3:]:\n"
        "    try:\n"
        "        os.write(int(fd), b'x' * (20 << 20))\n"
        "    except OSError:\n"
        "        pass",
        0,
        "it wrote more than 16 MB on the grader's channel",
    ),
    "forged-lying-array": Attack(
        "class LyingArray(np.ndarray):\n"
        "    __eq__ = __sub__ = __abs__ = __array_ufunc__ = lambda *a, **k: np.float64(0.0)\n"
        "gaussian_gram = lambda X, Y, gamma: np.ones((len(X), len(Y))).view(LyingArray)",
        0,
        "FAIL  Check 1: gaussian_gram",
    ),
    "forged-lying-float": Attack(
        "class Liar(float):\n"
        "    __eq__ = __ne__ = __le__ = __ge__ = __lt__ = __gt__ = lambda *a: True\n"
        "    __sub__ = __rsub__ = __abs__ = lambda *a: Liar(0.0)\n"
        "rho1 = lambda K, y: Liar(0.5)",
        0,
        "rho1 = 0.500000, expected",
        assignment="04_rho1",
    ),
    "forged-memory-measurement": Attack(
        "honest = lsvm_linear\n"
        "def lsvm_linear(X, y, nu, max_iter=100, tol=1e-5):\n"
        "    import resource, tracemalloc\n"
        "    resource.setrlimit(resource.RLIMIT_AS, "
        "(resource.getrlimit(resource.RLIMIT_AS)[1],) * 2)\n"
        "    tracemalloc.get_traced_memory = lambda: (0, 0)\n"
        "    np.diag(np.asarray(y, dtype=float)).sum()  # an n x n matrix\n"
        "    return honest(X, y, nu, max_iter=max_iter, tol=tol)",
        2,
        "lsvm_linear allocated more than 18 MB for n = 3000 points in 4 dimensions: it forms an "
        "n x n matrix",
        assignment="02_lsvm_linear",
        base="solutions",
    ),
    # checks that could fail open: NaN and inf answers, uncompared calls, answers replayed by call
    # count (a function that a later task cell defines is replaced after each cell, by an IPython
    # event)
    "nan-from-rlsc-solve-on-larger-problems": Attack(
        "def nan_on_larger_problems(K, y, lam):\n"
        "    n = len(y)\n"
        "    A = np.block([[K + lam * np.eye(n), np.ones((n, 1))], "
        "[np.ones((1, n)), np.zeros((1, 1))]])\n"
        "    solution = np.linalg.solve(A, np.append(y, 0.0))\n"
        "    return (np.full(n, np.nan), np.nan) if n > 15 "
        "else (solution[:n], float(solution[n]))\n"
        "get_ipython().events.register('post_run_cell', "
        "lambda *_: globals().update(rlsc_solve=nan_on_larger_problems))",
        1,
        "rlsc_solve returned c with",
        assignment="03_rlsc_bordered",
        base="solutions",
    ),
    "inf-and-nan-from-rlsc-solve": Attack(
        "def inf_on_larger_problems(K, y, lam):\n"
        "    n = len(y)\n"
        "    A = np.block([[K + lam * np.eye(n), np.ones((n, 1))], "
        "[np.ones((1, n)), np.zeros((1, 1))]])\n"
        "    solution = np.linalg.solve(A, np.append(y, 0.0))\n"
        "    if n > 15:\n"
        "        solution[0], solution[1] = np.inf, np.nan\n"
        "    return solution[:n], float(solution[n])\n"
        "get_ipython().events.register('post_run_cell', "
        "lambda *_: globals().update(rlsc_solve=inf_on_larger_problems))",
        1,
        "1 NaN and 1 infinite entries",
        assignment="03_rlsc_bordered",
        base="solutions",
    ),
    "nan-from-bordered-system": Attack(
        "honest = bordered_system\n"
        "def bordered_system(K, y, lam):\n"
        "    A, rhs = honest(K, y, lam)\n"
        "    return A * np.nan, rhs",
        0,
        "bordered_system returned A with",
        assignment="03_rlsc_bordered",
        base="solutions",
    ),
    "nan-w-from-lsvm-linear": Attack(
        "honest = lsvm_linear\n"
        "def lsvm_linear(X, y, nu, max_iter=100, tol=1e-5):\n"
        "    w, b, n_iter = honest(X, y, nu, max_iter=max_iter, tol=tol)\n"
        "    return np.full_like(w, np.nan), b, n_iter",
        0,
        "lsvm_linear returned w with",
        assignment="02_lsvm_linear",
        base="solutions",
    ),
    "inf-b-from-lsvm-linear-stopped-early": Attack(
        "honest = lsvm_linear\n"
        "def lsvm_linear(X, y, nu, max_iter=100, tol=1e-5):\n"
        "    w, b, n_iter = honest(X, y, nu, max_iter=max_iter, tol=tol)\n"
        "    return w, (np.inf if max_iter < 100 else b), n_iter",
        1,
        "lsvm_linear returned b = inf",
        assignment="02_lsvm_linear",
        base="solutions",
    ),
    "garbage-from-lsvm-linear-in-its-memory-limited-call": Attack(
        "honest = lsvm_linear\n"
        "def lsvm_linear(X, y, nu, max_iter=100, tol=1e-5):\n"
        "    if len(X) == 3000:  # the call under a memory limit: "
        "answer without allocating anything\n"
        "        return np.zeros(X.shape[1]), 0.0, max_iter\n"
        "    return honest(X, y, nu, max_iter=max_iter, tol=tol)",
        2,
        "in the call under a memory limit",
        assignment="02_lsvm_linear",
        base="solutions",
    ),
    "nan-from-the-gram-functions": Attack(
        "def nan_gram(X, Y, *args):\n"
        "    return np.full((len(X), len(Y)), np.nan)\n"
        "get_ipython().events.register('post_run_cell', lambda *_: globals().update(\n"
        "    gaussian_gram=nan_gram, polynomial_gram=nan_gram))",
        1,
        "polynomial_gram returned G with",
        base="solutions",
    ),
    # the answers that the solution gives in check 3, in the order of the checks of commit 08ec03b
    "is-mercer-replays-a-table-by-call-count": Attack(
        "answers = [True, True, True, False, True, False, False, False, "
        "True, True, False, 'raise', 'raise']\n"
        "calls = []\n"
        "def replay(K, tol=1e-8):\n"
        "    answer = answers[len(calls) % len(answers)]\n"
        "    calls.append(answer)\n"
        "    if answer == 'raise':\n"
        "        raise ValueError('K must be a square matrix')\n"
        "    return answer\n"
        "get_ipython().events.register('post_run_cell', "
        "lambda *_: globals().update(is_mercer=replay))",
        2,
        "FAIL  Check 3: is_mercer",
        base="solutions",
    ),
    "rho1-replays-a-table-by-call-count": Attack(
        "honest = rho1\n"
        "answers = [0.0, 1.0, 0.5, 1.0, 0.0, 0.5, 'raise', 'raise']\n"
        "calls = []\n"
        "def rho1(K, y):\n"
        "    calls.append(1)\n"
        "    if len(calls) <= 9:  # the 4 calls of check 1 and the 5 of check 2\n"
        "        return honest(K, y)\n"
        "    answer = answers[(len(calls) - 10) % len(answers)]\n"
        "    if answer == 'raise':\n"
        "        raise ValueError('a class needs two examples')\n"
        "    return answer",
        2,
        "FAIL  Check 3: the edge cases",
        assignment="04_rho1",
        base="solutions",
    ),
    # ksvm through the back doors
    "ksvm-through-dunder-import": Attack(
        "gaussian_gram = lambda X, Y, gamma: getattr(__import__('ksvm.kernels', fromlist=['_']),\n"
        "                                           'rbf' + '_kernel')(X, Y, gamma=gamma)",
        0,
        "ModuleNotFoundError: No module named 'ksvm': ksvm cannot be used",
    ),
    "ksvm-through-importlib": Attack(
        "import importlib\n"
        "def gaussian_gram(X, Y, gamma):\n"
        "    return importlib.import_module('ksvm.kernels').rbf_kernel(X, Y, gamma=gamma)",
        0,
        "ksvm cannot be used while the grader runs a submission",
    ),
    "ksvm-from-its-source-path": Attack(
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "sys.meta_path[:] = [f for f in sys.meta_path "
        "if 'Refuse' not in getattr(f, '__name__', '')]\n"
        "from ksvm.kernels import rbf_kernel as gaussian_gram",
        0,
        "No module named 'ksvm'",
    ),  # the sandbox holds no part of the repository
    "ksvm-through-the-editable-install": Attack(
        f"import site\nsite.addsitedir({site.getsitepackages()[0]!r})\n"
        "import sys\n"
        "sys.meta_path[:] = [f for f in sys.meta_path "
        "if 'Refuse' not in getattr(f, '__name__', '')]\n"
        "from ksvm.kernels import rbf_kernel as gaussian_gram",
        0,
        "No module named 'ksvm'",
    ),
    "solution-read-from-disk": Attack(
        "import json\n"
        "nb = json.load("
        f"open({str(ROOT / 'assignments' / 'solutions' / '01_gram_mercer.ipynb')!r}))\n"
        "exec('\\n'.join(''.join(c['source']) for c in nb['cells'] "
        "if 'BEGIN SOLUTION' in ''.join(c['source'])))",
        0,
        "a submission may not use ksvm or the solutions",
    ),
    # SystemExit, os._exit, killing the kernel or the grader
    "system-exit": Attack(
        "import sys\ngaussian_gram = lambda X, Y, gamma: sys.exit(0)\nexit()\nraise SystemExit(3)",
        0,
        "SystemExit: 0",
    ),
    "os-exit": Attack(
        "import os\nos._exit(0)",
        0,
        "its process ended with exit status 0 (sys.exit, os._exit or a crash) (cell 3)",
    ),
    "kills-its-kernel": Attack(
        "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
        0,
        "its process was ended by the signal SIGKILL",
    ),
    "kills-the-grader": Attack(
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)",
        0,
        "it tried to send a signal to the process",
    ),
    # time, memory, processes, output, files, network, limits
    "endless-loop": Attack(
        "while True:\n    pass", 0, "was interrupted after the timeout of 1.5 s", limits=LOOP
    ),
    "endless-loop-deaf-to-interrupts": Attack(
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass",
        0,
        "it did not stop within 1 s of the interrupt that followed the timeout of 1.5 s",
        limits=LOOP,
    ),
    "endless-loop-in-a-graded-call": Attack(
        "def gaussian_gram(X, Y, gamma):\n    while True:\n        pass",
        0,
        "TimeoutError: gaussian_gram was interrupted after the timeout of 1.5 s",
        limits=LOOP,
    ),
    "memory-bomb": Attack(
        "blocks = [np.empty(10**7) for _ in iter(int, 1)]", 0, "90% or more of its limit of 2048 MB"
    ),
    "fork": Attack("import os\nos.fork()", 0, "it tried to start a process (os.fork)"),
    "fork-from-a-correct-submission": Attack(
        "import os\nos.fork()", 0, "it tried to start a process (os.fork)", base="solutions"
    ),
    "shell-command": Attack(
        "import subprocess\nsubprocess.run(['sh', '-c', 'echo pwned'])",
        0,
        "it tried to start a process (subprocess.Popen)",
    ),
    "huge-print": Attack("print('x' * 10**8)", 0, "it printed more than 1 MB"),
    # /tmp in the sandbox is the submission's own directory: the file stays there, and goes with it
    "file-outside-the-work-directory": Attack(
        f"open({ESCAPE!r}, 'w').write('x')", 0, "NotImplementedError: gaussian_gram"
    ),
    "file-outside-through-a-link": Attack(
        f"import os\nos.symlink({os.path.dirname(ESCAPE)!r}, 'out')\n"
        f"open('out/{os.path.basename(ESCAPE)}', 'w')",
        0,
        "NotImplementedError: gaussian_gram",
    ),
    "network": Attack(
        "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)",
        0,
        "it tried to use the network (socket.connect)",
    ),
    "raises-its-limits": Attack(
        "import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))",
        0,
        "it tried to raise a hard resource limit",
    ),
    "guard-tampered": Attack(
        "import gc\nfor f in gc.get_objects():\n    if getattr(f, '__name__', '') == 'guard':\n"
        "        f.__code__ = (lambda *a: None).__code__",
        0,
        "it tried to change the grader's guard",
    ),
    # the same harm without a sandbox (--no-isolation): the worker's guard and its seccomp filter
    "fork-same-user": Attack(
        "import os\nos.fork()", 0, "it tried to start a process (os.fork)", isolate=False
    ),
    "file-outside-same-user": Attack(
        f"open({ESCAPE!r}, 'w').write('x')", 0, f"it tried to write {ESCAPE}", isolate=False
    ),
    "kills-the-grader-same-user": Attack(
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)",
        0,
        "it tried to send a signal to the process",
        isolate=False,
    ),
    # what only the operating system's sandbox stops: the worker's guard, bypassed or disarmed
    "dir-fd-reads-the-solution": Attack(
        DIR_FD + READ_THROUGH_DIR_FD.format(path=str(SOLUTION)) + RUN_SOLUTION,
        0,
        "FileNotFoundError",
    ),
    "guard-disarmed-reads-the-solution": Attack(
        DISARM + f"_text = open({str(SOLUTION)!r}).read()\n" + RUN_SOLUTION, 0, "FileNotFoundError"
    ),
    "git-history-reads-the-solution": Attack(
        DISARM + READ_GIT_BLOB + RUN_SOLUTION, 0, "FileNotFoundError"
    ),
    "guard-disarmed-imports-ksvm": Attack(
        DISARM + f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "sys.meta_path[:] = [f for f in sys.meta_path "
        "if 'Refuse' not in getattr(f, '__name__', '')]\n"
        "from ksvm.kernels import rbf_kernel\n"
        "gaussian_gram = lambda X, Y, gamma: rbf_kernel(X, Y, gamma=gamma)",
        0,
        "No module named 'ksvm'",
    ),
    "reads-the-instructors-files": Attack(
        f"raise RuntimeError(open({str(ROOT / 'README.md')!r}).read())", 0, "FileNotFoundError"
    ),
    "process-outlives-the-grading": Attack(
        FORK_EXEC, 0, "PermissionError: [Errno 1] Operation not permitted"
    ),
    "process-outlives-the-grading-without-isolation": Attack(
        FORK_EXEC, 0, "PermissionError", isolate=False
    ),
    "guard-disarmed-shell-in-the-background": Attack(
        DISARM + f"import subprocess\nsubprocess.Popen(['/bin/sh', '-c', 'sleep {MARK} &'])",
        0,
        "PermissionError: [Errno 1] Operation not permitted",
    ),
    "pidfd-kills-the-grader": Attack(
        PIDFD_KILL, 0, "PermissionError: [Errno 1] Operation not permitted"
    ),
    "pidfd-kills-the-grader-without-isolation": Attack(
        PIDFD_KILL, 0, "PermissionError", isolate=False
    ),
    "dir-fd-writes-into-the-checks": Attack(
        DIR_FD + WRITE_THROUGH_DIR_FD.format(path=str(PLANTED)),
        3,
        "FileNotFoundError",
        base="solutions",
    ),
    "sqlite-writes-into-the-checks": Attack(
        f"import sqlite3\nsqlite3.connect(':memory:').execute(\"VACUUM INTO '{PLANTED}.db'\")",
        3,
        "OperationalError: unable to open database",
        base="solutions",
    ),
    "guard-disarmed-network": Attack(
        DISARM + "import socket\n"
        f"socket.create_connection(('127.0.0.1', {LISTENER.getsockname()[1]}), timeout=2)",
        0,
        "ConnectionRefusedError",
    ),  # the sandbox's own loopback, where nothing listens
    "disk-filled": Attack(
        "for _i in range(6):\n    open(f'fill{_i}', 'wb').write(b'x' * (60 << 20))",
        3,
        "OSError: [Errno 28] No space left on device",
        base="solutions",
    ),
}


def attacked(attack):
    folder = ROOT / "assignments" / attack.base
    nb = copy.deepcopy(nbformat.read(folder / f"{attack.assignment}.ipynb", as_version=4))
    task = next(c for c in nb.cells if c.cell_type == "code" and c.get("id", "").startswith("task"))
    if attack.cell_id is None:
        task.source += "\n" + attack.code
    else:
        cell = nbformat.v4.new_code_cell(attack.code)
        cell["id"] = (
            attack.cell_id
        )  # set after the cell is made: nbformat would refuse most of these ids
        nb.cells.insert(nb.cells.index(task) + 1, cell)
    return nb


@pytest.fixture(scope="module")
def graded():
    def run(name):
        # Each attack's checks draw from a seed of its own, so that an attack that can win only by
        # chance (a table of answers replayed in the order the cases happen to be asked) cannot make
        # the test fail once in many runs.
        attack, rng = CATALOGUE[name], np.random.default_rng(zlib.crc32(name.encode()))
        return grade.grade_notebook(
            attacked(attack), limits=attack.limits, rng=rng, isolate=attack.isolate
        )

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(CATALOGUE, pool.map(run, CATALOGUE), strict=True))


@pytest.mark.parametrize("name", CATALOGUE)
def test_attack(graded, name):
    attack, result = CATALOGUE[name], graded[name]
    report = grade.format_result(result)
    assert result.total == 3 and result.score == attack.score, report
    assert attack.shows in report, report
    assert not os.path.exists(ESCAPE)
    assert not PLANTED.exists() and not Path(f"{PLANTED}.db").exists()
    assert _left_running() == []
    with pytest.raises(BlockingIOError):
        LISTENER.accept()


def forged_lines(result, report):
    """The lines of ``report`` that start where the grader prints PASS, FAIL, note or score but are
    not the grader's own, and the characters left in it that could move the cursor, change the
    terminal or reorder the text."""
    lines = report.split("\n")
    own = {f"  {'PASS' if c.passed else 'FAIL'}  {c.name}" for c in result.checks}
    own.add(f"  score: {result.score}/{result.total}")
    forged = [
        line
        for line in lines
        if line.startswith(("  PASS", "  FAIL", "  score")) and line not in own
    ]
    forged += [line for line in lines if line.startswith("  note")][len(result.notes) :]
    hidden = [ch for ch in report if ch != "\n" and unicodedata.category(ch) in grade.ESCAPED]
    return forged, hidden


@pytest.mark.parametrize("name", CATALOGUE)
def test_no_line_of_a_report_is_forged(graded, name):
    result = graded[name]
    report = grade.format_result(result)
    assert forged_lines(result, report) == ([], []), report
    assert report.split("\n")[-1] == f"  score: {result.score}/{result.total}"


def test_the_json_keeps_what_the_submission_said(graded):
    raw = json.loads(json.dumps(graded["forged-report-escape-sequences-in-a-cell-id"].as_dict()))
    assert any(
        CATALOGUE["forged-report-escape-sequences-in-a-cell-id"].cell_id in note
        for note in raw["notes"]
    )
    raw = json.loads(json.dumps(graded["forged-report-newlines-in-exceptions"].as_dict()))
    assert raw["checks"][0]["error"].startswith("ValueError: wrong\n  PASS  Check 1: ")


def test_the_catalogue_is_complete():
    assert len(CATALOGUE) >= 12
    topics = [
        "ipython",
        "builtins",
        "numpy",
        "ksvm",
        "checks-helpers",
        "forged",
        "system-exit",
        "os-exit",
        "endless-loop",
        "memory-bomb",
        "fork",
        "huge-print",
        "file-outside",
    ]
    for topic in topics:
        assert any(name.startswith(topic) for name in CATALOGUE), topic


# Values that are not plain data never reach the checks.


@pytest.mark.parametrize(
    "forged",
    [
        {"value": {"other": "x", "repr": "y", "extra": 1}},
        {"value": {"array": "not base64!"}},
        {"value": {"scalar": "O", "value": 1}},
        {"value": {"scalar": "V8", "value": 1}},
        {"value": {"float": "1.0"}},
        {"value": {"int": True}},
        {"value": {"tuple": [{"tuple": [{"tuple": [{"tuple": [{"tuple": [{"none": None}]}]}]}]}]}},
        {"raised": {"names": "ValueError", "message": "x"}},
        {"value": {"bool": True}, "extra": 1},
    ],
)
def test_malformed_replies_are_unreadable_results(forged):
    outcome = Outcome.from_reply("f", {"seq": 1, **forged})
    assert outcome.raised == ("UnreadableResult",)
    with pytest.raises(Exception, match="could not read the result"):
        outcome.result


def _npy(array=None, header=None, cut=None, allow_pickle=False):
    buffer = io.BytesIO()
    if header is None:
        np.save(buffer, array, allow_pickle=allow_pickle)
    else:
        np.lib.format.write_array_header_1_0(buffer, header)
    return {"array": base64.b64encode(buffer.getvalue()[:cut]).decode()}


def test_pickled_object_huge_and_truncated_arrays_are_refused():
    for array in (np.array([object()]), np.array(["text"])):
        assert set(wire.encode(array)) == {"other", "repr"}
    forged = {
        "not plain numbers": _npy(np.array([{"a": 1}], dtype=object), allow_pickle=True),
        "larger than allowed": _npy(
            header={"descr": "<f8", "fortran_order": False, "shape": (10**9,)}
        ),
        "truncated or malformed": _npy(np.zeros((100, 100)), cut=300),
    }
    for match, value in forged.items():
        with pytest.raises(wire.WireError, match=match):
            wire.decode(value)


def test_an_honest_submission_without_isolation_is_marked():
    result = grade.grade_file(ROOT / "assignments" / "solutions" / "04_rho1.ipynb", isolate=False)
    assert result.score == result.total == 3 and result.notes == [grade.WITHOUT_ISOLATION], (
        grade.format_result(result)
    )
    assert result.as_dict()["isolated"] is False


@pytest.mark.parametrize("isolate", [True, False])
def test_a_forbidden_package_cannot_be_imported_and_ksvm_is_an_error_not_a_stop(isolate):
    """An assignment may forbid a package whose answer its checks compare with (sklearn.svm):
    importing it fails with a message that says why, also for a submission that removes the
    finder which says so (in the sandbox, the package's directory is empty).  Importing ksvm or
    a forbidden package is a mistake, not an attack: the cell fails and the run goes on, with or
    without isolation."""
    from assignments.sandbox import Limits, Worker

    bypass = (
        "import sys\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != '_Refuse']\n"
        "from sklearn.svm import SVC"
    )
    with Worker(
        Limits(timeout=30), hide=grade.HIDDEN, isolate=isolate, forbid=["sklearn.svm"]
    ) as w:
        replies = [w.cell(source).reply for source in ("import ksvm", "import sklearn.svm", bypass)]
        allowed = w.cell("from sklearn.model_selection import train_test_split").reply
    assert "ksvm cannot be used" in replies[0]["error"]["message"]
    assert "this assignment does not allow sklearn.svm" in replies[1]["error"]["message"]
    if isolate:
        assert "cannot import name 'SVC'" in replies[2]["error"]["message"]
    assert allowed["error"] is None


def test_ordinary_habits_do_not_stop_a_correct_submission():
    """Plots, magics, warnings and files in the working directory are not attacks."""
    nb = copy.deepcopy(
        nbformat.read(ROOT / "assignments" / "solutions" / "01_gram_mercer.ipynb", as_version=4)
    )
    nb.cells[1].source = "%matplotlib inline\n" + nb.cells[1].source
    nb.cells.append(
        nbformat.v4.new_code_cell(
            "import matplotlib.pyplot as plt\nimport tempfile, warnings\n"
            "from IPython.display import display\n"
            "G = gaussian_gram(np.eye(3), np.eye(3), 1.0)\nplt.imshow(G)\n"
            "plt.savefig('gram.png')\nplt.show()\n"
            "np.save('gram.npy', G)\ndisplay(np.load('gram.npy'))\nwarnings.warn('a warning')\n"
            "with tempfile.TemporaryDirectory() as d:\n    open(d + '/x.txt', 'w').write('x')\n"
            "%timeit -n1 -r1 gaussian_gram(G, G, 1.0)",
            id="habits",
        )
    )
    result = grade.grade_notebook(nb)
    assert result.score == result.total == 3 and result.notes == [], grade.format_result(result)


# Honest work written otherwise than the solutions: each variant replaces the sources of some
# cells of a solution (by id) and inserts new cells after others; it must keep full marks, with
# no note but one for each shell command, which the grader skips.

GRAM_HELPERS = {
    "task-gaussian": (
        "def sq_dists(A, B):\n"
        '    """All the squared distances ||A[i] - B[j]||^2, by einsum over the differences."""\n'
        "    diff = np.asarray(A, dtype=float)[:, None, :] "
        "- np.asarray(B, dtype=float)[None, :, :]\n"
        '    return np.einsum("ijk,ijk->ij", diff, diff)\n\n\n'
        "def gaussian_gram(X, Y, gamma):\n"
        "    return np.exp(-gamma * sq_dists(X, Y))"
    ),
    "task-poly": (
        "def polynomial_gram(X, Y, degree, c=1.0):\n"
        '    inner = np.einsum("ik,jk->ij", '
        "np.asarray(X, dtype=float), np.asarray(Y, dtype=float))\n"
        "    return np.power(inner + c, degree)"
    ),
    "task-mercer": (
        "def is_symmetric(K, bound):\n"
        "    return np.max(np.abs(K - K.T)) <= bound\n\n\n"
        "def is_mercer(K, tol=1e-8):\n"
        "    K = np.array(K, dtype=float)\n"
        "    if K.ndim != 2 or K.shape[0] != K.shape[1]:\n"
        '        raise ValueError(f"a Gram matrix is square, got shape {K.shape}")\n'
        "    bound = tol * max(1.0, np.max(np.abs(K)))\n"
        "    return bool(is_symmetric(K, bound) "
        "and np.linalg.eigvalsh(0.5 * (K + K.T)).min() >= -bound)"
    ),
}
LSVM_HELPERS = {
    "task": (
        "def plus(x):\n"
        "    return np.maximum(x, 0.0)\n\n\n"
        "def smw_inverse(H, nu):\n"
        '    """z -> M^{-1} z for M = I/nu + HH\', '
        'by Sherman-Morrison-Woodbury, without forming M."""\n'
        "    small = np.linalg.inv(np.eye(H.shape[1]) / nu + H.T @ H)\n"
        "    return lambda z: nu * (z - H @ (small @ (H.T @ z)))\n\n\n"
        "def lsvm_linear(X, y, nu, max_iter=100, tol=1e-5):\n"
        "    X = np.asarray(X, dtype=float)\n"
        "    y = np.asarray(y, dtype=float).ravel()\n"
        "    H = np.column_stack([X, np.ones(len(y))]) * y[:, None]\n"
        "    M_inv = smw_inverse(H, nu)\n"
        "    alpha = M_inv(np.ones(len(y)))\n"
        "    n_iter = 0\n"
        "    for n_iter in range(1, max_iter + 1):\n"
        "        M_alpha = alpha / nu + H @ (H.T @ alpha)\n"
        "        alpha, previous = M_inv(1.0 + plus(M_alpha - 1.0 - 1.9 / nu * alpha)), alpha\n"
        "        step = np.linalg.norm(alpha - previous)\n"
        '        print(f"iteration {n_iter}: ||alpha_new - alpha|| = {step:.3e}")\n'
        "        if step <= tol:\n"
        "            break\n"
        "    w_b = H.T @ alpha  # (w, b) = H'alpha\n"
        "    return w_b[:-1], float(w_b[-1]), n_iter"
    ),
}
SHELL_HABITS = ({"setup": "!pip install numpy\nimport numpy as np"}, {"setup": "%pip list"})

HONEST = {
    # name: (assignment, new sources by cell id, new cells after the cell of an id,
    #        the shell commands skipped)
    "gram-own-helpers-einsum": ("01_gram_mercer", GRAM_HELPERS, {}, []),
    "gram-helper-name-reused-after-its-check": (
        "01_gram_mercer",
        GRAM_HELPERS,
        {
            "check-1": "X = np.random.default_rng(0).normal(size=(5, 2))\n"
            "sq_dists = sq_dists(X, X)\nprint(sq_dists.round(2))"
        },
        [],
    ),
    "gram-shell-commands": ("01_gram_mercer", *SHELL_HABITS, ["!pip install numpy", "%pip list"]),
    "lsvm-own-helpers-print-every-iteration": ("02_lsvm_linear", LSVM_HELPERS, {}, []),
    "lsvm-helper-name-reused-after-the-checks": (
        "02_lsvm_linear",
        LSVM_HELPERS,
        {"check-3": "plus = plus(np.linspace(-1.0, 1.0, 5))\nprint(plus)"},
        [],
    ),
    "lsvm-shell-commands": ("02_lsvm_linear", *SHELL_HABITS, ["!pip install numpy", "%pip list"]),
    "rho1-every-kind-of-shell-command": (
        "04_rho1",
        {"setup": "%%capture\n!pip install numpy\nimport numpy as np"},
        {
            "setup": "files = !ls\n!!ls\nif True:\n    !pip install scipy\n"
            "%system echo hi\n%sx ls\n%conda list\n"
            "%matplotlib inline\nx = %timeit -o -n1 -r1 np.ones(3)",
            "task": "%%bash\necho hello",
            "check-1": "pip install numpy",
            "check-3": "%%capture\n%pip list",
        },
        [
            "!pip install numpy",
            "files = !ls",
            "!!ls",
            "!pip install scipy",
            "%system echo hi",
            "%sx ls",
            "%conda list",
            "%%bash",
            "pip install numpy",
            "%pip list",
        ],
    ),
}


def honest(name):
    assignment, sources, after, _ = HONEST[name]
    nb = copy.deepcopy(
        nbformat.read(ROOT / "assignments" / "solutions" / f"{assignment}.ipynb", as_version=4)
    )
    for cell in nb.cells:
        cell.source = sources.get(cell.get("id"), cell.source)
    for cell_id, source in after.items():
        index = next(i for i, c in enumerate(nb.cells) if c.get("id") == cell_id)
        nb.cells.insert(index + 1, nbformat.v4.new_code_cell(source, id=f"after-{cell_id}"))
    return nb


@pytest.fixture(scope="module")
def honest_graded():
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(
            zip(
                HONEST,
                pool.map(lambda name: grade.grade_notebook(honest(name)), HONEST),
                strict=True,
            )
        )


@pytest.mark.parametrize("name", HONEST)
def test_honest_variants_keep_full_marks(honest_graded, name):
    result, commands = honest_graded[name], HONEST[name][-1]
    report = grade.format_result(result)
    assert result.score == result.total == 3, report
    skipped = [
        re.fullmatch(
            r"cell \d+: the shell command `(.*)` was skipped: the grader runs no shell commands",
            note,
            re.S,
        )
        for note in result.notes
    ]
    assert all(skipped) and [m.group(1) for m in skipped] == commands, report


def test_a_shell_command_called_from_python_stops_the_submission():
    """Skipping is for IPython's shell syntax, a notebook habit; a call written in Python is an
    attack."""
    attack = Attack(
        "get_ipython().system('echo pwned')", 0, "it tried to start a process", base="solutions"
    )
    result = grade.grade_notebook(attacked(attack), limits=attack.limits)
    report = grade.format_result(result)
    assert result.score == 0 and attack.shows in report, report


@pytest.mark.parametrize(
    "source, expected, commands",
    [
        (
            "!pip install numpy\nimport numpy as np",
            "pass\nimport numpy as np",
            ["!pip install numpy"],
        ),
        (
            "if True:\n    !pip install scipy\n    x = 1",
            "if True:\n    pass\n    x = 1",
            ["!pip install scipy"],
        ),
        ("!pip \\\n  install numpy\nx = 3", "pass\n\nx = 3", ["!pip \\ install numpy"]),
        ("out = !!ls -l\nfiles = !ls", "pass\npass", ["out = !!ls -l", "files = !ls"]),
        (
            "%system echo hi\n%sx ls\ny = %sx ls\n%ls",
            "pass\npass\npass\npass",
            ["%system echo hi", "%sx ls", "y = %sx ls", "%ls"],
        ),
        ("%%sh\nls", "pass", ["%%sh"]),
        ("%%script bash\nls", "pass", ["%%script bash"]),
        ("%%capture\n!pip install numpy\nx = 1", "%%capture\npass\nx = 1", ["!pip install numpy"]),
        ("pip install numpy", "pass", ["pip install numpy"]),
        ("ls -l", "pass", ["ls -l"]),
        # not shell commands: Python, other magics, text that a string or a cell magic holds
        ("ls = [1]\nls", None, []),
        ("cat(x)", None, []),
        ("%matplotlib inline\nx = %timeit -o f()\n%pip?", None, []),
        ("s = '''\n!not a command\n'''", None, []),
        ("%%writefile notes.txt\n!not a command", None, []),
        ("get_ipython().system('echo pwned')", None, []),
    ],
)
def test_shell_commands_are_found_as_ipython_finds_them(source, expected, commands):
    new, found = grade.without_shell_commands(source)
    assert found == commands
    assert new.rstrip("\n") == (source if expected is None else expected)


def test_an_endless_loop_is_interrupted_when_the_grader_was_started_ignoring_sigint():
    # A grader started in the background of a script or under nohup ignores SIGINT, and its
    # workers would inherit that across exec: the interrupt after a timeout must still work.
    attack = CATALOGUE["endless-loop"]
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        result = grade.grade_notebook(
            attacked(attack), limits=attack.limits, isolate=attack.isolate
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    report = grade.format_result(result)
    assert result.score == 0 and attack.shows in report, report


# The grader run by an ordinary user, as on an instructor's laptop: bubblewrap makes the same
# sandbox through unprivileged user namespaces.  The test switches to the user nobody, which can
# run the system's Python but not a Python under /root, so it needs root, setpriv, and a system
# Python of this version that the packages of this environment fit.

NOBODY = 65534
SYSTEM_PYTHON = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
AS_NOBODY = [
    "dir-fd-reads-the-solution",
    "guard-disarmed-reads-the-solution",
    "git-history-reads-the-solution",
    "guard-disarmed-imports-ksvm",
    "reads-the-instructors-files",
    "process-outlives-the-grading",
    "guard-disarmed-shell-in-the-background",
    "pidfd-kills-the-grader",
    "guard-disarmed-network",
    "disk-filled",
    "forged-report-newlines-in-exceptions",
    "forged-report-escape-sequences-in-a-cell-id",
    "nan-from-rlsc-solve-on-larger-problems",
    "garbage-from-lsvm-linear-in-its-memory-limited-call",
    "rho1-replays-a-table-by-call-count",
]


def _nobody_problem():
    if os.geteuid() != 0:
        return "switching to the user nobody needs root"
    if shutil.which("setpriv") is None:
        return "setpriv (util-linux) is not installed"
    if not SYSTEM_PYTHON.is_file():
        return f"there is no {SYSTEM_PYTHON} for the user nobody to run"
    return None


@pytest.mark.skipif(_nobody_problem() is not None, reason=str(_nobody_problem()))
def test_the_sandbox_holds_when_an_ordinary_user_grades():
    with tempfile.TemporaryDirectory(
        prefix="ksvm-grade-test-"
    ) as folder:  # pytest's tmp_path is root's only
        os.chmod(folder, 0o755)
        _grade_as_nobody(Path(folder))


def _grade_as_nobody(tmp_path):
    instructor = tmp_path / "instructor"  # a directory the grading user may write, as its own files
    instructor.mkdir()
    os.chown(instructor, NOBODY, NOBODY)
    planted = instructor / "planted"
    attacks = {name: CATALOGUE[name] for name in AS_NOBODY}
    attacks["dir-fd-writes-into-the-instructors-files"] = Attack(
        DIR_FD + WRITE_THROUGH_DIR_FD.format(path=str(planted)),
        3,
        "FileNotFoundError",
        base="solutions",
    )
    attacks["sqlite-writes-into-the-instructors-files"] = Attack(
        f"import sqlite3\nsqlite3.connect(':memory:').execute(\"VACUUM INTO '{planted}.db'\")",
        3,
        "OperationalError: unable to open database",
        base="solutions",
    )
    for name, attack in attacks.items():
        nbformat.write(attacked(attack), tmp_path / f"{name}.ipynb")
    names = ["01_gram_mercer", "02_lsvm_linear", "03_rlsc_bordered", "04_rho1"]
    for name in names:
        shutil.copy(
            ROOT / "assignments" / "solutions" / f"{name}.ipynb", tmp_path / f"{name}.ipynb"
        )
    shutil.copy(
        ROOT / "assignments" / "student" / "01_gram_mercer.ipynb", tmp_path / "student.ipynb"
    )
    fontlist = sandbox._matplotlib_fontlist()
    config = tmp_path / "matplotlib"
    config.mkdir()
    if fontlist is not None:
        shutil.copy(fontlist, config)
    os.chown(config, NOBODY, NOBODY)
    report = tmp_path / "grades.json"
    report.touch()
    os.chown(report, NOBODY, NOBODY)
    files = [str(tmp_path / f"{name}.ipynb") for name in [*attacks, *names, "student"]]
    start = (
        f"import sys; sys.path[:0] = {[str(ROOT), *sandbox._site_directories()]!r}; "
        "from assignments.grade import main; sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [
            "setpriv",
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            "--",
            str(SYSTEM_PYTHON),
            "-I",
            "-c",
            start,
            *files,
            "--jobs",
            "2",
            "--json",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "MPLCONFIGDIR": str(config),
            "LANG": "C.UTF-8",
        },
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = {Path(r["path"]).stem: r for r in json.loads(report.read_text())}
    assert [results[name]["score"] for name in names] == [3, 3, 3, 3]
    # the terminal report: each notebook's PASS lines and score line are the grader's own
    blocks = {}
    for line in done.stdout.split("\n"):
        if line.startswith(str(tmp_path)):
            name = Path(line.split("  [", 1)[0]).stem
            blocks[name] = []
        elif line.startswith(" "):
            blocks[name].append(line)
    assert sorted(blocks) == sorted(results)
    for name, lines in blocks.items():
        passes = [line for line in lines if line.startswith("  PASS")]
        scores = [line for line in lines if line.startswith("  score")]
        assert len(passes) == results[name]["score"] and scores == [
            f"  score: {results[name]['score']}/3"
        ], lines
    for (
        name,
        attack,
    ) in attacks.items():  # what they show: in the JSON, or escaped in the terminal report
        text = json.dumps(results[name]) + "\n".join(blocks[name])
        assert results[name]["score"] == attack.score and attack.shows in text, (name, text)
        assert results[name]["isolated"] is True
    assert results["student"]["score"] == 0
    assert not planted.exists() and not Path(f"{planted}.db").exists()
    assert _left_running() == []
    with pytest.raises(BlockingIOError):
        LISTENER.accept()


def test_without_a_sandbox_the_grader_refuses_unless_told(monkeypatch, capsys):
    monkeypatch.setattr(
        sandbox, "_sandbox", lambda: (None, "bubblewrap could not make a sandbox (a reason)")
    )
    solution = str(ROOT / "assignments" / "solutions" / "04_rho1.ipynb")
    assert grade.main([solution]) == 2
    assert "bubblewrap could not make a sandbox (a reason)" in capsys.readouterr().err
    assert grade.main([solution, "--no-isolation"]) == 0
    report = capsys.readouterr().out
    assert "graded without isolation" in report and "score: 3/3" in report


def test_packages_installed_under_tmp_are_seen_read_only(monkeypatch):
    # An environment made in /tmp (as CI makes its clone there) is bound into the sandbox's own
    # /tmp.
    with tempfile.TemporaryDirectory(prefix="ksvm-grade-site-", dir="/tmp") as site_dir:
        Path(site_dir, "ksvm_grade_probe.py").write_text("VALUE = 42\n")
        installed = sandbox._site_directories()
        monkeypatch.setattr(sandbox, "_site_directories", lambda: (*installed, site_dir))
        nb = copy.deepcopy(
            nbformat.read(ROOT / "assignments" / "solutions" / "04_rho1.ipynb", as_version=4)
        )
        nb.cells.append(
            nbformat.v4.new_code_cell(
                "import ksvm_grade_probe, os\nassert ksvm_grade_probe.VALUE == 42\n"
                f"assert os.getcwd().startswith('/tmp/') and not os.access({site_dir!r}, os.W_OK)"
            )
        )
        result = grade.grade_notebook(nb)
    assert result.score == result.total == 3 and result.notes == [], grade.format_result(result)
