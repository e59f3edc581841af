"""The search space: every method's grid, the equal budget, affinity post-processing variants.

The paper publishes neither its lambda and beta nor the baselines' parameters.
Every method therefore gets the same kind of search: a small grid of its main
parameters, declared in :data:`SEARCH` (at most :data:`SEARCH_BUDGET` settings
each, so that no method is tuned harder than another).
"""

from __future__ import annotations

import itertools

import numpy as np

from ..methods import available_methods, find_spec, get_method, specs
from ..rmsc import RMSC

#: Parameter settings every method is tried with (the equal search budget).
SEARCH_BUDGET = 12


#: Smaller budgets per dataset, by default none: since the speed work the full search
#: fits (docs/results.md, *Compute*). A reduction is the same for every method: each
#: grid keeps that many settings, evenly spaced over the grid in its declared order
#: with the registry default always among them (:func:`thin`), chosen before any run.
#: ``rmsc reproduce --budget NAME=N`` sets one (``--budget Digit=4``: a quick look).
DATASET_BUDGET = {}


#: The grid of every method (parameters not named keep the method's registry default):
#: exactly :data:`SEARCH_BUDGET` settings each, log-spaced over each method's own
#: parameters, as each method's spec declares it (:attr:`rmsc.methods.MethodSpec.search`).
#: The graph methods keep the paper's k = 5 and search their own weight together with the
#: bandwidth rule; SC-BSV, whose only parameters are the graph's, searches k and the rule.
#: Taken from the registry when this module is imported; an entry may be replaced for one
#: run (a quick look, a test). A method registered later is searched over its spec's grid.
SEARCH = {spec.name: {k: list(v) for k, v in spec.search.items()} for spec in specs()
          if spec.search}


#: Why the grids look as they do (written into the results document): the specs' notes.
SEARCH_NOTES = {spec.name: spec.search_note for spec in specs() if spec.search_note}


#: Methods that cluster a self-representation: the affinity post-processing applies to them
#: (:attr:`rmsc.methods.MethodSpec.self_representation`).
SELF_REPRESENTATION = tuple(spec.name for spec in specs() if spec.self_representation)


def search_grid(method):
    """``method``'s grid: :data:`SEARCH`'s entry, else its spec's (registered later)."""
    if method in SEARCH:
        return SEARCH[method]
    spec = find_spec(method)
    return dict(spec.search) if spec is not None else {}


def applies_postprocessing(method):
    """Whether the affinity post-processing variants apply to ``method`` (it clusters a
    self-representation)."""
    spec = find_spec(method)
    return method in SELF_REPRESENTATION or (spec is not None and spec.self_representation)


#: Affinity post-processing variants, applied to every self-representation method alike
#: (:func:`rmsc.spectral.affinity_from_coefficients`). "none" is the paper's affinity
#: (|Z| + |Z^T|)/2; "colmax" divides each column by its largest coefficient first (RMSC's
#: default affinity, docs/defaults.md); "ssc" keeps the strongest 10 coefficients per
#: column, then colmax; "rho" is Elhamifar & Vidal's SSC code (their thrC at rho = 0.7,
#: as their motion-segmentation demo, then BuildAdjacency's colmax).
POSTPROCESSING = {
    "none": {},
    "colmax": {"scale_columns": True},
    "ssc": {"top_k": 10, "scale_columns": True},
    "rho": {"keep_mass": 0.7, "scale_columns": True},
}


POSTPROCESSING_TITLE = {
    "none": "the paper's affinity (|Z| + |Zᵀ|)/2",
    "colmax": "each column of |Z| divided by its maximum (\"scale columns\", RMSC's default)",
    "ssc": "the 10 strongest coefficients per column, then colmax",
    "rho": "Elhamifar & Vidal's ρ-threshold (each column's largest coefficients up to 70 % of "
           "its ℓ1 mass), then colmax",
}


def thin(items, budget, keep=None):
    """``budget`` items of ``items`` evenly spaced over it, first and last included.

    The reduced search (:data:`DATASET_BUDGET`): positions
    ``round(linspace(0, len - 1, budget))`` of the grid in its declared order
    (the product of the parameters' values, the last parameter varying
    fastest). ``keep`` (a position) is always among them: it replaces the
    nearest position chosen (the registry default, see :func:`settings`).
    ``budget=None`` or one at least ``len(items)`` keeps everything.
    """
    items = list(items)
    if budget is None or budget >= len(items):
        return items
    if int(budget) != budget or budget < 1:
        raise ValueError(f"A search budget must be a positive whole number; got {budget!r}.")
    if budget == 1:
        idx = np.array([0 if keep is None else keep])
    else:
        idx = np.unique(np.round(np.linspace(0, len(items) - 1, int(budget))).astype(int))
    if keep is not None and keep not in idx:
        idx[np.argmin(np.abs(idx - keep))] = keep
    return [items[i] for i in sorted(idx)]


def _resolved(method, params):
    """``params`` over the registry's, with what the estimator resolves itself filled in
    (RMSC's λ and β_rel for its weighting), so that equal fits compare equal."""
    est = get_method(method)
    full = {**est.get_params(), **params}
    if isinstance(est, RMSC):  # RMSC resolves lam and beta_rel from its weighting
        resolved = est.set_params(**params)
        if full.get("lam") is None:
            full["lam"] = resolved._lam()
        if full.get("beta") == "auto" and full.get("beta_rel") is None:
            full["beta_rel"] = resolved._beta_rel()
    return {k: full[k] for k in sorted(full) if k not in ("callback",)}


def registry_default_index(method):
    """The position in ``method``'s grid of the setting equal to its registry default
    (``rmsc.get_method(method)``), or None when the grid lacks it."""
    grid = search_grid(method)
    keys = list(grid)
    default = _resolved(method, {})
    for i, values in enumerate(itertools.product(*(grid[k] for k in keys))):
        if _resolved(method, dict(zip(keys, values))) == default:
            return i
    return None


def settings(method, postprocessing="none", budget=None):
    """Every parameter setting of ``method``'s grid, as a list of dicts.

    For a self-representation method the post-processing variant's parameters
    are added to every setting; other methods are unaffected by it. With a
    ``budget`` smaller than the grid, only :func:`thin`'s evenly spaced
    settings are returned.
    """
    if postprocessing not in POSTPROCESSING:
        raise ValueError(f"Unknown post-processing {postprocessing!r}; use one of "
                         f"{', '.join(POSTPROCESSING)}.")
    grid = search_grid(method)
    keys = list(grid)
    out = [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]
    out = thin(out or [{}], budget, keep=registry_default_index(method) if out else None)
    extra = POSTPROCESSING[postprocessing] if applies_postprocessing(method) else {}
    return [{**s, **extra} for s in out]


def _fmt_params(params):
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "defaults"


def check_budgets(budgets):
    """Validate a dataset -> settings-per-method mapping (positive whole numbers)."""
    out = {}
    for name, value in dict(budgets or {}).items():
        try:
            ok = int(value) == value and int(value) >= 1
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"The search budget of {name} must be a positive whole number of "
                             f"settings per method; got {value!r}.")
        out[str(name)] = int(value)
    return out


def check_methods(methods):
    """Validate method names against the registry; return them in the registry's order
    (the paper's Table 1, then methods registered later)."""
    known = available_methods()
    lower = {m.lower(): m for m in known}
    out = []
    for m in methods:
        if m.lower() not in lower:
            raise ValueError(f"Unknown method {m!r}; available methods: {', '.join(known)}.")
        out.append(lower[m.lower()])
    return [m for m in known if m in out]
