"""Scores of the solver-core methods on the bundled Digit data (paper protocol).

    python benchmarks/digit_scores.py [--methods RMSC RMSC-WV SSC-BSV SSC-AVG] [--ssc-beta 0.05]
                                      [--smoke]

Unit-L2 samples, spectral clustering, k-means 20 times; prints ACC and NMI as
mean ± std over the 20 runs, the parameters and the fit time. Every method
uses its registry defaults (rmsc.get_method) unless overridden here. SSC-BSV
is reported for every view and for the best view chosen with the labels, as
the paper reports it (an oracle choice).
"""

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import time
import warnings


from rmsc import evaluate_runs, get_method  # noqa: E402
from rmsc.cli import fitted_parameters  # noqa: E402
from rmsc.metrics import best_view  # noqa: E402


def resolved(est):
    """The parameters as the fit resolved them (rmsc fit's lines: lambda and beta, never None),
    and the others that matter here."""
    lines = [line for line in fitted_parameters(est) if not line.startswith("parameters:")]
    rest = ", ".join(f"{k}={v}" for k, v in est.get_params().items()
                     if k in ("gamma", "weighting", "max_iter", "tol"))
    return "; ".join(lines + [rest])


def fmt(s, key):
    return f"{100 * s[key + '_mean']:.2f} ± {100 * s[key + '_std']:.2f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--methods", nargs="+", default=["RMSC", "RMSC-WV", "SSC-BSV", "SSC-AVG"])
    ap.add_argument("--ssc-beta", type=float, default=None, help="beta for SSC-BSV / SSC-AVG")
    ap.add_argument("--seed", type=int, default=0)
    _preamble.add_argument(ap)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    data = _preamble.digit(args.smoke)
    print("| method | ACC % | NMI % | parameters | fit s |")
    print("|---|---|---|---|---:|")
    for name in args.methods:
        est = get_method(name, n_clusters=data.n_clusters, random_state=args.seed)
        if name.startswith("SSC") and args.ssc_beta is not None:
            est.set_params(beta=args.ssc_beta)
        t0 = time.perf_counter()
        est.fit(data.views)
        dt = time.perf_counter() - t0
        params = resolved(est)
        if name == "SSC-BSV":
            best, per_view = best_view(data.labels, est.view_label_runs_)
            for v, s in enumerate(per_view):
                tag = " (best, chosen with labels)" if v == best else ""
                print(f"| SSC view {data.view_names[v]}{tag} | {fmt(s, 'acc')} | {fmt(s, 'nmi')} | {params} | |")
            s = per_view[best]
            print(f"| SSC-BSV = {data.view_names[best]} | {fmt(s, 'acc')} | {fmt(s, 'nmi')} | {params} | {dt:.1f} |")
            own = evaluate_runs(data.labels, est.label_runs_)
            print(f"| SSC-BSV, view by eigengap ({data.view_names[est.view_]}) | {fmt(own, 'acc')} | "
                  f"{fmt(own, 'nmi')} | {params} | |")
        else:
            s = evaluate_runs(data.labels, est.label_runs_)
            print(f"| {name} | {fmt(s, 'acc')} | {fmt(s, 'nmi')} | {params} | {dt:.1f} |", flush=True)


if __name__ == "__main__":
    main()
