"""The ``rmsc`` command line.

    rmsc fit                          # RMSC on the bundled Digit data, paper protocol
    rmsc fit --method RMSC-WV --beta 0.005
    rmsc fit --data path/to/views.mat --n-clusters 6 --labels labels.csv
    rmsc methods                      # every registered method
    rmsc reproduce                    # the paper's Table 1 and figures (see docs/results.md)
    rmsc reproduce --datasets Digit --methods RMSC SSC-AVG --report out.md
    rmsc dashboard                    # the Streamlit dashboard (as `make run`) on localhost:8501
    rmsc lesson --warm                # the Lesson page's results computed beforehand

Every command has ``--help`` with examples. Exit status: 0 when the command did what was
asked, 2 for bad input (a one-line ``rmsc: error: ...`` on stderr says what and what to
do), 1 for anything else that stopped it, 130 when interrupted.

Why one module over 600 lines: each command's options, examples and body are read together
here, and every command shares the same error handling (:func:`main`); the work itself lives
in the library (``rmsc.experiments``, ``rmsc.datasets``, ``rmsc.dashboard.lesson``).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import socket
import sys
import time
import warnings

import numpy as np

from . import _resources
from ._validation import inactive
from . import dask_cluster
from . import datasets, experiments
from .methods import available_methods, describe_method, get_method
from .device import fit_on
from .rmsc import BETA_QUANTILE, GAMMA, PAPER_GAMMA, RMSC
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


def _output(path, what):
    """Check before the fit that ``path`` (a file, or ``-`` for stdout) can be written."""
    if path is None or path == "-":
        return path
    from pathlib import Path

    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise ValueError(f"cannot write {what} to {path}: the folder {folder} does not exist.")
    return path


def _write_csv(frame, path, stdout):
    frame.to_csv(stdout if path == "-" else path, index=False, lineterminator="\n")


def _beta_arg(text):
    """``--beta``: a number >= 0, or ``auto`` (the method's rule on these data)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"takes a number >= 0 or 'auto' (the method's own rule on the data); got {text!r}"
        ) from None


def fitted_parameters(est):
    """Lines saying the parameters a fitted estimator used: lambda and beta as resolved on
    the data (never None or 'auto'), with the rule that gave beta, then every parameter."""
    params = {k: v for k, v in est.get_params().items() if k != "callback"}
    lines = []
    if hasattr(est, "beta_scale_"):  # RMSC, RMSC-WV
        default = " (the default for weighting='{}')".format(est.weighting)
        lines.append(f"λ = {est.lam_:g}{default if est.lam is None else ''}")
        if est.beta == "auto":
            lines.append(f"β = {est.beta_:.3g} = β_rel {est.beta_rel_:g} × the data's scale "
                         f"{est.beta_scale_:.3g} (β auto)")
            lines.append(f"    the data's scale: the {100 * BETA_QUANTILE:g} % quantile over "
                         "samples of the β that empties a sample's column of Z*; Z* is all "
                         f"zero from β_max = {est.beta_max_:.3g} on")
        else:
            lines.append(f"β = {est.beta_:g} (given; β_rel {est.beta_rel_:.3g} on these data)")
        params.update(lam=est.lam_, beta=float(f"{est.beta_:.6g}"),
                      beta_rel=float(f"{est.beta_rel_:.6g}"))
    elif hasattr(est, "alphas_"):  # the SSC family: each view's weight in both forms
        rule = ("beta auto: 2 μ / alpha, μ each view's coherence" if est.beta == "auto"
                else "beta given; alpha = 2 μ / beta")
        lines.append(f"per view: beta {', '.join(f'{b:.4g}' for b in est.betas_)}; "
                     f"alpha {', '.join(f'{a:.4g}' for a in est.alphas_)} ({rule})")
    if params.get("view", "") is None and hasattr(est, "view_"):
        params["view"] = f"{est.view_} (by eigengap)"
    lines.append(f"parameters: {', '.join(f'{k}={v}' for k, v in sorted(params.items()))}")
    return lines


def convergence_lines(est):
    """Lines saying how a fitted estimator's iterations ended: their number, converged or
    stopped at the limit, and (RMSC) the final objective with why it may be negative."""
    if getattr(est, "n_iter_", None) is None or getattr(est, "converged_", None) is None:
        return []
    lines = [f"iterations: {int(est.n_iter_)} " + ("(converged)" if est.converged_ else
             f"(stopped at max_iter = {est.max_iter}, not converged)")]
    objective = getattr(est, "objective_", None)
    if objective is not None and np.size(objective):
        last = float(np.ravel(objective)[-1])
        lines.append(f"objective: {last:.6g}" + (" (negative: the weight term ψ(p) = γp + 1/p "
                     "− 2 is below zero near p = 1/√γ, so the sum can be)" if last < 0 else ""))
    return lines


def cmd_fit(args, out, err):
    import pandas as pd

    if args.labels == "-" and args.weights == "-":
        raise ValueError("--labels and --weights cannot both go to stdout ('-'); "
                         "write one of them to a file.")
    labels_to, weights_to = _output(args.labels, "labels"), _output(args.weights, "weights")
    stdout = out
    if "-" in (labels_to, weights_to):
        out = err  # stdout carries the CSV only; the report goes to stderr
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
    for name in ("lam", "beta", "beta_rel", "alpha", "gamma", "max_iter", "keep_mass", "top_k"):
        value = getattr(args, name)
        if value is not None:
            params[name] = value
    if args.scale_columns is not None:
        params["scale_columns"] = args.scale_columns
    est = get_method(args.method)
    accepted = set(est.get_params())
    unknown = sorted(set(params) - accepted)
    if unknown:
        takers = [name for name in available_methods()
                  if set(unknown) <= set(get_method(name).get_params())]
        raise ValueError(
            f"{args.method} does not take {', '.join('--' + u.replace('_', '-') for u in unknown)}"
            + (f" ({', '.join(takers)} do)." if takers else ".")
        )
    contract = getattr(type(est), "_parameter_constraints", {})
    for name in inactive(contract, {**est.get_params(), **params}, params):
        rule = contract[name]
        other, wanted = rule.only_with
        flag, other_flag = "--" + name.replace("_", "-"), "--" + other.replace("_", "-")
        role = rule.role or f"plays a part only with {other_flag} {wanted}"
        raise ValueError(f"{flag} {role}, so it cannot go with a number for {other_flag}; give "
                         f"one of them (or {other_flag} {wanted}).")
    est.set_params(**params)
    if weights_to is not None and not isinstance(est, RMSC):
        raise ValueError(f"--weights needs a method with sample weights (RMSC or RMSC-WV); "
                         f"{args.method} has none.")
    if "callback" in accepted and not args.quiet:
        est.set_params(callback=_progress(err))
    print(f"{args.method} on {data.name}: n={data.n_samples}, views={data.n_views}, "
          f"clusters={n_clusters}", file=err, flush=True)
    t0 = time.perf_counter()
    _fit_on_device(est, data.views, args.device, err)
    elapsed = time.perf_counter() - t0
    for line in fitted_parameters(est):
        print(line, file=out)
    for line in convergence_lines(est):
        print(line, file=out)
    print(f"fit time: {elapsed:.2f} s", file=out)
    if labels_to is not None:
        _write_csv(pd.DataFrame({"sample": range(data.n_samples), "label": est.labels_}),
                   labels_to, stdout)
        if labels_to != "-":
            print(f"labels (best k-means run) written to {labels_to}", file=out)
    if weights_to is not None:
        table = pd.DataFrame(np.asarray(est.weights_).T, columns=list(data.view_names))
        table.insert(0, "sample", range(data.n_samples))
        _write_csv(table, weights_to, stdout)
        if weights_to != "-":
            print(f"weights P (one column per view) written to {weights_to}", file=out)
    if data.labels is None:
        print("The dataset has no labels: no scores.", file=out)
        if labels_to is None:
            print("Labels of the best k-means run (--labels FILE writes them as CSV):", file=out)
            print(" ".join(map(str, est.labels_)), file=out)
        return 0
    scores = evaluate_runs(data.labels, est.label_runs_)
    print(f"over {scores['n_runs']} k-means runs (mean ± std):", file=out)
    for m in METRICS:
        print(f"  {m.upper():7s} {100 * scores[m + '_mean']:6.2f} ± {100 * scores[m + '_std']:.2f} %",
              file=out)
    return 0


def _fit_on_device(est, views, device, err):
    """``est.fit(views)`` on the device ``--device`` names (:func:`rmsc.device.fit_on`:
    float32 copies on a GPU, the attributes back on the host for the output)."""
    def show(choice):
        print(f"device: {choice.description}" + (f" ({choice.reason})" if choice.reason else ""),
              file=err, flush=True)

    return fit_on(est, views, device, report=show)


def cmd_methods(args, out, err):
    for name in available_methods():
        print(f"{name:12s} {describe_method(name)}", file=out)
    return 0


def cmd_lesson(args, out, err):
    """Check a lesson file, list its steps (and their URLs), and compute every step's results."""
    from .dashboard import lesson as lessons  # the dashboard's logic (dask): this command only

    lesson = lessons.load_lesson(args.file)
    print(f"{lesson.source}: '{lesson.title}', {len(lesson)} steps, every field valid", file=out)
    for n, step in enumerate(lesson.steps, 1):
        line = f"{n}. {step.title} [{step.show}]"
        if args.urls:
            line += f"  {lessons.step_url(args.urls, lesson, n)}"
        print(line, file=out)
    if not args.warm:
        return 0
    from .dashboard import DaskSender, running_workers, shutdown

    cache = lessons.dashboard_cache()
    start = time.perf_counter()
    try:  # on the dashboard's kind of workers: a LocalCluster, or RMSC_SCHEDULER's
        done = lessons.warm(lesson, cache, sender=DaskSender(),
                            progress=lambda m: print(f"  computing {m}", file=err))
        running = running_workers()
        on = "" if running is None else f" on {running.limits()['workers']} Dask worker(s)"
    finally:
        shutdown()
    where = ("on disk, where the dashboard reads them" if getattr(cache, "disk", None)
             else "in this process only (this rmsc keeps no results on disk)")
    print(f"warm: {done} result(s) computed{on} in {time.perf_counter() - start:.0f} s, kept "
          f"{where}", file=out)
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


@contextlib.contextmanager
def _reproduce_client(args):
    """The Dask client ``rmsc reproduce`` runs its fits on: the scheduler at
    ``--scheduler`` (or ``RMSC_SCHEDULER``), else a LocalCluster of ``--workers``
    processes; None (fits in this process) for ``--workers 1``."""
    address = args.scheduler or os.environ.get(dask_cluster.SCHEDULER_ENV) or None
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers takes a positive number of processes; got {args.workers}.")
    if address is None and args.workers == 1:
        yield None
        return
    from distributed import Client

    if address:
        try:
            client = dask_cluster.connect(address)
        except (OSError, TimeoutError) as exc:
            raise ValueError(f"cannot reach the Dask scheduler at {address} ({exc}); start it, "
                             "or leave --scheduler out to run on this machine.") from None
        cluster = None
    else:
        cluster = dask_cluster.local_cluster(args.workers)
        client = Client(cluster, set_as_default=False)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def cmd_reproduce(args, out, err):
    import json
    from pathlib import Path

    methods = experiments.check_methods(args.methods or available_methods())
    cache = experiments.Cache(args.cache) if args.cache else experiments.Cache()
    progress = None if args.quiet else experiments.text_progress(err)
    with _reproduce_client(args) as client:
        result = experiments.run(
            args.datasets, methods, data_dir=args.data_dir, cache=cache,
            postprocessing=tuple(args.postprocessing), progress=progress,
            random_state=args.seed, views=not args.no_figures,
            sensitivity=not args.no_figures, lams=args.lams, betas=args.betas,
            budgets=_budgets(args.budget), exclude=_exclusions(args.exclude),
            require_all=True, client=client)
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


def _check_port(address, port):
    """Fail with a one-line reason when ``address:port`` cannot be listened on (e.g. in use)."""
    if not 0 < port < 65536:
        raise ValueError(f"--port takes a number from 1 to 65535; got {port}.")
    try:
        infos = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ValueError(f"cannot serve on {address!r}: {exc.strerror}; pass --address "
                         "localhost, an address of this machine, or 0.0.0.0.") from None
    for family, kind, proto, _, sockaddr in infos:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
            try:
                s.bind(sockaddr)
            except OSError as exc:
                if exc.errno == errno.EADDRNOTAVAIL and family == socket.AF_INET6:
                    continue  # no IPv6 here: the server skips it too
                reason = ("is in use (another dashboard?)" if exc.errno == errno.EADDRINUSE
                          else f"cannot be used ({exc.strerror})")
                raise ValueError(f"port {port} on {address} {reason}; choose another with "
                                 "--port.") from None


def _network_addresses():
    """This machine's address on its network, found without sending anything (a UDP socket
    'connected' to a public address only picks the outgoing interface); none when there is
    no route."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached, no packet is sent
        ip = s.getsockname()[0]
        if not ip.startswith("127."):
            return [ip]
    return []


def cmd_dashboard(args, out, err):
    """Serve the dashboard: ``python app.py`` (what ``make run`` does) from the installed files."""
    import runpy

    app = _resources.app_script()
    if not app.is_file():
        raise ValueError(f"the dashboard's files are not in this installation ({app} is "
                         "missing); reinstall rmsc.")
    _check_port(args.address, args.port)
    if args.scheduler:
        os.environ[dask_cluster.SCHEDULER_ENV] = args.scheduler  # read by the app's first job
    # Nothing leaves this machine: no usage statistics, and (serving every interface) no
    # start-up banner, for which Streamlit asks an internet service for this machine's
    # public address; the URLs are printed here instead. The same settings are in the app's
    # .streamlit/config.toml, which Streamlit reads from the working folder (the app's own,
    # in a checkout or rmsc/_app/ of a wheel): the command line holds even where a user's
    # own config says otherwise.
    flags = ["--server.port", str(args.port), "--server.address", args.address,
             "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    urls = [f"http://{args.address}:{args.port}"]
    if args.address in ("0.0.0.0", "::", ""):
        flags += ["--logger.hideWelcomeMessage", "true"]
        urls = [f"http://localhost:{args.port}",
                *(f"http://{ip}:{args.port}" for ip in _network_addresses())]
    os.chdir(app.parent)
    sys.argv = [str(app), *flags]
    print(f"rmsc dashboard: {', '.join(urls)} (Ctrl-C stops it)", file=err, flush=True)
    runpy.run_path(str(app), run_name="__main__")  # app.py starts the server and exits
    return 0


FIT_EXAMPLES = """examples:
  rmsc fit                                   RMSC on the bundled Digit data, paper protocol
  rmsc fit --data Digit-small --quiet        a 300-sample set: about a second
  rmsc fit --method RMSC-WV --beta 0.005     another method or parameters
  rmsc fit --beta auto --beta-rel 0.5        beta relative to the data (the dashboard's β_rel)
  rmsc fit --method SSC-AVG --alpha 50       SSC's beta = 2 mu / 50 on each view
  rmsc fit --data views.mat --n-clusters 6   your own .mat/.npz/.zip file
  rmsc fit --labels labels.csv --weights P.csv
                                             cluster labels and sample weights as CSV
  rmsc fit --data Subspaces --labels - > labels.csv
                                             labels on stdout (the report goes to stderr)
"""

REPRODUCE_EXAMPLES = """examples:
  rmsc reproduce --report docs/results.md --json docs/results.json
                                             everything, as docs/results.md was made
  rmsc reproduce --datasets 3-Sources --methods RMSC SSC-AVG --no-figures
                                             a quick look on one dataset
  rmsc reproduce --datasets my_views.mat --budget my_views=4
                                             the protocol on your own file
  rmsc reproduce --data-dir ../shared/datasets
                                             the paper's .mat files instead of the bundled copies
  rmsc reproduce --scheduler tcp://10.0.0.5:8786
                                             the fits on a running Dask cluster (default: a
                                             worker process per core on this machine)

When a dataset cannot be loaded the command stops before any fit, with exit status 2 and a
one-line reason.
"""

METHODS_EXAMPLES = """examples:
  rmsc methods                               every method with a one-line description
"""

LESSON_EXAMPLES = """examples:
  rmsc lesson                                check the shipped lesson and list its steps
  rmsc lesson --file my_lesson.yaml          check your own lesson (docs/lesson.md)
  rmsc lesson --urls http://HOST:8501        each step's address (what its QR code holds)
  rmsc lesson --warm                         compute every step's fits and comparisons now,
                                             so that the class gets them at once
"""

DASHBOARD_EXAMPLES = """examples:
  rmsc dashboard                             http://localhost:8501 (this machine only)
  rmsc dashboard --port 8600                 another port
  rmsc dashboard --address 0.0.0.0           serve every network interface (a class)
  rmsc dashboard --scheduler tcp://HOST:8786 fits on a running Dask cluster

The dashboard is the same app as `make run` in a repository checkout. It listens on
localhost unless --address says otherwise; Ctrl-C stops it. Fits run in worker
processes: a Dask LocalCluster on this machine (one worker per core), or the cluster
of --scheduler (or the RMSC_SCHEDULER environment variable).
"""


def _command(sub, name, help, examples, description=None):
    return sub.add_parser(name, help=help, description=description or help[:1].upper() + help[1:]
                          + ".", epilog=examples,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def build_parser():
    p = argparse.ArgumentParser(
        prog="rmsc", description="Robust localized multi-view subspace clustering.",
        epilog="'rmsc COMMAND --help' shows a command's options and examples.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    f = _command(sub, "fit", "cluster a dataset with one method and score it (paper protocol)",
                 FIT_EXAMPLES)
    f.add_argument("--data", default="Digit",
                   help="a bundled dataset (" + ", ".join(datasets.bundled_names())
                        + ") or a .mat/.npz/.zip file")
    f.add_argument("--method", default="RMSC", help="a name from 'rmsc methods' (default RMSC)")
    f.add_argument("--n-clusters", type=int, help="default: the number of classes in the labels")
    f.add_argument("--lam", type=float, help="lambda (RMSC); default: the method's own")
    f.add_argument("--beta", type=_beta_arg, metavar="BETA|auto",
                   help="beta: a number, or 'auto' for the method's own rule on the data "
                        "(the default: RMSC's β_rel × its data scale, SSC's 2 μ / α)")
    f.add_argument("--beta-rel", type=float, metavar="REL",
                   help="RMSC, RMSC-WV: beta relative to the data (beta auto = REL × the 5 %% "
                        "quantile of the emptying betas; default 0.25), the dashboard's β_rel")
    f.add_argument("--alpha", type=float,
                   help="SSC-BSV, SSC-AVG, DiMSC: Elhamifar & Vidal's alpha (> 1) of beta = "
                        "2 mu / alpha, mu each view's coherence; used when beta is auto "
                        "(default 20)")
    f.add_argument("--gamma", type=float,
                   help=f"gamma (RMSC); default {GAMMA:g} in the scaled model's units "
                        f"(the paper's model, loss_scale=None, uses {PAPER_GAMMA:g})")
    f.add_argument("--max-iter", type=int)
    f.add_argument("--keep-mass", type=float, metavar="RHO",
                   help="affinity post-processing (Elhamifar & Vidal's rho, in (0, 1]): keep the "
                        "largest coefficients of each column until they hold this share of its "
                        "l1 norm")
    f.add_argument("--top-k", type=int, help="affinity post-processing: keep k largest per column")
    f.add_argument("--scale-columns", action=argparse.BooleanOptionalAction, default=None,
                   help="affinity post-processing 'scale columns': divide each column of |Z*| "
                        "by its maximum (the dashboard's name too; RMSC's default, SSC's and "
                        "DiMSC's not); --no-scale-columns for the paper's (|Z*| + |Z*^T|)/2")
    f.add_argument("--seed", type=int, default=0, help="random_state (default 0)")
    f.add_argument("--labels", metavar="FILE",
                   help="write the cluster labels (best k-means run) as CSV: sample,label; "
                        "'-' for stdout")
    f.add_argument("--weights", metavar="FILE",
                   help="write the sample weights P as CSV: sample and one column per view "
                        "(RMSC, RMSC-WV); '-' for stdout")
    f.add_argument("--quiet", action="store_true", help="no per-iteration progress")
    f.add_argument("--device", default=os.environ.get("RMSC_DEVICE") or "auto",
                   metavar="{auto,cpu,cuda}",
                   help="where RMSC runs: cuda (a GPU through torch or CuPy, float32), cpu, or "
                        "auto (a GPU when one is present; the default, or $RMSC_DEVICE); "
                        "docs/device.md")
    f.set_defaults(func=cmd_fit)
    r = _command(
        sub, "reproduce", "the paper's Table 1 and figures: search, score, report",
        REPRODUCE_EXAMPLES,
        description="Run the paper's protocol (unit-L2 samples, 20 k-means restarts, mean ± std "
        "of ACC and NMI) for the chosen methods on the chosen datasets, each method searched "
        "over the same number of settings, and write Table 1 beside the paper's numbers, the "
        "figures and (optionally) JSON. Runs are cached, so an interrupted run resumes.")
    r.add_argument("--datasets", nargs="+", default=["Digit", "Reuter", "3-Sources"],
                   help="paper names (Digit, Reuter, 3-Sources; Animal is unavailable), a paper "
                   "name with an input weighting of its count views (3-Sources+log1p, "
                   "Reuter+tfidf), or paths to .mat/.npz/.zip files (default: the three "
                   "available)")
    r.add_argument("--methods", nargs="+", help="default: every method of Table 1")
    r.add_argument("--data-dir", help="folder of the paper's .mat files (digit_handwritten.mat, "
                   "reuters_1200.mat, 3sources.mat); default: the copies bundled with rmsc")
    r.add_argument("--postprocessing", nargs="+", default=list(experiments.POSTPROCESSING),
                   choices=list(experiments.POSTPROCESSING),
                   help="affinity variants, each its own Table 1, "
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
    r.add_argument("--workers", type=int, default=None,
                   help="Dask worker processes of the LocalCluster the fits run on (default: "
                        "one per core; 1: every fit in this process, no cluster)")
    r.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the fits on an existing Dask scheduler instead "
                        "(tcp://host:8786; default: $RMSC_SCHEDULER)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.add_argument("--command-line", help=argparse.SUPPRESS)
    r.set_defaults(func=cmd_reproduce)
    m = _command(sub, "methods", "list the registered methods", METHODS_EXAMPLES)
    m.set_defaults(func=cmd_methods)
    le = _command(sub, "lesson", "check a guided lesson, list its steps, compute their results",
                  LESSON_EXAMPLES)
    le.add_argument("--file", help="a lesson file (YAML; default: the lesson that ships with "
                                   "rmsc, the paper's argument on Digit)")
    le.add_argument("--urls", metavar="BASE", help="print each step's address on the dashboard "
                                                   "at BASE (e.g. http://localhost:8501)")
    le.add_argument("--warm", action="store_true",
                    help="compute every step's fits and comparisons into the dashboard's "
                         "result cache")
    le.set_defaults(func=cmd_lesson)
    d = _command(sub, "dashboard", "serve the Streamlit dashboard (the app of 'make run')",
                 DASHBOARD_EXAMPLES)
    d.add_argument("--port", type=int, default=8501, help="port to listen on (default 8501)")
    d.add_argument("--address", default="localhost",
                   help="address to listen on (default localhost: this machine only; "
                        "0.0.0.0: every network interface)")
    d.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="a running Dask scheduler for the fits (e.g. tcp://10.0.0.5:8786; "
                        "same as RMSC_SCHEDULER); default: worker processes on this machine")
    d.set_defaults(func=cmd_dashboard)
    return p


def _one_line(exc):
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def main(argv=None, out=None, err=None):
    """Run one command; return its exit status (0 done, 2 bad input, 1 other failure)."""
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
        print(f"rmsc: error: {_one_line(exc)}", file=err)
        return 2
    except KeyboardInterrupt:
        print("rmsc: interrupted", file=err)
        return 130
    except MemoryError:
        print("rmsc: error: out of memory; try a smaller dataset or fewer views.", file=err)
        return 1
    except Exception as exc:  # anything unforeseen: one line, never a traceback
        print(f"rmsc: error: {type(exc).__name__}: {_one_line(exc)}", file=err)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
