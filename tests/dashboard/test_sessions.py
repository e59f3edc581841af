"""A session that leaves: its work is cancelled after a grace period; the last one out
empties what the server keeps (rmsc.dashboard.sessions), with an injected clock."""

import threading
import time

from rmsc import dashboard as dash
from tests.support import THREAD_WAIT


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def waiting_task(job):
    """Runs until cancelled (checks every 10 ms), at most 20 s."""
    for _ in range(2000):
        job.check()
        time.sleep(0.01)
    return "finished"


def wait_for(job, seconds=THREAD_WAIT):
    assert job.wait(seconds), "the job did not end"
    return job.state


def test_a_session_gone_past_the_grace_has_its_work_cancelled_others_keep_theirs():
    clock, registry = Clock(), dash.JobRegistry()
    book = dash.SessionBook(grace=30, clock=clock)
    slots = {s: dash.JobSlot(registry) for s in ("a", "b", "c")}
    jobs = {s: slots[s].submit(f"fit-{s}", waiting_task) for s in "ab"}
    shared = slots["c"].submit("fit-a", waiting_task)  # c watches a's fit (same key)
    assert shared is jobs["a"]
    for s, slot in slots.items():
        book.register(s, [slot])
    connected = {"a": True, "b": True, "c": True}

    def is_active(s):
        return connected[s]

    connected["a"] = connected["b"] = False
    clock.t = 29.0  # within the grace: nothing is cancelled
    out = book.sweep(is_active)
    assert out.gone == [] and out.cancelled == 0 and len(book) == 3
    assert jobs["a"].active and not jobs["a"].cancelled and jobs["b"].active

    connected["a"] = True  # a came back (a network blip) ...
    book.sweep(is_active)
    connected["a"] = False  # ... and leaves again at t = 29
    clock.t = 31.0  # b has been gone 31 s, a only 2 s
    out = book.sweep(is_active)
    assert out.gone == ["b"] and out.cancelled == 1 and not out.idle
    assert wait_for(jobs["b"]) == dash.CANCELLED
    assert "b" not in book and "a" in book and jobs["a"].active
    assert slots["b"].current is None and slots["b"].queued is None  # results dropped

    clock.t = 60.0  # a gone 31 s: released, but c still watches the same run
    out = book.sweep(is_active)
    assert out.gone == ["a"] and out.cancelled == 1 and not out.idle
    assert jobs["a"].active and not jobs["a"].cancelled  # a cancel is flagged at once
    slots["c"].cancel()
    assert wait_for(jobs["a"]) == dash.CANCELLED


def test_a_gone_sessions_finished_results_are_dropped_and_it_can_fit_again():
    clock = Clock()
    book = dash.SessionBook(grace=5, clock=clock)
    slot = dash.JobSlot()
    done = slot.submit("fit", lambda job: "result")
    assert wait_for(done) == dash.DONE and slot.current.result == "result"
    book.register("s", [slot])
    clock.t = 6
    out = book.sweep(lambda s: False)
    assert out.gone == ["s"] and out.cancelled == 0 and slot.current is None
    again = slot.submit("fit", lambda job: "again")  # the session came back
    assert wait_for(again) == dash.DONE and again.result == "again"


def test_the_last_session_out_calls_on_idle_once_until_another_arrives():
    clock = Clock()
    book = dash.SessionBook(grace=5, clock=clock)
    calls = []
    connected = {}
    assert not book.sweep(connected.get, lambda: calls.append(1)).idle  # never busy: not idle
    for s in ("x", "y"):
        connected[s] = True
        book.register(s, [dash.JobSlot()])
    connected["x"] = False
    clock.t = 10
    out = book.sweep(connected.get, lambda: calls.append(clock.t))
    assert out.gone == ["x"] and not out.idle and calls == []
    connected["y"] = False
    clock.t = 20
    out = book.sweep(connected.get, lambda: calls.append(clock.t))
    assert out.gone == ["y"] and out.idle and calls == [20]
    clock.t = 30
    assert not book.sweep(connected.get, lambda: calls.append(clock.t)).idle
    assert calls == [20]
    connected["z"] = True
    book.register("z", [dash.JobSlot()])
    connected["z"] = False
    clock.t = 40
    assert book.sweep(connected.get, lambda: calls.append(clock.t)).idle
    assert calls == [20, 40]


def test_a_failing_check_or_on_idle_does_not_stop_the_sweeps():
    clock = Clock()
    book = dash.SessionBook(grace=0, clock=clock)
    book.register("s", [dash.JobSlot()])

    def broken(_):
        raise RuntimeError("runtime gone")

    assert book.sweep(broken).gone == [] and "s" in book  # cannot tell: kept

    def bad_idle():
        raise OSError("cluster gone")

    clock.t = 1
    assert book.sweep(lambda s: False, bad_idle).idle  # the failure is logged, not raised


def test_the_sweeper_thread_sweeps_until_halted():
    book = dash.SessionBook(grace=0)
    book.register("s", [dash.JobSlot()])
    idle = threading.Event()
    sweeper = dash.Sweeper(book, lambda s: False, idle.set, period=0.01)
    sweeper.start()
    assert idle.wait(THREAD_WAIT) and len(book) == 0
    sweeper.halt.set()
    sweeper.join(THREAD_WAIT)
    assert not sweeper.is_alive()


def test_trim_memory_returns_freed_heap_to_the_os():
    import gc

    import psutil

    proc = psutil.Process()
    assert dash.trim_memory()  # glibc: malloc_trim ran
    before = proc.memory_info().rss
    # 400 MB of heap blocks, each followed by a small survivor: once the blocks are freed
    # the heap cannot shrink from its top, so free() alone keeps every page resident
    blocks, survivors = [], []
    for _ in range(6400):
        blocks.append(bytearray(64 * 1024))
        survivors.append(bytearray(2000))
    grown = proc.memory_info().rss
    del blocks
    gc.collect()
    freed = proc.memory_info().rss
    assert dash.trim_memory()
    after = proc.memory_info().rss
    assert grown - before > 300 * 2**20
    assert freed - before > 0.75 * (grown - before)  # freed, but still resident
    assert after - before < 0.25 * (grown - before)  # handed back to the OS
    assert len(survivors) == 6400


def test_while_no_session_is_left_the_heap_is_trimmed_every_quiet_period():
    clock = Clock()
    book = dash.SessionBook(grace=0, clock=clock)
    quiet = []
    sweeper = dash.Sweeper(book, lambda s: s == "here", on_quiet=lambda: quiet.append(clock.t),
                           quiet_period=60, clock=clock)
    book.register("here", [dash.JobSlot()])
    for t in (0, 70, 140):  # a session is connected: never
        clock.t = t
        sweeper.tick()
    assert quiet == []
    book.register("gone", [dash.JobSlot()])
    sweeper.is_active = lambda s: False
    for t in (150, 160, 200, 209, 210, 260, 270):
        clock.t = t
        sweeper.tick()
    assert len(book) == 0 and quiet == [210, 270]  # first due 60 s after the book emptied


def test_what_streamlit_keeps_of_expired_sessions_is_released_with_what_it_holds(monkeypatch):
    # Streamlit stores a disconnected session for its reconnection TTL and then never shuts it
    # down: the session stays in the store until the store's next write, and its download
    # buttons' callables (closures over the page's variables, a whole fit) and uploads stay
    # registered. Here with Streamlit's own session store, media and upload managers.
    import gc
    import weakref

    from streamlit.runtime import media_file_manager as mfm
    from streamlit.runtime.caching.ttl_cache import TTLCache
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.session_manager import SessionInfo
    from streamlit.runtime.uploaded_file_manager import UploadedFileRec

    class Fit:  # what a page's download callable and a session's state hold
        pass

    class Session:
        def __init__(self, sid):
            self.id, self.state = sid, Fit()

    media = mfm.MediaFileManager(MemoryMediaFileStorage("/media"))
    uploads = MemoryUploadedFileManager("/upload")
    fits = {}
    for sid in ("active", "stored", "expired"):
        fit = fits[sid] = Fit()
        monkeypatch.setattr(mfm, "_get_session_id", lambda sid=sid: sid)
        media.add_deferred(lambda fit=fit: b"labels", "text/csv", f"{sid}-button", "labels.csv")
        media.add(b"png bytes", "image/png", f"{sid}-image")
        uploads.add_file(sid, UploadedFileRec(f"{sid}-file", "views.mat", "application/x-matlab",
                                              b"uploaded"))
    refs = {sid: weakref.ref(fit) for sid, fit in fits.items()}
    del fits, fit

    clock = Clock()

    class SessionManager:
        _storage_lock = threading.Lock()
        _session_storage = MemorySessionStorage(ttl_seconds=120)
        active = {"active": Session("active")}

    store = SessionManager._session_storage
    store._cache = TTLCache(maxsize=128, ttl=120, timer=clock)  # Streamlit's store, our clock
    expired = Session("expired")
    state = weakref.ref(expired.state)
    store.save(SessionInfo(client=None, session=expired, script_run_count=1))  # at 0
    store.save(SessionInfo(client=None, session=Session("bare"), script_run_count=1))  # no files
    del expired
    clock.t = 60
    store.save(SessionInfo(client=None, session=Session("stored"), script_run_count=1))
    clock.t = 150  # "expired" is past its TTL, "stored" within it; no write since:
    assert "expired" in store._cache._data and store.get("expired") is None  # still held

    class Runtime:
        _session_mgr = SessionManager
        media_file_mgr = media
        uploaded_file_mgr = uploads

        @staticmethod
        def get_app_session(sid):
            if sid in SessionManager.active:
                return SessionManager.active[sid]
            info = store.get(sid)
            return None if info is None else info.session

    trims = []
    assert dash.release_expired_sessions(Runtime, lambda: trims.append(1)) == 2  # and "bare"
    assert trims == [1]  # what they held is handed back once
    gc.collect()
    assert state() is None and "expired" not in store._cache._data  # the session is freed
    assert "bare" not in store._cache._data
    assert refs["expired"]() is None  # and the fit its download callable held
    assert refs["active"]() is not None and refs["stored"]() is not None
    assert sorted(media._files_by_session_and_coord) == ["active", "stored"]
    assert sorted(uploads.file_storage) == ["active", "stored"]
    assert dash.release_expired_sessions(Runtime, lambda: trims.append(1)) == 0  # none left
    assert trims == [1]

    class Other:  # a Streamlit without these indexes: nothing to do, no error
        media_file_mgr = object()

        @staticmethod
        def get_app_session(sid):
            return None

    assert dash.release_expired_sessions(Other) == 0


def test_the_sweeper_calls_on_tick_every_sweep_and_survives_its_failure():
    book = dash.SessionBook(grace=0)
    calls = []

    def tick():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the runtime is shutting down")

    sweeper = dash.Sweeper(book, lambda s: True, on_tick=tick)
    sweeper.tick()
    sweeper.tick()
    assert calls == [1, 1]
