"""Lesson: the paper's argument in steps, each setting the whole state, each a URL and a QR code."""

import streamlit as st

import ui
from rmsc import dashboard as dash
from rmsc import inspection
from rmsc.dashboard import lesson as lessons
from rmsc.dashboard.lesson_reach import reach_caveat
from ui import lesson as session_lesson
from ui import lesson_close as session_close

ss = st.session_state

#: The link under the QR code (the code holds the same address).
OPEN_ON_LAPTOP = "Open on your laptop"

ui.page_setup()
lesson, error = session_lesson.current()
if lesson is None:
    st.title("Lesson")
    st.error(error)
    st.caption("Fix the lesson file (docs/lesson.md lists every field) and restart the "
               "dashboard; the other pages work as before.")
    st.stop()

n = session_lesson.step_number(lesson)
step = lesson.step(n)
# Compact above the evidence (the seventh cold reading: text, question, buttons and the QR
# code filled the first 800 px, the evidence began below the fold): the lesson's title and
# Back / Next in one row (again at the step's end, after the evidence), the text the page's
# full width, the QR code small beside the question (its own button enlarges it)


def _nav(place, first=None):
    """Back / Next (``place``: "top" or "end", their keys' suffix), after ``first`` (a
    function drawing into the row's first column) at the top, the page to explore the step
    on at the end."""
    suffix = "" if place == "top" else "_end"
    if place == "top":
        b3, b1, b2 = st.columns([4, 1, 1], vertical_alignment="center")
    else:
        b1, b2, b3 = st.columns([1, 1, 4], vertical_alignment="center")
    b1.button("← Back", key=f"lesson_back{suffix}", disabled=n <= 1,
              on_click=session_lesson.go, args=(n - 1,), use_container_width=True)
    b2.button("Next →", key=f"lesson_next{suffix}", disabled=n >= len(lesson), type="primary",
              on_click=session_lesson.go, args=(n + 1,), use_container_width=True)
    if first is not None:
        with b3:
            first()
    elif step.page is not None:
        b3.page_link(f"pages/{step.page.lower()}.py", label=f"Explore this on the {step.page} "
                     "page", icon=":material/open_in_new:")


def _heading():
    st.markdown(f"**Lesson:** {lesson.title}")
    session_lesson.to_top(n)


_nav("top", first=_heading)
st.subheader(f"Step {n} of {len(lesson)}: {step.title}")
st.markdown(step.text)
left, right = st.columns([4, 1])
with left:
    st.info(f"**Question.** {step.question}")
    if step.where:
        st.markdown(f"**↓ Where to look:** {step.where}")
with right:
    base = st.context.url.split("?")[0] if st.context.url else "http://localhost:8501/"
    root = base.rsplit("/", 1)[0] if base.rstrip("/").endswith("lesson") else base
    url = lessons.step_url(root, lesson, n)
    st.image(session_lesson.qr_code(url), width=104)
    st.markdown(f"<a href='{url}' style='font-size:0.75rem'>{OPEN_ON_LAPTOP}</a>",
                unsafe_allow_html=True)

session_lesson.prefetch_other_steps(lesson, n)
data = ui.require_data()

if step.show == "views":
    images = ss.clean.images()
    views, pictures, flat, clumps = session_lesson.views_figures(
        data.fingerprint, data, None if images is None else float(images.max()))
    st.plotly_chart(views, key="lesson_views")
    for line in (clumps, flat):
        if line:
            st.markdown(line)
    if pictures is not None:
        st.plotly_chart(pictures, key="lesson_images")

elif step.show in ("compare", "summary"):
    key, variants, methods, cparams = lessons.step_comparison(step, ss.clean, data)
    tables, job = ui.experiment_state("compare", key)
    if tables is None and (job is None or not job.active):
        ui.start_experiment(
            "compare", key, dash.compare_parts(variants, methods, cparams, step.params.seed),
            label="compare",
            record=lambda b, t, variants=variants, cparams=cparams: dash.record_compare(
                b, variants, t, cparams, dash.worker_slots()["cores"]))
    tables = ui.experiment_panel("compare", key)
    if tables is None:
        _, job = ui.experiment_state("compare", key)
        if job is not None and job.active:
            st.caption(f"Running {', '.join(methods)} on the {' and the '.join(variants)} "
                       "data, once for every session (`rmsc lesson --warm` computes every "
                       "step beforehand).")
        st.stop()
    if step.show == "summary":  # what the run shows, from the comparison and RMSC's fit
        r = ui.require_result("The lesson")
        if r is None:
            st.stop()
        st.markdown("#### What this run shows")
        clean_r, paper_r = session_lesson.clean_fit(step), session_lesson.paper_fit(step)
        for line in session_lesson.takeaway_view(key, r.key, getattr(clean_r, "key", None),
                                                 getattr(paper_r, "key", None),
                                                 lessons.later_test(lesson.steps, n), step,
                                                 tables, r, data, clean_r, paper_r) or []:
            st.markdown(f"- {line}")
        if paper_r is None and dash.prefetch_enabled():  # prefetch_other_steps fits it
            session_lesson.paper_wait(step)
        st.markdown(lessons.SPREAD_NOTE)
        _nav("end")
        st.stop()
    first, closing = lessons.run_context(lesson.steps, n)
    sentences, table, charts = session_lesson.comparison_view(key, tables, step.claim, first,
                                                              closing)
    clean_r = session_lesson.clean_fit(step)
    sentences = lessons.carry_caveat(sentences, reach_caveat(  # can it test the claim?
        tables, lesson.steps, n, data, clean_r))
    if step.claim is not None and step.outliers is not None and not closing:
        # no closing step sums this run up: the weights' finding, the shares and NMI here
        r = ui.require_result("The lesson")
        if r is None:
            st.stop()
        sentences += session_lesson.evidence_view(key, r.key, getattr(clean_r, "key", None),
                                                  step, tables, r, data, clean_r)
    shown = dash.compare_display(next(iter(tables.values())), data.view_names)
    differ = lessons.postprocessing_line(shown, len(tables), lesson.steps, n)  # main text
    for line in sentences + ([differ] if differ else []):
        st.markdown(f"- {line}")
    if closing := session_close.answer(lesson, n):  # the lesson's answer, on its last test
        st.container(border=True).markdown(closing)
    if table is not None:
        # the lines above say "within the ± spread" (a rule: normal text, not a grey caption)
        st.markdown(lessons.SPREAD_NOTE)
        st.markdown("**What the outliers changed** (ACC in points: + gained, − lost)")
        st.dataframe(table, hide_index=True, key="lesson_robustness", height="content",
                     column_config=ui.robustness_columns(table))
    cols = st.columns(len(charts))
    for col, (name, chart) in zip(cols, charts.items()):
        col.plotly_chart(chart, key=f"lesson_cmp_{name}")
    if len(tables) == 1:
        st.dataframe(shown, hide_index=True, key="lesson_cmp_table", height="content",
                     column_config={"ARI %": st.column_config.NumberColumn(format="%.2f"),
                                    "purity %": st.column_config.NumberColumn(format="%.2f"),
                                    "time s": st.column_config.NumberColumn(
                                        "time s (this run)", format="%.1f",
                                        help=lessons.TIME_NOTE)})
        st.markdown(f"{lessons.SPREAD_NOTE} {lessons.SCORES_NOTE}")
        if "post-processing" in shown:
            st.markdown(lessons.POSTPROCESSING_NOTE)
            st.caption(lessons.TIME_NOTE)
    st.caption("  \n".join(lessons.method_lines(methods)))

elif step.show in ("weights", "solve"):
    if step.slider is not None:
        name = step.slider.param
        current = {"lam": ss.params.resolved_lam, "beta": ss.params.beta,
                   "beta_rel": ss.params.resolved_beta_rel}[name]
        label = dash.SYMBOLS.get(name, name)

        def _move():
            ui.set_params(ss.params.replace(**{name: ss.lesson_slider}))

        values = list(step.slider.values)
        value = dash.nearest(values, current) if isinstance(current, float) else values[0]
        shown = ui.widget_values({"lesson_slider": value})["lesson_slider"]
        ends = {values[0]: " (lowest)", values[-1]: " (highest)"}
        # its stops are evenly spaced, its values need not be: the label says which
        st.select_slider(dash.stops_label(label, values), values, value=shown,
                         key="lesson_slider", on_change=_move,
                         format_func=lambda v: f"{v:g}{ends.get(v, '')}")
    r = ui.require_result("The lesson")
    if r is None:
        st.stop()
    if step.show == "weights":
        heatmap, roc = session_lesson.weights_view(r.key, r, data)
        reading = lessons.heatmap_note(r.weights, data.outlier_mask, data.view_names)
        if reading:  # how to read it, before it (the eighth cold reading learnt it after)
            st.markdown(reading)
        st.plotly_chart(heatmap, key="lesson_heatmap", theme=None)
        if roc is None:
            st.info("No outliers in this step: the ROC curve needs some.")
        else:
            c1, c2 = st.columns(2)
            c1.plotly_chart(roc[0], key="lesson_roc")
            c2.dataframe(roc[1], hide_index=True, key="lesson_auc", height="content",
                         column_config=ui.outlier_columns())
            c2.markdown(lessons.ROC_NOTE)
    else:
        acc = None if r.scores is None else 100 * r.scores["acc_mean"]
        c1, c2, c3 = st.columns(3)
        c1.metric("ACC", "—" if acc is None else f"{acc:.1f} %")
        c2.metric("density of Z* (nonzero entries)", f"{lessons.consensus_density(r):.2f} %")
        c3.metric("β (absolute)", "—" if r.beta is None else f"{r.beta:.3g}")
        if step.slider is not None:  # every value of the slider at once, as it fits them
            st.markdown(f"**At each value of the slider** ({label})")
            at_each = session_lesson.slider_results(lesson, n, data)
            stops = lessons.slider_table_text(lessons.slider_table(step, at_each))
            st.dataframe(stops, hide_index=True, key="lesson_slider_table", height="content")
            if moves := lessons.slider_sentence(stops):
                st.markdown(moves)
            if any(x is None for x in at_each):
                if dash.prefetch_enabled():
                    session_lesson.slider_wait(lesson, n, data)
                else:  # nothing fits them in the background: moving the slider does
                    st.caption("Move the slider to fit the empty rows' values.")
        shares, _ = dash.weight_shares(r, data)
        if step.slider is not None:
            st.markdown(lessons.shares_heading(label, current))
        table = dash.weight_shares_table(shares)[list(lessons.SHARE_COLUMNS)]
        formats = {f"{inspection.SHARE_LABEL} %": "%.1f",
                   f"{inspection.P_SHARE_LABEL} %": "%.1f", "samples at the cap %": "%.1f",
                   "median loss": "%.3g", dash.VIEW_SCALE_LABEL: "%.3g"}
        st.dataframe(table, hide_index=True, key="lesson_shares", height="content",
                     column_config={c: st.column_config.Column(help=why) if c not in formats
                                    else st.column_config.NumberColumn(format=formats[c],
                                                                       help=why)
                                    for c, why in lessons.SHARE_COLUMNS.items()})
        facts = dash.weight_dominance(r, data, ui.dominant_spread(r, data))
        note = lessons.weight_note(shares, facts)
        if facts is not None:  # in a frame, in the page's text colour (a yellow box's
            st.container(border=True).markdown(note)  # dark yellow read faint)
        elif note:
            st.markdown(note)
        echo = session_lesson.echo_note(r, data, facts)
        if echo:
            st.markdown(echo)

_nav("end")
