"""Where a fit's errors on the digits a corruption did not touch come from: how their
support on their own class in Z* moved.

:func:`support_sentence` says it, from :func:`rmsc.neighbours.class_support` of RMSC's fit
on the clean data and of its fit with the outliers (:func:`support_of`), on step 8's line after "Where RMSC's errors fall"
(:func:`rmsc.dashboard.lesson_paper.errors_sentence`).
"""

from __future__ import annotations

from ..neighbours import class_support


def support_of(clean_result, result, labels, mask):
    """:func:`rmsc.neighbours.class_support` of the clean fit and of the fit with the
    outliers (their ``consensus``, Z*), with the corrupted digits (``mask``) masked."""
    return (class_support(clean_result.consensus, labels, mask),
            class_support(result.consensus, labels, mask))


def support_sentence(before, after, n_other):
    """Where the loss on the digits the corruption did not touch comes from, from
    :func:`rmsc.neighbours.class_support` of the clean fit (``before``) and the fit with
    the outliers (``after``) with the corrupted digits masked: the share of Z* on the other
    ``n_other`` digits' own class, split into their clean and their corrupted classmates,
    each as shown (one decimal). Where the own-class share fell all on the corrupted
    classmates' part (it fell, the clean classmates' did not), it says the fall is the
    corrupted classmates dropped as neighbours; else it says what was measured and that it
    does not explain the loss."""
    def pct(x):
        return round(100 * x, 1)

    own, hit, kept = ((pct(before[k]), pct(after[k]))
                      for k in ("own", "own_masked", "own_unmasked"))
    moved = "fell" if own[1] < own[0] else "rose" if own[1] > own[0] else "stayed"
    said = (f"**Whom the other digits are rebuilt from.** For the other {n_other} digits, the "
            f"share of Z* (whom each is rebuilt from) on their own class {moved} from "
            f"{own[0]:.1f} % to {own[1]:.1f} %: the part on their corrupted classmates went "
            f"from {hit[0]:.1f} % to {hit[1]:.1f} %, the part on their clean classmates from "
            f"{kept[0]:.1f} % to {kept[1]:.1f} %")
    if moved == "fell" and hit[1] < hit[0] and kept[1] >= kept[0]:
        return said + (", and the rest went to other classes. The corrupted digits are used "
                       "less to rebuild the others, so the clean digits lost classmates as "
                       "neighbours in Z*. A digit's weight sets how much its own "
                       "rebuilding counts; it does not decide which digits the clean ones "
                       "are rebuilt from. This is one measured change in Z* beside the "
                       "loss, not a proof that it caused it.")
    return said + (". This does not explain the loss; what in the fit put the errors there, "
                   "this lesson does not measure.")
