"""The line under a lesson's 2-D panels: how many digits have a same-class nearest dot.

For each view, the share of digits whose nearest dot in that picture has the same class
(:func:`same_class_share`), computed from the points as drawn, so that "which view shows
the classes as clumps of one colour?" has an answer on the screen (the tenth cold reading:
step 1's question had none)."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree


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
            f"the picture has their class: {said} (100 % when every class is a clump of "
            f"its own; about {100 * chance:.0f} % by chance).")
