"""Everything the dashboard does past Streamlit's documented API, in one place, and why.

Streamlit 1.67 offers no public way to do six things the dashboard needs; each is done
here, and each falls back to doing nothing where the piece it uses is missing (AppTest,
another Streamlit version), so the pages still work, only less well:

1. **Redraw a session when its background fit ends** (:func:`session_rerunner`). A fit runs
   on a worker; when it ends, the page should show the result at once, not at the next
   poll of a fragment (polling faster costs the fit CPU time,
   ``benchmarks/bench_dashboard.py``). Streamlit reruns a session this way itself when a
   source file changes (``runOnSave``): ``AppSession.request_rerun`` with the session's
   last client state, reached through ``Runtime.get_app_session`` and the session's
   private ``_event_loop``, ``_scriptrunner`` and ``_client_state``.
2. **Release what Streamlit keeps of sessions that have gone** (:func:`start_sweeper`):
   Streamlit never shuts down a disconnected session whose reconnection time ran out
   (:func:`rmsc.dashboard.release_expired_sessions` says what stays and how it is freed,
   duck-typed on the runtime handed to it here); ``Runtime.is_active_session`` tells the
   sweep which sessions are still connected.
3. **The first run of a page in the legacy pages-directory mode** (:func:`page_setup`).
   A folder named ``pages/`` beside ``app.py`` puts Streamlit in its legacy mode until
   ``st.navigation`` is first called: ``PagesManager.__init__`` sets the class-wide
   ``uses_pages_directory`` from ``Path(main_script_parent / "pages").exists()``
   (``streamlit/runtime/pages_manager.py``, lines 60-63); while it is set, the script
   runner executes ``_mpa_v1`` (``streamlit/runtime/scriptrunner/script_runner.py``,
   lines 933-934), which runs the page's file alone instead of ``app.py``; only a call of
   ``st.navigation`` clears it (``streamlit/commands/navigation.py``, line 399). No
   configuration option changes this: ``client.showSidebarNavigation`` only hides the
   legacy sidebar (``script_runner.py`` lines 170-174), and AppTest resets the flag before
   every run (``streamlit/testing/v1/app_test.py``, line 666). The project keeps the
   ``pages/`` folder, so a page opened by its URL on a fresh server is first run on its
   own: :func:`page_setup` draws the frame and the real navigation then, and reruns once
   so that the page's widgets get the ids they have under ``app.py``.
4. **The first visitor's once-per-process costs, paid before serving**
   (:func:`prepare_server`, which ``python app.py`` calls). The first element any script
   draws makes Streamlit ask whether it runs in a Python REPL, to print a warning there
   (``_maybe_print_use_warning`` in ``streamlit/delta_generator.py``, lines 155-180, calling
   ``env_util.is_repl``): ``inspect.stack()``, which resolves the source file of every
   frame against every loaded module, seconds on a busy machine. A server is never a REPL:
   the warning is marked as shown. The page icons' tables (``streamlit.emojis``,
   ``streamlit.material_icon_names``), imported on the first ``st.set_page_config`` and
   ``st.Page``, are imported here.
5. **A chart every session shows, serialized once** (:class:`SharedFigure`).
   ``st.plotly_chart`` makes a dictionary of the figure it is given on every call, in every
   session: ``plotly.tools.return_figure_from_figure_or_data`` calls the figure's
   ``to_dict`` (``streamlit/elements/plotly_chart.py``, lines 886-892), which deep-copies
   every trace and encodes every array again; a dictionary given instead is validated by
   building a whole figure from it, which costs more. The lesson's charts are the same for
   every session of a step (a class clicks Next at once, and the server runs every session's
   script in one process), so each is made a dictionary once: a :class:`SharedFigure` is a
   plotly figure whose ``to_dict`` gives that stored dictionary (its traces copied one level
   deep, since ``plotly.io.to_json`` removes their ``uid``). What Streamlit sends is the
   same JSON, byte for byte. Where plotly changes how a figure becomes a dictionary, the
   figure itself is used.
6. **Back to the top of a page** (:func:`scroll_to_top`). A rerun keeps the page's scroll
   position: the Lesson page's Next at the end of a step, below its evidence, left the
   next step scrolled to where the button had been, its text and question out of sight.
   The page scrolls in the element ``[data-testid=stMain]``; a script in a zero-height
   ``st.components.v1.html`` frame (same origin) scrolls it, and its parent window, to the
   top. The frame is drawn again only when its text changes, so the script runs once per
   ``token``.
"""

from __future__ import annotations

import logging

import streamlit as st
from plotly.basedatatypes import BaseFigure
import streamlit.components.v1 as components

from rmsc import dashboard as dash

log = logging.getLogger("rmsc.dashboard")
ss = st.session_state


def prepare_server():
    """Pay the first visitor's once-per-process costs now (see the module docstring, 4):
    Streamlit's REPL check skipped, the page icons' tables imported. Each step is skipped
    where this Streamlit lacks its piece."""
    import importlib

    for name in ("streamlit.emojis", "streamlit.material_icon_names"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    try:
        from streamlit import delta_generator
    except ImportError:
        return
    if hasattr(delta_generator, "_use_warning_has_been_displayed"):
        delta_generator._use_warning_has_been_displayed = True


class SharedFigure(BaseFigure):
    """``figure`` made a dictionary once, for ``st.plotly_chart`` in every session (see the
    module docstring, 5). Only ``to_dict`` is meant to be called: the figure is not built
    again (no ``BaseFigure.__init__``), and nothing may change it."""

    def __init__(self, figure):  # BaseFigure.__init__ skipped on purpose: nothing is built
        object.__setattr__(self, "_shared", figure.to_dict())

    def to_dict(self):
        d = self._shared
        return {**d, "data": [dict(trace) for trace in d["data"]]}


def shared_figure(figure):
    """``figure`` as every session's ``st.plotly_chart`` will take it: a :class:`SharedFigure`
    made once (call it where the figure is cached), or the figure itself where plotly does
    not make a figure a dictionary as this expects."""
    if figure is None or not callable(getattr(figure, "to_dict", None)):
        return figure
    shared = SharedFigure(figure)
    if not isinstance(shared._shared, dict) or not isinstance(shared._shared.get("data"), list):
        return figure
    return shared


def streamlit_runtime():
    """The running Streamlit ``Runtime``, or None (AppTest, or no server)."""
    try:
        from streamlit.runtime import Runtime

        return Runtime.instance() if Runtime.exists() else None
    except Exception:  # noqa: BLE001 - no runtime: nothing to reach
        return None


def session_id():
    """The id of the session whose script is running in this thread, or None."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return None if ctx is None else ctx.session_id


def start_sweeper(book, on_idle):
    """Sweep ``book`` every few seconds (a :class:`rmsc.dashboard.Sweeper`): the sessions
    the runtime no longer knows are released, ``on_idle()`` runs when the last has gone, and
    what Streamlit keeps of expired sessions is freed. False without a runtime (AppTest)."""
    runtime = streamlit_runtime()
    if runtime is None:
        return False
    dash.Sweeper(book, runtime.is_active_session, on_idle, on_quiet=dash.trim_everywhere,
                 on_tick=lambda: dash.release_expired_sessions(runtime, dash.trim_memory)).start()
    return True


def session_rerunner():
    """A function that reruns this browser session's script from any thread, or None.

    The request is made on the session's event loop (where the browser's own requests are
    handled, one at a time) and only while no script runs: a run under way may carry the
    browser's new widget values (a click, an upload) that a rerun requested now would drop.
    That run, or the page's polling fragment, shows the result instead. See the module
    docstring for the private pieces it uses; None when any is missing.
    """
    try:
        runtime = streamlit_runtime()
        sid = session_id()
        if runtime is None or sid is None:
            return None
        session = runtime.get_app_session(sid)
        if session is None or not all(hasattr(session, a) for a in (
                "_event_loop", "_scriptrunner", "_client_state", "request_rerun")):
            return None
    except Exception:  # noqa: BLE001 - an optimization: polling still works without it
        return None

    def rerun_if_idle():  # on the session's event loop
        try:
            current = runtime.get_app_session(sid)
            if current is not None and current._scriptrunner is None:
                current.request_rerun(current._client_state)
                log.debug("session %s rerun", sid)
        except Exception:  # noqa: BLE001
            log.debug("could not rerun session %s", sid, exc_info=True)

    def rerun():
        try:
            session._event_loop.call_soon_threadsafe(rerun_if_idle)
        except Exception:  # noqa: BLE001 - e.g. the loop has closed with the server
            log.debug("could not reach session %s", sid, exc_info=True)

    return rerun


def page_setup(draw_frame):
    """First call of every page: make sure the frame was drawn in this run.

    ``app.py`` draws the frame (``draw_frame()``, which also registers the navigation)
    before running the page. When Streamlit ran the page's file alone (the legacy first run,
    see the module docstring; AppTest's reruns too), nothing was drawn yet: the frame is
    drawn here, and the session's first such run is rerun at once, before the page draws a
    widget. Streamlit derives a widget's id from the script that draws it, so a button drawn
    by the page file alone has another id than the same button drawn through ``app.py``'s
    navigation; a click on it that arrives after the navigation took over (a click in the
    first second or two of a visit opened on the page's URL) was dropped: no run started
    and nothing said so (``tests/browser/test_pages.py`` clicks Compare's and Sensitivity's Run
    at once after load).
    """
    if "_frame_count" not in ss or ss._frame_count == ss.get("_frame_seen"):
        draw_frame()
        if not ss.get("_legacy_rerun"):
            ss._legacy_rerun = True
            ss._frame_seen = ss._frame_count
            st.rerun()  # draw the page through the navigation: its widgets keep their ids
    ss._frame_seen = ss._frame_count


_SCROLL_TOP = """<script>
/* TOKEN */
const doc = window.parent.document;
const main = doc.querySelector("[data-testid=stMain]");
if (main) main.scrollTo(0, 0);
window.parent.scrollTo(0, 0);
</script>"""


def scroll_to_top(token):
    """Scroll the page to its top once per ``token`` (a new token: scroll again)."""
    try:
        components.html(_SCROLL_TOP.replace("TOKEN", str(token).replace("*/", "")),
                        height=0)
    except Exception:  # pragma: no cover - another Streamlit: the page stays where it is
        log.debug("scroll_to_top unavailable", exc_info=True)
