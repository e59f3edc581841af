"""The results document (Markdown): Table 1 per variant, the search, figures' tables."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .cache import Record
from .grid import (
    POSTPROCESSING,
    POSTPROCESSING_TITLE,
    SEARCH_BUDGET,
    SEARCH_NOTES,
    SELF_REPRESENTATION,
    _fmt_params,
    applies_postprocessing,
    search_grid,
)
from .paper import CONVERGENCE_DATASETS, DATASETS, PAPER_TABLE1, paper_dataset


def _pm(mean, std):
    return f"{100 * mean:.2f} ± {100 * std:.2f}"


def table1(chosen_by_dataset, methods, *, ran=None):
    """Table 1 as Markdown: ours beside the paper's, with the difference (percentage points).

    Parameters
    ----------
    chosen_by_dataset : dict dataset -> dict method -> Record
    methods : list of str
        Rows; a name without a paper entry (e.g. a best-single-view row scored
        without labels) is shown without the paper's numbers.
    ran : dict dataset -> set of methods, optional
        Methods that were run; one of them without a record in
        ``chosen_by_dataset`` had every setting fail, and says so.

    The columns are the paper's four datasets (Animal is not available, so its
    cells give the paper's numbers only), then any other dataset that was run.
    """
    columns = list(DATASETS) + [d for d in chosen_by_dataset if d not in DATASETS]
    ran = ran or {}
    lines = []
    for metric in ("acc", "nmi"):
        title = "Accuracy (%)" if metric == "acc" else "NMI (%)"
        lines.append(f"**{title}** — ours (paper; difference in points)\n")
        lines += ["| method | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
        for method in methods:
            cells = []
            for ds in columns:
                paper = PAPER_TABLE1.get(method, {}).get(paper_dataset(ds))
                p_mean, p_std = (None, None) if paper is None else (
                    (paper[0], paper[1]) if metric == "acc" else (paper[2], paper[3]))
                rec = chosen_by_dataset.get(ds, {}).get(method)
                if ds in DATASETS and DATASETS[ds] is None:
                    cells.append(f"n/a: data unavailable (paper {p_mean:.2f} ± {p_std:.2f})"
                                 if paper else "n/a: data unavailable")
                elif rec is None:
                    state = ("all settings failed" if method in ran.get(ds, ())
                             else "not run")
                    cells.append(state + (f" (paper {p_mean:.2f})" if paper else ""))
                else:
                    m, s = getattr(rec, f"{metric}_mean"), getattr(rec, f"{metric}_std")
                    cells.append(f"{_pm(m, s)} ({p_mean:.2f}; {100 * m - p_mean:+.2f})"
                                 if paper else _pm(m, s))
            lines.append(f"| {method} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def short_error(message):
    """The first sentence of an error message, safe inside a Markdown table cell."""
    if not message:
        return ""
    first = str(message).split(". ")[0].strip().rstrip(".")
    return first.replace("|", "/").replace("\n", " ")


def search_table(records):
    """Every setting tried, per method: a Markdown table (ACC/NMI mean ± std, fit time)."""
    lines = ["| dataset | method | parameters | ACC % | NMI % | fit s | note |",
             "|---|---|---|---|---|---:|---|"]
    for rec in records:
        if rec.acc_mean is None:
            lines.append(f"| {rec.dataset} | {rec.method} | {_fmt_params(rec.params)} | "
                         f"failed: {short_error(rec.error)} | | | |")
        else:
            lines.append(f"| {rec.dataset} | {rec.method} | {_fmt_params(rec.params)} | "
                         f"{_pm(rec.acc_mean, rec.acc_std)} | {_pm(rec.nmi_mean, rec.nmi_std)} | "
                         f"{rec.fit_time:.1f} | {rec.note or ''} |")
    return "\n".join(lines)


def sensitivity(records):
    """Per method: best, median and worst mean ACC over its grid (fractions)."""
    by = {}
    for rec in records:
        by.setdefault(rec.method, []).append(rec.acc_mean if rec.acc_mean is not None else np.nan)
    return {m: {"best": float(np.nanmax(v)), "median": float(np.nanmedian(v)),
                "worst": float(np.nanmin(v)), "settings": len(v),
                "failed": int(np.isnan(v).sum())}
            for m, v in ((m, np.asarray(v, dtype=float)) for m, v in by.items())
            if not np.all(np.isnan(v))}


def _nolabel_record(rec):
    """The best-single-view record re-scored on the view chosen without labels."""
    nl = rec.nolabel or {}
    return Record(dataset=rec.dataset, method=rec.method, params=rec.params,
                  acc_mean=nl.get("acc_mean"), acc_std=nl.get("acc_std"),
                  nmi_mean=nl.get("nmi_mean"), nmi_std=nl.get("nmi_std"),
                  fit_time=rec.fit_time, view=nl.get("view"))


#: Row label of a best-single-view method scored on the view chosen without labels.
NOLABEL_SUFFIX = " (view chosen without labels)"


def table1_for(result, variant):
    """Table 1 (Markdown) of one post-processing variant, with the no-label BSV rows."""
    chosen, ran, rows = {}, {}, list(result.methods)
    for ds in result.datasets:
        if ds.chosen is None:
            continue
        chosen[ds.name] = dict(ds.chosen[variant])
        ran[ds.name] = set(result.methods) - set(ds.excluded)
        for m, rec in ds.chosen[variant].items():
            if rec.nolabel:
                chosen[ds.name][m + NOLABEL_SUFFIX] = _nolabel_record(rec)
    for m in result.methods:
        if any(m + NOLABEL_SUFFIX in c for c in chosen.values()):
            rows.insert(rows.index(m) + 1, m + NOLABEL_SUFFIX)
    return table1(chosen, rows, ran=ran)


def goal_table(result):
    """RMSC against the paper's numbers on each dataset run, per variant (Markdown)."""
    lines = ["| dataset | variant | ACC % (paper) | NMI % (paper) | at or above the paper? |",
             "|---|---|---|---|---|"]
    for ds in result.datasets:
        paper = PAPER_TABLE1["RMSC"].get(paper_dataset(ds.name))
        if ds.chosen is None or paper is None:
            continue
        for v in result.variants:
            rec = ds.chosen[v].get("RMSC")
            if rec is None:
                lines.append(f"| {ds.name} | {v} | — | — | RMSC did not run |")
                continue
            acc, nmi = 100 * rec.acc_mean, 100 * rec.nmi_mean
            verdict = {(True, True): "yes, both", (True, False): "ACC only",
                       (False, True): "NMI only", (False, False): "no"}[
                (acc >= paper[0], nmi >= paper[2])]
            lines.append(f"| {ds.name} | {v} | {acc:.2f} ({paper[0]:.2f}; {acc - paper[0]:+.2f}) "
                         f"| {nmi:.2f} ({paper[2]:.2f}; {nmi - paper[2]:+.2f}) | {verdict} |")
    return "\n".join(lines)


def sensitivity_markdown(result):
    """Per dataset, variant and method: best / median / worst mean ACC over its grid."""
    lines = ["| dataset | variant | method | settings | failed | best ACC % | median | worst | "
             "chosen setting | fit s (chosen) |", "|---|---|---|---:|---:|---:|---:|---:|---|---:|"]
    for ds in result.datasets:
        if ds.records is None:
            continue
        for v in result.variants:
            summary = sensitivity(ds.records[v])
            for m in result.methods:
                recs = [r for r in ds.records[v] if r.method == m]
                if not recs:
                    continue
                s = summary.get(m)
                rec = ds.chosen[v].get(m)
                if s is None:
                    lines.append(f"| {ds.name} | {v} | {m} | {len(recs)} | {len(recs)} | — | — | "
                                 f"— | all failed | |")
                    continue
                lines.append(
                    f"| {ds.name} | {v} | {m} | {s['settings']} | {s['failed']} | "
                    f"{100 * s['best']:.2f} | {100 * s['median']:.2f} | {100 * s['worst']:.2f} | "
                    f"{_fmt_params(_grid_params(rec))} | {rec.fit_time:.1f} |")
    return "\n".join(lines)


def _grid_params(rec):
    """The searched parameters of a record (post-processing parameters left out)."""
    pp = {k for extra in POSTPROCESSING.values() for k in extra}
    return {k: v for k, v in rec.params.items() if k not in pp}


def timing_markdown(result):
    """Fit time (s) of each method's chosen setting, per dataset (Markdown)."""
    names = [ds.name for ds in result.datasets if ds.chosen is not None]
    v = result.variants[0]
    lines = ["| method | " + " | ".join(f"{n} fit s" for n in names) + " |",
             "|---|" + "---:|" * len(names)]
    for m in result.methods:
        cells = []
        for ds in result.datasets:
            if ds.chosen is None:
                continue
            rec = ds.chosen[v].get(m)
            cells.append(f"{rec.fit_time:.1f}" if rec is not None else "—")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def views_markdown(df):
    """The accuracy-against-views table (Markdown), one row per method and number of views."""
    lines = ["| method | views | ACC % | NMI % |", "|---|---|---|---|"]
    for row in df.itertuples(index=False):
        if row.error is not None and not (isinstance(row.error, float) and np.isnan(row.error)):
            lines.append(f"| {row.method} | {row.views} | failed: {short_error(row.error)} | |")
        else:
            lines.append(f"| {row.method} | {row.views} | {_pm(row.acc_mean, row.acc_std)} | "
                         f"{_pm(row.nmi_mean, row.nmi_std)} |")
    return "\n".join(lines)


def sensitivity_grid_markdown(df):
    """RMSC's (lambda, beta) grid: ACC % with lambda across and beta down (Markdown)."""
    lams = sorted(df["lam"].unique())
    betas = sorted(df["beta"].unique())
    lines = ["| β \\ λ | " + " | ".join(f"{x:g}" for x in lams) + " |",
             "|---|" + "---:|" * len(lams)]
    for b in betas:
        cells = []
        for lam in lams:
            row = df[(df["lam"] == lam) & (df["beta"] == b)].iloc[0]
            cells.append("failed" if np.isnan(row["acc_mean"])
                         else f"{100 * row['acc_mean']:.2f} ± {100 * row['acc_std']:.2f}")
        lines.append(f"| {b:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def objectives(result):
    """RMSC's objective history of the chosen setting, per dataset of the convergence figure."""
    out = {}
    for ds in result.datasets:
        if ds.chosen is None or ds.name not in CONVERGENCE_DATASETS:
            continue
        rec = ds.chosen[result.figure_variant].get("RMSC")
        if rec is not None and rec.objective:
            out[f"{ds.name} (λ={rec.params.get('lam')}, β={rec.params.get('beta')})"] = \
                rec.objective
    return out


def report(result, *, command, figure_files=None, notes=None, relative_to=None):
    """The results document (Markdown).

    Parameters
    ----------
    result : Reproduction
    command : str
        The command that regenerates the document (written at its top).
    figure_files : dict name -> :func:`save_figure` output, optional
    notes : str, optional
        Hand-written discussion, placed as is after Table 1 (it must refer to the tables
        above, which are regenerated, rather than restate their numbers).
    relative_to : path, optional
        Figure links are made relative to this folder (the document's).
    """
    import os

    def link(p):
        return os.path.relpath(p, relative_to) if relative_to else str(p)

    L = ["# Reproduction of Fan et al. (IJCAI 2017): Table 1 and Figures 1, 3, 4", "",
         "Generated by (rerun it to regenerate this file, figures and JSON; the results cache "
         "makes a rerun resume):", "", "```", command, "```", "",
         "## Protocol", "",
         "- Every sample scaled to unit L2 norm in every view; spectral clustering of each "
         "method's result; k-means 20 times; ACC and NMI as mean ± std over those 20 runs "
         "(population std). One implementation of this protocol scores every method "
         "(`rmsc.experiments.run_one`).",
         f"- The paper publishes no parameters. Every method gets the same search budget: "
         f"{SEARCH_BUDGET} settings of its own parameters (grids below, `rmsc.experiments.SEARCH`), "
         "each scored with the protocol; the table reports the setting of highest mean ACC. "
         "That choice uses the labels — for every method alike, as any tuned table does — so "
         "the whole search is reported below.",
         *_budget_lines(result),
         "- Affinity post-processing is applied to all self-representation methods "
         f"({', '.join(SELF_REPRESENTATION)}) alike or to none: one Table 1 per variant.",
         "- SC-BSV and SSC-BSV rows are scored as the paper does (the best view, chosen with "
         "the labels) and, in the rows marked *view chosen without labels*, on the view "
         "each method picks itself (largest eigengap of its affinity).",
         "- γ = 1e-5 for RMSC and RMSC-WV (the paper's value); k = 5 nearest neighbours for "
         "the graph methods (the paper's value; SC-BSV searches it).",
         f"- Seed {result.random_state}; wall time of this invocation "
         f"{result.elapsed / 60:.1f} min (fits found in the cache cost nothing); the fits "
         f"behind this document took {result.fit_seconds / 60:.1f} min in total, as "
         "recorded when each ran (a fit that re-used a shared solve counts only its own "
         "part).", ""]
    L += ["## Datasets", "", "| dataset | samples | views (features) | clusters | source |",
          "|---|---:|---|---:|---|"]
    for ds in result.datasets:
        if ds.error:
            L.append(f"| {ds.name} | — | — | — | not run: {short_error(ds.error)} |")
        else:
            views_s = ", ".join(f"{n} ({d})" for n, d in zip(ds.view_names, ds.n_features))
            L.append(f"| {ds.name} | {ds.n_samples} | {views_s} | {ds.n_clusters} | "
                     f"`{Path(ds.path).name if ds.path else 'bundled'}` |")
    if "Animal" not in {ds.name for ds in result.datasets}:
        L.append("| Animal | — | — | — | not available: the AwA features are not reachable "
                 "from this machine; its column shows the paper's numbers only |")
    L += ["", "## RMSC against the paper", "", goal_table(result), ""]
    for v in result.variants:
        L += [f"## Table 1 — {POSTPROCESSING_TITLE[v]}", "",
              f"Variant `{v}` (applies to {', '.join(SELF_REPRESENTATION)}; the graph methods "
              "are the same in every variant).", "", table1_for(result, v), ""]
    if notes:  # the discussion right after the tables it discusses
        L += [notes.strip(), ""]
    files = figure_files or {}
    if files:
        L += ["## Figures", "",
              f"Figures use the `{result.figure_variant}` variant. Interactive versions: the "
              "HTML files (they load plotly.js from its CDN).", ""]
        for name, f in files.items():
            title = name.replace("_", " ")
            if f.get("png"):
                L.append(f"![{title}]({link(f['png'])})  ")
            L.append(f"[{title} (interactive HTML)]({link(f['html'])})"
                     + (f" — no PNG: {f['png_error']}" if f.get("png_error") else ""))
            L.append("")
    for name, df in result.views.items():
        L += [f"### {name}: accuracy against the number of views (paper's Figure 1)", "",
              "Views added in the paper's order; each method at the setting its search chose "
              "on all views.", "", views_markdown(df), ""]
    obj = objectives(result)
    if obj:
        L += ["### Convergence (paper's Figure 3)", "", "| run | iterations | objective: start → "
              "end | decrease in the first 5 iterations |", "|---|---:|---|---:|"]
        for name, values in obj.items():
            v5 = values[min(5, len(values) - 1)]
            share = (values[0] - v5) / (values[0] - values[-1]) if values[0] != values[-1] else 1
            L.append(f"| {name} | {len(values) - 1} | {values[0]:.6g} → {values[-1]:.6g} | "
                     f"{100 * share:.1f} % of the total decrease |")
        L.append("")
    for name, df in result.sensitivity.items():
        L += [f"### Sensitivity of RMSC to λ and β on {name}"
              + (" (paper's Figure 4)" if name == "Digit" else ""), "",
              "ACC % (mean ± std over 20 k-means runs) over a grid wider than the search's; "
              "*failed*: the setting empties Z* or leaves it in pieces. Not used to choose "
              "Table 1's setting.", "", sensitivity_grid_markdown(df), ""]
    L += ["## The search", "", "### Grids (the same budget for every method)", "",
          "| method | grid | why |", "|---|---|---|"]
    for m in result.methods:
        grid = "; ".join(f"{k} ∈ {{{', '.join(f'{x:g}' if isinstance(x, float) else str(x) for x in vals)}}}"
                         for k, vals in search_grid(m).items())
        L.append(f"| {m} | {grid} | {SEARCH_NOTES.get(m, '')} |")
    L += ["", "### How much each method depends on its parameters", "",
          "Best, median and worst mean ACC over the grid; *failed*: settings that could not "
          "produce a clustering (counted, not scored).", "", sensitivity_markdown(result), "",
          "### Fit time of the chosen settings", "", "Seconds for one fit (everything: graphs "
          "or representations, iterations, embedding, 20 k-means runs) as measured during the "
          "search on a shared, busy 2-core machine, so only rough. Within a run an inner "
          "problem already solved is not solved again (`rmsc.experiments.SharedSolves`): "
          "SSC-AVG and DiMSC's start re-use SSC-BSV's per-view SSC solutions, so their times "
          "here leave those out. Independent timings of every method: the speed section.", "",
          timing_markdown(result), "",
          "### Every setting tried", "", "<details><summary>All search records</summary>", ""]
    for ds in result.datasets:
        if ds.records is None:
            continue
        for v in result.variants:
            recs = ds.records[v]
            if v != result.variants[0]:  # the graph methods are the same records
                recs = [r for r in recs if applies_postprocessing(r.method)]
            L += [f"#### {ds.name}, variant `{v}`", "", search_table(recs), ""]
    L += ["</details>", ""]
    return "\n".join(L)


def _budget_lines(result):
    """Protocol bullet(s) saying where the search was reduced (empty when nowhere)."""
    lines = []
    excluded = [f"{m} on {ds.name}" for ds in result.datasets for m in ds.excluded]
    if excluded:
        lines.append(f"- **Not run** — {', '.join(excluded)} (`--exclude`): too slow for the "
                     "time available here, see *Compute* below; Table 1 says *not run* there.")
    reduced = [ds for ds in result.datasets
               if ds.budget is not None and ds.budget < SEARCH_BUDGET and ds.records is not None]
    if not reduced:
        return lines
    parts = ", ".join(f"{ds.name}: {ds.budget} settings per method" for ds in reduced)
    return lines + [f"- **Reduced search** — {parts}, for every method alike: each method's grid "
            "(below) thinned to that many settings evenly spaced over it in its declared "
            "order, first and last included (`rmsc.experiments.thin`, "
            "`rmsc.experiments.DATASET_BUDGET`, `--budget`), fixed before any run. Why: see "
            "*Compute* below. The settings run are those listed under *Every setting tried*."]
