"""The Solve page's "suggest λ and β (no labels)" action, as a job.

The criterion and its ranking have one implementation,
:func:`rmsc.selection.suggest_parameters`; this module only

* runs it with the Solve page's other settings (method, γ, iterations, tolerance,
  affinity post-processing, seed, number of clusters) and a job's progress, one step
  per setting, cancelled between settings (:func:`run_suggestion`);
* scores the suggested setting against the labels when the data have usable ones
  (shown after the run, never used to choose);
* maps the answer back onto the page's :class:`~rmsc.dashboard.params.Params`
  (:func:`apply_suggestion`) and into a table (:func:`suggestion_table`).
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass

import pandas as pd

from ..methods import rmsc_method
from ..metrics import evaluate_runs
from ..selection import SUGGEST_BETA_RELS, SUGGEST_LAMS, Suggestion, suggest_parameters
from .params import estimator_params
from .params import AUTO
from .tables import scoring_labels
from .words import page_words

#: What the criterion is, in words a student follows (the page shows it beside the figure).
CRITERION_TEXT = (
    "Without labels, a good consensus graph should link every sample to others and split "
    "into c groups that k-means finds from any start. Each setting is fitted once; the "
    "suggestion is the setting with the fewest isolated samples (no link in Z*), then no "
    "more connected pieces than clusters, then the largest **agreement** of its k-means "
    "runs with one another (their mean adjusted Rand index)."
)

#: What the suggestion is worth, measured two ways, both said (the Solve page shows it beside
#: the button): leave-one-dataset-out over every dataset of the repository
#: (docs/stability.md), and 8 public datasets outside it (a check by hand, reported with
#: the page review; those data do not ship, so no command here reproduces it).
SUGGESTION_VERDICT = (
    "Without labels, this tries 8 settings and keeps the one whose clustering looks most "
    "settled (every sample linked, k-means agreeing with itself). What is known of it: "
    "on the repository's datasets, each left out in turn, it chose no better than the "
    "defaults (mean ACC regret 1.47 against the defaults' 1.10 points for RMSC, 1.42 against "
    "0.61 for RMSC-WV; docs/stability.md); on 8 public datasets outside the repository it "
    "beat the defaults on 5 and lost on 2 (mean ACC regret 1.21 against 1.76, NMI 1.20 "
    "against 2.42). Use it to explore and compare with the defaults, which stay the default."
)


@dataclass(frozen=True)
class SuggestionRun:
    """What :func:`run_suggestion` returns.

    Attributes
    ----------
    suggestion : rmsc.selection.Suggestion
        As :func:`rmsc.selection.suggest_parameters` returns it, without the fitted
        model (``model=None``: the page needs its numbers only, and the server keeps less).
    weighting : str
        "sample" (RMSC) or "view" (RMSC-WV): the method the settings were fitted with.
    n_clusters : int
    scores : dict or None
        :func:`rmsc.evaluate_runs` of the suggested setting against the labels (acc_mean,
        nmi_mean, ...), or None when the data have no usable labels.
    seconds : float
        The whole run where it ran (every setting's turn, the scoring, the reports):
        beside ``suggestion.timings``, what the settings' turns leave out.
    scoring : float
        Seconds of the scoring against the labels.
    """

    suggestion: Suggestion
    weighting: str
    n_clusters: int
    scores: dict | None = None
    seconds: float = 0.0
    scoring: float = 0.0

    @property
    def method(self):
        """The registry name of the method the settings were fitted with."""
        return rmsc_method(self.weighting)


def suggestion_settings(params, dataset):
    """The fixed keyword arguments of a suggestion: every Solve setting but λ and β
    (``beta`` and ``beta_rel``).

    Returns
    -------
    dict
        ``n_clusters``, ``random_state`` (the seed), ``gamma``, ``max_iter``, ``tol``,
        ``top_k``, ``scale_columns``, ``placement``; raises ValueError (with the reason)
        when the number of clusters is not known.
    """
    est = estimator_params(params, dataset)
    for name in ("lam", "beta", "beta_rel"):
        est.pop(name)
    return est


def suggestion_key(params, dataset):
    """A small cache key of a suggestion run: the data and every setting it depends on
    (not λ and β, which it chooses)."""
    settings = suggestion_settings(params, dataset)
    return ("suggest", dataset.fingerprint, params.weighting,
            json.dumps(settings, sort_keys=True, default=str),
            tuple(SUGGEST_LAMS), tuple(SUGGEST_BETA_RELS))


def run_suggestion(dataset, params, job=None, *, lams=SUGGEST_LAMS,
                   beta_rels=SUGGEST_BETA_RELS):
    """:func:`rmsc.selection.suggest_parameters` on ``dataset`` with the Solve page's settings.

    Parameters
    ----------
    dataset : MultiViewDataset
    params : Params
        The page's parameters: their method (weighting), γ, iterations, tolerance,
        post-processing, seed and number of clusters are used; λ and β are chosen.
    job : Job or None
        Receives "setting k of K" progress; cancelling it stops the run at the next
        iteration or setting (:class:`rmsc.dashboard.Cancelled`).
    lams, beta_rels : sequence of float
        The grid (default: the library's).

    Returns
    -------
    SuggestionRun

    Raises
    ------
    rmsc.DegenerateSolutionError
        When no setting gives a usable clustering (a ValueError: a job shows its message).
    """
    start = time.perf_counter()
    settings = suggestion_settings(params, dataset)
    n_clusters = settings.pop("n_clusters")
    seed = settings.pop("random_state")
    progress = callback = None
    if job is not None:
        progress = job.report

        def callback(iteration, objective, weights):
            job.check()  # a cancel also ends the setting being fitted (at its next iteration)
            return False

    out = suggest_parameters(list(dataset.views), n_clusters, weighting=params.weighting,
                             lams=lams, beta_rels=beta_rels, random_state=seed,
                             progress=progress, callback=callback, **settings)
    t0 = time.perf_counter()
    labels = scoring_labels(dataset)
    scores = None if labels is None else evaluate_runs(labels, out.model.label_runs_)
    end = time.perf_counter()
    return SuggestionRun(suggestion=dataclasses.replace(out, model=None),
                         weighting=params.weighting, n_clusters=int(n_clusters), scores=scores,
                         seconds=end - start, scoring=end - t0)


def apply_suggestion(params, run):
    """``params`` with λ and β of a :class:`SuggestionRun` (and its method), the rest kept.

    β becomes "auto" with the suggestion's ``beta_rel`` (in the data's own units), not the
    absolute β it gave here: the same fit on these data ("auto" fixes β once, from the
    data, before the iterations), and the setting a shared URL means on other data.
    """
    s = run.suggestion
    return params.replace(lam=float(s.params["lam"]), beta=AUTO,
                          beta_rel=float(s.params["beta_rel"]), weighting=run.weighting)


#: The table's column of the k-means runs' agreement (the third rule of the ranking).
AGREEMENT = "agreement (ARI)"


def suggestion_table(suggestion):
    """Every setting tried, as the page shows it: one row each, the suggested one marked.

    Columns: "λ", "β_rel", "β" (absolute, on these data), then what the suggestion ranks
    by, in its order: "isolated", "pieces", "agreement (ARI)" (of the k-means runs); then
    "eigengap", "suggested" (bool), "note" (why a setting gave no clustering).
    """
    rows = []
    for i, r in enumerate(suggestion.table):
        failed = "error" in r
        rows.append({
            "λ": r["lam"], "β_rel": r["beta_rel"], "β": r.get("beta", float("nan")),
            "isolated": pd.NA if failed else int(r["isolated"]),
            "pieces": pd.NA if failed else int(r["pieces"]),
            AGREEMENT: (float("nan") if failed or r.get("agreement") is None
                        else float(r["agreement"])),
            "eigengap": float("nan") if failed else r["eigengap"],
            "suggested": i == suggestion.best,
            "note": page_words(_first_sentence(r["error"])) if failed else "",
        })
    df = pd.DataFrame(rows)
    for col in ("isolated", "pieces"):
        df[col] = df[col].astype("Int64")
    return df


def _first_sentence(text):
    """The failure's reason without the advice that follows it (the grid is fixed here)."""
    head, sep, _ = str(text).partition(". ")
    return head + ("." if sep else "")
