"""What the lesson's first step's charts cost a browser alone: a static page, no server.

    python docs/studies/lesson_static_charts.py [--data Digit-small] [--tabs 1 8] [--rounds 2]

Writes the 'views' step's two figures (each view in 2-D, one sample of each class as a
picture: ``rmsc.figures.views_scatter_figure`` and ``sample_images_figure``, as the Lesson
page draws them) into a static HTML page with plotly.js (the copy the plotly package ships),
opens it in N tabs of Chromium at once (started at nice 19, ``--disable-gpu``: the arguments
of ``benchmarks/bench_load.py``; docs/lesson.md says what Chromium makes of the nice) and
prints the seconds from opening the page until plotly has drawn every figure, median and max over the tabs and the rounds: a floor under what any
server can give the same step on the same machine. Variants, in turn (reversed every other
round): plotly.js alone with nothing drawn; the scatter in WebGL (as the page draws it) or
SVG; the pictures as ten subplots (as the page drew them before) or as one picture (as
``sample_images_figure`` draws them now).

Measured: docs/lesson.md, "The server's part, the browser's part, and the same charts with no
server" (2026-11-28, commit 8802734). Not smoke-tested: a one-off study of the page's cost.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402,F401  (the root on sys.path, one thread)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import bench_load as B  # noqa: E402

PAGE = """<html><head><script src="plotly.min.js"></script></head><body>{divs}<script>
const figs = {figs};
Promise.all(figs.map((f, i) => Plotly.newPlot('f' + i, f.data, f.layout)))
  .then(() => requestAnimationFrame(() => {{ window.__done = true; }}));
</script></body></html>"""


def ten_subplots(images, titles, columns=10):
    """The pictures as the Lesson page drew them before they became one picture (commit
    fc31a87): one subplot with its own image trace per picture."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    cols = max(1, min(columns, len(images)))
    rows = -(-len(images) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=list(titles),
                        horizontal_spacing=0.01, vertical_spacing=0.08)
    for i, img in enumerate(images):
        grey = np.clip(np.asarray(img, dtype=float), 0, 1)
        rgb = np.repeat((255 * (1 - grey))[..., None], 3, axis=2).astype(np.uint8)
        fig.add_trace(go.Image(z=rgb, hoverinfo="skip"), row=i // cols + 1, col=i % cols + 1)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.update_annotations(font_size=11)
    fig.update_layout(height=110 * rows + 30, margin=dict(t=25, b=5, l=5, r=5))
    return fig


def as_type(fig, kind):
    """``fig`` with every scatter trace drawn as ``kind`` ('scatter': SVG, 'scattergl')."""
    import plotly.graph_objects as go

    out = go.Figure(layout=fig.layout)
    for trace in fig.data:
        j = trace.to_plotly_json()
        out.add_trace({**j, "type": kind} if j["type"] in ("scatter", "scattergl") else j)
    return out


def pages(name, folder):
    import plotly
    import plotly.io as pio

    from rmsc import dashboard as dash
    from rmsc import datasets, figures

    shutil.copy(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", folder)
    data = datasets.load_bundled(name)
    idx = dash.subsample(data.n_samples, dash.scale_plan(data.n_samples).scatter_points)
    proj = [dash.project_2d(data.views[v]) for v in range(data.n_views)]
    scatter = figures.views_scatter_figure([p[0][idx].astype(np.float32) for p in proj],
                                           data.view_names, data.labels, None, indices=idx,
                                           explained=[p[1] for p in proj])
    shown = dash.class_examples(data.labels, 1)
    tiles = dash.image_tiles(data.images(), shown, vmax=float(data.images().max()))
    titles = [f"class {data.labels[i]}" for i in shown]
    gl, svg = as_type(scatter, "scattergl"), as_type(scatter, "scatter")
    old, one = ten_subplots(tiles, titles), figures.sample_images_figure(tiles, titles)
    variants = {"none (plotly.js loaded, nothing drawn)": [],
                "scatter WebGL, pictures as ten subplots (before)": [gl, old],
                "scatter SVG, pictures as ten subplots": [svg, old],
                "scatter WebGL, pictures as one picture": [gl, one],
                "scatter SVG, pictures as one picture": [svg, one],
                "the page's figures now (rmsc.figures)": [scatter, one]}
    out = {}
    for k, (label, figs) in enumerate(variants.items()):
        path = Path(folder) / f"page{k}.html"
        path.write_text(PAGE.format(
            divs="".join(f"<div id='f{i}' style='width:1200px'></div>" for i in range(len(figs))),
            figs="[" + ",".join(pio.to_json(f, validate=False) for f in figs) + "]"))
        out[label] = path
    return out


async def tab(browser, path, seconds):
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    page = await context.new_page()
    t0 = time.perf_counter()
    await page.goto(f"file://{path}", timeout=B.TIMEOUT, wait_until="commit")
    await page.wait_for_function("window.__done === true", timeout=B.TIMEOUT, polling=50)
    seconds.append(time.perf_counter() - t0)
    await context.close()


async def drive(variants, tabs, rounds):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=B.browser_executable(19), args=B.ARGS)
        await tab(browser, next(iter(variants.values())), [])  # the browser's first page
        for n in tabs:
            seconds = {label: [] for label in variants}
            loads = {label: [] for label in variants}
            for r in range(rounds):  # the variants in turn, reversed every other round
                for label, path in list(variants.items())[::-1 if r % 2 else 1]:
                    await asyncio.gather(*(tab(browser, path, seconds[label])
                                           for _ in range(n)))
                    loads[label].append(os.getloadavg()[0])
            for label, secs in seconds.items():
                load = statistics.median(loads[label])
                print(f"| {label} | {n} | {statistics.median(secs):.2f} | {max(secs):.2f} | "
                      f"{load:.1f} |", flush=True)
        await browser.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="Digit-small")
    ap.add_argument("--tabs", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--rounds", type=int, default=2,
                    help="each variant this many times (in turn with the others)")
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="lesson_static_")
    variants = pages(args.data, folder)
    load = os.getloadavg()
    print(f"# {args.data}; Chromium at nice 19; load average {load[0]:.1f} / {load[1]:.1f} / "
          f"{load[2]:.1f}")
    print("| charts | tabs at once | median s | max s | load (1 min) after it, median |\n"
          "|---|---|---|---|---|")
    try:
        asyncio.run(drive(variants, args.tabs, args.rounds))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    load = os.getloadavg()
    print(f"# load average after: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")


if __name__ == "__main__":
    main()
