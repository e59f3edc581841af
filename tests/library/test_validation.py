"""The parameter contract (rmsc/_validation.py): every estimator of the registry declares each
parameter's rule once, and its fit refuses every way of breaking each rule, naming the
parameter (scikit-learn's utils.estimator_checks is the model)."""

import numbers

import numpy as np
import pytest

import rmsc
from rmsc._validation import (
    KEEP_MASS,
    Interval,
    Options,
    Param,
    PerView,
    check_fraction,
    inactive,
    invalid_values,
)
from rmsc.methods import specs

#: Parameters no rule covers: the seed (scikit-learn's own) and RMSC's progress callback.
UNRULED = {"random_state", "callback"}

#: Every estimator class of the registry (RMSC and RMSC-WV share one).
ESTIMATORS = list(dict.fromkeys(spec.factory for spec in specs()))


def _name(cls):
    return cls.__name__


def _cases():
    for cls in ESTIMATORS:
        for name, rule in cls._parameter_constraints.items():
            for value in invalid_values(rule):
                yield pytest.param(cls, name, value, id=f"{cls.__name__}-{name}={value!r}")


def _views():
    rng = np.random.default_rng(0)
    basis = [rng.standard_normal((2, 5)) for _ in range(2)]
    views = []
    for _ in range(2):  # two views of 12 samples, two subspaces
        X = np.vstack([rng.standard_normal((6, 2)) @ b for b in basis])
        views.append(X + 0.01 * rng.standard_normal(X.shape))
    return views


@pytest.mark.parametrize("cls", ESTIMATORS, ids=_name)
def test_every_parameter_of_every_estimator_has_one_rule(cls):
    assert len(ESTIMATORS) == 9  # the nine estimator classes of the paper's ten methods
    params = set(cls().get_params())
    assert set(cls._parameter_constraints) == params - UNRULED
    for name, rule in cls._parameter_constraints.items():
        assert isinstance(rule, Param)
        assert rule.accepts(cls().get_params()[name]), f"{name}'s default breaks its own rule"
        assert invalid_values(rule), f"no invalid value generated for {name}"


@pytest.mark.parametrize("cls, name, value", list(_cases()))
def test_fit_refuses_every_invalid_value_of_every_rule_naming_the_parameter(cls, name, value):
    est = cls(n_clusters=2).set_params(**{name: value})
    with pytest.raises(ValueError) as err:
        est.fit(_views())
    message = str(err.value)
    assert message.startswith(f"{name} must be "), message
    assert f"got {value!r}" in message and "Traceback" not in message


def test_invalid_values_cross_each_end_and_kind():
    rule = Param(None, Interval(numbers.Integral, 1, 5), what="x")
    got = invalid_values(rule)
    assert {0, 6} <= set(got) and "not-an-option" in got and 2.5 in got and True in got
    assert None not in got and all(not rule.accepts(v) for v in got)
    open_left = Param(Interval(numbers.Real, 0, 1, closed="right"), what="y")
    got = invalid_values(open_left)
    assert 0 in got and 1.001 in got and None in got and not open_left.accepts(0)
    assert all(not open_left.accepts(v) for v in got)
    per_view = Param(PerView(Interval(numbers.Real, 0)), what="z")
    assert per_view.accepts(0.1) and per_view.accepts([0.1, np.float64(0.2)])
    assert not per_view.accepts([0.1, -1]) and not per_view.accepts([])
    assert [-0.001] in invalid_values(per_view)
    flag = Param(Options([True, False]), what="w")
    assert flag.accepts(np.bool_(True)) and not flag.accepts(1) and not flag.accepts("True")


def test_fractions_have_one_rule():
    # the affinity post-processing's fraction, wherever it is checked: (0, 1] or None
    for cls in ESTIMATORS:
        if "keep_mass" in cls._parameter_constraints:
            assert cls._parameter_constraints["keep_mass"] is KEEP_MASS
    assert check_fraction("keep_mass", 1) == 1.0 and check_fraction("keep_mass", None) is None
    for bad in (0, 1.01, -1, "half"):
        with pytest.raises(ValueError, match=r"keep_mass must be a number in \(0, 1\]"):
            check_fraction("keep_mass", bad)


def test_a_parameter_that_plays_a_part_only_with_beta_auto_is_one_rule_everywhere():
    # beta_rel (RMSC) and alpha (the SSC family): declared once, with the parameter it needs
    needs_auto = {(cls.__name__, name) for cls in ESTIMATORS
                  for name, rule in cls._parameter_constraints.items()
                  if rule.only_with == ("beta", "auto")}
    assert needs_auto == {("RMSC", "beta_rel"), ("SSCBSV", "alpha"), ("SSCAVG", "alpha"),
                          ("DiMSC", "alpha")}
    for cls_name, name in needs_auto:
        contract = getattr(rmsc, cls_name)._parameter_constraints
        assert inactive(contract, {"beta": 0.05}, [name]) == [name]
        assert inactive(contract, {"beta": "auto"}, [name]) == []
    # the estimator checks it even where it plays no part (then ignores it)
    with pytest.raises(ValueError, match="beta_rel must be a positive number"):
        rmsc.RMSC(2, beta=0.05, beta_rel=-1.0).fit(_views())
    with pytest.raises(ValueError, match="alpha must be a finite number > 1"):
        rmsc.SSCAVG(2, beta=0.05, alpha=0.5).fit(_views())
    # the dashboard stores it as None beside an absolute beta (rmsc.dashboard.Params)
    from rmsc import dashboard as dash
    assert dash.Params(beta=0.3, beta_rel=0.5).beta_rel is None
