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

import time

_t0 = time.perf_counter()

from streamlit.runtime.scriptrunner import get_script_run_ctx  # noqa: E402


def _serve():
    """``python app.py``: import the heavy modules, then run ``streamlit run app.py`` here."""
    import sys

    import plotly.graph_objects  # noqa: F401
    import sklearn.cluster  # noqa: F401
    import sklearn.decomposition  # noqa: F401
    from streamlit.web import cli

    import rmsc.dashboard  # noqa: F401
    import rmsc.datasets  # noqa: F401
    import rmsc.figures  # noqa: F401
    import rmsc.spectral  # noqa: F401

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
