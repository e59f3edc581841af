"""Read untrusted files in a child program, so that a reader's crash becomes a clean error.

The compiled MATLAB readers (scipy's v5 reader, the HDF5 library behind
h5py) trust the sizes written in a file; on some corrupt files they crash the
whole process instead of raising (seen: scipy segfaulting on a matrix flagged
complex without an imaginary part). An upload must never take the dashboard
down, so :func:`run_isolated` parses in a child process: a crash, an
out-of-memory kill or a hang ends only the child, and the caller gets a
:class:`DataLoadError` saying so. ``docs/studies/bench_mat_guard.py`` measures
the protection on corrupted files and the cost.

The child is a program of its own, ``python -m rmsc.datasets._isolate``,
started with :mod:`subprocess`: requests (which reader, the file's bytes) go in
on its stdin, results come back pickled on its stdout, and its stderr goes to
a temporary file (quoted when it fails to start). It never imports the
caller's ``__main__``: a child from multiprocessing's fork server or spawn
does, so a script without an ``if __name__ == "__main__"`` guard ran its body
twice, and ``python - < script.py`` or an interactive session could not start
one at all. Nor is the caller forked (the dashboard's server is
multi-threaded, and forking such a process is unsafe).

A child serves one request at a time and stays for the next (it imports its
readers once, the slow part; docs/measurements.md, "MATLAB files read in a child
process"), so an
idle one is kept (:data:`KEEP_IDLE`); concurrent callers get a child each. A
child that crashed or ran out of time is not reused. After each file a child
hands its freed heap back to the system (``malloc_trim``), so an idle one
holds little memory. A child ends when its stdin closes, so none outlives the
caller.

Protocol (both ways, frames of an 8-byte little-endian length and a payload):
the child first sends a pickled ``("ready", pid, [])``; each request is a pickled
``(module, qualname, fname, sys_path)`` frame followed by a frame of the raw
bytes; each answer is a pickled ``(status, value, warnings)`` with status
``"ok"`` (value: the result) or ``"raised"`` (value: the exception), and the
warnings the reader emitted as ``(category, message)`` pairs, re-emitted in
the caller as an in-process read would have.
"""

from __future__ import annotations

import atexit
import importlib
import os
import pickle
import selectors
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

from ._errors import DataLoadError

#: Seconds a child may read before it is stopped: this, plus one second per MB of file.
TIMEOUT_BASE = 60.0
#: Seconds a child may take to start (import its readers) before it counts as broken.
START_TIMEOUT = 120.0
#: Idle children kept for the next request.
KEEP_IDLE = 1

_HEADER = struct.Struct("<Q")
_PROTOCOL = pickle.HIGHEST_PROTOCOL


class _StartError(OSError):
    """The child program could not be started (not: the file crashed it)."""


def _package_root():
    """The folder holding the ``rmsc`` package this module belongs to."""
    return str(Path(__file__).resolve().parents[2])


class _Child:
    """One reader program and its pipes."""

    def __init__(self):
        if os.name != "posix":  # waits on pipes with selectors and reads them with os.readv
            raise _StartError(f"reading in a child program needs a POSIX system, not {os.name}")
        self.log = tempfile.TemporaryFile()
        env = dict(os.environ)
        # The child imports the same rmsc as this process (also when this one found it
        # through a sys.path entry, e.g. a script in a source checkout).
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (_package_root(), env.get("PYTHONPATH")) if p)
        exe = sys.executable
        if not exe:
            raise _StartError("sys.executable is not set, so no Python program can be started")
        try:
            self.proc = subprocess.Popen(
                [exe, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self.log, env=env, cwd=_package_root())
        except OSError as exc:
            self.log.close()
            raise _StartError(str(exc)) from None
        self.pid = os.getpid()  # the process that owns the pipes
        for pipe in (self.proc.stdin, self.proc.stdout):
            _widen(pipe)
        try:
            status, value, _ = self._receive(time.monotonic() + START_TIMEOUT)
        except (_Died, _TimedOut) as exc:
            self.kill()
            raise _StartError(f"the reader program did not start ({exc}){self.stderr_tail()}")\
                from None
        if status != "ready":
            self.kill()
            raise _StartError(f"the reader program answered {status!r} instead of ready")

    # -- pipes --------------------------------------------------------------------------

    def _send(self, *payloads):
        try:
            for data in payloads:
                self.proc.stdin.write(_HEADER.pack(len(data)))
                self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise _Died() from None

    def _receive(self, deadline):
        """One frame from the child, unpickled; _Died on EOF, _TimedOut after ``deadline``."""
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            head = self._read_into(fd, sel, bytearray(_HEADER.size), deadline)
            body = self._read_into(fd, sel, bytearray(_HEADER.unpack(head)[0]), deadline)
        return pickle.loads(body)

    @staticmethod
    def _read_into(fd, sel, buf, deadline):
        view, got = memoryview(buf), 0
        while got < len(buf):
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                raise _TimedOut()
            n = os.readv(fd, [view[got:]])  # one read, into place
            if not n:
                raise _Died()
            got += n
        return buf

    # -- use ----------------------------------------------------------------------------

    def call(self, func, raw, fname, timeout):
        path = [os.path.abspath(p) for p in sys.path]  # '' (the working folder) included
        header = pickle.dumps((func.__module__, func.__qualname__, fname, path),
                              protocol=_PROTOCOL)
        deadline = time.monotonic() + timeout
        try:  # the log keeps this request's stderr only (the child shares its offset)
            self.log.seek(0)
            self.log.truncate()
        except OSError:
            pass
        self._send(header, raw)
        return self._receive(deadline)

    def alive(self):
        return self.pid == os.getpid() and self.proc.poll() is None

    def exit_code(self):
        try:
            return self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.proc.returncode

    def stderr_tail(self, limit=2000):
        try:
            self.log.seek(0)
            text = self.log.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return f": {text[-limit:]}" if text else ""

    def close(self):
        """End the child: EOF on its stdin (it exits), killed if it does not."""
        if self.pid != os.getpid():  # a forked copy of the caller: the pipes are not ours
            return
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(2)
        except subprocess.TimeoutExpired:
            self.kill()
        self._close_files()

    def kill(self):
        try:
            self.proc.kill()
            self.proc.wait()
        except OSError:
            pass
        self._close_files()

    def _close_files(self):
        for f in (self.proc.stdin, self.proc.stdout, self.log):
            try:
                f.close()
            except (OSError, ValueError):
                pass


def _widen(pipe, size=1 << 20):
    """A 1 MB pipe buffer instead of 64 KB (Linux; elsewhere as it is): fewer switches
    between the two processes on a large file."""
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except (ImportError, OSError):
        pass


class _Died(Exception):
    pass


class _TimedOut(Exception):
    pass


_LOCK = threading.Lock()
_IDLE: list = []


def _take():
    with _LOCK:
        while _IDLE:
            child = _IDLE.pop()
            if child.alive():
                return child
            if child.pid == os.getpid():
                child.kill()
    return _Child()


def _give_back(child):
    if child.alive():
        with _LOCK:
            if len(_IDLE) < KEEP_IDLE:
                _IDLE.append(child)
                return
    child.close()


@atexit.register
def shutdown():
    """End the idle children (they also end by themselves when this process exits)."""
    with _LOCK:
        children, _IDLE[:] = list(_IDLE), []
    for child in children:
        child.close()


def warm_up():
    """Start a reader now (its imports, once), so the first file does not wait for it."""
    _give_back(_take())


def _check_importable(func):
    module = getattr(func, "__module__", None)
    qualname = getattr(func, "__qualname__", "")
    if not module or module == "__main__" or "<" in qualname:
        raise ValueError(
            f"run_isolated needs a module-level function of an importable module (the child "
            f"program imports it by name); got {func!r} from {module!r}. Define it in a "
            "module, not in the running script or inside another function."
        )


def run_isolated(func, raw, fname, *, what="file", timeout=None):
    """``func(raw, fname)`` in a child program; its result, or its exception re-raised here.

    Parameters
    ----------
    func : callable(bytes, str)
        A module-level function of an importable module (the child imports it by
        ``func.__module__`` and ``func.__qualname__``; this process's ``sys.path``
        is available to it). Its result and exceptions must pickle.
    raw : bytes
    fname : str
        The file's name, for messages.
    what : str
        The reader's name in messages ("MATLAB v5").
    timeout : float or None
        Seconds before the child is stopped; default :data:`TIMEOUT_BASE` plus a
        second per MB.

    Raises
    ------
    DataLoadError
        When the child crashed, was killed or ran out of time (and whatever
        ``func`` raised, re-raised unchanged).

    Warns
    -----
    RuntimeWarning
        When no child program can be started here (no ``sys.executable``, no
        processes allowed): ``func`` then runs in this process.
    """
    _check_importable(func)
    raw = bytes(raw)
    timeout = TIMEOUT_BASE + len(raw) / 2**20 if timeout is None else float(timeout)
    try:
        child = _take()
    except _StartError as exc:
        warnings.warn(f"Could not start a process to read {fname} in isolation ({exc}); "
                      "reading it in this process.", RuntimeWarning, stacklevel=3)
        return func(raw, fname)
    try:
        status, value, emitted = child.call(func, raw, fname, timeout)
    except _TimedOut:
        child.kill()
        raise DataLoadError(
            f"{fname}: reading it as a {what} file took more than {timeout:.0f} s and was "
            "stopped; the file is corrupt (or far larger than it looks)."
        ) from None
    except _Died:
        code = child.exit_code()
        child.kill()
        how = (f"crashed ({signal.Signals(-code).name})" if code is not None and code < 0
               and -code in signal.valid_signals() else f"stopped (exit code {code})")
        raise DataLoadError(
            f"{fname} could not be read: the {what} reader {how} on it, so the file is "
            "corrupt or truncated (or too large for the memory available). Save it again "
            "and retry."
        ) from None
    except BaseException:  # e.g. KeyboardInterrupt while waiting: the child is in any state
        child.kill()
        raise
    _give_back(child)
    for category, message in emitted:
        warnings.warn(message, category, stacklevel=3)
    if status == "ok":
        return value
    raise value


# ---------------------------------------------------------------------------------------
# The child program: python -m rmsc.datasets._isolate
# ---------------------------------------------------------------------------------------


def _read_exactly(stream, n):
    data = stream.read(n)
    if data is None or len(data) < n:
        raise EOFError
    return data


def _read_frame(stream):
    size = _HEADER.unpack(_read_exactly(stream, _HEADER.size))[0]
    return _read_exactly(stream, size)


def _write_frame(out, obj, fname="the file"):
    try:
        data = pickle.dumps(obj, protocol=_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - e.g. an exception that does not pickle
        status, value, emitted = obj
        error = DataLoadError(f"{fname}: {type(value).__name__}: {value}" if status == "raised"
                              else f"{fname}: the reader's result could not be sent back "
                                   f"({type(exc).__name__}: {exc})")
        data = pickle.dumps(("raised", error, emitted), protocol=_PROTOCOL)
    out.write(_HEADER.pack(len(data)))
    out.write(data)
    out.flush()


def _resolve(module, qualname, path):
    if module not in sys.modules:
        sys.path.extend(p for p in path if p not in sys.path)
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _warning_pairs(records):
    out = []
    for w in records:
        category = w.category
        try:
            pickle.dumps(category, protocol=_PROTOCOL)
        except Exception:  # noqa: BLE001 - a warning class defined out of reach
            category = RuntimeWarning
        out.append((category, str(w.message)))
    return out


def _trim_heap():
    """Give the heap's free memory back to the system (glibc; elsewhere nothing)."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _serve():
    # The protocol keeps the real stdout; anything else printing to fd 1 (a C library)
    # goes to stderr instead of into the frames.
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's to handle
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer
    _write_frame(out, ("ready", os.getpid(), []))
    while True:
        try:
            module, qualname, fname, path = pickle.loads(_read_frame(stdin))
            raw = _read_frame(stdin)
        except EOFError:  # the caller closed the pipe or exited
            return
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")  # the caller's filters decide what is shown
            try:
                func = _resolve(module, qualname, path)
                answer = ("ok", func(raw, fname))
            except BaseException as exc:  # noqa: BLE001 - everything goes back to the caller
                answer = ("raised", exc)
        del raw
        _write_frame(out, (*answer, _warning_pairs(records)), fname)
        del answer
        _trim_heap()


if __name__ == "__main__":
    _serve()
