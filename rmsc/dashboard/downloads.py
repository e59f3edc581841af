"""The Solve page's downloads: labels, weights, affinity and the run's configuration.

Each file is made when its button is clicked, from the result on screen. A result read from
the disk cache leaves its large arrays (Z*, the affinity) unread until then, and one of them
may turn out damaged at that moment: :class:`DownloadGuard` turns that into a message on the
page's next run instead of a failure nobody explains.
"""

from __future__ import annotations

import dataclasses
import io
import json
import threading

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .. import __version__
from .params import estimator_params
from .store import CorruptEntry


def labels_csv(result, labels_true=None):
    """CSV text: sample, cluster (the chosen run) and class when known."""
    df = pd.DataFrame({"sample": np.arange(result.labels.size), "cluster": result.labels})
    if labels_true is not None:
        df["class"] = np.asarray(labels_true)
    return df.to_csv(index=False)


def weights_csv(result, view_names):
    """CSV text of P: one row per sample, one column per view."""
    df = pd.DataFrame(result.weights.T, columns=list(view_names))
    df.insert(0, "sample", np.arange(df.shape[0]))
    return df.to_csv(index=False)


def affinity_npz(result):
    """The consensus affinity as a scipy.sparse .npz file (bytes)."""
    buf = io.BytesIO()
    sp.save_npz(buf, sp.csr_matrix(result.affinity))
    return buf.getvalue()


def config_json(result, dataset, outlier_spec=None):
    """The run's configuration and headline numbers as JSON text (reproducible with rmsc)."""
    params = result.params
    est = estimator_params(params, dataset)
    cfg = {
        "rmsc_version": __version__,
        "method": params.method,
        "estimator_params": est,
        "dataset": {"name": dataset.name, "fingerprint": dataset.fingerprint,
                    "n_samples": dataset.n_samples, "views": list(dataset.view_names),
                    "n_features": list(dataset.n_features)},
        "outliers": None if outlier_spec is None else dataclasses.asdict(outlier_spec),
        "result": {"n_iter": result.n_iter, "converged": result.converged,
                   "stopped_early": result.stopped_early, "fit_time_s": result.fit_time,
                   "objective_final": float(result.objective[-1]) if result.objective.size
                   else None,
                   "consensus_density": result.density, "beta_max": result.beta_max,
                   "scores": result.scores},
        "python": f"rmsc.get_method({params.method!r}, **estimator_params).fit(views)",
    }
    return json.dumps(cfg, indent=2, default=_json_default)


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, tuple):
        return list(obj)
    return str(obj)


class DownloadFailed(RuntimeError):
    """A download's file could not be made; the message says why and what to do."""


class DownloadGuard:
    """A session's downloads, safe from a damaged stored result; thread-safe.

    ``st.download_button`` calls a callable ``data`` when the button is clicked, in a thread
    of the server outside the page's script (Streamlit 1.67: nothing drawn there is shown,
    and an exception reaches the browser only as its own "Failed to generate file for
    download"). :meth:`maker` wraps such a callable: when making the file reads a large
    array whose file is damaged (:class:`~rmsc.dashboard.store.CorruptEntry`: the store
    has then discarded the entry and the memory cache has forgotten the result, so the next
    run treats it as a miss), the download's label is kept for the page (:meth:`take`),
    ``after()`` is called (the page asks for its next run there) and
    :class:`DownloadFailed` is raised, saying what happened.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._failed = []

    def maker(self, label, make, after=None):
        """``make`` (no arguments, the file's bytes or text) guarded as above."""
        def guarded():
            try:
                return make()
            except CorruptEntry as exc:
                with self._lock:
                    if label not in self._failed:
                        self._failed.append(label)
                if after is not None:
                    after()
                raise DownloadFailed(f"{label}: {exc}") from None
        return guarded

    def take(self):
        """The labels of the downloads that failed so, since the last call (oldest first)."""
        with self._lock:
            failed, self._failed = self._failed, []
        return failed


def damaged_download_message(label, autorun=True):
    """What a page says after the download ``label`` found its stored result damaged."""
    then = ("RMSC fits these settings again now; download the file when the result is back."
            if autorun else "Press **Run** to fit these settings again, then download the "
            "file.")
    return (f"**{label} was not downloaded.** The result it was made from had been read "
            "from the server's result cache on disk, and its file turned out damaged when "
            f"the download read it, so that result was discarded (the server's log names "
            f"the file). {then} The dataset and the parameters are unchanged.")


#: What :func:`damaged_result_message` says of each result a page reads, and what follows.
_DAMAGED_RESULTS = {
    "current": ("The result of these settings",
                ("RMSC fits these settings again now.",
                 "Press **Run** to fit these settings again.")),
    "previous": ("The previous result (shown dimmed while the new fit runs)",
                 ("The fit of the current settings goes on.",) * 2),
    "clean": ("The fit of the clean data",
              ("Fit the clean data again with the button below.",) * 2),
}


def damaged_result_message(which="current", autorun=True):
    """What a page says after a result it read from the server's disk cache turned out
    damaged when one of its large arrays was read (the weights P, Z*, the affinity...):
    ``which`` is "current" (the fit of the current settings), "previous" (the previous
    result drawn dimmed while a new fit runs) or "clean" (the clean data's fit)."""
    subject, then = _DAMAGED_RESULTS[which]
    return (f"**{subject} could not be shown.** It had been read from the server's result "
            "cache on disk, and its file turned out damaged when the page read it, so it "
            "was discarded (the server's log names the file). "
            f"{then[0] if autorun else then[1]} The dataset and the parameters are unchanged.")
