"""The lesson's charts and QR codes, made once for every session (``ui.lesson``,
``ui.runtime.shared_figure``): what Streamlit sends for a shared chart is what it sends for
the figure itself, and a shared piece is keyed on the result it shows."""

import textwrap

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest
from plotly.subplots import make_subplots
from streamlit.testing.v1 import AppTest

from rmsc import dashboard as dash
from rmsc import figures
from rmsc.dashboard import lesson as L

pytestmark = pytest.mark.usefixtures("fresh_caches")

#: Two steps on one corrupted dataset, their fits differing only in β.
LESSON = """
title: Two weights
steps:
  - title: Weights
    data: Subspaces
    outliers: {views: ["view 1 (20-d)"], fraction: 0.1, kind: replace}
    show: weights
    params: {max_iter: 5, beta_rel: 0.25}
    text: Dark means distrusted.
    question: Which row is dark?
  - title: Weights again
    data: Subspaces
    outliers: {views: ["view 1 (20-d)"], fraction: 0.1, kind: replace}
    show: weights
    params: {max_iter: 5, beta_rel: 0.1}
    text: Dark means distrusted.
    question: Which row is darker?
"""


def _figures():
    """Figures of the kinds the lesson draws: WebGL scatter in subplots with arrays (sent
    as typed arrays), a heatmap, one with trace uids, and the library's views figure."""
    rng = np.random.default_rng(0)
    sub = make_subplots(rows=1, cols=2, subplot_titles=("a", "b"))
    sub.add_trace(go.Scattergl(x=rng.random(50), y=rng.random(50), mode="markers",
                               uid="first"), 1, 1)
    sub.add_trace(go.Heatmap(z=rng.random((8, 6)).astype(np.float32)), 1, 2)
    coords = [rng.random((30, 2)) for _ in range(3)]
    labels = np.repeat(np.arange(3), 10)
    mask = np.zeros((3, 30), bool)
    mask[1, :3] = True
    views = figures.views_scatter_figure(coords, ["v1", "v2", "v3"], labels, mask,
                                         explained=[(0.5, 0.2)] * 3)
    return {"subplots": sub, "views": views}


@pytest.mark.parametrize("name", ["subplots", "views"])
def test_a_shared_figure_gives_the_same_json_as_the_figure(name):
    from ui.runtime import SharedFigure, shared_figure

    fig = _figures()[name]
    shared = shared_figure(fig)
    assert isinstance(shared, SharedFigure)
    once = plotly.io.to_json(fig, validate=False)
    # every call gives it again (plotly.io.to_json changes the dictionary it is given)
    assert [plotly.io.to_json(shared.to_dict(), validate=False) for _ in range(3)] == [once] * 3


def _chart_app(shared):
    """A page drawing one chart (the library's views figure), shared or not."""
    def page():
        import numpy as np
        import streamlit as st

        from rmsc import figures
        from ui.runtime import shared_figure

        rng = np.random.default_rng(1)
        fig = figures.views_scatter_figure([rng.random((20, 2)) for _ in range(2)],
                                           ["a", "b"], np.repeat([0, 1], 10))
        st.plotly_chart(shared_figure(fig) if st.session_state.shared else fig, key="chart")

    at = AppTest.from_function(page, default_timeout=60)
    at.session_state["shared"] = shared
    return at.run()


def test_streamlit_sends_the_same_chart_element_for_a_shared_figure():
    """The element on the page (spec, id, size, theme) is the one st.plotly_chart makes of
    the figure itself: the browser gets the same chart."""
    plain, shared = _chart_app(False), _chart_app(True)
    assert not plain.exception and not shared.exception
    [a], [b] = plain.get("plotly_chart"), shared.get("plotly_chart")
    assert a.proto.spec and a.proto.SerializeToString() == b.proto.SerializeToString()


def _fits(tmp_path):
    path = tmp_path / "lesson.yaml"
    path.write_text(textwrap.dedent(LESSON))
    lesson = L.load_lesson(path)
    out = []
    for step in lesson.steps:
        _, data = L.load_step_data(lesson, step)
        [params] = L.step_params(step)
        out.append((dash.fit_rmsc(data, params), data))
    return out


def test_a_weights_step_shares_its_charts_per_fit_and_draws_another_fit_anew(tmp_path):
    from ui import lesson as ui_lesson

    (r1, data), (r2, _) = _fits(tmp_path)
    assert r1.key != r2.key  # another β: another fit, another key
    first = ui_lesson.weights_view(r1.key, r1, data)
    assert ui_lesson.weights_view(r1.key, r1, data) is first  # the next session's: shared
    second = ui_lesson.weights_view(r2.key, r2, data)
    assert second is not first
    def spec(fig):
        return plotly.io.to_json(fig.to_dict(), validate=False)

    for (heatmap, (roc, table)), r in ((first, r1), (second, r2)):
        # each is the figure of its own fit, as the uncached code builds it
        direct = ui_lesson.weights_view.__wrapped__(r.key, r, data)
        assert spec(heatmap) == spec(direct[0]) and spec(roc) == spec(direct[1][0])
        assert table.equals(direct[1][1])
    assert spec(first[0]) != spec(second[0])


def test_the_qr_code_is_drawn_once_per_address():
    from ui import lesson as ui_lesson

    a = ui_lesson.qr_code("http://host:8501/?lesson=1")
    assert a == L.qr_svg("http://host:8501/?lesson=1")
    assert ui_lesson.qr_code("http://host:8501/?lesson=1") is a
    b = ui_lesson.qr_code("http://host:8501/?lesson=2")
    assert b != a and b == L.qr_svg("http://host:8501/?lesson=2")
