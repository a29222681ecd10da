"""Run a submission in a process of its own, under limits, and talk to it as data.

`Worker` starts ``assignments/worker.py`` in a fresh working directory, sends it the
submission's cells one at a time and then the calls that the checks ask for, and reads its
answers.  What it reads is never trusted: answers are parsed as JSON, checked, and decoded as
plain data by ``assignments/wire.py``; the submission's output is counted and thrown away.

The limits:

* address space, CPU time, file size and core dumps: the worker sets them on itself as its
  first act, before any code of the submission exists in it (it cannot raise them again);
* wall-clock time for each cell or call (then SIGINT, then SIGKILL after a grace period) and
  for the whole submission, kept by this process;
* output: a submission that prints more than the limit is killed.

A call that may only use a given amount of memory runs under a lowered address-space limit
in the worker, and this process checks the worker's peak address space in ``/proc`` before and
after it: a call that went beyond the allowance fails with a ``MemoryError`` whatever the worker
answered (unless the process had already peaked that high before the call).

When the grader runs as root and ``setpriv`` (util-linux) is available, each worker also runs
under a user id of its own with no capability other than reading files: it cannot signal the
grader or another worker, write outside its directory and the world-writable ones, raise its
limits, or start a process or a thread (``RLIMIT_NPROC`` = 1 binds a user id other than root).
Files that it leaves in ``/tmp``, ``/var/tmp``, ``/dev/shm`` or ``/run/lock`` are found by owner,
removed, and reported.  Without root the worker shares the grader's user id, and only the
worker's own guard (``worker.install_guard``) stands between a hostile submission and what that
user may do.
"""

import functools
import json
import math
import os
import random
import selectors
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from assignments.wire import encode, short_text
from assignments.worker import VIOLATION_STATUS

HERE = Path(__file__).resolve().parent
WORKER = HERE / "worker.py"
MB = 1 << 20
MAX_REPLY = 16 * MB  # bytes of one answer: an array of wire.MAX_ELEMENTS floats fits, in base64
MEMORY_SLACK = 8 * MB  # address space the worker itself may take around a memory-limited call
WORLD_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
# Environment variables passed through: they choose numpy's and OpenBLAS's kernels, not what code runs.
PASSED_THROUGH = ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES")


@dataclass(frozen=True)
class Limits:
    """What a submission may use; sizes in MB, times in seconds."""

    timeout: float = 60.0  # one cell, or one call of a student's function
    time: float = 300.0  # the whole submission
    memory: int = 2048  # address space of the worker
    output: float = 1.0  # what the submission prints
    file_size: int = 64  # any one file it writes
    grace: float = 5.0  # to answer an interrupt, after a timeout


class Stopped(Exception):
    """The worker was stopped or is gone; the message says why, in the grader's words."""


@dataclass
class Answer:
    """The worker's reply to a cell or a call (untrusted data), and whether it had to be interrupted."""

    reply: dict
    interrupted: bool = False


def isolation_available():
    """Whether workers can run under a user id of their own (root, and setpriv installed)."""
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


def _process_uids():
    uids = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/status") as f:
                    for line in f:
                        if line.startswith("Uid:"):
                            uids[int(entry)] = int(line.split()[1])
                            break
            except OSError:
                continue
    return uids


def _unused_uid():
    used = set(_process_uids().values())
    chooser = random.SystemRandom()
    while True:
        uid = chooser.randrange(1 << 20, 1 << 30)
        if uid not in used:
            return uid


def _status_field(pid, field):
    """A field of /proc/<pid>/status in bytes (VmSize, VmPeak), or None."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


@functools.cache
def _site_directories():
    return tuple(p for p in site.getsitepackages() if os.path.isdir(p))


_fontlist_lock = threading.Lock()


@functools.cache
def _matplotlib_fontlist():
    """matplotlib's font cache, so that matplotlib in a worker need not run fc-list to rebuild it."""
    try:
        import matplotlib
        import matplotlib.font_manager  # noqa: F401  (builds the cache here, once, if it is missing)
    except ImportError:
        return None
    found = sorted(Path(matplotlib.get_cachedir()).glob("fontlist-v*.json"))
    return found[-1] if found else None


class Worker:
    """One submission's process.  Use as a context manager; `close` returns what was found afterwards.

    Parameters
    ----------
    limits : Limits
    hide : sequence of path-like
        Directories that the submission may not read (ksvm, the solutions).
    isolate : bool or None
        Run under a user id of its own; None means whenever `isolation_available`.
    """

    def __init__(self, limits=Limits(), hide=(), isolate=None):
        self.limits = limits
        self.hide = [str(Path(h).resolve()) for h in hide]
        self.isolate = isolation_available() if isolate is None else isolate
        if self.isolate and not isolation_available():
            raise RuntimeError("a user id of its own for each submission needs root and setpriv")
        self.uid = self.proc = self.selector = self.base = None
        self.reply_fd = self.command_fd = None
        self.seq = 0
        self.printed = 0
        self.head = b""  # the first bytes printed, to explain a worker that does not start
        self.violation = ""
        self._buffer = bytearray()  # what the worker wrote on its reply channel and was not read yet
        self._scanned = 0  # the bytes of _buffer known to hold no newline
        self._reply_closed = False
        self.started = time.monotonic()

    # -- starting and stopping

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False

    def start(self):
        self.base = Path(tempfile.mkdtemp(prefix="ksvm-grade-"))
        self.work = self.base / "work"
        self.work.mkdir()
        with _fontlist_lock:
            fontlist = _matplotlib_fontlist()
        if fontlist is not None:
            (self.work / ".matplotlib").mkdir()
            shutil.copy(fontlist, self.work / ".matplotlib" / fontlist.name)
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(self.work), "TMPDIR": str(self.work),
            "IPYTHONDIR": str(self.work / ".ipython"), "MPLCONFIGDIR": str(self.work / ".matplotlib"),
            "MPLBACKEND": "Agg", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        }
        env.update({k: os.environ[k] for k in PASSED_THROUGH if k in os.environ})
        command_read, self.command_fd = os.pipe()
        self.reply_fd, reply_write = os.pipe()
        limits = self.limits
        argv = [sys.executable, "-I", "-S", "-B", str(WORKER), "--workdir", str(self.work),
                "--limits", str(limits.memory * MB), str(math.ceil(limits.time) + 5),
                str(limits.file_size * MB), "1" if self.isolate else "0",
                "--command-fd", str(command_read), "--reply-fd", str(reply_write),
                "--site", *_site_directories(), "--hide", *self.hide]
        if self.isolate:
            self.uid = _unused_uid()
            os.chmod(self.base, 0o755)
            for path in [self.work, *self.work.rglob("*")]:
                os.chown(path, self.uid, self.uid)
            os.chmod(self.work, 0o700)
            argv = [shutil.which("setpriv"), f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                    # Reading stays allowed: the interpreter may live in a private directory (/root/.pyenv).
                    "--inh-caps=-all,+dac_read_search", "--ambient-caps=-all,+dac_read_search",
                    "--bounding-set=-all,+dac_read_search", "--no-new-privs", "--", *argv]
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, cwd=self.work, env=env,
                                         pass_fds=(command_read, reply_write), start_new_session=True)
        finally:
            os.close(command_read)
            os.close(reply_write)
        self.started = time.monotonic()
        self.out_fd = self.proc.stdout.fileno()
        for fd in (self.out_fd, self.reply_fd, self.command_fd):
            os.set_blocking(fd, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.out_fd, selectors.EVENT_READ)
        self.selector.register(self.reply_fd, selectors.EVENT_READ)
        deadline = time.monotonic() + max(60.0, self.limits.timeout)
        while True:
            line = self._next_line(deadline, "starting")
            if line is None:
                self._kill()
                raise Stopped(f"the worker did not start within {max(60.0, self.limits.timeout):g} s")
            message = _parse(line)
            if message is not None and message.get("ready") is True and message.get("seq") == 0:
                return

    def _kill(self):
        if self.proc is None:
            return
        for kill in (lambda: os.killpg(self.proc.pid, signal.SIGKILL), lambda: self.proc.kill()):
            try:
                kill()
            except (ProcessLookupError, PermissionError):
                pass
        if self.uid is not None:
            for _ in range(10):
                left = [pid for pid, uid in _process_uids().items() if uid == self.uid]
                if not left:
                    break
                for pid in left:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                time.sleep(0.01)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def close(self):
        """Stop the worker, clean up, and return what the run left behind (reasons to fail it)."""
        problems = []
        if self.proc is not None:
            peak = _status_field(self.proc.pid, "VmPeak") if self.proc.poll() is None else None
            if peak is not None and peak >= 0.9 * self.limits.memory * MB:
                problems.append(f"its address space reached {peak / MB:.0f} MB, 90% or more of its limit "
                                f"of {self.limits.memory} MB")
            self._kill()
            self.proc.stdout.close()
            self.proc = None
        if self.selector is not None:
            self.selector.close()
            self.selector = None
        for fd in (self.reply_fd, self.command_fd):
            if fd is not None:
                os.close(fd)
        self.reply_fd = self.command_fd = None
        if self.uid is not None:
            left = _remove_files_of(self.uid)
            if left:
                problems.append(f"it wrote files outside its working directory: {', '.join(left[:5])}")
        if self.base is not None:
            shutil.rmtree(self.base, ignore_errors=True)
            self.base = None
        return problems

    # -- talking

    def cell(self, source, what="a cell"):
        """Run one cell; the answer's reply holds ``error`` (None or an exception description)."""
        return self._request({"op": "cell", "source": source}, what)

    def call(self, function, args=(), kwargs=None, memory=None, what=None):
        """Call the submission's ``function``; with ``memory`` (bytes), allowing it only that much more
        address space.  A call that is seen to have used more is answered by a MemoryError."""
        message = {"op": "call", "function": function, "args": [encode(a) for a in args],
                   "kwargs": {k: encode(v) for k, v in (kwargs or {}).items()}, "memory": memory}
        what = what or f"a call of {function}"
        if memory is None:
            return self._request(message, what)
        size, peak = (_status_field(self.proc.pid, field) for field in ("VmSize", "VmPeak"))
        answer = self._request(message, what)
        after = _status_field(self.proc.pid, "VmPeak")
        if None not in (size, peak, after) and after > max(peak, size + memory + MEMORY_SLACK):
            answer.reply = {"seq": answer.reply.get("seq"), "raised": {
                "names": ["MemoryError"],
                "message": f"the process grew to {(after - size) / MB:.0f} MB more than before the call"}}
        return answer

    def _request(self, message, what):
        if self.proc is None:
            raise Stopped("the worker is not running")
        self.seq += 1
        seq = message["seq"] = self.seq
        deadline = time.monotonic() + self.limits.timeout
        self._send((json.dumps(message) + "\n").encode(), deadline, what)
        interrupted = False
        while True:
            line = self._next_line(deadline, what)
            if line is None:
                if interrupted:
                    self._kill()
                    raise Stopped(f"it did not stop within {self.limits.grace:g} s of the interrupt that "
                                  f"followed the timeout of {self.limits.timeout:g} s ({what})")
                try:
                    os.kill(self.proc.pid, signal.SIGINT)
                except ProcessLookupError:
                    pass
                interrupted = True
                deadline = time.monotonic() + self.limits.grace
                continue
            reply = _parse(line)
            if reply is not None and reply.get("seq") == seq:
                return Answer(reply, interrupted)

    def _send(self, data, deadline, what):
        while data:
            try:
                data = data[os.write(self.command_fd, data):]
                continue
            except BlockingIOError:
                pass
            except BrokenPipeError:
                raise Stopped(self._ended(what)) from None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._kill()
                raise Stopped(f"it stopped reading the grader's requests ({what})")
            with selectors.DefaultSelector() as writable:
                writable.register(self.command_fd, selectors.EVENT_WRITE)
                writable.select(min(remaining, 0.5))
            self._drain_output()

    def _next_line(self, deadline, what):
        """The next line the worker wrote on its reply channel; None at ``deadline``."""
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            self._scanned = len(self._buffer) if end < 0 else 0
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                message = _parse(line)
                if message is not None and isinstance(message.get("violation"), str) and not self.violation:
                    self.violation = short_text(message["violation"], 300)
                return line
            if self._reply_closed:
                raise Stopped(self._ended(what))
            now = time.monotonic()
            if now >= self.started + self.limits.time:
                self._kill()
                raise Stopped(f"it ran longer than the {self.limits.time:g} s allowed to a submission ({what})")
            if now >= deadline:
                return None
            timeout = min(deadline, self.started + self.limits.time) - now
            for key, _ in self.selector.select(timeout):
                self._read(key.fd, what)

    def _drain_output(self):
        for key, _ in self.selector.select(0):
            if key.fd == self.out_fd:
                self._read(key.fd, "")

    def _read(self, fd, what):
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        if fd == self.out_fd:
            if not data:
                self.selector.unregister(fd)
                return
            if len(self.head) < 4096:
                self.head += data[: 4096 - len(self.head)]
            self.printed += len(data)
            if self.printed > self.limits.output * MB:
                self._kill()
                raise Stopped(f"it printed more than {self.limits.output:g} MB ({what})")
        elif not data:
            self._reply_closed = True
            self.selector.unregister(fd)
        else:
            self._buffer += data
            if len(self._buffer) > MAX_REPLY:
                self._kill()
                raise Stopped(f"it wrote more than {MAX_REPLY // MB} MB on the grader's channel ({what})")

    def _ended(self, what):
        """Why the worker's reply channel closed, once the process has ended."""
        try:
            status = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._kill()
            status = self.proc.returncode
        if what == "starting":
            output = short_text(self.head.decode(errors="replace"), 1000)
            return f"the worker could not start (exit status {status}): {output}"
        if self.violation:
            reason = self.violation
        elif status == VIOLATION_STATUS:
            reason = f"it broke a rule of the sandbox (exit status {status})"
        elif status is not None and status < 0:
            name = signal.Signals(-status).name
            reason = {"SIGXCPU": f"it used more than its {math.ceil(self.limits.time) + 5} s of CPU time",
                      "SIGXFSZ": f"it wrote a file larger than {self.limits.file_size} MB",
                      }.get(name, f"its process was ended by the signal {name}")
        else:
            reason = f"its process ended with exit status {status} (sys.exit, os._exit or a crash)"
        return f"{reason} ({what})" if what else reason


def _parse(line):
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) else None


def _remove_files_of(uid):
    """Remove what ``uid`` owns at the top of the world-writable directories; return the paths."""
    found = []
    for directory in WORLD_WRITABLE:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                found.append(entry.path)
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                continue
    return found
