"""The library's messages in the pages' words.

The estimators and experiments speak to Python users, in the names of their arguments and
attributes ("beta=0.5 leaves ...", "beta >= 0.82 (beta_max_) empties Z*", "Try beta=0.067
(beta='auto' with beta_rel=0.25)", progress "RMSC lam=0.2, beta=0.02"); the pages show the
same facts with the symbols on their sliders (λ, β, β_rel, γ, ρ, c). :func:`page_words`
turns the one into the other; every page shows a library message through it (a failed fit,
an experiment's failed settings and progress, a rejected parameter).
"""

from __future__ import annotations

import re

from ..solver import balance_targets

#: The estimator's parameter names and the pages' symbols for them (the slider labels').
SYMBOLS = {
    "beta_rel": "β_rel",
    "beta": "β",
    "lam": "λ",
    "gamma": "γ",
    "keep_mass": "ρ",
    "top_k": "top-k",
    "n_clusters": "c",
    "max_iter": "max iterations",
    "view_balance": "view balance",
}

#: Where a name stands alone in a sentence, the words for it (else its symbol).
ALONE = {"n_clusters": "the number of clusters c"}

_NAME = "|".join(sorted(SYMBOLS, key=len, reverse=True))
_RELATIONS = {"=": "=", "<=": "≤", ">=": "≥", "<": "<", ">": ">"}

_RULES = (
    # fitted attributes named after a value: the value says it, the page needs no name
    (re.compile(r"\s*\((?:beta_max_|beta_scale_|beta_rel_|beta_|lam_)\)"), ""),
    # beta='auto' (the estimator's relative β) reads as the page's "auto"
    (re.compile(r"""\bbeta\s*=\s*(['"])auto\1"""), "β = auto"),
    # name=value, name <= value, ...: the symbol, spaced as the pages write it
    (re.compile(rf"\b({_NAME})\s*(<=|>=|=|<|>)\s*(?=[-+.\w'\"(])"),
     lambda m: f"{SYMBOLS[m.group(1)]} {_RELATIONS[m.group(2)]} "),
    # the bare name ("Lower beta or raise lam", "n_clusters must be ...")
    (re.compile(rf"\b({_NAME})\b"), lambda m: _alone(m)),
)


def _alone(match):
    name = match.group(1)
    if name not in ALONE:
        return SYMBOLS[name]  # a symbol keeps its case at a sentence's start (β, not Β)
    words = ALONE[name]
    before = match.string[:match.start()].rstrip()
    if not before or before[-1] in ".!?":  # a sentence starts with it
        words = words[0].upper() + words[1:]
    return words


def page_words(text):
    """``text`` (a message of the library, for Python users) in the pages' words.

    Parameter names become the symbols of the sliders (``beta=0.5`` → ``β = 0.5``,
    ``beta <= 0.01`` → ``β ≤ 0.01``, ``beta='auto'`` → ``β = auto``, ``lam`` → ``λ``);
    names of fitted attributes given after a number ("0.82 (beta_max_)") are dropped.
    Anything else is left as it is. None stays None.
    """
    if text is None:
        return None
    out = str(text)
    for pattern, repl in _RULES:
        out = pattern.sub(repl, out)
    return out


#: The columns of :func:`rmsc.outliers.evaluate` / :func:`rmsc.outliers.compare` in the pages'
#: words: each column's heading and what it measures (the heading's tooltip).
OUTLIER_COLUMNS = {
    "outliers": ("corrupted samples", "how many samples were corrupted in this view"),
    "roc_auc": ("AUC", "area under the ROC curve: the chance that a corrupted sample scores "
                       "as more suspect than a clean one (1 = always, 0.5 = chance)"),
    "average_precision": ("average precision",
                          "going down the samples from the most suspect, the share of "
                          "corrupted ones among them, averaged at each corrupted one "
                          "(1 = every corrupted sample first; by chance, about their share)"),
}

#: The models of the views' shares (``RMSC(view_balance=...)``, docs/weights.md) in the
#: pages' words, once: each model's short name (the Solve page's select box) and what it
#: does. A model the library adds without words here is shown by its value.
VIEW_BALANCE_NAMES = {
    None: "none (the paper's)",
    "balanced": "balanced",
    "consensus": "consensus",
    "dof": "dof (degrees of freedom)",
    "two_level": "two levels",
}
VIEW_BALANCE_WORDS = {
    None: "the paper's P-step, each weight on its own (a view whose samples are easy to "
          "rebuild, e.g. one whose samples spread along few directions, can draw most of "
          "the weight)",
    "balanced": "every view's weights P sum to n (γ then plays no part, and there is no "
                "cap)",
    "consensus": "every view's consensus weights c_v P sum to n, so the views count equally "
                 "in Z* (within a view the weights still follow the losses)",
    "dof": "each view's losses in the unit of its degrees of freedom (a view whose "
           "samples spread along few directions has a small unit), view factor 1",
    "two_level": "one weight per view (RMSC-WV's, from the view's mean robust loss) times "
                 "weights within the view that sum to n"
}


def view_balance_name(view_balance):
    """The short name of the model ``view_balance`` (its value when it has none)."""
    return VIEW_BALANCE_NAMES.get(view_balance, str(view_balance))


def view_balance_words(view_balance):
    """What the model ``view_balance`` does, in a few words (its value when there are none)."""
    return VIEW_BALANCE_WORDS.get(view_balance, "described in docs/weights.md")


def balance_constrains(view_balance, weighting="sample"):
    """Whether the fit's per-sample weights were constrained to a sum per view (the models
    with :func:`rmsc.solver.balance_targets`, under RMSC): then γ plays no part and no
    weight is capped at 1/√γ."""
    return weighting != "view" and balance_targets(view_balance, 1, 1) is not None


def at_cap_words(view_balance, weighting, gamma):
    """What the Weights page's "at the cap" column means for a fit of this model (Markdown,
    one sentence)."""
    if weighting != "view" and view_balance == "two_level":
        return ("Under two levels a weight is its view's weight times a weight within the "
                "view (those sum to n); only the view's weight has a cap (1/√γ), so the share "
                "of samples **at the cap** says nothing here.")
    if balance_constrains(view_balance, weighting):
        return ("This model caps no weight (γ plays no part), so the share of samples "
                "**at the cap** says nothing here.")
    return (f"A sample is **at the cap** when its loss is at most γ = {gamma:g}: its weight "
            "is then near 1/√γ whatever its loss, so the weight no longer tells such samples "
            "apart.")


def view_balance_sentence(view_balance, weighting="sample"):
    """Which model of the views' shares made a fit's weights, for the page that shows them
    (Markdown): its name and what it does; under RMSC-WV (``weighting="view"``) a model that
    constrains each view's per-sample weights (:func:`rmsc.solver.balance_targets`) is said
    to change nothing, as the library ignores it there."""
    text = (f"These weights come from the view balance **{view_balance_name(view_balance)}**: "
            f"{view_balance_words(view_balance)}.")
    if weighting == "view" and balance_constrains(view_balance):
        text += (" RMSC-WV has one weight per view, which this constraint would fix at 1: "
                 "the fit ignores it.")
    return text


def stops_label(symbol, values):
    """The label of a slider whose stops are ``values`` (ascending), drawn evenly spaced
    whatever the values: it says so when the values are not (a slider at 0.05, 0.25 and 1
    puts 0.25 in the middle of its track, and read as a linear scale it misleads; the
    seventh cold reading of the lesson). Equal ratios are said as "each ×r the one before",
    other uneven steps by listing the values and their ratios."""
    values = [float(v) for v in values]
    shown = " → ".join(f"{v:g}" for v in values)
    head = f"{symbol}: {len(values)} stops, {shown}"
    if len(values) < 3:
        return head
    gaps = [b - a for a, b in zip(values, values[1:])]
    if max(gaps) - min(gaps) <= 1e-9 * max(abs(v) for v in values):
        return f"{head} (evenly spaced)"
    if values[0] > 0:
        ratios = [b / a for a, b in zip(values, values[1:])]
        if max(ratios) - min(ratios) <= 1e-9 * max(ratios):
            return f"{head} (evenly spaced stops; each value ×{ratios[0]:.3g} the one before)"
        steps = ", then ".join(f"×{r:.3g}" for r in ratios)
        return f"{head} (evenly spaced stops, values not: {steps})"
    return f"{head} (evenly spaced stops, values not)"
