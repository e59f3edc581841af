import io
import os
import re

import pytest

import rmsc
from rmsc.cli import main


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_methods_lists_the_registry():
    code, out, _ = run("methods")
    assert code == 0
    for name in ("RMSC", "RMSC-WV", "SSC-AVG", "SSC-BSV"):
        assert name in out


def test_fit_bad_input_is_a_message_not_a_traceback():
    code, _, err = run("fit", "--method", "nope")
    assert code == 2 and "Unknown method 'nope'" in err and "Traceback" not in err
    code, _, err = run("fit", "--beta", "-1", "--quiet")
    assert code == 2 and "beta must be a finite non-negative number" in err
    code, _, err = run("fit", "--method", "SSC-AVG", "--lam", "1")
    assert code == 2 and "does not take --lam" in err


def test_fit_bundled_by_name_and_files_with_clear_errors(tmp_path):
    code, out, _ = run("fit", "--data", "subspaces", "--quiet")
    assert code == 0 and "ACC     100.00" in out
    code, _, err = run("fit", "--data", str(tmp_path / "missing.mat"))
    assert code == 2 and "missing.mat" in err and "Traceback" not in err


def test_fit_passes_keep_mass_to_the_methods_that_take_it():
    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--keep-mass", "0.7")
    assert code == 0, err
    assert "keep_mass=0.7," in out and "ACC" in out
    code, _, err = run("fit", "--data", "Subspaces", "--keep-mass", "1.5", "--quiet")
    assert code == 2 and "keep_mass must be a number in (0, 1]" in err and "Traceback" not in err
    code, _, err = run("fit", "--data", "Subspaces", "--method", "SC-BSV", "--keep-mass", "0.7")
    assert code == 2 and "does not take --keep-mass" in err



def test_fit_passes_alpha_to_the_ssc_methods_and_reports_both_forms():
    from rmsc import solver
    from rmsc.preprocessing import normalize_l2
    from rmsc.ssc import coherence

    data = rmsc.datasets.load_bundled("Subspaces")
    mus = [coherence(solver.gram_factor(normalize_l2(X))) for X in data.views]
    code, out, err = run("fit", "--data", "Subspaces", "--method", "SSC-AVG", "--alpha", "50")
    assert code == 0, err
    assert "alpha=50.0," in out and "ACC" in out
    want = ", ".join(f"{2 * mu / 50:.4g}" for mu in mus)
    assert f"per view: beta {want}; alpha 50, 50, 50" in out
    code, out, err = run("fit", "--data", "Subspaces", "--method", "SSC-BSV", "--beta", "0.05")
    assert code == 0, err
    want = ", ".join(f"{2 * mu / 0.05:.4g}" for mu in mus)
    assert f"per view: beta 0.05, 0.05, 0.05; alpha {want}" in out
    code, _, err = run("fit", "--data", "Subspaces", "--method", "DiMSC", "--alpha", "1")
    assert code == 2 and "alpha must be a finite number > 1" in err and "Traceback" not in err
    code, _, err = run("fit", "--data", "Subspaces", "--method", "SSC-AVG", "--alpha", "50",
                       "--beta", "0.05")
    assert code == 2 and "cannot go with a number for --beta" in err
    code, _, err = run("fit", "--data", "Subspaces", "--method", "MSC", "--alpha", "50")
    assert code == 2 and "MSC does not take --alpha (SSC-BSV, SSC-AVG, DiMSC do)." in err

def test_fit_prints_the_lambda_and_beta_it_used_and_the_rule():
    est = rmsc.RMSC(3, random_state=0).fit(rmsc.datasets.load_bundled("Subspaces").views)
    code, out, err = run("fit", "--data", "Subspaces", "--quiet")
    assert code == 0, err
    assert "λ = 1 (the default for weighting='sample')" in out
    assert (f"β = {est.beta_:.3g} = β_rel 0.25 × the data's scale {est.beta_scale_:.3g} "
            "(β auto)\n    the data's scale: the 5 % quantile over samples of the β that "
            f"empties a sample's column of Z*; Z* is all zero from β_max = {est.beta_max_:.3g} "
            "on\n") in out
    # how the iterations ended, and why the objective may be negative
    assert f"iterations: {est.n_iter_} (converged)\n" in out and est.converged_
    assert f"objective: {est.objective_[-1]:.6g} (negative: the weight term" in out
    assert est.objective_[-1] < 0
    params = out.split("parameters: ")[1].splitlines()[0]
    assert "lam=1.0," in params and f"beta={est.beta_:.6g}," in params
    assert "beta_rel=0.25," in params
    assert not re.search(r"\b(lam|beta|beta_rel)=(None|auto)", params)
    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--method", "RMSC-WV")
    assert code == 0 and "λ = 3 (the default for weighting='view')" in out


def test_fit_says_when_it_stopped_at_the_limit_and_takes_the_scale_columns_switch():
    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--max-iter", "2",
                         "--no-scale-columns")
    assert code == 0, err
    assert "iterations: 2 (stopped at max_iter = 2, not converged)" in out
    assert "scale_columns=False" in out.split("parameters: ")[1]
    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--method", "SSC-AVG",
                         "--scale-columns")
    assert code == 0 and "scale_columns=True" in out and "iterations:" not in out
    # the dashboard's name of the setting, in the option's help
    help_text = io.StringIO()
    with pytest.raises(SystemExit):
        import contextlib
        with contextlib.redirect_stdout(help_text):
            main(["fit", "--help"])
    assert "'scale columns'" in " ".join(help_text.getvalue().split())
    assert rmsc.dashboard.POSTPROCESSING_NAMES["scale"] == "scale columns"


def test_fit_beta_auto_with_beta_rel_and_a_number():
    data = rmsc.datasets.load_bundled("Subspaces")
    half = rmsc.RMSC(3, beta_rel=0.5, random_state=0).fit(data.views)
    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--beta", "auto",
                         "--beta-rel", "0.5")
    assert code == 0, err
    assert f"β = {half.beta_:.3g} = β_rel 0.5 × the data's scale " in out and "ACC" in out
    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--beta-rel", "0.5")
    assert code == 0 and f"β = {half.beta_:.3g} = β_rel 0.5 × the data's scale " in out
    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--beta", "0.1")
    assert code == 0, err
    given = rmsc.RMSC(3, beta=0.1, random_state=0).fit(data.views)
    assert f"β = 0.1 (given; β_rel {given.beta_rel_:.3g} on these data)" in out
    # SSC: --beta auto is its own rule, and alpha goes with it
    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--method", "SSC-AVG",
                         "--beta", "auto", "--alpha", "30")
    assert code == 0, err
    assert "alpha 30, 30, 30 (beta auto: 2 μ / alpha" in out
    # what cannot be
    code, _, err = run("fit", "--data", "Subspaces", "--beta", "0.1", "--beta-rel", "0.5")
    assert code == 2 and "--beta-rel sets beta relative to the data" in err
    code, _, err = run("fit", "--data", "Subspaces", "--method", "SSC-AVG", "--beta-rel", "0.5")
    assert code == 2 and "SSC-AVG does not take --beta-rel (RMSC-WV, RMSC do)." in err
    code, _, err = run("fit", "--data", "Subspaces", "--beta-rel", "-1", "--quiet")
    assert code == 2 and "beta_rel must be a positive number" in err
    with pytest.raises(SystemExit) as exit_:
        run("fit", "--beta", "lots")
    assert exit_.value.code == 2


@pytest.mark.slow
def test_fit_digit_prints_scores_and_progress():
    code, out, err = run("fit", "--max-iter", "5")
    assert code == 0
    assert "iteration   5" in err
    acc = float(out.split("ACC")[1].split("±")[0])
    # the score of a real clustering after five iterations (chance is about 10 % on ten
    # balanced classes); the converged one is in docs/stability.md
    assert acc > 60.0
    assert "NMI" in out
    # the lambda and beta the fit used, and the rule that gave beta; never None
    assert "λ = 1 (the default for weighting='sample')" in out
    said = re.search(r"β = ([\d.]+) = β_rel 0\.25 × the data's scale ([\d.]+) \(β auto\)", out)
    assert said and float(said[1]) == pytest.approx(0.25 * float(said[2]), rel=5e-3)
    assert not re.search(r"\b(lam|beta|beta_rel)=(None|auto)", out)


# ---------------------------------------------------------------------------
# rmsc reproduce (on a small synthetic dataset standing in for the paper's files)
# ---------------------------------------------------------------------------


@pytest.fixture
def tiny_reproduction(monkeypatch):
    """The paper's datasets replaced by small union-of-subspaces data and one-setting grids."""
    import numpy as np

    from tests.support import union_of_subspaces
    from rmsc import experiments
    from rmsc.datasets import MultiViewDataset

    views, y = union_of_subspaces(n_per=15, dims=(8, 12, 10))

    def fake_load(name, path):
        if name == "Reuter":
            raise ValueError(f"Reuter: {path} does not exist.")
        return MultiViewDataset(name=name, views=views, labels=y, view_names=("A", "B", "C"))

    monkeypatch.setattr(experiments.reproduce, "load_for_reproduction", fake_load)
    for method, grid in list(experiments.SEARCH.items()):
        monkeypatch.setitem(experiments.SEARCH, method, {k: v[:1] for k, v in grid.items()})
    monkeypatch.setitem(experiments.SEARCH, "RMSC", {"lam": [1.0], "beta": [0.02, 1e4]})
    monkeypatch.setitem(experiments.SEARCH, "SSC-AVG", {"beta": [0.01]})
    return np, y


def test_reproduce_writes_table_json_and_figures(tiny_reproduction, tmp_path, monkeypatch):
    import json

    from rmsc import experiments

    np, y = tiny_reproduction
    report, js, cache = tmp_path / "docs" / "results.md", tmp_path / "r.json", tmp_path / "c.json"
    code, out, err = run("reproduce", "--datasets", "Digit", "--methods", "RMSC",
                         "SSC-AVG", "Co-Pairwise", "--report", str(report), "--json", str(js),
                         "--cache", str(cache), "--lams", "0.3", "1", "--betas", "0.02",
                         "--no-png")
    assert code == 0, err
    # A progress bar on stderr that ends full.
    assert "[########################]" in err
    text = report.read_text()
    assert "rmsc reproduce --datasets Digit --methods" in text.split("## Protocol")[0]
    acc_rmsc = [l for l in text.splitlines() if l.startswith("| RMSC |")][0]
    got = json.loads(js.read_text())
    ours = got["datasets"]["Digit"]["results"]["none"]["RMSC"]
    assert ours["params"] == {"lam": 1.0, "beta": 0.02}  # beta=1e4 failed, so not chosen
    assert f"{100 * ours['acc_mean']:.2f} ± {100 * ours['acc_std']:.2f} (97.91; " \
           f"{100 * ours['acc_mean'] - 97.91:+.2f})" in acc_rmsc
    assert "n/a: data unavailable (paper 33.14 ± 1.01)" in acc_rmsc
    assert ours["fit_time"] > 0 and 0 <= ours["nmi_std"] <= ours["nmi_mean"] <= 1
    # Both post-processing variants: the self-representation methods get top_k/scale_columns.
    assert got["datasets"]["Digit"]["results"]["ssc"]["RMSC"]["params"] == {
        "lam": 1.0, "beta": 0.02, "top_k": 10, "scale_columns": True}
    assert got["datasets"]["Digit"]["results"]["ssc"]["Co-Pairwise"]["params"] == \
        got["datasets"]["Digit"]["results"]["none"]["Co-Pairwise"]["params"]
    # The failed setting is reported in the search, not hidden.
    assert "beta=10000.0 | failed: beta=10000 is so large" in text
    # Figures: HTML files linked relative to the report; the sensitivity grid has its cells.
    figs = sorted(p.name for p in (report.parent / "figures").iterdir())
    assert figs == ["comparison_digit.html", "convergence.html", "sensitivity_digit.html",
                    "views_digit.html"]
    assert "[views digit (interactive HTML)](figures/views_digit.html)" in text
    assert len(got["sensitivity"]["Digit"]) == 2 and len(got["accuracy_vs_views"]["Digit"]) == 6
    # A second run finds every fit in the cache.
    monkeypatch.setattr(experiments.protocol, "run_one", lambda *a, **k: pytest.fail("refitted"))
    code, _, err2 = run("reproduce", "--datasets", "Digit", "--methods", "RMSC", "SSC-AVG",
                        "Co-Pairwise", "--cache", str(cache), "--no-figures", "--quiet")
    assert code == 0 and err2 == ""


def test_reproduce_stops_before_any_fit_when_a_dataset_cannot_be_had(tiny_reproduction,
                                                                    tmp_path, monkeypatch):
    from rmsc import experiments

    monkeypatch.setattr(experiments.protocol, "run_one", lambda *a, **k: pytest.fail("fitted"))
    report = tmp_path / "results.md"
    code, out, err = run("reproduce", "--datasets", "Digit", "Reuter", "--methods", "RMSC",
                         "--report", str(report), "--json", str(tmp_path / "r.json"))
    assert code == 2 and out == ""
    assert err == "rmsc: error: Reuter: None does not exist. (nothing was run)\n"
    assert not report.exists() and not (tmp_path / "r.json").exists()


def test_a_reproduction_from_python_reports_the_dataset_it_could_not_load(tiny_reproduction):
    """The library's run() (not the CLI) keeps going and says which dataset did not run."""
    from rmsc import experiments

    result = experiments.run(["Digit", "Reuter"], ["RMSC"], postprocessing=("none",),
                             views=False, sensitivity=False)
    text = experiments.report(result, command="rmsc reproduce --datasets Digit Reuter")
    got = experiments.to_json(result)
    assert got["datasets"]["Reuter"]["error"].startswith("Reuter:")
    assert "| Reuter | — | — | — | not run: Reuter:" in text
    acc_rmsc = [l for l in text.splitlines() if l.startswith("| RMSC |")][0]
    assert "n/a: data unavailable (paper 33.14 ± 1.01)" in acc_rmsc


def test_reproduce_bad_input_is_a_message(tiny_reproduction, tmp_path):
    code, _, err = run("reproduce", "--methods", "Kmeans")
    assert code == 2 and "Unknown method 'Kmeans'" in err and "Traceback" not in err
    code, _, err = run("reproduce", "--datasets", str(tmp_path / "missing.mat"))
    assert code == 2 and "neither a dataset of the paper" in err
    bad = tmp_path / "cache.json"
    bad.write_text("{oops")
    code, _, err = run("reproduce", "--datasets", "Digit", "--cache", str(bad))
    assert code == 2 and "cannot be read" in err


# ---------------------------------------------------------------------------
# conventions: --help with examples everywhere, outputs as files or stdout, exit codes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["fit"], ["reproduce"], ["methods"], ["dashboard"]])
def test_every_command_has_help_with_examples(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*command, "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: rmsc")
    if command:
        assert "examples:\n  rmsc " + command[0] in text
    else:
        for name in ("fit", "reproduce", "methods", "dashboard"):
            assert name in text


def test_fit_writes_labels_and_weights_files(tmp_path):
    import numpy as np
    import pandas as pd

    from rmsc import RMSC, datasets

    labels, weights = tmp_path / "labels.csv", tmp_path / "P.csv"
    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--labels", str(labels),
                         "--weights", str(weights))
    assert code == 0, err
    assert f"labels (best k-means run) written to {labels}" in out
    assert f"weights P (one column per view) written to {weights}" in out and "ACC" in out
    data = datasets.load_bundled("Subspaces")
    model = RMSC(n_clusters=3, random_state=0).fit(data.views)
    got = pd.read_csv(labels)
    assert list(got.columns) == ["sample", "label"]
    assert np.array_equal(got["sample"], np.arange(150))
    assert np.array_equal(got["label"], model.labels_)
    P = pd.read_csv(weights)
    assert list(P.columns) == ["sample", *data.view_names]
    np.testing.assert_allclose(P[list(data.view_names)].to_numpy().T, model.weights_, rtol=1e-15)


def test_fit_labels_to_stdout_keep_the_report_on_stderr():
    import pandas as pd

    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--labels", "-")
    assert code == 0
    table = pd.read_csv(io.StringIO(out))  # stdout is the CSV and nothing else
    assert list(table.columns) == ["sample", "label"] and len(table) == 150
    assert "ACC     100.00" in err and "RMSC on Subspaces" in err


def test_fit_output_errors_come_before_the_fit(tmp_path, monkeypatch):
    from rmsc import RMSC, SSCAVG

    for cls in (RMSC, SSCAVG):
        monkeypatch.setattr(cls, "fit", lambda *a, **k: pytest.fail("fitted"))
    code, _, err = run("fit", "--labels", "-", "--weights", "-")
    assert code == 2 and "cannot both go to stdout" in err
    code, _, err = run("fit", "--labels", str(tmp_path / "no" / "labels.csv"))
    assert code == 2 and "the folder" in err and "does not exist" in err
    code, _, err = run("fit", "--data", "Subspaces", "--method", "SSC-AVG", "--weights", "P.csv")
    assert code == 2 and err == ("rmsc: error: --weights needs a method with sample weights "
                                 "(RMSC or RMSC-WV); SSC-AVG has none.\n")


def test_unexpected_failures_are_one_line_with_status_1(monkeypatch):
    from rmsc import cli

    def broken(*a, **k):
        raise RuntimeError("something\nbroke")

    monkeypatch.setattr(cli, "get_method", broken)
    code, _, err = run("fit", "--data", "Subspaces")
    assert code == 1 and err == "rmsc: error: RuntimeError: something broke\n"

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "get_method", interrupted)
    code, _, err = run("fit", "--data", "Subspaces")
    assert code == 130 and err == "rmsc: interrupted\n"


# ---------------------------------------------------------------------------
# rmsc dashboard (starting a real server: tests/project/test_wheel.py)
# ---------------------------------------------------------------------------


def test_dashboard_refuses_a_port_in_use():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        code, _, err = run("dashboard", "--port", str(port), "--address", "127.0.0.1")
    assert code == 2
    assert err == (f"rmsc: error: port {port} on 127.0.0.1 is in use (another dashboard?); "
                   "choose another with --port.\n")


def test_dashboard_bad_port_address_or_missing_files(monkeypatch, tmp_path):
    from rmsc import _resources

    code, _, err = run("dashboard", "--port", "70000")
    assert code == 2 and "--port takes a number from 1 to 65535; got 70000" in err
    code, _, err = run("dashboard", "--address", "no-such-host.invalid")
    assert code == 2 and "cannot serve on 'no-such-host.invalid'" in err
    monkeypatch.setattr(_resources, "app_script", lambda: tmp_path / "app.py")
    code, _, err = run("dashboard")
    assert code == 2 and "the dashboard's files are not in this installation" in err
    assert "reinstall rmsc" in err


def test_dashboard_listens_on_localhost_and_passes_the_scheduler(monkeypatch, tmp_path):
    import runpy
    import sys

    from rmsc.dashboard import workers

    seen = {}

    def fake_run_path(path, run_name):  # what app.py would be started with
        seen.update(argv=list(sys.argv), scheduler=os.environ.get(workers.SCHEDULER_ENV))

    monkeypatch.setattr(runpy, "run_path", fake_run_path)
    monkeypatch.delenv(workers.SCHEDULER_ENV, raising=False)
    monkeypatch.chdir(tmp_path)  # cmd_dashboard changes the folder to the app's
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    code, _, err = run("dashboard", "--port", port)
    assert code == 0 and seen["scheduler"] is None
    argv = seen["argv"]
    assert argv[argv.index("--server.address") + 1] == "localhost"
    assert f"http://localhost:{port}" in err
    code, _, _ = run("dashboard", "--port", port, "--scheduler", "tcp://10.1.2.3:8786")
    assert code == 0 and seen["scheduler"] == "tcp://10.1.2.3:8786"
    os.environ.pop(workers.SCHEDULER_ENV, None)  # set by the command itself, in this process


def test_dashboard_on_every_interface_prints_its_urls_and_no_banner(monkeypatch, tmp_path):
    """Serving the network (a class): Streamlit's banner would ask an internet service for
    this machine's public address, so it is off and the command prints the URLs itself."""
    import runpy
    import socket
    import sys

    from rmsc import cli

    seen = {}
    monkeypatch.setattr(runpy, "run_path", lambda path, run_name: seen.update(argv=sys.argv))
    monkeypatch.setattr(cli, "_network_addresses", lambda: ["10.0.0.7"])
    monkeypatch.chdir(tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, err = run("dashboard", "--port", str(port), "--address", "0.0.0.0")
    assert code == 0
    argv = seen["argv"]
    assert argv[argv.index("--server.address") + 1] == "0.0.0.0"
    assert argv[argv.index("--logger.hideWelcomeMessage") + 1] == "true"
    assert argv[argv.index("--browser.gatherUsageStats") + 1] == "false"
    assert (f"rmsc dashboard: http://localhost:{port}, http://10.0.0.7:{port} "
            "(Ctrl-C stops it)") in err
    # this machine only: Streamlit's own banner (a single URL, no lookup) stays
    code, _, err = run("dashboard", "--port", str(port))
    assert "--logger.hideWelcomeMessage" not in seen["argv"]

