"""The reproduction's figures (plotly, from :mod:`rmsc.figures`) and their files."""

from __future__ import annotations

from pathlib import Path

from ..methods import available_methods
from .paper import PAPER_TABLE1, paper_dataset
from .report import objectives


def comparison_frame(ds, variant):
    """A :func:`rmsc.experiments.compare`-shaped DataFrame of one dataset's chosen records."""
    import pandas as pd

    rows = []
    for m, rec in ds.chosen[variant].items():
        rows.append({"method": m, "acc_mean": rec.acc_mean, "acc_std": rec.acc_std,
                     "nmi_mean": rec.nmi_mean, "nmi_std": rec.nmi_std})
    order = available_methods()  # the paper's Table 1 order, then methods registered later
    rows.sort(key=lambda r: order.index(r["method"]) if r["method"] in order else len(order))
    return pd.DataFrame(rows)


def figures_of(result):
    """Every figure of the reproduction: name -> plotly Figure."""
    from .. import figures

    v = result.figure_variant
    out = {}
    for ds in result.datasets:
        if ds.chosen is None or not ds.chosen[v]:
            continue
        base = paper_dataset(ds.name)
        paper = {m: (row[base][0], row[base][2]) for m, row in PAPER_TABLE1.items()
                 if base in row}
        out[f"comparison_{_slug(ds.name)}"] = figures.comparison_figure(
            comparison_frame(ds, v), paper=paper or None,
            title=f"{ds.name}: every method at its best setting (bars: ours; markers: paper)")
    for name, df in result.views.items():
        out[f"views_{_slug(name)}"] = figures.accuracy_vs_views_figure(
            df, title=f"{name}: clustering performance against the number of views")
    obj = objectives(result)
    if obj:
        out["convergence"] = figures.convergence_figure(
            obj, title="RMSC: objective against iterations (chosen setting)")
    for name, df in result.sensitivity.items():
        out[f"sensitivity_{_slug(name)}"] = figures.sensitivity_figure(
            df, title=f"RMSC on {name}: sensitivity to λ and β")
    return out


def _slug(name):
    return "".join(ch.lower() if ch.isalnum() else "_" for ch in name).strip("_")


def save_figure(fig, directory, stem, *, png=True):
    """Write ``fig`` as standalone HTML (always) and PNG (when kaleido can).

    Returns
    -------
    dict with ``html`` (path), ``png`` (path or None) and ``png_error`` (why no PNG).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    html = directory / f"{stem}.html"
    fig.write_html(html, include_plotlyjs="cdn", full_html=True)
    out = {"html": html, "png": None, "png_error": None}
    if png:
        path = directory / f"{stem}.png"
        try:
            fig.write_image(path, width=1000, height=480, scale=1)
            out["png"] = path
        except Exception as exc:  # kaleido missing, or no browser for it to drive
            out["png_error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return out
