"""The Sensitivity page's default (λ, β) grid: how many of its cells give no clustering.

    python docs/studies/bench_sensitivity_grid.py [--data-dir DIR] [--only NAME ...] [--smoke]

For every bundled dataset (and every .mat file of ``--data-dir``, e.g. the paper's
../shared/datasets), the grid the page proposes is run as the page runs it
(:func:`rmsc.dashboard.run_sensitivity`, RMSC at the Solve page's defaults): the old fixed
grid (:data:`rmsc.dashboard.DEFAULT_SENSITIVITY_BETAS`) and the grid centred on the data's
β_max (:func:`rmsc.dashboard.sensitivity_axes`, β_max from the default fit). Printed as a
Markdown table: failed cells of 25, and the best and median ACC over the cells that ran.

Measured: the tables of docs/dashboard.md, "Datasets at the edges" were written at commit
8ab5da8 (2026-11-23), on that commit's code. Not smoke-tested: a one-off, kept as the record
of that run; later code may not run it unchanged (to rerun it, check out that commit).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

import argparse
import time
import warnings

import numpy as np

ROOT = _preamble.ROOT

from rmsc import dashboard as dash  # noqa: E402
from rmsc import datasets  # noqa: E402


def grid_summary(data, lams, betas, base, seed):
    df = dash.run_sensitivity(data, lams, betas, "RMSC", base, seed)
    ok = df[df["error"].isna()]
    acc = 100 * ok["acc_mean"].to_numpy(dtype=float)
    return (f"{len(df) - len(ok)} of {len(df)}",
            "—" if not acc.size else f"{acc.max():.1f}",
            "—" if not acc.size else f"{np.median(acc):.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, help="also every .mat file in this folder")
    ap.add_argument("--only", nargs="*", help="dataset names to run")
    _preamble.add_argument(ap)
    args = ap.parse_args()
    if args.smoke and not args.only:
        args.only = ["Subspaces"]
    warnings.simplefilter("ignore")
    sets = [(name, lambda name=name: datasets.load_bundled(name))
            for name in datasets.bundled_names()]
    if args.data_dir:
        sets += [(p.stem, lambda p=p: datasets.load(p)) for p in sorted(args.data_dir.glob("*.mat"))]
    if args.only:
        sets = [s for s in sets if s[0] in args.only]
    p = dash.Params()
    base = {"gamma": p.gamma, "max_iter": p.max_iter, **p.postprocessing}  # as the page's
    print(f"| dataset | n | β_max at λ = {p.resolved_lam:g} | grid | β values | failed cells | "
          "best ACC % | median ACC % | time s |")
    print("|---|---:|---:|---|---|---:|---:|---:|---:|")
    for name, load in sets:
        data = load()
        fit = dash.fit_rmsc(data, p)
        bm = fit.beta_max
        grids = {"fixed (before)": (dash.DEFAULT_SENSITIVITY_LAMS, dash.DEFAULT_SENSITIVITY_BETAS),
                 "centred on β_max": dash.sensitivity_axes(p.resolved_lam, bm, p.beta)}
        for label, (lams, betas) in grids.items():
            lams, betas = _preamble.first(lams, args.smoke, 2), _preamble.first(betas, args.smoke, 2)
            t0 = time.perf_counter()
            failed, best, median = grid_summary(data, lams, betas, base, p.seed)
            print(f"| {name} | {data.n_samples} | {bm:.3g} | {label} | "
                  f"{', '.join(f'{b:g}' for b in betas)} | {failed} | {best} | {median} | "
                  f"{time.perf_counter() - t0:.0f} |", flush=True)


if __name__ == "__main__":
    main()
