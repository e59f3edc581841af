"""The ``rmsc`` command line.

    rmsc fit                          # RMSC on the bundled Digit data, paper protocol
    rmsc fit --method RMSC-WV --beta 0.005
    rmsc fit --data path/to/views.mat --n-clusters 6
    rmsc methods                      # every registered method
    rmsc reproduce                    # the paper's Table 1 and figures (see docs/results.md)
    rmsc reproduce --datasets Digit --methods RMSC SSC-AVG --report out.md
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time
import warnings

from . import datasets, experiments
from .methods import available_methods, describe_method, get_method
from .metrics import METRICS, evaluate_runs


def _load_data(spec):
    """A bundled dataset by name (case-insensitive), else a file for :func:`rmsc.datasets.load`."""
    names = {name.lower(): name for name in datasets.bundled_names()}
    if spec.lower() in names:
        return datasets.load_bundled(names[spec.lower()])
    return datasets.load(spec)


def _progress(stream):
    def callback(iteration, objective, weights):
        print(f"  iteration {iteration:3d}  objective {objective:.6g}", file=stream, flush=True)

    return callback


def cmd_fit(args, out, err):
    data = _load_data(args.data)
    n_clusters = args.n_clusters
    if n_clusters is None:
        if data.labels is None:
            raise ValueError(
                f"{data.name} has no labels, so the number of clusters is unknown; "
                "pass --n-clusters."
            )
        n_clusters = len(set(data.labels.tolist()))
    params = {"n_clusters": n_clusters, "random_state": args.seed}
    for name in ("lam", "beta", "gamma", "max_iter", "top_k"):
        value = getattr(args, name)
        if value is not None:
            params[name] = value
    if args.scale_columns:
        params["scale_columns"] = True
    est = get_method(args.method)
    accepted = set(est.get_params())
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise ValueError(
            f"{args.method} does not take {', '.join('--' + u.replace('_', '-') for u in unknown)}."
        )
    est.set_params(**params)
    if "callback" in accepted and not args.quiet:
        est.set_params(callback=_progress(err))
    print(f"{args.method} on {data.name}: n={data.n_samples}, views={data.n_views}, "
          f"clusters={n_clusters}", file=err, flush=True)
    t0 = time.perf_counter()
    est.fit(data.views)
    elapsed = time.perf_counter() - t0
    shown = {k: v for k, v in est.get_params().items() if k not in ("callback",)}
    print(f"parameters: {', '.join(f'{k}={v}' for k, v in sorted(shown.items()))}", file=out)
    print(f"fit time: {elapsed:.2f} s", file=out)
    if data.labels is None:
        print("The dataset has no labels: no scores; labels of the best k-means run:", file=out)
        print(" ".join(map(str, est.labels_)), file=out)
        return 0
    scores = evaluate_runs(data.labels, est.label_runs_)
    print(f"over {scores['n_runs']} k-means runs (mean ± std):", file=out)
    for m in METRICS:
        print(f"  {m.upper():7s} {100 * scores[m + '_mean']:6.2f} ± {100 * scores[m + '_std']:.2f} %",
              file=out)
    return 0


def cmd_methods(args, out, err):
    for name in available_methods():
        print(f"{name:12s} {describe_method(name)}", file=out)
    return 0


def _budgets(specs):
    """``["Reuter=4", ...]`` -> {"Reuter": 4} (None: the default, rmsc.experiments.DATASET_BUDGET)."""
    if specs is None:
        return None
    out = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        try:
            number = int(value)
        except ValueError:
            number = None
        if not sep or not name or number is None or number < 1:
            raise ValueError(f"--budget takes DATASET=N with N a positive whole number "
                             f"(e.g. Reuter=4); got {spec!r}.")
        out[name] = number
    return out


def _exclusions(specs):
    """``["Reuter:DiMSC", ...]`` -> [("Reuter", "DiMSC"), ...]."""
    out = []
    for spec in specs or ():
        name, sep, method = spec.partition(":")
        if not sep or not name or not method:
            raise ValueError(f"--exclude takes DATASET:METHOD (e.g. Reuter:DiMSC); got {spec!r}.")
        out.append((name, method))
    return out


def cmd_reproduce(args, out, err):
    import json
    from pathlib import Path

    methods = experiments.check_methods(args.methods or available_methods())
    cache = experiments.Cache(args.cache) if args.cache else experiments.Cache()
    progress = None if args.quiet else experiments.text_progress(err)
    result = experiments.run(
        args.datasets, methods, data_dir=args.data_dir, cache=cache,
        postprocessing=tuple(args.postprocessing), progress=progress, random_state=args.seed,
        views=not args.no_figures, sensitivity=not args.no_figures,
        lams=args.lams, betas=args.betas, budgets=_budgets(args.budget),
        exclude=_exclusions(args.exclude))
    for ds in result.datasets:
        if ds.error:
            print(f"rmsc: warning: {ds.name} not run: {ds.error}", file=err)
    report_path = Path(args.report) if args.report else None
    figure_files = {}
    if not args.no_figures:
        fig_dir = Path(args.figures) if args.figures else (
            report_path.parent / "figures" if report_path else None)
        if fig_dir is not None:
            for name, fig in experiments.figures_of(result).items():
                figure_files[name] = experiments.save_figure(fig, fig_dir, name,
                                                           png=not args.no_png)
            failed = {f["png_error"] for f in figure_files.values() if f["png_error"]}
            if failed:
                print(f"rmsc: warning: figures written as HTML only ({failed.pop()}); "
                      "install kaleido for PNG.", file=err)
    notes = Path(args.notes).read_text() if args.notes else None
    command = args.command_line or "rmsc reproduce " + " ".join(args.argv)
    text = experiments.report(result, command=command, figure_files=figure_files, notes=notes,
                            relative_to=report_path.parent if report_path else None)
    if report_path:
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(text)
        print(f"report written to {report_path}", file=err)
    else:
        print(text, file=out)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(experiments.to_json(result), indent=1))
        print(f"JSON written to {args.json}", file=err)
    return 0


def build_parser():
    p = argparse.ArgumentParser(prog="rmsc", description="Robust localized multi-view subspace clustering.")
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fit", help="cluster a dataset with one method and score it (paper protocol)")
    f.add_argument("--data", default="Digit",
                   help="a bundled dataset (Digit, Digit-small, Subspaces) or a .mat/.npz/.zip "
                        "file")
    f.add_argument("--method", default="RMSC", help="a name from 'rmsc methods' (default RMSC)")
    f.add_argument("--n-clusters", type=int, help="default: the number of classes in the labels")
    f.add_argument("--lam", type=float, help="lambda (RMSC); default: the method's own")
    f.add_argument("--beta", type=float, help="beta; default: the method's own")
    f.add_argument("--gamma", type=float, help="gamma (RMSC); default 1e-5 as in the paper")
    f.add_argument("--max-iter", type=int)
    f.add_argument("--top-k", type=int, help="affinity post-processing: keep k largest per column")
    f.add_argument("--scale-columns", action="store_true",
                   help="affinity post-processing: scale columns by their maximum")
    f.add_argument("--seed", type=int, default=0, help="random_state (default 0)")
    f.add_argument("--quiet", action="store_true", help="no per-iteration progress")
    f.set_defaults(func=cmd_fit)
    r = sub.add_parser(
        "reproduce", help="the paper's Table 1 and figures: search, score, report",
        description="Run the paper's protocol (unit-L2 samples, 20 k-means restarts, mean ± std "
        "of ACC and NMI) for the chosen methods on the chosen datasets, each method searched "
        "over the same number of settings, and write Table 1 beside the paper's numbers, the "
        "figures and (optionally) JSON. Runs are cached, so an interrupted run resumes.")
    r.add_argument("--datasets", nargs="+", default=["Digit", "Reuter", "3-Sources"],
                   help="paper names (Digit, Reuter, 3-Sources; Animal is unavailable) or paths "
                   "to .mat/.npz/.zip files (default: the three available)")
    r.add_argument("--methods", nargs="+", help="default: every method of Table 1")
    r.add_argument("--data-dir", help="folder of the paper's .mat files (default "
                   "../shared/datasets beside the repository)")
    r.add_argument("--postprocessing", nargs="+", default=["none", "ssc"],
                   choices=["none", "ssc"], help="affinity variants, each its own Table 1, "
                   "applied to every self-representation method alike (figures use the first)")
    r.add_argument("--cache", help="JSON file of finished fits; reruns resume from it")
    r.add_argument("--report", help="write the Markdown report here (default: stdout)")
    r.add_argument("--figures", help="folder for the figures (default: figures/ beside the "
                   "report; without --report and --figures none are written)")
    r.add_argument("--json", help="write every result as JSON here")
    r.add_argument("--notes", help="a Markdown file of discussion appended to the report")
    r.add_argument("--no-figures", action="store_true",
                   help="skip the views and sensitivity runs and the figures")
    r.add_argument("--no-png", action="store_true", help="figures as HTML only")
    r.add_argument("--lams", nargs="+", type=float, default=list(experiments.SENSITIVITY_LAMS),
        help="λ values of the sensitivity grids (Digit, 3-Sources)")
    r.add_argument("--betas", nargs="+", type=float, default=list(experiments.SENSITIVITY_BETAS),
        help="β values of the sensitivity grids (Digit, 3-Sources)")
    r.add_argument("--budget", nargs="*", metavar="DATASET=N",
                   help="settings per method on a dataset, the same for every method, evenly "
                        "spaced over each grid (default: "
                        + (" ".join(f"{k}={v}" for k, v in experiments.DATASET_BUDGET.items())
                           or "the whole grid") + "; no value: every dataset's whole grid)")
    r.add_argument("--exclude", nargs="*", metavar="DATASET:METHOD",
                   help="methods not run on a dataset (say why in --notes); Table 1 shows "
                        "'not run' there")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.add_argument("--command-line", help=argparse.SUPPRESS)
    r.set_defaults(func=cmd_reproduce)
    m = sub.add_parser("methods", help="list the registered methods")
    m.set_defaults(func=cmd_methods)
    return p


def main(argv=None, out=None, err=None):
    out = out or sys.stdout
    err = err or sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv[1:]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = lambda message, *a, **k: print(
                f"rmsc: warning: {message}", file=err)
            return args.func(args, out, err)
    except (ValueError, OSError) as exc:
        print(f"rmsc: error: {exc}", file=err)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
