"""What SSC's affinity post-processing does to RMSC on the bundled Digit data.

    python docs/studies/affinity_postprocessing.py [--grid 0.3:0.3 1:0.3 0.3:0.1] [--smoke]

For each (lam, beta) RMSC is fitted once; the affinity is then built from the
same Z* in every way :func:`rmsc.spectral.affinity_from_coefficients` offers
(the paper's (|Z*| + |Z*^T|)/2, column scaling, keeping the k strongest
coefficients per column) and clustered with the paper's protocol (20 k-means
runs). Prints ACC and NMI as mean ± std and the density of Z*.

Measured: the tables of docs/measurements.md, "Affinity post-processing on Digit" were
written at commit fe3e7f1 (2026-11-22), on that commit's code. Not smoke-tested: a one-off,
kept as the record of that run; later code may not run it unchanged (to rerun it, check out
that commit).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

import argparse
import warnings


from rmsc import RMSC, evaluate_runs  # noqa: E402
from rmsc.spectral import affinity_from_coefficients, spectral_clustering  # noqa: E402

VARIANTS = [(None, False), (None, True), (10, False), (10, True), (20, True)]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grid", nargs="+", default=["0.3:0.3", "1:0.3", "0.3:0.1"],
                    help="lam:beta pairs")
    ap.add_argument("--seed", type=int, default=0)
    _preamble.add_argument(ap)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    data = _preamble.digit(args.smoke)
    print("| lam | beta | Z* density | top_k | scale_columns | ACC % | NMI % |")
    print("|---:|---:|---:|---|---|---|---|")
    for pair in _preamble.first(args.grid, args.smoke):
        lam, beta = (float(x) for x in pair.split(":"))
        model = RMSC(data.n_clusters, lam=lam, beta=beta, random_state=args.seed).fit(data.views)
        density = model.consensus_.nnz / data.n_samples ** 2
        for top_k, scale in _preamble.first(VARIANTS, args.smoke, 2):
            S = affinity_from_coefficients(model.consensus_, top_k=top_k, scale_columns=scale)
            runs, _ = spectral_clustering(S, data.n_clusters, random_state=args.seed)
            s = evaluate_runs(data.labels, runs.runs)
            print(f"| {lam:g} | {beta:g} | {density:.2%} | {top_k} | {scale} | "
                  f"{100 * s['acc_mean']:.2f} ± {100 * s['acc_std']:.2f} | "
                  f"{100 * s['nmi_mean']:.2f} ± {100 * s['nmi_std']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
