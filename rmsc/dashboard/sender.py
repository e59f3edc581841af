"""Sending a job's task to a Dask worker, and waiting for it there: a job's sender.

A :class:`rmsc.dashboard.Job` whose sender is a :class:`DaskSender` runs its
:class:`~rmsc.dashboard.remote.Remote` task on a worker of the process's
:class:`~rmsc.dashboard.workers.DaskWorkers` (or the one it is given), or the parts of a
:class:`~rmsc.dashboard.remote.RemoteParts` on every worker at once. The page's side does
not change: the job's progress, live curve, stop and cancel work as for a job in a thread.
A stop or a cancel is relayed to the task (a ``distributed.Event`` it reads); a task
still waiting for a worker is cancelled (``Future.cancel``) and never starts. A worker
that dies mid-task fails the job with a message that says so
(:class:`rmsc.dashboard.WorkerDied`).
"""

from __future__ import annotations

import threading
from concurrent.futures import CancelledError

from .jobs import Cancelled, WorkerDied
from .remote import PartsProgress, Remote, RemoteParts, share_threads, worker_died_message
from .workers import default_workers


def part_threads(part, parts, cores):
    """Threads for ``part``'s fits when the workers share ``cores`` (None: not shared out):
    :func:`rmsc.dashboard.remote.share_threads` of its ``Remote.share`` of the run's work."""
    return share_threads(getattr(part, "share", None), len(parts), cores)


def _failure(exc, label):
    """The exception a job reports for ``exc`` raised by its remote task or by Dask."""
    try:
        from distributed.scheduler import KilledWorker
    except ImportError:  # pragma: no cover - distributed is a dependency
        KilledWorker = ()
    if isinstance(exc, (KilledWorker, CancelledError)) or type(exc).__name__ in (
            "KilledWorker", "FutureCancelledError", "CommClosedError"):
        return WorkerDied(worker_died_message(label))
    return exc


class DaskSender:
    """A job's sender (:class:`rmsc.dashboard.Job`): its :class:`Remote` task on a Dask worker,
    or every part of its :class:`RemoteParts` task at once.

    Submits the task to ``dask_workers`` (None: the process's :func:`default_workers`, started on
    first use), tells the job its place while it waits for a worker, relays a stop or a
    cancel to the task, and hands back the result (after ``Remote.after``) or the failure
    (a worker that died is :class:`rmsc.dashboard.WorkerDied`). The parts of a
    :class:`RemoteParts` are submitted together (Dask spreads them over the workers) and
    gathered as they end: the progress counts their steps, a cancel reaches every part,
    the first part that fails fails the job (the others are cancelled). Any other task
    runs in the job's thread.
    """

    #: Seconds between two looks at the job's stop and cancel while the task runs.
    POLL_SECONDS = 0.1

    def __init__(self, dask_workers=None):
        self.dask_workers = dask_workers

    @staticmethod
    def runs_apart(task):
        """True for a task this sender runs on the Dask workers (a :class:`Remote` or a
        :class:`RemoteParts`; any other runs in the job's thread). A worker runs one task
        at a time (one thread; a cancelled task counts until it returns, at its next
        check), so a session's :class:`~rmsc.dashboard.JobSlot` starts the next job
        without waiting for a cancelled one's cancel to reach the scheduler."""
        return isinstance(task, (Remote, RemoteParts))

    def run(self, job, task):
        if isinstance(task, RemoteParts):
            return self._run_parts(job, task)
        if not isinstance(task, Remote):
            return task(job)
        dask_workers = self.dask_workers or default_workers()
        job_id, fut, (stop_event, cancel_event) = dask_workers.submit(job, task)
        job.queued_at(lambda: dask_workers.place(job_id))
        try:
            sent_stop = False
            while not fut.done():
                if job.cancelled:
                    cancel_event.set()  # a running task ends at its next check
                    fut.cancel()        # a waiting one never starts
                    raise Cancelled(job.label)
                if job.stop_requested and not sent_stop:
                    stop_event.set()
                    sent_stop = True
                job.wait_for_request(self.POLL_SECONDS, stop_seen=sent_stop)
            try:
                result = fut.result()
            except Cancelled:
                raise
            except Exception as exc:  # noqa: BLE001 - classified below
                raise _failure(exc, job.label) from exc
        finally:
            dask_workers.forget(job_id)
            clear_control_later(dask_workers, stop_event, cancel_event)
        return task.after(result) if task.after is not None else result

    def _run_parts(self, job, task):
        dask_workers = self.dask_workers or default_workers()
        progress = PartsProgress(job, task.parts)
        job.set_progress(0, progress.total, "")
        cores = dask_workers.slots()["cores"]  # those of a machine the workers share, or None
        sent = []  # (job id, future, control events) per part, in the parts' order
        try:
            for i, part in enumerate(task.parts):
                job.check()
                part.threads = part_threads(part, task.parts, cores)
                sent.append(dask_workers.submit(progress.part(i), part))
            places = [job_id for job_id, _, _ in sent]
            job.queued_at(lambda: min((p for p in map(dask_workers.place, places) if p is not None),
                                      default=None))
            results = [None] * len(sent)
            pending = dict(enumerate(sent))
            while pending:
                if job.cancelled:
                    for _, fut, (_, cancel_event) in pending.values():
                        cancel_event.set()  # a running part ends at its next check
                        fut.cancel()        # a waiting one never starts
                    raise Cancelled(job.label)
                for i, (_, fut, _) in list(pending.items()):
                    if not fut.done():
                        continue
                    del pending[i]
                    try:
                        results[i] = fut.result()
                    except Exception as exc:  # noqa: BLE001 - classified below
                        for _, other, _ in pending.values():
                            other.cancel()
                        raise _failure(exc, job.label) from exc
                    progress.finished(i)
                if pending:
                    job.wait_for_request(self.POLL_SECONDS, stop_seen=True)
        finally:
            for job_id, _, events in sent:
                dask_workers.forget(job_id)
                clear_control_later(dask_workers, *events)
        result = task.combine(results)
        return task.after(result) if task.after is not None else result


#: Seconds a finished job's stop and cancel events stay set on the scheduler (a cancelled
#: task may still be running until its next check), then they are cleared (freed).
CONTROL_LINGER_SECONDS = 30.0


def clear_control_later(dask_workers, *events):
    """Clear (free on the scheduler) a finished job's control events, a little later."""
    def clear():
        if dask_workers.closed:
            return
        for ev in events:
            try:
                ev.clear()
            except Exception:  # noqa: BLE001 - the cluster is gone: nothing to free
                pass

    timer = threading.Timer(CONTROL_LINGER_SECONDS, clear)
    timer.daemon = True
    timer.start()
