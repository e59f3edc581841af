"""Read untrusted files in a child process, so that a reader's crash becomes a clean error.

The compiled MATLAB readers (scipy's v5 reader, the HDF5 library behind
h5py) trust the sizes written in a file; on some corrupt files they crash the
whole process instead of raising (seen: scipy segfaulting on a matrix flagged
complex without an imaginary part). An upload must never take the dashboard
down, so :func:`run_isolated` parses in a short-lived child process: a crash,
an out-of-memory kill or a hang ends only the child, and the caller gets a
:class:`DataLoadError` saying so. ``benchmarks/bench_mat_guard.py`` measures
the protection on corrupted files and the cost (about 0.05-0.1 s per file).

The child comes from a fork server (a clean process that imports the readers
once), not from forking the caller: the dashboard's server is multi-threaded,
and forking such a process is unsafe.
"""

from __future__ import annotations

import multiprocessing
import signal
import warnings

from ._errors import DataLoadError

#: Seconds a child may read before it is stopped: this, plus one second per MB of file.
TIMEOUT_BASE = 60.0

_CONTEXT = None


def _context():
    global _CONTEXT
    if _CONTEXT is None:
        methods = multiprocessing.get_all_start_methods()
        _CONTEXT = multiprocessing.get_context("forkserver" if "forkserver" in methods
                                               else "spawn")
        if _CONTEXT.get_start_method() == "forkserver":
            _CONTEXT.set_forkserver_preload(["rmsc.datasets._load"])
    return _CONTEXT


def warm_up():
    """Start the fork server now (about 2 s, once), so the first upload does not wait for it."""
    run_isolated(_echo, b"", "<warm-up>", what="test")


def _echo(raw, fname):
    return len(raw)


def _child(conn, func, raw, fname):
    try:
        out = ("ok", func(raw, fname))
    except BaseException as exc:  # noqa: BLE001 - everything goes back to the caller
        out = ("raised", exc)
    try:
        conn.send(out)
    except Exception as exc:  # e.g. an exception that does not pickle
        conn.send(("raised", DataLoadError(f"{fname}: {type(exc).__name__}: {exc}")))
    conn.close()


def run_isolated(func, raw, fname, *, what="file", timeout=None):
    """``func(raw, fname)`` in a child process; its result, or its exception re-raised here.

    Parameters
    ----------
    func : callable(bytes, str)
        A module-level function (it is pickled to the child).
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
    """
    timeout = TIMEOUT_BASE + len(raw) / 2**20 if timeout is None else float(timeout)
    try:
        ctx = _context()
        receive, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(send, func, raw, fname), daemon=True)
        proc.start()
    except OSError as exc:  # no processes here (a sandbox): read in this process instead
        warnings.warn(f"Could not start a process to read {fname} in isolation ({exc}); "
                      "reading it in this process.", RuntimeWarning, stacklevel=3)
        return func(raw, fname)
    send.close()
    status = value = None
    try:
        # Receive before joining: a large result would fill the pipe and block the child.
        if receive.poll(timeout):
            try:
                status, value = receive.recv()
            except EOFError:  # the child died before answering
                pass
        else:
            status, value = "timeout", None
    finally:
        receive.close()
        if status == "timeout":
            proc.kill()
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
    if status == "ok":
        return value
    if status == "raised":
        raise value
    if status == "timeout":
        raise DataLoadError(
            f"{fname}: reading it as a {what} file took more than {timeout:.0f} s and was "
            "stopped; the file is corrupt (or far larger than it looks)."
        )
    code = proc.exitcode
    how = (f"crashed ({signal.Signals(-code).name})" if code is not None and code < 0
           and -code in signal.valid_signals() else f"stopped (exit code {code})")
    raise DataLoadError(
        f"{fname} could not be read: the {what} reader {how} on it, so the file is corrupt "
        "or truncated (or too large for the memory available). Save it again and retry."
    )
