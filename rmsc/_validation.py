"""Input checks shared by every estimator and loader.

Every problem found here raises a :class:`ValueError` whose message says what
is wrong and what to do about it, so that the CLI and the dashboard can show it
to a person as it is.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from ._array_api import device_of, is_device_array, library, namespace, to_numpy


def check_views(Xs, *, min_samples=2, dtype=np.float64):
    """Validate multi-view input and return it as a list of float arrays.

    Parameters
    ----------
    Xs : list of array-like or sparse matrices
        One entry per view, each of shape ``(n_samples, n_features_v)``.
    min_samples : int, default=2
        Fewest samples accepted.
    dtype : numpy dtype, default=float64
        Dtype of the returned views.

    Returns
    -------
    views : list of ndarray or scipy.sparse.csr_matrix
        Same shapes as the input; sparse views stay sparse (CSR). Arrays of another
        array-API library (torch, CuPy, array_api_strict) with scikit-learn's array API
        dispatch on stay on their device (float32 when every view is float32, else
        float64): the fit then runs there (docs/device.md). With dispatch off they are
        converted to NumPy, as scikit-learn does, which a GPU array refuses: the error
        then says how to fit it where it is.
    """
    if is_device_array(Xs):
        raise ValueError(
            "Xs must be a list of views, not a single array: wrap a single view as [X] "
            "or pass one array per view."
        )
    if Xs is None or isinstance(Xs, (str, bytes)):
        raise ValueError(
            "Xs must be a list of views, one array of shape (n_samples, n_features_v) "
            f"per view; got {type(Xs).__name__}."
        )
    if isinstance(Xs, np.ndarray) or sp.issparse(Xs):
        raise ValueError(
            "Xs must be a list of views, not a single array: wrap a single view as [X] "
            "or pass one array per view."
        )
    try:
        Xs = list(Xs)
    except TypeError:
        raise ValueError(
            f"Xs must be a list of views; got {type(Xs).__name__}, which is not iterable."
        ) from None
    if len(Xs) == 0:
        raise ValueError("Xs is an empty list: pass at least one view.")
    if any(is_device_array(X) for X in Xs):
        from sklearn import get_config

        if get_config().get("array_api_dispatch", False):
            return _check_device_views(Xs, min_samples)
        _refuse_device_without_dispatch(Xs)

    views = []
    for v, X in enumerate(Xs):
        views.append(_check_one_view(X, v, dtype))
    return _check_counts(views, min_samples)


def _check_counts(views, min_samples):
    """The views, once they hold the same number of samples, at least ``min_samples``."""
    counts = [X.shape[0] for X in views]
    if len(set(counts)) > 1:
        detail = ", ".join(f"view {v}: {c}" for v, c in enumerate(counts))
        raise ValueError(
            f"The views have different numbers of samples ({detail}). Every view must "
            "hold the same samples in the same order, one row per sample; if your views "
            "are stored samples-as-columns, transpose them."
        )
    if counts[0] < min_samples:
        raise ValueError(
            f"Only {counts[0]} sample(s) given; clustering needs at least {min_samples}."
        )
    return views


def _refuse_device_without_dispatch(Xs):
    """With dispatch off, arrays off the CPU cannot become NumPy arrays: say what to do."""
    for v, X in enumerate(Xs):
        if is_device_array(X) and "cpu" not in str(device_of(X)).lower():
            raise ValueError(
                f"View {v} is a {library(namespace(X))} array on {device_of(X)}. To fit it "
                "there, turn on scikit-learn's array API dispatch: set SCIPY_ARRAY_API=1 "
                "before scipy is imported and fit inside "
                "sklearn.config_context(array_api_dispatch=True) (docs/device.md); or move "
                "the views to the host (NumPy) first."
            )


def _check_device_views(Xs, min_samples):
    """:func:`check_views` for array-API arrays, on their device."""
    try:
        if not all(is_device_array(X) for X in Xs):
            raise TypeError("some are not")
        xp = namespace(*Xs)
    except TypeError:
        kinds = ", ".join(f"view {v}: {type(X).__module__}.{type(X).__name__}"
                          for v, X in enumerate(Xs))
        raise ValueError(
            f"The views mix array libraries ({kinds}). Pass every view from the same "
            "library, on the same device."
        ) from None
    devices = [str(device_of(X)) for X in Xs]
    if len(set(devices)) > 1:
        raise ValueError(f"The views are on different devices ({', '.join(devices)}); move "
                         "them to one device.")
    single = all(X.dtype == xp.float32 for X in Xs)
    views = []
    for v, X in enumerate(Xs):
        if X.ndim != 2:
            raise ValueError(
                f"View {v} has {X.ndim} dimension(s) (shape {tuple(X.shape)}); each view must "
                "be 2-D, (n_samples, n_features_v)."
            )
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(
                f"View {v} is empty (shape {tuple(X.shape)}); every view needs samples and "
                "features."
            )
        if xp.isdtype(X.dtype, "complex floating") or not (
                xp.isdtype(X.dtype, "numeric") or X.dtype == xp.bool):
            raise ValueError(f"View {v} is not real numeric (dtype {X.dtype}); every view must "
                             "be a real numeric array.")
        X = xp.astype(X, xp.float32 if single else xp.float64)
        bad = ~xp.isfinite(X)
        if bool(xp.any(bad)):
            rows = np.flatnonzero(to_numpy(xp.any(bad, axis=1)))
            where = ", ".join(str(r) for r in rows[:5]) + (" ..." if rows.size > 5 else "")
            raise ValueError(
                f"View {v} contains NaN or infinite values ({int(xp.count_nonzero(bad))} "
                f"entries, in sample(s) {where}). Impute or drop those samples in every view "
                "before clustering."
            )
        views.append(X)
    return _check_counts(views, min_samples)


def _check_one_view(X, v, dtype):
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=dtype)
        data = X.data
    else:
        try:
            X = np.asarray(X)
        except Exception as exc:  # ragged lists and the like
            raise ValueError(f"View {v} could not be read as a numeric array: {exc}") from None
        if X.dtype == object or not (
            np.issubdtype(X.dtype, np.number) or X.dtype == bool
        ):
            raise ValueError(
                f"View {v} is not numeric (dtype {X.dtype}); every view must be a numeric "
                "array or scipy.sparse matrix."
            )
        if X.ndim != 2:
            raise ValueError(
                f"View {v} has {X.ndim} dimension(s) (shape {X.shape}); each view must be "
                "2-D, (n_samples, n_features_v). Use X.reshape(-1, 1) for a single feature."
            )
        X = np.ascontiguousarray(X, dtype=dtype)
        data = X
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"View {v} is empty (shape {X.shape}); every view needs samples and features."
        )
    if not np.all(np.isfinite(data)):
        bad = np.argwhere(~np.isfinite(X.toarray() if sp.issparse(X) else X))
        rows = np.unique(bad[:, 0])
        where = ", ".join(str(r) for r in rows[:5]) + (" ..." if rows.size > 5 else "")
        raise ValueError(
            f"View {v} contains NaN or infinite values ({len(bad)} entries, in sample(s) "
            f"{where}). Impute or drop those samples in every view before clustering."
        )
    return X


def check_n_clusters(n_clusters, n_samples):
    """Raise unless ``2 <= n_clusters <= n_samples``."""
    if not isinstance(n_clusters, numbers.Integral) or isinstance(n_clusters, bool):
        raise ValueError(f"n_clusters must be an integer; got {n_clusters!r}.")
    if n_clusters < 2:
        raise ValueError(f"n_clusters must be at least 2; got {n_clusters}.")
    if n_clusters > n_samples:
        raise ValueError(
            f"n_clusters={n_clusters} exceeds the number of samples ({n_samples}); "
            "ask for at most as many clusters as samples."
        )


def check_nonnegative(name, value):
    """Raise unless ``value`` is a finite real number ``>= 0``; return it as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a non-negative number; got {value!r}.")
    value = float(value)
    if not np.isfinite(value) or value < 0:
        raise ValueError(
            f"{name} must be a finite non-negative number; got {value}. "
            f"Pick {name} >= 0 (typical values are given in the docstring)."
        )
    return value


def check_positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}.")
    return int(value)


def check_fraction(name, value):
    """Raise unless ``value`` is a real number in (0, 1] (:data:`KEEP_MASS`'s rule, the one
    fraction rule of the affinity post-processing); return it as float."""
    return float(KEEP_MASS.check(name, value)) if value is not None else value


# ---------------------------------------------------------------------------
# Parameter contracts: each estimator declares its parameters' rules once
# ---------------------------------------------------------------------------


class Interval:
    """Numbers between ``left`` and ``right`` (None: unbounded), finite, of one kind.

    ``kind`` is ``numbers.Real`` or ``numbers.Integral`` (bools are neither here);
    ``closed`` says which ends belong: "left", "right", "both" or "neither".
    """

    def __init__(self, kind, left=None, right=None, *, closed="both"):
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def is_kind(self, value):
        """Whether ``value`` is a number of this kind (whatever its size)."""
        return isinstance(value, self.kind) and not isinstance(value, bool)

    def accepts(self, value):
        if not self.is_kind(value) or not np.isfinite(float(value)):
            return False
        if self.left is not None:
            if value < self.left or (value == self.left and self.closed in ("right", "neither")):
                return False
        if self.right is not None:
            if value > self.right or (value == self.right and self.closed in ("left", "neither")):
                return False
        return True


class Options:
    """One of the given values (compared with ``==``; None and True/False allowed)."""

    def __init__(self, values):
        self.values = tuple(values)

    def accepts(self, value):
        flag = isinstance(value, (bool, np.bool_))
        return any(value is None if v is None else
                   (flag and bool(value) is v) if isinstance(v, bool) else
                   (not flag and _equal(value, v)) for v in self.values)


def _equal(value, v):
    try:
        return bool(value == v)
    except (TypeError, ValueError):  # an array compared with a string
        return False


class PerView:
    """A number the ``interval`` accepts, or a sequence of such numbers (one per view; their
    count is checked against the data at fit)."""

    def __init__(self, interval):
        self.interval = interval
        self.kind = interval.kind

    def is_kind(self, value):
        return all(self.interval.is_kind(x) for x in _items(value))

    def accepts(self, value):
        items = _items(value)
        return bool(items) and all(self.interval.accepts(x) for x in items)


def _items(value):
    """``value`` as a list of its numbers (numpy scalars as Python's); [value] for a scalar."""
    if isinstance(value, (str, bytes)) or value is None:
        return [value]
    if np.ndim(value) == 0:
        return [value.item() if isinstance(value, np.generic) else value]
    return [x.item() if isinstance(x, np.generic) else x
            for x in np.ravel(np.asarray(value, dtype=object))]


class Param:
    """One parameter's rule: the constraints of which one must accept the value, and the
    house's words for it.

    Parameters
    ----------
    *constraints : Interval, Options or None
        None: the parameter may be None.
    what : str
        What the value must be, as the message says it ("a finite number >= 0").
    type_what : str or None
        What to say when the value is not even a number of the right kind (default: ``what``).
    hint : str
        What to do about it, appended to the message.
    page_what : str or None
        ``what`` as the dashboard's pages say it, where their words differ (default: ``what``).
    only_with : tuple or None
        ``(other, value)``: the parameter plays a part only while the parameter ``other`` is
        ``value`` (β_rel and SSC's α with β = "auto"). Everywhere alike: the estimator still
        checks it against its rule and otherwise ignores it; the dashboard stores it as None;
        the command line, where a person typed both, refuses the pair (:func:`inactive`).
    role : str
        What the parameter does, for the message that refuses it beside the other's value
        ("sets beta relative to the data (beta = auto)").
    """

    def __init__(self, *constraints, what, type_what=None, hint="", page_what=None,
                 only_with=None, role=""):
        self.constraints = constraints
        self.what, self.type_what, self.hint = what, type_what or what, hint
        self.page_what = page_what or what
        self.only_with, self.role = only_with, role

    def accepts(self, value):
        return any(value is None if c is None else c.accepts(value) for c in self.constraints)

    def applies(self, values):
        """Whether the parameter plays a part beside ``values`` (the other parameters)."""
        if self.only_with is None:
            return True
        other, wanted = self.only_with
        return other not in values or Options([wanted]).accepts(values[other])

    def check(self, name, value, *, label=None, page=False):
        """``value`` when it is valid, else a ValueError whose text says what it must be
        (``label``: the parameter as the caller's user knows it, default ``name``; ``page``:
        in the dashboard's words)."""
        if self.accepts(value):
            return value
        numeric = [c for c in self.constraints if isinstance(c, Interval)]
        right_kind = any(c.is_kind(value) for c in numeric)
        what = ((self.page_what if page else self.what) if right_kind or not numeric
                else self.type_what)
        message = f"{label or name} must be {what}; got {value!r}."
        raise ValueError(f"{message} {self.hint}" if self.hint else message)


def check_params(contract, values, *, labels=None):
    """Check every ``values[name]`` that ``contract`` (name -> :class:`Param`) has a rule
    for; the first invalid one raises its ValueError. Returns ``values``."""
    labels = labels or {}
    for name, rule in contract.items():
        if name in values:
            rule.check(name, values[name], label=labels.get(name))
    return values


def check_estimator(estimator):
    """Check ``estimator``'s parameters (``get_params``) against its class's
    ``_parameter_constraints``, the first thing its ``fit`` does. Returns the parameters."""
    return check_params(type(estimator)._parameter_constraints, estimator.get_params(deep=False))


def inactive(contract, values, given):
    """The names of ``given`` that play no part beside ``values`` (:attr:`Param.only_with`)."""
    return [name for name in given if name in contract and not contract[name].applies(values)]


def invalid_values(rule):
    """Values ``rule`` (a :class:`Param`) refuses, one per way to break it: each end of each
    interval crossed, a value of the wrong kind, None where it is not allowed, NaN, a word
    that is not an option (scikit-learn's ``generate_invalid_param_val`` plays this part
    there). Used by the tests of every estimator's contract."""
    candidates = ["not-an-option", None, float("nan"), float("inf"), True, 2.5]
    for c in rule.constraints:
        interval = c.interval if isinstance(c, PerView) else c
        if not isinstance(interval, Interval):
            continue
        step = 1 if interval.kind is numbers.Integral else 1e-3
        for end, side in ((interval.left, -1), (interval.right, 1)):
            if end is None:
                continue
            candidates.append(end + side * step)
            candidates.append(end)
        if isinstance(c, PerView):
            candidates.append([interval.left - step if interval.left is not None else "x"])
    out = []
    for value in candidates:
        if not rule.accepts(value) and not any(_same(value, o) for o in out):
            out.append(value)
    return out


def _same(a, b):
    return type(a) is type(b) and (a == b or (a != a and b != b))


# ---------------------------------------------------------------------------
# Rules that several estimators share (each declared once)
# ---------------------------------------------------------------------------

#: The number of clusters (at most the number of samples: checked at fit, with the data).
N_CLUSTERS = Param(Interval(numbers.Integral, 2), what="an integer >= 2 (at least 2 clusters)")

#: k-means restarts, iteration budgets and the like.
POSITIVE_INT = Param(Interval(numbers.Integral, 1), what="an integer >= 1")

#: Tolerances, weights that may be 0.
NON_NEGATIVE = Param(Interval(numbers.Real, 0), what="a finite non-negative number")

#: A switch.
FLAG = Param(Options([True, False]), what="True or False")

#: The affinity post-processing's share of each column's ℓ1 mass (Elhamifar & Vidal's ρ).
KEEP_MASS = Param(None, Interval(numbers.Real, 0, 1, closed="right"),
                  what="a number in (0, 1] (the share of each column's ℓ1 mass its largest "
                       "coefficients keep, 1 = all), or None to turn it off",
                  page_what="in (0, 1] (the share of each column's ℓ1 mass its largest "
                            "coefficients keep)")

#: The affinity post-processing's strongest coefficients kept per column.
TOP_K = Param(None, Interval(numbers.Integral, 1), what="an integer >= 1, or None "
              "(every coefficient kept)")

#: The view an estimator that clusters one view at a time reports (None: the best one).
VIEW = Param(None, Interval(numbers.Integral, 0), what="a view index (an integer >= 0), or "
             "None (the view of the largest eigengap)")
