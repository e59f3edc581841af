"""RMSC explorer: the Streamlit dashboard (router and shared frame).

    make run        # or: python app.py [streamlit options]   (or: streamlit run app.py)

Every page lives in ``pages/`` and is registered with ``st.Page`` (see
``ui.pages``; the Streamlit half is the package ``ui/``); the frame drawn here for
every page (``ui.frame``) holds the sidebar with the dataset, the parameters and the fit's status, keeps the URL
in step with the state, and starts the fit of the current data and
parameters in a background thread as soon as something changes.

``python app.py`` starts the Streamlit server in this process after importing
what the pages and the first fit need (rmsc, scikit-learn, plotly; docs/measurements.md,
"Importing before the first visitor"), so the first visitor does not wait for it; ``streamlit run``
would import it during the first visitor's first script run
(``benchmarks/bench_dashboard.py`` measures both: ``--entry``).
"""

import logging
import time

_t0 = time.perf_counter()

from streamlit.runtime.scriptrunner import get_script_run_ctx  # noqa: E402


def preload():
    """What ``python app.py`` does before serving, so that the first visitor does not wait
    for it: import the pages' and the first fit's modules (``ui`` with them), pay
    Streamlit's once-per-process costs (``ui.runtime.prepare_server``), load the landing
    dataset (Digit) into the server's cache, and build the Solve page's figures once on
    made-up numbers (plotly makes each of its figure classes on first use)."""
    import plotly.graph_objects  # noqa: F401
    import plotly.io
    import sklearn.cluster  # noqa: F401
    import sklearn.decomposition  # noqa: F401

    import rmsc.dashboard  # noqa: F401
    import rmsc.datasets  # noqa: F401
    import rmsc.figures
    import rmsc.spectral  # noqa: F401

    # The pages' st.cache_data functions check their settings as ui is imported and, with
    # no server running yet, each logs "No runtime found": their caches are made at their
    # first call, in the server, so the lines say nothing here.
    quiet = logging.getLogger("streamlit.runtime.caching.cache_data_api")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        import ui
    finally:
        quiet.setLevel(level)
    ui.runtime.prepare_server()
    ui.load_bundled(ui.DEFAULT_DATASET)  # the landing data, kept for every session
    rows = [{"iteration": 1, "ari_previous": None, "changed": None, "acc": 50.0, "nmi": 40.0,
             "final": False},
            {"iteration": 2, "ari_previous": 1.0, "changed": 0, "acc": 50.0, "nmi": 40.0,
             "final": True}]
    figures = rmsc.figures
    for fig in (figures.objective_figure([(1, 2.0), (2, 1.0)], max_iter=2),
                figures.clustering_trace_figure(rows, max_iter=2),
                figures.view_weights_figure(["a", "b"], [0.5, 0.5])):
        plotly.io.to_json(fig.to_dict(), validate=False)  # as st.plotly_chart does


def _serve():
    """``python app.py``: import the heavy modules, then run ``streamlit run app.py`` here."""
    import sys

    from pathlib import Path

    from streamlit.web import cli

    # The app's folder first on the path, as `streamlit run` puts it for the script: `rmsc
    # dashboard` runs this file with runpy from an installed wheel (rmsc/_app/), where
    # preload's `import ui` would not find the app's own packages otherwise.
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    preload()
    sys.argv = ["streamlit", "run", __file__, *sys.argv[1:]]
    sys.exit(cli.main())


def main():
    """One script run: the frame, then the page the user is on."""
    import ui

    ui.log.debug("run start (imports %.3f s)", time.perf_counter() - _t0)
    page = ui.navigation()  # the page's configuration, every page's navigation, the frame
    page.run()
    ui.log.debug("run end %s", page.title)


if get_script_run_ctx(suppress_warning=True) is not None:
    main()  # a script run of `streamlit run` (or AppTest): __name__ is "__main__" there too
elif __name__ == "__main__":
    _serve()  # a plain `python app.py`
# else: imported outside Streamlit (e.g. a multiprocessing child re-running the file that
# AppTest left as __main__): nothing to draw.
