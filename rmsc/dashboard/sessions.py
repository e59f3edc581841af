"""What sessions leave behind: their running work cancelled, the server back to idle.

A browser tab that closes leaves its session's jobs running (a fit, a sensitivity
grid) and the results it asked for in the server's shared cache. :class:`SessionBook`
keeps, for every session of the server, the job slots it owns; :meth:`SessionBook.sweep`
(called every few seconds by the app with the runtime's "is this session still
connected?" test) cancels the work of a session that has been gone for
``grace`` seconds and drops the results its slots hold (Streamlit itself keeps a
disconnected session's state for ``server.disconnectedSessionTTL``, 2 minutes; a network
blip shorter than the grace cancels nothing; a session that comes back later simply
runs its fit again), and when the last session has gone,
calls ``on_idle`` once: the app empties the shared result cache, releases the datasets
sent to the workers and hands the server's freed memory back to the operating system
(:func:`rmsc.dask_cluster.trim_memory`), and trims it again every minute while no session is left (Streamlit
frees a disconnected session's state only after its own 2-minute TTL).

Streamlit itself never shuts down a disconnected session whose reconnection TTL ran out,
so everything its pages held (a whole fit per session) stayed (docs/measurements.md, "The
dashboard server's memory"). :func:`release_expired_sessions`
releases it every sweep and trims the heap when it has released something; its docstring
says what is kept and how it is released.

Nothing here imports streamlit; the clock is injectable for tests.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass, field

from ..dask_cluster import trim_memory

log = logging.getLogger("rmsc.dashboard")

#: Seconds a session may stay disconnected before its running work is cancelled.
GRACE_SECONDS = 30.0
#: How often the app sweeps (seconds).
SWEEP_SECONDS = 10.0


@dataclass
class Sweep:
    """What one :meth:`SessionBook.sweep` did."""

    gone: list = field(default_factory=list)      #: session ids dropped in this sweep
    cancelled: int = 0                             #: jobs released (cancelled unless shared)
    idle: bool = False                             #: True when this sweep found the last one gone


class SessionBook:
    """The server's sessions and the job slots each owns (thread-safe).

    Parameters
    ----------
    grace : float
        Seconds a session may be disconnected before its work is cancelled.
    clock : callable
        Monotonic seconds (injectable for tests).
    """

    def __init__(self, grace=GRACE_SECONDS, clock=time.monotonic):
        self.grace = float(grace)
        self.clock = clock
        self._lock = threading.Lock()
        self._slots = {}       # session id -> iterable of JobSlot
        self._last_seen = {}   # session id -> clock() when last seen connected
        self._busy = False     # something was registered since the last idle

    def register(self, session_id, slots):
        """Record (or refresh) the job slots of ``session_id``."""
        with self._lock:
            self._slots[session_id] = list(slots)
            self._last_seen[session_id] = self.clock()
            self._busy = True

    def __len__(self):
        with self._lock:
            return len(self._slots)

    def __contains__(self, session_id):
        with self._lock:
            return session_id in self._slots

    def sweep(self, is_active, on_idle=None):
        """Cancel the work of sessions gone for ``grace`` seconds; ``on_idle`` when none is left.

        ``is_active(session_id) -> bool`` says whether a session is connected now.
        ``on_idle()`` is called once each time the last session goes (not again until a
        session registers). Returns a :class:`Sweep`.
        """
        now = self.clock()
        out = Sweep()
        with self._lock:
            ids = list(self._slots)
        for sid in ids:
            try:
                active = bool(is_active(sid))
            except Exception:  # noqa: BLE001 - cannot tell: keep the session
                active = True
            with self._lock:
                if active:
                    self._last_seen[sid] = now
                    continue
                if now - self._last_seen.get(sid, now) < self.grace:
                    continue
                slots = self._slots.pop(sid, [])
                self._last_seen.pop(sid, None)
            out.gone.append(sid)
            for slot in slots:
                out.cancelled += release_slot(slot)
        with self._lock:
            out.idle = self._busy and not self._slots
            if out.idle:
                self._busy = False
        if out.gone:
            log.info("sessions gone: %d (%d jobs released)", len(out.gone), out.cancelled)
        if out.idle and on_idle is not None:
            try:
                on_idle()
            except Exception:  # noqa: BLE001 - housekeeping must not stop the sweeps
                log.warning("releasing idle memory failed", exc_info=True)
        return out


def release_slot(slot):
    """Stop watching a slot's running and queued jobs and drop its results; how many ran."""
    jobs = [j for j in (slot.current, slot.queued) if j is not None and j.active]
    slot.clear()
    return len(jobs)


def release_expired_sessions(runtime, on_release=None):
    """Free what Streamlit keeps of sessions whose reconnection time has run out.

    ``runtime`` is ``streamlit.runtime.Runtime.instance()`` (duck-typed, so this module
    needs no streamlit). Streamlit (1.67) stores a disconnected session for
    ``server.disconnectedSessionTTL`` so that it can reconnect, but when that time runs
    out it never shuts the session down:

    * the stored session (its whole session state: the page's variables, a fit; what that
      held: docs/measurements.md, "The dashboard server's memory") stays in the session manager's TTL cache, which reaps expired
      entries only on its next write; here it is reaped (``expire()``, under the
      manager's own lock);
    * its media files and download buttons' data callables (closures over the page's
      variables) stay registered with the media file manager, and its uploads with the
      uploaded-file manager; here they are released with the managers' own
      ``clear_session_refs`` / ``remove_orphaned_files`` and ``remove_session_files``,
      what ``AppSession.shutdown`` calls, for every session the runtime no longer knows.

    Sessions that are connected, or disconnected but still resumable, are untouched.
    Where a piece is missing (another Streamlit version) that step does nothing.
    When any session was released, ``on_release()`` is called (the dashboard passes
    :func:`trim_memory`, so that what they held goes back to the OS at once, not at the
    next quiet-time trim). Returns how many sessions were released (reaped from the store
    or their files freed).
    """
    mgr = getattr(runtime, "_session_mgr", None)
    stored = getattr(getattr(mgr, "_session_storage", None), "_cache", None)
    reaped = set()
    if callable(getattr(stored, "expire", None)):
        with getattr(mgr, "_storage_lock", None) or contextlib.nullcontext():
            reaped = {key for key, _ in stored.expire() or ()}  # the removed (key, value)s
    media = runtime.media_file_mgr
    uploads = getattr(runtime, "uploaded_file_mgr", None)
    ids = set(getattr(media, "_files_by_session_and_coord", None) or ())
    ids |= set(getattr(uploads, "file_storage", None) or ())
    gone = [sid for sid in ids if runtime.get_app_session(sid) is None]
    for sid in gone:
        media.clear_session_refs(sid)
        if uploads is not None:
            uploads.remove_session_files(sid)
    if gone:
        media.remove_orphaned_files()
    released = reaped | set(gone)
    if released:
        log.info("%d expired sessions released", len(released))
        if on_release is not None:
            on_release()
    return len(released)


#: While no session is left, how often the server trims its heap again: Streamlit drops a
#: disconnected session's state only after ``server.disconnectedSessionTTL`` (2 minutes), so
#: what it held is freed after the idle moment itself.
IDLE_TRIM_SECONDS = 60.0


class Sweeper(threading.Thread):
    """A daemon thread calling ``book.sweep(is_active, on_idle)`` and ``on_tick()`` (e.g.
    :func:`release_expired_sessions`) every ``period`` seconds, and ``on_quiet()`` (default
    :func:`trim_memory`) every ``quiet_period`` seconds while no session is registered."""

    def __init__(self, book, is_active, on_idle=None, period=SWEEP_SECONDS, on_quiet=None,
                 quiet_period=IDLE_TRIM_SECONDS, clock=time.monotonic, on_tick=None):
        super().__init__(name="rmsc-session-sweeper", daemon=True)
        self.book, self.is_active, self.on_idle = book, is_active, on_idle
        self.on_tick = on_tick
        self.on_quiet = trim_memory if on_quiet is None else on_quiet
        self.period, self.quiet_period = float(period), float(quiet_period)
        self.clock = clock
        self.halt = threading.Event()
        self._quiet_at = None

    def tick(self):
        """One sweep, ``on_tick()``, and the quiet-time call when it is due."""
        self.book.sweep(self.is_active, self.on_idle)
        if self.on_tick is not None:
            try:
                self.on_tick()
            except Exception:  # noqa: BLE001 - housekeeping must not stop the sweeps
                log.debug("sweep-time call failed", exc_info=True)
        if len(self.book):
            self._quiet_at = None
            return
        now = self.clock()
        if self._quiet_at is None:
            self._quiet_at = now + self.quiet_period
        elif now >= self._quiet_at:
            self._quiet_at = now + self.quiet_period
            try:
                self.on_quiet()
            except Exception:  # noqa: BLE001 - housekeeping must not stop the sweeps
                log.debug("quiet-time call failed", exc_info=True)

    def run(self):
        while not self.halt.wait(self.period):
            self.tick()
