"""The walk of β from the Solve page's slider to the solver, measured: files, hops, re-entries.

    python tools/trace_walk.py                  # both sliders: β (fixed) and β_rel (auto)
    python tools/trace_walk.py --slider beta    # one of them; --hops-only: the table only

It opens the dashboard in Streamlit's AppTest on the bundled Subspaces data (results kept in
a temporary folder, prefetching off), waits for the first fit, moves the slider to a
sentinel value (added to its grid for the run) and follows that value with a profiler
(``sys.setprofile`` and ``threading.setprofile``) until Algorithm 1 takes it
(``rmsc/solver/_algorithm.py:_rule_beta``: a fixed β as given, or β = auto's rule applied to
the data). The Dask workers run as threads of this process (a ``LocalCluster`` with
``processes=False``, reached as ``RMSC_SCHEDULER``, the dashboard's path for a running
cluster), so that one profiler sees the server's end and the worker's end of the task: the
files are the code the worker processes run.

What counts:

* A frame *holds β* when the sentinel is reachable from its locals (at its call or at its
  return) or its return value: directly, or inside tuples, lists, dicts, dataclasses
  (``Params``, the solver's options, the β rule) and estimators (``get_params``). A handle on
  work (a ``Job``, a ``Remote`` task object, a future, Streamlit's session state) is not
  opened: code that only carries a handle does not see β. Only the repository's files
  count (``rmsc/``, ``ui/``, ``pages/``, ``app.py``).
* A *leg* is a tree of frames holding β in one thread, each frame under its nearest caller
  that holds β. The walk is the chain of legs that leads to the solver, followed backwards
  from it through the three hand-offs of the dashboard: a thread started by a frame of the
  leg before (the job's thread), a Dask task (the worker's ``run_remote`` gets a copy of what
  the server submitted: its arguments equal the submitting frame's locals) and the session
  state (the first frame of the leg given β as an argument gets an object that a frame of
  an earlier leg held: the latest such frame). Every frame of these legs that holds β and
  starts before Algorithm 1 takes β is part of the walk, checks included.
* A *visit* of a file: a frame whose β-holding caller (for a leg's first frame: the frame it
  was handed over from) is in another file starts one; the frames it leads to in the same
  file belong to it, and the calls one visit makes into another file are one visit of that
  file (a check called twice is visited once). A *hop* is a visit. A file is *entered twice*
  when it has more than one visit: the walk left it for another file and came back to it.
  Returning from a call is not entering.

Prints the hops in order (file: functions), the hand-offs, the number of files, of hops and
the files entered more than once. The numbers are in docs/dashboard.md, "How a parameter
travels".
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: Where the walk ends: the first call of this function that holds β.
UNTIL = ("rmsc/solver/_algorithm.py", "_rule_beta")
#: The values the sliders are moved to (added to their grids for the run).
SENTINELS = {"beta": 0.0123457, "beta_rel": 0.345679}
#: The slider of each, by widget key.
WIDGETS = {"beta": "w_beta", "beta_rel": "w_beta_rel"}
#: How deep the search for β goes inside a local's containers and records.
DEPTH = 5
#: Containers larger than this are not searched.
MAX_ITEMS = 200
APP_PARTS = ("rmsc", "ui", "pages")


def _repo_file(filename, cache={}):  # noqa: B006 - a cache on purpose
    """The repository-relative path of a code object's file, or "" when it is not ours."""
    out = cache.get(filename)
    if out is None:
        out = ""
        try:
            rel = Path(filename).resolve().relative_to(ROOT).as_posix()
        except (ValueError, OSError):
            rel = None
        if rel is not None and (rel == "app.py" or rel.split("/", 1)[0] in APP_PARTS):
            out = rel
        cache[filename] = out
    return out


def _is_record(value):
    t = type(value)
    return dataclasses.is_dataclass(t) or (hasattr(t, "get_params") and hasattr(value, "__dict__"))


def reaches(value, sentinel, depth=0):
    """Whether ``sentinel`` is reachable from ``value`` (see the module's docstring)."""
    if isinstance(value, float):
        return value == sentinel
    t = type(value)
    if t in (str, bytes, bool, int, type(None)):
        return False
    if t.__module__ == "numpy" and t.__name__.startswith("float"):
        return float(value) == sentinel
    if depth >= DEPTH:
        return False
    if isinstance(value, (tuple, list, set, frozenset)):
        return len(value) <= MAX_ITEMS and any(reaches(v, sentinel, depth + 1) for v in value)
    if isinstance(value, dict):
        return len(value) <= MAX_ITEMS and any(reaches(v, sentinel, depth + 1)
                                               for v in value.values())
    if _is_record(value):
        try:
            items = vars(value).values()
        except TypeError:  # slots
            items = [getattr(value, f.name, None) for f in dataclasses.fields(value)]
        return any(reaches(v, sentinel, depth + 1) for v in list(items))
    return False


@dataclasses.dataclass(eq=False)
class Frame:
    """One call of a repository function, as the profiler saw it."""

    seq: int
    thread: int
    file: str
    func: str
    parent: Frame | None
    frame: object = None
    holds_at_call: bool = False
    holds: bool = False
    #: The locals (at call and at return) and the return value that hold β.
    objects: list = dataclasses.field(default_factory=list)
    call_objects: list = dataclasses.field(default_factory=list)


class Tracer:
    """The profiler: records every call of a repository function while armed."""

    def __init__(self):
        self.sentinel = None
        self.armed = False
        self.until_hit = threading.Event()
        self.frames = []
        self.end = None
        self._seq = itertools.count()
        self._stacks = {}       # thread id -> [Frame]
        self._spawned = {}      # id(Thread) -> (Thread, Frame on the starting thread's stack)
        self._resolved = set()
        self.thread_spawner = {}  # thread id -> Frame that started the thread
        self._start_code = threading.Thread.start.__code__

    def arm(self, sentinel):
        """Record from now on, following ``sentinel`` (a new walk: nothing recorded before)."""
        self.frames, self.end = [], None
        self.until_hit.clear()
        self._stacks, self._resolved, self.thread_spawner = {}, set(), {}
        self.sentinel, self.armed = sentinel, True

    def install(self):
        threading.setprofile(self.profile)
        sys.setprofile(self.profile)

    def uninstall(self):
        self.armed = False
        sys.setprofile(None)
        threading.setprofile(None)

    def _stack(self, tid):
        stack = self._stacks.get(tid)
        if stack is None:
            stack = self._stacks[tid] = []
        return stack

    def _resolve_spawner(self, tid):
        """At a thread's first call of ours (it is registered by then: asking earlier would
        make threading invent a dummy thread), the frame that started it, if any."""
        if tid in self._resolved:
            return
        self._resolved.add(tid)
        thread = threading.current_thread()
        spawn = self._spawned.get(id(thread))
        if spawn is not None and spawn[0] is thread:
            self.thread_spawner[tid] = spawn[1]

    def profile(self, frame, event, arg):
        if not self.armed or event not in ("call", "return"):
            return
        code = frame.f_code
        file = _repo_file(code.co_filename)
        tid = threading.get_ident()
        stack = self._stack(tid)
        if not file:
            if event == "call" and code is self._start_code and stack:
                thread = frame.f_locals.get("self")
                self._spawned[id(thread)] = (thread, stack[-1])
            return
        if event == "call":
            self._resolve_spawner(tid)
            rec = Frame(next(self._seq), tid, file, code.co_qualname,
                        stack[-1] if stack else None, frame)
            held = [v for v in list(frame.f_locals.values()) if reaches(v, self.sentinel)]
            rec.call_objects = held
            rec.objects = list(held)
            rec.holds = rec.holds_at_call = bool(held)
            stack.append(rec)
            self.frames.append(rec)
            if rec.holds and (file, code.co_name) == UNTIL:
                self.end = rec
                self.armed = False
                self.until_hit.set()
            return
        if not any(rec.frame is frame for rec in stack):
            return  # called before the profiler was armed
        while stack[-1].frame is not frame:  # frames left by an exception
            stack.pop().frame = None
        rec = stack.pop()
        rec.frame = None
        for v in [*frame.f_locals.values(), arg]:
            if reaches(v, self.sentinel) and not any(v is o for o in rec.objects):
                rec.objects.append(v)
                rec.holds = True


def _holding_parent(rec):
    p = rec.parent
    while p is not None and not p.holds:
        p = p.parent
    return p


def _same(a, b):
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - arrays and such: not the same
        return False


def analyse(tracer):
    """The walk: ``(hops, handoffs)``; hops are ``(file, [functions], visit)`` in order."""
    end = tracer.end
    if end is None:
        raise SystemExit("The walk did not reach Algorithm 1's β: no fit started?")
    frames = [f for f in tracer.frames if f.holds and f.seq <= end.seq]
    roots = {}
    for f in frames:
        p = _holding_parent(f)
        roots[f] = roots[p] if p is not None else f
    legs, handoffs, pred = [], [], {}
    root = roots[end]
    while root is not None:
        legs.append(root)
        members = [f for f in frames if roots[f] is root]
        nxt, kind = None, None
        spawner = tracer.thread_spawner.get(root.thread)
        if spawner is not None:
            holder = spawner if spawner.holds else _holding_parent(spawner)
            if holder is not None and holder in roots and holder.seq < root.seq:
                nxt, kind = holder, "a thread it started"
        if nxt is None:
            entry = next((f for f in members if f.holds_at_call), None)
            if entry is not None:
                before = [f for f in frames if f.seq < root.seq and roots[f] is not root]
                for f in reversed(before):
                    if any(_same(o, c) for o in f.objects for c in entry.call_objects):
                        nxt = f
                        kind = ("the same object" if any(o is c for o in f.objects
                                                         for c in entry.call_objects)
                                else "an equal copy (pickled)")
                        break
                if nxt is not None:
                    kind = f"{kind}, given to {entry.file}:{entry.func}"
        if nxt is None:
            break
        pred[root] = nxt
        handoffs.append((nxt, root, kind))
        root = roots[nxt]
    included = set(legs)
    walk = [f for f in frames if roots[f] in included]
    visits, order = {}, []
    for f in walk:
        parent = _holding_parent(f) if roots[f] is not f else pred.get(f)
        if parent is not None and parent.file == f.file:
            visits[f] = visits[parent]
            continue
        key = (visits[parent] if parent is not None else None, f.file)
        if key not in order:
            order.append(key)
        visits[f] = key
    hops = []
    for key in order:
        funcs = list(dict.fromkeys(f.func for f in walk if visits[f] == key))
        hops.append((key[1], funcs))
    return hops, list(reversed(handoffs)), legs[-1]


def summary(hops):
    files = list(dict.fromkeys(file for file, _ in hops))
    counts = {file: sum(1 for f, _ in hops if f == file) for file in files}
    twice = {file: n for file, n in counts.items() if n > 1}
    return files, twice


def run_slider(slider, at_timeout=300):
    """Open the app on the Solve page, move ``slider`` to its sentinel, trace the walk."""
    from streamlit.testing.v1 import AppTest

    from rmsc import dashboard as dash
    from rmsc.dashboard import params as params_module

    sentinel = SENTINELS[slider]
    grid = params_module.BETA_GRID if slider == "beta" else params_module.BETA_REL_GRID
    if sentinel not in grid:
        grid.append(sentinel)
        grid.sort()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=at_timeout)
    at.query_params["data"] = "Subspaces"
    if slider == "beta":
        at.query_params["beta"] = "0.01"
    at.run()
    at.switch_page("pages/solve.py").run()
    first = at.session_state["slots"]["fit"].latest
    if first is not None and not first.wait(at_timeout):
        raise SystemExit("The first fit did not finish.")
    at.run()
    assert at.session_state["params"].beta == (0.01 if slider == "beta" else dash.AUTO)
    tracer = TRACER
    tracer.arm(sentinel)
    at.select_slider(key=WIDGETS[slider]).set_value(sentinel).run()
    reached = tracer.until_hit.wait(at_timeout)
    tracer.armed = False
    for s in at.session_state["slots"].values():
        s.cancel()
    if at.exception:
        raise SystemExit(f"The page raised: {[e.value for e in at.exception]}")
    if not reached:
        raise SystemExit("Algorithm 1 did not take β in time.")
    return analyse(tracer)


def report(slider, hops, handoffs, origin, hops_only=False):
    files, twice = summary(hops)
    print(f"\n## The {'β' if slider == 'beta' else 'β_rel'} slider "
          f"({WIDGETS[slider]}) to Algorithm 1")
    if not hops_only:
        print(f"origin: {origin.file}:{origin.func}")
        for src, dst, kind in handoffs:
            print(f"hand-off: {src.file}:{src.func} -> {dst.file}:{dst.func} ({kind})")
    seen = set()
    for i, (file, funcs) in enumerate(hops, 1):
        mark = " (again)" if file in seen else ""
        seen.add(file)
        print(f"{i:3d}. {file}: {', '.join(funcs)}{mark}")
    entered = ", ".join(f"{f} ×{n}" for f, n in twice.items()) or "none"
    print(f"files: {len(files)}   hops: {len(hops)}   entered more than once: "
          f"{len(twice)} ({entered})")


TRACER = Tracer()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slider", choices=["beta", "beta_rel", "both"], default="both")
    parser.add_argument("--hops-only", action="store_true",
                        help="print the hops and the totals only")
    args = parser.parse_args(argv)
    os.environ["RMSC_CACHE_DIR"] = tempfile.mkdtemp(prefix="rmsc-walk-")
    os.environ["RMSC_PREFETCH"] = "0"
    TRACER.install()  # before any thread starts: threading.setprofile reaches new threads only
    import dask
    from distributed import LocalCluster

    from rmsc.dask_cluster import SCHEDULER_ENV

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = LocalCluster(processes=False, n_workers=1, threads_per_worker=1,
                               dashboard_address=None)
    os.environ[SCHEDULER_ENV] = cluster.scheduler_address
    _steady_navigation()
    t0 = time.perf_counter()
    try:
        for slider in (["beta", "beta_rel"] if args.slider == "both" else [args.slider]):
            hops, handoffs, origin = run_slider(slider)
            report(slider, hops, handoffs, origin, args.hops_only)
    finally:
        TRACER.uninstall()
        from rmsc.dashboard import workers

        workers.shutdown()
        cluster.close()
    print(f"\n({time.perf_counter() - t0:.0f} s)")


def _steady_navigation():
    """Run app.py on every AppTest run, as a live server does (see tests/conftest.py,
    ``steady_state_navigation``: AppTest would otherwise run the page's file alone)."""
    import streamlit.testing.v1.app_test as app_test_module
    from streamlit.runtime.pages_manager import PagesManager

    class SteadyStatePagesManager(PagesManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            PagesManager.uses_pages_directory = False

    app_test_module.PagesManager = SteadyStatePagesManager


if __name__ == "__main__":
    main()
