"""Compare and Sensitivity's runs without a browser (rmsc.dashboard.runs): progress,
cancelling, the robustness variants, the table's notes, the sensitivity axes, the data's notes."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import rmsc
from rmsc import dashboard as dash
from rmsc import datasets


def test_rmsc_method_params_carry_the_solve_settings(small):
    p = dash.Params(lam=2.0, beta=0.02, post="scale", weighting="view")
    out = dash.rmsc_method_params(p, small)
    assert list(out) == ["RMSC-WV"]
    assert out["RMSC-WV"]["lam"] == 2.0 and out["RMSC-WV"]["scale_columns"] is True
    assert "n_clusters" not in out["RMSC-WV"] and "random_state" not in out["RMSC-WV"]
    # Compare and the number-of-views experiment run Solve's relative β as it is
    rel = dash.rmsc_method_params(dash.Params(beta_rel=0.5), small)["RMSC"]
    assert rel["beta"] == dash.AUTO and rel["beta_rel"] == 0.5


def test_run_compare_reports_one_bar_over_all_variants(small):
    job = dash.Job("k", lambda j: None)
    corrupted = small.replace(views=[small.views[0], small.views[1][::-1]])
    params = {"RMSC": {"beta": 0.01, "max_iter": 5}}
    out = dash.run_compare({"clean": small, "with outliers": corrupted}, ["RMSC"], params,
                           random_state=0, job=job)
    assert list(out) == ["clean", "with outliers"]
    snap = job.snapshot()
    assert snap.total == 2 and snap.done == 2 and snap.message.startswith("with outliers")
    ref = rmsc.get_method("RMSC", n_clusters=3, beta=0.01, max_iter=5, random_state=0)
    assert out["clean"]["acc_mean"].iloc[0] == pytest.approx(
        rmsc.evaluate_runs(small.labels, ref.fit(small.views).label_runs_)["acc_mean"])
    table = dash.robustness_table(out)
    assert table.columns.tolist() == ["method", "clean %", "with outliers %", "change (points)"]
    assert table["change (points)"].iloc[0] == pytest.approx(
        table["with outliers %"].iloc[0] - table["clean %"].iloc[0])
    shown = dash.compare_display(out["clean"])
    assert shown["ACC %"].iloc[0] == (f"{100 * out['clean']['acc_mean'].iloc[0]:.2f} ± "
                                      f"{100 * out['clean']['acc_std'].iloc[0]:.2f}")
    with pytest.raises(ValueError, match="at least one method"):
        dash.run_compare({"x": small}, [])


def test_robustness_variants_every_kind_and_fraction(small):
    out = dash.robustness_variants(small, ["B"], random_state=4)
    kinds = rmsc.outliers.KINDS
    assert list(out) == ["clean"] + [f"{k} {p}%" for k in kinds for p in (10, 20)]
    assert out["clean"] is small
    for k in kinds:
        for f in dash.ROBUSTNESS_FRACTIONS:
            d = out[f"{k} {100 * f:g}%"]
            ref = rmsc.outliers.inject(small, ["B"], f, kind=k, random_state=4)
            assert d.fingerprint == ref.fingerprint
            assert d.outlier_mask[0].sum() == 0 and d.outlier_mask[1].sum() == round(f * 45)
    two = dash.robustness_variants(small, ["A", "B"], kinds=["noise"], fractions=[0.2])
    assert list(two) == ["clean", "noise 20%"]
    assert (two["noise 20%"].outlier_mask.sum(axis=1) == 9).all()
    with pytest.raises(ValueError, match="at least one view"):
        dash.robustness_variants(small, [])


def test_run_compare_cancelled_between_fits(small):
    job = dash.Job("k", lambda j: None)
    job.cancel()
    with pytest.raises(dash.Cancelled):
        dash.run_compare({"x": small}, ["RMSC"], job=job)


def test_run_sensitivity_and_views_report_progress(small):
    job = dash.Job("k", lambda j: None)
    df = dash.run_sensitivity(small, [0.3, 1.0], [0.01, 1e4], "RMSC", {"max_iter": 3}, job=job)
    assert len(df) == 4 and job.snapshot().done == 4
    assert df.loc[df["beta"] == 1e4, "error"].notna().all()
    job = dash.Job("k", lambda j: None)
    df = dash.run_views(small, ["RMSC"], {"RMSC": {"beta": 0.01, "max_iter": 3}}, job=job)
    assert df["n_views"].tolist() == [1, 2] and job.snapshot().total == 2


def test_compare_display_marks_failed_methods():
    df = pd.DataFrame([{"method": "X", "acc_mean": np.nan, "acc_std": np.nan,
                        "nmi_mean": np.nan, "nmi_std": np.nan, "ari_mean": np.nan,
                        "purity_mean": np.nan, "fit_time": 0.1, "error": "beta too large",
                        "note": None}])
    shown = dash.compare_display(df)
    assert shown["ACC %"].iloc[0] == "—" and shown["note"].iloc[0] == "β too large"


def test_compare_display_names_the_best_view_and_leaves_other_notes_empty(small):
    out = dash.run_compare({"clean": small}, ["SC-BSV", "RMSC"],
                           {"RMSC": {"beta": 0.01, "max_iter": 3}})["clean"]
    bsv = out[out["method"] == "SC-BSV"].iloc[0]
    shown = dash.compare_display(out, small.view_names)
    assert shown["note"].tolist() == [
        f"best view {small.view_names[int(bsv['view'])]} "
        f"(without labels: {small.view_names[int(bsv['nolabel_view'])]})", ""]  # not "nan"
    # without the names, the library's note (and still nothing for RMSC)
    assert dash.compare_display(out)["note"].tolist() == [bsv["note"], ""]


def test_sensitivity_axes_are_centered_on_where_z_star_empties():
    lams, betas = dash.sensitivity_axes(0.3, beta_max=1.0)
    assert lams == (0.03, 0.1, 0.3, 1.0, 3.0)
    assert betas == (0.01, 0.02, 0.05, 0.1, 0.2)  # beta_max / 100 .. / 5 on the slider grid
    assert set(lams) <= set(dash.LAM_GRID) and set(betas) <= set(dash.BETA_GRID)
    # it follows the data: ten times smaller beta_max, ten times smaller betas
    assert dash.sensitivity_axes(0.3, beta_max=0.1)[1] == (0.001, 0.002, 0.005, 0.01, 0.02)
    assert max(dash.sensitivity_axes(1.0, beta_max=0.05)[1]) < 0.05
    # and lambda: around the current value
    assert dash.sensitivity_axes(2.0, beta_max=1.0)[0] == (0.2, 0.5, 2.0, 5.0, 20.0)
    # no fit yet: the current beta (assumed to work) in the fourth place
    assert dash.sensitivity_axes(0.3, beta=0.3)[1] == (0.03, 0.05, 0.2, 0.3, 0.5)
    assert dash.sensitivity_axes(0.3) == (dash.DEFAULT_SENSITIVITY_LAMS,
                                          dash.DEFAULT_SENSITIVITY_BETAS)
    # the grid's ends: values collapse rather than leave the sliders' range
    assert dash.sensitivity_axes(0.3, beta_max=1e-6)[1] == (min(dash.BETA_GRID),)


def test_the_page_logic_never_imports_streamlit():
    import subprocess
    import sys

    code = ("import sys, rmsc.dashboard, rmsc.figures; "
            "sys.exit(int(any(m == 'streamlit' or m.startswith('streamlit.') "
            "for m in sys.modules)))")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_data_notes_name_views_and_samples_without_information(small):
    A, B = small.views
    assert dash.data_notes(small) == []

    def notes(*views):
        return dash.data_notes(small.replace(views=views))

    assert notes(A, np.zeros_like(B)) == [
        "View B is zero for every sample: it carries no information."]
    assert notes(A, np.full_like(B, 7.0)) == [
        "View B is the same for every sample: it cannot tell samples apart."]
    assert notes(sp.csr_matrix(np.ones((45, 3))), B)[0].startswith("View A is the same")
    A0 = A.copy()
    A0[[3, 9]] = 0
    assert notes(A0, sp.csr_matrix(B))[0].startswith("2 samples are all zero in view A: they")
    A0 = A.copy()
    A0[9] = 0
    assert notes(A0, B)[0].startswith("1 sample is all zero in view A: it carries")
    # a view named "view 1" is not "view view 1"
    named = small.replace(views=(A, np.zeros_like(B)), view_names=("view 0", "view 1"))
    assert dash.data_notes(named) == ["View 1 is zero for every sample: it carries no "
                                      "information."]
    A1 = A.copy()
    A1[[2, 4, 7]] = 0
    assert dash.data_notes(named.replace(views=(A1, B)))[0].startswith(
        "3 samples are all zero in view 0:")
    # a sample equal to another in every view (not in one view only) is a repeat
    A2, B2 = A.copy(), B.copy()
    A2[5], B2[5] = A2[0], B2[0]
    A2[6] = A2[1]
    assert notes(A2, sp.csr_matrix(B2)) == [
        "1 sample repeats another sample exactly in every view: RMSC cannot tell them apart "
        "(each is represented by its copies)."]
    # ... unless the description says so already (the bundled data say their own)
    said = small.replace(views=(A2, B2), description="Made up. 1 sample repeats another "
                         "sample exactly in every view, as in the source.")
    assert dash.data_notes(said) == []
    assert dash.data_notes(said.replace(description="Made up.")) == notes(A2, B2)


def test_the_bundled_data_say_their_repeated_samples_and_the_page_does_not_warn():
    digit = datasets.load_bundled("Digit")
    assert digit.repeated_samples() == 6
    assert "6 samples repeat another sample exactly in every view" in digit.description
    assert "FOU: 76 Fourier coefficients" in digit.description  # what each view measures
    assert dash.data_notes(digit) == []
    # the same data under another description (a user's upload) still warns
    assert dash.data_notes(digit.replace(name="mine", description="")) == [
        "6 samples repeat another sample exactly in every view: RMSC cannot tell them apart "
        "(each is represented by its copies)."]
    reuter = datasets.load_bundled("Reuter")
    assert reuter.repeated_samples() == 3 and "3 samples repeat" in reuter.description
    assert not [n for n in dash.data_notes(reuter) if "repeat" in n]
    assert "repeat" not in datasets.load_bundled("3-Sources").description
