"""The stability study §3: which label-free criterion should ``suggest_parameters`` use, if any?

    python docs/studies/study_suggestion.py [--model "s1 g1e-2"] [--rule "obj 1e-4"]
                                          [--max-iter 100] [--cap 300]
    python docs/studies/study_suggestion.py --smoke    # tiny data, seconds (the tests)

Reads the trajectories of ``docs/studies/study_stability.py`` (run that first): for every
dataset and method, the grid of settings (lambda x beta_rel) run under ``--model``, each
scored where the stopping rule (``--rule`` with ``--max-iter``, the estimator's defaults)
stops it: ACC (mean of the 20 k-means runs) and the label-free criteria measured on the
same iterate (see ``study_stability.label_free``). For each criterion (:data:`CRITERIA`):

* its Spearman rank correlation with ACC across the grid, per dataset;
* its regret: the labelled best ACC of the grid minus the ACC of the setting it picks;
* leave-one-dataset-out (LODO): for each dataset, the criterion of least mean regret on
  the *other* datasets (ties: higher mean rank correlation) is applied to it; its regret
  there is compared with the defaults' (the grid's default setting, picked without
  looking at anything).

A criterion earns the suggestion button only if its LODO regret beats the defaults'.

``--smoke`` analyses ``study_stability``'s smoke runs (:func:`study_stability.run_smoke`:
Subspaces, a few iterations), run now into a temporary folder, instead of the cache;
its numbers mean nothing (benchmarks/_preamble.py).

Measured: the tables of docs/stability.md, §3 (the label-free suggestion) were written at
commit a827151 (2026-11-26), on that commit's code. Rerun it to update them (smoke-tested:
tests/benchmarks/test_benchmarks.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

import argparse
import tempfile

import numpy as np
from scipy.stats import spearmanr


from study_stability import load, load_results, run_smoke  # noqa: E402
from study_stability_tables import DATASET_ORDER, score_at, stop_of  # noqa: E402


def _lap(cell, c):
    """Normalised-Laplacian eigenvalues l_1 <= ... (1 - the recorded w, ascending)."""
    w = np.sort(np.asarray(cell["eig"]))[::-1]
    return 1.0 - w


def _connected(cell, c):
    return (cell.get("isolated", 0), max(0, cell["pieces"] - c))


#: Criteria: name -> (description, key(cell, c) -> sort key, smaller is better).
CRITERIA = {
    "eigengap": ("today's: fewest isolated, no excess pieces, then the largest "
                 "eigengap l_{c+1} - l_c",
                 lambda cell, c: (*_connected(cell, c), -cell["eigengap"])),
    "relative gap": ("connectivity, then the largest (l_{c+1} - l_c) / l_{c+1}",
                     lambda cell, c: (*_connected(cell, c),
                                      -(_lap(cell, c)[c] - _lap(cell, c)[c - 1])
                                      / max(_lap(cell, c)[c], 1e-12))),
    "cut": ("connectivity, then the smallest sum of the c smallest eigenvalues "
            "l_1 + ... + l_c (the relaxed normalised cut)",
            lambda cell, c: (*_connected(cell, c), float(np.sum(_lap(cell, c)[:c])))),
    "k-means agreement": ("connectivity, then the largest mean ARI of the 20 k-means runs "
                          "with the chosen one",
                          lambda cell, c: (*_connected(cell, c), -cell["kmeans_ari"])),
    "gap x agreement": ("connectivity, then the largest eigengap x k-means agreement",
                        lambda cell, c: (*_connected(cell, c),
                                         -cell["eigengap"] * cell["kmeans_ari"])),
}


def cell_at(run, it):
    if it >= run["n_iter"] and run.get("final"):
        return run["final"]
    return run["full"].get(str(it))


def grids(results, model, rule, max_iter):
    """(method, dataset) -> list of (lam, beta_rel, acc, cell) over the settings run."""
    out = {}
    for r in results:
        if r.get("model") != model or "f" not in r or not r.get("final"):
            continue
        it = stop_of(r, rule, max_iter)
        sc = score_at(r, it)
        cell = cell_at(r, it)
        if sc is None or cell is None or "eig" not in cell:
            continue
        out.setdefault((r["method"], r["dataset"]), []).append(
            (r["lam"], r["beta_rel"], sc[0], cell, r["n_clusters"] if "n_clusters" in r
             else None))
    return out


def n_clusters_of(name):
    return load(name)[2]


def analyse(results, model, rule, max_iter, defaults, only=None):
    g = grids(results, model, rule, max_iter)
    if only:
        g = {k: v for k, v in g.items() if k[1] in only}
    for method in ("RMSC", "RMSC-WV"):
        names = [d for d in DATASET_ORDER if (method, d) in g]
        if not names:
            continue
        lam0, rel0 = defaults[method]
        # settings run on every dataset
        common = set.intersection(*[{(s[0], s[1]) for s in g[(method, d)]} for d in names])
        if (lam0, rel0) not in common:
            print(f"\n{method}: the default setting was not run on every dataset; skipped.")
            continue
        per = {}
        for d in names:
            c = n_clusters_of(d)
            rows = sorted([s for s in g[(method, d)] if (s[0], s[1]) in common])
            accs = np.array([s[2] for s in rows])
            best = accs.max()
            default_acc = accs[[(s[0], s[1]) for s in rows].index((lam0, rel0))]
            crit = {}
            for name, (_, key) in CRITERIA.items():
                keys = [key(s[3], c) for s in rows]
                pick = min(range(len(rows)), key=lambda i: keys[i])
                score = np.array([-k[-1] for k in keys], dtype=float)
                rho = spearmanr(score, accs).statistic if np.ptp(accs) > 0 and \
                    np.ptp(score) > 0 else float("nan")
                crit[name] = {"regret": best - accs[pick], "rho": rho,
                              "pick": rows[pick][:2]}
            per[d] = {"best": best, "default_regret": best - default_acc, "crit": crit,
                      "n": len(rows)}
        print(f"\n### {method} ({model}, rule {rule}, max_iter {max_iter}): "
              f"{len(common)} settings per dataset (λ × β_rel), default λ = {lam0:g}, "
              f"β_rel = {rel0:g}\n")
        print("Spearman ρ of each criterion's score with ACC across the grid (nan: ACC or the "
              "score constant), and its regret (labelled best − its pick, ACC points):\n")
        print("| dataset | best ACC | defaults' regret | "
              + " | ".join(f"{k}: ρ / regret" for k in CRITERIA) + " |")
        print("|---|---|---|" + "---|" * len(CRITERIA))
        for d in names:
            p = per[d]
            cells = [f"{p['crit'][k]['rho']:.2f} / {p['crit'][k]['regret']:.2f}"
                     for k in CRITERIA]
            print(f"| {d} | {p['best']:.2f} | {p['default_regret']:.2f} | "
                  + " | ".join(cells) + " |")
        means = {k: np.mean([per[d]["crit"][k]["regret"] for d in names]) for k in CRITERIA}
        rhos = {k: np.nanmedian([per[d]["crit"][k]["rho"] for d in names]) for k in CRITERIA}
        print("| mean regret / median ρ | | "
              f"{np.mean([per[d]['default_regret'] for d in names]):.2f} | "
              + " | ".join(f"{rhos[k]:.2f} / {means[k]:.2f}" for k in CRITERIA) + " |")
        print("\nLeave one dataset out: the criterion of least mean regret on the other "
              "datasets, applied to the one left out, against the defaults:\n")
        print("| left out | criterion chosen on the others | its pick (λ, β_rel) | regret | "
              "defaults' regret | better than the defaults by |")
        print("|---|---|---|---|---|---|")
        lodo, base = [], []
        for d in names:
            others = [o for o in names if o != d]

            def rank(k):
                return (np.mean([per[o]["crit"][k]["regret"] for o in others]),
                        -np.nanmean([per[o]["crit"][k]["rho"] for o in others] or [0]))
            chosen = min(CRITERIA, key=rank)
            r = per[d]["crit"][chosen]
            lodo.append(r["regret"])
            base.append(per[d]["default_regret"])
            print(f"| {d} | {chosen} | {r['pick'][0]:g}, {r['pick'][1]:g} | {r['regret']:.2f} | "
                  f"{per[d]['default_regret']:.2f} | {per[d]['default_regret'] - r['regret']:+.2f} |")
        print(f"| **mean** | | | **{np.mean(lodo):.2f}** | **{np.mean(base):.2f}** | "
              f"{np.mean(base) - np.mean(lodo):+.2f} |")
        print(f"| **max** | | | **{np.max(lodo):.2f}** | **{np.max(base):.2f}** | |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="s1 g1e-2")
    ap.add_argument("--rule", default="obj 1e-4")
    ap.add_argument("--max-iter", type=int, default=100)
    ap.add_argument("--cap", type=int, default=300)
    ap.add_argument("--default-rel", type=float, default=0.25)
    ap.add_argument("--datasets", nargs="+", default=None,
                    help="only these datasets (e.g. those run over the whole grid)")
    _preamble.add_argument(ap, "study_stability's smoke runs, run now into a temporary folder")
    args = ap.parse_args()
    defaults = {"RMSC": (1.0, args.default_rel), "RMSC-WV": (3.0, args.default_rel)}
    print("Criteria:")
    for k, (text, _) in CRITERIA.items():
        print(f"- {k}: {text}")
    if args.smoke:
        with tempfile.TemporaryDirectory() as tmp:
            results = run_smoke(tmp)
    else:
        results = load_results(args.cap)
    analyse(results, args.model, args.rule, args.max_iter, defaults, args.datasets)


if __name__ == "__main__":
    main()
