"""The clustering along RMSC's iterations, recorded cheaply (the Solve page's trace).

The objective of Algorithm 1 falls fast, but the clustering of its consensus Z* can keep
moving for hundreds of iterations (docs/stability.md). :class:`ClusteringTrace` is a
callback for :class:`rmsc.RMSC` (or :func:`rmsc.solver.solve`) that, every ``every``
iterations, clusters the current Z* cheaply and records a small table:

* the spectral embedding of the current consensus affinity (the estimator's
  post-processing, :func:`rmsc.spectral.affinity_from_coefficients`) and one k-means
  (:func:`quick_clustering`): no placement of isolated samples and one k-means run
  instead of the protocol's 20, so its labels are an indication of the clustering at
  that iterate, not the score the fit reports at its stop;
* a label-free agreement with the previous recorded clustering: the adjusted Rand
  index and the number of samples that changed cluster (after matching the clusters);
* ACC and NMI of that clustering when labels are given.

Usage::

    trace = ClusteringTrace(n_clusters=10, every=5, labels=y)
    model = RMSC(n_clusters=10, callback=trace).fit(Xs)
    trace.finish(model)        # the fit's own clustering as the last row
    trace.rows                 # list of dicts, one per recorded iteration

The rows are plain dicts (JSON-friendly) so that a worker can ship them as they come.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

from ._array_api import count_nonzero
from .metrics import clustering_accuracy, evaluate, evaluate_runs
from .spectral import affinity_from_coefficients, spectral_embedding

#: Iterations between two recorded clusterings, by default.
TRACE_EVERY = 5

#: The columns of :attr:`ClusteringTrace.rows`, in order.
TRACE_COLUMNS = ("iteration", "objective", "density", "ari_previous", "changed",
                 "acc", "nmi", "seconds", "final")


def quick_clustering(Zstar, n_clusters, *, previous=None, keep_mass=None, top_k=None,
                     scale_columns=True, random_state=0):
    """One cheap clustering of a consensus: its spectral embedding and one k-means.

    The affinity is the estimator's (:func:`rmsc.spectral.affinity_from_coefficients`
    with the same post-processing), its normalised spectral embedding
    (:func:`rmsc.spectral.spectral_embedding`), then one k-means with k-means++ seeding.
    With ``previous`` labels a second k-means starts from the centroids of the
    previous clusters in the new embedding, and the run of lower inertia is kept: the
    clustering follows the previous one where the embedding still supports it, so the
    agreement between successive iterates is not blurred by k-means' own restarts.

    Parameters
    ----------
    Zstar : ndarray or sparse matrix of shape (n_samples, n_samples)
    n_clusters : int
    previous : ndarray of shape (n_samples,) or None
    keep_mass, top_k, scale_columns : as for :class:`rmsc.RMSC`
    random_state : int

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    S = affinity_from_coefficients(Zstar, keep_mass=keep_mass, top_k=top_k,
                                   scale_columns=scale_columns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # isolated samples: zero rows
        emb = spectral_embedding(S, n_clusters, random_state=random_state)
        best = KMeans(n_clusters=n_clusters, n_init=1, random_state=random_state).fit(emb)
        if previous is not None:
            prev = np.asarray(previous)
            centres = [emb[prev == k].mean(axis=0) for k in np.unique(prev)]
            if len(centres) == n_clusters:
                warm = KMeans(n_clusters=n_clusters, n_init=1, init=np.array(centres)).fit(emb)
                if warm.inertia_ <= best.inertia_:
                    best = warm
    return best.labels_.astype(np.int64)


def agreement(previous, labels):
    """Label-free agreement of two clusterings of the same samples.

    Returns
    -------
    ari : float
        Adjusted Rand index (1: the same partition).
    changed : int
        Samples whose cluster changed once the clusters are matched one to one
        (Hungarian matching, :func:`rmsc.metrics.clustering_accuracy`).
    """
    previous, labels = np.asarray(previous), np.asarray(labels)
    ari = float(adjusted_rand_score(previous, labels))
    changed = int(round((1.0 - clustering_accuracy(previous, labels)) * labels.size))
    return ari, changed


def _density(Z):
    """Share of nonzero entries of Z (sparse, NumPy or a device array)."""
    n = Z.shape[0]
    return float(count_nonzero(Z)) / float(n * n)


class ClusteringTrace:
    """A solver callback that records the clustering every few iterations.

    Parameters
    ----------
    n_clusters : int
    every : int, default=TRACE_EVERY
        Record at iterations 1, ``every``, 2 ``every``, ...
    labels : array-like of shape (n_samples,) or None
        Ground truth, when known: each row then has ACC and NMI (%), of the quick
        clustering (:func:`quick_clustering`), not the protocol's 20 k-means runs.
    keep_mass, top_k, scale_columns : as for :class:`rmsc.RMSC`
        Use the estimator's own, so the trace clusters the affinity the fit will.
    random_state : int, default=0
    callback : callable(iteration, objective, weights) -> bool or None
        Called after the record at every iteration (e.g. a dashboard's progress
        report); its return value is this callback's (True stops the solver).
    on_record : callable(row) or None
        Called with every new row as it is recorded.

    Attributes
    ----------
    rows : list of dict
        One per recorded iteration, keys :data:`TRACE_COLUMNS`: ``iteration``,
        ``objective``, ``density`` (share of nonzero entries of Z*),
        ``ari_previous`` and ``changed`` (agreement with the previous row's
        clustering: adjusted Rand index, samples that changed cluster; None in the
        first row), ``acc`` and ``nmi`` (%, None without labels), ``seconds``
        (time this record took), ``final`` (True only for :meth:`finish`'s row).
    """

    #: The solver passes the consensus to callbacks with this attribute set.
    needs_consensus = True

    def __init__(self, n_clusters, *, every=TRACE_EVERY, labels=None, keep_mass=None,
                 top_k=None, scale_columns=True, random_state=0, callback=None,
                 on_record=None):
        if int(every) != every or every < 1:
            raise ValueError(f"every must be a whole number of iterations >= 1; got {every!r}.")
        self.n_clusters = int(n_clusters)
        self.every = int(every)
        self.labels = None if labels is None else np.asarray(labels)
        self.keep_mass = keep_mass
        self.top_k = top_k
        self.scale_columns = scale_columns
        self.random_state = random_state
        self.callback = callback
        self.on_record = on_record
        self.rows = []
        self._previous = None

    def due(self, iteration):
        """Whether ``iteration`` is recorded."""
        return iteration == 1 or iteration % self.every == 0

    def __call__(self, iteration, objective, weights, consensus=None):
        if consensus is not None and self.due(iteration):
            self.record(iteration, objective, consensus)
        if self.callback is not None:
            return bool(self.callback(iteration, objective, weights))
        return False

    def record(self, iteration, objective, consensus):
        """Cluster ``consensus`` now and append a row (returned)."""
        t0 = time.perf_counter()
        labels = quick_clustering(consensus, self.n_clusters, previous=self._previous,
                                  keep_mass=self.keep_mass, top_k=self.top_k,
                                  scale_columns=self.scale_columns,
                                  random_state=self.random_state)
        return self._append(iteration, objective, _density(consensus), labels, None,
                            time.perf_counter() - t0, final=False)

    def finish(self, model):
        """Append the fitted model's own clustering (its ``labels_``) as the final row.

        ACC and NMI of that row are the means over the model's k-means runs (the
        protocol's scores), when labels are known.
        """
        scores = None
        if self.labels is not None:
            s = evaluate_runs(self.labels, model.label_runs_)
            scores = (100.0 * s["acc_mean"], 100.0 * s["nmi_mean"])
        return self._append(int(model.n_iter_), float(model.objective_[-1]),
                            _density(model.consensus_), np.asarray(model.labels_), scores,
                            0.0, final=True)

    def _append(self, iteration, objective, density, labels, scores, seconds, final):
        ari = changed = None
        if self._previous is not None:
            ari, changed = agreement(self._previous, labels)
        acc = nmi = None
        if scores is not None:
            acc, nmi = scores
        elif self.labels is not None:
            s = evaluate(self.labels, labels)
            acc, nmi = 100.0 * s["acc"], 100.0 * s["nmi"]
        row = {"iteration": int(iteration), "objective": float(objective),
               "density": float(density), "ari_previous": ari, "changed": changed,
               "acc": acc, "nmi": nmi, "seconds": float(seconds), "final": bool(final)}
        self.rows.append(row)
        self._previous = np.asarray(labels)
        if self.on_record is not None:
            self.on_record(row)
        return row


#: :class:`ClusteringStop`'s defaults: iterations between two checks, the agreement (ARI)
#: a check must reach with the previous one, and how many checks in a row.
STOP_EVERY, STOP_ARI, STOP_TIMES = 5, 0.99, 2


class ClusteringStop:
    """A solver callback that stops once the clustering of Z* stops changing.

    Every ``every`` iterations the current consensus is clustered cheaply
    (:func:`quick_clustering`: the estimator's affinity, its spectral embedding, one
    k-means following the previous clustering) and compared with the previous check's
    clustering (:func:`agreement`). The solver is asked to stop after ``times`` checks in a
    row with an adjusted Rand index of at least ``ari``. It measures the clustering, not
    the objective: it stops where the labels have settled for now, wherever the iterates are
    (docs/acceleration.md measures where that is against the converged clustering).

    Parameters
    ----------
    n_clusters : int
    every : int, default=STOP_EVERY
    ari : float, default=STOP_ARI
    times : int, default=STOP_TIMES
    keep_mass, top_k, scale_columns : as for :class:`rmsc.RMSC`
    random_state : int, default=0

    Attributes
    ----------
    agreements : list of (iteration, float)
        Every check's ARI with the previous check's clustering.
    stopped_at : int or None
        The iteration at which it asked the solver to stop.
    """

    #: The solver passes the consensus to callbacks with this attribute set.
    needs_consensus = True

    def __init__(self, n_clusters, *, every=STOP_EVERY, ari=STOP_ARI, times=STOP_TIMES,
                 keep_mass=None, top_k=None, scale_columns=True, random_state=0):
        if int(every) != every or every < 1:
            raise ValueError(f"every must be a whole number of iterations >= 1; got {every!r}.")
        if int(times) != times or times < 1:
            raise ValueError(f"times must be a whole number >= 1; got {times!r}.")
        self.n_clusters = int(n_clusters)
        self.every, self.ari, self.times = int(every), float(ari), int(times)
        self.keep_mass, self.top_k, self.scale_columns = keep_mass, top_k, scale_columns
        self.random_state = random_state
        self.agreements = []
        self.stopped_at = None
        self._previous = None
        self._streak = 0

    def __call__(self, iteration, objective, weights, consensus=None):
        if consensus is None or iteration % self.every:
            return False
        labels = quick_clustering(consensus, self.n_clusters, previous=self._previous,
                                  keep_mass=self.keep_mass, top_k=self.top_k,
                                  scale_columns=self.scale_columns,
                                  random_state=self.random_state)
        if self._previous is not None:
            ari = agreement(self._previous, labels)[0]
            self.agreements.append((int(iteration), ari))
            self._streak = self._streak + 1 if ari >= self.ari else 0
        self._previous = labels
        if self._streak >= self.times:
            self.stopped_at = int(iteration)
            return True
        return False
