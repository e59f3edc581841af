"""Attributes filled in on first access (rmsc._deferred): made once whatever the threads,
plain attributes afterwards, read whole by pickling and copying, and an error leaves the
attribute unread."""

import copy
import dataclasses
import pickle
import threading

import numpy as np
import pytest

from rmsc import RMSC
from rmsc._deferred import Deferred, defer, materialize, state, unread


@dataclasses.dataclass(frozen=True)
class Holder(Deferred):
    small: int
    big: np.ndarray
    default: object = None


class Maker:
    """A maker that counts its calls (and may be told to fail, or to wait at a barrier)."""

    def __init__(self, value, barrier=None):
        self.value, self.calls, self.fail, self.barrier = value, 0, False, barrier

    def __call__(self):
        self.calls += 1
        if self.barrier is not None:
            self.barrier.wait(timeout=30)
        if self.fail:
            raise ValueError("damaged")
        return self.value


def test_a_deferred_field_is_made_on_first_access_once():
    value = np.arange(5.0)
    h = Holder(small=1, big=None)
    make = Maker(value)
    defer(h, "big", make)
    assert unread(h) == {"big"} and make.calls == 0
    assert "big" not in state(h) and state(h)["small"] == 1
    assert h.big is value and h.big is value and make.calls == 1
    assert unread(h) == frozenset() and state(h) == vars(h) == {"small": 1, "big": value,
                                                                "default": None}
    with pytest.raises(AttributeError):
        h.other  # noqa: B018 - a name never deferred is still missing


def test_a_field_with_a_class_default_or_another_class_cannot_be_deferred():
    h = Holder(small=1, big=None)
    with pytest.raises(TypeError):
        defer(h, "default", Maker(2))  # the class attribute would answer instead
    with pytest.raises(TypeError):
        defer(object(), "x", Maker(2))


def test_a_failed_maker_leaves_the_attribute_unread():
    h = Holder(small=1, big=None)
    make = Maker(np.ones(3))
    defer(h, "big", make)
    make.fail = True
    with pytest.raises(ValueError, match="damaged"):
        h.big  # noqa: B018
    assert unread(h) == {"big"}
    make.fail = False
    np.testing.assert_array_equal(h.big, np.ones(3))


def test_threads_touching_at_once_share_one_value():
    n = 4
    barrier = threading.Barrier(n)
    h = Holder(small=1, big=None)
    make = Maker(np.zeros(2))
    defer(h, "big", make)
    got = []

    def touch():
        barrier.wait(timeout=30)
        got.append(h.big)

    threads = [threading.Thread(target=touch) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(got) == n and all(g is got[0] for g in got) and make.calls == 1


def test_pickling_and_copying_read_every_attribute():
    est = RMSC()
    est.labels_ = np.array([0, 1])
    defer(est, "consensus_", Maker(np.eye(2)))
    clone = pickle.loads(pickle.dumps(est))  # as a task sent to a worker
    np.testing.assert_array_equal(clone.consensus_, np.eye(2))
    assert not unread(clone) and not unread(est)
    h = Holder(small=1, big=None)
    defer(h, "big", Maker(np.ones(2)))
    for other in (copy.copy(h), copy.deepcopy(h), dataclasses.replace(h, small=2)):
        np.testing.assert_array_equal(other.big, np.ones(2))
        assert not unread(other)
    h2 = Holder(small=1, big=None)
    defer(h2, "big", Maker(np.ones(2)))
    assert materialize(h2) is h2 and not unread(h2)
