"""Is a view easy to rebuild because it has few features, or because its spread lies along few
directions? (the lesson's study; docs/lesson.md, "Few features or few directions?")

    python docs/studies/study_view_dimension.py [--data Digit-small ...] [--max-iter N]

For each view of each bundled dataset (Digit, Digit-small, Reuter, 3-Sources by default):
its number of features; two effective dimensions of its spread after the paper's unit-L2
scaling of each sample (the scaling RMSC fits and step 1's panels draw), from
:func:`rmsc.preprocessing.spread_directions` (what the lesson's step 6 says): the share of
the spread along its first principal direction (PC1 %, step 1's number) and the
participation ratio of the covariance spectrum, (Σλ)² / Σλ² (1 when the spread lies along
one direction, the number of directions when it is spread evenly over them); and, from one RMSC fit at the
lesson's parameters (the dashboard's defaults, :class:`rmsc.dashboard.params.Params`, to
convergence), the view's median per-sample loss (step 6's "median loss", in the data's units)
and its median weight P. The last columns rank the views of each dataset by median loss (1 =
smallest: the easiest to rebuild) and by each candidate explanation.

Not smoke-tested: a one-off study, its table in docs/lesson.md, measured on branch w-lesson11
at commit 05fa700 with this study and :func:`rmsc.preprocessing.spread_directions` added
(the fit's code as at 12bcbab; 2026-11-29 03:40 UTC, 2 shared cores, load about 10).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, one thread)

_preamble.one_thread()

import numpy as np  # noqa: E402
from scipy.stats import rankdata  # noqa: E402

from rmsc import RMSC, datasets, inspection  # noqa: E402
from rmsc.dashboard.fitting import fit_request  # noqa: E402
from rmsc.dashboard.params import Params  # noqa: E402
from rmsc.preprocessing import spread_directions  # noqa: E402

DATASETS = ("Digit-small", "Digit", "3-Sources", "Reuter")


def study(name, max_iter):
    data = datasets.load_bundled(name)
    _, kwargs = fit_request(Params(max_iter=max_iter), data)
    model = RMSC(**{k: v for k, v in kwargs.items() if k in RMSC().get_params()})
    model.fit(list(data.views))
    shares = inspection.view_weight_shares(
        model.weights_, gamma=model.gamma, view_names=list(data.view_names),
        factors=model.view_factors_, scale=getattr(model, "loss_scale_", None),
        n_features=[X.shape[1] for X in data.views])
    rows = []
    for v, view in enumerate(data.view_names):
        spread = spread_directions(data.views[v])
        rows.append((view, data.views[v].shape[1], 100 * spread["pc1"], spread["directions"],
                     shares[v]["median_loss"], float(np.median(model.weights_[v]))))
    loss_rank = rankdata([r[4] for r in rows])
    feat_rank = rankdata([r[1] for r in rows])
    pr_rank = rankdata([r[3] for r in rows])
    for r, a, b, c in zip(rows, loss_rank, feat_rank, pr_rank):
        print(f"| {name} | {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.2f} | {r[4]:.3g} | {r[5]:.3g} "
              f"| {a:g} | {b:g} | {c:g} |")
    return name, model.n_iter_, _rho(loss_rank, feat_rank), _rho(loss_rank, pr_rank)


def _rho(a, b):
    """Spearman's correlation of two rankings (of ranks: Pearson's), None when one ranks
    every view alike (all views with as many features)."""
    return None if np.ptp(a) == 0 or np.ptp(b) == 0 else float(np.corrcoef(a, b)[0, 1])


def _said(rho):
    return "n/a (all views alike)" if rho is None else f"{rho:+.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=list(DATASETS))
    ap.add_argument("--max-iter", type=int, default=Params().max_iter)
    args = ap.parse_args()
    print("| dataset | view | features | PC1 % | participation ratio | median loss | "
          "median P | rank by loss | rank by features | rank by participation ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    summary = [study(name, args.max_iter) for name in args.data]
    print("\nSpearman correlation of the views' median loss with (features, participation "
          "ratio), per dataset:")
    for name, n_iter, rho_f, rho_p in summary:
        print(f"- {name} ({n_iter} iterations): features {_said(rho_f)}, participation "
              f"ratio {_said(rho_p)}")


if __name__ == "__main__":
    main()
