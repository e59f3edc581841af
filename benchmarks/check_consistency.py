"""Every surface reports the same ACC: the library, ``rmsc fit``, Compare and Sensitivity.

For one dataset, seed and the methods' own defaults, each method's mean ACC over the
protocol's 20 k-means runs as each surface computes it:

* **library** — ``rmsc.get_method(method, n_clusters=k, random_state=seed).fit(views)``,
  scored with ``rmsc.evaluate_runs`` on ``label_runs_``;
* **CLI** — ``rmsc fit --data NAME --method METHOD --seed SEED`` (its printed ACC);
* **Compare (library)** — the Compare page's run (:func:`rmsc.dashboard.compare_parts`
  with :func:`rmsc.dashboard.compare_params` at the page's defaults: the Solve page's
  defaults, each method's own post-processing);
* **Compare page** — the page itself in Streamlit's AppTest (default widgets, the
  method ticked, Run clicked), its table's "ACC %";
* **views chart** — the Sensitivity page's number-of-views run
  (:func:`rmsc.dashboard.views_parts`), its point at every view;
* **λ × β cell** — the Sensitivity page's grid (:func:`rmsc.dashboard.sensitivity_parts`)
  of one cell: the λ and the β the library's fit resolved (RMSC, RMSC-WV only).

A last column, for contrast, is Compare with "the same post-processing for all" (the
Solve page's column scaling given to every self-representation method): not a surface
that must agree, the choice the page no longer makes by default.

    python benchmarks/check_consistency.py                       # Digit-small, the defaults
    python benchmarks/check_consistency.py --data Digit --methods RMSC SSC-AVG
    python benchmarks/check_consistency.py --smoke               # Subspaces, no AppTest

tests/app/test_consistency.py runs the same surfaces on Subspaces and requires them equal.
"""

from __future__ import annotations

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import io
import re
import sys

ROOT = _preamble.ROOT


import rmsc  # noqa: E402
from rmsc import dashboard as dash  # noqa: E402
from rmsc import datasets  # noqa: E402
from rmsc.cli import main as cli_main  # noqa: E402

SURFACES = ("library", "CLI", "Compare (library)", "Compare page", "views chart",
            "λ × β cell")


def library_acc(data, method, seed):
    """ACC (fraction) and the fitted estimator of ``method`` at its defaults."""
    est = rmsc.get_method(method, n_clusters=data.n_clusters, random_state=seed)
    est.fit(list(data.views))
    return rmsc.evaluate_runs(data.labels, est.label_runs_)["acc_mean"], est


def cli_acc(name, method, seed):
    """The ACC ``rmsc fit`` prints (a fraction, to its two decimals of %)."""
    out, err = io.StringIO(), io.StringIO()
    status = cli_main(["fit", "--data", name, "--method", method, "--seed", str(seed),
                       "--quiet"], out=out, err=err)
    if status != 0:
        raise RuntimeError(f"rmsc fit failed: {err.getvalue()}")
    return float(re.search(r"ACC\s+([\d.]+) ±", out.getvalue()).group(1)) / 100


def _run(task):
    job = dash.Job("consistency", task).start()
    if not job.wait(3600) or job.error:
        raise RuntimeError(f"the run failed: {job.error}")
    return job.result


def compare_acc(data, methods, seed, postprocessing="own"):
    """method -> ACC of the Compare page's run at its defaults (``postprocessing`` aside)."""
    params = dash.compare_params(dash.Params(seed=seed), data, methods,
                                 postprocessing=postprocessing)
    table = _run(dash.compare_parts({"data": data}, methods, params, seed))["data"]
    return dict(zip(table["method"], table["acc_mean"]))


def views_acc(data, methods, seed):
    """method -> ACC of the number-of-views chart's point at every view."""
    params = dash.compare_params(dash.Params(seed=seed), data, methods)
    table = _run(dash.views_parts(data, methods, params, seed))
    full = table[table["n_views"] == data.n_views]
    return dict(zip(full["method"], full["acc_mean"]))


def grid_acc(data, method, est, seed):
    """ACC of the Sensitivity grid's cell at the λ and β the library's fit ``est`` resolved,
    with the Solve page's other settings for ``method``; None for a method off the grid."""
    if method not in dash.grid_methods():
        return None
    solve = dash.Params(weighting=est.weighting, seed=seed)
    base = dash.sensitivity_settings(solve, method)
    table = _run(dash.sensitivity_parts(data, [est.lam_], [est.beta_], method, base, seed))
    return float(table["acc_mean"].iloc[0])


def page_acc(name, methods, seed, timeout=1800):
    """method -> ACC (fraction, to the table's two decimals of %) of the Compare page in
    AppTest: opened on ``name`` by its URL, ``methods`` ticked, Run clicked."""
    import streamlit.testing.v1.app_test as app_test_module
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    class SteadyState(PagesManager):  # app.py's router on every run, as a live server
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            PagesManager.uses_pages_directory = False

    saved = app_test_module.PagesManager
    app_test_module.PagesManager = SteadyState
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    try:
        at.query_params["data"] = name
        at.run()
        at.switch_page("pages/compare.py").run()
        at.multiselect(key="w_cmp_methods").set_value(list(methods)).run()
        at.number_input(key="w_cmp_seed").set_value(seed).run()
        at.button(key="w_cmp_run").click().run()
        job = at.session_state["slots"]["compare"].latest
        if not job.wait(timeout) or job.error:
            raise RuntimeError(f"the Compare page's run failed: {job.error}")
        at.run()
        if at.exception:
            raise RuntimeError(at.exception[0].value)
        table = next(d.value for d in at.dataframe if "ACC %" in d.value.columns)
        return {m: float(acc.split(" ± ")[0]) / 100
                for m, acc in zip(table["method"], table["ACC %"])}
    finally:
        for slot in at.session_state["slots"].values():
            slot.cancel()
        app_test_module.PagesManager = saved
        PagesManager.uses_pages_directory = None


def consistency_table(name, methods, seed=0, page=True):
    """``{method: {surface: ACC fraction or None}}`` plus the "same" contrast column."""
    data = datasets.load_bundled(name)
    compare = compare_acc(data, methods, seed)
    same = compare_acc(data, methods, seed, postprocessing="same")
    views = views_acc(data, methods, seed)
    shown = page_acc(name, methods, seed) if page else {}
    rows = {}
    for m in methods:
        acc, est = library_acc(data, m, seed)
        rows[m] = {"library": acc, "CLI": cli_acc(name, m, seed),
                   "Compare (library)": compare.get(m), "Compare page": shown.get(m),
                   "views chart": views.get(m), "λ × β cell": grid_acc(data, m, est, seed),
                   "Compare, same post-processing": same.get(m)}
    return rows


def _cell(value):
    return "—" if value is None else f"{100 * value:.2f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="Digit-small", help="a bundled dataset")
    parser.add_argument("--methods", nargs="+", default=list(dash.DEFAULT_COMPARE))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-page", action="store_true",
                        help="leave out the Compare page in AppTest (the slowest surface)")
    _preamble.add_argument(parser)
    args = parser.parse_args(argv)
    name = "Subspaces" if args.smoke else args.data
    rows = consistency_table(name, args.methods, args.seed,
                             page=not (args.no_page or args.smoke))
    columns = list(next(iter(rows.values())))
    print(f"ACC % (mean over the 20 k-means runs), {name}, seed {args.seed}, each method at "
          "its own defaults:\n")
    print("| method | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for m, row in rows.items():
        print(f"| {m} | " + " | ".join(_cell(row[c]) for c in columns) + " |")
    agree = all(len({_cell(row[c]) for c in SURFACES if row[c] is not None}) == 1
                for row in rows.values())
    print(f"\nevery surface agrees on every method: {'yes' if agree else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
