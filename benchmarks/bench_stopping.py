"""What the stopping rule costs: RMSC stopped by its default rule against RMSC run to tol = 1e-6.

    python benchmarks/bench_stopping.py [--datasets Digit Reuter 3-Sources] [--data-dir DIR]

For every dataset (Digit bundled; Reuter and 3-Sources from the paper's .mat files in
``--data-dir``, default ../shared/datasets beside the repository) and a few settings
(the estimator's default, and settings of the reproduction's grid from sparse to dense
Z*), two fits of ``rmsc.RMSC`` (random_state=0): one with the default stopping rule
(``rmsc.solver.TOL``, ``rmsc.solver.MAX_ITER``) and one run to ``tol=1e-6``
(``max_iter=1000``). The table gives the iterations, the fit's seconds, ACC and NMI
(mean over the 20 k-means runs, %) of both, and the difference in points. The
rule's budget is met when |delta| <= 0.2 points everywhere.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rmsc import RMSC, datasets, evaluate_runs, solver  # noqa: E402

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "datasets"
FILES = {"Reuter": "reuters_1200.mat", "3-Sources": "3sources.mat"}

#: (lam, beta) per dataset: the default first, then the reproduction grid's corners
#: and dense-consensus settings of the dashboard's range.
SETTINGS = {
    "Digit": [None, (1.0, 0.1), (0.3, 0.03), (10.0, 0.2)],
    "Reuter": [None, (1.0, 0.1), (3.0, 0.03), (0.3, 0.1)],
    "3-Sources": [None, (1.0, 0.1), (3.0, 0.03), (0.1, 0.3)],
}

#: The reference run.
TIGHT = {"tol": 1e-6, "max_iter": 1000}


def load(name, data_dir):
    if name == "Digit":
        return datasets.load_digit()
    return datasets.load(Path(data_dir) / FILES[name])


def fit(data, params):
    est = RMSC(n_clusters=data.n_clusters, random_state=0, **params)
    t0 = time.perf_counter()
    est.fit(data.views)
    seconds = time.perf_counter() - t0
    s = evaluate_runs(data.labels, est.label_runs_)
    return est, seconds, 100 * s["acc_mean"], 100 * s["nmi_mean"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=list(SETTINGS))
    ap.add_argument("--data-dir", default=str(DATA_DIR))
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"Stopping rule: tol={solver.TOL:g} ({solver.STOPPING}), max_iter={solver.MAX_ITER}; "
          f"reference: tol={TIGHT['tol']:g}, max_iter={TIGHT['max_iter']}\n")
    print("| data | λ | β | iterations (rule / 1e-6) | fit s (rule / 1e-6) | ACC % (rule / 1e-6) "
          "| NMI % (rule / 1e-6) | Δ ACC | Δ NMI |")
    print("|---|---:|---:|---|---|---|---|---:|---:|")
    worst = 0.0
    for name in args.datasets:
        data = load(name, args.data_dir)
        for setting in SETTINGS[name]:
            params = {} if setting is None else {"lam": setting[0], "beta": setting[1]}
            rule, t_rule, acc_r, nmi_r = fit(data, params)
            tight, t_tight, acc_t, nmi_t = fit(data, {**params, **TIGHT})
            d_acc, d_nmi = acc_r - acc_t, nmi_r - nmi_t
            worst = max(worst, abs(d_acc), abs(d_nmi))
            lam, beta = rule.lam, rule.beta
            print(f"| {name} | {lam:g} | {beta:g}{' (default)' if setting is None else ''} | "
                  f"{rule.n_iter_} / {tight.n_iter_}{'' if tight.converged_ else ' (cap)'} | "
                  f"{t_rule:.1f} / {t_tight:.1f} | {acc_r:.2f} / {acc_t:.2f} | "
                  f"{nmi_r:.2f} / {nmi_t:.2f} | {d_acc:+.2f} | {d_nmi:+.2f} |", flush=True)
    print(f"\nLargest |Δ|: {worst:.2f} points.")


if __name__ == "__main__":
    main()
