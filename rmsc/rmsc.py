"""The RMSC estimator (Fan, Liang, He, Hu & Lyu, IJCAI 2017).

Why this module is over 600 lines: it holds the estimator and the defaults it resolves
(lambda, beta's unit, the model and gamma of the stability study, the paper's model and the former
stopping rule as parameter sets), whose docstrings state the model and its objective,
plus the two helpers the fit shares with others (``embed_and_cluster``, ``beta_advice``).
Splitting the defaults from the estimator would put one source of each default away
from the parameters it documents.
"""

from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from . import solver
from ._deferred import Deferred
from ._array_api import describe, count_nonzero, namespace
from .backends import BACKENDS, get_runner, one_thread_per_call
from .memory import check_dense_fits
from ._validation import (
    FLAG,
    KEEP_MASS,
    N_CLUSTERS,
    NON_NEGATIVE,
    POSITIVE_INT,
    TOP_K,
    Interval,
    Options,
    Param,
    check_estimator,
    check_n_clusters,
    check_views,
)
from .placement import PLACEMENTS, place_weak_samples
from .preprocessing import normalize_l2
from .spectral import (
    N_KMEANS_RUNS,
    affinity_from_coefficients,
    count_pieces,
    empty_rows,
    kmeans_runs,
    spectral_clustering,
)

WEIGHTINGS = ("sample", "view")


#: Default lambda (the coupling of each view's Z^v to the consensus Z*) for each
#: weighting. Chosen by the study in docs/studies/study_defaults.py (docs/defaults.md): for
#: each weighting, the setting of least worst regret over every dataset of the repository,
#: not the best on Digit (the regrets: docs/defaults.md).
LAM = {"sample": 1.0, "view": 3.0}


#: beta's unit for ``beta="auto"``: this quantile of the per-sample emptying betas
#: (:func:`rmsc.solver.column_betas`), i.e. the beta above which that share of the samples
#: starts with an empty column of Z*. The 5 % quantile follows the bulk of the samples;
#: beta_max (1.0, their maximum) is set by the few most isolated ones, far above the bulk
#: on text, and a fraction of it leaves Z* dense. docs/defaults.md compares the two, measured.
BETA_QUANTILE = 0.05


#: Default ``beta_rel`` for each weighting: ``beta="auto"`` uses
#: beta = beta_rel x the BETA_QUANTILE quantile of the emptying betas (docs/defaults.md).
BETA_REL = {"sample": 0.25, "view": 0.25}


#: The default model (the stability study, docs/stability.md): every view's losses in the unit of its
#: median loss at the start (``loss_scale="median"``), the view factor c_v = 1/s_v
#: (``scale_power=1``): F = sum_vj P_vj l_vj / s_v + psi(P_vj) + beta ||Z*||_1.
#: ``loss_scale=None`` (with ``gamma=PAPER_GAMMA``) is the paper's model.
LOSS_SCALE = "median"


#: The default view factor's power (see :data:`LOSS_SCALE`).
SCALE_POWER = 1.0


#: Default gamma, in the scaled model's unit (a view's median loss): the weight cap
#: 1/sqrt(gamma) = 10 times a typical sample's weight (docs/stability.md).
GAMMA = 1e-2


#: The paper's gamma (its Section 5), for its model (``loss_scale=None``).
PAPER_GAMMA = 1e-5


#: The rule for a sample that carries no information in a view (all zero there, or
#: repeated exactly by another sample): "typical" holds its weight at the view's typical
#: weight (the median of the view's P-step weights at the start) instead of the cap its
#: loss of 0 would give (the weights study; :mod:`rmsc.solver._weights`, docs/weights.md). None:
#: the paper's P-step for every weight.
UNINFORMATIVE = "typical"


#: The model of the views' shares (:data:`rmsc.solver.VIEW_BALANCES`; docs/weights.md,
#: "Models whose view shares follow informativeness"): None, the paper's P-step, each weight
#: on its own. The balanced models are named options: the study did not make one the default.
VIEW_BALANCE = None


#: The parameters that give the paper's exact model (the reproduction's).
PAPER_MODEL = {"loss_scale": None, "gamma": PAPER_GAMMA, "uninformative": None,
               "view_balance": None}


#: The stopping rule before the stability study: the objective's relative decrease <= 1e-4, at most
#: 30 iterations. With :data:`PAPER_MODEL` it reproduces every fit made before the change
#: bit for bit (the reproduction's documented results among them).
FORMER_STOPPING = {"stop_on": "objective", "tol": 1e-4, "max_iter": 30}


#: Default affinity post-processing: divide each column of |Z*| by its maximum ("colmax")
#: before symmetrising (docs/defaults.md: every setting of least worst regret uses it).
SCALE_COLUMNS = True


def default_lam(weighting):
    """The default lambda of a weighting (:data:`LAM`); "sample" for an unknown one."""
    return LAM.get(weighting, LAM["sample"])


def beta_scale(column_betas):
    """beta's unit for ``beta="auto"``: the :data:`BETA_QUANTILE` quantile of
    :func:`rmsc.solver.column_betas` (the beta above which that share of samples starts
    with an empty column of Z*; for 1.0, beta_max); :func:`rmsc.solver.beta_scale`."""
    return solver.beta_scale(column_betas, BETA_QUANTILE)


def check_lam_positive(lam, factors=None):
    """Raise unless lambda > 0, saying why it must be (from the views' factors when given).

    lambda = 0 cuts every view off from the consensus; with the data at hand, it also
    leaves the Z^v-step without a unique solution whenever a view has fewer features than
    samples. The estimator checks this at fit, with its factors; the dashboard when a
    parameter is set, without data.
    """
    if lam > 0:
        return lam
    singular = ""
    if factors is not None:
        n = factors[0].shape[1]
        rank = min(R.shape[0] for R in factors)
        if rank < n:
            singular = (f" with lam = 0, X^T X (n x n, n = {n}) is singular whenever a view has "
                        f"fewer features than samples (here a view has rank at most {rank} < "
                        f"{n}), so the Z^v-step has no unique solution; and")
    raise ValueError(
        f"lam must be positive:{singular} lam = 0 cuts every view off from the consensus, so "
        "Z* would be zero. Typical values are 0.1 to 10."
    )


def default_beta_rel(weighting):
    """The default ``beta_rel`` of a weighting (:data:`BETA_REL`); "sample" for an unknown one."""
    return BETA_REL.get(weighting, BETA_REL["sample"])


def beta_from_rel(column_betas, beta_rel):
    """``beta="auto"``: ``beta_rel`` times :func:`beta_scale` of the emptying betas (the
    rule :class:`rmsc.solver.RelativeBeta` that a fit applies)."""
    return solver.RelativeBeta(float(beta_rel), BETA_QUANTILE)(column_betas)


class DegenerateSolutionError(ValueError):
    """The fit ran, but its result cannot support a clustering (e.g. Z* = 0)."""


class RMSC(Deferred, ClusterMixin, BaseEstimator):
    """Robust localized multi-view subspace clustering.

    Solves, by default, the paper's model (eq. proposed_model) with every view's
    losses measured in that view's own unit (the stability study, docs/stability.md)::

        min  sum_v sum_j P_vj l_vj / s_v + psi(P_vj) + beta ||Z*||_1
        l_vj = ||x^v_j - X^v z^v_j||^2 + lam ||z^v_j - z*_j||^2
        s.t. P >= 0, diag(Z^v) = 0,     psi(p) = gamma p + 1/p - 2

    where s_v is the median of view v's losses at the start (Z* = 0, each Z^v its
    ridge self-representation), fixed for the fit: P_vj = 1/sqrt(gamma + l_vj/s_v)
    compares a sample with its own view's typical sample, and the consensus
    averages the Z^v with the weights P_vj / s_v. With ``loss_scale=None`` and
    ``gamma=1e-5`` (:data:`PAPER_MODEL`) it is the paper's model exactly (s_v = 1).
    Block coordinate descent (Algorithm 1: Z*-step, P-step, Z^v-steps, each in
    closed form, so the objective never increases), then spectral clustering of
    the affinity of Z* with k-means restarted ``n_init`` times.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters c.
    lam : float or None, default=None
        lambda > 0, weight of the coupling ||Z^v - Z*||^2 between each view's
        representation and the consensus (of unit-L2 samples, so it needs no
        rescaling with the data). The paper's lam, exactly. None takes
        :data:`LAM` for the weighting (1.0 for RMSC, 3.0 for RMSC-WV); ``lam_``
        reports the value used.
    beta : float or "auto", default="auto"
        beta >= 0, weight of the sparsity ||Z*||_1 of the consensus, exactly as
        in the paper; or ``"auto"``: ``beta_rel`` times the data's own scale of
        beta (``beta_scale_``: the beta above which 5 % of the samples start
        with an empty column of Z*, measured within the fit; see
        :data:`BETA_QUANTILE` and :func:`rmsc.solver.column_betas`). The useful absolute beta moves by
        orders of magnitude with n and the data; the relative one much less
        (docs/defaults.md). Too large a beta empties Z*; the error then says,
        from the measured emptying betas, which values keep the samples linked.
    beta_rel : float or None, default=None
        beta in units of ``beta_scale_`` when ``beta="auto"``; None takes
        :data:`BETA_REL` for the weighting (0.25). Ignored for a numeric beta.
    gamma : float, default=GAMMA (1e-2)
        gamma >= 0 of the weight regulariser psi, in the unit of the losses the
        P-step sees: with the default scaled model a view's median loss, so no
        weight exceeds 1/sqrt(gamma) = 10 times that of the view's typical
        sample. The paper's value for its absolute losses is 1e-5
        (:data:`PAPER_GAMMA`). Larger gamma flattens the weights towards equal;
        gamma = 0 fails if a sample is reconstructed exactly.
    weighting : {"sample", "view"}, default="sample"
        ``"sample"``: a weight per sample and view (RMSC). ``"view"``: one
        weight per view (RMSC-WV, paper appendix).
    loss_scale : {"median", None}, default=LOSS_SCALE ("median")
        ``"median"``: the scaled model, each view's losses measured in that
        view's unit s_v (the median of its per-sample losses at the start)::

            min  sum_v c_v sum_j [ P_vj l_vj + s_v psi(P_vj) ] + beta ||Z*||_1

        so P_vj = 1 / sqrt(gamma + l_vj / s_v) compares a sample with its own
        view's peers, and the Z*-step averages the Z^v with weights c_v P_vj
        (c_v = s_v ** -scale_power; the default power 1 makes the objective the
        one above). Every block step is exact, so the objective still never
        increases (:mod:`rmsc.solver._weights`). None: the paper's absolute
        losses (use it with ``gamma=1e-5`` for the paper's exact model).
    scale_power : float, default=SCALE_POWER (1.0)
        The scaled model's view factor c_v = s_v ** -scale_power: 1 divides every
        loss by its view's unit; 0 weighs every view's typical sample alike; 0.5
        is the paper's model with gamma relative to each view's unit (weights
        1 / sqrt(gamma s_v + l_vj)). Ignored for ``loss_scale=None``.
    uninformative : {"typical", None}, default=UNINFORMATIVE ("typical")
        The weight of a sample that carries no information in a view: all zero there
        (after ``normalize``), or equal to another sample there. Its loss is 0 whatever
        the view says (nothing rebuilds it, or its twin does), so the P-step alone
        would give it the view's highest weight. ``"typical"``: its weight is held at
        the view's typical weight (the median, over the view's other samples, of the
        P-step's weights at the start), a constant of the model, so every block step
        stays exact and the objective never increases. None: the paper's P-step for
        every weight. RMSC-WV (one weight per view) is not affected.
    view_balance : {None, "balanced", "consensus", "dof", "two_level"}, default=VIEW_BALANCE (None)
        How the views share the weight (docs/weights.md, "Models whose view shares follow
        informativeness"). None: the paper's P-step, each weight on its own (a view its
        samples are easy to rebuild in, e.g. one whose samples spread along few directions,
        draws most of the weight). ``"balanced"``: every view's weights sum to n, P_vj = 1/sqrt(gamma +
        l_vj/s_v + mu_v) with mu_v from a one-dimensional root find (gamma then plays no
        part). ``"consensus"``: every view's consensus weights c_v P_vj sum to n (the views
        share the consensus equally; within a view, and per sample across views, the
        weights still follow the losses). ``"dof"``: each view's losses in the unit of its
        degrees of freedom (the start loss of a sample of average leverage; it replaces
        ``loss_scale``'s unit) with view factor 1. ``"two_level"``: one weight per view,
        RMSC-WV's q_v = 1/sqrt(gamma + the view's mean robust loss), times the view's
        balanced weights (summing to n), so that a view's share is set by q_v and c_v
        alone; ``weights_`` holds the products and ``view_weights_`` the q_v. Every block
        step stays exact, so the objective never increases. "balanced", "consensus" and
        "two_level" do not apply to RMSC-WV.
    max_iter : int, default=rmsc.solver.MAX_ITER (200)
        Most iterations of Algorithm 1.
    tol : float, default=rmsc.solver.TOL (3e-3)
        Stop when the stopping rule's measure (``stop_on``) is at most ``tol``;
        ``tol=0`` runs all ``max_iter`` iterations. See :data:`rmsc.solver.TOL`.
    stop_on : {"zstar", "objective"}, default=rmsc.solver.STOP_ON ("zstar")
        The stopping rule: ``"zstar"``, the consensus's relative change in one
        iteration ||Z*_t - Z*_{t-1}||_F / ||Z*_t||_F; ``"objective"``, the
        objective's relative decrease in one iteration (the rule before issue
        29, with ``tol=1e-4, max_iter=30``). docs/stability.md compares them.
    acceleration : {"none", "extrapolate", "anderson"}, default=rmsc.solver.ACCELERATION
        A safeguarded acceleration of Algorithm 1's iterates: a candidate consensus
        (extrapolated, or Anderson-mixed from the last steps) is kept only where it
        lowers the objective below the plain step's, so the objective still never
        increases (:mod:`rmsc.solver._acceleration`; the study: docs/acceleration.md).
        ``"none"`` is the plain Algorithm 1.
    normalize : bool, default=True
        Scale every sample to unit L2 norm within each view (the paper's
        preprocessing). All-zero samples stay zero, with a warning.
    keep_mass : float in (0, 1] or None, default=None
        Affinity post-processing (Elhamifar & Vidal's rho, applied before
        ``top_k``): keep the largest coefficients of each column of Z* until
        their absolute sum reaches this share of the column's l1 norm (see
        :func:`rmsc.spectral.affinity_from_coefficients`). None (or 1) keeps
        all, the paper's affinity.
    top_k : int or None, default=None
        Affinity post-processing (SSC's): keep the ``top_k`` largest
        coefficients of each column of Z*. None is the paper's affinity.
    scale_columns : bool, default=SCALE_COLUMNS (True)
        Affinity post-processing: divide each column of |Z*| by its maximum
        before symmetrising ("colmax"; see
        :func:`rmsc.spectral.affinity_from_coefficients`). False is the paper's
        affinity (|Z*| + |Z*^T|)/2. The default comes from docs/defaults.md.
    placement : {"neighbors", None}, default="neighbors"
        What to do with the samples the consensus (nearly) isolates - mostly
        outliers, whose columns of Z* the weights shrink. ``"neighbors"``: the
        spectral embedding is computed without them, and each is placed at
        the embedding of its nearest neighbours in every view, the views
        weighted by how much they still trust it (P relative to the view's
        median; :mod:`rmsc.placement`). ``None``: the paper's plain spectral
        clustering of S, which leaves such samples to take eigenvectors and
        land in arbitrary clusters. It acts only where the consensus is sparse
        enough to isolate samples: on Digit at lam=0.3, beta=0.3 (the paper's
        affinity) it gains 1-12 ACC points (4-16 NMI) under replaced or
        view-inconsistent samples, costs 0.5-1.5 ACC under noise or corrupted
        features and leaves clean data as they were; at today's relative-beta
        defaults Digit's consensus isolates nothing and it places no sample
        (docs/robustness.md).
    n_init : int, default=20
        k-means restarts on the spectral embedding (the paper uses 20).
    random_state : int, RandomState instance or None, default=None
        Seeds the eigensolver's start vector and the k-means restarts.
    callback : callable or None, default=None
        ``callback(iteration, objective, weights)`` after every iteration,
        ``weights`` of shape (n_views, n_samples). Returning True stops the
        iterations (the clustering still runs on the current Z*).
    block_size : int or None, default=None
        Columns of the dense intermediate of the Z*-step; bounds memory at
        n_samples x block_size floats. None picks a block that stays in cache
        (about 4 MB, at least 128 columns, at most 64 MB).
    backend : {"local", "dask"}, default="local"
        Where the Z*-step's column blocks run. ``"dask"`` sends them as tasks
        to the current ``dask.distributed`` client (create one with
        ``Client(...)`` first); results are identical. See
        :mod:`rmsc.backends`.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        The k-means run of lowest inertia.
    label_runs_ : ndarray of shape (n_init, n_samples)
        Labels of every k-means restart (the paper's mean ± std protocol:
        ``rmsc.evaluate_runs(y, model.label_runs_)``).
    weights_ : ndarray of shape (n_views, n_samples)
        P; a low weight marks a sample its view reconstructs badly. For
        ``weighting="view"`` every column is equal.
    view_weights_ : ndarray of shape (n_views,)
        Mean weight of each view.
    consensus_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Z*, column j the representation of sample j; zero diagonal.
    affinity_matrix_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    embedding_ : ndarray of shape (n_samples, n_clusters)
        Row-normalised spectral embedding (with the placed samples' rows).
    placed_ : ndarray of int
        Indices of the samples placed by evidence rather than by the spectral
        embedding (empty with ``placement=None``): their affinity degree is
        below :data:`rmsc.placement.WEAK_DEGREE` times the median.
    objective_ : ndarray of shape (n_iter_,)
        The whole objective after every iteration (non-increasing).
    changes_ : ndarray of shape (n_iter_,)
        What the stopping rule (``stop_on``) measured after every iteration.
    objective_terms_ : dict of ndarray of shape (n_iter_,)
        ``reconstruction``, ``coupling``, ``regularizer``, ``sparsity``.
    objective_init_ : float
        The objective at the initialisation.
    n_iter_ : int
    n_accelerated_ : int
        Iterations whose accelerated candidate was kept (0 for ``acceleration="none"``).
    converged_ : bool
    lam_ : float
        The lambda of the fit.
    beta_ : float
        The absolute beta of the fit (the paper's beta): ``beta`` when it is a
        number, ``beta_rel * beta_scale_`` for ``"auto"``.
    beta_scale_ : float
        This data's unit of beta: the :data:`BETA_QUANTILE` quantile of
        ``column_betas_`` (the beta above which 5 % of the samples start with
        an empty column of Z*).
    beta_rel_ : float
        ``beta_ / beta_scale_``: the fit's beta in relative units (pass it as
        ``beta_rel`` to reuse the setting on other data).
    loss_scale_ : ndarray of shape (n_views,) or None
        The scaled model's unit s_v of every view (None for the paper's model).
    view_factors_ : ndarray of shape (n_views,) or None
        The scaled model's c_v (None for the paper's model).
    column_betas_ : ndarray of shape (n_samples,)
        For each sample, the beta above which its column of Z* starts empty
        (:func:`rmsc.solver.column_betas`): the measurement behind
        ``beta_scale_`` and the degenerate-beta advice.
    beta_max_ : float
        The smallest beta for which Algorithm 1 keeps Z* = 0 from the start
        (:func:`rmsc.solver.beta_max`, computed within the solve from the same
        factorisation: one extra product, part of ``fit_time_``). Useful
        values of beta lie well below it.
    fit_time_ : float
        Seconds of the fit before the spectral step: the views' unit-L2 scaling, their Gram
        factors and Algorithm 1.
    spectral_time_ : float
        Seconds spent in the spectral step.
    fit_device_ : str
        Where the fit ran: ``"cpu (NumPy)"``, or e.g. ``"cuda:0 (torch)"`` for views of an
        array-API library fitted with scikit-learn's array API dispatch on. Such a fit
        keeps ``consensus_`` and ``affinity_matrix_`` (dense) and ``weights_`` and
        ``view_weights_`` on the device; the labels, the embedding and the objective are
        NumPy arrays (docs/device.md; :func:`rmsc.device.fitted_to_host` converts).

    Notes
    -----
    Initialisation, which the paper leaves open: each Z^v the exact Z^v-step for
    Z* = 0 (its ridge self-representation with zero diagonal) and P = 1 (RMSC), or,
    for RMSC-WV, the P-step of those losses (:func:`rmsc.solver.initial_weights`:
    one weight per view is of the order 1/sqrt(n), so P = 1 made the first
    Z*-step nearly dense).

    The solver never forms the paper's n x n inverses: each Z^v is kept as
    Z* - diag(D) + X^T Q (Woodbury), so an iteration costs one dense
    (n x d)(d x n) product plus sparse work, and Z* is stored sparse (dense
    when it is over 10 % dense). Views with more features than samples run
    the equivalent kernel form (:mod:`rmsc.solver`). Results equal the literal
    paper form (see :mod:`rmsc._reference`) to round-off, except that while Z*
    is dense the Z*-step's products run in float32 (:data:`rmsc.solver.PRECISION`:
    Z* then within ~1e-6 of its largest entry, the same clustering measured).

    Views that are torch, CuPy or array_api_strict arrays, fitted inside
    ``sklearn.config_context(array_api_dispatch=True)`` (with ``SCIPY_ARRAY_API=1`` set
    before scipy is imported), run on their device: the solver in dense n x n form in the
    views' precision (float32 or float64), the affinity and the spectral step there, k-means
    on the host; the same results as here to round-off. A fit that would not fit the
    device's memory is refused before it starts. See docs/device.md.
    """

    def __init__(
        self,
        n_clusters=8,
        *,
        lam=None,
        beta="auto",
        beta_rel=None,
        gamma=GAMMA,
        weighting="sample",
        loss_scale=LOSS_SCALE,
        scale_power=SCALE_POWER,
        uninformative=UNINFORMATIVE,
        view_balance=VIEW_BALANCE,
        max_iter=solver.MAX_ITER,
        tol=solver.TOL,
        stop_on=solver.STOP_ON,
        acceleration=solver.ACCELERATION,
        normalize=True,
        keep_mass=None,
        top_k=None,
        scale_columns=SCALE_COLUMNS,
        placement="neighbors",
        n_init=N_KMEANS_RUNS,
        random_state=None,
        callback=None,
        block_size=None,
        backend="local",
    ):
        self.n_clusters = n_clusters
        self.lam = lam
        self.beta = beta
        self.beta_rel = beta_rel
        self.gamma = gamma
        self.weighting = weighting
        self.loss_scale = loss_scale
        self.scale_power = scale_power
        self.uninformative = uninformative
        self.view_balance = view_balance
        self.max_iter = max_iter
        self.tol = tol
        self.stop_on = stop_on
        self.acceleration = acceleration
        self.normalize = normalize
        self.keep_mass = keep_mass
        self.top_k = top_k
        self.scale_columns = scale_columns
        self.placement = placement
        self.n_init = n_init
        self.random_state = random_state
        self.callback = callback
        self.block_size = block_size
        self.backend = backend

    #: Every parameter's rule, declared once (the dashboard checks its settings against the
    #: same rules; scikit-learn's ``_parameter_constraints`` is the model). Rules that need
    #: the data are checked at fit: n_clusters <= n_samples, lam > 0
    #: (:func:`check_lam_positive`).
    _parameter_constraints = {
        "n_clusters": N_CLUSTERS,
        "lam": Param(None, Interval(numbers.Real, 0), what="a finite non-negative number",
                     type_what="a number", hint="Typical values are 0.1 to 10."),
        "beta": Param(Options(["auto"]), Interval(numbers.Real, 0),
                      what="a finite non-negative number or 'auto'",
                      page_what="a finite number >= 0 or 'auto'"),
        "beta_rel": Param(None, Interval(numbers.Real, 0, closed="neither"),
                          what="a positive number (β in units of the data's own scale, e.g. "
                               "0.25 or 0.5)", only_with=("beta", "auto"),
                          role="sets beta relative to the data (beta = auto)"),
        "gamma": NON_NEGATIVE,
        "weighting": Param(Options(WEIGHTINGS), what="'sample' (RMSC) or 'view' (RMSC-WV)"),
        "loss_scale": Param(Options(solver.LOSS_SCALES),
                            what="'median' (each view's losses in units of its median loss at "
                                 "the start) or None (the paper's absolute losses)",
                            hint="For the paper's exact model pass loss_scale=None with "
                                 "gamma=1e-5 (rmsc.rmsc.PAPER_MODEL)."),
        "scale_power": Param(Interval(numbers.Real, 0), what="a finite non-negative number",
                             type_what="a number",
                             hint="1 (the default) divides every view's losses by its unit, 0 "
                                  "weighs every view's typical sample alike, 0.5 is the "
                                  "paper's model with gamma in each view's unit."),
        "uninformative": Param(Options(solver.UNINFORMATIVE_RULES),
                               what="'typical' (a sample all zero or repeated in a view weighs "
                                    "as the view's typical sample) or None (the paper's "
                                    "P-step for every weight)"),
        "view_balance": Param(Options(solver.VIEW_BALANCES),
                              what="None (the paper's P-step), 'balanced' (every view's weights "
                                   "sum to n), 'consensus' (every view's consensus weights sum "
                                   "to n), 'dof' (losses in the unit of each view's degrees "
                                   "of freedom) or 'two_level' (one weight per view times the "
                                   "view's balanced weights)"),
        "max_iter": POSITIVE_INT,
        "tol": NON_NEGATIVE,
        "stop_on": Param(Options(solver.STOPPINGS),
                         what="'zstar' (stop on the consensus's relative change) or 'objective' "
                              "(stop on the objective's relative decrease)",
                         hint="The rule before the stability study is stop_on='objective', tol=1e-4, "
                              "max_iter=30 (rmsc.rmsc.FORMER_STOPPING)."),
        "acceleration": Param(Options(solver.ACCELERATIONS),
                              what="'none' (the plain Algorithm 1), 'extrapolate' or 'anderson' "
                                   "(a safeguarded acceleration of its iterates)"),
        "normalize": FLAG,
        "keep_mass": KEEP_MASS,
        "top_k": TOP_K,
        "scale_columns": FLAG,
        "placement": Param(Options(PLACEMENTS), what="'neighbors' (place isolated samples by "
                           "their neighbors in the views) or None (plain spectral clustering)"),
        "n_init": POSITIVE_INT,
        "block_size": Param(None, Interval(numbers.Integral, 1), what="an integer >= 1, or "
                            "None"),
        "backend": Param(Options(BACKENDS), what=f"one of {', '.join(map(repr, BACKENDS))}"),
    }

    def _check_params(self, n_samples):
        """The parameters checked against :attr:`_parameter_constraints`; returns lam, beta
        (a number, or the :class:`rmsc.solver.RelativeBeta` rule of ``beta="auto"``), gamma
        and the rest of :func:`rmsc.solver.solve`'s model and stopping keywords (weighting,
        max_iter, tol, stop_on, loss_scale, scale_power, view_balance)."""
        check_estimator(self)  # beta_rel too, though it plays no part unless beta="auto"
        check_n_clusters(self.n_clusters, n_samples)
        beta = self.beta
        if beta == "auto":
            beta = solver.RelativeBeta(float(self._beta_rel()), BETA_QUANTILE)
        options = {"weighting": self.weighting, "max_iter": int(self.max_iter),
                   "tol": float(self.tol), "stop_on": self.stop_on,
                   "acceleration": self.acceleration,
                   "loss_scale": self.loss_scale, "scale_power": float(self.scale_power),
                   "view_balance": self.view_balance}
        return float(self._lam()), beta, float(self.gamma), options

    @one_thread_per_call
    def fit(self, Xs, y=None):
        """Fit RMSC to multi-view data.

        Parameters
        ----------
        Xs : list of array-like or sparse matrices
            One per view, each of shape (n_samples, n_features_v).
        y : ignored

        Returns
        -------
        self
        """
        views = check_views(Xs)
        n = views[0].shape[0]
        lam, beta, gamma, options = self._check_params(n)
        runner = get_runner(self.backend)
        # The solver keeps about eight (factor rows x n) arrays: R, its transpose, and
        # per view Q, T, R Z* and the weighted Q of the Z*-step (see rmsc.solver).
        rows = sum(min(X.shape[1], n) for X in views)
        check_dense_fits(rows, n, count=8,
                         what=f"RMSC on {n} samples ({len(views)} views, {rows} factor rows)",
                         alternative="use fewer features per view (e.g. PCA)")
        t0 = time.perf_counter()  # fit_time_: the views' scaling and factors, Algorithm 1
        if self.normalize:
            views = [normalize_l2(X, view=v) for v, X in enumerate(views)]
        factors = solver.gram_factors(views)
        check_lam_positive(lam, factors)
        if self.uninformative == "typical" and self.weighting == "sample":
            options["uninformative"] = solver.uninformative_samples(views)
        sol = solver.solve(
            factors, lam, beta, gamma, **options,
            callback=self.callback, block_size=self.block_size,
            runner=runner, with_beta_max=True,
        )
        self.fit_time_ = time.perf_counter() - t0
        self.fit_device_ = describe(views[0])
        self.consensus_ = sol.Zstar.tocsr() if sp.issparse(sol.Zstar) else sol.Zstar
        self.weights_ = sol.P
        self.view_weights_ = namespace(sol.P).mean(sol.P, axis=1)
        self.objective_ = sol.objective
        self.objective_terms_ = sol.terms
        self.changes_ = sol.changes
        self.objective_init_ = sol.objective_init
        self.n_iter_ = sol.n_iter
        self.n_accelerated_ = sol.n_accelerated
        self.converged_ = sol.converged
        self.beta_max_ = sol.beta_max
        self.lam_ = float(lam)
        self.beta_ = beta = sol.beta
        self.beta_scale_ = beta_scale(sol.column_betas)
        self.beta_rel_ = beta / self.beta_scale_ if self.beta_scale_ > 0 else float("inf")
        self.column_betas_ = sol.column_betas
        self.loss_scale_ = sol.scale
        self.view_factors_ = sol.factors
        if count_nonzero(self.consensus_) == 0:
            raise DegenerateSolutionError(
                f"beta={beta:g} is so large that the consensus Z* is all zero, so there is "
                f"nothing to cluster (every labelling would be arbitrary). {self._advice(lam, beta)}"
            )

        t0 = time.perf_counter()
        self.affinity_matrix_ = affinity_from_coefficients(
            self.consensus_, keep_mass=self.keep_mass, top_k=self.top_k,
            scale_columns=self.scale_columns,
        )
        isolated = empty_rows(self.affinity_matrix_)
        if isolated > n // 2:
            raise DegenerateSolutionError(
                f"beta={beta:g} leaves {isolated:,} of {n:,} samples with no link to any other "
                "sample in Z*, so spectral clustering cannot place them and the labels would "
                f"be arbitrary. {self._advice(lam, beta)}"
            )
        self.embedding_, self.placed_, runs = embed_and_cluster(
            self.affinity_matrix_, views, self.weights_, self.n_clusters,
            placement=self.placement, n_init=self.n_init, random_state=self.random_state)
        # pieces among the samples the embedding was computed on
        n_pieces = count_pieces(self.affinity_matrix_, self.placed_)
        if n_pieces > self.n_clusters:
            warnings.warn(
                f"The consensus graph falls into {n_pieces} disconnected pieces, more than the "
                f"{self.n_clusters} clusters asked for, so spectral clustering has to merge "
                f"pieces arbitrarily. A smaller beta (now {beta:g}) links more samples: "
                f"{self._advice(lam, beta)}",
                UserWarning,
                stacklevel=2,
            )
        self.spectral_time_ = time.perf_counter() - t0
        self.labels_ = runs.labels
        self.label_runs_ = runs.runs
        n_found = np.unique(self.labels_).size
        if n_found < self.n_clusters:
            raise DegenerateSolutionError(
                f"Spectral clustering found only {n_found} distinct cluster(s) of the "
                f"{self.n_clusters} asked for: Z* links too few samples (density "
                f"{count_nonzero(self.consensus_) / n / n:.2%}). Lower beta or raise lam. "
                f"{self._advice(lam, beta)}"
            )
        return self

    def _lam(self):
        """``lam``, or the weighting's default from :data:`LAM`."""
        return default_lam(self.weighting) if self.lam is None else self.lam

    def _beta_rel(self):
        """``beta_rel``, or the weighting's default from :data:`BETA_REL`."""
        if self.beta_rel is not None:
            return self.beta_rel
        return default_beta_rel(self.weighting)

    def _advice(self, lam, beta):
        Z = abs(self.consensus_)
        unlinked = empty_rows(Z + Z.T)
        return beta_advice(lam, beta, self.column_betas_, self._beta_rel(), self.beta_max_,
                           fit=(unlinked, self.n_iter_, self.converged_, self.max_iter))[0]

    def view_representations(self, Xs):
        """Each view's self-representation Z^v at the fitted consensus.

        The solver holds every Z^v implicitly (it never forms them); this
        forms them densely, for inspection: comparing the view affinities
        (|Z^v| + |Z^v^T|)/2 with the consensus shows what each view brought.

        Parameters
        ----------
        Xs : list of array-like
            The views the model was fitted on, each (n_samples, n_features_v).

        Returns
        -------
        list of ndarray, each of shape (n_samples, n_samples)
            Zero diagonals.
        """
        return [solver.view_representation(solver.gram_factor(X), self.consensus_, self.lam_)
                for X in self._training_views(Xs)]

    def consensus_gaps(self, Xs, which=None):
        """How far each view's Z^v strays from the fitted consensus: ||Z^v - Z*||_F /
        ||Z*||_F (:func:`rmsc.solver.consensus_gap`, without forming Z^v). A view whose
        features rebuild almost any sample from almost any table follows Z* closely (a
        small gap): the coupling lam pulls its Z^v onto the consensus.

        Parameters
        ----------
        Xs : list of array-like
            The views the model was fitted on.
        which : list of int or None
            The views to measure (None: all).

        Returns
        -------
        list of float, one per view measured (None each when Z* is empty: no size to
        measure against)
        """
        views = self._training_views(Xs)
        which = range(len(views)) if which is None else which
        size = float(np.sqrt(abs(self.consensus_).power(2).sum()))
        if size == 0:
            return [None for _ in which]
        return [solver.consensus_gap(solver.gram_factor(views[v]), self.consensus_, self.lam_)
                / size for v in which]

    def _training_views(self, Xs):
        """The training views as the solver saw them (checked, unit-L2 when ``normalize``)."""
        check_is_fitted(self, "consensus_")
        views = check_views(Xs)
        n = self.consensus_.shape[0]
        if len(views) != self.weights_.shape[0] or views[0].shape[0] != n:
            raise ValueError(
                f"The model was fitted on {self.weights_.shape[0]} views of {n} samples; got "
                f"{len(views)} views of {views[0].shape[0]} samples. Pass the training views."
            )
        if self.normalize:
            views = [normalize_l2(X, view=v) for v, X in enumerate(views)]
        return views


def embed_and_cluster(affinity, views, weights, n_clusters, *, placement="neighbors",
                      n_init=N_KMEANS_RUNS, random_state=None):
    """RMSC's spectral step after the affinity: embedding, placed samples, k-means runs.

    ``placement="neighbors"``: the embedding without the samples the consensus
    (nearly) isolates, each placed by its neighbours in the views
    (:func:`rmsc.placement.place_weak_samples`); None: the paper's plain spectral
    embedding of the affinity. Then k-means ``n_init`` times
    (:func:`rmsc.spectral.kmeans_runs`), all seeded from ``random_state``.

    Parameters
    ----------
    affinity : sparse matrix of shape (n_samples, n_samples)
    views : list of arrays, each (n_samples, n_features_v), as the model saw them
    weights : ndarray of shape (n_views, n_samples)
        P.
    n_clusters : int
    placement : {"neighbors", None}
    n_init : int
    random_state : int, RandomState instance or None

    Returns
    -------
    embedding : ndarray of shape (n_samples, n_clusters)
    placed : ndarray of int
    runs : rmsc.spectral.KMeansRuns
    """
    rng = check_random_state(random_state)
    if placement == "neighbors":
        embedding, placed = place_weak_samples(affinity, views, weights, n_clusters,
                                               random_state=rng)
        runs = kmeans_runs(embedding, n_clusters, n_runs=n_init, random_state=rng)
    else:
        placed = np.array([], dtype=np.int64)
        runs, embedding = spectral_clustering(affinity, n_clusters, n_runs=n_init,
                                              random_state=rng)
    return embedding, placed, runs


def beta_advice(lam, beta, column_betas, beta_rel=None, beta_max=None, *, fit=None):
    """What to try after ``beta`` failed, in words, from the measured emptying betas.

    ``column_betas`` (:func:`rmsc.solver.column_betas`, measured within the fit)
    give, for every beta, the share of samples that start with an empty column of
    Z*. The advice names that share at the failed beta, the largest betas that
    keep all but 5 % and 1 % of the samples linked, and one value to try, always
    below the failed one: the ``beta="auto"`` value (``beta_rel``, default
    :data:`BETA_REL`, times :func:`beta_scale`) when that is below it, else a step
    down from the failed beta (said so).

    ``fit``, when given, is what the failed fit produced: ``(unlinked, n_iter,
    converged, max_iter)``, the samples its Z* left with no link to any other, and
    its iterations. The advice then counts them beside the start's share, and when
    the fit was cut short (by ``max_iter`` or a stop request) with more samples
    unlinked than the start predicts, says to let it run longer first.

    Returns
    -------
    advice : str
    suggested : float
        The beta the advice names (strictly below ``beta``; 0 only when beta is 0).
    """
    cb = np.asarray(column_betas, dtype=float)
    rel = BETA_REL["sample"] if beta_rel is None else beta_rel
    share = float(np.mean(cb <= beta))
    q5, q1 = np.quantile(cb, [0.05, 0.01])
    suggested = beta_from_rel(cb, rel)
    text = ended = ""
    if fit is not None:
        unlinked, n_iter, converged, max_iter = fit
        ended = f" (this fit ended with {unlinked:,} of {cb.size:,} samples unlinked)"
        iterations = f"{n_iter} iteration{'' if n_iter == 1 else 's'}"
        # Cut short with more samples unlinked than the start predicts: the iterations had
        # not linked them yet (with max_iter=1 on Digit: 0 % predicted, 1,883 of 2,000 left).
        behind = not converged and unlinked > share * cb.size
        if behind and n_iter >= max_iter:
            text = (f"This fit stopped at max_iter={max_iter} ({iterations}) before converging, "
                    "so its Z* is not the one these settings lead to: raise max_iter (the "
                    f"default is {solver.MAX_ITER}) first. ")
        elif behind:
            text = (f"This fit was stopped after {iterations}, before converging, so its Z* "
                    "is not the one these settings lead to: let it run to the end first. ")
    cut_short = bool(text)
    text += (f"Measured on these data with lam={lam:g}: at beta={beta:.4g}, {share:.0%} of the "
             f"samples start with an empty column of Z*{ended}; beta <= {q5:.4g} keeps all "
             f"but 5 % of them linked, beta <= {q1:.4g} all but 1 %, and beta >= "
             f"{cb.max() if beta_max is None else beta_max:.4g} (beta_max_) empties Z*. ")
    if cut_short:  # more iterations first
        text += "If it still fails after more iterations, "
    if suggested < beta:
        try_ = f"try beta={suggested:.3g} (beta='auto' with beta_rel={rel:g})."
    else:
        suggested = beta / 3.0
        try_ = (f"here beta='auto' (beta_rel={rel:g}) would not be below the failed beta, so "
                f"step down: try beta={suggested:.3g}, or a larger lam.")
    text += try_ if cut_short else try_[0].upper() + try_[1:]
    return text, float(suggested)
