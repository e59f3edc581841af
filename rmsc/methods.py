"""Every clustering method of the paper, by its paper name: the registry, one spec each.

A :class:`MethodSpec` is the single description of a method: how to make it, its
defaults, its words, its search grid for the reproduction, its cost model for the time
estimates, its color in the figures, which inner solves it shares with other methods,
whether it is one of the paper's Table 1 and where the reproduction runs it, and (from its
estimator's ``min_views``) how many views it needs. Code that treats methods alike asks the spec
(scikit-learn's estimator tags play this part there); a new baseline is one estimator
module plus one :func:`register` call.

Each entry is a scikit-learn-style estimator taking ``Xs`` (a list of
``(n_samples, n_features_v)`` views) and exposing, after ``fit``:
``labels_`` (the k-means run of lowest inertia) and ``label_runs_``
(shape ``(n_runs, n_samples)``, one labelling per k-means restart, for the
paper's mean ± std protocol).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .dimsc import DiMSC
from .multiview_spectral import MSC, SCBSV, CoRegCentroid, CoRegPairwise, CoTraining
from .rmsc import RMSC
from .ssc import SSCAVG, SSCBSV


@dataclass(frozen=True, eq=False)
class MethodSpec:
    """What the library, the reproduction and the dashboard know about one method.

    Attributes
    ----------
    name : str
        The paper's name (Table 1), the key of the registry (case-insensitive).
    factory : callable
        The estimator class (or any callable taking its parameters).
    description : str
        One line, shown by ``rmsc methods`` and the Compare page.
    defaults : dict
        Parameters that differ from the factory's own defaults (RMSC-WV is RMSC with
        ``weighting="view"``).
    search : dict of str -> list
        The reproduction's grid of this method's parameters (:mod:`rmsc.experiments.grid`);
        empty: only its defaults are scored.
    search_note : str
        Why the grid looks as it does (written into the results document).
    cost : str, object or None
        Its cost model for the time estimates: a name of :data:`rmsc.costs.COST_MODELS`
        (``"rmsc"``, ``"ssc"``, ``"dimsc"``, ``"graph"``) or a model object
        (:class:`rmsc.costs.CostModel`'s methods); None, or a model that does not cover the
        method (the graph model has constants per method, measured by
        ``tools/calibrate_costs.py``): the estimates use measured durations only.
    cost_group : str or None
        Methods of the same group run the same solves, so that one's measured duration
        stands for another's until that one is measured too.
    shared_solve : tuple or None
        ``(solve, params)``: fits of methods with the same ``solve`` and equal values of
        ``params`` share one inner solve (the reproduction groups them on one worker).
    color : str or None
        Its color in every figure (None: one of a fallback palette).
    in_paper : bool
        One of the paper's Table 1 methods (the reproduction's set; registered in Table 1's
        order, so that the registry's order is the table's).
    run_rank : float
        Where the reproduction's search fits it within a dataset (lower first; equal ranks in
        registry order): cheapest first, so that an interrupted run has the quick methods
        done, and methods sharing solves back to back. Default: after every ranked method.
    self_representation : bool
        It clusters a self-representation, so the affinity post-processing
        (``keep_mass``, ``top_k``, ``scale_columns``) applies to it.
    per_view : bool
        It clusters every view on its own and reports the best single view.
    lam_beta_grid : bool
        Offered on the Sensitivity page's λ × β grid (it takes ``lam`` and ``beta``).
    """

    name: str
    factory: object
    description: str
    defaults: dict = field(default_factory=dict)
    search: dict = field(default_factory=dict)
    search_note: str = ""
    cost: object = None
    cost_group: str | None = None
    shared_solve: tuple | None = None
    color: str | None = None
    in_paper: bool = False
    run_rank: float = float("inf")
    self_representation: bool = False
    per_view: bool = False
    lam_beta_grid: bool = False

    @property
    def min_views(self):
        """Fewest views it accepts (co-regularisation and co-training combine two or more):
        its estimator's ``min_views`` (1 when it declares none)."""
        return int(getattr(self.factory, "min_views", 1))

    def make(self, **params):
        """An unfitted estimator: the defaults, overridden by ``params``."""
        return self.factory(**{**self.defaults, **params})


_lock = threading.Lock()
_REGISTRY = {}


def register(spec, *, replace=False):
    """Add ``spec`` to the registry (after the others); returns it.

    A name already taken (case-insensitive) raises ValueError unless ``replace``; a
    replacement takes its predecessor's place in the order.
    """
    if not isinstance(spec, MethodSpec):
        raise ValueError(f"register takes a MethodSpec; got {type(spec).__name__}.")
    with _lock:
        taken = next((k for k in _REGISTRY if k.lower() == spec.name.lower()), None)
        if taken is not None and not replace:
            raise ValueError(f"A method called {taken!r} is already registered; pass "
                             "replace=True to replace it.")
        entries = [(spec.name, spec) if k == taken else (k, v) for k, v in _REGISTRY.items()]
        _REGISTRY.clear()
        _REGISTRY.update(entries)
        _REGISTRY[spec.name] = spec
    return spec


def unregister(name):
    """Remove the method called ``name`` (case-insensitive); unknown names are ignored."""
    with _lock:
        for key in [k for k in _REGISTRY if k.lower() == str(name).lower()]:
            del _REGISTRY[key]


def register_missing(specs):
    """Register every spec whose name is not known here yet (a worker process receiving the
    methods a server registered at run time, e.g. a plug-in's)."""
    for spec in specs:
        if find_spec(spec.name) is None:
            register(spec)


def find_spec(name):
    """The :class:`MethodSpec` called ``name`` (case-insensitive), or None."""
    with _lock:
        for key, spec in _REGISTRY.items():
            if key.lower() == str(name).lower():
                return spec
    return None


def get_spec(name):
    """The :class:`MethodSpec` called ``name`` (case-insensitive); ValueError if unknown."""
    spec = find_spec(name)
    if spec is None:
        raise ValueError(
            f"Unknown method {name!r}; available methods: {', '.join(available_methods())}."
        )
    return spec


def specs():
    """Every registered :class:`MethodSpec`, in the paper's Table 1 order, then later ones."""
    with _lock:
        return list(_REGISTRY.values())


def paper_methods():
    """The paper's Table 1 methods (``in_paper``), in its order."""
    return [spec.name for spec in specs() if spec.in_paper]


def run_order(names=None):
    """``names`` (default: every method) in the order the reproduction's search fits them:
    by their specs' ``run_rank``, equal ranks in registry order; unknown names last."""
    ranked = [spec.name for spec in sorted(specs(), key=lambda s: s.run_rank)]
    if names is None:
        return ranked
    rank = {name: i for i, name in enumerate(ranked)}
    return sorted(names, key=lambda m: rank.get(m, len(rank)))


def available_methods():
    """Names accepted by :func:`get_method`, in the paper's Table 1 order."""
    return [spec.name for spec in specs()]


def describe_method(name):
    """One-line description of a method."""
    return get_spec(name).description


def get_method(name, **params):
    """Return an unfitted estimator for the method called ``name`` in the paper.

    Parameters
    ----------
    name : str
        One of :func:`available_methods` (case-insensitive).
    **params
        Estimator parameters; they override the method's defaults.
    """
    return get_spec(name).make(**params)


def rmsc_method(weighting):
    """The registry name of RMSC with this ``weighting``: "RMSC" ("sample") or "RMSC-WV"
    ("view")."""
    for spec in specs():
        if spec.factory is RMSC and spec.defaults.get("weighting", "sample") == weighting:
            return spec.name
    raise ValueError(f"weighting must be 'sample' (RMSC) or 'view' (RMSC-WV); got "
                     f"{weighting!r}.")


# ---------------------------------------------------------------------------
# The paper's methods (Table 1 order)
# ---------------------------------------------------------------------------
# run_rank: the graph methods first (cheapest), then RMSC-WV and RMSC, then the methods that
# share the per-view SSC solves (back to back, so the shared solves are reused).

_RULES = ["mean_knn", "self_tuning"]
_SSC_BETAS = ["auto", 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5]
_SSC_SOLVE = ("SSC", ("beta", "alpha"))  # SSC-BSV, SSC-AVG and DiMSC start from it
_RMSC_NOTE = ("λ over 1.5 decades × β in the data's own unit (β = auto, β_rel a fraction of "
              "the β at which 5 % of the samples start unlinked; docs/defaults.md), the "
              "registry default (λ {lam}, β_rel 0.25) among them")
_RMSC_GRID = {"lam": [0.3, 1.0, 3.0, 10.0], "beta": ["auto"], "beta_rel": [0.1, 0.25, 0.5]}

for _spec in (
    MethodSpec(
        "SC-BSV", SCBSV,
        "Spectral clustering of every view's k-NN Gaussian graph; best single view (BSV) "
        "reported",
        search={"n_neighbors": [3, 5, 7, 10, 15, 20], "bandwidth": _RULES},
        search_note="its only parameters are the graph's: k (the paper fixes 5) and the "
                    "bandwidth rule",
        cost="graph", color="#636EFA", per_view=True, in_paper=True, run_rank=0),
    MethodSpec(
        "MSC", MSC, "Multiview spectral embedding with closed-form view weights (Xia et al. 2010)",
        search={"r": [1.5, 2, 3, 5, 10, 30], "bandwidth": _RULES},
        search_note="Xia et al.'s exponent r from near 1 (one view) to 30 (nearly equal "
                    "weights), with both bandwidth rules",
        cost="graph", color="#EF553B", in_paper=True, run_rank=0),
    MethodSpec(
        "Co-Pairwise", CoRegPairwise,
        "Pairwise co-regularised spectral clustering (Kumar, Rai & Daume 2011)",
        search={"lam": [0.003, 0.01, 0.03, 0.1, 0.3, 1.0], "bandwidth": _RULES},
        search_note="the coupling λ around Kumar et al.'s 0.01-0.05, with both bandwidth rules",
        cost="graph", color="#00CC96", in_paper=True, run_rank=0),
    MethodSpec(
        "Co-Centroid", CoRegCentroid,
        "Centroid co-regularised spectral clustering (Kumar, Rai & Daume 2011)",
        search={"lam": [0.003, 0.01, 0.03, 0.1, 0.3, 1.0], "bandwidth": _RULES},
        search_note="the coupling λ around Kumar et al.'s 0.01-0.05, with both bandwidth rules",
        cost="graph", color="#AB63FA", in_paper=True, run_rank=0),
    MethodSpec(
        "Co-Training", CoTraining, "Co-trained multi-view spectral clustering (Kumar & Daume 2011)",
        search={"max_iter": [1, 2, 3, 5, 10, 20], "bandwidth": _RULES},
        search_note="the number of co-training rounds, with both bandwidth rules",
        cost="graph", color="#FFA15A", in_paper=True, run_rank=0),
    MethodSpec(
        "SSC-BSV", SSCBSV, "SSC on every view separately; best single view reported",
        search={"beta": _SSC_BETAS},
        search_note="β of SSC on unit-norm data, and the SSC reference's automatic rule",
        cost="ssc", cost_group="ssc", shared_solve=_SSC_SOLVE, color="#19D3F3",
        self_representation=True, per_view=True, in_paper=True, run_rank=2),
    MethodSpec(
        "SSC-AVG", SSCAVG, "Spectral clustering on the average of per-view sparse subspace "
        "clustering (SSC) affinities",
        search={"beta": _SSC_BETAS},
        search_note="β of SSC on unit-norm data, and the SSC reference's automatic rule",
        cost="ssc", cost_group="ssc", shared_solve=_SSC_SOLVE, color="#FF6692",
        self_representation=True, in_paper=True, run_rank=2),
    MethodSpec(
        "DiMSC", DiMSC,
        "Diversity-induced multi-view subspace clustering, sparse form (Cao et al. 2015)",
        search={"lam": [0.01, 1e2, 1e4, 1e6], "beta": ["auto", 0.01, 0.03]},
        search_note="β as SSC; the diversity weight λ: the registry's 0.01, then where λ·HSIC "
                    "goes from negligible to comparable with the reconstruction term (HSIC is "
                    "normalised by (n-1)², so useful λ are large; checked on the objective's "
                    "parts, without labels)",
        cost="dimsc", shared_solve=_SSC_SOLVE, color="#B6E880", self_representation=True,
        in_paper=True, run_rank=2),
    MethodSpec(
        "RMSC-WV", RMSC, "RMSC with one weight per view (paper appendix)",
        defaults={"weighting": "view"}, search=dict(_RMSC_GRID), search_note=_RMSC_NOTE.format(lam=3),
        cost="rmsc", cost_group="rmsc", color="#FF97FF", self_representation=True,
        lam_beta_grid=True, in_paper=True, run_rank=1),
    MethodSpec(
        "RMSC", RMSC,
        "Robust localized multi-view subspace clustering (per-sample, per-view weights)",
        defaults={"weighting": "sample"}, search=dict(_RMSC_GRID),
        search_note=_RMSC_NOTE.format(lam=1), cost="rmsc", cost_group="rmsc", color="#1F2A44",
        self_representation=True, lam_beta_grid=True, in_paper=True, run_rank=1),
):
    register(_spec)
del _spec
