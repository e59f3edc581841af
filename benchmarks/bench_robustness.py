"""Robustness to outliers on Digit: clustering quality and outlier detection (the robustness study).

    python benchmarks/bench_robustness.py [--kinds replace noise inconsistent features]
        [--fractions 0.1 0.2] [--seeds 0 1 2] [--methods RMSC RMSC-WV SSC-AVG]
        [--views PIX FOU] [--no-clean] [--json out.json] [--smoke]
    python benchmarks/bench_robustness.py --summarize a.json b.txt ...

For every injection kind x fraction x seed (plus the clean data for every seed),
``rmsc.outliers.inject`` corrupts the same samples in the chosen views (seeded),
then every method is fitted at its registry defaults with that seed (20 k-means
runs). One row per (data, method): ACC and NMI as the mean over the 20 k-means
runs, in %, and the ROC-AUC of three outlier scores in every corrupted view:

* ``P`` - RMSC's weights (``rmsc.outliers.scores``; RMSC rows only),
* ``incons.`` - ``rmsc.outliers.inconsistency_scores`` with the method's labels,
* ``kNN`` - distance to the 10th nearest neighbour (model-free; same on every row).

RMSC and RMSC-WV run with the default ``placement="neighbors"``; the rows
"... no placement" are the same fits clustered by plain spectral clustering of
the same affinity with the same seed (exactly what ``placement=None`` computes,
without fitting twice). ``--summarize`` reads the JSON files (or the printed
tables) of several runs and prints the means over seeds and whether RMSC's ACC is at or above RMSC-WV's
on every seed.
"""

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import json
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np


from sklearn.utils import check_random_state  # noqa: E402


from rmsc import evaluate_runs, get_method, outliers  # noqa: E402
from rmsc.spectral import spectral_clustering  # noqa: E402

HEADER = ("| kind | % | seed | method | ACC | NMI | AUC P | AUC incons. | AUC kNN | placed | fit s |\n"
          "|---|---:|---:|---|---:|---:|---|---|---|---:|---:|")


def aucs(score, mask, views):
    if score is None or not mask.any():
        return None
    table = outliers.evaluate(score, mask)
    return [round(float(table["roc_auc"][v]), 3) for v in views]


def fmt_auc(a):
    return "—" if a is None else ", ".join(f"{x:.3f}" for x in a)


def row_text(r):
    return (f"| {r['kind']} | {100 * r['fraction']:.0f} | {r['seed']} | {r['method']} | "
            f"{r['acc']:.2f} | {r['nmi']:.2f} | {fmt_auc(r['auc_p'])} | "
            f"{fmt_auc(r['auc_incons'])} | {fmt_auc(r['auc_knn'])} | "
            f"{'' if r['placed'] is None else r['placed']} | {r['fit_s']:.1f} |")


def run(args):
    data = _preamble.digit(args.smoke)
    view_idx = [data.view_names.index(v) for v in args.views]
    cases = [("clean", 0.0, s) for s in args.seeds if not args.no_clean] + [
        (k, f, s) for k in args.kinds for f in args.fractions for s in args.seeds]
    rows = []
    print(HEADER, flush=True)
    for kind, fraction, seed in cases:
        d = data if kind == "clean" else outliers.inject(
            data, args.views, fraction, kind=kind, random_state=seed)
        mask = d.outlier_mask if d.outlier_mask is not None else np.zeros(
            (data.n_views, data.n_samples), bool)
        knn = aucs(outliers.knn_distance_scores(d.views), mask, view_idx)
        for name in args.methods:
            est = get_method(name, n_clusters=data.n_clusters, random_state=seed)
            t0 = time.perf_counter()
            est.fit(d.views)
            dt = time.perf_counter() - t0
            variants = [(name, est.label_runs_, est.labels_,
                         len(est.placed_) if hasattr(est, "placed_") else None)]
            if getattr(est, "placement", None) is not None:
                plain, _ = spectral_clustering(est.affinity_matrix_, data.n_clusters,
                                               n_runs=est.n_init,
                                               random_state=check_random_state(seed))
                variants.append((name + " no placement", plain.runs, plain.labels, 0))
            for label, runs, labels, placed in variants:
                s = evaluate_runs(data.labels, runs)
                r = dict(kind=kind, fraction=fraction, seed=seed, method=label,
                         acc=100 * s["acc_mean"], nmi=100 * s["nmi_mean"],
                         auc_p=aucs(outliers.scores(est), mask, view_idx)
                         if name == "RMSC" else None,
                         auc_incons=aucs(outliers.inconsistency_scores(d.views, labels), mask,
                                         view_idx),
                         auc_knn=knn, placed=placed, fit_s=dt)
                rows.append(r)
                print(row_text(r), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return rows


def rows_from_text(text):
    """The rows of a table this script printed (to summarize a run that was cut short)."""
    def auc(cell):
        return None if cell.strip() == "—" else [float(x) for x in cell.split(",")]

    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 11 or not cells[2].isdigit():
            continue
        rows.append(dict(kind=cells[0], fraction=float(cells[1]) / 100, seed=int(cells[2]),
                         method=cells[3], acc=float(cells[4]), nmi=float(cells[5]),
                         auc_p=auc(cells[6]), auc_incons=auc(cells[7]), auc_knn=auc(cells[8]),
                         placed=int(cells[9]) if cells[9] else None, fit_s=float(cells[10])))
    return rows


def summarize(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[(r["kind"], r["fraction"], r["method"])].append(r)
    print("| kind | % | method | seeds | ACC mean | NMI mean | AUC P | AUC incons. | AUC kNN |")
    print("|---|---:|---|---:|---:|---:|---|---|---|")
    for (kind, frac, method), rs in groups.items():
        def mean_auc(key):
            a = [r[key] for r in rs if r[key] is not None]
            return "—" if not a else ", ".join(f"{x:.3f}" for x in np.mean(a, axis=0))
        print(f"| {kind} | {100 * frac:.0f} | {method} | {len(rs)} | "
              f"{np.mean([r['acc'] for r in rs]):.2f} | {np.mean([r['nmi'] for r in rs]):.2f} | "
              f"{mean_auc('auc_p')} | {mean_auc('auc_incons')} | {mean_auc('auc_knn')} |")
    print()
    print("| kind | % | RMSC − RMSC-WV ACC per seed | RMSC − best RMSC-WV (with or without "
          "placement) per seed | RMSC ≥ both on every seed | RMSC − SSC-AVG ACC per seed |")
    print("|---|---:|---|---|---|---|")
    acc = {(r["kind"], r["fraction"], r["method"], r["seed"]): r["acc"] for r in rows}
    for kind, frac in dict.fromkeys((r["kind"], r["fraction"]) for r in rows):
        seeds = sorted({r["seed"] for r in rows if r["kind"] == kind and r["fraction"] == frac
                        and (kind, frac, "RMSC", r["seed"]) in acc
                        and (kind, frac, "RMSC-WV", r["seed"]) in acc})
        if not seeds:
            continue
        diffs = [acc[(kind, frac, "RMSC", s)] - acc[(kind, frac, "RMSC-WV", s)] for s in seeds]
        best = [acc[(kind, frac, "RMSC", s)] - max(
            acc[(kind, frac, "RMSC-WV", s)],
            acc.get((kind, frac, "RMSC-WV no placement", s), -np.inf)) for s in seeds]
        ssc = [f"{acc[(kind, frac, 'RMSC', s)] - acc[(kind, frac, 'SSC-AVG', s)]:+.2f}"
               for s in seeds if (kind, frac, "SSC-AVG", s) in acc]
        print(f"| {kind} | {100 * frac:.0f} | {', '.join(f'{x:+.2f}' for x in diffs)} | "
              f"{', '.join(f'{x:+.2f}' for x in best)} | "
              f"{'yes' if min(best) >= 0 else 'no'} | {', '.join(ssc) or '—'} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", nargs="+", default=list(outliers.KINDS))
    ap.add_argument("--fractions", nargs="+", type=float, default=[0.1, 0.2])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--methods", nargs="+", default=["RMSC", "RMSC-WV", "SSC-AVG"])
    ap.add_argument("--views", nargs="+", default=["PIX", "FOU"])
    ap.add_argument("--no-clean", action="store_true", help="skip the clean data")
    ap.add_argument("--json", help="also write the rows to this JSON file")
    ap.add_argument("--summarize", nargs="+", metavar="JSON",
                    help="print the summary of rows written by earlier runs")
    _preamble.add_argument(ap)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.summarize:
        rows = [r for f in args.summarize for r in (
            json.loads(Path(f).read_text()) if f.endswith(".json")
            else rows_from_text(Path(f).read_text()))]
    else:
        rows = run(args)
        print()
    summarize(rows)


if __name__ == "__main__":
    main()
