"""What RMSC's weights say on Digit, before and after the stability study's defaults.

    python docs/studies/bench_weights.py [--datasets Digit Digit+outliers]
    python docs/studies/bench_weights.py --smoke     # Digit-small, a few iterations (the tests)

For RMSC at the defaults before the stability study (the paper's model, tol 1e-4, at most 30
iterations) and at today's defaults (``rmsc.RMSC()``), on Digit and on Digit with 10 % of
its samples replaced in PIX and FOU (``rmsc.datasets.inject``, random_state=0): each
view's share of the consensus weight and of its samples at the weight cap
(:mod:`rmsc.inspection`), the plain-words message the Weights page gets
(:func:`rmsc.inspection.dominance_message`), ACC/NMI, and, with outliers, how well the
weights find them: ROC AUC of the P-based score (:func:`rmsc.outliers.scores`) in each
corrupted view.

``--smoke`` (benchmarks/_preamble.py): Digit-small instead of Digit, Digit+outliers only
unless ``--datasets`` is given, at most :data:`SMOKE_ITERS` iterations per fit; its numbers
mean nothing.

Measured: the tables of docs/stability.md (the weights' tables) were written at commit
a827151 (2026-11-26), on that commit's code. Not smoke-tested: a one-off, kept as the record
of that run; later code may not run it unchanged (to rerun it, check out that commit).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

_preamble.one_thread()  # before numpy

import argparse  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402


import rmsc  # noqa: E402
from rmsc import outliers  # noqa: E402
from rmsc.inspection import dominance_message, view_weight_shares  # noqa: E402

BEFORE = {"loss_scale": None, "gamma": 1e-5, "stop_on": "objective", "tol": 1e-4,
          "max_iter": 30}

#: Most iterations of a smoke run's fits.
SMOKE_ITERS = 5


def load(name, smoke=False):
    d = _preamble.digit(smoke)
    if name == "Digit+outliers":
        d = rmsc.datasets.inject(d, ["PIX", "FOU"], 0.1, kind="replace", random_state=0)
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=None,
                    help="Digit and/or Digit+outliers (default: both; --smoke: the second)")
    _preamble.add_argument(ap)
    args = ap.parse_args()
    datasets = args.datasets or (["Digit+outliers"] if args.smoke else ["Digit", "Digit+outliers"])
    warnings.simplefilter("ignore")
    for name in datasets:
        d = load(name, args.smoke)
        if args.smoke:
            name = name.replace("Digit", "Digit-small")
        nf = [X.shape[1] for X in d.views]
        for label, params in (("before (paper model, 30 it)", BEFORE), ("today's defaults", {})):
            if args.smoke:
                params = {**params, "max_iter": SMOKE_ITERS}
            est = rmsc.RMSC(d.n_clusters, random_state=0, **params).fit(list(d.views))
            s = rmsc.evaluate_runs(d.labels, est.label_runs_)
            rows = view_weight_shares(est.weights_, gamma=est.gamma, view_names=d.view_names,
                                      factors=est.view_factors_, scale=est.loss_scale_,
                                      n_features=nf)
            print(f"\n### {name}, RMSC {label}: ACC {100 * s['acc_mean']:.2f}, NMI "
                  f"{100 * s['nmi_mean']:.2f}, {est.n_iter_} iterations, gamma {est.gamma:g}\n")
            auc = {}
            if d.outlier_mask is not None:
                table = outliers.evaluate(outliers.scores(est), d.outlier_mask, d.view_names)
                auc = {r["view"]: r["roc_auc"] for _, r in table.iterrows()
                       if r["outliers"] > 0}
            print("| view | features | share of the consensus weight | at the cap | "
                  "median P | outlier ROC AUC |")
            print("|---|---:|---:|---:|---:|---:|")
            for r, v in zip(rows, range(len(rows))):
                a = auc.get(r["view"])
                print(f"| {r['view']} | {r['n_features']} | {100 * r['share']:.1f} % | "
                      f"{100 * r['at_cap']:.1f} % | {np.median(est.weights_[v]):.3g} | "
                      f"{'' if a is None else f'{a:.3f}'} |")
            msg = dominance_message(est.weights_, gamma=est.gamma, view_names=d.view_names,
                                    factors=est.view_factors_, scale=est.loss_scale_,
                                    n_features=nf)
            print(f"\nMessage: {msg or '(none: no view carries most of the weight)'}")


if __name__ == "__main__":
    main()
