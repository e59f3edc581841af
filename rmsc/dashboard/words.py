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
