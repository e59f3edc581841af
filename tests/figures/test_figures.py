"""The dashboard's figures (rmsc.figures, "Dashboard figures"): real content, not just types."""

import base64
import io

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from PIL import Image

import rmsc
from rmsc import figures
from rmsc.pooling import pool_matrix


def png_of(fig):
    """The image behind an imshow(binary_string=True) figure, as an RGB array."""
    src = fig.data[0].source
    assert src.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB"))


def test_class_counts_figure_shows_the_counts():
    counts = pd.Series([5, 7, 3], index=pd.Index([0, 1, 2], name="class"))
    fig = figures.class_counts_figure(counts)
    assert list(fig.data[0].x) == ["0", "1", "2"]
    assert list(fig.data[0].y) == [5, 7, 3]
    # the counts stand above their bars, inside the plot area and never cut by it
    assert list(fig.data[0].text) == [5, 7, 3] and fig.data[0].textposition == "outside"
    assert fig.data[0].cliponaxis is False
    assert fig.layout.yaxis.range[1] >= 7 * 1.15 - 1e-9


def test_views_scatter_figure_one_panel_per_view_and_ringed_outliers():
    rng = np.random.default_rng(0)
    coords = [rng.standard_normal((12, 2)) for _ in range(3)]
    labels = np.repeat([0, 1, 2], 4)
    mask = np.zeros((3, 12), bool)
    mask[1, [2, 5]] = True
    fig = figures.views_scatter_figure(coords, ["a", "b", "c"], labels, mask,
                                       explained=[np.array([0.5, 0.25])] * 3)
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["a (PC1 50%, PC2 25%)", "b (PC1 50%, PC2 25%)", "c (PC1 50%, PC2 25%)"]
    per_class = [t for t in fig.data if t.name.startswith("class")]
    assert len(per_class) == 9  # 3 views x 3 classes
    assert sum(len(t.x) for t in per_class) == 36
    rings = [t for t in fig.data if t.name == "injected outlier"]
    assert len(rings) == 1 and list(rings[0].customdata) == [2, 5]
    np.testing.assert_allclose(rings[0].x, coords[1][[2, 5], 0], rtol=1e-6)
    # only the first view's traces appear in the legend
    assert sum(bool(t.showlegend) for t in per_class) == 3


def _lab(color):
    """CIELAB coordinates of a '#rrggbb' colour (sRGB, D65 white)."""
    rgb = np.array([int(color.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)])
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ lin / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_lab_of_white_black_and_red_by_hand():
    np.testing.assert_allclose(_lab("#ffffff"), [100, 0, 0], atol=0.05)
    np.testing.assert_allclose(_lab("#000000"), [0, 0, 0], atol=1e-9)
    np.testing.assert_allclose(_lab("#ff0000"), [53.24, 80.09, 67.20], atol=0.1)


def test_views_scatter_figure_draws_ten_classes_in_colours_apart():
    # Ten classes (Digit's): every class's points have one colour, and any two classes'
    # colours differ by a CIELAB distance of at least 25 (plotly's default palette put
    # classes 0 and 3 at 22, and 4 and 9 at 28.5, which a class could not tell apart).
    labels = np.repeat(np.arange(10), 3)
    coords = [np.random.default_rng(1).standard_normal((30, 2))]
    fig = figures.views_scatter_figure(coords, ["only"], labels, None)
    colours = {}
    for t in fig.data:
        assert isinstance(t.marker.color, str)  # one colour per class trace
        colours[t.name] = t.marker.color
        assert t.marker.opacity >= 0.85  # faded points would bring the colours closer
    assert sorted(colours) == sorted(f"class {k}" for k in range(10))
    # and each class its own marker shape, for a reader who cannot tell the colours apart
    shapes = {t.name: t.marker.symbol for t in fig.data}
    assert len(set(shapes.values())) == 10 and all(isinstance(v, str) for v in shapes.values())
    lab = {name: _lab(c) for name, c in colours.items()}
    names = sorted(lab)
    gaps = {(a, b): float(np.linalg.norm(lab[a] - lab[b]))
            for i, a in enumerate(names) for b in names[i + 1:]}
    assert min(gaps.values()) >= 25, min(gaps.items(), key=lambda kv: kv[1])
    # one palette for every figure: the same class has the same colour elsewhere
    assert colours["class 3"] == figures.class_color(3)


def test_views_scatter_shapes_stay_apart_at_a_few_pixels_and_open_ones_are_outlined():
    # a pentagon, a hexagon or an octagon is a circle at 6-8 px (the seventh cold reading
    # took class 0's circle and class 9's hexagon for one class): none of them but the circle
    round_at_small_size = {"pentagon", "hexagon", "hexagon2", "octagon"}
    assert len(set(figures.CLASS_SYMBOLS)) == 10
    assert not round_at_small_size & set(figures.CLASS_SYMBOLS)
    labels = np.repeat(np.arange(10), 2)
    fig = figures.views_scatter_figure([np.zeros((20, 2))], ["only"], labels, None)
    for t in fig.data:
        assert t.marker.size >= 8
        if t.marker.symbol.endswith("-open"):  # only its outline: drawn, in its colour
            assert t.marker.line.width > 0 and t.marker.line.color == t.marker.color
        else:
            assert not t.marker.line.width


def test_views_scatter_one_legend_above_all_panels_and_tick_values_on_each():
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(10), 3)
    mask = np.zeros((6, 30), bool)
    mask[2, 4] = True
    fig = figures.views_scatter_figure([rng.standard_normal((30, 2)) for _ in range(6)],
                                       list("abcdef"), labels, mask)
    legend = fig.layout.legend
    # in a row above the panels (the first row's top is y = 1), centred over all of them
    assert legend.orientation == "h" and legend.yanchor == "bottom" and legend.y > 1
    assert legend.x == 0.5 and legend.xanchor == "center"
    # each entry once: ten classes and the ring of an injected outlier
    shown = [t.name for t in fig.data if t.showlegend]
    assert len(shown) == 11 and len(set(shown)) == 11
    # its rows in the top margin, above the panel titles' 40 px: eleven entries do not
    # fit in one row at 1280 px
    assert fig.layout.margin.t >= 40 + 2 * 26
    # every panel's axes carry their values, legible and as plain numbers
    axes = [fig.layout[k] for k in fig.layout if k.startswith(("xaxis", "yaxis"))]
    assert len(axes) == 12 and all(a.showticklabels for a in axes)
    assert all(a.tickformat == figures.PLAIN_NUMBERS for a in axes)
    assert all(a.tickfont.size >= 10 for a in axes)
    # dark: each of the font colour's channels well below the theme's light grey
    dark = [int(a.tickfont.color[i:i + 2], 16) for a in axes for i in (1, 3, 5)]
    assert max(dark) < 0x80


def test_plain_numbers_never_writes_an_si_prefix():
    """The tick format d3 reads: 0.0005 stays 0.0005 (plotly's default wrote "500µ", a unit
    on a unitless axis), large and tiny numbers in powers of ten."""
    # d3's "~g": general notation, trailing zeros trimmed; its "s" type is the SI prefixes
    assert figures.PLAIN_NUMBERS == "~g"
    fig = figures.views_scatter_figure([np.array([[0.0, -5e-4], [1.0, 5e-4]])], ["MOR"],
                                       None, None)
    assert fig.layout.yaxis.tickformat == fig.layout.xaxis.tickformat == "~g"
    for other in (figures.objective_figure([(1, 1e5), (2, 9e4)]),
                  figures.view_weights_figure(["a"], [3e-4]),
                  figures.weight_distribution_figure(np.full((2, 3), 1e-4), ["a", "b"])):
        assert other.layout.yaxis.tickformat == "~g"


def test_views_scatter_figure_with_a_subsample_and_no_labels():
    coords = [np.arange(8, dtype=float).reshape(4, 2)]
    fig = figures.views_scatter_figure(coords, ["only"], None, None, indices=np.array([1, 3, 5, 7]))
    assert len(fig.data) == 1 and list(fig.data[0].customdata) == [1, 3, 5, 7]


def test_sample_images_figure_draws_dark_ink_on_white_in_one_picture():
    img = np.zeros((3, 2))
    img[1, 1] = 1.0
    small = np.ones((2, 1))
    fig = figures.sample_images_figure([img, small, img], ["x", "y", "z"], columns=2)
    assert len(fig.data) == 1 and fig.data[0].type == "image"  # one picture, one plot
    z = np.asarray(fig.data[0].z)
    # 2 rows of 3-pixel tiles with a 2-pixel gap, 2 columns of 2-pixel tiles with a 2-pixel gap
    assert z.shape == (3 + 2 + 3, 2 + 2 + 2, 3)
    assert z[0, 0].tolist() == [255, 255, 255] and z[1, 1].tolist() == [0, 0, 0]  # tile x
    assert z[:2, 4].tolist() == [[0, 0, 0]] * 2 and z[2, 4].tolist() == [255] * 3  # tile y
    assert z[6, 1].tolist() == [0, 0, 0]  # tile z, second row
    assert (z[:, 2:4] == 255).all() and (z[3:5] == 255).all()  # white between the tiles
    notes = fig.layout.annotations
    assert [a.text for a in notes] == ["x", "y", "z"]
    # each title centred above its tile
    assert [(a.x, a.y) for a in notes] == [(0.5, -0.5), (4.5, -0.5), (0.5, 4.5)]
    assert all(a.yanchor == "bottom" and a.xref == "x" for a in notes)


def test_objective_figure_plots_the_history_in_a_fixed_range():
    hist = [(1, 5.0), (2, 4.0), (3, 3.5)]
    fig = figures.objective_figure(hist, max_iter=30)
    assert list(fig.data[0].x) == [1, 2, 3] and list(fig.data[0].y) == [5.0, 4.0, 3.5]
    assert tuple(fig.layout.xaxis.range) == (0.5, 30.5)
    empty = figures.objective_figure([], max_iter=10)
    assert len(empty.data[0].x) == 0


def test_view_weights_figure_bars():
    fig = figures.view_weights_figure(["a", "b"], [1.5, 20.0])
    assert list(fig.data[0].x) == ["a", "b"] and list(fig.data[0].y) == [1.5, 20.0]


def test_weight_distribution_splits_clean_and_injected():
    P = np.arange(12, dtype=float).reshape(2, 6)
    mask = np.zeros((2, 6), bool)
    mask[0, [1, 4]] = True
    fig = figures.weight_distribution_figure(P, ["a", "b"], mask)
    clean, bad = fig.data
    assert sorted(bad.y) == [1.0, 4.0] and list(bad.x) == ["a", "a"]
    assert len(clean.y) == 10
    rel = figures.weight_distribution_figure(P + 1, ["a", "b"], relative=True)
    assert np.median(np.asarray(rel.data[0].y)[:6]) == pytest.approx(1.0)


def test_roc_figure_skips_views_without_curves():
    curves = [([0, 0, 1], [0, 1, 1]), None]
    fig = figures.roc_figure(curves, ["a", "b"], aucs=[1.0, float("nan")])
    assert [t.name for t in fig.data] == ["a (AUC 1.000)", "chance"]
    assert list(fig.data[0].y) == [0, 1, 1]


def test_a_perfect_roc_curve_is_drawn_inside_the_axes_and_overlapping_curves_both_show():
    perfect, good = ([0, 0, 1], [0, 1, 1]), ([0, 0.1, 0.3, 1], [0, 0.8, 1, 1])
    fig = figures.roc_figure([perfect, None, good], ["a", "b", "c"], aucs=[1.0, None, 0.96])
    x0, x1 = fig.layout.xaxis.range
    y0, y1 = fig.layout.yaxis.range
    # the perfect curve's x = 0 and y = 1 lie strictly inside the plotted range, off the
    # axis lines and the frame
    assert x0 < 0 < 1 < x1 and y0 < 0 < 1 < y1
    assert fig.layout.xaxis.zeroline is False and fig.layout.yaxis.zeroline is False
    # both reach y = 1 and run along it: one width (neither wider one covers the other),
    # the later one dashed on top, the earlier one's colour showing between its dashes
    a, c = fig.data[0], fig.data[1]
    assert a.name == "a (AUC 1.000)" and c.name == "c (AUC 0.960)"
    assert a.line.width == c.line.width > 0
    assert a.line.dash == "solid" and c.line.dash not in (None, "solid")
    # and neither is dotted like the chance line
    assert fig.data[2].name == "chance" and fig.data[2].line.dash not in (a.line.dash,
                                                                           c.line.dash)


def test_roc_curves_of_many_views_are_told_apart_by_colour_and_dash():
    curves = [([0, 0.1 * v, 1], [0, 0.9, 1]) for v in range(4)]
    fig = figures.roc_figure(curves, list("abcd"))
    lines = [t.line for t in fig.data if t.name != "chance"]
    assert len({(x.color, x.dash) for x in lines}) == 4
    assert len({x.dash for x in lines}) == 4 and len({x.width for x in lines}) == 1


def test_score_roc_figure_one_panel_per_corrupted_view():
    curves = {"P": [None, ([0, 0.5, 1], [0, 0.2, 1]), ([0, 1], [0, 1])],
              "incons.": [None, ([0, 0, 1], [0, 1, 1]), None]}
    aucs = {"P": [float("nan"), 0.35, 0.5], "incons.": [float("nan"), 1.0, float("nan")]}
    fig = figures.score_roc_figure(curves, ["a", "b", "c"], aucs)
    assert [a.text for a in fig.layout.annotations] == ["b", "c"]  # view a has no outliers
    lines = [(t.name, t.xaxis, t.showlegend) for t in fig.data]
    assert lines == [("P", "x", True), ("incons.", "x", True), ("chance", "x", True),
                     ("P", "x2", False), ("chance", "x2", False)]
    assert list(fig.data[1].y) == [0, 1, 1]
    assert "AUC 1.000" in fig.data[1].hovertemplate and "AUC 0.350" in fig.data[0].hovertemplate
    assert fig.data[0].line.color == fig.data[3].line.color  # a score keeps its colour


def test_robustness_cases_figure_one_line_per_method_across_cases():
    tables = {
        "clean": pd.DataFrame({"method": ["RMSC", "SSC-AVG"], "acc_mean": [0.9, 0.8],
                               "acc_std": [0.01, 0.02]}),
        "replace 10%": pd.DataFrame({"method": ["RMSC", "SSC-AVG"], "acc_mean": [0.85, np.nan],
                                     "acc_std": [0.0, np.nan]}),
        "noise 10%": pd.DataFrame({"method": ["RMSC"], "acc_mean": [0.7], "acc_std": [0.1]}),
    }
    fig = figures.robustness_cases_figure(tables)
    assert [t.name for t in fig.data] == ["RMSC", "SSC-AVG"]
    assert list(fig.data[0].x) == ["clean", "replace 10%", "noise 10%"]
    np.testing.assert_allclose(fig.data[0].y, [90, 85, 70])
    np.testing.assert_allclose(fig.data[0].error_y.array, [1, 0, 10])
    assert fig.data[1].y[0] == pytest.approx(80) and np.isnan(fig.data[1].y[1])
    assert np.isnan(fig.data[1].y[2])  # a method missing from a case: a gap, not a zero


def test_sample_weights_figure():
    table = pd.DataFrame({"view": ["a", "b"], "weight": [1.0, 2.0], "view median": [3.0, 4.0]})
    fig = figures.sample_weights_figure(table)
    assert list(fig.data[0].y) == [1.0, 2.0] and list(fig.data[1].y) == [3.0, 4.0]
    rel = figures.sample_weights_figure(table, relative=True)
    np.testing.assert_allclose(rel.data[0].y, [1 / 3, 0.5])
    assert list(rel.data[1].y) == [1.0, 1.0] and rel.layout.yaxis.title.text == "P / view median"


def test_pool_matrix_hand_worked():
    S = np.arange(16, dtype=float).reshape(4, 4)
    pooled, f = pool_matrix(S, max_side=2)
    assert f == 2
    np.testing.assert_allclose(pooled, [[(0 + 1 + 4 + 5) / 4, (2 + 3 + 6 + 7) / 4],
                                        [(8 + 9 + 12 + 13) / 4, (10 + 11 + 14 + 15) / 4]])
    # reordering, then pooling: the same as pooling the reordered matrix
    order = np.array([3, 0, 2, 1])
    pooled_o, _ = pool_matrix(S, order, max_side=2)
    np.testing.assert_allclose(pooled_o, pool_matrix(S[np.ix_(order, order)], max_side=2)[0])
    # sparse and dense agree; uneven edges are averaged over their real size
    A = sp.random(7, 7, density=0.5, random_state=1, format="csr")
    pd_, f = pool_matrix(A.toarray(), max_side=3)
    ps_, _ = pool_matrix(A, max_side=3)
    assert f == 3 and pd_.shape == (3, 3)
    np.testing.assert_allclose(pd_, ps_)
    assert ps_[2, 2] == pytest.approx(abs(A[6, 6]))
    np.testing.assert_allclose(pool_matrix(S, max_side=10)[0], S)
    with pytest.raises(ValueError, match="square"):
        pool_matrix(np.zeros((2, 3)))


def test_affinity_figure_is_a_small_image_with_visible_blocks():
    n = 2000
    labels = np.repeat(np.arange(4), n // 4)
    rng = np.random.default_rng(0)
    rows = rng.integers(0, n, 40000)
    cols = np.where(rng.random(40000) < 0.9,
                    rows // 500 * 500 + rng.integers(0, 500, 40000), rng.integers(0, n, 40000))
    S = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    S = (S + S.T) / 2
    perm = rng.permutation(n)  # stored shuffled; the figure orders by class
    Sp = S[perm][:, perm]
    order = np.argsort(labels[perm], kind="stable")
    fig = figures.affinity_figure(Sp, order=order, boundaries=np.array([500, 1000, 1500]),
                                  groups=np.arange(4), max_side=500)
    assert fig.layout.meta["pool"] == 4 and fig.layout.meta["side"] == 500
    assert len(fig.to_json()) < 1_000_000  # no n² cells as JSON
    img = png_of(fig).astype(float)
    assert img.shape == (500, 500, 3)
    darkness = 255 * 3 - img.sum(axis=2)
    diag = np.mean([darkness[i * 125:(i + 1) * 125, i * 125:(i + 1) * 125].mean() for i in range(4)])
    off = darkness[:125, 250:375].mean()
    assert diag > 3 * off  # the class blocks stand out
    assert len(fig.layout.shapes) == 6  # 3 boundaries, both axes
    assert list(fig.layout.xaxis.ticktext) == ["0", "1", "2", "3"]


def test_affinity_figure_of_an_empty_matrix_draws():
    fig = figures.affinity_figure(sp.csr_matrix((10, 10)))
    assert png_of(fig).shape == (10, 10, 3)


def png_at(trace):
    src = trace.source
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB"))


def test_affinity_figure_of_a_pooled_matrix_equals_pooling_inside():
    rng = np.random.default_rng(3)
    S = rng.random((40, 40))
    S = (S + S.T) / 2
    order = rng.permutation(40)
    P, f = pool_matrix(S, order, 10)
    inside = figures.affinity_figure(S, order=order, max_side=10, boundaries=[20], groups=[0, 1])
    given = figures.affinity_figure(P, pool=f, n_samples=40, boundaries=[20], groups=[0, 1])
    assert given.layout.meta == inside.layout.meta == {"pool": 4, "side": 10}
    np.testing.assert_array_equal(png_of(given), png_of(inside))
    assert list(given.layout.xaxis.tickvals) == list(inside.layout.xaxis.tickvals)


def test_view_affinities_figure_one_small_image_per_view():
    n, views = 1000, 5
    labels = np.repeat(np.arange(2), n // 2)
    rng = np.random.default_rng(0)
    mats = []
    for v in range(views):
        # view v: block structure fading with v (the last one is pure noise)
        S = rng.random((n, n)) * 0.2 + (1 - v / (views - 1)) * (labels[:, None] == labels[None])
        mats.append(pool_matrix(S, None, 500)[0])
    fig = figures.view_affinities_figure(mats, [f"V{v}" for v in range(views)], pool=2,
                                         n_samples=n, boundaries=[500], groups=[0, 1],
                                         columns=3, max_side=100)
    assert len(fig.data) == views and fig.layout.meta["views"] == views
    assert fig.layout.meta["pool"] == 10 and fig.layout.meta["side"] == 100
    assert [a.text for a in fig.layout.annotations] == [f"V{v}" for v in range(views)]
    assert len(fig.to_json()) < 400_000
    contrast = []
    for trace in fig.data:
        img = png_at(trace).astype(float)
        assert img.shape == (100, 100, 3)
        dark = 255 * 3 - img.sum(axis=2)
        contrast.append(dark[:50, :50].mean() - dark[:50, 50:].mean())
    assert contrast[0] > 100 and abs(contrast[-1]) < 20  # blocks, then none
    assert contrast == sorted(contrast, reverse=True)
    assert len(fig.layout.shapes) == 2 * views  # the class boundary, both axes, every panel
    with pytest.raises(ValueError, match="view names"):
        figures.view_affinities_figure(mats, ["only one"])


def test_embedding_figure_marks_mistakes():
    coords = np.arange(12, dtype=float).reshape(6, 2)
    fig = figures.embedding_figure(coords, np.array([0, 0, 1, 1, 2, 2]),
                                   wrong=np.array([0, 1, 0, 0, 0, 1], bool),
                                   sample_ids=np.array([10, 11, 12, 13, 14, 15]))
    assert [t.name for t in fig.data] == ["cluster 0", "cluster 1", "cluster 2",
                                          "misclustered (2)"]
    assert list(fig.data[3].customdata) == [11, 15]


def test_latent_loss_figure_curves_match_the_papers_formulas():
    gamma = 1.0
    fig = figures.latent_loss_figure(gamma, loss_max=4.0)
    psi, phi, ell_line, sigma = fig.data
    p = np.asarray(psi.x)
    np.testing.assert_allclose(psi.y, gamma * p + 1 / p - 2)
    ell = np.asarray(phi.x)
    assert ell[0] == 0 and ell[-1] == 4.0
    np.testing.assert_allclose(phi.y, 2 * (np.sqrt(gamma + ell) - 1))
    np.testing.assert_allclose(sigma.y, 1 / np.sqrt(gamma + ell))
    np.testing.assert_allclose(ell_line.y, ell_line.x)
    # psi is smallest at p = 1/sqrt(gamma), where it is 2 sqrt(gamma) - 2
    i = int(np.argmin(psi.y))
    assert p[i] == pytest.approx(1 / np.sqrt(gamma), rel=0.05)
    # phi is concave: it lies below its chords (robust to large losses)
    mid = len(ell) // 2
    assert phi.y[mid] > (phi.y[0] + phi.y[-1]) / 2
    small = figures.latent_loss_figure(1e-5)
    assert small.layout.yaxis3.type == "log"  # sigma spans decades for small gamma
    assert figures.latent_loss_figure(0.0).data[1].x[0] > 0  # no division by zero


def test_fitted_weights_figure_puts_points_on_sigma():
    rng = np.random.default_rng(0)
    L = rng.uniform(1e-3, 1.0, (2, 50))
    gamma = 1e-5
    P = 1 / np.sqrt(gamma + L)
    mask = np.zeros((2, 50), bool)
    mask[0, :3] = True
    fig = figures.fitted_weights_figure(L, P, gamma, ["a", "b"], outlier_mask=mask)
    names = [t.name for t in fig.data]
    assert names[:4] == ["σ(ℓ), γ = 1e-05", "a", "a: injected", "a"]
    pts = fig.data[1]
    np.testing.assert_allclose(pts.y, 1 / np.sqrt(gamma + np.asarray(pts.x)))
    assert len(fig.data[2].x) == 3 and len(pts.x) == 47
    boxes = [t for t in fig.data if t.type == "box"]
    assert len(boxes) == 2 and len(boxes[1].x) == 50


def test_robustness_figure_groups_variants_in_percent():
    df = pd.DataFrame({"method": ["A", "B"], "acc_mean": [0.9, 0.5], "acc_std": [0.01, np.nan]})
    fig = figures.robustness_figure({"clean": df, "with outliers": df.assign(acc_mean=[0.8, 0.4])})
    assert [t.name for t in fig.data] == ["clean", "with outliers"]
    np.testing.assert_allclose(fig.data[1].y, [80.0, 40.0])
    np.testing.assert_allclose(fig.data[0].error_y.array, [1.0, 0.0])
    assert fig.layout.barmode == "group"


# ---------------------------------------------------------------------------
# Many classes (e.g. 100 leaf species) stay legible
# ---------------------------------------------------------------------------


def hundred_classes(n_per=4, c=100):
    labels = np.repeat(np.arange(c), n_per)
    S = sp.csr_matrix((labels[:, None] == labels[None]).astype(float))
    bounds = np.arange(1, c) * n_per
    return labels, S, bounds


def test_legend_groups_lists_few_values_each_and_many_by_range():
    few = figures.legend_groups([3, 5, 9])
    assert few == [("class 3", [(0, 3)]), ("class 5", [(1, 5)]), ("class 9", [(2, 9)])]
    many = figures.legend_groups(range(100), "cluster")
    assert len(many) == 10 and many[0][0] == "clusters 0–9" and many[-1][0] == "clusters 90–99"
    assert [v for _, members in many for _, v in members] == list(range(100))
    odd = figures.legend_groups(range(13))
    assert len(odd) <= figures.MAX_LEGEND_ENTRIES
    assert sum(len(m) for _, m in odd) == 13


def test_affinity_figure_with_a_hundred_classes_has_no_gridlines_and_few_names():
    labels, S, bounds = hundred_classes()
    fig = figures.affinity_figure(S, boundaries=bounds, groups=np.arange(100))
    assert len(fig.layout.shapes) == 0  # 99 x 2 lines would tint the picture
    names = list(fig.layout.xaxis.ticktext)
    assert len(names) <= figures.MAX_GROUP_TICKS and names[:2] == ["0", "5"]
    assert list(fig.layout.yaxis.ticktext) == names
    # the picture itself is exactly the block diagonal (no line drawn into it)
    img = png_of(fig)
    dark = img.sum(axis=2) < 3 * 200
    np.testing.assert_array_equal(dark, labels[:, None] == labels[None])
    grid = figures.view_affinities_figure([pool_matrix(S)[0]] * 2, ["a", "b"],
                                          boundaries=bounds, groups=np.arange(100))
    assert len(grid.layout.shapes) == 0
    assert len(grid.layout.xaxis.ticktext) <= figures.MAX_PANEL_TICKS  # small panels: fewer


def test_group_lines_get_thin_then_go():
    def lines(c):
        _, S, bounds = hundred_classes(n_per=3, c=c)
        return figures.affinity_figure(S, boundaries=bounds, groups=np.arange(c)).layout.shapes
    assert len(lines(5)) == 8 and lines(5)[0].line.width == 1
    assert len(lines(20)) == 38 and lines(20)[0].line.width < 1
    assert len(lines(figures.MAX_BOUNDARIES + 1)) == 0


def test_embedding_and_views_scatter_legends_group_a_hundred_classes():
    labels, _, _ = hundred_classes()
    rng = np.random.default_rng(0)
    coords = rng.standard_normal((labels.size, 2))
    fig = figures.embedding_figure(coords, labels, wrong=labels % 7 == 0)
    groups = [t for t in fig.data if t.name.startswith("clusters")]
    assert len(fig.data) <= figures.MAX_LEGEND_ENTRIES and len(groups) == 10
    # every sample drawn once, in its own cluster's colour, its cluster in the hover text
    ids = np.concatenate([t.customdata for t in groups])
    assert sorted(ids) == list(range(labels.size))
    t = groups[1]
    assert list(t.marker.color) == [figures.class_color(c) for c in labels[t.customdata]]
    assert list(t.text) == [f"cluster {c}" for c in labels[t.customdata]]
    scatter = figures.views_scatter_figure([coords, coords], ["a", "b"], labels)
    shown = [t for t in scatter.data if t.showlegend]
    assert len(shown) == 10 and shown[0].name == "classes 0–9"
    assert sum(len(t.x) for t in scatter.data) == 2 * labels.size


def test_class_counts_and_weights_heatmap_with_a_hundred_classes():
    counts = pd.Series(np.full(100, 16), index=pd.Index(np.arange(100), name="class"))
    assert figures.class_counts_figure(counts).data[0].text is None  # no 100 overprinted numbers
    assert list(figures.class_counts_figure(counts[:5]).data[0].text) == [16] * 5
    labels, _, bounds = hundred_classes()
    P = np.ones((2, labels.size))
    fig = figures.pooled_weights_heatmap_figure(rmsc.inspection.heatmap_pool(P, labels),
                                                ["a", "b"])
    assert len(fig.layout.shapes) == 0
    assert len(fig.layout.xaxis.ticktext) <= figures.MAX_GROUP_TICKS


def test_suggestion_figure_one_line_per_beta_rel_and_the_suggestion_starred():
    table = [
        {"lam": 0.3, "beta_rel": 0.25, "beta": 0.1, "eigengap": 0.05, "isolated": 4, "pieces": 6,
         "agreement": 0.5},
        {"lam": 0.3, "beta_rel": 0.5, "beta": 0.2, "error": "Z* is all zero"},
        {"lam": 3.0, "beta_rel": 0.25, "beta": 0.3, "eigengap": 0.40, "isolated": 0, "pieces": 3,
         "agreement": 0.9},
        {"lam": 3.0, "beta_rel": 0.5, "beta": 0.6, "eigengap": 0.55, "isolated": 0, "pieces": 5,
         "agreement": 0.95},
    ]
    fig = figures.suggestion_figure(table, 2, n_clusters=3)
    top = {t.name: t for t in fig.data if t.yaxis == "y"}
    bottom = [t for t in fig.data if t.yaxis == "y2"]
    a, b = top["β_rel = 0.25"], top["β_rel = 0.5"]
    # the top panel: what the ranking's third rule compares, the k-means runs' agreement
    assert list(a.x) == [0.3, 3.0] and list(a.y) == [0.5, 0.9]
    assert list(b.x) == [0.3, 3.0] and list(b.y) == [None, 0.95]  # a gap where it failed
    assert fig.layout.annotations[0].text.startswith("Agreement of the k-means runs")
    assert [c[2] for c in a.customdata] == [0.05, 0.40]  # the eigengap on hover
    assert list(a.text) == ["4 isolated", ""]
    # isolated samples or more pieces than c: open markers
    assert list(a.marker.symbol) == ["circle-open", "circle"]
    assert list(b.marker.symbol) == ["circle", "circle-open"]
    assert [list(t.y) for t in bottom] == [[4, 0], [None, 0]]
    failed = top["no clustering"]
    assert list(failed.x) == [0.3] and list(failed.y) == [0.0]
    star = [t for name, t in top.items() if name.startswith("suggested")]
    assert len(star) == 1 and star[0].name == "suggested: λ = 3, β_rel = 0.25"
    assert list(star[0].x) == [3.0] and list(star[0].y) == [0.9]
    assert fig.layout.xaxis2.type == "log" and list(fig.layout.xaxis2.ticktext) == ["0.3", "3"]
    # the star on the top of its range and the points at 0 isolated are not cut by the axes
    assert all(t.cliponaxis is False for t in fig.data)
    with pytest.raises(ValueError, match="not a row"):
        figures.suggestion_figure(table, 4)


def _trace_rows(scored=True):
    rows = [{"iteration": 1, "ari_previous": None, "changed": None, "final": False},
            {"iteration": 10, "ari_previous": 0.6, "changed": 20, "final": False},
            {"iteration": 20, "ari_previous": 0.99, "changed": 1, "final": False},
            {"iteration": 23, "ari_previous": 0.97, "changed": 3, "final": True}]
    for r, acc, nmi in zip(rows, (50.0, 70.0, 80.0, 82.5), (40.0, 60.0, 70.0, 71.0)):
        r["acc"], r["nmi"] = (acc, nmi) if scored else (None, None)
    return rows


def test_clustering_trace_figure_draws_agreement_and_scores_per_iteration():
    fig = figures.clustering_trace_figure(_trace_rows(), max_iter=50)
    ari = fig.data[0]
    # the agreement starts at the second record (the first has nothing before it)
    assert list(ari.x) == [10, 20, 23] and list(ari.y) == [0.6, 0.99, 0.97]
    assert list(ari.customdata) == [20, 1, 3]
    assert list(ari.marker.symbol) == ["circle", "circle", "star"]  # the fit's own last
    by_name = {t.name: t for t in fig.data}
    assert list(by_name["ACC %"].x) == [1, 10, 20] and list(by_name["ACC %"].y) == [50, 70, 80]
    assert list(by_name["NMI %"].y) == [40, 60, 70]
    assert list(by_name["ACC % of the fit"].x) == [23]
    assert list(by_name["ACC % of the fit"].y) == [82.5]
    assert list(by_name["NMI % of the fit"].y) == [71.0]
    # the x range lines up with the objective curve's
    assert tuple(fig.layout.xaxis.range) == (0.5, 50.5)
    assert fig.layout.yaxis.range[1] == 1.05


def test_clustering_trace_figure_without_labels_is_the_agreement_alone():
    fig = figures.clustering_trace_figure(_trace_rows(scored=False))
    assert len(fig.data) == 1 and fig.data[0].name == "ARI with the previous"
    assert "yaxis2" not in fig.layout.to_plotly_json()  # one panel
    with pytest.raises(ValueError):
        figures.clustering_trace_figure([])


def test_view_shares_figure_bars_in_percent_with_an_equal_share_line():
    shares = [{"view": "a", "share": 0.7, "at_cap": 0.5}, {"view": "b", "share": 0.3,
                                                          "at_cap": 0.0}]
    fig = figures.view_shares_figure(shares, cap=316.2)
    share, cap = fig.data
    assert list(share.x) == ["a", "b"] and list(share.y) == pytest.approx([70, 30])
    assert list(cap.y) == pytest.approx([50, 0]) and "316" in cap.name
    assert list(share.text) == ["70%", "30%"] and share.cliponaxis is False
    assert fig.layout.shapes[0].y0 == pytest.approx(50)  # an equal share of two views
    assert "consensus weight" in share.name and "ΣcᵥP" in share.name
    # the line's name sits in the right margin, beside the bars rather than behind them
    (note,) = fig.layout.annotations
    assert note.xref == "paper" and note.x == 1.0 and note.xanchor == "left"
    assert note.y == pytest.approx(50) and "equal" in note.text and "50%" in note.text
    assert fig.layout.margin.r >= 50
    with pytest.raises(ValueError):
        figures.view_shares_figure([])


def test_trust_quality_figure_puts_each_view_at_its_share_and_own_quality():
    shares = [{"view": "a", "share": 0.7}, {"view": "b", "share": 0.2}, {"view": "c",
                                                                          "share": 0.1}]
    quality = [{"view": "a", "acc": 0.3, "nmi": 0.2, "eigengap": 0.01},
               {"view": "b", "acc": 0.8, "nmi": 0.7, "eigengap": 0.05},
               {"view": "c", "acc": 0.6, "nmi": 0.5, "eigengap": 0.02}]
    fig = figures.trust_quality_figure(shares, quality, "acc")
    (pts,) = fig.data
    assert list(pts.text) == ["a", "b", "c"]
    assert list(pts.x) == pytest.approx([70, 20, 10])
    assert list(pts.y) == pytest.approx([30, 80, 60])
    assert "ACC" in fig.layout.yaxis.title.text
    assert fig.layout.shapes[0].x0 == pytest.approx(100 / 3)  # an equal share
    fig = figures.trust_quality_figure(shares, quality, "eigengap")
    assert list(fig.data[0].y) == pytest.approx([0.01, 0.05, 0.02])
    assert "eigengap" in fig.layout.yaxis.title.text
    with pytest.raises(ValueError):
        figures.trust_quality_figure(shares, quality[:2], "acc")
    with pytest.raises(ValueError):
        figures.trust_quality_figure(shares, quality, "nmi")


def test_pooled_weights_heatmap_keeps_an_outlier_dark_and_marks_its_column():
    from rmsc.inspection import heatmap_pool, pooled_columns

    rng = np.random.default_rng(0)
    n = 1200
    labels = np.repeat([0, 1, 2], n // 3)
    P = 1 + 0.05 * rng.random((2, n))
    mask = np.zeros((2, n), bool)
    hit = np.array([5, 450, 1000])
    mask[1, hit] = True
    P[1, hit] = 0.1  # distrusted in view 1 only
    hp = heatmap_pool(P, labels, max_columns=300, pool="min")
    fig = figures.pooled_weights_heatmap_figure(hp, ["a", "b"], outlier_mask=mask)
    z = np.asarray(fig.data[0].z)
    assert z.shape == (2, 300)
    marks = fig.data[1]
    cols = pooled_columns(hp, hit)
    assert sorted(marks.x) == sorted(cols.tolist()) and set(marks.y) == {0.5}
    # a mark fills the gap above its row (6 px marks vanished above 300 thin columns) and
    # is outlined, so that a run of marked columns reads as separate marks
    assert marks.marker.size == figures.OUTLIER_MARK_SIZE >= 12
    assert figures.OUTLIER_MARK_SIZE <= figures.WEIGHT_ROW_GAP
    assert marks.marker.line.color == "white"
    # under every mark the pooled cell is the outlier's own (relative) weight, not an average
    med = np.median(P[1])
    np.testing.assert_allclose(z[1, cols], 0.1 / med, rtol=1e-6)
    others = np.setdiff1d(np.arange(300), cols)
    assert z[1, others].min() > 0.9
    # the colour scale puts such a weight in its dark end and the usual weight in its pale end
    assert fig.data[0].colorscale[0][1] == figures.LOW_END_COLORSCALE[0][1]
    assert fig.data[0].zmin == 0 and fig.data[0].zmax == figures.RELATIVE_ZMAX
    # one class per group: boundaries between the three, the classes named on the axis
    assert [s.x0 for s in fig.layout.shapes] == [g[1] - 0.5 for g in hp.groups[1:]]
    # drawn under the cells, so that a line never hides the first column of a class
    assert {s.layer for s in fig.layout.shapes} == {"below"}
    assert list(fig.layout.xaxis.ticktext) == ["0", "1", "2"]


def test_adjacent_outlier_marks_merge_into_one_counted_mark():
    from rmsc.inspection import heatmap_pool

    assert figures.column_runs([]) == []
    assert figures.column_runs([3]) == [(3, 3)]
    assert figures.column_runs([0, 1, 2, 5, 7, 8]) == [(0, 2), (5, 5), (7, 8)]
    # one sample per column: three corrupted in view 0 with the lowest weights of class 0
    # (its first three columns, side by side), one alone in class 1; view 1 clean
    labels = np.repeat([0, 1], 10)
    P = np.ones((2, 20))
    mask = np.zeros((2, 20), bool)
    mask[0, [2, 4, 6, 15]] = True
    P[0, [2, 4, 6, 15]] = [0.1, 0.2, 0.3, 0.1]
    hp = heatmap_pool(P, labels, pool="min")
    fig = figures.pooled_weights_heatmap_figure(hp, ["a", "b"], outlier_mask=mask)
    marks = fig.data[1]
    assert list(marks.x) == [1.0, 10.0] and list(marks.y) == [-0.5, -0.5]
    assert list(marks.text) == ["×3", ""]
    assert list(marks.customdata) == ["columns 0-2", "column 10"]
    assert "×n" in marks.name


def test_outlier_marks_closer_than_a_mark_and_its_label_share_one_by_hand():
    runs = [(0, 2), (5, 5), (7, 8)]
    assert figures.mark_groups([0, 1, 2, 5, 7, 8]) == [(a, b, b - a + 1, [(a, b)])
                                                       for a, b in runs]
    assert figures.mark_groups([0, 1, 2, 5, 7, 8], reach=2) == [
        (0, 2, 3, [(0, 2)]), (5, 8, 3, [(5, 5), (7, 8)])]
    # a class starting at column 6 keeps its marks apart from the class before
    assert figures.mark_groups([0, 1, 2, 5, 7, 8], reach=3, breaks=[6]) == [
        (0, 5, 4, [(0, 2), (5, 5)]), (7, 8, 2, [(7, 8)])]
    assert figures.mark_groups([]) == []


def test_a_lone_mark_beside_a_run_does_not_hide_the_runs_count():
    # 300 digits, one per column, 30 per class; in view 0, class 6 has a corrupted digit,
    # then two clean ones, then five corrupted (the seventh cold reading: the lone mark
    # covered the "×" of "×5"): one mark over them, "×6"; class 0's three stay apart
    from rmsc.inspection import heatmap_pool

    labels = np.repeat(np.arange(10), 30)
    P = np.ones((2, 300))
    P[0, 180:188] = [0.1, 0.15, 0.15, 0.2, 0.2, 0.2, 0.2, 0.2]  # lowest first within class 6
    P[0, [0, 1, 2]] = 0.1
    mask = np.zeros((2, 300), bool)
    mask[0, [180, 183, 184, 185, 186, 187, 0, 1, 2]] = True
    hp = heatmap_pool(P, labels, pool="min", max_columns=300)
    assert hp.values.shape[1] == 300
    fig = figures.pooled_weights_heatmap_figure(hp, ["a", "b"], outlier_mask=mask)
    marks = fig.data[1]
    assert list(marks.text) == ["×3", "×6"]
    assert list(marks.customdata) == ["columns 0-2", "column 180, columns 183-187"]
    assert list(marks.x) == [1.0, (180 + 187) / 2]
    # the marks' labels sum to the corrupted digits
    assert sum(int(t[1:]) if t else 1 for t in marks.text) == mask.sum()


def test_a_white_cell_shows_inside_the_heatmap_and_its_title_below_the_toolbar():
    """A cell at the scale's white end (P / median >= 1.2) stands apart from the page: the
    background between the rows is grey, not white, and a frame runs round the cells; the
    title starts below the toolbar's row in the top right corner (on its line, the toolbar
    hid its end) and stays above the legend."""
    from rmsc.inspection import heatmap_pool

    P = np.ones((2, 40))
    P[0, :20] = 2.0  # white cells
    mask = np.zeros((2, 40), bool)
    mask[1, 3] = True
    fig = figures.pooled_weights_heatmap_figure(
        heatmap_pool(P, np.repeat([0, 1], 20), relative=True), ["a", "b"], outlier_mask=mask,
        relative=True)
    white = _luminance(figures.LOW_END_COLORSCALE[-1][1])
    bg = fig.layout.plot_bgcolor
    assert bg == figures.HEATMAP_BACKGROUND and white - _luminance(bg) > 30
    # ... while the palest stop but white, the cells trusted as usual, stays apart from it
    assert _luminance(figures.LOW_END_COLORSCALE[-2][1]) - _luminance(bg) > 20
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert axis.showline and axis.mirror is True and axis.linewidth >= 1
        assert _luminance(axis.linecolor) < 128
    title, height, top = fig.layout.title, fig.layout.height, fig.layout.margin.t
    assert title.yref == "container" and title.yanchor == "top"
    below_top = (1 - title.y) * height
    assert below_top == pytest.approx(figures.MODEBAR_ROOM_PX) and below_top >= 25
    # the title's line (17 px) and the legend's row (about 20 px) fit between it and the cells
    assert top - below_top >= 17 + 20
    assert fig.layout.legend.yanchor == "bottom" and fig.layout.legend.y > 1


def _luminance(hex_colour):
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_the_weights_heatmap_colour_bar_is_the_cells_colour_scale_in_streamlit():
    """The bar is drawn from the heatmap trace's own scale and range (no coloraxis, no
    second coloured trace, full opacity), and that scale survives Streamlit's frontend: no
    colour in the figure is one of the placeholders (#000001-#000040) it replaces, also
    with ``theme=None`` (magma's #000004 at 0 had become a light purple there)."""
    import json
    import re

    from streamlit.elements.lib import streamlit_plotly_theme as st_theme

    placeholders = {v.lower() for k, v in vars(st_theme).items()
                    if k.isupper() and isinstance(v, str) and re.fullmatch(r"#[0-9a-fA-F]{6}", v)}
    assert "#000004" in placeholders and len(placeholders) >= 30
    rng = np.random.default_rng(1)
    P = rng.uniform(0.0, 1.3, (3, 200))
    mask = np.zeros((3, 200), bool)
    mask[0, :5] = True
    hp = rmsc.inspection.heatmap_pool(P, np.repeat([0, 1], 100), pool="min", relative=True)
    fig = figures.pooled_weights_heatmap_figure(hp, list("abc"), outlier_mask=mask,
                                                placed=np.array([7]))
    own = fig.to_plotly_json()
    own["layout"].pop("template", None)  # importing streamlit makes its template the default
    spec = json.dumps(own, default=str).lower()
    found = set(re.findall(r"#[0-9a-f]{6}", spec)) & placeholders
    assert not found, found
    heat = fig.data[0]
    assert [t.type for t in fig.data].count("heatmap") == 1
    assert heat.coloraxis is None and fig.layout.coloraxis.colorscale is None
    assert heat.opacity in (None, 1) and heat.reversescale in (None, False)
    assert heat.showscale in (None, True)
    assert not any(getattr(t, "marker", None) is not None and t.marker.showscale
                   for t in fig.data[1:])  # the marks draw no second bar
    assert heat.zmin == 0 and heat.zmax == figures.RELATIVE_ZMAX and heat.zauto in (None, False)
    stops = [(float(at), colour) for at, colour in heat.colorscale]
    assert stops == [tuple(s) for s in figures.LOW_END_COLORSCALE]
    # dark below three quarters of the median, darkest at 0, pale at the median and above
    dark = [c for at, c in stops if at * figures.RELATIVE_ZMAX <= 0.6]
    assert dark and max(map(_luminance, dark)) < 40 and _luminance(stops[0][1]) < 5
    # what the words under the lesson's heatmap count as dark is exactly what is drawn dark:
    # the colours step from the last dark stop to the first pale one at DARK_RELATIVE, and
    # the colour bar marks that step in words
    pale = min(at for at, c in stops if _luminance(c) > 120) * figures.RELATIVE_ZMAX
    assert max(at for at, c in stops if _luminance(c) < 120) * figures.RELATIVE_ZMAX \
        == pytest.approx(figures.DARK_RELATIVE) == pytest.approx(pale)
    bar = heat.colorbar
    assert figures.DARK_RELATIVE in bar.tickvals
    assert bar.ticktext[list(bar.tickvals).index(figures.DARK_RELATIVE)] == "0.75 dark below"
    assert bar.ticktext[list(bar.tickvals).index(1)] == "1 median"
    assert "dark = under 0.75 of usual" in fig.layout.title.text
    assert all(_luminance(c) > 200 for at, c in stops if at * figures.RELATIVE_ZMAX >= 0.96)


def test_pooled_heatmap_of_the_change_from_the_clean_fit_names_its_quantity():
    from rmsc.inspection import heatmap_pool, weight_change

    clean = np.full((2, 6), 2.0)
    P = clean.copy()
    P[1, 4] = 0.5
    hp = heatmap_pool(weight_change(P, clean), None, relative=False)
    fig = figures.pooled_weights_heatmap_figure(hp, ["a", "b"], quantity="P / P clean")
    heat = fig.data[0]
    assert heat.colorbar.title.text == "P / P clean" and "P / P clean" in heat.hovertemplate
    assert heat.zmin == 0 and heat.zmax == figures.RELATIVE_ZMAX  # 1 = unchanged, as usual
    assert np.asarray(heat.z).min() == pytest.approx(0.25)
    assert "Change of the weights, P / P clean" in fig.layout.title.text
    assert list(heat.colorbar.ticktext) == ["0", "0.5", "0.75 dark below", "1 as before"]


def test_pooled_heatmaps_title_says_in_words_what_the_colours_and_columns_are():
    from rmsc.inspection import heatmap_pool

    P = np.ones((2, 40))
    P[0, 3] = 0.2
    labels = np.repeat([0, 1], 20)
    one_each = figures.pooled_weights_heatmap_figure(
        heatmap_pool(P, labels, relative=True), ["a", "b"], relative=True).layout
    assert "÷ the view's median: dark = under 0.75 of usual" in one_each.title.text
    # the order and the pooling under the axis
    assert one_each.xaxis.title.text == ("samples grouped by class, lowest weight first within "
                                         "each group")  # 40 columns for 40 samples: no pooling
    pooled = figures.pooled_weights_heatmap_figure(
        heatmap_pool(P, labels, relative=True, max_columns=10), ["a", "b"],
        relative=True).layout.xaxis.title.text
    assert pooled.endswith("within each group; each column the lowest of the samples it holds")
    raw = figures.pooled_weights_heatmap_figure(
        heatmap_pool(P, None, max_columns=10), ["a", "b"], relative=False,
        axis_title="samples, lowest weight first").layout
    assert "weight P in each view (dark = low)" in raw.title.text
    assert raw.xaxis.title.text == ("samples, lowest weight first; each column the lowest of "
                                    "the samples it holds")
