"""The parameters a dashboard page shows: defaults, slider grids, URL round trip, outliers.

:class:`Params` holds one RMSC run's parameters as the pages show them (the UI state;
defaults are the estimator's own), :class:`OutlierSpec` one ``rmsc.outliers.inject`` call;
both travel in the URL's query string, so a view of the dashboard can be shared. The
values a setting may take are the estimator's declared rules
(``rmsc.RMSC._parameter_constraints``) plus the dashboard's own (:data:`UI_RULES`); what a
setting means to the estimator, and the cache key of its fit, are
:mod:`rmsc.dashboard.fitting`'s (:func:`~rmsc.dashboard.fitting.estimator_params`,
:func:`~rmsc.dashboard.fitting.fit_key`).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass, field

from .. import outliers
from .._validation import Interval, Options, Param
from ..methods import get_method, rmsc_method
from ..rmsc import RMSC, WEIGHTINGS, check_lam_positive, default_lam
from ..selection import SUGGEST_BETA_RELS
from .tables import labels_problem
from .words import SYMBOLS, page_words


def log_grid(low, high, mantissas=(1, 2, 3, 5)):
    """Values ``m * 10**e`` between ``low`` and ``high`` (inclusive), ascending.

    The 1-2-3-5 ladder contains the paper's and the estimators' defaults
    (0.3, 0.005, 1e-5), and gives log-scale sliders about four steps a decade.
    """
    if not (0 < low <= high):
        raise ValueError(f"log_grid needs 0 < low <= high; got low={low}, high={high}.")
    out = []
    for e in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1):
        for m in mantissas:
            v = float(f"{m}e{e}")
            if low * (1 - 1e-9) <= v <= high * (1 + 1e-9):
                out.append(v)
    return sorted(set(out))


#: Slider ranges (log scale). Wide enough to reach both failure modes:
#: beta large empties Z*, lam small decouples the views.
LAM_GRID = log_grid(1e-3, 100)


BETA_GRID = log_grid(1e-4, 10)


def auto_lam(weighting):
    """The λ the estimator uses for ``weighting`` when none is given
    (:func:`rmsc.rmsc.default_lam`)."""
    return float(default_lam(weighting))


def auto_beta_rel(weighting):
    """The ``beta_rel`` that β = "auto" uses for ``weighting`` (the estimator's own lookup
    of :data:`rmsc.rmsc.BETA_REL`)."""
    return float(RMSC(weighting=weighting)._beta_rel())


#: The β_rel slider (β = "auto"): β in units of the data's own scale (``RMSC.beta_scale_``),
#: log scale from a dense consensus to past the point where Z* empties (β_max is 1.5 to 11
#: of these units on the bundled data, docs/defaults.md), with every weighting's default
#: and every value the suggestion tries.
BETA_REL_GRID = sorted({*log_grid(1e-2, 10), *(auto_beta_rel(w) for w in WEIGHTINGS),
                        *(float(r) for r in SUGGEST_BETA_RELS)})


GAMMA_GRID = log_grid(1e-8, 1)


MAX_ITER_RANGE = (1, 200)


#: Affinity post-processing choices shown to the user (``Params.postprocessing`` turns one
#: into the estimator's keep_mass / top_k / scale_columns).
POSTPROCESSING = {
    "none": "the paper's (|Z*| + |Z*ᵀ|)/2",
    "scale": "scale each column of |Z*| by its maximum",
    "top_k": "keep each column's top-k coefficients",
    "top_k+scale": "keep the top-k, then scale columns (SSC's)",
    "rho+scale": "keep each column's largest coefficients up to the share ρ of its ℓ1 mass, "
                 "then scale columns (Elhamifar & Vidal's thrC)",
}



def post_of(affinity):
    """The :data:`POSTPROCESSING` choice of the estimator's affinity parameters
    (``{"keep_mass", "top_k", "scale_columns"}``, as :attr:`Params.postprocessing` gives
    them), or None when no choice gives them (e.g. ρ without scaling)."""
    scale, top_k, keep = (bool(affinity.get("scale_columns")), affinity.get("top_k"),
                          affinity.get("keep_mass"))
    if keep is not None:
        return "rho+scale" if scale and top_k is None else None
    if top_k is not None:
        return "top_k+scale" if scale else "top_k"
    return "scale" if scale else "none"

#: Each choice's name as the Solve page's select shows it (short enough for its field at
#: 1280 px; the description of :data:`POSTPROCESSING` is written beneath).
POSTPROCESSING_NAMES = {
    "none": "none (the paper's)",
    "scale": "scale columns",
    "top_k": "top-k",
    "top_k+scale": "top-k, then scale",
    "rho+scale": "ρ, then scale",
}


DEFAULT_TOP_K = 10


#: ρ of "rho+scale" (``keep_mass``): 0.7, as Elhamifar & Vidal's motion-segmentation demo.
DEFAULT_KEEP_MASS = 0.7


#: The dashboard's own settings (not the estimator's), in the same terms as its rules, and
#: their names in messages (the widgets' labels).
UI_LABELS = {"post": "affinity post-processing"}
UI_RULES = {
    "post": Param(Options(POSTPROCESSING), what="one of " + ", ".join(POSTPROCESSING)),
    "placement": Param(Options([True, False]), what="True or False"),
    "seed": Param(Interval(numbers.Integral, 0), what="an integer >= 0"),
}


#: How β is set (the Solve page's choice above the β sliders): "auto", the estimator's
#: relative default (β = β_rel × the data's own scale, see ``rmsc.RMSC``), or "fixed", the
#: paper's absolute β.
AUTO = "auto"
FIXED = "fixed"
BETA_MODES = {AUTO: "auto: follows the data", FIXED: "fixed"}

#: A fixed β chosen before any fit said what auto gives on the data: the paper's setting
#: (λ = β = 0.3), the estimator's former absolute default (docs/defaults.md).
FIXED_BETA_FALLBACK = 0.3


def beta_options(value):
    """The fixed β slider's options: :data:`BETA_GRID` (with ``value`` when it is a number
    off the grid)."""
    return options_with(BETA_GRID, None if value == AUTO else value)


def beta_mode(params):
    """How ``params`` set β: :data:`AUTO` or :data:`FIXED`."""
    return AUTO if params.beta == AUTO else FIXED


def switch_beta_mode(params, mode, memory=None, fixed_start=None):
    """``params`` with β set the ``mode`` way, at the value that way had when it was left.

    Each way keeps its own value: β_rel under "auto" (None: the weighting's default), β when
    "fixed". ``memory`` (mode -> value, or None) holds what was left before; a fixed β never
    set starts at ``fixed_start`` (the β that auto gave on the data, so the result does not
    jump; rounded to 3 digits), else :data:`FIXED_BETA_FALLBACK`.

    Returns
    -------
    params : Params
    memory : dict
        ``memory`` with the way just left remembered (a new dict).
    """
    if mode not in BETA_MODES:
        raise ValueError(f"β is set 'auto' or 'fixed'; got {mode!r}.")
    memory = dict(memory or {})
    left = beta_mode(params)
    memory[left] = params.beta_rel if left == AUTO else params.beta
    if mode == left:
        return params, memory
    if mode == AUTO:
        return params.replace(beta=AUTO, beta_rel=memory.get(AUTO)), memory
    beta = memory.get(FIXED)
    if beta is None:
        beta = (float(f"{fixed_start:.3g}") if fixed_start is not None and fixed_start > 0
                else FIXED_BETA_FALLBACK)
    return params.replace(beta=beta), memory


def format_beta(value):
    """β as the dashboard shows it: ``auto`` or the number."""
    return "auto (follows the data)" if value == AUTO else f"{value:g}"


def options_with(grid, value):
    """``grid`` with ``value`` inserted in order (so a value from a URL stays selectable)."""
    if value is None:
        return list(grid)
    if any(math.isclose(value, g, rel_tol=1e-9) for g in grid):
        return list(grid)
    return sorted([*grid, float(value)])


def nearest(grid, value):
    """The grid value closest to ``value`` on a log scale."""
    return min(grid, key=lambda g: abs(math.log10(g) - math.log10(value)))


def _estimator_defaults():
    return RMSC().get_params()


def _default_post():
    """The estimator's default affinity post-processing, as a :data:`POSTPROCESSING` key."""
    d = _estimator_defaults()
    top = d["top_k"] is not None
    if d["scale_columns"]:
        return "top_k+scale" if top else "scale"
    return "top_k" if top else "none"


@dataclass(frozen=True)
class Params:
    """The parameters of one RMSC run as the dashboard shows them.

    Defaults are the estimator's own (``rmsc.RMSC()``), so the dashboard and
    the library can never disagree. ``weighting="view"`` is RMSC-WV.
    ``n_clusters=None`` means "the number of classes in the labels" (when they hold two
    classes or more; otherwise the user must choose it). ``beta_rel`` applies to
    ``beta="auto"`` only; with an absolute β it is ignored (and stored as None).
    """

    #: λ; None is the estimator's default for the weighting (:func:`auto_lam`: RMSC and
    #: RMSC-WV differ), and that default is stored as None, so that it follows the
    #: weighting and equal settings compare, hash and share equal.
    lam: float | None = field(default_factory=lambda: _estimator_defaults()["lam"])
    #: A number (the paper's absolute β) or "auto" (β = β_rel × the data's own scale).
    beta: float | str = field(default_factory=lambda: _estimator_defaults()["beta"])
    #: β in units of the data's own scale when β is "auto" (``rmsc.RMSC(beta_rel=...)``):
    #: a fraction of the β at which the consensus starts to empty, so it travels between
    #: datasets. None is the estimator's default for the weighting (:func:`auto_beta_rel`);
    #: that default, and any value while β is absolute (it plays no part then), are stored
    #: as None, so that equal settings compare, hash and share equal.
    beta_rel: float | None = None
    gamma: float = field(default_factory=lambda: _estimator_defaults()["gamma"])
    weighting: str = field(default_factory=lambda: _estimator_defaults()["weighting"])
    max_iter: int = field(default_factory=lambda: _estimator_defaults()["max_iter"])
    tol: float = field(default_factory=lambda: _estimator_defaults()["tol"])
    post: str = field(default_factory=lambda: _default_post())
    top_k: int = DEFAULT_TOP_K
    #: ρ of the "rho+scale" post-processing, in (0, 1].
    keep_mass: float = DEFAULT_KEEP_MASS
    #: Place the samples the consensus (nearly) isolates by their neighbours in the views
    #: (``rmsc.RMSC(placement=...)``); False is the paper's plain spectral step.
    placement: bool = field(default_factory=lambda: _estimator_defaults()["placement"] is not None)
    n_clusters: int | None = None
    seed: int = 0

    def __post_init__(self):
        if isinstance(self.beta, str) and self.beta.strip().lower() == AUTO:
            object.__setattr__(self, "beta", AUTO)
        for name in _NUMBERS:
            object.__setattr__(self, name, _number(getattr(self, name), name in _INTEGERS))
        rules = RMSC._parameter_constraints
        for name in _ESTIMATOR_FIELDS:
            value = getattr(self, name)
            if value is None and name in ("beta_rel", "n_clusters"):
                continue  # None: the weighting's default, the number of classes
            rules[name].check(name, value, label=LABELS.get(name), page=True)
        if self.lam is not None:
            try:
                check_lam_positive(self.lam)
            except ValueError as exc:
                raise ValueError(page_words(str(exc))) from None
        for name, rule in UI_RULES.items():
            rule.check(name, getattr(self, name), label=UI_LABELS.get(name), page=True)
        if self.lam is not None and math.isclose(self.lam, auto_lam(self.weighting),
                                                 rel_tol=1e-12):
            object.__setattr__(self, "lam", None)
        if not rules["beta_rel"].applies({"beta": self.beta}) or (
                self.beta_rel is not None and math.isclose(
                self.beta_rel, auto_beta_rel(self.weighting), rel_tol=1e-12)):
            object.__setattr__(self, "beta_rel", None)

    # -- derived ---------------------------------------------------------------------------

    @property
    def method(self):
        """The registry name: "RMSC" or "RMSC-WV"."""
        return rmsc_method(self.weighting)

    @property
    def postprocessing(self):
        """The estimator's affinity parameters: ``{"keep_mass", "top_k", "scale_columns"}``."""
        return {"keep_mass": self.keep_mass if self.post == "rho+scale" else None,
                "top_k": self.top_k if self.post.startswith("top_k") else None,
                "scale_columns": self.post in ("scale", "top_k+scale", "rho+scale")}

    @property
    def resolved_lam(self):
        """The λ of the fit: ``lam``, or the weighting's default when None."""
        return self.lam if self.lam is not None else auto_lam(self.weighting)

    @property
    def resolved_beta_rel(self):
        """The β_rel of the fit: ``beta_rel``, or the weighting's default when None; None
        when β is absolute (β_rel plays no part)."""
        if self.beta != AUTO:
            return None
        return self.beta_rel if self.beta_rel is not None else auto_beta_rel(self.weighting)

    @property
    def beta_text(self):
        """β in words: the number, or "auto (β_rel 0.25)" (the estimator sets β from the data)."""
        if self.beta != AUTO:
            return f"{self.beta:g}"
        return f"auto (β_rel {self.resolved_beta_rel:g})"

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)

    def resolved_clusters(self, dataset):
        """The number of clusters to ask for: explicit, else the number of classes."""
        if self.n_clusters is not None:
            return self.n_clusters
        problem = labels_problem(dataset)
        if problem is None:
            return dataset.n_clusters
        raise ValueError(
            f"{problem}, so the number of clusters is not known: choose 'clusters c' on the "
            "Solve page."
        )

    def summary(self):
        """Short text lines for the sidebar."""
        post = POSTPROCESSING_NAMES[self.post].replace("top-k", f"top-{self.top_k}").replace(
            "ρ", f"ρ = {self.keep_mass:g}")  # the Solve page's name, its k or ρ filled in
        return [
            f"{self.method}: λ = {self.resolved_lam:g}, β = {self.beta_text}, γ = {self.gamma:g}",
            f"max {self.max_iter} iterations, tol {self.tol:g}, seed {self.seed}",
            f"affinity post-processing: {post}"
            + ("" if self.placement else "; no placement of isolated samples"),
        ]

    def as_dict(self):
        return dataclasses.asdict(self)

    # -- URL round trip --------------------------------------------------------------------

    def to_query(self):
        """Query-string parameters (str -> str) of the values that differ from the defaults."""
        base = Params()
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value != getattr(base, f.name) and value is not None:
                out[f.name] = _fmt(value)
        return out

    @classmethod
    def from_query(cls, query):
        """Parse query-string parameters; unknown keys are ignored.

        Returns
        -------
        params : Params
            Defaults for every missing or invalid entry.
        problems : list of str
            One message per invalid entry, saying what was ignored.
        """
        params = cls()
        accepted, raws = {}, {}
        problems = []
        for f in dataclasses.fields(cls):
            name = f.name
            if name not in query:
                continue
            raw = query[name]
            raw = raw[-1] if isinstance(raw, (list, tuple)) else raw
            try:
                value = _parse_field(name, raw)
                params = params.replace(**{name: value})
                accepted[name], raws[name] = value, raw
            except ValueError as exc:
                problems.append(f"Ignored {name}={raw!r} from the URL: {exc}")
        # Built once from every accepted value: beta_rel's meaning depends on β and the
        # weighting, whatever their order in the URL.
        params = cls(**accepted)
        if "beta_rel" in accepted and not RMSC._parameter_constraints["beta_rel"].applies(
                {"beta": params.beta}):
            problems.append(f"Ignored beta_rel={raws['beta_rel']!r} from the URL: β_rel applies "
                            f"to β = auto only, and the URL sets β = {params.beta:g}.")
        return params, problems


#: Params' fields that are the estimator's parameters of the same name, checked against
#: its declared rules (``rmsc.RMSC._parameter_constraints``).
_ESTIMATOR_FIELDS = ("lam", "beta", "beta_rel", "gamma", "weighting", "max_iter", "tol",
                     "top_k", "keep_mass", "n_clusters")
#: Numeric fields, and the integer ones among them (a URL or a widget gives "5" or 5.0).
_NUMBERS = ("lam", "beta", "beta_rel", "gamma", "max_iter", "tol", "top_k", "keep_mass",
            "n_clusters", "seed")
_INTEGERS = ("max_iter", "top_k", "n_clusters", "seed")
#: How the pages name a parameter in a message: the symbol on its slider (λ, β, β_rel, ...).
LABELS = {**SYMBOLS, "n_clusters": "clusters c"}


def _number(value, integer=False):
    """A widget's or URL's value as the number it stands for (an integer field's 5.0 as 5);
    anything else as it is, for the rule to say what is wrong."""
    if value is None or isinstance(value, bool) or (isinstance(value, str) and value == AUTO):
        return value
    try:
        x = float(value)
    except (TypeError, ValueError):
        return value
    return int(x) if integer and x.is_integer() else x


def _fmt(value):
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _parse_field(name, raw):
    """One query-string value as the field's Python value (the rules check it after)."""
    if name in ("weighting", "post"):
        return str(raw)
    if name == "placement":
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ValueError("placement must be 1 or 0.")
    if name == "beta" and str(raw).strip().lower() == AUTO:
        return AUTO
    return _number(raw, name in _INTEGERS)


def default_beta(method):
    """The registry's default beta of ``method``: "auto", a number, or None when it has none."""
    beta = get_method(method).get_params().get("beta")
    return beta if beta is None or beta == AUTO else float(beta)


def method_default_beta(weighting):
    """The registry's default beta for RMSC (per sample) or RMSC-WV (per view):
    "auto" or a number."""
    return default_beta(rmsc_method(weighting))


@dataclass(frozen=True)
class OutlierSpec:
    """The arguments of one ``rmsc.outliers.inject`` call, as shown and shared."""

    views: tuple
    fraction: float = 0.1
    kind: str = "replace"
    severity: float = 1.0
    same_samples: bool = True
    seed: int = 0

    def __post_init__(self):
        object.__setattr__(self, "views", tuple(str(v) for v in self.views))
        if not self.views:
            raise ValueError("Choose at least one view to corrupt.")
        fraction = float(self.fraction)
        if not 0 < fraction <= 1:
            raise ValueError(f"The outlier fraction must be in (0, 1]; got {self.fraction!r}.")
        object.__setattr__(self, "fraction", fraction)
        object.__setattr__(self, "severity", float(self.severity))
        object.__setattr__(self, "seed", UI_RULES["seed"].check("seed", _number(self.seed, True)))

    def inject(self, dataset):
        """Apply to a (clean) dataset with :func:`rmsc.outliers.inject`."""
        unknown = [v for v in self.views if v not in dataset.view_names]
        if unknown:
            raise ValueError(
                f"View(s) {', '.join(unknown)} not in {dataset.name} "
                f"(views: {', '.join(dataset.view_names)})."
            )
        return outliers.inject(dataset, list(self.views), self.fraction, kind=self.kind,
                               severity=self.severity, same_samples=self.same_samples,
                               random_state=self.seed)

    def summary(self):
        return (f"{self.fraction:.0%} '{self.kind}' (severity {self.severity:g}) in "
                f"{', '.join(self.views)}")

    def to_query(self):
        return {"outliers": ":".join([",".join(self.views), f"{self.fraction:g}", self.kind,
                                      f"{self.severity:g}", str(int(self.same_samples)),
                                      str(self.seed)])}

    @classmethod
    def from_query(cls, text):
        parts = str(text).split(":")
        if len(parts) != 6:
            raise ValueError(
                "expected views:fraction:kind:severity:same_samples:seed, e.g. "
                "'PIX,FOU:0.1:replace:1:1:0'."
            )
        views, fraction, kind, severity, same, seed = parts
        try:
            return cls(tuple(v for v in views.split(",") if v), float(fraction), kind,
                       float(severity), bool(int(same)), int(seed))
        except (TypeError, ValueError) as exc:
            raise ValueError(str(exc)) from None
