"""Why does RMSC reach ~90 % ACC when one view, MOR, has ~89 % of the say in Z*? (the
lesson's study; docs/lesson.md, "The top view's share and the classes")

    python docs/studies/study_lesson_mor.py [--data Digit-small] [--max-iter N]

RMSC fitted as the lesson fits it (the dashboard's parameters, to convergence as the
shipped lesson and its browser test fit it; ``--max-iter 30`` gives the capped fits of the
first measurement), on the clean data and with the lesson's outliers (10 % replaced in
PIX and FOU, seed 0). For each view: its share of ΣcᵥP (the lesson's step 6 table) and of ΣP
(the same fit's weights without cᵥ, step 6's column since the eighth reading), its view scale
cᵥ, how far its own table Zᵛ inside the fit is from Z* (:meth:`rmsc.RMSC.consensus_gaps`),
its ACC on its own (:func:`rmsc.inspection.view_quality`: SC-BSV's per-view runs, the number
step 6 now prints), and the ACC of its Zᵛ inside the fit clustered as RMSC clusters Z* (the
same affinity and spectral step). Then the ACC of a consensus made of every view but the top
one (their Zᵛ averaged with their weights cᵥP, thresholded to Z*'s density): whether the top
view's share adds anything the other views do not. And the same shares under the paper's
model (``loss_scale=None``, γ = 1e-5: every cᵥ = 1). Last, step 2's post-processing
swapped: SSC-AVG and RMSC each with and without column scaling.

Not smoke-tested: a one-off study (seconds on Digit-small), its table in docs/lesson.md,
first measured at commit c4897e0 (branch w-lesson8, 2026-11-29 00:10, load average about 2,
capped at 30 iterations), then at commit 70d07ec (branch integ, 00:30, load about 5, to
convergence: 145 iterations); the "share of ΣP %" column added and measured on branch
w-lesson9 (2026-11-29 00:40, load about 6; the other columns unchanged).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, one thread)

_preamble.one_thread()

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from rmsc import RMSC, datasets, inspection  # noqa: E402
from rmsc.dashboard.fitting import fit_request  # noqa: E402
from rmsc.dashboard.params import OutlierSpec, Params  # noqa: E402
from rmsc.dashboard.runs import compare_params  # noqa: E402
from rmsc.experiments.protocol import run_one  # noqa: E402
from rmsc.metrics import evaluate_runs  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402
from rmsc.rmsc import PAPER_MODEL, affinity_from_coefficients, embed_and_cluster  # noqa: E402


def cluster_acc(model, table, views, labels):
    """ACC % (mean ± std over the k-means runs) of ``table`` clustered as RMSC clusters Z*."""
    A = affinity_from_coefficients(sp.csr_matrix(table), keep_mass=model.keep_mass,
                                   top_k=model.top_k, scale_columns=model.scale_columns)
    _, _, runs = embed_and_cluster(A, views, model.weights_, model.n_clusters,
                                   placement=model.placement, random_state=model.random_state)
    s = evaluate_runs(labels, runs.runs)
    return f"{100 * s['acc_mean']:.2f} ± {100 * s['acc_std']:.2f}"


def study(data, params, name, paper=None):
    _, kwargs = fit_request(params, data)
    model = RMSC(**{k: v for k, v in kwargs.items() if k in RMSC().get_params()})
    model.fit(list(data.views))
    y = np.asarray(data.labels)
    W = model.view_factors_[:, None] * model.weights_
    share = W.sum(axis=1) / W.sum()
    bare = model.weights_.sum(axis=1) / model.weights_.sum()  # the same fit's P without cᵥ
    gaps = model.consensus_gaps(list(data.views))
    Zs = model.view_representations(list(data.views))
    views = [normalize_l2(X, view=v) for v, X in enumerate(data.views)]
    alone = inspection.view_quality(list(data.views), model.n_clusters, y,
                                    view_names=list(data.view_names), random_state=0)
    print(f"\n### {name}: RMSC ACC {cluster_acc(model, model.consensus_, views, y)} % "
          f"({model.n_iter_} iterations)\n")
    print("| view | features | share of ΣcᵥP % | share of ΣP % | cᵥ | ‖Zᵛ − Z*‖ / ‖Z*‖ % | ACC alone % "
          "| ACC of its Zᵛ in the fit % |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for v, view in enumerate(data.view_names):
        print(f"| {view} | {data.views[v].shape[1]} | {100 * share[v]:.1f} | "
              f"{100 * bare[v]:.1f} | {model.view_factors_[v]:.3g} | {100 * gaps[v]:.1f} | "
              f"{100 * alone[v]['acc']:.2f} | {cluster_acc(model, Zs[v], views, y)} |")
    top = int(np.argmax(share))
    rest = [v for v in range(len(Zs)) if v != top]
    A = sum(W[v][None, :] * Zs[v] for v in rest) / W[rest].sum(axis=0)[None, :]
    Z = model.consensus_.toarray()
    cut = np.quantile(np.abs(A), 1 - (Z != 0).mean())
    A = np.sign(A) * np.maximum(np.abs(A) - cut, 0)
    np.fill_diagonal(A, 0)
    print(f"\nA consensus of every view but {data.view_names[top]} (their Zᵛ averaged with "
          f"cᵥP, thresholded to Z*'s density {100 * (Z != 0).mean():.1f} %): ACC "
          f"{cluster_acc(model, A, views, y)} %")
    if paper is not None:
        p = RMSC(**{**{k: v for k, v in kwargs.items() if k in RMSC().get_params()},
                    **PAPER_MODEL}).fit(list(data.views))
        ps = p.weights_.sum(axis=1) / p.weights_.sum()
        print("\nThe paper's model (every cᵥ = 1, γ = 1e-5), shares of ΣP %: "
              + ", ".join(f"{v} {100 * s:.1f}" for v, s in zip(data.view_names, ps)))
    return share


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="Digit-small")
    ap.add_argument("--max-iter", type=int, default=Params().max_iter)
    args = ap.parse_args()
    clean = datasets.load_bundled(args.data)
    params = Params(max_iter=args.max_iter)
    study(clean, params, f"{args.data}, clean", paper=True)
    spec = OutlierSpec(views=("PIX", "FOU"), fraction=0.1, kind="replace", severity=1, seed=0)
    study(spec.inject(clean), params, f"{args.data}, 10 % replaced in PIX and FOU")
    # step 2's post-processing mismatch: each method with the other's column scaling
    cparams = compare_params(params, clean, ["SSC-AVG", "RMSC"])
    print(f"\n### {args.data}, step 2's post-processing swapped\n")
    for method, scale in (("SSC-AVG", False), ("SSC-AVG", True), ("RMSC", True),
                          ("RMSC", False)):
        s, _ = run_one(method, {**cparams.get(method, {}), "scale_columns": scale},
                       list(clean.views), np.asarray(clean.labels), random_state=0)
        print(f"{method}, scale_columns={scale}: ACC {100 * s['acc_mean']:.2f} ± "
              f"{100 * s['acc_std']:.2f} %")


if __name__ == "__main__":
    main()
