"""What the former stopping rule cost: RMSC stopped by it against RMSC run to tol = 1e-6.

The speed work's measurement of the rule before the stability study (the paper's model, the objective's
relative decrease, at most 30 iterations: ``rmsc.rmsc.PAPER_MODEL`` and
``FORMER_STOPPING``), kept as it was; the current defaults' stop against convergence is
``benchmarks/bench_stability.py`` (docs/stability.md).

    python docs/studies/bench_stopping.py [--datasets Digit Reuter 3-Sources] [--data-dir DIR]
                                        [--max-iter 300] [--smoke]

For every dataset (Digit, Reuter and 3-Sources, bundled; ``--data-dir DIR``: the paper's
.mat files instead, the same data) and a few settings (RMSC's and RMSC-WV's defaults, and
a denser consensus of the dashboard's range), the estimator itself is fitted once per
rule: ``RMSC(tol=t, max_iter=m)`` for the former default rule (tol 1e-4,
at most 30 iterations), a looser and a tighter tolerance, and the reference
tol = 1e-6 (at most ``--max-iter`` iterations). Every fit is the whole estimator
(its affinity, placement and 20 k-means runs, random_state=0), so each cell is what a
user gets with that rule. The iterates do not depend on the rule (it only says when to
stop), so each fit is the reference run cut short. ACC and NMI: mean over the 20
k-means runs, %. The rule's budget (the speed work) is |Δ| <= 0.2 points against the
reference.

Measured: the tables of docs/stability.md, "Appendix: what the former stopping rule cost"
were written at commit 20da440 (2026-11-23), on that commit's code. Not smoke-tested: a
one-off, kept as the record of that run; later code may not run it unchanged (to rerun it,
check out that commit).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

import argparse
import time
import warnings


from rmsc import RMSC, datasets, evaluate_runs, solver  # noqa: E402
from rmsc.rmsc import FORMER_STOPPING, PAPER_MODEL  # noqa: E402

FILES = {"Reuter": "reuters_1200.mat", "3-Sources": "3sources.mat"}

#: Settings per dataset, as RMSC keyword arguments: the two estimators' defaults, then a
#: denser consensus (a quarter of the default's beta_rel).
SETTINGS = (
    ("RMSC default", {}),
    ("RMSC-WV default", {"weighting": "view"}),
    ("RMSC, beta_rel 0.06", {"beta_rel": 0.0625}),
)

#: Rules compared, as (tol, max_iter); None is the bench's --max-iter.
FORMER_TOL, FORMER_MAX_ITER = FORMER_STOPPING["tol"], FORMER_STOPPING["max_iter"]
RULES = ((1e-3, FORMER_MAX_ITER), (FORMER_TOL, FORMER_MAX_ITER), (1e-5, None))
REFERENCE = 1e-6


def load(name, data_dir=None):
    """The bundled copy, or the paper's .mat file in ``data_dir`` (the same data)."""
    if data_dir is None or name == "Digit":
        return datasets.load_bundled(name)
    return datasets.load(Path(data_dir) / FILES[name])


def fit(data, params, tol, max_iter):
    est = RMSC(data.n_clusters, tol=tol, max_iter=max_iter, random_state=0,
               stop_on="objective", **{**PAPER_MODEL, **params})
    t0 = time.perf_counter()
    est.fit(list(data.views))
    seconds = time.perf_counter() - t0
    s = evaluate_runs(data.labels, est.label_runs_)
    return est, 100 * s["acc_mean"], 100 * s["nmi_mean"], seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["Digit", "Reuter", "3-Sources"])
    ap.add_argument("--data-dir", default=None,
                    help="read the paper's .mat files from here instead of the bundled copies")
    ap.add_argument("--max-iter", type=int, default=300)
    _preamble.add_argument(ap)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"Rule: {solver.STOPPING_TEXT['objective']}; default tol={FORMER_TOL:g}, max_iter={FORMER_MAX_ITER}. "
          f"Reference: tol={REFERENCE:g} (cap {args.max_iter} iterations). Cells: iterations, "
          "ACC / NMI %, and Δ against the reference in points; s = seconds of that fit.\n")
    cols = [f"tol={t:g}, max {m or args.max_iter}{' (default)' if t == FORMER_TOL else ''}"
            for t, m in RULES]
    print("| data | setting | λ | β (β_rel) | " + " | ".join(cols) + f" | tol={REFERENCE:g} |")
    print("|---|---|---:|---|" + "---|" * (len(RULES) + 1), flush=True)
    for name in args.datasets:
        data = load(name, args.data_dir)
        for label, params in _preamble.first(SETTINGS, args.smoke):
            ref, ref_acc, ref_nmi, ref_s = fit(data, params, REFERENCE, args.max_iter)
            cells = []
            for tol, max_iter in RULES:
                est, acc, nmi, sec = fit(data, params, tol, max_iter or args.max_iter)
                cells.append(f"{est.n_iter_}: {acc:.2f} / {nmi:.2f} ({acc - ref_acc:+.2f} / "
                             f"{nmi - ref_nmi:+.2f}), {sec:.1f} s")
            cap = "" if ref.converged_ else " (cap)"
            print(f"| {name} | {label} | {ref.lam_:g} | {ref.beta_:.3g} ({ref.beta_rel_:.3g}) | "
                  + " | ".join(cells)
                  + f" | {ref.n_iter_}{cap}: {ref_acc:.2f} / {ref_nmi:.2f}, {ref_s:.1f} s |",
                  flush=True)


if __name__ == "__main__":
    main()
