"""The line under step 1's panels (rmsc.dashboard.lesson_views), worked by hand."""

import numpy as np
import pytest

from rmsc.dashboard.lesson_views import neighbour_line, same_class_share


def test_same_class_share_counts_each_dots_nearest_dot_by_hand():
    # two tight pairs far apart on x: every dot's nearest is its pair-mate
    xy = np.array([[0.0, 0], [0.1, 0.1], [10, 0.9], [10.1, 1]])
    assert same_class_share(xy, [0, 0, 1, 1]) == 1.0
    assert same_class_share(xy, [0, 1, 0, 1]) == 0.0
    assert same_class_share(xy, [0, 0, 0, 1]) == 0.5  # the second pair is mixed
    # the axes are stretched as drawn: x spans 100, y 1, so (0, 0) is nearer (3, 0), 0.03
    # across the panel, than (0, 1), all the way up (unstretched it would be the other way)
    wide = np.array([[0.0, 0], [3, 0], [0, 1], [5, 1], [100, 0.5]])
    assert same_class_share(wide, ["a", "a", "b", "b", "b"]) == 1.0
    # two dots on one spot: each is the other's nearest
    assert same_class_share(np.array([[1.0, 1], [1, 1], [5, 5]]), [3, 3, 4]) == pytest.approx(
        2 / 3)
    assert same_class_share(xy, None) is None and same_class_share(xy[:1], [0]) is None


def test_the_line_orders_the_views_and_says_chance():
    xy = np.array([[0.0, 0], [0.1, 0.1], [10, 0.9], [10.1, 1]])
    line = neighbour_line(["PIX", "MOR"], [xy[[0, 2, 1, 3]], xy], [0, 0, 1, 1])
    # MOR as given: pairs of one class, 100 %; PIX with the dots swapped: 0 %; two equal
    # classes: a random neighbour shares the class half the time
    assert line == ("**Clumps of one colour, counted**: the share of digits whose nearest "
                    "dot in the picture, as drawn (axes stretched; a dot drawn on top of "
                    "another has that one as its nearest), has their class: MOR 100 %, "
                    "PIX 0 % (100 % when every class is a clump of its own; about 50 % by "
                    "chance).")
    assert neighbour_line(["PIX"], [xy], None) is None
