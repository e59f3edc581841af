"""The lines under a lesson's 2-D panels: how many digits have a same-class nearest dot
(:func:`neighbour_line`), and which panels are nearly flat (:func:`projection_note`).

For each view, the share of digits whose nearest dot in that picture has the same class
(:func:`same_class_share`), computed from the points as drawn, so that "which view shows
the classes as clumps of one colour?" has an answer on the screen (the tenth cold reading:
step 1's question had none)."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from ..inspection import ratio_text


def same_class_share(xy, labels):
    """The share (0-1) of the points ``xy`` (n x 2, as plotted) whose nearest other point in
    the picture has the same label. The picture stretches each axis to fill its panel, so
    distances are taken after scaling each axis by its range (an axis with no range stays
    as it is). Ties go to the first point the tree returns. None for fewer than two points
    or without labels."""
    xy = np.asarray(xy, dtype=float)
    if labels is None or len(xy) < 2:
        return None
    span = np.ptp(xy, axis=0)
    span[span == 0] = 1
    drawn = xy / span
    _, idx = cKDTree(drawn).query(drawn, k=2)
    y = np.asarray(labels)
    # the first of the two is the point itself, unless a duplicate came first: then the
    # other one is at the same place, just as near
    nearest = np.where(idx[:, 0] == np.arange(len(xy)), idx[:, 1], idx[:, 0])
    return float(np.mean(y[nearest] == y))


def neighbour_line(view_names, coords, labels):
    """The line under the panels: each view's :func:`same_class_share` of the points drawn
    (``coords``: each view's points, ``labels``: theirs), highest first, with what 100 % and
    chance would look like. None without labels."""
    shares = [same_class_share(xy, labels) for xy in coords]
    if labels is None or any(s is None for s in shares):
        return None
    y = np.asarray(labels)
    chance = float(np.sum((np.unique(y, return_counts=True)[1] / len(y)) ** 2))
    order = sorted(range(len(shares)), key=lambda v: -shares[v])
    said = ", ".join(f"{view_names[v]} {100 * shares[v]:.0f} %" for v in order)
    return (f"**Clumps of one colour, counted**: the share of digits whose nearest dot in "
            f"the picture, as drawn (axes stretched; a dot drawn on top of another has that "
            f"one as its nearest), has their class: {said} (100 % when every class is a "
            f"clump of its own; about {100 * chance:.0f} % by chance).")


#: A 2-D panel's second direction "keeps almost nothing" below this share of the spread.
FLAT_SHARE = 0.01


def projection_note(view_names, explained, coords):
    """Under a 'views' step's panels: for each view whose second direction keeps less than
    :data:`FLAT_SHARE` of its spread (``explained``: each view's two shares, 0-1), that its
    samples lie almost on a line, the stretched vertical axis showing differences too small
    to matter, and, from ``coords`` (each view's points as drawn), how many of them sit on
    top of others. None when no panel is that flat."""
    out = []
    for name, e, xy in zip(view_names, explained, coords):
        if e[1] >= FLAT_SHARE:
            continue
        xy = np.asarray(xy, dtype=float)
        span = np.ptp(xy, axis=0)
        text = (f"{name}'s PC2 keeps {100 * e[1]:.2g} % of its spread: its digits lie "
                "almost on a line along PC1, and the panel's vertical axis, stretched to "
                "fill it, spans ")
        text += (f"{ratio_text(span[0] / span[1])} times less than its horizontal one, so a "
                 "vertical gap between clumps is that many times smaller than a horizontal "
                 "one that looks as wide: small, though not necessarily meaningless."
                 if span[1] > 0 else "nothing: every dot sits at one height.")
        span[span == 0] = 1
        # a dot is about 1/200 of a panel wide: points closer than that hide each other
        cells = {tuple(c) for c in np.floor((xy - xy.min(axis=0)) / span * 200).astype(int)}
        hidden = len(xy) - len(cells)
        if hidden > 0.1 * len(xy):
            text += (f" Of its {len(xy)} dots, {hidden} sit on top of others (closer "
                     "than a dot's width), so the panel shows fewer dots than the others.")
        out.append(text)
    return " ".join(out) if out else None
