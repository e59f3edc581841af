"""A run's time as a teacher plans with it: one figure and a range before, an ETA during, took against predicted after.

:mod:`rmsc.dashboard.estimates` gives a run's seconds on an idle machine (measured
durations, else the cost model at the speed probe's rate). This module turns them into
what a button says, three times:

* **Before** (:func:`plan`): one figure with a range at most 2x wide, "about 4 min
  (3–6 min)": the idle seconds, times this server's measured speed (:class:`Pace`: how
  long its runs of this kind really took against what was predicted, idle), times the
  slowdown of the machine's current load (:func:`slowdown`: the threads runnable now,
  :func:`current_load`, against the cores the run's threads share).
* **During** (:func:`eta`): the seconds left from the run's measured progress, each fit
  weighted by its estimate (:func:`run_weights`, :func:`done_fraction`), so that a
  finished short fit does not count as much as a long one; early on the prediction
  weighs most, later the measured rate.
* **After** (:meth:`Pace.record`): what the run took against what was predicted, kept
  beside its result (:meth:`Pace.outcome`) and fed back into the speed of the next
  predictions (the median of the last few of that kind, bounded).

Durations a run leaves in the :class:`~rmsc.dashboard.CostBook` are kept idle too
(:class:`IdleBook`: divided by the load's slowdown while they ran), so that load is
counted once, now.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass

import numpy as np

from ..costs import (calibrate_speed, data_shape, fastest_probe_seconds, format_duration,
                     has_model, join_span, predict)
from .estimates import (part_threads_of, record_solve_fit, run_fit_estimate,
                        suggestion_estimates)
from .fitting import FitResult
from .store import read_json, side_file, write_json
from .runs import compare_fits, rmsc_method_params, sensitivity_fits, views_fits

#: The range around the figure: from figure / SPREAD to figure x SPREAD (1.96x wide).
SPREAD = 1.4

#: Ratios kept, of every kind (newest last), and how many of the newest of a kind count.
HISTORY = 64
RECENT = 5

#: Results whose took / predicted are kept (newest last).
OUTCOMES = 64

#: The learned pace's file in the result cache's folder (:func:`Pace.from_env`), its format
#: and the bounds a ratio read back must keep (a file outside them is ignored).
PACE_FILE = "pace.json"
PACE_MAGIC = "rmsc-pace"
PACE_SCHEMA = 1
RATIO_BOUNDS = (1e-3, 1e3)

log = logging.getLogger("rmsc.dashboard")

#: Seconds the load average's 1-minute figure takes to follow a change by 1 - 1/e.
LOAD_WINDOW = 60.0


#: Reads of the threads runnable now (:func:`runnable_now`), and the seconds between two.
LOAD_SAMPLES = 5
LOAD_SPACING = 0.01


def runnable_now(samples=LOAD_SAMPLES, spacing=LOAD_SPACING, path="/proc/loadavg"):
    """The busy threads of the whole machine now, less the one reading: the median of
    ``samples`` reads of the runnable count (``/proc/loadavg``'s fourth field, Linux),
    ``spacing`` seconds apart; None where the system has no such file.

    The median, not the mean: one read that catches a burst of threads waking at once
    (a worker's pool starting, another process's short spike) would move a mean, and the
    plan scales with it; the median ignores them while they are fewer than half the reads."""
    counts = []
    for i in range(max(1, int(samples))):
        if i:
            time.sleep(spacing)
        try:
            with open(path, encoding="ascii") as f:
                counts.append(int(f.read().split()[3].split("/")[0]) - 1)
        except (OSError, IndexError, ValueError):
            return None
    return max(0.0, float(np.median(counts)))


def current_load(cores=None):
    """The busy threads a run meets if it starts now, others' only: :func:`runnable_now`,
    else (no ``/proc/loadavg``) the 1-minute load average (``os.getloadavg``; 0 where
    the system has none).

    The runnable count now, not the 1-minute average: the average lags a minute behind
    (busy processes started 10 s ago show at a sixth of their number) and still counts
    this server's own last run for a minute after it ended (its workers' threads, idle
    now), which made a button planned just after a fit say it would take longer than it
    did. Either counts every runnable thread of the host, whatever its priority, so on a
    shared machine it may overstate a run's slowdown; the learned :class:`Pace` (took
    against the idle seconds times this slowdown) corrects the scale. ``cores`` is unused
    (kept for a measure that needs it)."""
    now = runnable_now()
    if now is not None:
        return now
    try:
        return float(os.getloadavg()[0])
    except (OSError, AttributeError):
        return 0.0


def load_after(took, threads):
    """Others' busy threads at the end of a run of ``threads`` threads that took ``took``
    seconds: :func:`runnable_now` (the run's threads are idle again), else the 1-minute
    load average less the run's own part (:func:`other_load`)."""
    now = runnable_now()
    if now is not None:
        return now
    try:
        return other_load(float(os.getloadavg()[0]), took, threads)
    except (OSError, AttributeError):
        return 0.0


def other_load(load, seconds, threads):
    """The load of others while a run of ``threads`` busy threads went on for ``seconds``,
    from the 1-minute load average ``load`` read at its end: the run's own threads make
    up ``threads * (1 - exp(-seconds / 60))`` of that figure."""
    own = float(threads) * (1.0 - math.exp(-max(0.0, float(seconds)) / LOAD_WINDOW))
    return max(0.0, float(load) - own)


def slowdown(load, cores, threads=None):
    """How many times longer a run takes beside ``load`` other busy threads.

    The run's ``threads`` (None: ``cores``) and the others share ``cores`` cores evenly:
    with more busy threads than cores each gets ``cores / (load + threads)`` of a core.
    ``cores`` None (workers on machines elsewhere): 1.
    """
    if not cores:
        return 1.0
    cores = float(cores)
    threads = cores if threads is None else max(1.0, float(threads))
    alone = max(1.0, threads / cores)
    return max(1.0, (max(0.0, float(load)) + threads) / cores) / alone


def source_of(estimate):
    """What an :class:`~rmsc.costs.Estimate` rests on: "measured" (every fit),
    "model" (none) or "mixed"."""
    if estimate.measured:
        return "measured"
    return "model" if estimate.guess else "mixed"


@dataclass(frozen=True)
class Plan:
    """What a button says before its run: ``seconds`` (the figure), its range ``low`` –
    ``high`` (at most 2x wide), and fits of unknown time not in them (``unknown``).

    ``idle`` is the estimate's seconds on an idle machine before the learned speed and
    the load (:func:`plan`), ``load`` the load it assumed (others' busy threads);
    ``kind``, ``source``: what :meth:`Pace.record` files the outcome under.
    """

    seconds: float
    low: float
    high: float
    unknown: int = 0
    idle: float = 0.0
    kind: str = ""
    source: str = "model"
    load: float = 0.0

    def text(self):
        """ "about 4 min (3–6 min)"; "time unknown until it has run once" when nothing is
        known; fits of unknown time counted apart."""
        if self.unknown and self.seconds <= 0:
            return "time unknown until it has run once"
        extra = ""
        if self.unknown:
            extra = f" + {self.unknown} fit{'s' if self.unknown > 1 else ''} of unknown time"
        return f"about {duration_text(self.seconds)} ({span_text(self.low, self.high)})" \
               + extra


def duration_text(seconds):
    """:func:`rmsc.costs.format_duration`, with half minutes from 90 s to 10 min ("2.5 min"):
    a range 2x wide stays visible there."""
    s = max(float(seconds), 0.0)
    if 90 <= s < 600:
        return f"{round(s / 30) / 2:g} min"
    return format_duration(s)


def span_text(low, high):
    """ "3–6 min", "40 s–1.5 min": a range with its unit said once where both share it."""
    return join_span(duration_text(low), duration_text(high))


class Pace:
    """This server's measured speed: for each kind of run ("compare", "sensitivity",
    "views", "suggest", "fit") and what its prediction rested on (:func:`source_of`),
    the ratio of what runs took to what was predicted (idle seconds times the load's
    slowdown while they ran); thread-safe and bounded.

    :meth:`factor` is the median of the :data:`RECENT` newest ratios of that kind and
    source, else of that kind, else 1: a kind never borrows another's. Their ratios differ
    for reasons of their own (a Compare of three long fits, a grid of 25 short ones: what
    each fit costs beyond its recorded duration weighs differently), so a ratio borrowed
    across kinds can move the figure the wrong way (docs/dashboard.md, "Time estimates"). A
    prediction from measured durations alone ("measured": idle seconds of this machine
    already) takes only ratios learned on such predictions of its kind, else 1.

    With a ``path`` (:meth:`from_env`: the result cache's folder) the ratios outlive the
    server: read there at the start (:func:`load_ratios`), written there after each
    (:func:`save_ratios`); the took / predicted kept beside results stay in memory.
    """

    def __init__(self, history=HISTORY, recent=RECENT, outcomes=OUTCOMES, path=None):
        self.recent = int(recent)
        self._history = deque(maxlen=int(history))
        self._outcomes = OrderedDict()
        self._max_outcomes = int(outcomes)
        self._lock = threading.Lock()
        self.path = path
        if path is not None:
            self._history.extend(load_ratios(path))

    @classmethod
    def from_env(cls, **kwargs):
        """The server's pace, kept across restarts in the result cache's folder
        (:data:`PACE_FILE` there, :func:`rmsc.dashboard.store.side_file`), or in memory only
        when that folder is switched off or unsafe."""
        return cls(path=side_file(PACE_FILE), **kwargs)

    def factor(self, kind, source="model"):
        with self._lock:
            rows = list(self._history)
        tries = [lambda k, s: k == kind and s == source]
        if source != "measured":
            tries.append(lambda k, s: k == kind)
        for keep in tries:
            ratios = [r for k, s, r in rows if keep(k, s)][-self.recent:]
            if ratios:
                return float(np.median(ratios))
        return 1.0

    def record(self, plan, took, slow=1.0, key=None):
        """A run planned as ``plan`` (:func:`plan`) took ``took`` seconds, the machine
        ``slow`` times slower than idle meanwhile (:func:`slowdown`). Learns the ratio
        (when the plan had an idle figure) and keeps took / predicted under ``key``
        (:meth:`outcome`). Returns the ratio or None."""
        took = float(took)
        ratio = None
        if plan.idle > 0 and took > 0 and np.isfinite(took):
            ratio = took / (plan.idle * max(1.0, float(slow)))
            with self._lock:
                self._history.append((plan.kind, plan.source, ratio))
                rows = list(self._history)
            if self.path is not None:
                save_ratios(self.path, rows)
        if key is not None:
            with self._lock:
                self._outcomes.pop(key, None)
                self._outcomes[key] = (took, plan)
                while len(self._outcomes) > self._max_outcomes:
                    self._outcomes.popitem(last=False)
        return ratio

    def outcome(self, key):
        """``(took seconds, Plan)`` of the run of ``key``, or None."""
        with self._lock:
            return self._outcomes.get(key)

    def __len__(self):
        with self._lock:
            return len(self._history)


def save_ratios(path, rows):
    """Write the learned ratios ``rows`` (``(kind, source, ratio)``, newest last) to
    ``path`` as JSON (atomically); True when written."""
    return write_json(path, {"magic": PACE_MAGIC, "schema": PACE_SCHEMA,
                             "ratios": [[str(k), str(s), float(r)] for k, s, r in rows]})


def load_ratios(path, limit=HISTORY):
    """The ratios :func:`save_ratios` wrote to ``path`` (the newest ``limit``), or none when
    the file is missing; a file that is not such a record (damaged, of another schema, a
    ratio not a finite number within :data:`RATIO_BOUNDS`) is ignored with a log line. The
    file is parsed as JSON, never executed."""
    try:
        doc = read_json(path)
        if doc is None:
            return []
        if not isinstance(doc, dict) or doc.get("magic") != PACE_MAGIC:
            raise ValueError("not a learned pace")
        if doc.get("schema") != PACE_SCHEMA:
            raise ValueError(f"schema {doc.get('schema')!r}, not {PACE_SCHEMA}")
        rows = doc.get("ratios")
        if not isinstance(rows, list):
            raise ValueError("no list of ratios")
        out = []
        for row in rows[-int(limit):]:
            if not (isinstance(row, list) and len(row) == 3
                    and all(isinstance(x, str) and len(x) <= 40 for x in row[:2])
                    and isinstance(row[2], (int, float)) and not isinstance(row[2], bool)
                    and RATIO_BOUNDS[0] <= row[2] <= RATIO_BOUNDS[1]):
                raise ValueError(f"not a (kind, source, ratio) row: {str(row)[:80]}")
            out.append((row[0], row[1], float(row[2])))
        return out
    except (OSError, ValueError) as exc:
        log.warning("ignored the learned pace in %s: %s", path, exc)
        return []


def plan(estimate, kind, pace=None, load=None, cores=None, threads=None):
    """The :class:`Plan` of a run whose idle estimate is ``estimate``.

    The figure is ``estimate.mid`` x ``pace.factor(kind, source)`` x
    :func:`slowdown` ``(load, cores, threads)``; the range is that figure divided and
    multiplied by :data:`SPREAD`. ``load`` None: :func:`current_load` (measured now).
    """
    source = source_of(estimate)
    factor = 1.0 if pace is None else pace.factor(kind, source)
    load = current_load(cores) if load is None else float(load)
    seconds = float(estimate.mid) * factor * slowdown(load, cores, threads)
    return Plan(seconds, seconds / SPREAD, seconds * SPREAD, int(estimate.unknown),
                float(estimate.mid), str(kind), source, load)


def outcome_text(took, planned):
    """ "took 5 min, predicted about 4 min (3–6 min)" (after the run, beside its result)."""
    return f"took {duration_text(took)}, predicted {planned.text()}"


class IdleBook:
    """A :class:`~rmsc.dashboard.CostBook` seen through a load: what is recorded through it
    is divided by ``slow`` (the run's :func:`slowdown`), so the book keeps idle seconds."""

    def __init__(self, book, slow):
        self.book, self.slow = book, max(1.0, float(slow))

    def record(self, fingerprint, method, params, seconds):
        try:
            seconds = float(seconds) / self.slow
        except (TypeError, ValueError):
            pass
        self.book.record(fingerprint, method, params, seconds)


def run_slowdown(cores, took, before=None, after=None):
    """The load's :func:`slowdown` while a run of every core's threads went on for ``took``
    seconds: the mean of others' load before it (its plan's) and after it (``after``
    None: :func:`load_after`, read now); ``before`` None: the load after alone."""
    after = load_after(took, cores or 1) if after is None else float(after)
    load = after if before is None else (float(before) + after) / 2.0
    return slowdown(load, cores)


def learn_from_run(pace, book, planned, took, cores, record=None, result=None, key=None,
                   load=None):
    """After a button's run: ``record(book, result)`` keeps its fits' durations as idle
    seconds (:class:`IdleBook`), and ``pace`` learns took against ``planned`` (kept under
    ``key`` for :meth:`Pace.outcome`); ``load``: others' busy threads after the run
    (None: read now, :func:`load_after`). Returns the slowdown it assumed (:func:`run_slowdown`)."""
    slow = run_slowdown(cores, took, None if planned is None else planned.load, load)
    if record is not None:
        record(IdleBook(book, slow), result)
    if planned is not None:
        pace.record(planned, took, slow, key=key)
    return slow


def learn_from_fit(pace, book, result, dataset, cores, load=None):
    """After the Solve page's fit (a :class:`rmsc.dashboard.FitResult` of ``dataset``): its
    duration in ``book`` as idle seconds (:func:`rmsc.dashboard.record_solve_fit`), and
    its ratio to the cost model's prediction at the fastest probe, which calibrates the
    model's speed (:func:`rmsc.costs.calibrate_speed`: the model then speaks in the
    seconds of this machine's fits, as the book does). Returns the slowdown assumed."""
    if not isinstance(result, FitResult):
        return None
    took = float(result.fit_time + result.spectral_time)
    slow = run_slowdown(cores, took, None, load)
    record_solve_fit(IdleBook(book, slow), result, dataset)
    method = result.params.method
    if not has_model(method):
        return slow
    try:
        params = rmsc_method_params(result.params, dataset)[method]
    except ValueError:
        return slow
    model = predict(method, data_shape(dataset), params, fastest_probe_seconds(False))
    if model.mid > 0:
        calibrate_speed(took / slow / model.mid)
    return slow


# ---------------------------------------------------------------------------
# During a run: the ETA
# ---------------------------------------------------------------------------


def run_weights(datasets, fits, book=None, probe=None):
    """Each fit's idle seconds by its estimate with its scoring
    (:func:`rmsc.dashboard.run_fit_estimate`), per part of the run, in the order the
    parts go to the workers (:func:`rmsc.dashboard.part_threads_of`, as
    :class:`rmsc.dashboard.RemoteParts`): a list per part. A fit of unknown time weighs as
    the mean of the others (1 when none is known)."""
    probe = fastest_probe_seconds() if probe is None else probe
    groups, _ = part_threads_of(datasets, fits)
    out = []
    for group in groups:
        row = []
        for i in group:
            est = run_fit_estimate(fits[i], datasets, book, probe)
            row.append(float(est.mid) if not est.unknown else None)
        out.append(row)
    return _fill_unknown(out)


def compare_weights(variants, methods, params=None, book=None, probe=None):
    """:func:`run_weights` of :func:`rmsc.dashboard.compare_parts`."""
    return run_weights(variants, compare_fits(variants, methods, params), book, probe)


def sensitivity_weights(dataset, lams, betas, method="RMSC", params=None, book=None,
                        probe=None):
    """:func:`run_weights` of :func:`rmsc.dashboard.sensitivity_parts`."""
    return run_weights({"data": dataset},
                       sensitivity_fits(dataset, lams, betas, method, params), book, probe)


def views_weights(dataset, methods, params=None, book=None, probe=None):
    """:func:`run_weights` of :func:`rmsc.dashboard.views_parts`."""
    return run_weights({"data": dataset}, views_fits(dataset, methods, params), book, probe)


def suggestion_weights(dataset, params, book=None, probe=None):
    """:func:`run_weights` of :func:`rmsc.dashboard.run_suggestion`: one part, its settings
    in the order it fits them (λ-major), each its fit and criterion
    (:func:`rmsc.dashboard.suggestion_estimates`)."""
    row = [None if est.unknown else float(est.mid)
           for est in suggestion_estimates(dataset, params, book, probe)]
    return _fill_unknown([row])


def _fill_unknown(parts):
    known = [w for row in parts for w in row if w is not None and w > 0]
    fill = float(np.mean(known)) if known else 1.0
    return [[fill if (w is None or w <= 0) else w for w in row] for row in parts]


def done_fraction(weights, parts_done=None, done=0):
    """The share of a run's work done: ``weights`` per part (:func:`run_weights`), the
    fits done in each part (its first ones: a part fits in order); without per-part
    counts, ``done`` fits of the run counted in order."""
    total = sum(sum(row) for row in weights)
    if total <= 0:
        return 0.0
    if parts_done is None or len(parts_done) != len(weights):
        flat = [w for row in weights for w in row]
        return min(1.0, sum(flat[:max(0, int(done))]) / total)
    finished = sum(sum(row[:max(0, int(k))]) for row, k in zip(weights, parts_done))
    return min(1.0, finished / total)


def eta(elapsed, fraction, predicted):
    """Seconds left of a run ``elapsed`` seconds in, ``fraction`` of its work done,
    predicted at ``predicted`` seconds in all.

    The time per unit of work is the prediction's (``predicted``) and the measured one
    (``elapsed / fraction``), weighed by how much is done: ``(1 - f) predicted + elapsed``;
    the work left, ``1 - f``, at that rate. Nothing done yet (parts still running): the
    prediction's clock, ``predicted - elapsed`` (at least 0); all done: 0.
    """
    f = min(max(float(fraction), 0.0), 1.0)
    if f <= 0:
        return max(0.0, float(predicted) - float(elapsed))
    return (1.0 - f) * ((1.0 - f) * float(predicted) + float(elapsed))


def eta_text(elapsed, fraction, planned):
    """The progress bar's words: "1 min in, about 3 min left (predicted about 4 min
    (3–6 min))"; once past the prediction with nothing to measure by, it says so."""
    left = eta(elapsed, fraction, planned.seconds)
    head = f"{duration_text(elapsed)} in"
    said = f"predicted {planned.text()}"
    if left <= 0 and fraction < 1:
        return f"{head}, longer than {said}"
    return f"{head}, about {duration_text(left)} left ({said})"
