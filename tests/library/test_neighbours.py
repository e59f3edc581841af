"""rmsc.neighbours.class_support on hand-built Z*."""

import numpy as np
import pytest
import scipy.sparse as sp

from rmsc.neighbours import class_support


def test_shares_worked_by_hand():
    # samples 0, 1, 2 in class a, 3 in class b; sample 2 is masked (corrupted)
    labels = ["a", "a", "a", "b"]
    mask = [False, False, True, False]
    z = np.zeros((4, 4))
    z[1, 0], z[2, 0], z[3, 0] = 0.5, -0.25, 0.25      # column 0: own 3/4, masked 1/4
    z[0, 1] = 1.0                                      # column 1: all own, unmasked
    z[2, 3], z[0, 3] = 0.6, 0.4                        # column 3 (class b): none own
    z[0, 2] = 5.0                                      # column 2 is masked: not counted
    got = class_support(z, labels, mask)
    assert got["own"] == pytest.approx((0.75 + 1.0 + 0.0) / 3)
    assert got["own_masked"] == pytest.approx((0.25 + 0 + 0) / 3)
    assert got["own_unmasked"] == pytest.approx((0.5 + 1.0 + 0) / 3)
    assert got["masked"] == pytest.approx((0.25 + 0 + 0.6) / 3)
    assert class_support(sp.csr_matrix(z), labels, mask) == pytest.approx(got)


def test_empty_column_counts_zero():
    z = np.zeros((3, 3))
    z[1, 0] = 2.0
    got = class_support(z, [0, 0, 1], [False, False, False])
    assert got["own"] == pytest.approx(1 / 3)  # columns 1 and 2 have no mass


def test_bad_input_says_what_is_wrong():
    with pytest.raises(ValueError, match="one label"):
        class_support(np.zeros((3, 3)), [0, 1], [False] * 3)
    with pytest.raises(ValueError, match="Every sample is masked"):
        class_support(np.zeros((2, 2)), [0, 1], [True, True])
