"""Run one submission for the grader: its cells, then the calls that the grader asks for.

``assignments/sandbox.py`` starts this file as a script, as ``python -I -S -B worker.py ...``,
in an empty working directory.  ``-S`` means that no ``.pth`` file
of the environment is read: the packages of the environment are importable (their directory is
added below), but ``ksvm``, which is installed in editable mode through such a file, is not.

Its first act is to set its own resource limits (address space, CPU time, file size, core
dumps), before any code of the submission exists in it; a process without privileges cannot
raise them again.  Its last act before the submission's first cell is to set a seccomp filter
on itself (`forbid_processes`), which no later code can remove: no process can be started from
it, and no namespace, mount or trace of another process made.  Normally it runs in the sandbox
that ``assignments/sandbox.py`` makes, where the repository does not exist.

Nothing that this process sends is trusted.  It exists to run the submission's code and to pass
the submission's return values back as plain data (``assignments/wire.py``); the grader compares
them with its own answers in its own process.  What this process enforces on itself (the guard
below) only limits the damage a submission can do and names what it tried; the grade does not
depend on it.

The grader talks to it with one JSON object per line, on the descriptor given by ``--command-fd``:

    {"seq": 1, "op": "cell", "source": "..."}
        -> {"seq": 1, "error": null or {...}}
    {"seq": 2, "op": "call", "function": "f", "args": [...], "kwargs": {...},
     "memory": null or bytes}
        -> {"seq": 2, "value": ...} or {"seq": 2, "raised": {...}}

With ``memory``, the call runs with only that much more address space than the process has
(the grader checks the process's peak from outside afterwards).

and it answers on ``--reply-fd``.  The submission's output goes to stdout, which the grader
counts and discards.
"""

import argparse
import importlib.util
import json
import os
import resource
import signal
import sys

VIOLATION_STATUS = 86  # the exit status after the guard stopped the submission
WORKER_FILES = frozenset(
    os.path.realpath(os.path.join(os.path.dirname(__file__), name))
    for name in ("worker.py", "wire.py")
)


def _load_wire():
    """The wire module, from beside this file (the assignments package is not importable here)."""
    spec = importlib.util.spec_from_file_location(
        "ksvm_grader_wire", os.path.join(os.path.dirname(__file__), "wire.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Refuse:
    """A meta path finder with a clear message for ``import ksvm`` and for the packages that
    the assignment forbids (ksvm is not on the path anyway; the forbidden packages' directories
    are empty in the sandbox)."""

    def __init__(self, forbidden=()):
        self.forbidden = tuple(forbidden)

    def find_spec(self, name, path=None, target=None):
        if name == "ksvm" or name.startswith("ksvm."):
            raise ModuleNotFoundError(
                f"No module named {name!r}: ksvm cannot be used while the grader runs a "
                "submission; the graded functions must be written with numpy",
                name=name,
            )
        for package in self.forbidden:
            if name == package or name.startswith(package + "."):
                raise ModuleNotFoundError(
                    f"No module named {name!r}: this assignment does not allow {package}, "
                    "whose answer the checks compare with; write it yourself with numpy",
                    name=name,
                )
        return None


_PROCESS_EVENTS = frozenset(
    {
        "os.fork",
        "os.forkpty",
        "os.posix_spawn",
        "os.spawn",
        "os.exec",
        "os.system",
        "subprocess.Popen",
        "pty.spawn",
        "os.startfile",
    }
)
# Events whose arguments include paths that the submission changes: each must be in the work
# directory.
_PATH_EVENTS = frozenset(
    {
        "os.rename",
        "os.remove",
        "os.rmdir",
        "os.mkdir",
        "os.link",
        "os.chmod",
        "os.chown",
        "os.truncate",
        "os.utime",
        "os.chflags",
        "os.lchflags",
        "os.setxattr",
        "os.removexattr",
        "os.mkfifo",
        "os.mknod",
        "shutil.rmtree",
        "sqlite3.connect",
    }
)
_NETWORK_EVENTS = frozenset({"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"})
_NATIVE_EVENTS = frozenset({"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle"})
_GUARD_ATTRIBUTES = frozenset({"__code__", "__defaults__", "__kwdefaults__"})


def install_guard(workdir, hidden, report_fd):
    """Stop the submission (exit with `VIOLATION_STATUS`) when it tries what a graded notebook
    may not.

    Starting a process, writing or changing a file outside ``workdir``, opening a directory
    outside it, reading a file under one of the ``hidden`` directories (ksvm, the solutions),
    signalling another process, using the network, loading native code with ctypes, changing
    a hard resource limit, or changing the guard itself.  Before exiting, it writes the reason as
    ``{"violation": "..."}`` on ``report_fd``.

    An audit hook cannot be removed, and this one looks up nothing at run time that the
    submission could replace: every object it uses is bound as a default argument (changing a
    default is an audited event that it refuses).  It still runs in the submission's interpreter,
    so code that corrupts the interpreter can get around it; that is why nothing of the grade
    rests on it.
    """
    workdir = os.path.realpath(workdir)

    def guard(
        event,
        args,
        _workdir=workdir + os.sep,
        # bound once, when the guard is installed, like every name below
        _hidden=tuple(os.path.realpath(h) + os.sep for h in hidden),  # noqa: B008
        # the worker's own two files, which a traceback through them reads (without isolation
        # they lie in the hidden assignments directory); they hold nothing of the answers
        _own=WORKER_FILES,
        _pid=os.getpid(),  # noqa: B008
        _process=_PROCESS_EVENTS,
        _paths=_PATH_EVENTS,
        _network=_NETWORK_EVENTS,
        _native=_NATIVE_EVENTS,
        _attributes=_GUARD_ATTRIBUTES,
        _getrlimit=resource.getrlimit,
        _infinity=resource.RLIM_INFINITY,
        _write_flags=os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC,
        _realpath=os.path.realpath,
        _join=os.path.join,
        _getcwd=os.getcwd,
        _isdir=os.path.isdir,
        _fsdecode=os.fsdecode,
        _isinstance=isinstance,
        _len=len,
        _int=int,
        _str=str,
        _bytes=bytes,
        _pathlike=os.PathLike,
        _getattr=getattr,
        _frame=sys._getframe,
        _dumps=json.dumps,
        _write=os.write,
        _exit=os._exit,
        _fd=report_fd,
        _status=VIOLATION_STATUS,
        _null=os.devnull,
    ):

        def stop(reason):
            try:
                _write(_fd, (_dumps({"violation": reason}) + "\n").encode())
            finally:
                _exit(_status)

        def resolve(path):
            if not _isinstance(path, (_str, _bytes, _pathlike)):
                return None  # a file descriptor
            path = _fsdecode(path)
            return _realpath(path if path.startswith("/") else _join(_getcwd(), path))

        def inside(real):
            return (real + "/").startswith(_workdir) or real == _null

        if event == "open":
            real = resolve(args[0])
            if real is None:
                return
            flags = args[2] if _len(args) > 2 and _isinstance(args[2], _int) else 0
            mode = args[1] if _isinstance(args[1], _str) else ""
            if flags & _write_flags or "w" in mode or "a" in mode or "x" in mode or "+" in mode:
                if not inside(real):
                    stop(f"it tried to write {real}, outside its working directory")
            elif not inside(real) and _isdir(real):
                stop(f"it opened the directory {real}, outside its working directory")
            for hidden in _hidden:
                if (real + "/").startswith(hidden) and real not in _own:
                    stop(f"it tried to read {real}: a submission may not use ksvm or the solutions")
        elif event in _process:
            stop(f"it tried to start a process ({event})")
        elif event in _paths:
            for path in args:
                real = resolve(path)
                if real is not None and not inside(real):
                    stop(f"it tried to change {real} ({event}), outside its working directory")
        elif event == "os.symlink":
            real = resolve(args[1])
            if not inside(real):
                stop(f"it tried to create the link {real}, outside its working directory")
        elif event == "os.kill":
            if args[0] != _pid:
                stop(f"it tried to send a signal to the process {args[0]}")
        elif event == "os.killpg":
            stop("it tried to send a signal to a process group")
        elif event in _network:
            stop(f"it tried to use the network ({event})")
        elif event in _native:
            stop(f"it tried to load native code ({event} {args[-1]!r})")
        elif event == "resource.setrlimit" or event == "resource.prlimit":
            if event == "resource.prlimit" and args[0] not in (0, _pid):
                stop("it tried to change the resource limits of another process")
            which, limits = args[-2], args[-1]
            if limits is not None:
                new, current = limits[1], _getrlimit(which)[1]
                if current != _infinity and (new == _infinity or new > current):
                    stop(f"it tried to raise a hard resource limit ({event})")
        elif (
            event in ("object.__setattr__", "object.__delattr__")
            and args[1] in _attributes
            and _getattr(args[0], "__code__", None) is _frame(0).f_code
        ):
            stop("it tried to change the grader's guard")

    sys.addaudithook(guard)


def _freeze(value):
    if hasattr(value, "flags") and hasattr(value, "dtype"):  # an array read from the grader
        value.flags.writeable = False
    return value


def set_limits(memory, cpu, file_size):
    """Lower this process's limits: bytes of address space, seconds of CPU, bytes per file."""
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


# System calls that the seccomp filter refuses (EPERM), by machine: the process calls (clone is
# allowed for threads only, clone3 answers ENOSYS so that the C library falls back to clone),
# and what could reach beyond the process (tracing, namespaces, mounts, keys, BPF, io_uring, ...).
_SYSCALLS = {
    "x86_64": dict(
        audit_arch=0xC000003E,
        seccomp=317,
        clone=56,
        refused=dict(
            fork=57,
            vfork=58,
            execve=59,
            execveat=322,
            ptrace=101,
            process_vm_readv=310,
            process_vm_writev=311,
            unshare=272,
            setns=308,
            mount=165,
            umount2=166,
            pivot_root=155,
            chroot=161,
            keyctl=250,
            add_key=248,
            request_key=249,
            bpf=321,
            perf_event_open=298,
            userfaultfd=323,
            open_by_handle_at=304,
            name_to_handle_at=303,
            kexec_load=246,
            personality=135,
        ),
    ),
    "aarch64": dict(
        audit_arch=0xC00000B7,
        seccomp=277,
        clone=220,
        refused=dict(
            execve=221,
            execveat=281,
            ptrace=117,
            process_vm_readv=270,
            process_vm_writev=271,
            unshare=97,
            setns=268,
            mount=40,
            umount2=39,
            pivot_root=41,
            chroot=51,
            keyctl=219,
            add_key=217,
            request_key=218,
            bpf=280,
            perf_event_open=241,
            userfaultfd=282,
            open_by_handle_at=265,
            name_to_handle_at=264,
            kexec_load=104,
            personality=92,
        ),
    ),
}
_COMMON_SYSCALLS = dict(  # the same numbers on both machines
    io_uring_setup=425,
    io_uring_enter=426,
    io_uring_register=427,
    pidfd_send_signal=424,
    pidfd_open=434,
    pidfd_getfd=438,
    open_tree=428,
    move_mount=429,
    fsopen=430,
    fsconfig=431,
    fsmount=432,
    fspick=433,
    mount_setattr=442,
)


def seccomp_program(machine):
    """The classic BPF program of the filter for ``machine``, and the number of the seccomp call."""
    import errno
    import struct

    table = _SYSCALLS.get(machine)
    if table is None:
        raise OSError(f"no system call table for the machine {machine!r}")
    load, jump_equal, jump_above_equal, jump_set, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, kill = 0x7FFF0000, 0x80000000
    refuse, absent = 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS
    program = [
        (load, 0, 0, 4),
        (jump_equal, 1, 0, table["audit_arch"]),
        (ret, 0, 0, kill),
        (load, 0, 0, 0),
    ]
    if machine == "x86_64":
        program += [(jump_above_equal, 0, 1, 0x40000000), (ret, 0, 0, kill)]  # the x32 system calls
    clone_thread = 0x00010000
    program += [
        (jump_equal, 0, 4, table["clone"]),
        (load, 0, 0, 16),
        (jump_set, 0, 1, clone_thread),
        (ret, 0, 0, allow),
        (ret, 0, 0, refuse),
    ]
    program += [(jump_equal, 0, 1, 435), (ret, 0, 0, absent)]  # clone3
    for number in [*table["refused"].values(), *_COMMON_SYSCALLS.values()]:
        program += [(jump_equal, 0, 1, number), (ret, 0, 0, refuse)]
    program.append((ret, 0, 0, allow))
    return b"".join(struct.pack("HBBI", *instruction) for instruction in program), table["seccomp"]


def forbid_processes():
    """Set the seccomp filter on this process and its threads: no process can be started from
    here on."""
    import ctypes
    import platform

    code, seccomp_call = seccomp_program(platform.machine())

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    buffer = ctypes.create_string_buffer(code, len(code))
    program = Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_char_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.syscall(seccomp_call, 1, 1, ctypes.byref(program)) != 0:  # SET_MODE_FILTER, FLAG_TSYNC
        raise OSError(ctypes.get_errno(), "the seccomp filter could not be set")


def _address_space():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def _call(function, args, kwargs, memory):
    """function(*args, **kwargs), with only ``memory`` more bytes of address space if given."""
    if memory is None:
        return function(*args, **kwargs)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (min(_address_space() + int(memory), hard), hard))
    try:
        return function(*args, **kwargs)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--limits",
        type=int,
        nargs=3,
        required=True,
        metavar=("AS", "CPU", "FSIZE"),
        help="bytes of address space, seconds of CPU, bytes per file",
    )
    parser.add_argument("--fontlist", help="matplotlib's font cache, copied into MPLCONFIGDIR")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--site", nargs="*", default=[], help="directories of installed packages")
    parser.add_argument(
        "--hide", nargs="*", default=[], help="directories the submission may not read"
    )
    parser.add_argument(
        "--forbid", nargs="*", default=[], help="packages the assignment does not allow"
    )
    parser.add_argument("--command-fd", type=int, required=True)
    parser.add_argument("--reply-fd", type=int, required=True)
    args = parser.parse_args(argv)
    # The interrupt that follows a timeout must raise KeyboardInterrupt here, also when the
    # grader was started with SIGINT ignored (under nohup, in the background of a script):
    # an ignored signal stays ignored across exec.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    set_limits(*args.limits)
    if args.fontlist:  # so that matplotlib need not rebuild it (it would run fc-list)
        folder = os.environ.get("MPLCONFIGDIR")
        if folder:
            os.makedirs(folder, exist_ok=True)
            with (
                open(args.fontlist, "rb") as source,
                open(os.path.join(folder, os.path.basename(args.fontlist)), "wb") as copy,
            ):
                copy.write(source.read())

    sys.path.extend(args.site)
    wire = _load_wire()
    import numpy as np
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    class Shell(InteractiveShell):
        def enable_gui(self, gui=None):
            """No event loop here: ``%matplotlib inline`` and the like draw with Agg, or not at
            all."""

    config = Config()
    config.HistoryManager.enabled = False  # no history database, and no thread to write it
    config.InteractiveShell.colors = "NoColor"
    shell = Shell.instance(config=config)
    # Let BLAS and LAPACK make their buffers now, not inside a call whose memory is limited.
    a = np.eye(300) + 1.0
    np.linalg.solve(a, a @ a[:, :7])

    commands = os.fdopen(args.command_fd, "rb")
    reply_fd = args.reply_fd

    def reply(message):
        data = (json.dumps(message) + "\n").encode()
        while data:
            data = data[os.write(reply_fd, data) :]

    sys.meta_path.insert(0, _Refuse(args.forbid))
    forbid_processes()
    install_guard(args.workdir, args.hide, reply_fd)
    reply({"seq": 0, "ready": True})
    while True:
        seq = None
        try:
            line = commands.readline()
            if not line:
                break
            request = json.loads(line)
            seq = request["seq"]
            if request["op"] == "cell":
                result = shell.run_cell(request["source"], store_history=False)
                error = result.error_before_exec or result.error_in_exec
                answer = {
                    "seq": seq,
                    "error": wire.describe_exception(error) if error is not None else None,
                }
            elif request["op"] == "call":
                try:
                    function = shell.user_ns[request["function"]]
                except KeyError:
                    raise NameError(f"name {request['function']!r} is not defined") from None
                call_args = [_freeze(wire.decode(a)) for a in request["args"]]
                call_kwargs = {k: _freeze(wire.decode(v)) for k, v in request["kwargs"].items()}
                returned = _call(function, call_args, call_kwargs, request.get("memory"))
                answer = {"seq": seq, "value": wire.encode(returned)}
            else:
                break
        except (
            BaseException
        ) as exc:  # the submission's error, an interrupt, SystemExit: all are answers
            answer = {"seq": seq, "raised": wire.describe_exception(exc)}
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            reply(answer)
        except BaseException:  # an interrupt that came late: the next command clears it
            continue
    os._exit(0)


if __name__ == "__main__":
    main()
