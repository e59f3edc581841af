"""The guided lesson's state: which lesson, which step, and the step's state applied.

The lesson is read once per server (``RMSC_LESSON``, else the one that ships,
:func:`rmsc.dashboard.lesson.default_lesson_path`). On the Lesson page the frame applies the
current step's whole state (dataset, outliers, parameters) before it draws the sidebar and
starts the fit (:func:`enter`), once per arrival at a step: the step's own slider, or a
parameter changed on another page, is kept until the step is entered again. ``?lesson=N``
opens step N (:func:`wanted_from_url`).
"""

from __future__ import annotations

import os

import numpy as np
import streamlit as st

from rmsc import dashboard as dash
from rmsc import datasets, figures, inspection, outliers
from rmsc.dashboard import lesson as lessons
from rmsc.dashboard import lesson_reach as reach

from .caches import load_bundled, projection, result_cache
from .experiments import experiment_state, view_quality
from .fitting import QUEUE_POLL_SECONDS, fit_key, prefetch_fits
from .runtime import scroll_to_top, shared_figure
from .state import inject, reset_outliers, set_dataset, set_params

ss = st.session_state

#: The page's title in the navigation (the frame tells the Lesson page by it).
TITLE = "Lesson"


@st.cache_resource(show_spinner=False)
def _load(path):
    try:
        return lessons.load_lesson(path), None
    except lessons.LessonError as exc:
        return None, str(exc)


def current():
    """(lesson, error message): the lesson of this server, or why it cannot be used."""
    path = os.environ.get("RMSC_LESSON") or str(lessons.default_lesson_path())
    return _load(path)


@st.cache_resource(max_entries=4, show_spinner=False)
def _load_file(path):
    return datasets.load(path)


def wanted_from_url():
    """The step number ``?lesson=N`` asks for, or None."""
    raw = st.query_params.get(lessons.QUERY_KEY)
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        return 1


def step_number(lesson):
    """The session's current step (1-based)."""
    return lessons.clip_step(ss.get("lesson_step", 1), len(lesson))


def _step_data(lesson, step):
    if step.data in datasets.bundled_names():
        return load_bundled(step.data)
    folder = lesson.folder or "."
    return _load_file(os.path.join(folder, step.data))


@st.cache_resource(max_entries=16, show_spinner=False)
def _step_dataset(source, number, _lesson):
    """Step ``number``'s dataset with its outliers (one object per server: its fingerprint is
    computed once)."""
    step = _lesson.step(number)
    clean = _step_data(_lesson, step)
    return clean if step.outliers is None else step.outliers.inject(clean)


@st.cache_resource(max_entries=8, show_spinner=False)
def views_figures(fingerprint, _data, _vmax):
    """A 'views' step's figures of the data ``fingerprint``: each view in 2-D, one sample of
    each class as a picture (None without pictures or labels), the note on a flat
    panel (:func:`rmsc.dashboard.lesson.projection_note`, None when none is flat) and the
    line counting each picture's same-class neighbours
    (:func:`rmsc.dashboard.lesson.neighbour_line`, None without labels). Made
    once for every session, and made dictionaries once (``ui.runtime.shared_figure``): the
    class opening the step at once waits for one of them, not eight."""
    data = _data
    mask = data.outlier_mask
    plan = dash.scale_plan(data.n_samples)
    keep = None if mask is None else mask.any(axis=0)
    idx = dash.subsample(data.n_samples, plan.scatter_points, keep=keep)
    coords, explained = [], []
    for v in range(data.n_views):
        xy, ev = projection(fingerprint, v, data)
        coords.append(xy[idx])
        explained.append(ev)
    views = figures.views_scatter_figure(coords, data.view_names, data.labels, mask,
                                         indices=idx, explained=explained)
    note = lessons.projection_note(data.view_names, explained, coords)
    labels = None if data.labels is None else np.asarray(data.labels)[idx]
    clumps = lessons.neighbour_line(data.view_names, coords, labels)  # the question's answer
    images = data.images()
    if images is None or data.labels is None:
        return shared_figure(views), None, note, clumps
    shown = dash.class_examples(data.labels, 1)
    tiles = dash.image_tiles(images, shown, vmax=_vmax)
    return shared_figure(views), shared_figure(figures.sample_images_figure(
        tiles, [f"class {data.labels[i]}" for i in shown])), note, clumps


@st.cache_resource(max_entries=64, show_spinner=False)
def qr_code(url):
    """The QR code of a step's address (an SVG text), drawn once for every session that
    shows the same address (a class opening a step at once)."""
    return lessons.qr_svg(url)


@st.cache_resource(max_entries=8, show_spinner=False)
def comparison_view(key, _tables, claim=None, first=None, closing=True):
    """A 'compare' step's sentences (each method's change, then, on a step with a ``claim``,
    the paper's claim for that method checked; ``first`` and ``closing`` as
    :func:`rmsc.dashboard.lesson.run_context` gives them), its table of what the outliers
    changed (None without outliers) and one chart per dataset variant, for the comparison
    ``key``: made once for every session."""
    table = dash.robustness_table(_tables) if len(_tables) == 2 else None
    charts = {name: shared_figure(figures.comparison_figure(df, title=f"{name}: ACC and NMI"))
              for name, df in _tables.items()}
    sentences = lessons.comparison_sentences(_tables, claim, first, closing)
    if len(_tables) == 1 and (verdict := reach.versus_first(next(iter(_tables.values())))):
        sentences = [verdict, *sentences]  # one dataset: the methods against the first
    return sentences, table, charts


@st.cache_resource(max_entries=8, show_spinner=False)
def takeaway_view(key, fit, clean_fit, paper_fit, later, _step, _tables, _result, _data,
                  _clean_result, _paper_result):
    """A 'summary' step's sentences (:func:`rmsc.dashboard.lesson.step_takeaway`) for the
    comparison ``key``, the fit ``fit``, RMSC's fit on the clean data ``clean_fit`` and the
    paper's model's there ``paper_fit`` (None while not in) and the later step that tests
    the claim (``later``, as :func:`rmsc.dashboard.lesson.later_test` gives it): made once
    for every session."""
    return lessons.step_takeaway(_step, _tables, _result, _data, _clean_result, later,
                                 _paper_result)


@st.cache_resource(max_entries=8, show_spinner=False)
def evidence_view(key, fit, clean_fit, _step, _tables, _result, _data, _clean_result):
    """A claim step's lines on the weights and NMI where no closing step sums its run up
    (:func:`rmsc.dashboard.lesson.claim_evidence`), for the comparison ``key``, the fit
    ``fit`` and the clean one ``clean_fit``: made once for every session."""
    return lessons.claim_evidence(_step, _tables, _result, _data, _clean_result)


def clean_fit(step):
    """RMSC's fit of ``step``'s parameters on its clean data, from the result cache (an
    earlier step fitted it), or None."""
    return result_cache().get(dash.fit_key(step.params, ss.clean))


def paper_fit(step):
    """The paper's model fitted on ``step``'s clean data
    (:func:`rmsc.dashboard.lesson.paper_params`), from the result cache, or None."""
    return result_cache().get(dash.fit_key(lessons.paper_params(step.params), ss.clean))


def _paper_wait_body(step):
    if paper_fit(step) is not None:
        st.rerun()  # in: the closing step's "Who counts in Z*" says what it shows
    st.caption(PAPER_WAIT)


#: What the closing step says while the paper's model's fit is still running.
PAPER_WAIT = ("The paper's model is being fitted on the clean data (once for every session); "
              "the line on it fills in when it is done")

#: Polls the paper's model's fit while it is missing, and redraws the page once it is in.
paper_wait = st.fragment(run_every=QUEUE_POLL_SECONDS)(_paper_wait_body)


@st.cache_resource(max_entries=8, show_spinner=False)
def _gap(fit, view, _result, _data):
    return _result.model.consensus_gaps(list(_data.views), which=[view])[0]


def echo_note(result, data, facts):
    """Step 6's line on why the top view's share does not make Z* its picture
    (:func:`rmsc.dashboard.lesson.echo_note`): its table's distance to Z* in the fit (made
    once per fit) and its ACC alone (the Weights page's "each view alone", run on a worker
    when not in the result cache yet: the line says it once the run is in and the page
    redraws)."""
    if facts is None or result.model is None:
        return None
    view = list(data.view_names).index(facts["view"])
    quality, _ = experiment_state("quality", view_quality(data, result.params))
    alone = None if quality is None else quality[view]["acc"]
    acc = None if result.scores is None else result.scores["acc_mean"]
    return lessons.echo_note(facts, _gap(result.key, view, result, data), alone, acc,
                             dash.weight_shares(result, data)[0])


@st.cache_resource(max_entries=8, show_spinner=False)
def weights_view(key, _result, _data):
    """A 'weights' step's heatmap of P, and (ROC figure, AUC table) when the data have
    outliers (else None), for the fit ``key``: made once for every session."""
    r, data = _result, _data
    mask = data.outlier_mask
    plan = dash.scale_plan(data.n_samples)
    heatmap = inspection.heatmap_pool(r.weights, data.labels, pool="min", relative=True,
                                      max_columns=plan.weight_columns)
    figure = figures.pooled_weights_heatmap_figure(
        heatmap, data.view_names, outlier_mask=mask, placed=r.placed, relative=True,
        axis_title="samples grouped by class")
    if mask is None or not mask.any():
        return shared_figure(figure), None
    scores = outliers.scores(r)
    table = outliers.evaluate(scores, mask, view_names=data.view_names)
    roc = figures.roc_figure(outliers.roc_curves(scores, mask), data.view_names,
                             aucs=list(table["roc_auc"]))
    return shared_figure(figure), (shared_figure(roc), table[table["outliers"] > 0])


def slider_results(lesson, number, data):
    """Step ``number``'s fits at each value of its slider, as the result cache holds them
    (None for one not in yet: :func:`prefetch_other_steps` fits them)."""
    step = lesson.step(number)
    cache = result_cache()
    return [cache.get(dash.fit_key(p, data)) for p in lessons.slider_params(step)]


def _slider_wait_body(lesson, number, data):
    results = slider_results(lesson, number, data)
    if all(r is not None for r in results):
        st.rerun()  # all in: draw the table full
    done = sum(r is not None for r in results)
    st.caption(f"{SLIDER_WAIT} ({done} of {len(results)} in).")


#: What the Lesson page says while some of a slider's fits are still running.
SLIDER_WAIT = "The table fills in as the slider's fits finish"

#: Polls the slider's fits while some are missing, and redraws the page once all are in.
slider_wait = st.fragment(run_every=QUEUE_POLL_SECONDS)(_slider_wait_body)


def prefetch_other_steps(lesson, number):
    """Once the current step's fit is in, fit its slider's other values and the other
    steps' (the next ones first) on idle workers, so that Next is answered at once (the
    first visit computes them once)."""
    if fit_key() not in result_cache():
        return
    # this step's own slider values first (its table shows them all), then the next steps
    order = [number, *range(number + 1, len(lesson) + 1), *range(1, number)]
    try:
        prefetch_fits([(_step_dataset(lesson.source, k, lesson), p) for k in order
                       for p in lessons.step_params(lesson.step(k))]
                      + [(_step_data(lesson, lesson.step(k)), p) for k in order  # the paper's
                         for p in lessons.clean_params(lesson.step(k))])  # model, clean data
    except ValueError:  # a step whose data cannot be read: it says so when it is entered
        pass


def apply(lesson, number):
    """Make step ``number``'s state the session's: dataset, outliers, parameters."""
    step = lesson.step(number)
    clean = _step_data(lesson, step)
    if ss.get("clean") is not clean:
        set_dataset(clean)
    if ss.get("outliers") != step.outliers:
        if step.outliers is None:
            reset_outliers()
        else:  # the step's dataset with its outliers, made once for every session
            inject(step.outliers, _step_dataset(lesson.source, number, lesson))
    if ss.get("params") != step.params:
        set_params(step.params)
    ss.lesson_step = lessons.clip_step(number, len(lesson))
    ss._lesson_applied = ss.lesson_step


def go(number):
    """Back / Next (a callback: runs before the script, so the frame draws the new step)."""
    lesson, _ = current()
    if lesson is not None:
        apply(lesson, number)


def enter(on_lesson_page):
    """The frame's part: on the Lesson page, apply the step unless it is already applied
    (an arrival from another page, or from a URL, applies it again)."""
    if not on_lesson_page:
        ss.pop("_lesson_applied", None)
        return
    lesson, _ = current()
    if lesson is None:
        return
    wanted = ss.pop("_lesson_from_url", None)
    if wanted is not None:
        ss.lesson_step = wanted
    number = step_number(lesson)
    if ss.get("_lesson_applied") != number:
        try:
            apply(lesson, number)
        except ValueError as exc:  # e.g. a teacher's file that cannot be read
            ss.messages.append(f"Step {number} of the lesson could not set its data: {exc}")


def to_top(number):
    """Scroll the page to its top when it shows step ``number`` first (Next at the end of
    a step, below its evidence, would leave the next one scrolled down)."""
    scroll_to_top(f"lesson step {number}")


def query():
    """What the Lesson page adds to the URL: its step."""
    return {lessons.QUERY_KEY: str(ss.get("lesson_step", 1))}
