"""Does RMSC's trust follow how informative each view is, and what does the rule for
uninformative samples change? (the weights study; docs/weights.md)

    python docs/studies/study_weights.py [--datasets Subspaces 3-Sources Digit-small Digit]
    python docs/studies/study_weights.py --models default balanced consensus dof paper \
        --converged --datasets Subspaces 3-Sources Digit-small   # the view_balance models
    python docs/studies/study_weights.py --smoke     # Digit-small, a few iterations (the tests)

For every dataset, clean and with 10 % of its samples replaced in its first two views
(``rmsc.datasets.inject``, random_state=0), RMSC at today's defaults with the rule for
uninformative samples (``uninformative="typical"``: a sample all zero or repeated in a
view keeps the view's typical start weight) and without it (``uninformative=None``, the
P-step for every weight), beside the paper's exact model (``PAPER_MODEL``):

* ``uninf.``: (view, sample) pairs that carry no information (all zero or repeated,
  :func:`rmsc.solver.uninformative_samples`); ``at cap``: the share of them whose weight
  is at the cap (:func:`rmsc.inspection.at_cap`); ``top``: the share of them whose weight is
  their view's highest (within 1e-9);
* ACC / NMI (paper protocol, 20 k-means runs), iterations;
* rho: Spearman's correlation between each view's share of the consensus weight and its
  own ACC (SC-BSV on the view alone; :func:`rmsc.inspection.trust_vs_quality`);
* AUC: the outlier ROC AUC of the weights (:func:`rmsc.outliers.scores`), mean over the
  corrupted views.

``--models`` picks the models among :data:`MODELS` (the view_balance candidates among
them: "balanced", "consensus", "dof", "two_level"; docs/weights.md); ``--clean`` leaves the injected outliers out, ``--outliers`` the clean data; ``--converged`` adds each fit run
to convergence (:data:`CONVERGED`: the same stopping rule, tol ten times smaller): its
ACC, NMI and iterations. rho is "—" where the shares are equal by construction
("consensus").

``--converged-only``: only those converged fits (ACC, NMI, iterations), for cells whose
default-stop columns are already measured.

``--smoke`` (benchmarks/_preamble.py): Digit-small only, clean, at most :data:`SMOKE_ITERS`
iterations per fit; its numbers mean nothing.

Measured: the tables of docs/weights.md, "Measured" were written at commit ad17cfd
(2026-11-28), on that commit's code; the cells added later ("consensus" and "dof" on Digit
with outliers, every Reuter row) at commit cb1b723; the rows of "(B4) two levels" on the code
of commit a10e652; the converged cells on Digit and Reuter and Reuter's "two_level" rows at
commit d120304. Rerun it to update them (smoke-tested:
tests/benchmarks/test_benchmarks.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

_preamble.one_thread()  # before numpy

import argparse  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402


import rmsc  # noqa: E402
from rmsc import datasets, outliers, solver  # noqa: E402
from rmsc.inspection import at_cap, trust_vs_quality, view_quality, view_weight_shares  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402
from rmsc.rmsc import PAPER_MODEL  # noqa: E402

#: The models compared: label -> RMSC keyword arguments.
MODELS = {
    "defaults, rule": {},
    "defaults, no rule": {"uninformative": None},
    "paper model": PAPER_MODEL,
    "default": {},
    "balanced": {"view_balance": "balanced"},
    "consensus": {"view_balance": "consensus"},
    "dof": {"view_balance": "dof"},
    "paper": PAPER_MODEL,
    "paper, balanced": {**PAPER_MODEL, "view_balance": "balanced"},
    "two_level": {"view_balance": "two_level"},
    "paper, two_level": {**PAPER_MODEL, "view_balance": "two_level"},
}

#: The models compared without ``--models`` (the rule for uninformative samples).
RULE_MODELS = ["defaults, rule", "defaults, no rule", "paper model"]

#: "Converged" (``--converged``): the default stopping rule with a tolerance ten times smaller.
CONVERGED = {"tol": 3e-4, "max_iter": 600}

#: Most iterations of a smoke run's fits.
SMOKE_ITERS = 5

DATASETS = ["Subspaces", "3-Sources", "Digit-small", "Digit"]


def variants(name, smoke, clean=False, outliers=False):
    d = datasets.load_bundled(name)
    if not outliers:
        yield name, d
    if not (smoke or clean):
        yield name + " + outliers", datasets.inject(d, [0, 1], 0.1, kind="replace",
                                                    random_state=0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=None, help=f"default: {DATASETS}")
    ap.add_argument("--models", nargs="+", default=None, choices=list(MODELS),
                    help=f"default: {RULE_MODELS}")
    ap.add_argument("--converged", action="store_true",
                    help="also run every fit to convergence (tol 3e-4)")
    ap.add_argument("--converged-only", action="store_true",
                    help="only the fits run to convergence: ACC, NMI and iterations (the "
                         "default stop's columns already measured are not rerun)")
    ap.add_argument("--clean", action="store_true",
                    help="the clean data only (no injected outliers)")
    ap.add_argument("--outliers", action="store_true",
                    help="the data with injected outliers only")
    _preamble.add_argument(ap)
    args = ap.parse_args()
    models = args.models or RULE_MODELS
    names = args.datasets or (["Digit-small"] if args.smoke else DATASETS)
    warnings.simplefilter("ignore")
    conv = args.converged
    if args.converged_only:
        print("| data | model | ACC conv. | NMI conv. | it. conv. |")
        print("|---|---|---:|---:|---:|")
        for name in names:
            for label, d in variants(name, args.smoke, args.clean, args.outliers):
                for model in models:
                    params = MODELS[model]
                    if args.smoke:
                        params = {**params, "max_iter": SMOKE_ITERS}
                    start = time.perf_counter()
                    print(f"| {label} | {model} |" + _converged(d, list(d.views), params,
                                                                   args.smoke),
                          flush=True)
                    print(f"{label}, {model}: {time.perf_counter() - start:.0f} s, load "
                          f"{os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
        return
    print("| data | model | uninf. | at cap | top | ACC | NMI | iterations | rho | AUC |"
          + (" ACC conv. | NMI conv. | it. conv. |" if conv else ""))
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|---:|" if conv else ""))
    for name in names:
        for label, d in variants(name, args.smoke, args.clean, args.outliers):
            views = list(d.views)
            mask = solver.uninformative_samples([normalize_l2(X) for X in views])
            quality = view_quality(views, d.n_clusters, d.labels, view_names=d.view_names,
                                   random_state=0, **({"n_init": 2} if args.smoke else {}))
            for model in models:
                params = MODELS[model]
                if args.smoke:
                    params = {**params, "max_iter": SMOKE_ITERS}
                est = rmsc.RMSC(d.n_clusters, random_state=0, **params).fit(views)
                P = np.asarray(est.weights_)
                s = rmsc.evaluate_runs(d.labels, est.label_runs_)
                shares = view_weight_shares(P, gamma=est.gamma, view_names=d.view_names,
                                            factors=est.view_factors_, scale=est.loss_scale_)
                rho = trust_vs_quality(shares, quality).rho
                rho = "—" if not np.isfinite(rho) else f"{rho:+.2f}"
                cap = at_cap(P, est.gamma)[mask]
                top = (P >= P.max(axis=1, keepdims=True) * (1 - 1e-9))[mask]
                auc = ""
                if d.outlier_mask is not None:
                    table = outliers.evaluate(outliers.scores(est), d.outlier_mask,
                                              d.view_names)
                    auc = f"{table.loc[table['outliers'] > 0, 'roc_auc'].mean():.3f}"
                frac = (lambda x: f"{100 * x.mean():.0f} %" if x.size else "—")  # noqa: E731
                print(f"| {label} | {model} | {int(mask.sum())} | {frac(cap)} | {frac(top)} | "
                      f"{100 * s['acc_mean']:.2f} | {100 * s['nmi_mean']:.2f} | {est.n_iter_} | "
                      f"{rho} | {auc} |" + (_converged(d, views, params, args.smoke) if conv else ""),
                      flush=True)


def _converged(d, views, params, smoke=False):
    """The ``--converged`` columns: the same fit run to :data:`CONVERGED` (a smoke run's
    still capped at :data:`SMOKE_ITERS`)."""
    cap = {"max_iter": SMOKE_ITERS} if smoke else {}
    est = rmsc.RMSC(d.n_clusters, random_state=0, **{**params, **CONVERGED, **cap}).fit(views)
    s = rmsc.evaluate_runs(d.labels, est.label_runs_)
    return f" {100 * s['acc_mean']:.2f} | {100 * s['nmi_mean']:.2f} | {est.n_iter_} |"


if __name__ == "__main__":
    main()
