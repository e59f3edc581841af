"""The parameters a dashboard page shows: defaults, slider grids, URL round trip, outliers.

Each parameter is described once, as a row of :data:`SETTINGS` (a :class:`Setting`: its
name, the estimator's keyword, kind, default, rule, label, widget, grid, and what it passes
to the estimator). :class:`Params`, one RMSC run's parameters as the pages show them (the UI
state; defaults are the estimator's own), is built from that table, and so are its URL round
trip and summary, the Solve page's widget keys and rules (:func:`params_from_widgets`,
:func:`shown_values`, :func:`after_weighting_change`), what the settings mean to the
estimator (:func:`estimator_params`) and the fit's cache key (:func:`fit_key`, computed from
:func:`estimator_params`). The values a setting may take are the estimator's declared rules
(``rmsc.RMSC._parameter_constraints``) plus the dashboard's own (:data:`UI_RULES`).
:class:`OutlierSpec` is one ``rmsc.outliers.inject`` call; both travel in the URL's query
string, so a view of the dashboard can be shared.

Why one module over 600 lines: the table, the class it builds and the rules that read its
rows are one description of the parameters; split, a new parameter would again touch
several files.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import outliers
from .._validation import Interval, Options, Param
from ..methods import get_method, rmsc_method
from ..placement import PLACEMENTS
from ..rmsc import RMSC, WEIGHTINGS, check_lam_positive, default_lam
from ..selection import SUGGEST_BETA_RELS
from .tables import labels_problem
from .words import SYMBOLS, page_words, view_balance_name


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


#: How a choice's None is written in the URL (and shown where a widget needs a string).
NONE_TEXT = "none"


def estimator_choices(keyword):
    """The values the estimator's rule for ``keyword`` lists (``RMSC._parameter_constraints``,
    its :class:`~rmsc._validation.Options`), in its order: a choice the library adds appears
    on the pages by itself."""
    rule = RMSC._parameter_constraints[keyword]
    return tuple(v for c in rule.constraints if isinstance(c, Options) for v in c.values)


#: The models of the views' shares the Solve page offers (``RMSC(view_balance=...)``; the
#: library's :data:`rmsc.solver.VIEW_BALANCES`, through the estimator's rule), with None,
#: the paper's P-step, as :data:`NO_BALANCE` on the widget and in the URL.
NO_BALANCE = NONE_TEXT
VIEW_BALANCE_CHOICES = tuple(NO_BALANCE if v is None else v
                             for v in estimator_choices("view_balance"))


def balance_widget_value(view_balance):
    """The view-balance widget's value of ``view_balance`` (None is :data:`NO_BALANCE`)."""
    return NO_BALANCE if view_balance is None else view_balance


def balance_from_widget(value):
    """``view_balance`` of the widget's ``value`` (:data:`NO_BALANCE` is None)."""
    return None if value == NO_BALANCE else value


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


# -- the table: each parameter a page shows, described once --------------------------------

#: The estimator's placement rule, used when the pages' placement is on.
PLACEMENT = next(rule for rule in PLACEMENTS if rule is not None)

#: A row's ``default`` when it is the estimator's own default of its keyword.
ESTIMATOR_DEFAULT = "the estimator's default"
#: What a row's widget reader or shower gives for "not this widget now" (e.g. the β slider
#: while β is auto).
HIDDEN = object()


def _as_number(value, integer=False):
    """A widget's or URL's value as the number it stands for (an integer field's 5.0 as 5);
    anything else as it is, for the rule to say what is wrong."""
    if value is None or isinstance(value, bool) or (isinstance(value, str) and value == AUTO):
        return value
    try:
        x = float(value)
    except (TypeError, ValueError):
        return value
    return int(x) if integer and x.is_integer() else x


def _parse_flag(name, raw):
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be 1 or 0.")


@dataclass(frozen=True)
class Setting:
    """One parameter a dashboard page shows: a row of :data:`SETTINGS`.

    Everything :class:`Params` does with a parameter is derived from its row: the field
    and its default, the rule it is checked by, its URL form, its words in the sidebar's
    summary, its widget, what it means to the estimator (:func:`estimator_params`) and
    so to the fit's cache key (:func:`fit_key`).
    """

    #: The field of :class:`Params` and the URL's key.
    name: str
    #: "float", "int", "choice" or "flag": how a URL's or a widget's value is read.
    kind: str
    #: The estimator's keyword it sets, whose rule (``RMSC._parameter_constraints``) and
    #: default it takes unless ``rule`` and ``default`` say otherwise; None: a setting of the
    #: dashboard's own (then ``rule``), passed on by ``to_estimator`` if at all.
    keyword: str | None = None
    #: The value of a new :class:`Params`: :data:`ESTIMATOR_DEFAULT` (the estimator's own,
    #: never a copy), a value, or a callable giving it.
    default: object = ESTIMATOR_DEFAULT
    #: The dashboard's own rule (a :class:`rmsc._validation.Param`); None: the estimator's.
    rule: object = None
    #: How messages name it (the symbol on its widget); None: its name.
    label: str | None = None
    #: The key of its widget on the Solve page (None: it has none).
    widget: str | None = None
    #: The values its slider offers (a grid, or a (low, high) range); () when none.
    grid: tuple = ()
    #: None means "the estimator decides" (the value is not checked then).
    optional: bool = False
    #: The string "auto" is one of its values (β).
    auto: bool = False
    #: ``value -> None``: a check besides the rule, run after every row's rule (raises
    #: ValueError in the pages' words).
    also: Callable | None = None
    #: ``params -> value`` that is stored as None (it follows another setting, e.g. λ the
    #: weighting), so that equal settings compare, hash and share equal.
    follows: Callable | None = None
    #: ``(params, dataset) -> {keyword: value}``: what it passes to the estimator; None:
    #: ``{keyword: value}`` (nothing without a keyword).
    to_estimator: Callable | None = None
    #: ``params -> str or None``: its words in the summary's line ``line`` (None: none).
    summary: Callable | None = None
    line: int = 1
    #: ``(params, dataset) -> value`` its widget shows (:data:`HIDDEN`: not drawn); None:
    #: the field's value.
    shown: Callable | None = None
    #: ``(value, params, dataset) -> value`` of the field from its widget's value
    #: (:data:`HIDDEN`: the widget does not set it now); None: the value as it is.
    from_widget: Callable | None = None

    @property
    def integer(self):
        return self.kind == "int"

    def default_value(self):
        if self.default == ESTIMATOR_DEFAULT:
            return _estimator_defaults()[self.keyword]
        return self.default() if callable(self.default) else self.default

    def check_rule(self):
        """The rule the value is checked by: its own, else the estimator's."""
        return self.rule if self.rule is not None else RMSC._parameter_constraints[self.keyword]

    def coerce(self, value):
        """A widget's or URL's value as the field's Python value (the rule checks it after)."""
        if self.auto and isinstance(value, str) and value.strip().lower() == AUTO:
            return AUTO
        if self.kind in ("float", "int"):
            return _as_number(value, self.integer)
        return value

    def parse(self, raw):
        """One query-string value as the field's Python value (the rule checks it after):
        "none" is None where the rule allows None."""
        if self.kind == "flag":
            return _parse_flag(self.name, raw)
        if self.kind == "choice":
            text = str(raw)
            if text.strip().lower() == NONE_TEXT and self.check_rule().accepts(None):
                return None
            return text
        return self.coerce(str(raw) if self.auto else raw)

    def estimator_kwargs(self, params, dataset):
        if self.to_estimator is not None:
            return self.to_estimator(params, dataset)
        if self.keyword is None:
            return {}
        return {self.keyword: getattr(params, self.name)}


def _check_lam(lam):
    """λ > 0 (the estimator's rule that needs no data), in the pages' words."""
    try:
        check_lam_positive(lam)
    except ValueError as exc:
        raise ValueError(page_words(str(exc))) from None


def _post_summary(params):
    """The Solve page's name of the post-processing, its k or ρ filled in."""
    return "affinity post-processing: " + POSTPROCESSING_NAMES[params.post].replace(
        "top-k", f"top-{params.top_k}").replace("ρ", f"ρ = {params.keep_mass:g}")


def shown_clusters(params, dataset):
    """The number of clusters the 'clusters c' widget shows: the chosen one, else the
    number of classes when the labels give it, else None (the user must choose)."""
    return params.n_clusters or (dataset.n_clusters if labels_problem(dataset) is None
                                 else None)


def clusters_from_widget(value, dataset):
    """The cluster rule: the widget's number of clusters as :attr:`Params.n_clusters`.

    The number of classes of the labels is stored as None ("follow the labels"), so that
    it follows the data when they change; None stays None."""
    if value is None:
        return None
    follows_labels = labels_problem(dataset) is None and int(value) == dataset.n_clusters
    return None if follows_labels else int(value)


def _unless_default(keyword):
    """A row's part for the estimator: ``{keyword: value}`` unless the value is the
    estimator's default (then nothing: the fit and its key are those without the row)."""
    def part(params, dataset):
        value = getattr(params, keyword)
        return {} if value == _estimator_defaults()[keyword] else {keyword: value}
    return part


def _while_beta(mode, value):
    """The β slider of ``mode``'s value (:data:`HIDDEN` while β is set the other way: the
    other slider's value may linger in the session)."""
    return lambda params, *_: value(params) if beta_mode(params) == mode else HIDDEN


def _read_while_beta(mode):
    return lambda value, params, dataset: value if beta_mode(params) == mode else HIDDEN


#: Every parameter the pages show, in the order of :class:`Params`' fields (and of the
#: URL's keys); :class:`Params`, its URL round trip and summary, the Solve page's widget
#: keys, :func:`estimator_params` and :func:`fit_key` are derived from it. A new parameter
#: is one row here (and its widget on the Solve page).
SETTINGS = (
    # None: the weighting's default (RMSC and RMSC-WV differ), stored as None
    Setting("lam", "float", "lam", label=SYMBOLS["lam"], widget="w_lam", grid=tuple(LAM_GRID),
            also=_check_lam, follows=lambda p: auto_lam(p.weighting),
            to_estimator=lambda p, d: {"lam": p.resolved_lam},
            summary=lambda p: f"λ = {p.resolved_lam:g}", line=0,
            shown=lambda p, d: p.resolved_lam),
    # a number (the paper's absolute β) or "auto" (β = β_rel × the data's own scale)
    Setting("beta", "float", "beta", label=SYMBOLS["beta"], widget="w_beta",
            grid=tuple(BETA_GRID), auto=True, summary=lambda p: f"β = {p.beta_text}", line=0,
            shown=_while_beta(FIXED, lambda p: p.beta),
            from_widget=_read_while_beta(FIXED)),
    # β in units of the data's own scale while β is "auto": None is the weighting's
    # default; that default, and any value while β is absolute, are stored as None
    Setting("beta_rel", "float", "beta_rel", default=None, label=SYMBOLS["beta_rel"],
            widget="w_beta_rel", grid=tuple(BETA_REL_GRID), optional=True,
            follows=lambda p: auto_beta_rel(p.weighting),
            to_estimator=lambda p, d: {"beta_rel": p.resolved_beta_rel},
            shown=_while_beta(AUTO, lambda p: p.resolved_beta_rel),
            from_widget=_read_while_beta(AUTO)),
    Setting("gamma", "float", "gamma", label=SYMBOLS["gamma"], widget="w_gamma",
            grid=tuple(GAMMA_GRID), summary=lambda p: f"γ = {p.gamma:g}", line=0),
    # "view" is RMSC-WV: the registry's method (Params.method), not a keyword
    Setting("weighting", "choice", "weighting", widget="w_weighting",
            to_estimator=lambda p, d: {}),
    # how the views share the weight (docs/weights.md): None, the paper's P-step, or a
    # balanced model; its choices are the estimator's rule's (VIEW_BALANCE_CHOICES)
    Setting("view_balance", "choice", "view_balance", label=SYMBOLS["view_balance"],
            widget="w_view_balance", grid=VIEW_BALANCE_CHOICES,
            summary=lambda p: (None if p.view_balance is None
                               else f"view balance: {view_balance_name(p.view_balance)}"),
            line=0, shown=lambda p, d: balance_widget_value(p.view_balance),
            from_widget=lambda value, p, d: balance_from_widget(value)),
    # the paper's model (rmsc.rmsc.PAPER_MODEL, with gamma and view_balance): no widget; the
    # lesson fits it once beside the default (rmsc.dashboard.lesson_paper). Passed to the
    # estimator only when not its default, so that every other fit keeps its key
    Setting("loss_scale", "choice", "loss_scale", to_estimator=_unless_default("loss_scale"),
            summary=lambda p: (None if p.loss_scale == _estimator_defaults()["loss_scale"]
                               else "losses unscaled (the paper's: every cᵥ = 1)"), line=0),
    Setting("uninformative", "choice", "uninformative",
            to_estimator=_unless_default("uninformative"),
            summary=lambda p: (None if p.uninformative == _estimator_defaults()["uninformative"]
                               else "the paper's P-step for every weight"), line=0),
    Setting("max_iter", "int", "max_iter", label=SYMBOLS["max_iter"], widget="w_max_iter",
            grid=MAX_ITER_RANGE, summary=lambda p: f"max {p.max_iter} iterations"),
    Setting("tol", "float", "tol", summary=lambda p: f"tol {p.tol:g}"),
    Setting("post", "choice", default=_default_post, rule=UI_RULES["post"],
            label=UI_LABELS["post"], widget="w_post", grid=tuple(POSTPROCESSING),
            to_estimator=lambda p, d: p.postprocessing, summary=_post_summary, line=2),
    Setting("top_k", "int", "top_k", default=DEFAULT_TOP_K, label=SYMBOLS["top_k"],
            widget="w_top_k", to_estimator=lambda p, d: {}),  # through post
    # ρ of the "rho+scale" post-processing, in (0, 1]
    Setting("keep_mass", "float", "keep_mass", default=DEFAULT_KEEP_MASS,
            label=SYMBOLS["keep_mass"], widget="w_keep_mass",
            to_estimator=lambda p, d: {}),  # through post
    # place the samples the consensus (nearly) isolates by their neighbours in the views
    # (rmsc.RMSC(placement=...)); False is the paper's plain spectral step
    Setting("placement", "flag", "placement", rule=UI_RULES["placement"],
            default=lambda: _estimator_defaults()["placement"] is not None,
            widget="w_placement",
            # said explicitly either way, so that rmsc.experiments (which otherwise scores
            # the paper's spectral step) runs the model the Solve page shows
            to_estimator=lambda p, d: {"placement": PLACEMENT if p.placement else None},
            summary=lambda p: None if p.placement else "no placement of isolated samples",
            line=2),
    # None: the number of classes in the labels (when they hold two or more)
    Setting("n_clusters", "int", "n_clusters", default=None, label="clusters c",
            widget="w_clusters", optional=True,
            to_estimator=lambda p, d: {"n_clusters": p.resolved_clusters(d)},
            shown=shown_clusters,
            from_widget=lambda value, p, d: clusters_from_widget(value, d)),
    Setting("seed", "int", "random_state", default=0, rule=UI_RULES["seed"], widget="w_seed",
            summary=lambda p: f"seed {p.seed}"),
)

#: How the summary's lines begin and join their rows' words.
_SUMMARY_LINES = (("{method}: ", ", "), ("", ", "), ("", "; "))


class _ParamsBase:
    """What every :class:`Params` does, from its class's table (``TABLE``)."""

    TABLE = ()

    def __post_init__(self):
        rows = self.TABLE
        for row in rows:
            object.__setattr__(self, row.name, row.coerce(getattr(self, row.name)))
        # the estimator's rules, the rows' own checks, the dashboard's rules: in this order
        # (the first broken one is the message)
        for row in (r for r in rows if r.rule is None):
            value = getattr(self, row.name)
            if not (value is None and row.optional):  # None: the estimator decides
                row.check_rule().check(row.name, value, label=row.label, page=True)
        for row in rows:
            if row.also is not None and getattr(self, row.name) is not None:
                row.also(getattr(self, row.name))
        for row in (r for r in rows if r.rule is not None):
            row.rule.check(row.name, getattr(self, row.name), label=row.label, page=True)
        for row in rows:
            value = getattr(self, row.name)
            if not _plays_a_part(row, self):
                object.__setattr__(self, row.name, None)
            elif value is not None and row.follows is not None and math.isclose(
                    value, row.follows(self), rel_tol=1e-12):
                object.__setattr__(self, row.name, None)

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
        """Short text lines for the sidebar: each row's words, on its line."""
        lines = []
        for i, (start, sep) in enumerate(_SUMMARY_LINES):
            words = [row.summary(self) for row in self.TABLE
                     if row.summary is not None and row.line == i]
            lines.append(start.format(method=self.method)
                         + sep.join(w for w in words if w is not None))
        return lines

    def as_dict(self):
        return dataclasses.asdict(self)

    # -- URL round trip --------------------------------------------------------------------

    def to_query(self):
        """Query-string parameters (str -> str) of the values that differ from the defaults."""
        base = type(self)()
        out = {}
        for row in self.TABLE:
            value = getattr(self, row.name)
            if value != getattr(base, row.name) and value is not None:
                out[row.name] = _fmt(value)
            elif value is None and value != getattr(base, row.name) and row.kind == "choice":
                out[row.name] = NONE_TEXT  # a choice's None (the paper's loss_scale)
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
        for row in cls.TABLE:
            name = row.name
            if name not in query:
                continue
            raw = query[name]
            raw = raw[-1] if isinstance(raw, (list, tuple)) else raw
            try:
                value = row.parse(raw)
                params = params.replace(**{name: value})
                accepted[name], raws[name] = value, raw
            except ValueError as exc:
                problems.append(f"Ignored {name}={raw!r} from the URL: {exc}")
        # Built once from every accepted value: a setting that plays a part only beside
        # another's value (β_rel: β = auto) is judged whatever their order in the URL.
        params = cls(**accepted)
        for row in cls.TABLE:
            if row.name in accepted and not _plays_a_part(row, params):
                other, wanted = row.check_rule().only_with
                label = _label(cls, other)
                problems.append(
                    f"Ignored {row.name}={raws[row.name]!r} from the URL: {row.label or row.name} "
                    f"applies to {label} = {wanted} only, and the URL sets {label} = "
                    f"{_fmt(getattr(params, other))}.")
        return params, problems


def _plays_a_part(row, params):
    """Whether the value of ``row`` plays a part beside the others of ``params`` (its rule's
    ``only_with``: β_rel only with β = auto)."""
    only_with = row.check_rule().only_with
    return only_with is None or row.check_rule().applies(
        {only_with[0]: getattr(params, only_with[0])})


def _label(cls, name):
    row = next(r for r in cls.TABLE if r.name == name)
    return row.label or name


def params_class(table, name="Params"):
    """The frozen dataclass of the settings ``table`` (rows :class:`Setting`): one field per
    row, with the row's default; its methods read the rows (a test builds one with a toy
    row, and every derived part follows)."""
    fields = [(row.name, object, field(default_factory=row.default_value,
                                       metadata={"setting": row})) for row in table]
    cls = dataclasses.make_dataclass(name, fields, bases=(_ParamsBase,), frozen=True,
                                     namespace={"TABLE": tuple(table)})
    cls.__module__ = __name__
    return cls


Params = params_class(SETTINGS)
Params.__doc__ = """The parameters of one RMSC run as the dashboard shows them: one field per
row of :data:`SETTINGS`.

Defaults are the estimator's own (``rmsc.RMSC()``), so the dashboard and the library can
never disagree. ``weighting="view"`` is RMSC-WV. ``n_clusters=None`` means "the number of
classes in the labels" (when they hold two classes or more; otherwise the user must choose
it). ``beta_rel`` applies to ``beta="auto"`` only; with an absolute β it is ignored (and
stored as None). ``lam=None`` is the weighting's default (:func:`auto_lam`).
"""

#: How the pages name a parameter in a message: the symbol on its widget (λ, β, β_rel, ...).
LABELS = {**SYMBOLS, **{row.name: row.label for row in SETTINGS if row.label}}


def _fmt(value):
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# -- what the settings mean to the estimator, and the fit's key -----------------------------

def estimator_params(params, dataset):
    """Keyword arguments of ``rmsc.get_method(params.method, ...)`` for the pages'
    :class:`Params` on ``dataset`` (which gives the number of clusters when the pages leave
    it to the labels): each row's part, in the table's order."""
    out = {}
    for row in params.TABLE:
        out.update(row.estimator_kwargs(params, dataset))
    return out


def fit_request(params, dataset):
    """``(key, kwargs)`` of the fit of ``params`` on ``dataset``: :func:`fit_key` and
    :func:`estimator_params`, computed once (ValueError when the number of clusters is
    unknown). The key is ``("fit", dataset's fingerprint, method, *kwargs' items)``: the
    worker reads the registry's method from it (:func:`rmsc.dashboard.fit_rmsc`)."""
    kwargs = estimator_params(params, dataset)
    return ("fit", dataset.fingerprint, params.method, *kwargs.items()), kwargs


def fit_key(params, dataset):
    """A small hashable cache key of the fit of ``params`` on ``dataset``: the dataset's
    fingerprint, the method and :func:`estimator_params` (ValueError when the number of
    clusters is unknown)."""
    return fit_request(params, dataset)[0]


# -- the Solve page's rules -------------------------------------------------------------------

def widget_keys(params_type=None):
    """The keys of the Solve page's parameter widgets, one per row that has one."""
    return tuple(row.widget for row in (params_type or Params).TABLE if row.widget)


#: The key of the Solve page's choice of how β is set (auto or fixed).
BETA_MODE_WIDGET = "w_beta_mode"


def shown_values(params, dataset):
    """What each parameter widget of the Solve page shows for ``params`` on ``dataset``
    (``{widget key: value}``; widgets not drawn now are left out)."""
    values = {BETA_MODE_WIDGET: beta_mode(params)}
    for row in params.TABLE:
        if row.widget is None:
            continue
        value = row.shown(params, dataset) if row.shown else getattr(params, row.name)
        if value is not HIDDEN:
            values[row.widget] = value
    return values


def params_from_widgets(params, values, dataset):
    """``params`` with the widgets' ``values`` (``{widget key: value}``, those on screen)
    applied: each row reads its own widget (the β slider of the way β is set, the cluster
    rule). Raises ValueError (in the pages' words) for a value its rule refuses."""
    changes = {}
    for row in params.TABLE:
        if row.widget is None or row.widget not in values:
            continue
        value = values[row.widget]
        if row.from_widget is not None:
            value = row.from_widget(value, params, dataset)
        if value is not HIDDEN:
            changes[row.name] = value
    return params.replace(**changes)


def apply_widgets(params, values, dataset):
    """The Solve page's widgets moved: ``(params, request)``, ``params`` with the widgets'
    ``values`` applied (:func:`params_from_widgets`) and the fit they ask for
    (:func:`fit_request`; None when no fit is possible, e.g. the number of clusters is not
    known), in one call, so that the page's callback can ask for the fit at once. Raises
    ValueError (in the pages' words) for a value its rule refuses."""
    params = params_from_widgets(params, values, dataset)
    try:
        request = fit_request(params, dataset)
    except ValueError:
        request = None
    return params, request


def after_weighting_change(before, after, weighting):
    """The weighting was set to ``weighting`` (``before``: the parameters before, ``after``:
    with the widgets applied): RMSC and RMSC-WV have their own defaults, so β goes to the
    registry's default of the new method, and λ follows the weighting unless the user had
    moved it away from the old weighting's default."""
    changes = {"beta": method_default_beta(weighting)}
    if before.lam is None:
        changes["lam"] = None
    return after.replace(**changes)


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
        object.__setattr__(self, "seed", UI_RULES["seed"].check("seed", _as_number(self.seed, True)))

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
