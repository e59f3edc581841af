"""A reproduction's fits on dask.distributed workers, grouped by the solves they share.

``rmsc reproduce`` runs its fits on a Dask cluster: a ``LocalCluster`` of one worker
process per core, one task at a time each, by default, or the scheduler it is given
(``--scheduler``). Before the serial code of :func:`rmsc.experiments.run` walks the
search, the sensitivity grids and the views figure, :func:`run_fits` computes every
fit they will ask for that the results cache lacks, on the workers, and stores the
records in the cache; the serial walk then finds every fit there. The records are the
ones the serial run makes (same protocol, same seeds, same cache keys); only where they
are computed changes.

Fits are sent in *groups* that share an inner solve, so that splitting the work does
not solve anything twice (:class:`rmsc.experiments.SharedSolves` runs inside each
group): the affinity variants of one setting share its representation, and SSC-BSV,
SSC-AVG and DiMSC with the same ``beta`` and ``alpha`` share the per-view SSC solves.
Groups go longest first by the cost model
(:func:`rmsc.costs.predict`), so that no long group starts last and
leaves one worker idle at the end.
"""

from __future__ import annotations

import json
import queue
import time
import uuid
from dataclasses import dataclass, field

from ..dask_cluster import current_worker, reuse_heap
from ..costs import data_shape, has_model, predict
from ..methods import get_spec
from .cache import Cache, Record
from .protocol import PAPER_AFFINITY, evaluate_setting
from .shared import SharedSolves
from .grid import _fmt_params

@dataclass(frozen=True)
class Fit:
    """One fit of a reproduction, as the results cache keys it.

    Attributes
    ----------
    record : str
        The dataset name the record is cached under (``"Digit"``, or
        ``"Digit[PIX+FOU]"`` for the views figure).
    data : str
        Which loaded dataset it uses (a key of the ``datasets`` given to :func:`run_fits`).
    method : str
    params : dict
    n_views : int or None
        Only the first ``n_views`` views (None: all).
    """

    record: str
    data: str
    method: str
    params: dict = field(hash=False)
    n_views: int | None = None


def share_key(fit):
    """Fits with equal keys share an inner solve and run in one group.

    The affinity parameters (:data:`rmsc.experiments.protocol.PAPER_AFFINITY`) only act
    after the representation is found, so they are left out of the key; methods whose spec
    names a ``shared_solve`` (SSC-BSV, SSC-AVG and DiMSC: the SSC problem they start from)
    are keyed by that solve and its parameters (``beta``, ``alpha``).
    """
    params = {k: v for k, v in fit.params.items() if k not in PAPER_AFFINITY}
    shared = get_spec(fit.method).shared_solve
    if shared is not None:
        solve, names = shared
        what = (solve, json.dumps({k: params.get(k) for k in names}, sort_keys=True,
                                  default=str))
    else:
        what = (fit.method, json.dumps(params, sort_keys=True, default=str))
    return (fit.data, fit.n_views) + what


def fit_cost(fit, dataset):
    """A relative cost of ``fit`` (the cost model at a unit machine speed; 0 without one)."""
    if not has_model(fit.method):
        return 0.0
    shape = data_shape(dataset, fit.n_views)
    return predict(fit.method, shape, fit.params, probe=1.0).mid


def plan_groups(fits, datasets):
    """The fits in groups that share a solve (:func:`share_key`), longest group first by
    the cost model (:func:`fit_cost`; ties in the fits' order): lists of indices into
    ``fits``. ``datasets`` maps each ``Fit.data`` to its dataset."""
    groups = {}
    for i, fit in enumerate(fits):
        groups.setdefault(share_key(fit), []).append(i)
    cost = {k: sum(fit_cost(fits[i], datasets[fits[i].data]) for i in g)
            for k, g in groups.items()}
    return [groups[k] for k in sorted(groups, key=lambda k: -cost[k])]  # a stable sort


def run_group(views, labels, fits, random_state=0, data_id="", on_fit=None):
    """The fits of one group (:func:`plan_groups`) on ``views``, their shared solves solved
    once (:class:`SharedSolves`): their :class:`Record` s, in order.

    ``on_fit(k, record)`` is called before fit ``k`` (``record`` None) and after it (its
    record), e.g. to report progress or send the record on at once.
    """
    cache = Cache()
    out = []
    with SharedSolves():
        for k, fit in enumerate(fits):
            if on_fit is not None:
                on_fit(k, None)
            used = views if fit.n_views is None else views[:fit.n_views]
            rec = evaluate_setting(fit.record, fit.method, fit.params, used, labels,
                                   cache=cache, random_state=random_state, data_id=data_id)
            out.append(rec)
            if on_fit is not None:
                on_fit(k, rec)
    return out


def _run_group(payload, fits, random_state, data_id, topic=None):
    """On a worker: every fit of one group, its shared solves solved once; their records.

    With a ``topic``, each record is also sent as a worker event as soon as its fit
    ends (the client stores it and counts it at once: a group can take minutes)."""
    if current_worker() is not None:
        reuse_heap()  # as the dashboard's workers do (rmsc.dask_cluster.reuse_heap)
    views, labels = payload

    def send(k, rec):
        if rec is not None and topic is not None:
            _send(topic, rec)

    return run_group(views, labels, fits, random_state, data_id, on_fit=send)


def _send(topic, rec):
    worker = current_worker()
    if worker is None:  # not on a worker: the group's result carries the record
        return
    worker.log_event(topic, {"record": rec.as_dict()})


def _lists(obj):
    """An event's record as it was sent: its transport turns lists into tuples."""
    if isinstance(obj, dict):
        return {k: _lists(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_lists(v) for v in obj]
    return obj


def run_fits(client, fits, datasets, cache, *, random_state=0, progress=None):
    """Compute on ``client``'s workers every fit of ``fits`` that ``cache`` lacks.

    Parameters
    ----------
    client : distributed.Client
    fits : list of Fit
    datasets : dict name -> rmsc.datasets.MultiViewDataset (labelled)
        The data the fits name (``Fit.data``).
    cache : rmsc.experiments.Cache
        Receives every record as soon as its fit ends (so an interrupted run resumes).
    random_state : int
    progress : callable(done, total, message) or None
        Counts fits; ``total`` is ``len(fits)`` (fits found in the cache count as done).

    Returns
    -------
    int
        The number of fits computed.
    """
    def data_id(name):
        return str(getattr(datasets[name], "fingerprint", "") or "")

    todo, seen = [], set()
    for fit in fits:
        key = (fit.record, fit.method, json.dumps(fit.params, sort_keys=True, default=str))
        if key in seen or cache.get(fit.record, fit.method, fit.params, random_state,
                                    data_id(fit.data)) is not None:
            continue
        seen.add(key)
        todo.append(fit)
    total, done = len(fits), len(fits) - len(todo)
    if progress is not None:
        n = len(client.nthreads())
        progress(done, total, f"{len(todo)} fits to run on {n} Dask worker(s)")
    if not todo:
        return 0
    groups = [[todo[i] for i in g] for g in plan_groups(todo, datasets)]
    payloads = {}
    for name in {f.data for f in todo}:
        ds = datasets[name]
        payloads[name] = client.scatter((list(ds.views), ds.labels), broadcast=True,
                                        hash=False)
    topic = f"rmsc-reproduce-{uuid.uuid4().hex}"
    arrived = queue.SimpleQueue()
    client.subscribe_topic(topic, lambda event: arrived.put(event[1]["record"]))
    stored = set()

    def store(rec, group=None):
        nonlocal done
        if rec.key in stored:
            return
        stored.add(rec.key)
        cache.put(rec)
        done += 1
        if progress is not None:
            progress(min(done, total), total, f"{rec.dataset} {rec.method} "
                     f"{_fmt_params(rec.params)}")

    futures = [client.submit(_run_group, payloads[group[0].data], group,
                             random_state, data_id(group[0].data), topic,
                             priority=len(groups) - rank, pure=False)
               for rank, group in enumerate(groups)]
    pending = set(futures)
    try:
        while pending:
            finished = {f for f in pending if f.done()}
            while True:  # records sent as their fits ended
                try:
                    store(Record(**_lists(arrived.get_nowait())))
                except queue.Empty:
                    break
            for fut in finished:
                for rec in fut.result():  # raises a group's error; events may lag
                    store(rec)
            pending -= finished
            if not finished:
                time.sleep(0.2)
    finally:
        client.cancel(list(pending))
        client.unsubscribe_topic(topic)
    return len(todo)
