"""The reproduction figures of rmsc.figures: traces, values, error bars, axis titles."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from rmsc import figures


@pytest.fixture
def views_df():
    return pd.DataFrame({
        "method": ["SSC-AVG", "RMSC", "SSC-AVG", "RMSC", "SSC-AVG", "RMSC"],
        "n_views": [1, 1, 2, 2, 3, 3],
        "views": ["PIX", "PIX", "PIX+FOU", "PIX+FOU", "PIX+FOU+FAC", "PIX+FOU+FAC"],
        "acc_mean": [0.80, 0.85, 0.70, 0.90, 0.75, np.nan],
        "acc_std": [0.01, 0.02, 0.03, 0.04, 0.05, np.nan],
        "nmi_mean": [0.60, 0.65, 0.50, 0.70, 0.55, np.nan],
        "nmi_std": [0.0, 0.01, 0.0, 0.02, 0.0, np.nan],
        "error": [None, None, None, None, None, "failed"],
    })


def test_accuracy_vs_views_figure(views_df):
    fig = figures.accuracy_vs_views_figure(views_df, title="Digit")
    assert isinstance(fig, go.Figure)
    assert len(fig.data) == 4  # two methods x (ACC, NMI)
    acc_rmsc = [t for t in fig.data if t.name == "RMSC" and t.xaxis == "x"][0]
    assert list(acc_rmsc.x) == [1, 2, 3]
    np.testing.assert_allclose(acc_rmsc.y[:2], [85.0, 90.0])
    assert np.isnan(acc_rmsc.y[2])  # the failed run leaves a gap, not a zero
    np.testing.assert_allclose(acc_rmsc.error_y.array[:2], [2.0, 4.0])
    nmi_avg = [t for t in fig.data if t.name == "SSC-AVG" and t.xaxis == "x2"][0]
    np.testing.assert_allclose(nmi_avg.y, [60.0, 50.0, 55.0])
    assert not nmi_avg.showlegend and acc_rmsc.showlegend  # one legend entry per method
    assert fig.layout.xaxis.title.text == "number of views (view added)"
    assert list(fig.layout.xaxis.ticktext) == ["1<br>PIX", "2<br>+FOU", "3<br>+FAC"]
    assert fig.layout.yaxis.title.text == "Accuracy (%)"
    assert fig.layout.yaxis2.title.text == "NMI (%)"
    assert fig.layout.title.text == "Digit"
    with pytest.raises(ValueError, match="needs the column"):
        figures.accuracy_vs_views_figure(views_df.drop(columns=["nmi_std"]))


def test_sensitivity_figure_places_every_cell():
    df = pd.DataFrame({"lam": [0.1, 0.1, 1.0, 1.0], "beta": [0.01, 0.3, 0.01, 0.3],
                       "acc_mean": [0.9, 0.5, 0.95, np.nan], "nmi_mean": [0.8, 0.4, 0.85, np.nan],
                       "acc_std": 0.0, "nmi_std": 0.0})
    fig = figures.sensitivity_figure(df)
    acc, nmi = fig.data
    assert list(acc.x) == ["0.1", "1"] and list(acc.y) == ["0.01", "0.3"]
    z = np.array(acc.z, dtype=float)
    assert z[0, 0] == pytest.approx(90.0) and z[0, 1] == pytest.approx(95.0)
    assert z[1, 0] == pytest.approx(50.0) and np.isnan(z[1, 1])
    assert acc.text[1][1] == "failed" and acc.text[0][1] == "95.0"
    assert np.array(nmi.z, dtype=float)[0, 1] == pytest.approx(85.0)
    # One colour scale for both panels, spanning the finite values.
    assert acc.zmin == nmi.zmin == pytest.approx(40.0) and acc.zmax == pytest.approx(95.0)
    assert fig.layout.xaxis.title.text == "λ" and fig.layout.yaxis.title.text == "β"
    assert [a.text for a in fig.layout.annotations] == ["Accuracy (%)", "NMI (%)"]


def test_convergence_figure():
    fig = figures.convergence_figure({"Digit": [10.0, 4.0, 3.0], "Reuter": [2.0, 1.0]})
    assert [t.name for t in fig.data] == ["Digit", "Reuter"]
    assert list(fig.data[0].x) == [0, 1, 2] and list(fig.data[0].y) == [10.0, 4.0, 3.0]
    assert fig.layout.xaxis.title.text == "iteration"
    assert fig.layout.yaxis.title.text == "objective"
    rel = figures.convergence_figure({"Digit": [10.0, 4.0, 3.0]}, relative=True)
    np.testing.assert_allclose(rel.data[0].y, [1.0, 0.4, 0.3])
    assert rel.layout.yaxis.title.text == "objective / initial objective"
    with pytest.raises(ValueError, match="at least one"):
        figures.convergence_figure({})
    with pytest.raises(ValueError, match="empty"):
        figures.convergence_figure({"x": []})


def test_comparison_figure_bars_error_bars_and_paper_markers():
    df = pd.DataFrame({"method": ["SSC-AVG", "RMSC", "DiMSC"], "acc_mean": [0.8, 0.95, np.nan],
                       "acc_std": [0.04, 0.001, np.nan], "nmi_mean": [0.7, 0.9, np.nan],
                       "nmi_std": [0.02, 0.0, np.nan], "error": [None, None, "boom"]})
    fig = figures.comparison_figure(df, paper={"RMSC": (97.91, 94.98)})
    acc, nmi, p_acc, p_nmi = fig.data
    assert acc.type == "bar" and list(acc.x) == ["SSC-AVG", "RMSC", "DiMSC"]
    np.testing.assert_allclose(acc.y[:2], [80.0, 95.0])
    assert np.isnan(acc.y[2])
    np.testing.assert_allclose(acc.error_y.array[:2], [4.0, 0.1])
    np.testing.assert_allclose(nmi.y[:2], [70.0, 90.0])
    assert list(p_acc.y) == [None, 97.91, None] and list(p_nmi.y) == [None, 94.98, None]
    assert fig.layout.barmode == "group"
    assert fig.layout.yaxis.title.text == "score (%)"
    assert [t.name for t in fig.data] == ["ACC (ours)", "NMI (ours)", "ACC (paper)",
                                          "NMI (paper)"]
    alone = figures.comparison_figure(df)
    assert len(alone.data) == 2  # no paper markers unless asked
    assert [t.name for t in alone.data] == ["ACC", "NMI"]  # and nothing to tell "ours" from
