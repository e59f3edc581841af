"""A session's state: the data, the parameters, the job slots, the URL.

Session state (survives page switches):

* ``clean`` — the dataset as loaded; ``data`` — the dataset the pages use
  (``clean`` plus injected outliers); ``outliers`` — the OutlierSpec or None.
* ``params`` — :class:`rmsc.dashboard.Params` of the current run (:func:`set_params`).
* ``slots`` — one :class:`rmsc.dashboard.JobSlot` per kind of background work, each
  running its tasks on the Dask workers (:class:`rmsc.dashboard.DaskSender`).
* ``autorun`` — fit automatically whenever the data or a parameter changes.
* ``messages`` — what the next draw says (e.g. ignored URL parameters).
"""

from __future__ import annotations

import streamlit as st

from rmsc import dashboard as dash
from rmsc import datasets

from .caches import job_registry, load_bundled, session_book
from .runtime import session_id

ss = st.session_state

DEFAULT_DATASET = "Digit"


def bundled_names():
    """The datasets that ship with rmsc (the only ones a URL may name)."""
    return list(datasets.bundled_names())


def init_session():
    """First run of a session: defaults, then whatever the URL asks for.

    Only missing keys are filled, so a test may seed the session (e.g. a small
    dataset in ``clean`` and ``data``) before the first run.
    """
    if ss.get("_initialized"):
        return
    ss._initialized = True
    dash.workers.start_in_background()  # fits run on worker processes (rmsc.dashboard.workers)
    sender = dash.DaskSender()  # the process's dask_workers, started on first use
    ss.setdefault("slots", {name: dash.JobSlot(job_registry(), sender)
                            for name in ("fit", "compare", "sensitivity", "views",
                                         "suggest", "quality", "clean")})
    ss.setdefault("autorun", True)
    ss.setdefault("messages", [])
    query = st.query_params.to_dict()
    if "params" not in ss:
        params, problems = dash.Params.from_query(query)
        ss.params = params
        ss.messages.extend(problems)
    if "clean" in ss:
        ss.setdefault("data", ss.clean)
        ss.setdefault("outliers", None)
        return
    name = query.get("data", DEFAULT_DATASET)
    if name not in bundled_names():
        ss.messages.append(
            f"Ignored data={name!r} from the URL: only bundled datasets "
            f"({', '.join(bundled_names())}) can be opened from a link; showing {DEFAULT_DATASET}.")
        name = DEFAULT_DATASET
    try:
        set_dataset(load_bundled(name), keep_clusters=True)
    except ValueError as exc:
        ss.messages.append(str(exc))
        set_dataset(None)
    if "outliers" in query and ss.clean is not None:
        try:
            inject(dash.OutlierSpec.from_query(query["outliers"]))
        except (ValueError, ImportError, AttributeError) as exc:
            ss.messages.append(f"Ignored outliers={query['outliers']!r} from the URL: {exc}")


def track_session():
    """Record this session's job slots with the server's :func:`session_book` (every run)."""
    sid = session_id()
    if sid is not None:
        session_book().register(sid, ss.slots.values())


#: Widgets whose choices depend on the dataset (its views, its labels): they start again from
#: their defaults when the dataset changes, instead of keeping a choice the new data lack.
DATASET_WIDGETS = ("w_clusters", "w_out_views", "w_cmp_rob_views", "w_aff_view", "w_aff_order",
                   "w_aff_kind", "w_weights_order")


def dataset_widget_defaults(data):
    """The value each of :data:`DATASET_WIDGETS` starts from on ``data`` (those a page does
    not set itself): written into their keys, since a dropped key leaves the browser's
    widget on its old choice (a keyed widget's id is its key alone, see
    :func:`widget_values`), which its next rerun sends back (the page review: the previous data's
    view under "views to corrupt" after an upload)."""
    if data is None:
        return {}
    names = list(data.view_names)
    first = "class" if dash.scoring_labels(data) is not None else "cluster"
    return {"w_out_views": names[:1], "w_cmp_rob_views": names[:2], "w_aff_view": 0,
            "w_aff_order": first, "w_weights_order": first}


def set_dataset(data, keep_clusters=False):
    """Make ``data`` the current (clean) dataset; forget injected outliers.

    The number of clusters chosen for the previous data is forgotten too, unless
    ``keep_clusters`` (the first dataset of a session, whose c may come from the URL).
    The widgets whose choices depend on the data start again (:data:`DATASET_WIDGETS`).
    """
    ss.clean = data
    ss.data = data
    ss.outliers = None
    if not keep_clusters and "params" in ss and ss.params.n_clusters is not None:
        ss.params = ss.params.replace(n_clusters=None)
    for key in DATASET_WIDGETS:
        ss.pop(key, None)
    ss.update(dataset_widget_defaults(data))


def inject(spec, data=None):
    """Inject outliers into the clean data (raises ValueError with a message); ``data``: the
    result already made (the lesson's, shared by every session)."""
    ss.data = spec.inject(ss.clean) if data is None else data
    ss.outliers = spec
    views = [v for v in spec.views if v in ss.clean.view_names]
    ss.update({"w_out_views": views, "w_cmp_rob_views": views})  # those just corrupted


def reset_outliers():
    """Back to the clean data."""
    ss.data = ss.clean
    ss.outliers = None


def data():
    """The dataset the pages use (the clean one plus injected outliers), or None."""
    return ss.get("data")


def params():
    """The session's :class:`rmsc.dashboard.Params` (those the pages show and fit)."""
    return ss.params


def set_params(params):
    """Make ``params`` (a :class:`rmsc.dashboard.Params`) the session's parameters: every
    change of a parameter goes through here (widget callbacks run before the script, so the
    frame then starts the fit the new parameters ask for)."""
    ss.params = params


def widget_values(values):
    """The ``value=`` to draw each widget with, so that it shows ``values`` (``{key: value}``).

    The session's state is the source of what the widgets show:

    * a widget drawn for the first time (its key not in the session state) is drawn with
      its value (what the browser starts from);
    * a widget on screen whose key holds another value was moved by a callback (Apply,
      Defaults, another method): its key is written here, before it is drawn, and it is
      drawn with ``None`` (the key holds the value; Streamlit warns when given both).
      Streamlit then sends the browser the new value. Dropping the key instead, to draw
      the widget again from a new ``value=``, does not: a keyed widget's id is its key
      alone (Streamlit 1.67), so the browser keeps its old value and sends it back with its
      next rerun (a click, a fragment's poll), whose ``on_change`` undoes the change;
    * a widget whose key holds its value (the user's own move) is drawn with it.
    """
    out = {}
    for key, value in values.items():
        if key in ss and ss[key] != value:
            ss[key] = value
            out[key] = None
        else:
            out[key] = value
    return out


def slot(name):
    """The session's :class:`rmsc.dashboard.JobSlot` for one kind of work ("fit", ...)."""
    return ss.slots[name]


def show_messages():
    """Messages queued for the next render (e.g. ignored URL parameters)."""
    for msg in ss.get("messages", []):
        st.warning(msg)
    ss.messages = []


def sync_query_params(extra=None):
    """Reflect the dataset, outliers and parameters in the URL (shareable); ``extra``: the
    page's own keys (the Lesson page's step)."""
    query = dict(ss.params.to_query())
    clean = ss.get("clean")
    if clean is not None and clean.name in bundled_names() and clean.name != DEFAULT_DATASET:
        query["data"] = clean.name
    if ss.get("outliers") is not None:
        query.update(ss.outliers.to_query())
    query.update(extra or {})
    if st.query_params.to_dict() != query:
        st.query_params.from_dict(query)
