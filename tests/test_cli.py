import io

import pytest

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


@pytest.mark.slow
def test_fit_digit_prints_scores_and_progress():
    code, out, err = run("fit", "--max-iter", "5")
    assert code == 0
    assert "iteration   5" in err
    acc = float(out.split("ACC")[1].split("±")[0])
    assert acc > 80.0
    assert "NMI" in out and "lam=0.3" in out
