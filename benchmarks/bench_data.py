"""Data layer: load times, and the outlier scenario's ROC-AUC / AP per view.

    python benchmarks/bench_data.py [--repeat 5] [--kinds replace] [--seeds 0]
                                    [--data-dir ../shared/datasets] [--skip-outliers] [--smoke]

Table 1 - load times: every bundled dataset (rmsc.datasets.load_bundled) and
the paper's three .mat files (rmsc.datasets.load; default folder
../shared/datasets beside the repository; a file not there is listed as missing), best
and median of ``--repeat`` loads in this run (the machine is shared and noisy; compare
within a run).

Table 2 - the outlier scenario: Digit, 10 % of the samples
corrupted in FOU and in ZER (rmsc.outliers.inject, the same samples in both,
injection seed ``--seeds``), RMSC at the defaults of rmsc.RMSC
(random_state=0), outlier scores from the fitted weights
(rmsc.outliers.scores), ROC-AUC and average precision per corrupted view
(rmsc.outliers.evaluate). ``--kinds`` adds the other kinds of corruption.
"""

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import statistics
import time
import warnings
from pathlib import Path


import scipy.sparse as sp  # noqa: E402


from rmsc import RMSC, datasets, outliers  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
SHARED_FILES = ("digit_handwritten.mat", "reuters_1200.mat", "3sources.mat")


def timed(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, min(times), statistics.median(times)


def load_table(repeat, data_dir):
    print("| dataset | source | samples | views | features | storage | best ms | median ms |")
    print("|---|---|---:|---:|---|---|---:|---:|")
    jobs = [(name, "bundled", lambda name=name: datasets.load_bundled(name))
            for name in datasets.bundled_names()]
    jobs += [(f, "load(.mat)", lambda f=f: datasets.load(data_dir / f)) for f in SHARED_FILES]
    for label, source, fn in jobs:
        if source == "load(.mat)" and not (data_dir / label).is_file():
            print(f"| {label} | not in {data_dir} | | | | | | |", flush=True)
            continue
        d, best, med = timed(fn, repeat)
        storage = "sparse" if all(sp.issparse(X) for X in d.views) else "dense"
        feats = ", ".join(map(str, d.n_features))
        print(f"| {label} | {source} | {d.n_samples} | {d.n_views} | {feats} | {storage} | "
              f"{1e3 * best:.1f} | {1e3 * med:.1f} |", flush=True)


def outlier_table(kinds, seeds, smoke=False):
    digit = _preamble.digit(smoke)
    print("| kind | injection seed | view | outliers | ROC-AUC | AP | fit s |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for kind in kinds:
        for seed in seeds:
            data = outliers.inject(digit, ["FOU", "ZER"], 0.10, kind=kind, random_state=seed)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = RMSC(n_clusters=digit.n_clusters, random_state=0).fit(data.views)
            fit = time.perf_counter() - t0
            table = outliers.evaluate(outliers.scores(model), data.outlier_mask,
                                      data.view_names)
            for row in table.itertuples():
                if row.outliers:
                    print(f"| {kind} | {seed} | {row.view} | {row.outliers} | "
                          f"{row.roc_auc:.4f} | {row.average_precision:.4f} | {fit:.1f} |",
                          flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--kinds", nargs="+", default=["replace"], choices=outliers.KINDS)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0])
    ap.add_argument("--data-dir", type=Path, default=SHARED)
    ap.add_argument("--skip-outliers", action="store_true")
    _preamble.add_argument(ap)
    args = ap.parse_args()
    load_table(args.repeat, args.data_dir)
    if not args.skip_outliers:
        print()
        outlier_table(args.kinds, args.seeds, args.smoke)


if __name__ == "__main__":
    main()
